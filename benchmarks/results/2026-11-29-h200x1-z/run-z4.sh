#!/bin/bash
# Run Z4 on the one-GPU kind: build, guard and the hierarchical suites (hier-x rows now check how the domains reduce between them)
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=$OUT/z4 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 500 > $OUT/suites-z4.txt 2>&1
echo "run.sh exit $?"
tail -22 $OUT/z4/summary.txt 2>/dev/null
cd $OUT && tar czf logs-z4.tgz z4 2>/dev/null; rm -rf z4
