#!/bin/bash
# Run Z6 on the one-GPU kind (the session's last tree with code): build, guard, the hierarchical
# suites (hier-nb-d2 now with 64 KiB chunks: nonblocking and persistent calls' reductions between
# domains exchanged in parts); then, if time is left, mcoll-bench allreduce and reduce 1-64 MiB at
# 4 ranks in domains of 2 with MCOLL_HIER_NONBLOCKING=1: the blocking call against the persistent one.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/z6 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 250 > $OUT/suites-z6.txt 2>&1
echo "run.sh exit $?"
tail -12 $OUT/z6/summary.txt 2>/dev/null
grep -h "reductions between" $OUT/z6/hier-*.log 2>/dev/null | sed 's/^.*INFO //' | sort | uniq -c
echo "[$(( $(date +%s) - T0 )) s] suites done"
cd $OUT && tar czf logs-z6.tgz z6 2>/dev/null; cd - > /dev/null
if [ -x build/bin/mcoll-bench ] && [ $(( $(date +%s) - T0 )) -lt 230 ]; then
  GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
  d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
  nvidia-cuda-mps-control -d && echo "MPS daemon started"
  timeout 40 mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY \
    -x LD_PRELOAD=$GUARD -x MCOLL_TEST_REQUIRE_GUARD=1 -x MCOLL_DOMAIN_SIZE=2 -x MCOLL_HIER_NONBLOCKING=1 \
    build/bin/mcoll-bench -b 1M -e 64M -f 4 -n 10 -w 1 --place out --peers mcoll-mpi,mcoll-persistent \
    --collectives allreduce,reduce --no-plot --output $OUT/bench-z6 > $OUT/z6-persistent.log 2>&1
  echo "[$(( $(date +%s) - T0 )) s] bench exit $?"
  echo quit | nvidia-cuda-mps-control
fi
rm -rf $OUT/z6 $OUT/bench-z6
