/* A user operator compiled with the system C compiler into a shared object (cpu_compile.c). */
#ifndef PSCAN_OP_CPU_COMPILE_H
#define PSCAN_OP_CPU_COMPILE_H

#include "../internal.h"

/* The functions of the compiled unit (the glue in cpu_compile.c defines them around the user's
   function, which the compiler inlines). Elements are byte strings of sizeof(type); every pointer
   may be unaligned; out may equal in. */
typedef struct pscan__uop_lib {
  void *dl; /* the dlopen handle */
  size_t (*size_of)(void);
  /* *out = *a ⊕ *b (out may alias a or b). */
  void (*combine)(void *out, const void *a, const void *b);
  /* *acc = in[0] ⊕ ... ⊕ in[n-1], n >= 1. */
  void (*reduce)(void *acc, const void *in, size_t n);
  /* The same, recording into memo (PSCAN__UOP_MEMO_PER_BLOCK elements per block of
     PSCAN__UOP_BLOCK bytes) what a scan of the same elements can reuse. */
  void (*reduce_memo)(void *acc, const void *in, size_t n, void *memo);
  /* Inclusive scan of in[0..n) continuing from *carry (NULL: from in[0]); memo: what
     reduce_memo recorded for exactly these elements, or NULL. */
  void (*scan)(void *out, const void *in, size_t n, const void *carry, const void *memo);
  /* Exclusive scan: out[0] = *carry (never NULL). */
  void (*scan_excl)(void *out, const void *in, size_t n, const void *carry, const void *memo);
  /* out[i] = *carry ⊕ out[i]; and the exclusive form (out[i] = *carry ⊕ out[i-1], out[0] = *carry). */
  void (*propagate)(void *out, size_t n, const void *carry);
  void (*propagate_excl)(void *out, size_t n, const void *carry);
  /* PREDICATE: the compaction gather (pscan__cpu_gather_if_fn's contract). */
  size_t (*gather)(void *buf, const void *in, size_t n, int rejects);
} pscan__uop_lib;

/* The glue's layout (pscan_uop_layout checks it at load): lanes, and the bytes of a block. */
#define PSCAN__UOP_LANES 4
#define PSCAN__UOP_BLOCK 65536
#define PSCAN__UOP_MEMO_PER_BLOCK (PSCAN__UOP_LANES - 1)

/* What a compiled operator depends on besides its description: the compiler command, its
   version line, the flags and this CPU (for -march=native). Never NULL. */
const char *pscan__uop_target(void);

/* Finds key's shared object in the disk cache or compiles d into it, and loads it. Compile
   errors: PSCAN_ERR_INVALID_ARGUMENT with the first error line; no compiler:
   PSCAN_ERR_UNSUPPORTED. The compiler's output goes to pscan__op_set_log. */
pscan_status pscan__uop_compile(pscan_ctx *ctx, const pscan_op_desc *d, const char *key,
                                pscan__uop_lib *lib);
void pscan__uop_unload(pscan__uop_lib *lib);

#endif /* PSCAN_OP_CPU_COMPILE_H */
