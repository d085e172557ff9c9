#!/usr/bin/env bash
# Fuzzes the pscan tool's .npy and text parsers (tests/fuzz/fuzz_parsers.c) with libFuzzer under
# ASan + UBSan for ${PSCAN_FUZZ_SECONDS:-60} seconds, the way .ci/run fuzzes the scan API: new
# inputs go to a fresh directory, the kept corpus tests/fuzz/corpus/parsers is only read. Exits
# non-zero, naming the failing input (kept in build-fuzz/), on a crash or a sanitizer report.
exec "$(dirname "$0")/ci-fuzz-run.sh" fuzz_parsers parsers "the tool's .npy and text parsers"
