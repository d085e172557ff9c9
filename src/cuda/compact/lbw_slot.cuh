/* Include-template: the hand-over of a tile between the tile threads and the look-back warp of a
 * look-back-warp kernel (compact_heads.cuh, compact_select.cuh, by_key_heads.cuh), stamped with
 * the includer's pair accumulator (ACC_T, NAME(warp_prefix)). Each kernel's slot holds, beside
 * its own results, the same four fields, passed here one by one: the tile (PSCAN__LBW_STOP: no
 * more tiles), its aggregate, whether it is dense (the tile threads store it themselves, once the
 * look-back warp has handed its prefix back) and that prefix. The barriers: compact_common.cuh. */

/* Tile threads, once a tile is decided: thread 0 fills the slot and, for a sparse tile, takes the
   block's next tile id into *tile_id (a dense tile takes it once its prefix is back:
   compact_heads.cuh says why); then the slot is full. */
static __device__ __forceinline__ void NAME(lbw_hand_over)(
    const pscan__cuda_scan_params *lb, unsigned s, unsigned long long *slot_tile, ACC_T *slot_total,
    int *slot_dense, unsigned long long tile, ACC_T total, bool dense,
    unsigned long long *tile_id) {
  if (threadIdx.x == 0) {
    *slot_tile = tile;
    *slot_total = total;
    *slot_dense = dense;
    if (!dense)
      *tile_id = pscan__take_tile(lb);
  }
  pscan__lbw_tile_sync(); /* the slot is complete (a sparse tile's next id known) */
  pscan__lbw_filled(s);
}

/* The look-back warp's turn at slot s: waits until it is full; unless it holds the stop mark
   (*tile == PSCAN__LBW_STOP), looks back for the tile (*total: its aggregate, *before: its
   exclusive prefix) and hands a dense tile's prefix back to the tile threads. True: a sparse
   tile, whose results the look-back warp stores before it releases the slot. */
static __device__ __forceinline__ bool NAME(lbw_turn)(
    const pscan__cuda_scan_params *lb, unsigned s, const unsigned long long *slot_tile,
    const ACC_T *slot_total, const int *slot_dense, ACC_T *slot_prefix, unsigned long long *tile,
    ACC_T *total, ACC_T *before) {
  pscan__lbw_wait_full(s);
  *tile = *slot_tile;
  if (*tile == PSCAN__LBW_STOP)
    return false;
  *total = *slot_total;
  *before = NAME(warp_prefix)(lb, *tile, *total);
  if (!*slot_dense)
    return true;
  if ((threadIdx.x & 31) == 0)
    *slot_prefix = *before;
  pscan__lbw_prefix_ready();
  return false;
}
