/* The benchmark's CPU peers and ceilings, written in the tool so they owe nothing to the library:
 * a plain sequential scan loop (also the oracle that checks pscan's output), memcpy split over a
 * team of pthreads, a streaming-store (non-temporal) copy over the same team, and a read-only
 * reduction. All work on inclusive SUM with the library's semantics (integers wrap). */
#ifndef PSCAN_TOOL_PEERS_CPU_H
#define PSCAN_TOOL_PEERS_CPU_H

#include "pscan.h"
#include "bench/team.h"

#include <stddef.h>
#include <stdint.h>

/* out[i] = in[0] + ... + in[i] in type t, one thread, the obvious loop. */
void peer_scan_loop(pscan_dtype t, const void *in, void *out, size_t n);

/* Index of the first element of out that differs from the inclusive sum of in (computed on the
   fly, without a third buffer), or SIZE_MAX when all n agree. On a mismatch, expected and got
   receive the two values as text. */
size_t peer_scan_check(pscan_dtype t, const void *in, const void *out, size_t n, char *expected,
                       char *got, size_t len);

/* Fills in[0..n) with small integers (-3 .. 3) whose running sums stay within +-100, so a float
   sum is exact in any order of combination and every algorithm must match the loop bit for bit. */
void peer_fill_input(pscan_dtype t, void *in, size_t n, uint64_t seed);

/* Copies with memcpy, each thread of team taking an even, 64-byte-aligned share. */
void peer_memcpy(team *tm, void *dst, const void *src, size_t bytes);
/* Zeroes dst, each thread of tm its even share (first touch). */
void peer_zero(team *tm, void *dst, size_t bytes);
/* Copies with non-temporal stores (AVX2 or SSE2 where the CPU has them, else a plain loop),
   shared the same way. */
void peer_stream_copy(team *tm, void *dst, const void *src, size_t bytes);
/* Reads src once, summing it as 64-bit words; returns the sum so the reads cannot be dropped. */
uint64_t peer_reduce(team *tm, const void *src, size_t bytes);

/* How peer_stream_copy copies on this CPU, e.g. "AVX2 non-temporal stores". */
const char *peer_stream_copy_kind(void);

#endif /* PSCAN_TOOL_PEERS_CPU_H */
