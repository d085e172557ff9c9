/* Stamps every kernel of one (PAIR_IN, PAIR_OUT, OP_E). */
#include "scan_ops.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
/* Only float sums and products can be asked for deterministic mode (pscan__order_sensitive):
   their stamps carry a second scan kernel with the ordered look-back compiled in, and the
   plain kernel goes without it (docs/PERFORMANCE.md, "Deterministic mode"). */
#if IS_FLOAT && PSCAN__CAT(PSCAN__ORDER_SENSITIVE_, OP_E)
#define STAMP_ORDERED 1
#else
#define STAMP_ORDERED 0
#endif
/* Tiles of PSCAN__THREAD_BYTES per thread (32 KB): every strategy. */
#define TNAME(f) NAME(f)
#define TILE_THREAD_BYTES PSCAN__THREAD_BYTES
#define TILE_SCAN_ONLY 0
#define TILE_KEYS_ONLY 0
#include "tile_scan.cuh"
/* Small tiles (PSCAN__SMALL_THREAD_BYTES per thread: 8 KB), single pass only: a small input
   spread over more multiprocessors, each with less to do (host/scan.c: use_small_tiles). */
#define TNAME(f) PSCAN__CAT(NAME(f), _small)
#define TILE_THREAD_BYTES PSCAN__SMALL_THREAD_BYTES
#define TILE_SCAN_ONLY 1
#define TILE_KEYS_ONLY 0
#include "tile_scan.cuh"
/* Half tiles (16 KB), scan_by_key's kernel only (pairs without widening): an input that fills
   few waves of large tiles (host/scan.c: use_half_key_tiles). */
#if PSCAN__PAIR_SAME_SIZE
#define TNAME(f) PSCAN__CAT(NAME(f), _half)
#define TILE_THREAD_BYTES (PSCAN__THREAD_BYTES / 2)
#define TILE_SCAN_ONLY 0
#define TILE_KEYS_ONLY 1
#include "tile_scan.cuh"
#endif
#include "scan_ops_end.cuh"
#undef STAMP_ORDERED
