#!/bin/sh
# mpi_hier in its other settings (run.sh runs it with MCOLL_DOMAIN_SIZE=2, MPI not CUDA-aware),
# mpi_hier_nonblocking in three of them, with MCOLL_HIER_NONBLOCKING off, and on for one rank
# only (off everywhere then), and mpi_hier_engine on unequal domains and with a CUDA-aware MPI:
# unequal domains (3 + 1 at 4 ranks) and one rank per domain (left to the staged path), a
# CUDA-aware MPI (device pointers between domains), 3 ranks (a last domain of one), and
# MCOLL_HIER=auto with the GPU engines on, on a contract driver whose cuMemCreate fails: each
# domain's engine set-up fails, on every rank of the domain alike, and its steps go through MPI
# (and the two domains' reductions are swapped and reduced on the host), the MPI CUDA-aware or not;
# the same at 6 and 8 ranks (three and four domains: the exchange of parts, reduced on the host),
# and at 6 ranks with rank 1 unable to pin host memory (pageable staging, same results).
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
PROG=$BUILD/tests/contract/mpi_hier
[ -x "$PROG" ] || { echo "skip: $PROG not built"; exit 77; }
[ -x "$PROG"_nonblocking ] || { echo "skip: ${PROG}_nonblocking not built"; exit 77; }
[ -x "$PROG"_engine ] || { echo "skip: ${PROG}_engine not built"; exit 77; }
mkdir -p "$BUILD/tests/logs"
run() { # name, np, then VAR=value settings
    name=$1 np=$2
    shift 2
    log=$BUILD/tests/logs/hier.$name.out
    env "$@" MCOLL_DEBUG=INFO "$MPIRUN" -np "$np" --oversubscribe -x MCOLL_DOMAIN_SIZE -x MCOLL_CUDA_AWARE -x MCOLL_HIER \
        -x MCOLL_CONTRACT_FAIL -x MCOLL_DEBUG "$PROG" > "$log" 2>&1
    rc=$?
    grep -q "^mpi_hier: PASS" "$log" || { echo "FAIL: mpi_hier $name (exit $rc)"; grep -v "mcoll INFO" "$log" | tail -n 20; exit 1; }
    echo "PASS: mpi_hier $name: $(grep -c ': hier (' "$log") INFO lines on the hierarchical path"
}
run_nonblocking() { # name, np, then VAR=value settings
    name=$1 np=$2
    shift 2
    log=$BUILD/tests/logs/hier.nonblocking.$name.out
    env MCOLL_HIER=mpi MCOLL_CONTRACT_FAIL= "$@" "$MPIRUN" -np "$np" --oversubscribe -x MCOLL_DOMAIN_SIZE \
        -x MCOLL_CUDA_AWARE -x MCOLL_HIER_NONBLOCKING -x MCOLL_HIER -x MCOLL_CONTRACT_FAIL "$PROG"_nonblocking > "$log" 2>&1
    rc=$?
    grep -q "^mpi_hier_nonblocking: PASS" "$log" ||
        { echo "FAIL: mpi_hier_nonblocking $name (exit $rc)"; tail -n 20 "$log"; exit 1; }
    echo "PASS: mpi_hier_nonblocking $name"
}
run_nonblocking unequal "$NP" MCOLL_DOMAIN_SIZE=3 MCOLL_CUDA_AWARE=0 MCOLL_HIER_NONBLOCKING=1
run_nonblocking cuda-aware "$NP" MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=1 MCOLL_HIER_NONBLOCKING=1
run_nonblocking np3 3 MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER_NONBLOCKING=1
run_nonblocking off "$NP" MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER_NONBLOCKING=0
run_nonblocking disagree "$NP" MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER_NONBLOCKING=rank0
# The GPU engines allowed, their set-up failing: the reductions between two and three domains
# exchanged in parts and reduced on the host, in the completion calls.
run_nonblocking exchange-engines-fail "$NP" MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER_NONBLOCKING=1 \
    MCOLL_HIER=auto MCOLL_CONTRACT_FAIL=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY
run_nonblocking exchange-engines-fail-np6 6 MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER_NONBLOCKING=1 \
    MCOLL_HIER=auto MCOLL_CONTRACT_FAIL=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY
# The domains' engines on launchers that compute nothing, on unequal domains (3 + 1).
log=$BUILD/tests/logs/hier.engine.unequal.out
MCOLL_DOMAIN_SIZE=3 "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_DOMAIN_SIZE "$BUILD/tests/contract/mpi_hier_engine" > "$log" 2>&1
grep -q "^mpi_hier_engine: PASS" "$log" || { echo "FAIL: mpi_hier_engine unequal"; tail -n 20 "$log"; exit 1; }
echo "PASS: mpi_hier_engine unequal"
# Three domains of 2 (6 ranks): the reductions between them as an exchange of parts, reduced on
# the GPU (exchange.c); and four (8 ranks) with a CUDA-aware MPI, the exchange on device buffers.
for np_ca in 6:0 8:1; do
    log=$BUILD/tests/logs/hier.engine.exchange-np${np_ca%:*}.out
    MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=${np_ca#*:} "$MPIRUN" -np "${np_ca%:*}" --oversubscribe -x MCOLL_DOMAIN_SIZE \
        -x MCOLL_CUDA_AWARE "$BUILD/tests/contract/mpi_hier_engine" > "$log" 2>&1
    grep -q "^mpi_hier_engine: PASS" "$log" || { echo "FAIL: mpi_hier_engine exchange np ${np_ca%:*}"; tail -n 20 "$log"; exit 1; }
    echo "PASS: mpi_hier_engine exchange np ${np_ca%:*} (CUDA-aware ${np_ca#*:})"
done
# MCOLL_HIER_GPU_REDUCE=0 on every rank, and on rank 0 alone (the ranks agree: off, with a
# warning): the MPI reduces between domains, nothing is reduced on the GPU there.
for setting in 0 rank0; do
    log=$BUILD/tests/logs/hier.engine.gpu-reduce-$setting.out
    MCOLL_DOMAIN_SIZE=2 MCOLL_HIER_GPU_REDUCE=$setting "$MPIRUN" -np 6 --oversubscribe -x MCOLL_DOMAIN_SIZE \
        -x MCOLL_HIER_GPU_REDUCE "$BUILD/tests/contract/mpi_hier_engine" > "$log" 2>&1
    grep -q "^mpi_hier_engine: PASS" "$log" || { echo "FAIL: mpi_hier_engine MCOLL_HIER_GPU_REDUCE=$setting"; tail -n 20 "$log"; exit 1; }
    echo "PASS: mpi_hier_engine MCOLL_HIER_GPU_REDUCE=$setting"
done
grep -q "ranks disagree on MCOLL_HIER_GPU_REDUCE" "$BUILD/tests/logs/hier.engine.gpu-reduce-rank0.out" ||
    { echo "FAIL: gpu-reduce-rank0: no warning that the ranks disagree on MCOLL_HIER_GPU_REDUCE"; exit 1; }
# The same on two domains with a CUDA-aware MPI: the swap between them on device buffers.
log=$BUILD/tests/logs/hier.engine.cuda-aware.out
MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=1 "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_DOMAIN_SIZE -x MCOLL_CUDA_AWARE \
    "$BUILD/tests/contract/mpi_hier_engine" > "$log" 2>&1
grep -q "^mpi_hier_engine: PASS" "$log" || { echo "FAIL: mpi_hier_engine cuda-aware"; tail -n 20 "$log"; exit 1; }
echo "PASS: mpi_hier_engine cuda-aware"
grep -q "ranks disagree on MCOLL_HIER_NONBLOCKING" "$BUILD/tests/logs/hier.nonblocking.disagree.out" ||
    { echo "FAIL: disagree: no warning that the ranks disagree on MCOLL_HIER_NONBLOCKING"; exit 1; }
run unequal "$NP" MCOLL_DOMAIN_SIZE=3 MCOLL_CUDA_AWARE=0 MCOLL_HIER=mpi MCOLL_CONTRACT_FAIL=
run one-rank-domains "$NP" MCOLL_DOMAIN_SIZE=1 MCOLL_CUDA_AWARE=0 MCOLL_HIER=mpi MCOLL_CONTRACT_FAIL=
run cuda-aware "$NP" MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=1 MCOLL_HIER=mpi MCOLL_CONTRACT_FAIL=
run cuda-aware-unequal "$NP" MCOLL_DOMAIN_SIZE=3 MCOLL_CUDA_AWARE=1 MCOLL_HIER=mpi MCOLL_CONTRACT_FAIL=
run np3 3 MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER=mpi MCOLL_CONTRACT_FAIL=
run engines-fail "$NP" MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER=auto \
    MCOLL_CONTRACT_FAIL=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY
run engines-fail-cuda-aware "$NP" MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=1 MCOLL_HIER=auto \
    MCOLL_CONTRACT_FAIL=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY
# Three domains (uneven parts of a slice) and four, the exchange's parts reduced on the host.
run exchange-np6 6 MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER=auto \
    MCOLL_CONTRACT_FAIL=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY
run exchange-np8-cuda-aware 8 MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=1 MCOLL_HIER=auto \
    MCOLL_CONTRACT_FAIL=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY
# Rank 1 cannot pin host memory (it crashed in the MPI, handed no buffers): it stages through
# pageable memory, blocking and nonblocking calls alike, with the same results.
no_pinning=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY,cuMemHostAlloc:0:CUDA_ERROR_OUT_OF_MEMORY:1,cuMemHostRegister:0:CUDA_ERROR_OUT_OF_MEMORY:1
run no-pinning-rank1 6 MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER=auto MCOLL_CONTRACT_FAIL=$no_pinning
grep -q "hierarchical collectives stage through pageable memory" "$BUILD/tests/logs/hier.no-pinning-rank1.out" ||
    { echo "FAIL: no-pinning-rank1: no line saying rank 1 stages through pageable memory"; exit 1; }
run_nonblocking no-pinning-rank1 6 MCOLL_DOMAIN_SIZE=2 MCOLL_CUDA_AWARE=0 MCOLL_HIER_NONBLOCKING=1 MCOLL_HIER=auto \
    MCOLL_CONTRACT_FAIL=$no_pinning
grep -q "without GPU engine" "$BUILD/tests/logs/hier.engines-fail.out" ||
    { echo "FAIL: engines-fail: no domain said it runs without its engine"; exit 1; }
grep -q ": hier (" "$BUILD/tests/logs/hier.one-rank-domains.out" &&
    { echo "FAIL: one rank per domain should be staged, not hierarchical"; exit 1; }
exit 0
