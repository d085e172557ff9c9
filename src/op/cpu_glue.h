/* The C glue compiled after a user's source (cpu_compile.c prepends the user's source and two
 * macros: PSCAN_UOP_T, the element type, and PSCAN_UOP_F, the function). It defines the whole
 * sequential kernels of one partition in the same translation unit as the user's function, so
 * that the compiler inlines the operator into the loops (what a function pointer per element
 * would forbid). The unit is compiled with hidden visibility (cpu_compile.c), so that the
 * user's function is not interposable and can be inlined; only the glue's entry points are exported.
 *
 * Instruction-level parallelism: a scan's running value is one dependency chain, one operator
 * latency per element. On long enough inputs the reduction runs LANES chains side by side over
 * LANES contiguous quarters and folds them in order; the scan, block by block (64 KiB, a default
 * CPU partition, which stays in L2), first reduces the first LANES - 1 quarters that way, which
 * gives every quarter its entry prefix, then scans the quarters side by side. Only associativity
 * is used, never commutativity, and every element is read before its position is written (in
 * place is safe). The glue includes no header: it must not collide with anything the user's
 * source declares; it needs GCC or Clang (attributes, __SIZE_TYPE__). */
#ifndef PSCAN_OP_CPU_GLUE_H
#define PSCAN_OP_CPU_GLUE_H

static const char pscan__uop_glue[] =
    "\n#line 1 \"pscan_op_glue\"\n"
    "typedef PSCAN_UOP_T pscan_uop_t;\n"
    "#define PSCAN_UOP_EXPORT __attribute__((visibility(\"default\")))\n"
    "typedef __SIZE_TYPE__ pscan_uop_size;\n"
    "enum { PSCAN_UOP_LANES = 4, PSCAN_UOP_S = sizeof(pscan_uop_t) };\n"
    /* Element access through a packed box: unaligned and alias-safe, and compiled as direct
       loads and stores of the members (a memcpy of a struct held in registers goes through the
       stack, and reloading it whole misses store forwarding: 10x slower measured). */
    "struct __attribute__((packed, may_alias)) pscan_uop_box { pscan_uop_t v; };\n"
    "static inline pscan_uop_t pscan_uop_ld(const char *p) {\n"
    "  return ((const struct pscan_uop_box *)p)->v; }\n"
    "static inline void pscan_uop_st(char *p, pscan_uop_t v) {\n"
    "  ((struct pscan_uop_box *)p)->v = v; }\n"
    "PSCAN_UOP_EXPORT pscan_uop_size pscan_uop_sizeof(void) { return sizeof(pscan_uop_t); }\n"
    /* The quarter length for n elements, or 0 when n is too short for lanes. Lanes whose
       addresses agree in their low 12 bits make the core's store-to-load check see false
       dependencies between them (4K aliasing), so a quarter of a multiple of 4 KiB is shortened
       by about 256 bytes: 32 or more iterations of the lanes, beyond what a store buffer holds
       (the rest goes to the sequential tail). */
    "enum { PSCAN_UOP_BLOCK = 65536, PSCAN_UOP_SHIFT = (256 + PSCAN_UOP_S - 1) / PSCAN_UOP_S,\n"
    "       PSCAN_UOP_BLOCK_N = PSCAN_UOP_BLOCK / PSCAN_UOP_S ? PSCAN_UOP_BLOCK / PSCAN_UOP_S : 1 };\n"
    "static inline pscan_uop_size pscan_uop_quarter(pscan_uop_size n) {\n"
    "  pscan_uop_size q = n / PSCAN_UOP_LANES, off = q * PSCAN_UOP_S % 4096;\n"
    "  if (q < 64 + 2 * PSCAN_UOP_SHIFT) return 0;\n"
    "  return off < 256 || off > 3840 ? q - PSCAN_UOP_SHIFT : q;\n"
    "}\n";

/* COMBINE operators. */
static const char pscan__uop_glue_combine[] =
    "PSCAN_UOP_EXPORT void pscan_uop_combine(void *out, const void *a, const void *b) {\n"
    "  pscan_uop_st(out, PSCAN_UOP_F(pscan_uop_ld(a), pscan_uop_ld(b))); }\n"
    /* red[j] = the reduction of quarter j (q elements from in + j*q) for j < lanes. */
    "static inline void pscan_uop_quarters(pscan_uop_t *red, const char *in, pscan_uop_size q,\n"
    "                                      int lanes) {\n"
    "  const pscan_uop_size step = q * PSCAN_UOP_S;\n"
    "  pscan_uop_t r[PSCAN_UOP_LANES];\n"
    "  for (int j = 0; j < PSCAN_UOP_LANES; j++) r[j] = pscan_uop_ld(in + j * step);\n"
    "  for (pscan_uop_size i = 1; i < q; i++)\n"
    "    for (int j = 0; j < PSCAN_UOP_LANES; j++)\n"
    "      if (j < lanes) r[j] = PSCAN_UOP_F(r[j], pscan_uop_ld(in + j * step + i * PSCAN_UOP_S));\n"
    "  for (int j = 0; j < lanes; j++) red[j] = r[j];\n"
    "}\n"
    /* The reduction, block by block as the scan goes; with memo, each block's first LANES - 1
       quarter reductions are recorded there (LANES - 1 elements per block), so that the scan of
       the same elements right after need not compute them again. */
    "PSCAN_UOP_EXPORT void pscan_uop_reduce_memo(void *acc, const void *in_, pscan_uop_size n,\n"
    "                                            void *memo_) {\n"
    "  const char *in = in_; char *memo = memo_; pscan_uop_t r; int have = 0;\n"
    "  for (pscan_uop_size at = 0, k = 0; at < n; at += PSCAN_UOP_BLOCK_N, k++) {\n"
    "    pscan_uop_size len = n - at < PSCAN_UOP_BLOCK_N ? n - at : PSCAN_UOP_BLOCK_N;\n"
    "    const char *b = in + at * PSCAN_UOP_S; pscan_uop_size i = 0, q = pscan_uop_quarter(len);\n"
    "    if (q) {\n"
    "      pscan_uop_t red[PSCAN_UOP_LANES];\n"
    "      pscan_uop_quarters(red, b, q, PSCAN_UOP_LANES);\n"
    "      pscan_uop_t t = red[0];\n"
    "      for (int j = 1; j < PSCAN_UOP_LANES; j++) t = PSCAN_UOP_F(t, red[j]);\n"
    "      if (memo) for (int j = 0; j < PSCAN_UOP_LANES - 1; j++)\n"
    "        pscan_uop_st(memo + (k * (PSCAN_UOP_LANES - 1) + j) * PSCAN_UOP_S, red[j]);\n"
    "      r = have ? PSCAN_UOP_F(r, t) : t; have = 1; i = q * PSCAN_UOP_LANES;\n"
    "    }\n"
    "    for (; i < len; i++) {\n"
    "      pscan_uop_t x = pscan_uop_ld(b + i * PSCAN_UOP_S);\n"
    "      r = have ? PSCAN_UOP_F(r, x) : x; have = 1;\n"
    "    }\n"
    "  }\n"
    "  pscan_uop_st(acc, r);\n"
    "}\n"
    "PSCAN_UOP_EXPORT void pscan_uop_reduce(void *acc, const void *in, pscan_uop_size n) {\n"
    "  pscan_uop_reduce_memo(acc, in, n, 0); }\n"
    /* The layout the caller of the memo forms must agree with: LANES and the block's bytes. */
    "PSCAN_UOP_EXPORT unsigned long long pscan_uop_layout(void) {\n"
    "  return (unsigned long long)PSCAN_UOP_LANES << 32 | PSCAN_UOP_BLOCK; }\n";

/* COMBINE operators, continued (one string would pass the 4095 characters ISO C asks a compiler
   to support). */
static const char pscan__uop_glue_scan[] =
    /* Quarters scanned side by side from their entry prefixes e[j] (have[j] = 0: lane 0 without a
       carry starts from its first element); returns the last lane's running value. */
    "static inline pscan_uop_t pscan_uop_lanes(char *out, const char *in, pscan_uop_size q,\n"
    "                                          pscan_uop_t *e, int first_has, int excl) {\n"
    "  const pscan_uop_size step = q * PSCAN_UOP_S;\n"
    "  pscan_uop_t acc[PSCAN_UOP_LANES];\n"
    "  for (int j = 0; j < PSCAN_UOP_LANES; j++) {\n"
    "    pscan_uop_t x = pscan_uop_ld(in + j * step);\n"
    "    if (excl) { pscan_uop_st(out + j * step, e[j]); acc[j] = PSCAN_UOP_F(e[j], x); }\n"
    "    else { acc[j] = (j == 0 && !first_has) ? x : PSCAN_UOP_F(e[j], x);\n"
    "           pscan_uop_st(out + j * step, acc[j]); }\n"
    "  }\n"
    "  for (pscan_uop_size i = 1; i < q; i++)\n"
    "    for (int j = 0; j < PSCAN_UOP_LANES; j++) {\n"
    "      pscan_uop_size at = j * step + i * PSCAN_UOP_S;\n"
    "      pscan_uop_t x = pscan_uop_ld(in + at);\n"
    "      if (excl) { pscan_uop_st(out + at, acc[j]); acc[j] = PSCAN_UOP_F(acc[j], x); }\n"
    "      else { acc[j] = PSCAN_UOP_F(acc[j], x); pscan_uop_st(out + at, acc[j]); }\n"
    "    }\n"
    "  return acc[PSCAN_UOP_LANES - 1];\n"
    "}\n"
    /* One block of at most PSCAN_UOP_BLOCK bytes, so that the second read of its first three
       quarters comes from cache; *acc / *have: the running value before and after it. */
    "static inline void pscan_uop_block(char *out, const char *in, pscan_uop_size n,\n"
    "                                   pscan_uop_t *acc, int *have, int excl, const char *known) {\n"
    "  pscan_uop_size i = 0, q = pscan_uop_quarter(n);\n"
    "  if (q) {\n"
    "    pscan_uop_t red[PSCAN_UOP_LANES], e[PSCAN_UOP_LANES];\n"
    "    if (known) for (int j = 0; j < PSCAN_UOP_LANES - 1; j++)\n"
    "      red[j] = pscan_uop_ld(known + j * PSCAN_UOP_S);\n"
    "    else pscan_uop_quarters(red, in, q, PSCAN_UOP_LANES - 1);\n"
    "    if (*have) e[0] = *acc;\n"
    "    for (int j = 1; j < PSCAN_UOP_LANES; j++)\n"
    "      e[j] = (j == 1 && !*have) ? red[0] : PSCAN_UOP_F(e[j - 1], red[j - 1]);\n"
    "    *acc = pscan_uop_lanes(out, in, q, e, *have, excl);\n"
    "    *have = 1; i = q * PSCAN_UOP_LANES;\n"
    "  }\n"
    "  for (; i < n; i++) {\n"
    "    pscan_uop_t x = pscan_uop_ld(in + i * PSCAN_UOP_S);\n"
    "    if (excl) { pscan_uop_st(out + i * PSCAN_UOP_S, *acc); *acc = PSCAN_UOP_F(*acc, x); }\n"
    "    else { *acc = *have ? PSCAN_UOP_F(*acc, x) : x; *have = 1;\n"
    "           pscan_uop_st(out + i * PSCAN_UOP_S, *acc); }\n"
    "  }\n"
    "}\n"
    /* memo: what pscan_uop_reduce_memo recorded for the same elements, or 0. */
    "static void pscan_uop_scan_any(char *out, const char *in, pscan_uop_size n,\n"
    "                               const void *carry, int excl, const char *memo) {\n"
    "  pscan_uop_t acc; int have = carry != 0;\n"
    "  if (have) acc = pscan_uop_ld(carry);\n"
    "  for (pscan_uop_size at = 0, k = 0; at < n; at += PSCAN_UOP_BLOCK_N, k++) {\n"
    "    pscan_uop_size len = n - at < PSCAN_UOP_BLOCK_N ? n - at : PSCAN_UOP_BLOCK_N;\n"
    "    const char *known = memo ? memo + k * (PSCAN_UOP_LANES - 1) * PSCAN_UOP_S : 0;\n"
    "    pscan_uop_block(out + at * PSCAN_UOP_S, in + at * PSCAN_UOP_S, len, &acc, &have, excl,\n"
    "                    known);\n"
    "  }\n"
    "}\n"
    "PSCAN_UOP_EXPORT void pscan_uop_scan(void *out, const void *in, pscan_uop_size n,\n"
    "                                     const void *carry, const void *memo) {\n"
    "  pscan_uop_scan_any(out, in, n, carry, 0, memo); }\n"
    "PSCAN_UOP_EXPORT void pscan_uop_scan_excl(void *out, const void *in, pscan_uop_size n,\n"
    "                                          const void *carry, const void *memo) {\n"
    "  pscan_uop_scan_any(out, in, n, carry, 1, memo); }\n"
    "PSCAN_UOP_EXPORT void pscan_uop_propagate(void *out_, pscan_uop_size n, const void *carry) {\n"
    "  char *out = out_; pscan_uop_t c = pscan_uop_ld(carry);\n"
    "  for (pscan_uop_size i = 0; i < n; i++)\n"
    "    pscan_uop_st(out + i * PSCAN_UOP_S, PSCAN_UOP_F(c, pscan_uop_ld(out + i * PSCAN_UOP_S)));\n"
    "}\n"
    "PSCAN_UOP_EXPORT void pscan_uop_propagate_excl(void *out_, pscan_uop_size n, const void *carry) {\n"
    "  char *out = out_; pscan_uop_t c = pscan_uop_ld(carry);\n"
    "  for (pscan_uop_size i = n - 1; i > 0; i--)\n"
    "    pscan_uop_st(out + i * PSCAN_UOP_S,\n"
    "                 PSCAN_UOP_F(c, pscan_uop_ld(out + (i - 1) * PSCAN_UOP_S)));\n"
    "  pscan_uop_st(out, c);\n"
    "}\n";

/* PREDICATE operators: the branch-free gather of the compaction family (compact_body.h). */
static const char pscan__uop_glue_predicate[] =
    "PSCAN_UOP_EXPORT pscan_uop_size pscan_uop_gather(void *buf_, const void *in_, pscan_uop_size n, int rejects) {\n"
    "  char *buf = buf_; const char *in = in_; pscan_uop_size sel = 0;\n"
    "  if (rejects) {\n"
    "    for (pscan_uop_size i = 0; i < n; i++) {\n"
    "      pscan_uop_t v = pscan_uop_ld(in + i * PSCAN_UOP_S);\n"
    "      pscan_uop_size s = PSCAN_UOP_F(v) ? 1 : 0;\n"
    "      pscan_uop_st(buf + sel * PSCAN_UOP_S, v);\n"
    "      pscan_uop_st(buf + (n - 1 - (i - sel)) * PSCAN_UOP_S, v);\n"
    "      sel += s;\n"
    "    }\n"
    "  } else {\n"
    "    for (pscan_uop_size i = 0; i < n; i++) {\n"
    "      pscan_uop_t v = pscan_uop_ld(in + i * PSCAN_UOP_S);\n"
    "      pscan_uop_st(buf + sel * PSCAN_UOP_S, v);\n"
    "      sel += PSCAN_UOP_F(v) ? 1 : 0;\n"
    "    }\n"
    "  }\n"
    "  return sel;\n"
    "}\n";

#endif /* PSCAN_OP_CPU_GLUE_H */
