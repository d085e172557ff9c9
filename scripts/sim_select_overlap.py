#!/usr/bin/env python3
"""Model check of select_overlapped's shared-memory layout (src/cuda/compact_tile.cuh): the
select kernel stages a tile (16-byte chunks swizzled within 128-byte rows), warps 0-6 gather
their kept items to padded ranks while the last warp looks back, then the last warp gathers
its own, reading the rows that the others could overwrite from a copy. This replays those
steps byte by byte for 1-, 2-, 4- and 8-byte items at 50-100% selected, whole and partial
tiles, and checks the gathered order (reading those rows from the tile instead of the copy
fails it). Not a test of the CUDA code itself; run it after changing the layout (GPAD, the
swizzle, ITEMS, the zone). Usage: python3 scripts/sim_select_overlap.py"""
import random
def swz(b):
    c=b>>4
    return ((c ^ ((c>>3)&7))<<4) | (b&15)
def run(sz, sel, trials=30, partial=None):
    THREADS=256; ITEMS=16 if sz==8 else 32; TILE=THREADS*ITEMS
    GPAD=max(sz,4); TILE_BYTES=TILE*sz+GPAD*(TILE*sz//128)
    ROW=128//sz; PAD=GPAD//sz
    LAST_FIRST=7*32*ITEMS
    ZONE=((LAST_FIRST*sz//128*GPAD)+127)//128*128
    assert ZONE <= sz*256 and ZONE % (ITEMS*sz)==0
    for t in range(trials):
        valid = TILE if partial is None else partial
        vals=[random.randrange(1<<30) for _ in range(TILE)]
        buf=[None]*TILE_BYTES  # byte-granular cells holding (item index) markers per byte
        # stage: item i at bytes swz(i*sz)...+sz (swizzle is per 16B chunk, bytes within chunk keep order)
        for i in range(valid):
            b=swz(i*sz)
            for k in range(sz): buf[b+k]=(vals[i],k)
        keep=[random.random()<sel for _ in range(TILE)]
        for i in range(valid,TILE): keep[i]=False
        # ranks
        ranks={}; r=0
        for i in range(TILE):
            if keep[i]: ranks[i]=r; r+=1
        kept=r
        def gathered_byte(j): return (j + j//ROW*PAD)*sz
        def read_item(mem, base, i):
            b=base+swz(i*sz) if base is not None else None
            return mem[b]  # first byte marker
        # copy zone
        zone_base=LAST_FIRST*sz
        sparse=[buf[zone_base+x] for x in range(ZONE)]
        # warps 0-6 read
        regs={}
        for th in range(7*32):
            for i in range(th*ITEMS, th*ITEMS+ITEMS):
                b=swz(i*sz); regs[i]=buf[b]
        # warps 0-6 write
        for i in range(7*32*ITEMS):
            if keep[i]:
                g=gathered_byte(ranks[i])
                assert regs[i] is not None
                for k in range(sz): buf[g+k]=(regs[i][0],k)
        # last warp reads
        for lane in range(32):
            at=lane*ITEMS
            for i in range(at, at+ITEMS):
                off=swz(i*sz)  # relative to zone base (zone_base multiple of 1024)
                assert swz(zone_base+i*sz)==zone_base+off
                if at*sz < ZONE: v=sparse[off]
                else: v=buf[zone_base+off]
                regs[LAST_FIRST+i]=v
        for i in range(LAST_FIRST, TILE):
            if keep[i]:
                g=gathered_byte(ranks[i])
                for k in range(sz): buf[g+k]=(regs[i][0],k)
        # check
        exp=[vals[i] for i in range(TILE) if keep[i]]
        got=[buf[gathered_byte(j)][0] for j in range(kept)]
        assert got==exp, (sz, sel, t)
    return True
random.seed(1)
for sz in (1,2,4,8):
    for sel in (1.0, 0.999, 0.99, 0.97, 0.5):
        run(sz, sel, trials=4)
    run(sz, 1.0, trials=2, partial=8192*sz//sz - 100 if sz<8 else 4000)
print("ok")
