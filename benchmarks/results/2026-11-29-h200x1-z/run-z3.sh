#!/bin/bash
# Run Z3 on the one-GPU kind (the exchange used from slices of a quarter MCOLL_STAGE_CHUNK): build,
# guard, the hierarchical suites (hier-x3 and hier-x4 now with 64 KiB chunks, so the suite's counts
# reach the exchange); mcoll-bench allreduce, reduce and reduce-scatter 1-64 MiB at 8 ranks in
# domains of 2, with MCOLL_HIER_GPU_REDUCE=1 and =0 (a second sample of Z2's pair of runs).
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/z3 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 330 > $OUT/suites-z3.txt 2>&1
echo "run.sh exit $?"
tail -10 $OUT/z3/summary.txt 2>/dev/null
echo "[$(( $(date +%s) - T0 )) s] suites done"
[ -x build/bin/mcoll-bench ] || { echo "no mcoll-bench"; exit 1; }
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
for np in 8; do
  for g in 1 0; do
    timeout 120 mpirun --allow-run-as-root -np $np --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY \
      -x LD_PRELOAD=$GUARD -x MCOLL_TEST_REQUIRE_GUARD=1 -x MCOLL_DOMAIN_SIZE=2 -x MCOLL_MAX_BLOCKS=16 \
      -x MCOLL_ZERO_COPY_BLOCKS=16 -x MCOLL_HIER_GPU_REDUCE=$g \
      build/bin/mcoll-bench -b 1M -e 64M -f 4 -n 20 -w 2 --place out --peers mcoll-mpi,staged \
      --collectives allreduce,reduce,reduce_scatter --no-plot --output $OUT/bench-np$np-gpu$g > $OUT/z3-np$np-gpu$g.log 2>&1
    echo "[$(( $(date +%s) - T0 )) s] bench np $np MCOLL_HIER_GPU_REDUCE=$g exit $?"
  done
done
echo quit | nvidia-cuda-mps-control
cd $OUT && tar czf logs-z3.tgz z3 bench-* 2>/dev/null; rm -rf z3 bench-*
echo "[$(( $(date +%s) - T0 )) s] done"
