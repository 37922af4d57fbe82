#!/bin/bash
# Run Y5 on the one-GPU kind (tree of the two-domain swap for allreduce, reduce and reduce-scatter): build,
# guard, the hierarchical suites at 4 ranks; gpu_mpi at domains of 2 with
# MCOLL_HIER_OVERLAP_COPIES=0 (the swap reduced on the host); mcoll-bench at domains of 2, twice;
# compute-sanitizer memcheck on gpu_mpi's allreduce, reduce and reduce-scatter cases at domains of 2
# (unguarded, as run.sh runs the sanitizers, with MCOLL_NVLS=0 and NCCL_NVLS_ENABLE=0).
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/y5 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 300 > $OUT/suites-y5.txt 2>&1
echo "run.sh exit $?"
tail -8 $OUT/y5/summary.txt 2>/dev/null
echo "[$(( $(date +%s) - T0 )) s] suites done"
[ -x build/bin/mcoll-bench ] || { echo "no mcoll-bench"; exit 1; }
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
mpi() { timeout $1 mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY \
    -x LD_PRELOAD=$GUARD -x MCOLL_TEST_REQUIRE_GUARD=1 "${@:2}"; }
mpi 120 -x MCOLL_DOMAIN_SIZE=2 -x MCOLL_HIER_OVERLAP_COPIES=0 build/tests/gpu/gpu_mpi -q > $OUT/gpu-mpi-d2-copies0.log 2>&1
echo "[$(( $(date +%s) - T0 )) s] gpu_mpi d2 copies0 exit $?: $(grep -E '^[0-9]+ passed' $OUT/gpu-mpi-d2-copies0.log | tail -1)"
for t in 1 2; do
  mpi 90 -x MCOLL_DOMAIN_SIZE=2 build/bin/mcoll-bench -b 1M -e 64M -f 4 -n 20 -w 2 --place out --peers mcoll-mpi,staged \
    --no-plot --output $OUT/bench-d2-pair$t > $OUT/d2-pair$t.log 2>&1
  echo "[$(( $(date +%s) - T0 )) s] bench d2-pair$t exit $?"
done
timeout 170 mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY -x MCOLL_NVLS=0 \
    -x MCOLL_DOMAIN_SIZE=2 compute-sanitizer --tool memcheck --target-processes all \
    build/tests/gpu/gpu_mpi -q -f mpi/allreduce,mpi/reduce > $OUT/memcheck-d2.log 2>&1
echo "[$(( $(date +%s) - T0 )) s] memcheck d2 exit $?: $(grep -E '^gpu_mpi np=|ERROR SUMMARY' $OUT/memcheck-d2.log | sort | uniq -c | tr '\n' ' ')"
echo quit | nvidia-cuda-mps-control
cd $OUT && tar czf logs-y5.tgz y5 bench-* 2>/dev/null; rm -rf y5 bench-*
echo "[$(( $(date +%s) - T0 )) s] done"
