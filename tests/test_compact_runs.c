/* The compaction suite's run and by-key cases (test_compact.c says what the suite covers; shared
 * pieces in test_compact.h): heads per tile for unique and run-length encoding, reduce_by_key and
 * scan_by_key over every key and value type, and exact, geometric and edge runs. */
#include "test_compact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* unique and run-length encoding where each block of 8192 items (one CUDA tile of 4-byte
   items, two of 8-byte ones) holds a chosen number of run heads: around 256, where the CUDA
   keys kernel switches between its sparse gather (at most 256 kept) and the dense one, and
   with the block's first item starting a run or continuing the one before. */
void test_heads_per_tile(void) {
  /* Blocks of 8192 items with h heads each: about the keys kernel's sparse limit (256 a tile)
     and the look-back-warp kernel's slot (an eighth of a tile: 1024 of 4-byte items' 8192,
     512 of 8-byte items' 4096, two such tiles a block). */
  enum { BLOCK = 8192 };
  static const unsigned heads[] = {256, 257, 255, 1,    300,  128,  256,  8192,
                                   1024, 1025, 1023, 1026, 2048, 2049, 2047, 1022};
  const size_t n = BLOCK * (sizeof heads / sizeof heads[0]) - 37;
  const pscan_dtype types[] = {PSCAN_I32, PSCAN_U8, PSCAN_F32, PSCAN_I64};
  const config c = {2, 0, PSCAN_ALGO_AUTO};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    pscan_dtype t = types[k];
    size_t s = ref_dtype_size(t);
    char *in = test_malloc(n * s);
    long run = 0;
    for (size_t i = 0; i < n; i++) {
      size_t b = i / BLOCK, j = i % BLOCK;
      unsigned h = heads[b];
      /* Heads at j = ceil(m * BLOCK / h), shifted by one in odd blocks (whose first item then
         continues the previous block's last run). */
      size_t off = (b & 1) ? 1 : 0;
      bool head = i == 0 || (j >= off && ((j - off) * h) % BLOCK < h && j - off < BLOCK);
      if (head && i > 0)
        run++;
      ref_store_int(t, 1 + run % 3, in + i * s); /* neighbouring runs always differ */
    }
    for (int op = REF_UNIQUE; op <= REF_RLE; op++) {
      run_one(&c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, false);
      run_one(&c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, true);
    }
    free(in);
  }
}

static void by_key_case(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, size_t n,
                        int mode) {
  char *keys = test_malloc(n * ref_dtype_size(kt) + 1), *vals = test_malloc(n * ref_dtype_size(vt) + 1);
  fill_runs(kt, keys, n, mode);
  fill_vals(vt, op, vals, n);
  run_by_key(c, kt, vt, op, keys, vals, n);
  free(keys), free(vals);
}

/* Every key type x value type with the ops in turn (every op for i32 keys), sizes 0, 1, 2 and
   random, on three configurations; calls fn for each case. Shared by reduce_by_key and
   scan_by_key. */
typedef void (*by_key_fn)(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, size_t n,
                          int mode, unsigned variant);

static void for_each_by_key_case(by_key_fn fn) {
  static const config configs[] = {{3, 7, PSCAN_ALGO_DECOUPLED_LOOKBACK},
                                   {2, 64, PSCAN_ALGO_CHAINED},
                                   {1, 0, PSCAN_ALGO_AUTO}};
  size_t max_n = quick ? 300 : 3000;
  unsigned round = 0;
  for (int ci = 0; ci < (light ? 1 : 3); ci++)
    for (int kt = 0; kt < REF_NTYPES; kt++)
      for (int vt = 0; vt < REF_NTYPES; vt++)
        for (int opi = 0; opi < REF_NOPS; opi++) {
          pscan_op op = (pscan_op)opi;
          if (!ref_op_valid((pscan_dtype)vt, op) ||
              (kt != PSCAN_I32 && (unsigned)opi != round % REF_NOPS))
            continue;
          size_t sizes[] = {0, 1, 2, 1 + (size_t)test_below(&rng, max_n)};
          for (int si = 0; si < 4; si++)
            fn(&configs[ci], (pscan_dtype)kt, (pscan_dtype)vt, op, sizes[si],
               (int)((round + (unsigned)si) % 3), round + (unsigned)si);
          round++;
        }
}

static void by_key_variant(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op, size_t n,
                           int mode, unsigned variant) {
  (void)variant;
  by_key_case(c, kt, vt, op, n, mode);
}

void test_by_key(void) { for_each_by_key_case(by_key_variant); }

/* reduce_by_key on blocks of 4096 and of 2048 items (the CUDA tile: 256 threads of 16 or of 8
   items) with about 256 and 512 heads (the look-back warp kernel's slot holds an eighth of a
   tile: by_key_heads.cuh), one head, every item a head, blocks starting on or inside a run;
   several key sizes, 4- and 8-byte values. */
static void by_key_heads_blocks(size_t block) {
  static const unsigned heads[] = {256, 257, 255, 1,   300, 128, 256, 4096,
                                   2,   512, 513, 511, 514, 510, 1024};
  const size_t n = block * (sizeof heads / sizeof heads[0]) - 53;
  static const struct {
    pscan_dtype kt, vt;
    pscan_op op;
  } cases[] = {{PSCAN_I32, PSCAN_F32, PSCAN_SUM}, {PSCAN_U8, PSCAN_I32, PSCAN_MAX},
               {PSCAN_I64, PSCAN_F64, PSCAN_SUM}, {PSCAN_F32, PSCAN_U16, PSCAN_XOR}};
  const config c = {2, 0, PSCAN_ALGO_AUTO};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    const size_t ks = ref_dtype_size(cases[k].kt), vs = ref_dtype_size(cases[k].vt);
    char *keys = test_malloc(n * ks), *vals = test_malloc(n * vs);
    long run = 0;
    for (size_t i = 0; i < n; i++) {
      size_t b = i / block, j = i % block;
      unsigned h = heads[b];
      size_t off = (b & 1) ? 1 : 0;
      bool head = i == 0 || (j >= off && ((j - off) * h) % block < h);
      if (head && i > 0)
        run++;
      /* neighbouring runs always differ */
      ref_store_int(cases[k].kt, 1 + run % 3, keys + i * ks);
    }
    fill_vals(cases[k].vt, cases[k].op, vals, n);
    run_by_key(&c, cases[k].kt, cases[k].vt, cases[k].op, keys, vals, n);
    free(keys), free(vals);
  }
}

void test_by_key_heads_per_tile(void) {
  by_key_heads_blocks(4096);
  by_key_heads_blocks(2048);
}

static void scan_by_key_case(const config *c, pscan_dtype kt, pscan_dtype vt, pscan_op op,
                             size_t n, int mode, unsigned variant) {
  char *keys = test_malloc(n * ref_dtype_size(kt) + 1), *vals = test_malloc(n * ref_dtype_size(vt) + 1);
  char init[8];
  fill_runs(kt, keys, n, mode);
  fill_vals(vt, op, vals, n);
  fill_vals(vt, op, init, 1);
  int exclusive = (int)(variant & 1);
  bool with_init = variant & 2, in_place = variant & 4;
  run_scan_by_key(c, kt, vt, op, exclusive, with_init ? init : NULL, keys, vals, n, in_place);
  free(keys), free(vals);
}

void test_scan_by_key(void) {
  for_each_by_key_case(scan_by_key_case);
  unsigned round = 0;
  static const int threads[] = {1, 2, 3, 8};
  const int64_t *parts = boundaries();
  for (int th = 0; th < (light ? 1 : 4); th++)
    for (int p = 0; p < 4; p++)
      for (int a = 0; a < 2; a++) {
        config c = {threads[th], parts[p], a ? PSCAN_ALGO_CHAINED : PSCAN_ALGO_DECOUPLED_LOOKBACK};
        pscan_dtype kt = (pscan_dtype)(round % REF_NTYPES),
                    vt = (pscan_dtype)((round / REF_NTYPES + 3) % REF_NTYPES);
        size_t part = parts[p] ? (size_t)parts[p] : (size_t)65536 / (ref_dtype_size(kt) + 8);
        size_t sizes[] = {1, 2, part - 1, part, part + 1, 3 * part + 1,
                          1 + (size_t)test_below(&rng, quick ? 2000 : 20000)};
        for (int si = 0; si < 7; si++)
          if (sizes[si] > 0 && sizes[si] <= (quick ? 20000u : 200000u))
            for (unsigned v = 0; v < 8; v++)
              scan_by_key_case(&c, kt, vt, ref_is_float(vt) ? PSCAN_MAX : PSCAN_SUM, sizes[si],
                               (int)(v % 3), v);
        round++;
      }
}

/* reduce_by_key and scan_by_key of float sums and products in deterministic mode (on CUDA the
   by-key kernels' ordered look-back; reduce_by_key leaves its look-back-warp kernel for
   by_key_reduce_kernel), exact on these values (integers below 100 in runs shorter than 2^17
   items, products of +-1), at sizes around the by-key tiles (2048 and 4096 items). */
void test_by_key_deterministic(void) {
  static const pscan_dtype key_types[] = {PSCAN_I32, PSCAN_I64}, val_types[] = {PSCAN_F32, PSCAN_F64};
  static const pscan_op ops[] = {PSCAN_SUM, PSCAN_PROD};
  const config c = {2, 0, PSCAN_ALGO_AUTO};
  const size_t sizes[] = {1, 2047, 2049, 4095, 4097, 5 * 4096 + 3,
                          1 + (size_t)test_below(&rng, quick ? 20000 : 100000)};
  unsigned variant = 0;
  deterministic = 1;
  for (size_t k = 0; k < 2; k++)
    for (size_t v = 0; v < 2; v++)
      for (size_t o = 0; o < 2; o++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++, variant++) {
          by_key_case(&c, key_types[k], val_types[v], ops[o], sizes[si], (int)(variant % 3));
          scan_by_key_case(&c, key_types[k], val_types[v], ops[o], sizes[si], (int)(variant % 3),
                           variant);
        }
  deterministic = 0;
}

/* ---- exact run lengths at tile boundaries ----
   Every op on data in runs of exactly L items (L = 1, 2, 3, tile - 1, tile + 1): for unique,
   run-length encoding and the by-key ops, runs of equal keys; for the selections, runs of kept
   and rejected items (values 10 and 90 against LT 50, flags to match), at n = tile - 1, tile,
   tile + 1, 2 tile - 1, 2 tile + 1 for each tile of the backend (CPU: a 64-item partition and
   the default 64 KiB one; CUDA: the 8192- and 4096-item tiles of compact_tile.cuh and
   by_key_tile.cuh). */

static void fill_exact_runs(pscan_dtype t, void *p, uint8_t *flags, size_t n, size_t L) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++) {
    size_t r = i / L;
    ref_store_int(t, flags ? (r % 2 ? 90 : 10) : 1 + (long)(r % 3), (char *)p + i * s);
    if (flags)
      flags[i] = r % 2 ? 0 : (uint8_t)(1 + r % 255);
  }
}

static void exact_runs_case(const config *c, pscan_dtype t, size_t n, size_t L) {
  size_t s = ref_dtype_size(t);
  pscan_dtype vt = s == 8 ? PSCAN_F64 : PSCAN_I32;
  char *in = test_malloc(n * s + 1), *vals = test_malloc(n * 8 + 1);
  uint8_t *flags = test_malloc(n + 1);
  fill_exact_runs(t, in, flags, n, L);
  for (int op = REF_SELECT_IF; op <= REF_PARTITION_IF; op++) {
    run_one(c, (op_kind)op, t, in, flags, n, PSCAN_LT, 50, false);
    if (op != REF_PARTITION_IF)
      run_one(c, (op_kind)op, t, in, flags, n, PSCAN_LT, 50, true);
  }
  fill_exact_runs(t, in, NULL, n, L);
  for (int op = REF_UNIQUE; op <= REF_RLE; op++) {
    run_one(c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, false);
    run_one(c, (op_kind)op, t, in, NULL, n, PSCAN_LT, 0, true);
  }
  fill_vals(vt, PSCAN_SUM, vals, n);
  run_by_key(c, t, vt, PSCAN_SUM, in, vals, n);
  char init[8];
  ref_store_int(vt, 5, init);
  run_scan_by_key(c, t, vt, PSCAN_SUM, 0, NULL, in, vals, n, false);
  run_scan_by_key(c, t, vt, PSCAN_SUM, 1, init, in, vals, n, true);
  free(in), free(vals), free(flags);
}

typedef struct tile_config {
  config c;
  size_t tile; /* 0: the CPU's default partition, 64 KiB of input */
} tile_config;

void test_exact_runs(void) {
  enum { NTILES = 2 };
  static const tile_config cpu_tiles[NTILES] = {{{3, 64, PSCAN_ALGO_DECOUPLED_LOOKBACK}, 64},
                                                {{2, 0, PSCAN_ALGO_CHAINED}, 0}},
                           cuda_tiles[NTILES] = {{{1, 0, PSCAN_ALGO_AUTO}, 8192},
                                                 {{1, 0, PSCAN_ALGO_AUTO}, 4096}};
  const tile_config *tiles = backend->device ? cuda_tiles : cpu_tiles;
  /* quick: one type of each item size; light: i32 and i64 */
  static const pscan_dtype quick_types[] = {PSCAN_I8, PSCAN_U16, PSCAN_I32, PSCAN_F64};
  static const pscan_dtype light_types[] = {PSCAN_I32, PSCAN_I64};
  int ntypes = light ? 2 : quick ? 4 : REF_NTYPES; /* else every type in enum order */
  unsigned cases = 0;
  for (size_t k = 0; k < NTILES; k++)
    for (int ti = 0; ti < ntypes; ti++) {
      pscan_dtype t = light ? light_types[ti] : quick ? quick_types[ti] : (pscan_dtype)ti;
      size_t tile = tiles[k].tile ? tiles[k].tile : (size_t)65536 / ref_dtype_size(t);
      size_t sizes[] = {tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 1};
      size_t lengths[] = {1, 2, 3, tile - 1, tile + 1};
      for (int si = 0; si < 5; si++)
        for (int li = 0; li < 5; li++) {
          if (light && li > 2 && si != 4)
            continue;
          exact_runs_case(&tiles[k].c, t, sizes[si], lengths[li]);
          cases++;
        }
    }
  printf("exact run lengths at tile boundaries: %u cases\n", cases);
}

/* ---- scan_by_key on the flat scan's tiles ----
   Values of 1, 2, 4 and 8 bytes (CUDA: tiles of 32768, 16384, 8192 and 4096 items, half tiles
   of half that, each tile's run heads read from its keys by warps, scan/tile_lines.cuh), n
   around 1/2, 1 and 3 tiles, runs of 1, 31, 33 items, half a tile + 1, a tile + 1, one run over
   everything and random runs (fill_runs mode 1: NaN and +-0.0 runs among float keys), keys of 1
   to 8 bytes, inclusive / exclusive / init / in place in turn, with the default strategy and
   the chained one (CUDA: the by-key kernel). */
static void fill_exact_key_runs(pscan_dtype t, void *p, size_t n, size_t L) {
  size_t s = ref_dtype_size(t);
  for (size_t i = 0; i < n; i++)
    ref_store_int(t, 1 + (long)((L ? i / L : 0) % 3), (char *)p + i * s);
}

void test_scan_by_key_tiles(void) {
  static const pscan_dtype vals[] = {PSCAN_U8, PSCAN_I16, PSCAN_F32, PSCAN_F64};
  static const pscan_dtype keys[] = {PSCAN_I8, PSCAN_F32, PSCAN_I64, PSCAN_U16, PSCAN_F64};
  static const config configs[] = {{1, 0, PSCAN_ALGO_AUTO}, {2, 0, PSCAN_ALGO_CHAINED}};
  unsigned cases = 0;
  for (int vi = 0; vi < 4; vi++) {
    const size_t tile = 32768 >> vi, half = tile / 2, vs = ref_dtype_size(vals[vi]);
    const size_t sizes[] = {half - 1, half + 1, tile - 1, tile + 1, 3 * tile + 5};
    const size_t lengths[] = {1, 31, 33, half + 1, tile + 1, 0, 0}; /* last: random (mode 1) */
    for (int si = 0; si < 5; si++)
      for (int li = 0; li < 7; li++, cases++) {
        const pscan_dtype kt = keys[cases % 5];
        const size_t n = sizes[si];
        char *k = test_malloc(n * ref_dtype_size(kt) + 1), *v = test_malloc(n * vs + 1), init[8];
        if (li == 6)
          fill_runs(kt, k, n, 1);
        else
          fill_exact_key_runs(kt, k, n, lengths[li]);
        fill_vals(vals[vi], PSCAN_SUM, v, n);
        fill_vals(vals[vi], PSCAN_SUM, init, 1);
        const unsigned variant = cases % 4;
        run_scan_by_key(&configs[cases / 4 % 2], kt, vals[vi], PSCAN_SUM, (int)(variant & 1),
                        variant & 2 ? init : NULL, k, v, n, variant == 3);
        free(k), free(v);
      }
  }
  printf("scan_by_key at tile edges: %u cases\n", cases);
}

/* ---- runs of random length, every vector lane position ----
   Keys in runs of geometric length with mean L (a new run with probability 1/L, L = 1 .. 5000),
   the run keys distinct from their neighbours (NaN runs and alternating 0.0 / -0.0 among float
   keys), so that heads fall on every lane of the CPU's 16- and 8-lane vector kernels and on
   partition edges (partitions of 15, 16, 17, 1000, 4097 items and the default). unique,
   run-length encoding, reduce_by_key (SUM, exact values) and inclusive scan_by_key (also in
   place), against the references. */
static void fill_geometric(pscan_dtype t, void *p, size_t n, unsigned mean) {
  size_t s = ref_dtype_size(t);
  long v = 0;
  int special = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || test_below(&rng, mean) == 0) {
      v = (v + 1 + (long)test_below(&rng, 50)) % 120; /* never the previous run's value */
      special = ref_is_float(t) && test_below(&rng, 12) == 0 ? 1 + (int)test_below(&rng, 2) : 0;
    }
    char *e = (char *)p + i * s;
    ref_store_int(t, special ? 0 : v, e);
    if (special && t == PSCAN_F32) {
      float f = special == 1 ? NAN : (i % 2 ? -0.0f : 0.0f);
      memcpy(e, &f, 4);
    } else if (special) {
      double x = special == 1 ? NAN : (i % 2 ? -0.0 : 0.0);
      memcpy(e, &x, 8);
    }
  }
}

void test_geometric_runs(void) {
  static const pscan_dtype keys[] = {PSCAN_I32, PSCAN_U64, PSCAN_F32, PSCAN_F64};
  static const pscan_dtype vals[] = {PSCAN_F32, PSCAN_F64, PSCAN_I32, PSCAN_U64};
  static const unsigned means[] = {1, 2, 3, 7, 16, 33, 100, 5000};
  static const int64_t parts[] = {0, 15, 16, 17, 1000, 4097};
  unsigned cases = 0;
  for (int pi = 0; pi < 6; pi++)
    for (int ki = 0; ki < 4; ki++) {
      config c = {1 + 2 * (pi % 2), parts[pi], pi % 3 == 2 ? PSCAN_ALGO_CHAINED : PSCAN_ALGO_DECOUPLED_LOOKBACK};
      pscan_dtype kt = keys[ki], vt = vals[(ki + (unsigned)pi) % 4];
      unsigned mean = means[(ki + 3 * (unsigned)pi) % 8];
      size_t n = 1 + (size_t)test_below(&rng, quick ? 20000 : 120000);
      char *k = test_malloc(n * ref_dtype_size(kt) + 1), *v = test_malloc(n * ref_dtype_size(vt) + 1);
      fill_geometric(kt, k, n, mean);
      fill_vals(vt, PSCAN_SUM, v, n);
      run_one(&c, REF_UNIQUE, kt, k, NULL, n, PSCAN_EQ, 0, pi % 2 == 1);
      run_one(&c, REF_RLE, kt, k, NULL, n, PSCAN_EQ, 0, pi % 2 == 1);
      run_by_key(&c, kt, vt, PSCAN_SUM, k, v, n);
      run_scan_by_key(&c, kt, vt, PSCAN_SUM, 0, NULL, k, v, n, pi % 2 == 1);
      free(k), free(v);
      cases++;
    }
  printf("geometric runs: %u cases\n", cases);
}

/* ---- run-length encoding's one pass at vector and partition edges (CPU) ----
   Exact runs of L items shifted by a phase (the first run phase items short), so that run ends
   fall on every lane of the 16- and 8-lane kernels and of their 8-lane halves of positions: L =
   1, 2, 7, 8, 9, 15, 16, 17, 33 and one run over the input, on partitions of 1, 8, 16, 17, 31
   and 48 items and the default, runs crossing partitions and whole partitions inside one run;
   1-, 4- and 8-byte keys (the portable and the AVX-512 kernels; n = 25 and 95 end in a span of
   16 items whose second vector of 8-byte keys holds 1 and 7 items). run_length_encode (in place
   too), unique and reduce_by_key (SUM) against the references. */
void test_run_edges(void) {
  static const pscan_dtype keys[] = {PSCAN_I8, PSCAN_I32, PSCAN_F32, PSCAN_I64, PSCAN_F64};
  static const size_t lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 33, 0};
  static const int64_t parts[] = {1, 8, 16, 17, 31, 48, 0};
  static const size_t sizes[] = {1, 16, 17, 25, 95, 1000};
  unsigned cases = 0;
  for (int ki = 0; ki < 5; ki++)
    for (int li = 0; li < 10; li++)
      for (int pi = 0; pi < 7; pi++)
        for (int si = 0; si < 6; si++) {
          if (quick && (si + li + pi) % 3 != 0)
            continue;
          pscan_dtype kt = keys[ki], vt = ref_dtype_size(kt) == 8 ? PSCAN_F64 : PSCAN_I32;
          size_t n = sizes[si], L = lengths[li] ? lengths[li] : n, phase = (size_t)(li + pi) % L;
          config c = {1 + 2 * (pi % 2), parts[pi],
                      si % 2 ? PSCAN_ALGO_CHAINED : PSCAN_ALGO_DECOUPLED_LOOKBACK};
          size_t s = ref_dtype_size(kt);
          char *k = test_malloc(n * s + 1), *v = test_malloc(n * 8 + 1);
          for (size_t i = 0; i < n; i++)
            ref_store_int(kt, 1 + (long)((i + phase) / L % 3), k + i * s);
          fill_vals(vt, PSCAN_SUM, v, n);
          run_one(&c, REF_RLE, kt, k, NULL, n, PSCAN_EQ, 0, false);
          run_one(&c, REF_RLE, kt, k, NULL, n, PSCAN_EQ, 0, true);
          run_one(&c, REF_UNIQUE, kt, k, NULL, n, PSCAN_EQ, 0, false);
          run_by_key(&c, kt, vt, PSCAN_SUM, k, v, n);
          free(k), free(v);
          cases++;
        }
  printf("run edges: %u cases\n", cases);
}
