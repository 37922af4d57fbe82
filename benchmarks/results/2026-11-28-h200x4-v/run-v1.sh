#!/bin/bash
# Session V run 1 on 4 GPUs: the suites on the committed tree (the 4 KiB LL default at four GPUs,
# kept zero-copy calls without the stream wait), the nonblocking collectives with the launcher
# thread and the completion word, the mid-size rows. Phases: A, B.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
GUARD=$PWD/build/tests/gpu/libmcoll_guard.so
el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
NP=${NP:-4}
PHASE=${1:-A}
if [ "$PHASE" = A ]; then
  nvidia-smi -L
  ( ./configure >/dev/null && make -j16 >$OUT/build.log 2>&1 ) || { tail -30 $OUT/build.log; exit 1; }
  el built
  bash tests/gpu/run.sh --np $NP,2 --steps guard,mpi,nonblocking,ll,memory,autoreg,errors --quick > $OUT/suite-v1.txt 2>&1
  sed -n '/^step /,$p' $OUT/suite-v1.txt
  el suites
fi
if [ "$PHASE" = A ] || [ "$PHASE" = O ]; then
  for c in iallreduce ibcast iallgather ireduce_scatter; do
    for a in 0 1; do
      timeout 100 mpirun --allow-run-as-root -np $NP ${MPSX:-} -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_ASYNC_START=$a \
        build/bin/mcoll_osu_$c -d cuda -m 4K:16M -i 200 -x 20 -f > $OUT/osu-$c-async$a.log 2>&1
      echo "$c async $a: size overall init wait pure overlap"
      awk '!/^#/ && NF > 5 {printf "%s %s %s %s %s %s\n", $1, $2, $4, $6, $7, $NF}' $OUT/osu-$c-async$a.log | tr '\n' ';'; echo
    done
  done
  el osu
fi
if [ "$PHASE" = B ]; then
  OUT=$OUT/sw-mid bash benchmarks/sweep.sh --np $NP --min 2K --max 16M --factor 4 --peers mcoll,mcoll-window,mcoll-mpi,nccl default \
    > $OUT/sweep-mid-v1.txt 2>&1
  cat $OUT/sweep-mid-v1.txt
  el mid
fi
