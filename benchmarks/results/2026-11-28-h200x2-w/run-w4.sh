#!/bin/bash
# Session W run 4 on 2 x H200 (tree of 4286a3e): the nonblocking suites at 2 and 4 ranks on
# GPU 0 under MPS (the launcher-thread rows included), then mcoll-bench --quick at 2 and 4 ranks
# on GPU 0 under MPS and at 2 ranks on the two GPUs (NVLink, with NCCL).
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
CUDA_VISIBLE_DEVICES=0 OUT=$OUT/w4 bash tests/gpu/run.sh --np 2,4 --steps build,guard,mpi,nonblocking,errors --quick --budget 330 > $OUT/suites-w4.txt 2>&1
echo "run.sh exit $?"; sed -n '/^step /,$p' $OUT/w4/summary.txt
el suites
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
for np in 2 4; do
  CUDA_VISIBLE_DEVICES=0 timeout 170 mpirun --allow-run-as-root -np $np --bind-to none -x CUDA_VISIBLE_DEVICES -x CUDA_MPS_PIPE_DIRECTORY -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE \
    build/bin/mcoll-bench -q --no-plot --output $OUT/bench-1gpu-np$np > $OUT/bench-1gpu-np$np.log 2>&1
  echo "== mcoll-bench -q, $np ranks on GPU 0 under MPS (rc $?): 8 B rows"; awk '$1 == 8' $OUT/bench-1gpu-np$np/table.txt
  el bench np $np
done
echo quit | nvidia-cuda-mps-control
timeout 170 mpirun --allow-run-as-root -np 2 --bind-to none -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE \
  build/bin/mcoll-bench -q --no-plot --output $OUT/bench-2gpu-np2 > $OUT/bench-2gpu-np2.log 2>&1
echo "== mcoll-bench -q, 2 ranks on 2 GPUs (rc $?): 8 B rows"; awk '$1 == 8' $OUT/bench-2gpu-np2/table.txt
cd $OUT && for b in bench-1gpu-np2 bench-1gpu-np4 bench-2gpu-np2; do cp $b/table.txt $b.txt; done
tar czf logs-w4.tgz w4 bench-1gpu-np2 bench-1gpu-np4 bench-2gpu-np2 *.log && rm -rf w4 bench-1gpu-np2 bench-1gpu-np4 bench-2gpu-np2 *.log
ls $OUT
el done
