#!/bin/bash
# Session T run 3 on 4 GPUs: the kernel-written completion word (suites, the MPI rows 64 KiB-16 MiB and
# the nonblocking waits against run T2) and the LL threshold at four GPUs. Phases: A, B.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
PHASE=${1:-A}
if [ "$PHASE" = A ]; then
  nvidia-smi -L
  ( ./configure >/dev/null && make -j16 >$OUT/build.log 2>&1 ) || { tail -30 $OUT/build.log; exit 1; }
  el built
  grep -c "signal_done\|st.release.sys" collectives/completion.cuh
  bash tests/gpu/run.sh --np 4,2 --steps guard,native,mpi,nonblocking,ll,memory,errors --quick > $OUT/suite-t3.txt 2>&1
  sed -n '/^step /,$p' $OUT/suite-t3.txt
  echo "logs saying a stream finished before its completion word: $(grep -l 'finished before the completion word' $OUT/*.log 2>/dev/null | wc -l)"
  grep -h 'completion word' $OUT/*.log 2>/dev/null | sed 's/^[^ ]* //' | sort | uniq -c | head -5
  el suites
fi
if [ "$PHASE" = B ]; then
  OUT=$OUT/sw-mid bash benchmarks/sweep.sh --np 4 --min 64K --max 16M --factor 4 --peers mcoll-mpi,nccl default word0:MCOLL_COMPLETION_WORD=0 \
    > $OUT/sweep-mid-t3.txt 2>&1
  cat $OUT/sweep-mid-t3.txt
  el mid
  for w in 1 0; do
    timeout 150 mpirun --allow-run-as-root -np 4 -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_COMPLETION_WORD=$w \
      build/bin/mcoll_osu_iallreduce -d cuda -m 4K:16M -i 200 -x 20 -f > $OUT/osu-iallreduce-word$w-t3.log 2>&1
    echo "word $w: size overall init wait overlap"; awk '!/^#/ {print $1, $2, $4, $6, $NF}' $OUT/osu-iallreduce-word$w-t3.log
  done
  el osu
  OUT=$OUT/sw-ll bash benchmarks/sweep.sh --np 4 --min 2K --max 32K --factor 2 --collectives allreduce,bcast,reduce,reduce_scatter,allgather \
    --peers mcoll,mcoll-graph,mcoll-mpi,nccl-graph default ll16k:MCOLL_LL_MAX=16K ll32k:MCOLL_LL_MAX=32K > $OUT/sweep-ll-t3.txt 2>&1
  cat $OUT/sweep-ll-t3.txt
  el ll
fi
