/* Publishes the scan launcher table pscan__cuda_kernels_<IN>_<OUT>_table of one (PAIR_IN,
 * PAIR_OUT) pair whose kernels stamp.cuh has stamped (the generated scan units,
 * src/cuda/gen/scan_type.cu.in; the lookup: host/kernel_table.c). */
/* scan_by_key's kernel: pairs without widening only (tile_scan.cuh). */
#if PSCAN__PAIR_SAME_SIZE
#define PAIR_KEYS(OPX)                                                                           \
  PSCAN__NAME5(launch_scan_keys, PAIR_IN, PAIR_OUT, OPX),                                        \
      PSCAN__CAT(PSCAN__NAME5(launch_scan_keys, PAIR_IN, PAIR_OUT, OPX), _half),                 \
      PSCAN__CAT(PSCAN__NAME5(TILE, PAIR_IN, PAIR_OUT, OPX), _half)
#else
#define PAIR_KEYS(OPX) NULL, NULL, 0
#endif
#define PAIR_ENTRY(OPX)                                                                          \
  {PSCAN__NAME5(launch_scan, PAIR_IN, PAIR_OUT, OPX),                                            \
   PSCAN__NAME5(launch_reduce, PAIR_IN, PAIR_OUT, OPX),                                          \
   PSCAN__NAME5(launch_propagate, PAIR_IN, PAIR_OUT, OPX),                                       \
   PSCAN__NAME5(TILE, PAIR_IN, PAIR_OUT, OPX),                                                   \
   PSCAN__CAT(PSCAN__SIZE_, PAIR_OUT) == 8 ? 16u : 8u,                                           \
   PSCAN__CAT(PSCAN__NAME5(launch_scan, PAIR_IN, PAIR_OUT, OPX), _small),                        \
   PSCAN__CAT(PSCAN__NAME5(TILE, PAIR_IN, PAIR_OUT, OPX), _small),                               \
   PSCAN__NAME5(launch_scan_lines, PAIR_IN, PAIR_OUT, OPX),                                      \
   PSCAN__NAME5(launch_scan_segments, PAIR_IN, PAIR_OUT, OPX),                                   \
   PAIR_KEYS(OPX)},
PSCAN__PAIR_TABLE(pscan__cuda_kernels, pscan__cuda_kernels, PAIR_ENTRY)
#undef PAIR_ENTRY
#undef PAIR_KEYS
