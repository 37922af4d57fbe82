#!/bin/bash
# Run Z2 on the one-GPU kind (tree of the exchange between 3 to 16 domains): build, guard, the
# hierarchical suites (4 ranks, and 6 and 8 ranks in domains of 2: hier-x3, hier-x4, hier-x4-host);
# mcoll-bench allreduce, reduce and reduce-scatter 1-64 MiB at 8 ranks in domains of 2 (four
# domains) and at 4 ranks (two), each with MCOLL_HIER_GPU_REDUCE=1 (the GPU reduces between
# domains) and =0 (the MPI reduces), against staged MPI.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/z2 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 330 > $OUT/suites-z2.txt 2>&1
echo "run.sh exit $?"
tail -10 $OUT/z2/summary.txt 2>/dev/null
echo "[$(( $(date +%s) - T0 )) s] suites done"
[ -x build/bin/mcoll-bench ] || { echo "no mcoll-bench"; exit 1; }
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
for np in 8 4; do
  for g in 1 0; do
    timeout 120 mpirun --allow-run-as-root -np $np --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY \
      -x LD_PRELOAD=$GUARD -x MCOLL_TEST_REQUIRE_GUARD=1 -x MCOLL_DOMAIN_SIZE=2 -x MCOLL_MAX_BLOCKS=16 \
      -x MCOLL_ZERO_COPY_BLOCKS=16 -x MCOLL_HIER_GPU_REDUCE=$g \
      build/bin/mcoll-bench -b 1M -e 64M -f 4 -n 20 -w 2 --place out --peers mcoll-mpi,staged \
      --collectives allreduce,reduce,reduce_scatter --no-plot --output $OUT/bench-np$np-gpu$g > $OUT/z2-np$np-gpu$g.log 2>&1
    echo "[$(( $(date +%s) - T0 )) s] bench np $np MCOLL_HIER_GPU_REDUCE=$g exit $?"
  done
done
echo quit | nvidia-cuda-mps-control
cd $OUT && tar czf logs-z2.tgz z2 bench-* 2>/dev/null; rm -rf z2 bench-*
echo "[$(( $(date +%s) - T0 )) s] done"
