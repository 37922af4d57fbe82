#!/bin/bash
# The recorded performance runs: mcoll-bench at 2 and 4 ranks (or what --np says), under the
# multicast guard, with NCCL_NVLS_ENABLE as the machine has it (must be 0 on shared machines).
# Run from the repository root on a GPU machine:
#
#   bash benchmarks/run-gpu.sh [--np 2,4] [--min 8] [--max 1G] [--factor 2] [--collectives LIST]
#                              [--peers LIST] [--place out|in|both] [--time S] [--mps auto|on|off]
#
# --min, --max and --factor are mcoll-bench's -b, -e and -f (a factor of 4 times half as many
# sizes); --peers is its --peers (default: all).
# --place both (the default) times every size out of place and in place; --place out times half
# as many points. --time is each run's limit in seconds.
# More ranks than GPUs share GPUs (local rank modulo the GPU count). --mps auto (default) then
# starts a private CUDA MPS control daemon (tests/gpu/mps.sh; pipe and log under $OUT/mps,
# stopped on exit) for those runs; on: for every run; off: never. NCCL takes one rank per GPU,
# so where ranks share one its rows say "not measured". Numbers from ranks sharing a GPU are
# not NVLink numbers.
# Writes $OUT/bench-np<N>.tar.gz (table.txt, the CSV, the PNGs where gnuplot or python3 with
# matplotlib is installed, plot data and gnuplot script of each run), the program's stdout to
# $OUT/bench-np<N>.log and its stderr (progress, the launcher's messages) to $OUT/bench-np<N>.err.
set -u
OUT=${OUT:-./bench-out}
NPS="2 4"
MIN=8
MAX=1G
FACTOR=2
PEERS=all
COLLS=allreduce,bcast,reduce,reduce_scatter,allgather
LIMIT=270
MPS_MODE=auto
PLACE=both
while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "run-gpu.sh: $1 needs a value" >&2; exit 2; }
    case "$1" in
        --np) NPS=$(echo "$2" | tr ',' ' ') ;;
        --min) MIN=$2 ;;
        --max) MAX=$2 ;;
        --factor) FACTOR=$2 ;;
        --peers) PEERS=$2 ;;
        --collectives) COLLS=$2 ;;
        --place) PLACE=$2 ;;
        --time) LIMIT=$2 ;;
        --mps) MPS_MODE=$2 ;;
        *) echo "run-gpu.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift 2
done
case "$MPS_MODE" in auto|on|off) ;; *) echo "run-gpu.sh: --mps takes auto, on or off" >&2; exit 2 ;; esac
if [ "${NCCL_NVLS_ENABLE-unset}" != 0 ]; then
    echo "run-gpu.sh: refusing to run: NCCL_NVLS_ENABLE must be exactly 0 here" >&2
    exit 2
fi
# shellcheck source=tests/gpu/mps.sh
. tests/gpu/mps.sh || { echo "run-gpu.sh: run it from the repository root" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
trap 'mps_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ ! -x build/bin/mcoll-bench ] || [ ! -f build/tests/gpu/libmcoll_guard.so ]; then
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')
    { ./configure --with-cuda-arch="sm_${arch:-90}" && make -j"$(nproc)"; } > "$OUT/bench-build.log" 2>&1 ||
        { echo "run-gpu.sh: build failed, see bench-build.log" >&2; exit 1; }
fi
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
NGPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ -n "${CUDA_VISIBLE_DEVICES-}" ]; then
    visible=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    [ "$visible" -lt "$NGPUS" ] && NGPUS=$visible
fi
MPS_STATE=off
if [ "$MPS_MODE" != off ]; then
    for np in $NPS; do
        if [ "$MPS_MODE" = on ] || [ "$np" -gt "$NGPUS" ]; then MPS_STATE=wanted; fi
    done
fi
if [ $MPS_STATE = wanted ]; then
    if mps_start "$OUT/mps"; then
        MPS_STATE=on
        echo "== MPS control daemon up (pipe $MPS_PIPE${MPS_NOTE:+; $MPS_NOTE})"
    else
        MPS_STATE=failed
        echo "== MPS failed to start ($MPS_WHY): ranks sharing a GPU run without MPS (mcoll stages)"
    fi
fi
status=0
for np in $NPS; do
    dir=$OUT/bench-np$np
    mps=()
    if [ $MPS_STATE = on ] && { [ "$MPS_MODE" = on ] || [ "$np" -gt "$NGPUS" ]; }; then
        mps=(-x "CUDA_MPS_PIPE_DIRECTORY=$MPS_PIPE" -x "CUDA_MPS_LOG_DIRECTORY=$MPS_LOG")
    fi
    echo "== mcoll-bench, $np ranks on $NGPUS GPUs${mps[*]:+ (MPS)}, $COLLS up to $MAX"
    # -x of an unset variable makes mpirun print a warning: MCOLL_DEBUG is passed only when set.
    timeout "$LIMIT" mpirun --allow-run-as-root -np "$np" --bind-to none \
        -x LD_PRELOAD="$GUARD" -x NCCL_NVLS_ENABLE ${MCOLL_DEBUG+-x MCOLL_DEBUG} ${mps[@]+"${mps[@]}"} \
        build/bin/mcoll-bench --collectives "$COLLS" --peers "$PEERS" --place "$PLACE" \
        -b "$MIN" -e "$MAX" -f "$FACTOR" -w 3 --output "$dir" \
        > "$OUT/bench-np$np.log" 2> "$OUT/bench-np$np.err"
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "exit $rc"
    tar czf "$OUT/bench-np$np.tar.gz" -C "$OUT" "bench-np$np" 2>/dev/null && rm -rf "$dir"
done
exit $status
