#!/bin/bash
# Session T run 2 on 4 GPUs: suites, the legacy-stream ordering case both ways, the bandwidth rows
# (issue 16) and the small-call rows (issue 15) and overlap (issue 12). Phases: A, B, C.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
PHASE=${1:-A}
if [ "$PHASE" = A ]; then
  nvidia-smi -L; nvidia-smi topo -m > $OUT/topo.txt 2>&1; head -8 $OUT/topo.txt
  ( ./configure >/dev/null && make -j16 >$OUT/build.log 2>&1 ) || { tail -30 $OUT/build.log; exit 1; }
  el built
  bash tests/gpu/run.sh --np 4,2 --steps guard,mpi,nonblocking,ll,memory --quick > $OUT/suite-t2.txt 2>&1
  sed -n '/^step /,$p' $OUT/suite-t2.txt
  el suites
  # The ordering case must pass by default and fail without the legacy stream's query.
  for v in 1 0; do
    timeout 120 mpirun --allow-run-as-root -np 4 -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_LEGACY_STREAM_ORDER=$v \
      build/tests/gpu/gpu_mpi -f ordering > $OUT/ordering-legacy$v.log 2>&1
    echo "MCOLL_LEGACY_STREAM_ORDER=$v: exit $?"; grep -E "FAIL|PASS|passed" $OUT/ordering-legacy$v.log | head -4
  done
  el ordering
fi
if [ "$PHASE" = B ]; then
  OUT=$OUT/sw-large bash benchmarks/sweep.sh --np 4 --min 2M --max 512M --factor 4 \
    default b64:MCOLL_MAX_BLOCKS=64 > $OUT/sweep-large-t2.txt 2>&1
  cat $OUT/sweep-large-t2.txt | head -130
  el large
fi
if [ "$PHASE" = C ]; then
  for np in 4 2; do
    OUT=$OUT/sw-small$np bash benchmarks/sweep.sh --np $np --min 8 --max 8K --factor 32 --collectives allreduce,bcast,reduce \
      --peers mcoll,mcoll-graph,mcoll-mpi,mcoll-persistent,nccl-graph default legacy0:MCOLL_LEGACY_STREAM_ORDER=0 \
      > $OUT/sweep-small-np$np-t2.txt 2>&1
    cat $OUT/sweep-small-np$np-t2.txt
    el "small np $np"
  done
  OUT=$OUT/sw-mid bash benchmarks/sweep.sh --np 4 --min 64K --max 16M --factor 4 --peers mcoll-mpi,nccl default \
    > $OUT/sweep-mid-t2.txt 2>&1
  cat $OUT/sweep-mid-t2.txt
  el mid
  for v in 1 0; do
    timeout 150 mpirun --allow-run-as-root -np 4 -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_LEGACY_STREAM_ORDER=$v \
      build/bin/mcoll_osu_iallreduce -d cuda -m 8:16M -i 200 -x 20 -f > $OUT/osu-iallreduce-legacy$v-t2.log 2>&1
    grep -v "^#" $OUT/osu-iallreduce-legacy$v-t2.log | head -30
    el "osu $v"
  done
fi
