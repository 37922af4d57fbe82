#!/bin/bash
# Session X run 3 on the one-GPU kind (tree of dab684b): 4 ranks sharing the GPU under MPS,
# MCOLL_ASYNC_START=1, gpu_nonblocking -q -f in-flight again and again with MCOLL_DEBUG=TRACE;
# on the first hang every rank's TRACE tail and host stacks (cuda-gdb); then the same loop with
# the resident kernel off (MCOLL_RESIDENT=0), counting hangs.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
OUT=$OUT/x3 bash tests/gpu/run.sh --np 4 --steps build,guard --budget 300 > $OUT/build-x3.txt 2>&1 || { tail -20 $OUT/build-x3.txt; exit 1; }
el built
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
loop() { # label seconds stacks env...
  local label=$1 secs=$2 stacks=$3; shift 3; local envs=(); for e in "$@"; do envs+=(-x "$e"); done
  local t1=$(date +%s) i=0 hangs=0
  while [ $(( $(date +%s) - t1 )) -lt $secs ]; do
    i=$((i + 1))
    mpirun --allow-run-as-root -np 4 --bind-to none --output-filename $OUT/r -x NCCL_NVLS_ENABLE -x MCOLL_TEST_REQUIRE_GUARD=1 \
      -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x MCOLL_ASYNC_START=1 "${envs[@]}" build/tests/gpu/gpu_nonblocking -q -f in-flight > $OUT/r.log 2>&1 &
    local mp=$!
    for t in $(seq 1 40); do sleep 0.5; kill -0 $mp 2>/dev/null || break; done
    if kill -0 $mp 2>/dev/null; then
      hangs=$((hangs + 1)); echo "$label iteration $i: still running after 20 s"
      if [ $stacks = 1 ] && [ $hangs = 1 ]; then
        for f in $OUT/r/1/rank.*/std*; do echo "=== $f"; grep -v "^PASS" $f | tail -25; done > $OUT/trace-tails.txt
        for p in $(pgrep -x gpu_nonblocking); do
          echo "=== pid $p"; for t in /proc/$p/task/*; do echo "task $(basename $t) $(cat $t/comm) wchan=$(cat $t/wchan)"; done
          timeout 40 cuda-gdb -q -batch -p $p -ex "thread apply all bt 25" 2>&1 | grep -E "^#|^Thread" | head -100
        done > $OUT/stacks-x3.txt
        cat $OUT/trace-tails.txt | cut -c1-220
      fi
      kill -9 $mp; pkill -9 -x gpu_nonblocking; sleep 1; wait $mp 2>/dev/null
      [ $stacks = 1 ] && break
      continue
    fi
    wait $mp; local rc=$?; [ $rc = 0 ] || echo "$label iteration $i: rc $rc"
  done
  echo "== $label: $hangs hangs in $i runs ($(( $(date +%s) - t1 )) s)"
}
loop trace 200 1 MCOLL_DEBUG=TRACE
el traced
loop resident-off 120 0 MCOLL_DEBUG=WARN MCOLL_RESIDENT=0
echo quit | nvidia-cuda-mps-control
el done
cd $OUT && rm -rf r && tar czf logs-x3.tgz x3 *.txt 2>/dev/null; rm -rf x3
