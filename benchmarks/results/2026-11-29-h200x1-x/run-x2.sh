#!/bin/bash
# Session X run 2 on the one-GPU kind (tree of dab684b): 2 ranks sharing the GPU under MPS, the
# OSU nonblocking look-alikes with the launch in the caller (the default) now that nonblocking
# launches wait for an event on the legacy default stream, against MCOLL_LEGACY_STREAM_ORDER=0
# (no event) and the launcher thread; then 4 ranks, MCOLL_ASYNC_START=1, gpu_nonblocking
# -f in-flight again and again, with the default number of CUDA connections and with 32.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
OUT=$OUT/x2 bash tests/gpu/run.sh --np 2 --steps build,guard --budget 300 > $OUT/build-x2.txt 2>&1 || { tail -20 $OUT/build-x2.txt; exit 1; }
el built
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
osu() { # name env... -- program args
  local name=$1; shift
  local envs=(); while [ "$1" != -- ]; do envs+=(-x "$1"); shift; done; shift
  timeout 100 mpirun --allow-run-as-root -np 2 --bind-to none -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE "${envs[@]}" "$@" > $OUT/$name.log 2>&1
  echo "== $name (rc $?): size overall compute init wait pure overlap"
  grep -v '^#' $OUT/$name.log | awk 'NF>8 && $1 ~ /^[0-9]+$/ {printf "%s %s %s %s %s %s %s\n", $1,$2,$3,$4,$6,$7,$10}'
}
A="-m 32K:2M -i 400 -x 20 -f"
osu caller MCOLL_ASYNC_START=0 -- build/bin/mcoll_osu_iallreduce -d cuda $A
osu caller-noorder MCOLL_ASYNC_START=0 MCOLL_LEGACY_STREAM_ORDER=0 -- build/bin/mcoll_osu_iallreduce -d cuda $A
osu thread MCOLL_ASYNC_START=1 -- build/bin/mcoll_osu_iallreduce -d cuda $A
for c in ibcast iallgather ireduce_scatter; do osu caller-$c MCOLL_ASYNC_START=0 -- build/bin/mcoll_osu_$c -d cuda $A; done
for o in 1 0; do
  timeout 100 mpirun --allow-run-as-root -np 2 --bind-to none -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_LEGACY_STREAM_ORDER=$o -x MCOLL_DEBUG=TRACE \
    build/bin/mcoll_osu_iallreduce -d cuda -m 65536:65536 -i 400 -x 20 -f > $OUT/trace-o$o.log 2>&1
  echo "== TRACE caller launch, MCOLL_LEGACY_STREAM_ORDER=$o, 64 KiB"; python3 trace_w.py $OUT/trace-o$o.log
done
el osu
loop() { # label seconds env...
  local label=$1 secs=$2; shift 2; local envs=(); for e in "$@"; do envs+=(-x "$e"); done
  local t1=$(date +%s) i=0 hangs=0
  while [ $(( $(date +%s) - t1 )) -lt $secs ]; do
    i=$((i + 1))
    mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x MCOLL_DEBUG=WARN -x MCOLL_TEST_REQUIRE_GUARD=1 \
      -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x MCOLL_ASYNC_START=1 "${envs[@]}" build/tests/gpu/gpu_nonblocking -q -f in-flight > $OUT/r.log 2>&1 &
    local mp=$!
    for t in $(seq 1 40); do sleep 0.5; kill -0 $mp 2>/dev/null || break; done
    if kill -0 $mp 2>/dev/null; then
      hangs=$((hangs + 1)); echo "$label iteration $i: still running after 20 s; last: $(grep ^PASS $OUT/r.log | tail -1)"
      if [ $hangs = 1 ]; then
        for p in $(pgrep -x gpu_nonblocking); do
          echo "=== pid $p"; for t in /proc/$p/task/*; do echo "task $(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan) syscall=$(cut -d' ' -f1 $t/syscall)"; done
        done > $OUT/tasks-$label.txt
        cat $OUT/tasks-$label.txt
      fi
      kill -9 $mp; pkill -9 -x gpu_nonblocking; sleep 1; wait $mp 2>/dev/null
      continue
    fi
    wait $mp; echo "$label iteration $i: rc $?, $(grep -c ^PASS $OUT/r.log) passed, $(grep -c ^FAIL $OUT/r.log) failed"
  done
  echo "== $label: $hangs hangs in $i runs"
}
loop default-connections 110
loop connections-32 110 CUDA_DEVICE_MAX_CONNECTIONS=32
echo quit | nvidia-cuda-mps-control
el done
cd $OUT && tar czf logs-x2.tgz *.log x2 2>/dev/null; rm -rf x2 *.log
