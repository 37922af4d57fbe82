#!/bin/bash
# Session W run 3 on 2 x H200, 2 ranks sharing GPU 0 under MPS: the launcher thread's lighter
# poll, MCOLL_ASYNC_SPIN_US=0, and a rank bound to one core (no thread), against launches in
# the caller; the four OSU nonblocking look-alikes with the thread; TRACE of the start and wait.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUDA_VISIBLE_DEVICES=0
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|Model name"
OUT=$OUT/w3 bash tests/gpu/run.sh --np 2 --steps build,guard --budget 300 > $OUT/build-w3.txt 2>&1 || { tail -20 $OUT/build-w3.txt; exit 1; }
el built
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
osu() { # name bind env... -- program args
  local name=$1 bind=$2; shift 2
  local envs=(); while [ "$1" != -- ]; do envs+=(-x "$1"); shift; done; shift
  timeout 120 mpirun --allow-run-as-root -np 2 --bind-to $bind -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE "${envs[@]}" "$@" > $OUT/$name.log 2>&1
  echo "== $name (bind $bind): size overall compute init wait pure overlap"
  grep -v '^#' $OUT/$name.log | awk 'NF>8 && $1 ~ /^[0-9]+$/ {printf "%s %s %s %s %s %s %s\n", $1,$2,$3,$4,$6,$7,$10}'
}
A="-m 32K:2M -i 400 -x 20 -f"
osu caller none MCOLL_ASYNC_START=0 -- build/bin/mcoll_osu_iallreduce -d cuda $A
osu thread none MCOLL_ASYNC_START=1 -- build/bin/mcoll_osu_iallreduce -d cuda $A
osu thread-spin0 none MCOLL_ASYNC_START=1 MCOLL_ASYNC_SPIN_US=0 -- build/bin/mcoll_osu_iallreduce -d cuda $A
osu thread-core core MCOLL_ASYNC_START=1 MCOLL_DEBUG=INFO -- build/bin/mcoll_osu_iallreduce -d cuda -m 32K:1M -i 200 -x 20 -f
grep -c "bound to one core" $OUT/thread-core.log
for c in ibcast iallgather ireduce_scatter; do
  osu thread-$c none MCOLL_ASYNC_START=1 -- build/bin/mcoll_osu_$c -d cuda $A
done
for a in 0 1; do
  timeout 100 mpirun --allow-run-as-root -np 2 --bind-to none -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_ASYNC_START=$a -x MCOLL_DEBUG=TRACE \
    build/bin/mcoll_osu_iallreduce -d cuda -m 65536:65536 -i 400 -x 20 -f > $OUT/trace-a$a.log 2>&1
  echo "== TRACE async $a 64 KiB"; python3 trace_w.py $OUT/trace-a$a.log
done
echo quit | nvidia-cuda-mps-control
el done
