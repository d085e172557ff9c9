/* The axis suite's lines back to back: a C-order array scanned along its last axis (the CUDA
 * backend scans every line in one launch, a line starting every len items: scan_lines_kernel).
 * Line lengths around the CUDA tiles (2048 items of 8-byte accumulators with a narrower input,
 * 4096 of 8-byte ones, 8192 of 4-byte ones, 16384 of 2-byte ones, 32768 of 1-byte ones) and
 * their per-thread runs (8-128 items), lines shorter than a thread's run, lines over several
 * tiles; enough lines for a few tiles; every case inclusive and exclusive, with and without
 * init, forward and reversed (by the flag, or by an input view with negated strides into a
 * forward output: x[:, ::-1]), in place or not. Then reversed long lines under every scan
 * strategy (PSCAN_PARAM_ALGO): on the CPU the mirrored kernels (src/cpu/mirror.c) inside each
 * strategy, on CUDA the mirrored tiles, their spans' ends on a 16-byte boundary (whole chunks
 * copied, p->mirror_vec) or anywhere (element by element). */
#include "test_axis.h"

typedef struct line_type {
  pscan_dtype in, out;
  pscan_op op;
} line_type;
static const int64_t line_lens[] = {1,     2,     3,     7,     15,    16,    17,    31,
                                    32,    33,    127,   128,   129,   1000,  2047,  2048,
                                    2049,  4095,  4096,  4097,  8191,  8192,  8193,  16383,
                                    16384, 16385, 32767, 32768, 32769, 100003};
static const line_type line_types[] = {
    {PSCAN_I32, PSCAN_I32, PSCAN_SUM}, {PSCAN_F32, PSCAN_F32, PSCAN_MAX},
    {PSCAN_F64, PSCAN_F64, PSCAN_SUM}, {PSCAN_I64, PSCAN_I64, PSCAN_MIN},
    {PSCAN_U16, PSCAN_U64, PSCAN_SUM}, {PSCAN_U8, PSCAN_U8, PSCAN_SUM},
    {PSCAN_I16, PSCAN_I16, PSCAN_MAX}};
enum {
  LINE_LENS = sizeof line_lens / sizeof *line_lens,
  LINE_TYPES = sizeof line_types / sizeof *line_types
};

/* Case (l, t) of the tables: lines of line_lens[l] items of line_types[t], about 70000 items
   (2-35 tiles) in at least 2 lines, on 1-3 threads; false where the light slice skips it. */
static bool line_case(test_rng *r, size_t l, size_t t, spec *s) {
  if (axis_light() && (l + t) % 3)
    return false;
  const int64_t len = line_lens[l], lines = len < 35000 ? 70000 / len + 1 : 2;
  *s = spec2(lines, len, 1, line_types[t].in, line_types[t].op);
  s->out_type = line_types[t].out;
  s->threads = 1 + (int)test_below(r, 3);
  return true;
}

void test_lines_back_to_back(uint64_t seed) {
  test_rng r = test_fork(seed, 8);
  for (size_t l = 0; l < LINE_LENS; l++)
    for (size_t t = 0; t < LINE_TYPES; t++) {
      spec s;
      if (!line_case(&r, l, t, &s))
        continue;
      s.exclusive = (int)test_below(&r, 2), s.use_init = (int)test_below(&r, 2);
      s.reverse = (int)test_below(&r, 2); /* CUDA: mirrored tiles */
      if (!s.reverse && test_below(&r, 2)) /* an input view negated at random along each axis */
        s.in_layout = LAYOUT_NEGATE;
      s.in_place = line_types[t].in == line_types[t].out && test_below(&r, 3) == 0;
      if (!run_case(&r, s))
        return;
    }
}

/* Reversed contiguous long lines (1-D, and a few lines along the last axis) under each
   PSCAN_PARAM_ALGO: every (in, out, op) once, the strategy turning with the pair; lengths over
   several partitions and blocks of the mirrored kernels (CPU) or tiles (CUDA); a quarter of the
   lengths whole 16-item multiples (a 1-D span then ends on a 16-byte boundary for every type).
   Every third case reads the input through a view that may be reversed instead (its strides
   negated at random, the output forward: x[::-1] into a fresh array). */
void test_reversed_strategies(uint64_t seed) {
  test_rng r = test_fork(seed, 9);
  ref_pair_op po[REF_MAX_PAIR_OPS];
  size_t npo = ref_pair_ops(po);
  const size_t step = axis_light() ? 7 : axis_quick() ? 3 : 1;
  for (size_t k = 0; k < npo; k += step) {
    const int64_t n = k % 2   ? 200003
                      : k % 4 ? 65536 + 16 * (int64_t)test_below(&r, 4000)
                              : 65537 + (int64_t)test_below(&r, 3000);
    spec s = k % 3 ? spec2(1, n, 1, po[k].in, po[k].op) : spec2(3, n / 3 + 1, 1, po[k].in, po[k].op);
    s.out_type = po[k].out;
    s.reverse = k % 3 != 2;
    if (!s.reverse)
      s.in_layout = LAYOUT_NEGATE;
    s.algo = (int)(k % PSCAN_ALGO_COUNT);
    if (B->kind != PSCAN_BACKEND_CPU && s.algo == PSCAN_ALGO_SEQUENTIAL)
      s.algo = PSCAN_ALGO_AUTO; /* (CUDA refuses it) */
    s.threads = 1 + (int)test_below(&r, 3);
    s.exclusive = (int)test_below(&r, 2), s.use_init = (int)test_below(&r, 2);
    s.in_place = po[k].in == po[k].out && test_below(&r, 3) == 0;
    if (!run_case(&r, s))
      return;
  }
}

/* Lines read reversed into forward ones (the cumsum of x[:, ::-1] or x[::-1, ::-1] into an
   array of its own; CUDA: the mirrored span with each line stored forward, p->out_line_step):
   the line lengths and types of test_lines_back_to_back (odd lengths store element by element,
   whole 16-byte chunks of lines by vectors), the output's lines padded (a step longer than a
   line) or in reverse order, a 3-D array whose two outer dimensions merge; every case against
   the per-line reference. */
void test_reversed_into_lines(uint64_t seed) {
  test_rng r = test_fork(seed, 10);
  static const int out_layouts[] = {0, LAYOUT_PAD, LAYOUT_NEGATE, LAYOUT_PAD | LAYOUT_NEGATE};
  for (size_t l = 0; l < LINE_LENS; l++)
    for (size_t t = 0; t < LINE_TYPES; t++) {
      spec s;
      if (!line_case(&r, l, t, &s))
        continue;
      if ((l + t) % 4 == 3 && s.shape[0] % 2 == 0) /* 3-D, the outer two merging into one */
        s.ndim = 3, s.shape[2] = s.shape[1], s.shape[1] = s.shape[0] / 2, s.shape[0] = 2,
        s.axis = 2;
      s.exclusive = (int)test_below(&r, 2), s.use_init = (int)test_below(&r, 2);
      s.in_layout = LAYOUT_FLIP_LAST | (test_below(&r, 2) ? LAYOUT_NEGATE : 0);
      s.out_layout = out_layouts[(l + 2 * t) % 4];
      if (!run_case(&r, s))
        return;
    }
}
