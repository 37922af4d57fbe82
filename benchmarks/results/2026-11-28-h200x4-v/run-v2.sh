#!/bin/bash
# Session V run 2 on 4 GPUs: the kept windows' fix (autoreg suites), where a nonblocking start's
# time goes (TRACE), the mid-size rows with kept windows and the 4 KiB LL default, and the
# root-centred collectives' large rows under two data-area settings. Phases: A, B.
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
  bash tests/gpu/run.sh --np $NP,2 --steps guard,mpi,autoreg,memory --quick > $OUT/suite-v2.txt 2>&1
  sed -n '/^step /,$p' $OUT/suite-v2.txt
  grep -h "ALREADY_MAPPED\|mapping the peers' buffers failed" $OUT/*.log | head -3
  el suites
  for a in 0 1; do
    timeout 60 mpirun --allow-run-as-root -np $NP -x LD_PRELOAD=$GUARD -x NCCL_NVLS_ENABLE -x MCOLL_ASYNC_START=$a -x MCOLL_DEBUG=trace \
      build/bin/mcoll_osu_iallreduce -d cuda -m 65536:65536 -i 200 -x 20 -f > $OUT/trace-i64k-async$a.out 2> $OUT/trace-i64k-async$a.err
    echo "async $a: $(grep -v '^#' $OUT/trace-i64k-async$a.out | awk 'NF > 5 {print "overall", $2, "init", $4, "wait", $6, "pure", $7, "overlap", $NF}')"
    python3 - $OUT/trace-i64k-async$a.err <<'PY'
import re, sys, statistics
pats = {"decide": r"iallreduce: ([0-9.]+) us to decide$", "launch": r"iallreduce: ([0-9.]+) us to launch, post or queue",
        "greq": r"us to launch, post or queue, ([0-9.]+) us for the generalized request"}
lines = open(sys.argv[1], errors="replace").read().splitlines()
for k, p in pats.items():
    v = [float(m.group(1)) for l in lines for m in [re.search(p, l)] if m]
    if v: print(f"  {k}: n={len(v)} median {statistics.median(v):.2f} us, p10 {sorted(v)[len(v)//10]:.2f}, p90 {sorted(v)[9*len(v)//10]:.2f}")
PY
    gzip -9 -f $OUT/trace-i64k-async$a.err
  done
  el trace
fi
if [ "$PHASE" = B ]; then
  OUT=$OUT/sw-mid bash benchmarks/sweep.sh --np $NP --min 2K --max 16M --factor 4 --peers mcoll,mcoll-window,mcoll-mpi,nccl default \
    > $OUT/sweep-mid-v2.txt 2>&1
  cat $OUT/sweep-mid-v2.txt
  el mid
fi
if [ "$PHASE" = C ]; then
  OUT=$OUT/sw-root bash benchmarks/sweep.sh --np $NP --min 8M --max 512M --factor 4 --collectives bcast,reduce \
    --peers mcoll,mcoll-window,mcoll-mpi,nccl default buf128:MCOLL_BUFFER_SIZE=128M b16:MCOLL_MAX_BLOCKS=16 > $OUT/sweep-root-v2.txt 2>&1
  cat $OUT/sweep-root-v2.txt
  el root
fi
if [ "$PHASE" = D ]; then
  for np in 4 2; do
    OUT=$OUT/sw-grid$np bash benchmarks/sweep.sh --np $np --min 2M --max 64M --factor 2 --collectives bcast,reduce \
      --peers mcoll-window,mcoll-mpi,nccl default b8:MCOLL_MAX_BLOCKS=8 b16:MCOLL_MAX_BLOCKS=16 b24:MCOLL_MAX_BLOCKS=24 > $OUT/sweep-grid-np$np-v2.txt 2>&1
    echo "== np $np"; grep -v "^==" $OUT/sweep-grid-np$np-v2.txt
    el "grid np $np"
  done
fi
if [ "$PHASE" = E ]; then
  nvidia-smi -L
  ( ./configure >/dev/null && make -j16 >$OUT/build.log 2>&1 ) || { tail -30 $OUT/build.log; exit 1; }
  el built
  bash tests/gpu/run.sh --np $NP,2 --steps guard,memory,autoreg --quick > $OUT/suite-v2e.txt 2>&1
  sed -n '/^step /,$p' $OUT/suite-v2e.txt
  el suites
  for np in 4 2; do
    OUT=$OUT/sw-capped$np bash benchmarks/sweep.sh --np $np --min 2M --max 64M --factor 2 --collectives bcast,reduce \
      --peers mcoll,mcoll-window,mcoll-mpi,nccl default > $OUT/sweep-capped-np$np-v2.txt 2>&1
    echo "== np $np"; grep -v "^==" $OUT/sweep-capped-np$np-v2.txt
    el "capped np $np"
  done
fi
