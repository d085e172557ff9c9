/* Stamps the by-key kernels of one (VAL, OP_E): the value operator (scan_ops.cuh over the pair
 * (VAL, VAL), under VNAME), then the pair accumulator over it, the scan's look-back and the
 * kernels (by_key_variant.cuh) under NAME = bykey: tiles of 16 items a thread. 8-byte values get
 * a second stamp under NAME = bykey8, 8 items a thread (2048-item tiles): reduce_by_key's
 * look-back kernel runs faster on them at every size when the keys are 8 bytes too, scan_by_key
 * only where the large tiles would not fill the GPU (host/compact.c, pscan__cuda_by_key_kernel;
 * docs/PERFORMANCE.md, "Half tiles for 8-byte values"). */
#define PAIR_IN VAL
#define PAIR_OUT VAL
#include "../scan/scan_ops.cuh"
#undef NAME
#undef ACC_T
#define VNAME(f) PSCAN__NAME5(f, VAL, VAL, OP_E)
#define CX_T PSCAN__CAT(PSCAN__CTYPE_, VAL)
#define CX_BY_KEY 1
#define CX_OP(a, b) VNAME(op)(a, b)
#define CX_IDENTITY() VNAME(identity)()

#define NAME(f) PSCAN__NAME5(f, bykey, VAL, OP_E)
#define BY_KEY_ITEMS 16
#include "by_key_variant.cuh"
#if PSCAN__CAT(PSCAN__SIZE_, VAL) == 8
#define NAME(f) PSCAN__NAME5(f, bykey8, VAL, OP_E)
#define BY_KEY_ITEMS 8
#include "by_key_variant.cuh"
#endif

#undef CX_T
#undef CX_BY_KEY
#undef CX_OP
#undef CX_IDENTITY
#undef VNAME
#undef IN_T
#undef WRAP_T
#undef ACC_SIZE
#undef IS_FLOAT
#undef OP
#undef PAIR_IN
#undef PAIR_OUT
