#!/bin/bash
# The recorded performance runs: mcoll-bench on 2 and 4 GPUs (or what --np says), under the
# multicast guard, with NCCL_NVLS_ENABLE as the machine has it (must be 0 on shared machines).
# Run from the repository root on a GPU machine:
#
#   bash benchmarks/run-gpu.sh [--np 2,4] [--max 1G] [--collectives LIST] [--time S]
#
# Writes $OUT/bench-np<N>.tar.gz (the CSV, plot data and gnuplot script of each run) and the
# tables to $OUT/bench-np<N>.log. Plots: run gnuplot on plots.gp inside an extracted archive.
set -u
OUT=${OUT:-./bench-out}
NPS="2 4"
MAX=1G
COLLS=allreduce,bcast,reduce,reduce_scatter,allgather
LIMIT=270
while [ $# -gt 0 ]; do
    case "$1" in
        --np) NPS=$(echo "$2" | tr ',' ' '); shift ;;
        --max) MAX=$2; shift ;;
        --collectives) COLLS=$2; shift ;;
        --time) LIMIT=$2; shift ;;
        *) echo "run-gpu.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
if [ "${NCCL_NVLS_ENABLE-unset}" != 0 ]; then
    echo "run-gpu.sh: refusing to run: NCCL_NVLS_ENABLE must be exactly 0 here" >&2
    exit 2
fi
mkdir -p "$OUT"
if [ ! -x build/bin/mcoll-bench ] || [ ! -f build/tests/gpu/libmcoll_guard.so ]; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')
    { ./configure --with-cuda-arch="sm_${arch:-90}" && make -j"$(nproc)"; } > "$OUT/bench-build.log" 2>&1 ||
        { echo "run-gpu.sh: build failed, see bench-build.log" >&2; exit 1; }
fi
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
status=0
for np in $NPS; do
    dir=$OUT/bench-np$np
    echo "== mcoll-bench, $np GPUs, $COLLS up to $MAX"
    timeout "$LIMIT" mpirun --allow-run-as-root -np "$np" --bind-to none \
        -x LD_PRELOAD="$GUARD" -x NCCL_NVLS_ENABLE -x MCOLL_DEBUG \
        build/bin/mcoll-bench -c "$COLLS" -e "$MAX" -w 3 -o "$dir" --no-plot > "$OUT/bench-np$np.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "exit $rc"
    tar czf "$OUT/bench-np$np.tar.gz" -C "$OUT" "bench-np$np" 2>/dev/null && rm -rf "$dir"
done
exit $status
