#!/bin/bash
# Run Y1 on the one-GPU kind: build, guard, the hierarchical suites (4 ranks sharing the GPU under
# MPS in simulated domains of 2 and of 3 + 1, and the nonblocking hierarchical calls), then
# mcoll-bench's hierarchical rows against staging at domains of 2 and of 3 + 1, and the persistent
# hierarchical calls (MCOLL_HIER_NONBLOCKING=1) at domains of 2; then the 4-rank suites with what
# is left of the time.
set -u
echo "NCCL_NVLS_ENABLE as found: ${NCCL_NVLS_ENABLE-unset}"
# The kind's description has it preset to 0; where it is missing, set it to that value (never
# change a value that is set) so that nothing here can use NVLink multicast.
[ "${NCCL_NVLS_ENABLE-unset}" = unset ] && export NCCL_NVLS_ENABLE=0 && echo "set NCCL_NVLS_ENABLE=0 (was unset)"
[ "$NCCL_NVLS_ENABLE" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
nvidia-smi -L
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
OUT=$OUT/y1 bash tests/gpu/run.sh --np 4 --steps build,guard,hier --quick --budget 330 > $OUT/suites-y1.txt 2>&1
echo "run.sh exit $?"
cat $OUT/y1/summary.txt 2>/dev/null | tail -12
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
bench hier-d2 110 MCOLL_DOMAIN_SIZE=2 -- -b 64K -e 64M -f 4 -n 20 -w 2 --place out --peers mcoll-mpi,staged
bench hier-d3 90 MCOLL_DOMAIN_SIZE=3 -- -b 64K -e 64M -f 4 -n 20 -w 2 --place out --peers mcoll-mpi,staged
bench hier-nb-d2 90 MCOLL_DOMAIN_SIZE=2 MCOLL_HIER_NONBLOCKING=1 -- -b 64K -e 64M -f 4 -n 20 -w 2 --place out --peers mcoll-mpi,mcoll-persistent
echo quit | nvidia-cuda-mps-control
# What is left of the command's time: the 4-rank suites skipped in the last full run.
left=$(( 560 - ($(date +%s) - T0) ))
echo "[$(( $(date +%s) - T0 )) s] suites at 4 ranks, budget $left s"
OUT=$OUT/y1b bash tests/gpu/run.sh --np 4 --steps build,guard,autoreg,ll,mpi,nonblocking --quick --budget $left > $OUT/suites-y1b.txt 2>&1
echo "run.sh exit $?"
cat $OUT/y1b/summary.txt 2>/dev/null | tail -14
cd $OUT && tar czf logs-y1.tgz y1 y1b bench-* 2>/dev/null; rm -rf y1 y1b bench-*
echo "[$(( $(date +%s) - T0 )) s] done"
