#!/bin/bash
# Session W run 5 on 2 x H200, 4 ranks on GPU 0 under MPS: gpu_nonblocking -q with
# MCOLL_ASYNC_START=1 again and again (run 4 hung once in small-in-flight/x200/two-comms);
# on a hang, every rank's host stacks (cuda-gdb), then the ranks are ended.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUDA_VISIBLE_DEVICES=0
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
OUT=$OUT/w5 bash tests/gpu/run.sh --np 4 --steps build,guard --budget 300 > $OUT/build-w5.txt 2>&1 || { tail -20 $OUT/build-w5.txt; exit 1; }
el built
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
hung=0
for i in $(seq 1 40); do
  [ $(( $(date +%s) - T0 )) -gt 300 ] && break
  mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x MCOLL_DEBUG=WARN -x MCOLL_TEST_REQUIRE_GUARD=1 \
    -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x MCOLL_ASYNC_START=1 build/tests/gpu/gpu_nonblocking -q > $OUT/r.log 2>&1 &
  mp=$!
  for t in $(seq 1 50); do sleep 0.5; kill -0 $mp 2>/dev/null || break; done
  if kill -0 $mp 2>/dev/null; then
    hung=1; echo "iteration $i: still running after 25 s; last lines:"; tail -3 $OUT/r.log
    for p in $(pgrep -x gpu_nonblocking); do
      echo "=== pid $p"; timeout 60 cuda-gdb -q -batch -p $p -ex "info threads" -ex "thread apply all bt 30" 2>&1 | grep -v "^\[New\|^warning\|^Reading\|^$" | head -120
    done > $OUT/stacks.txt
    kill -9 $mp; pkill -9 -x gpu_nonblocking; sleep 1
    break
  fi
  wait $mp; rc=$?
  echo "iteration $i: rc $rc, $(grep -c ^PASS $OUT/r.log) passed, $(grep -c ^FAIL $OUT/r.log) failed ($(( $(date +%s) - T0 )) s)"
done
echo quit | nvidia-cuda-mps-control
[ $hung = 1 ] && { cp $OUT/r.log $OUT/hung.log; grep -E "^#0|^#1 |^#2 |^#3 |^#4 |^#5 |^#6 |^#7 |^Thread|^=== " $OUT/stacks.txt | head -150; }
rm -rf $OUT/w5/mps
el done
