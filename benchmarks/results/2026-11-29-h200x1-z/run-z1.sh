#!/bin/bash
# Run Z1 on the one-GPU kind: build, guard and the hierarchical suites at 4 ranks sharing the GPU under MPS
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=$OUT/z1 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 500 > $OUT/suites-z1.txt 2>&1
echo "run.sh exit $?"
tail -22 $OUT/z1/summary.txt 2>/dev/null
cd $OUT && tar czf logs-z1.tgz z1 2>/dev/null; rm -rf z1
