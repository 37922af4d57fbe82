#!/bin/bash
# Session W run 2 on 2 x H200, 2 ranks sharing GPU 0 under MPS: where the start and the wait of
# a nonblocking engine call go (TRACE), launches in the caller and in the launcher thread.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CUDA_VISIBLE_DEVICES=0
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
OUT=$OUT/w2 bash tests/gpu/run.sh --np 2 --steps build,guard --budget 300 > $OUT/build-w2.txt 2>&1 || { tail -20 $OUT/build-w2.txt; exit 1; }
el built
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
for a in 0 1; do
  for m in 65536 1048576; do
    timeout 100 mpirun --allow-run-as-root -np 2 --bind-to none -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_ASYNC_START=$a -x MCOLL_DEBUG=TRACE \
      build/bin/mcoll_osu_iallreduce -d cuda -m $m:$m -i 400 -x 20 -f > $OUT/trace-a$a-$m.log 2>&1
    echo "== TRACE async $a size $m (OSU row under TRACE: size overall compute init test wait pure min max overlap)"
    grep -v '^#' $OUT/trace-a$a-$m.log | grep -E "^ *$m " | head -2
    python3 trace_w.py $OUT/trace-a$a-$m.log
  done
done
echo "== without TRACE, 200 iterations"
for a in 0 1; do
  timeout 100 mpirun --allow-run-as-root -np 2 --bind-to none -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_ASYNC_START=$a \
    build/bin/mcoll_osu_iallreduce -d cuda -m 32K:2M -i 200 -x 20 -f > $OUT/osu-a$a.log 2>&1
  echo "async $a"; grep -v '^#' $OUT/osu-a$a.log | awk 'NF>5'
done
echo quit | nvidia-cuda-mps-control
el done
