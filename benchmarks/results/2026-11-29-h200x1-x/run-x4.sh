#!/bin/bash
# Session X run 4 on the one-GPU kind (tree of the launcher thread's global order): 4 ranks
# sharing the GPU under MPS, MCOLL_ASYNC_START=1, gpu_nonblocking -q -f in-flight again and
# again (runs X2 and X3 hung in 2 of 38, 1 of 14 and 2 of 42 runs before the change).
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/x4 bash tests/gpu/run.sh --np 4 --steps build,guard --budget 200 > $OUT/build-x4.txt 2>&1 || { tail -20 $OUT/build-x4.txt; exit 1; }
echo "[$(( $(date +%s) - T0 )) s] built"
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
i=0 hangs=0 ok=0 t1=$(date +%s)
while [ $(( $(date +%s) - t1 )) -lt ${LOOP_S:-170} ]; do
  i=$((i + 1))
  mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x MCOLL_DEBUG=WARN -x MCOLL_TEST_REQUIRE_GUARD=1 \
    -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x MCOLL_ASYNC_START=1 build/tests/gpu/gpu_nonblocking -q -f in-flight > $OUT/r.log 2>&1 &
  mp=$!
  for t in $(seq 1 40); do sleep 0.5; kill -0 $mp 2>/dev/null || break; done
  if kill -0 $mp 2>/dev/null; then
    hangs=$((hangs + 1)); echo "iteration $i: still running after 20 s; last: $(grep ^PASS $OUT/r.log | tail -1)"
    kill -9 $mp; pkill -9 -x gpu_nonblocking; sleep 1; wait $mp 2>/dev/null; continue
  fi
  wait $mp; rc=$?
  if [ $rc = 0 ]; then ok=$((ok + 1)); else echo "iteration $i: rc $rc, $(grep -c ^PASS $OUT/r.log) passed, $(grep -c ^FAIL $OUT/r.log) failed"; fi
done
echo "== $hangs hangs in $i runs, $ok passed ($(( $(date +%s) - t1 )) s)"
echo quit | nvidia-cuda-mps-control
cd $OUT && tar czf logs-x4.tgz x4 r.log 2>/dev/null; rm -rf x4 r.log
