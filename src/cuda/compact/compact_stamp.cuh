/* Stamps the compaction kernel of one type TYPE (a suffix such as I32): the kernel of
 * select/partition/unique/run-length encoding with TYPE items, published as
 * pscan__cuda_compact_keys_<TYPE>_table. The generated compaction units
 * (src/cuda/gen/compact_type.cu.in) define TYPE; the by-key kernels with TYPE values follow it
 * (by_key_stamp.cuh, by_key_table.cuh). */
#define NAME(f) PSCAN__NAME5(f, keys, TYPE, x)
#define CX_T unsigned long long
#define CX_BY_KEY 0
#include "compact_ops.cuh"
#include "../scan/lookback.cuh"
#define KEY TYPE
#include "compact_tile.cuh"
#undef KEY
extern "C" const pscan__cuda_compact_kernel PSCAN__NAME5(pscan__cuda_compact, keys, TYPE, table) = {
    NAME(launch_keys), NAME(TILE)};
#undef ACC_T
#undef CX_T
#undef CX_BY_KEY
#undef NAME
#undef TYPE
