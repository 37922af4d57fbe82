#!/bin/bash
# Session X run 1 on the one-GPU kind (tree of dab684b): every quick suite at 2 and 4 ranks
# sharing the GPU under MPS, the new starts-are-local/legacy-copy case among them.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
# The kind's description has it preset to 0; where it is missing, set it to that value (never
# change a value that is set) so that nothing here can use NVLink multicast.
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
nvidia-smi -L
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/x1 bash tests/gpu/run.sh --np 2,4 --steps build,guard,nomps,native,stream,mpi,nonblocking,errors,memory,autoreg,ll,split,hier --quick --budget 560 > $OUT/suites-x1.txt 2>&1
echo "run.sh exit $?"
cat $OUT/x1/summary.txt
echo "[$(( $(date +%s) - T0 )) s] done"
cd $OUT && tar czf logs-x1.tgz x1 && rm -rf x1
