#!/usr/bin/env bash
# pscan_mpi on the device machine, in one call (from the repo root):
#   scripts/gpu-mpi.sh [install] [build] [test] [cpubench] [gpubench]   (default: all)
#   scripts/gpu-mpi.sh fetch    (on a machine with network, the same distribution: Debian 12)
# fetch: downloads Open MPI's Debian packages into .mpi-debs/ (about 14 MB, git-ignored), for the
#   device machine, which has no network: pass .mpi-debs in the run's carry.
# install: when mpirun is missing, Open MPI from .mpi-debs/ (else from the network, else it says
#   so and stops). build: a CUDA build (build-mpi) with pscan_mpi.
# test: the CPU test with 1-4 ranks, the CUDA test with 1, 2 and 4 ranks sharing the GPU(s).
# cpubench: weak scaling, 1, 2, 4, 8 CPU ranks, 2^26 i64 per rank, cores / ranks threads each.
# gpubench: 1, 2 (and 4) ranks on the GPU(s), 2^28 i32 per rank (ranks share one GPU when there
#   is one: functional figures only; one rank per GPU on a multi-GPU kind).
# Results go to $OUT or ./gpu-out (summary.txt, the logs, the bench CSV lines).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
steps=${*:-install build test cpubench gpubench}
MPI_DEBS="autoconf automake autotools-dev ibverbs-providers libevent-dev libevent-extra-2.1-7
  libevent-openssl-2.1-7 libevent-pthreads-2.1-7 libfabric1 libhwloc-dev libhwloc-plugins
  libhwloc15 libibverbs-dev libibverbs1 libltdl-dev libltdl7 libmunge2 libnl-3-200 libnl-3-dev
  libnl-route-3-200 libnl-route-3-dev libnuma-dev libopenmpi-dev libopenmpi3 libpmix-dev libpmix2
  libpsm-infinipath1 libpsm2-2 librdmacm1 libtool libucx0 libxnvctrl0 m4 ocl-icd-libopencl1
  openmpi-bin openmpi-common"
if [[ " $steps " == *" fetch "* ]]; then
  mkdir -p .mpi-debs && (cd .mpi-debs && apt-get download $MPI_DEBS) && du -sh .mpi-debs
  exit $?
fi
has() { [[ " $steps " == *" $1 "* ]]; }
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
status=0

log "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(nvidia-smi -L 2>/dev/null | wc -l) GPU(s), $(nproc) CPUs, commit ${PSCAN_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}"
if has install && ! command -v mpirun >/dev/null; then
  log "install Open MPI ($(. /etc/os-release 2>/dev/null; echo "$PRETTY_NAME"))"
  if ls .mpi-debs/*.deb >/dev/null 2>&1; then
    dpkg -i .mpi-debs/*.deb >"$OUT/apt.log" 2>&1
  else
    apt-get install -y -qq libopenmpi-dev openmpi-bin >"$OUT/apt.log" 2>&1
  fi
  command -v mpirun >/dev/null ||
    { log "Open MPI could not be installed (no .mpi-debs, no network?): see apt.log"; tail -5 "$OUT/apt.log"; exit 1; }
fi
if has build; then
  log "build"
  cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=Release -DPSCAN_CUDA=ON -DPSCAN_MPI=ON >"$OUT/build.log" 2>&1 &&
    cmake --build build-mpi -j "$(nproc)" --target test_mpi test_mpi_cuda pscan_mpi_bench pscan_mpi_cli \
      >>"$OUT/build.log" 2>&1 || { log "BUILD FAILED"; tail -40 "$OUT/build.log"; exit 1; }
fi
if has test; then
  log "test (ctest -L mpi: CPU contexts with 1-4 ranks, CUDA contexts with 1, 2, 4 ranks, pscan-mpi)"
  ctest --test-dir build-mpi -L mpi -E install -V >"$OUT/test.log" 2>&1 || status=1
  grep -E "tests passed|Passed|Failed|Not Run|Skipped|\*\*\*" "$OUT/test.log" | tee -a "$OUT/summary.txt"
  grep -E "CUDA contexts|passed, |no usable GPU" "$OUT/test.log" | sort | uniq -c | tee -a "$OUT/summary.txt"
fi
if has cpubench; then
  log "CPU weak scaling: 2^26 i64 per rank"
  for np in 1 2 4 8; do
    mpirun -np "$np" --oversubscribe --bind-to core --map-by slot:PE=$(( $(nproc) / np > 0 ? $(nproc) / np : 1 )) \
      build-mpi/pscan_mpi_bench --n $((1 << 26)) --type i64 --reps 10 >"$OUT/cpubench_np$np.txt" 2>&1 ||
      mpirun -np "$np" --oversubscribe build-mpi/pscan_mpi_bench --n $((1 << 26)) --type i64 --reps 10 \
        >"$OUT/cpubench_np$np.txt" 2>&1 || status=1
    cat "$OUT/cpubench_np$np.txt" | tee -a "$OUT/summary.txt"
  done
  # f64 (pscan_reduce's float path: the SIMD reduce kernels, partitions combined in order)
  for np in 1 8; do
    log "f64, np $np"
    mpirun -np "$np" --oversubscribe --bind-to core --map-by slot:PE=$(( $(nproc) / np > 0 ? $(nproc) / np : 1 )) \
      build-mpi/pscan_mpi_bench --n $((1 << 26)) --type f64 --reps 10 2>&1 | tail -1 | tee -a "$OUT/summary.txt"
  done
fi
if has gpubench; then
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  log "GPU ranks: 2^28 i32 per rank, $gpus GPU(s)"
  for np in 1 2 4; do
    [ "$np" -gt 1 ] && [ "$gpus" -lt 2 ] && [ "$np" -gt 2 ] && continue
    n=$((1 << 28)); [ "$gpus" -lt "$np" ] && n=$((1 << 26)) # ranks sharing one GPU: smaller shards
    mpirun -np "$np" --oversubscribe build-mpi/pscan_mpi_bench --backend cuda --n "$n" --type i32 --reps 20 \
      >"$OUT/gpubench_np$np.txt" 2>&1 || status=1
    cat "$OUT/gpubench_np$np.txt" | tee -a "$OUT/summary.txt"
  done
fi
log "status $status"
exit $status
