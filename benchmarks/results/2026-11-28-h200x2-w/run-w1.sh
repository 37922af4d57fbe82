#!/bin/bash
# Session W run 1 on 2 x H200, ranks sharing GPU 0 under MPS (CUDA_VISIBLE_DEVICES=0): every
# quick suite at 2 and 4 ranks on one GPU (first GPU run of 5ac7c27).
set -u
env | grep -E '^(NCCL_NVLS_ENABLE|MCOLL_)' ; nvidia-smi -L
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
CUDA_VISIBLE_DEVICES=0 OUT=$OUT/w1 bash tests/gpu/run.sh --np 2,4 --steps build,guard,nomps,native,stream,mpi,nonblocking,errors,memory,autoreg,ll,split,hier --quick --budget 570 > $OUT/suites-w1.txt 2>&1
echo "run.sh exit $?"
cat $OUT/w1/summary.txt
el suites
