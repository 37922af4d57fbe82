#!/bin/bash
# Run Y2 on the one-GPU kind: the floors of the hierarchical step between domains (hier_floor.py:
# host MPI calls of 2 concurrent pairs, a plain exchange, the 4-rank host allreduce, pinned
# copies), 4 ranks sharing the GPU under MPS. No mcoll; no build.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
here=benchmarks/results/2026-11-29-h200x1-y
timeout 200 mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY -x OMPI_MCA_op \
    python3 $here/hier_floor.py 2>&1 | tee $OUT/floor-y2.txt
echo "exit ${PIPESTATUS[0]}"
echo "# the same with Open MPI's AVX op component allowed" | tee -a $OUT/floor-y2.txt
env -u OMPI_MCA_op timeout 120 mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY \
    python3 $here/hier_floor.py 2>&1 | grep allreduce | tee -a $OUT/floor-y2.txt
echo quit | nvidia-cuda-mps-control
