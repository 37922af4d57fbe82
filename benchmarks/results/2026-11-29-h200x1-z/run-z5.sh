#!/bin/bash
# Run Z5 on the one-GPU kind: the launcher thread's hang, looked for at length. Build, guard, the
# nonblocking suite at 4 ranks (its -async and -launched rows too), then asyncloop: gpu_nonblocking
# -q -f in-flight with MCOLL_ASYNC_START=1 at 4 ranks under MPS, 100 times, each under 30 s.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OUT=$OUT/z5 ASYNC_LOOPS=100 bash tests/gpu/run.sh --np 4 --steps build,guard,nonblocking,asyncloop --quick \
    --timeout 420 --budget 570 > $OUT/suites-z5.txt 2>&1
echo "run.sh exit $?"
tail -12 $OUT/z5/summary.txt 2>/dev/null
grep -h "passed 30 s\|exit [1-9]" $OUT/z5/asyncloop-np4.log 2>/dev/null | head
cd $OUT && tar czf logs-z5.tgz z5 2>/dev/null; rm -rf z5
