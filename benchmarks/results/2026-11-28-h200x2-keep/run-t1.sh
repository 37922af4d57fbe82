#!/bin/bash
# Session T run 1: A/B of the plug-in's map path (old = 623c259, new = working tree), reduce in place.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
nvidia-smi -L
PHASE=${1:-1}
if [ "$PHASE" = 1 ]; then
( ./configure >/dev/null && make -j12 >$OUT/build-new.log 2>&1 ) || { tail -30 $OUT/build-new.log; exit 1; }
( cd old && ./configure >/dev/null && make -j12 >$OUT/build-old.log 2>&1 ) || { tail -30 $OUT/build-old.log; exit 1; }
echo "built in $(( $(date +%s) - T0 )) s"
bash tests/gpu/run.sh --np 2 --steps guard,mpi,memory,staged --quick > $OUT/suite-t1.txt 2>&1
tail -25 $OUT/suite-t1.txt
echo "suites done at $(( $(date +%s) - T0 )) s"
for tree in old new; do
  d=.; [ $tree = old ] && d=old
  ( cd $d && OUT=$OUT/sw-$tree bash benchmarks/sweep.sh --np 2 --min 1M --max 16M --factor 4 \
      --collectives allreduce,bcast,reduce,reduce_scatter,allgather --peers mcoll-mpi,nccl default ) > $OUT/sweep-mpi-$tree.txt 2>&1
  echo "sweep $tree done at $(( $(date +%s) - T0 )) s"
done
paste -d'|' $OUT/sweep-mpi-old.txt $OUT/sweep-mpi-new.txt | grep -v nccl | head -40
fi
if [ "$PHASE" = 2 ]; then
OUT=$OUT/sw-red bash benchmarks/sweep.sh --np 2 --min 2M --max 512M --factor 4 --collectives reduce \
    --peers mcoll,mcoll-window,mcoll-mpi,nccl default > $OUT/sweep-reduce-t1.txt 2>&1
cat $OUT/sweep-reduce-t1.txt | head -30
echo "reduce sweep done at $(( $(date +%s) - T0 )) s"
# Where the time of a call through MPI goes (TRACE timings, new tree).
LD=$PWD/build/tests/gpu/libmcoll_guard.so
for sz in 8 8M; do
  timeout 120 mpirun --allow-run-as-root -np 2 -x LD_PRELOAD=$LD -x MCOLL_DEBUG=trace -x NCCL_NVLS_ENABLE \
    build/bin/mcoll-bench -b $sz -e $sz --collectives allreduce,reduce --peers mcoll-mpi -n 50 --reps 3 \
    --place out --no-plot --output $OUT/tr > $OUT/trace-$sz.out 2> $OUT/trace-$sz.err
  echo "== trace $sz: $(wc -l < $OUT/trace-$sz.err) lines"
  python3 trace_sum.py $OUT/trace-$sz.err
done
gzip -9 $OUT/trace-*.err
fi
echo "all done at $(( $(date +%s) - T0 )) s"
