#!/bin/bash
# Run Y3 on the one-GPU kind (tree of the staging copies on the engine's stream): build, guard,
# the hierarchical suites at 4 ranks; mcoll-bench's hierarchical rows at domains of 2 with
# MCOLL_HIER_OVERLAP_COPIES=0 and =1 side by side, =1 at MCOLL_STAGE_CHUNK of 1M and 16M, and at
# domains of 3 + 1; then the floors and the launcher thread's loop with what is left.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/y3 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 300 > $OUT/suites-y3.txt 2>&1
echo "run.sh exit $?"
tail -8 $OUT/y3/summary.txt 2>/dev/null
echo "[$(( $(date +%s) - T0 )) s] suites done"
[ -x build/bin/mcoll-bench ] || { echo "no mcoll-bench"; exit 1; }
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
d=$(mktemp -d); export CUDA_MPS_PIPE_DIRECTORY=$d/pipe CUDA_MPS_LOG_DIRECTORY=$d/log; mkdir -p $d/pipe $d/log
nvidia-cuda-mps-control -d && echo "MPS daemon started"
bench() {  # tag, limit, env..., -- args
  local tag=$1 lim=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=(-x "$1"); shift; done; shift
  timeout $lim mpirun --allow-run-as-root -np 4 --bind-to none -x NCCL_NVLS_ENABLE -x CUDA_MPS_PIPE_DIRECTORY \
    -x LD_PRELOAD=$GUARD -x MCOLL_TEST_REQUIRE_GUARD=1 "${envs[@]}" build/bin/mcoll-bench "$@" --no-plot --output $OUT/bench-$tag > $OUT/$tag.log 2>&1
  echo "[$(( $(date +%s) - T0 )) s] bench $tag exit $?"
}
common="-b 1M -e 64M -f 4 -n 20 -w 2 --place out"
bench d2-copies0 80 MCOLL_DOMAIN_SIZE=2 MCOLL_HIER_OVERLAP_COPIES=0 -- $common --peers mcoll-mpi,staged
bench d2-copies1 80 MCOLL_DOMAIN_SIZE=2 MCOLL_HIER_OVERLAP_COPIES=1 -- $common --peers mcoll-mpi,staged
bench d2-chunk1M 60 MCOLL_DOMAIN_SIZE=2 MCOLL_STAGE_CHUNK=1M -- $common --peers mcoll-mpi
bench d2-chunk16M 60 MCOLL_DOMAIN_SIZE=2 MCOLL_STAGE_CHUNK=16M -- $common --peers mcoll-mpi
bench d3-copies1 80 MCOLL_DOMAIN_SIZE=3 -- $common --peers mcoll-mpi,staged
echo quit | nvidia-cuda-mps-control
left=$(( 560 - ($(date +%s) - T0) ))
echo "[$(( $(date +%s) - T0 )) s] floors and asyncloop, budget $left s"
OUT=$OUT/y3b bash tests/gpu/run.sh --np 4 --steps build,guard,floors,asyncloop --budget $left > $OUT/suites-y3b.txt 2>&1
echo "run.sh exit $?"
tail -8 $OUT/y3b/summary.txt 2>/dev/null
cd $OUT && tar czf logs-y3.tgz y3 y3b bench-* 2>/dev/null; rm -rf y3 y3b bench-*
echo "[$(( $(date +%s) - T0 )) s] done"
