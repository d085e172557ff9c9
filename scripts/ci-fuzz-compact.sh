#!/usr/bin/env bash
# Fuzzes the compaction API (tests/fuzz/fuzz_compact.c: the 7 compaction functions against the
# sequential references, refusals, in place and overlapping buffers, NULL counts) with libFuzzer
# under ASan + UBSan for ${PSCAN_FUZZ_SECONDS:-60} seconds, the way .ci/run fuzzes the scan API:
# new inputs go to a fresh directory, the kept corpus tests/fuzz/corpus/compact is only read.
# Exits non-zero, naming the failing input (kept in build-fuzz/), on a disagreement, a crash or a
# sanitizer report.
exec "$(dirname "$0")/ci-fuzz-run.sh" fuzz_compact compact \
  "differential fuzzing of the compaction API"
