#!/bin/bash
# Run Y6 on the one-GPU kind (the session's last tree): build, guard and the quick suites at 2 and
# 4 ranks sharing the GPU under MPS, and the launcher thread's loop (asyncloop, now under MPS).
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=$OUT/y6 ASYNC_LOOPS=10 bash tests/gpu/run.sh --np 2,4 --steps build,guard,native,stream,mpi,nonblocking,asyncloop,errors,memory --quick --budget 330 > $OUT/suites-y6.txt 2>&1
echo "run.sh exit $?"
tail -22 $OUT/y6/summary.txt 2>/dev/null
cd $OUT && tar czf logs-y6.tgz y6 2>/dev/null; rm -rf y6
