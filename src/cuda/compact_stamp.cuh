/* Stamps the compaction kernels of one type TYPE (a suffix such as I32): the kernel of
 * select/partition/unique/run-length encoding with TYPE items, and the by-key kernels with TYPE
 * values, one per operator of its kind. Publishes pscan__cuda_compact_keys_<TYPE> and
 * pscan__cuda_by_key_<TYPE>[PSCAN_OP_COUNT] (bitwise entries are empty for floats). */

/* ---- items of type TYPE ---- */
#define NAME(f) PSCAN__NAME5(f, keys, TYPE, x)
#define CX_T unsigned long long
#define CX_BY_KEY 0
#include "compact_ops.cuh"
#include "lookback.cuh"
#define KEY TYPE
#include "compact_tile.cuh"
#undef KEY
extern "C" const pscan__cuda_compact_kernel PSCAN__NAME5(pscan__cuda_compact, keys, TYPE, table) = {
    NAME(launch_keys), NAME(TILE)};
#undef ACC_T
#undef CX_T
#undef CX_BY_KEY
#undef NAME

/* ---- values of type TYPE, by operator ---- */
#define PAIR_IN TYPE
#define PAIR_OUT TYPE
#define VAL TYPE
#define OP_E SUM
#include "by_key_stamp.cuh"
#undef OP_E
#define OP_E PROD
#include "by_key_stamp.cuh"
#undef OP_E
#define OP_E MIN
#include "by_key_stamp.cuh"
#undef OP_E
#define OP_E MAX
#include "by_key_stamp.cuh"
#undef OP_E
#if !PSCAN__CAT(PSCAN__ISFLOAT_, TYPE)
#define OP_E AND
#include "by_key_stamp.cuh"
#undef OP_E
#define OP_E OR
#include "by_key_stamp.cuh"
#undef OP_E
#define OP_E XOR
#include "by_key_stamp.cuh"
#undef OP_E
#endif

#define BY_KEY_ENTRY(OPX) {PSCAN__NAME5(launch_by_key, bykey, TYPE, OPX), PSCAN__NAME5(TILE, bykey, TYPE, OPX)},
extern "C" const pscan__cuda_compact_kernel PSCAN__NAME5(pscan__cuda_compact, by_key, TYPE,
                                                         table)[PSCAN_OP_COUNT] = {
    BY_KEY_ENTRY(SUM) BY_KEY_ENTRY(PROD) BY_KEY_ENTRY(MIN) BY_KEY_ENTRY(MAX)
#if !PSCAN__CAT(PSCAN__ISFLOAT_, TYPE)
    BY_KEY_ENTRY(AND) BY_KEY_ENTRY(OR) BY_KEY_ENTRY(XOR)
#endif
};
#undef BY_KEY_ENTRY
#undef PAIR_IN
#undef PAIR_OUT
#undef VAL
#undef TYPE
