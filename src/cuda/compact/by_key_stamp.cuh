/* Stamps the by-key kernel of one (VAL, OP_E): the value operator (scan_ops.cuh over the pair
 * (VAL, VAL), under VNAME), then the pair accumulator over it and the scan's look-back (under
 * NAME). */
#define PAIR_IN VAL
#define PAIR_OUT VAL
#include "../scan/scan_ops.cuh"
#undef NAME
#undef ACC_T
#define VNAME(f) PSCAN__NAME5(f, VAL, VAL, OP_E)
#define NAME(f) PSCAN__NAME5(f, bykey, VAL, OP_E)
#define CX_T PSCAN__CAT(PSCAN__CTYPE_, VAL)
#define CX_BY_KEY 1
#define CX_OP(a, b) VNAME(op)(a, b)
#define CX_IDENTITY() VNAME(identity)()
#include "compact_ops.cuh"
#include "../scan/lookback.cuh"
#include "by_key_tile.cuh"
#undef CX_T
#undef CX_BY_KEY
#undef CX_OP
#undef CX_IDENTITY
#undef ACC_T
#undef NAME
#undef VNAME
#undef IN_T
#undef WRAP_T
#undef ACC_SIZE
#undef IS_FLOAT
#undef OP
#undef PAIR_IN
#undef PAIR_OUT
