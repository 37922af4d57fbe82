#!/bin/sh
# mpi_staged, mpi_nonblocking and mpi_nonblocking_blocks with the GPU engines on, on a contract
# driver whose cuMemCreate always fails: every communicator's engine set-up fails (on every rank
# alike, after its collective steps), the engines decline every call, and every call still gives
# MPI's results through the staged path. Mixed calls are part of it: reduce with device sendbufs
# and a host recvbuf at the root must ask the engines on every rank, root included, or the ranks
# would wait on each other. Nonblocking calls decline the same way, and persistent ones when they
# are set up.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
mkdir -p "$BUILD/tests/logs"
for name in mpi_staged mpi_nonblocking mpi_nonblocking_blocks; do
    PROG=$BUILD/tests/contract/$name
    [ -x "$PROG" ] || { echo "skip: $PROG not built"; exit 77; }
    log=$BUILD/tests/logs/staged_engines.$name.out
    MCOLL_ENGINE=auto MCOLL_CONTRACT_FAIL=cuMemCreate:0:CUDA_ERROR_OUT_OF_MEMORY MCOLL_DEBUG=INFO \
        "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_ENGINE -x MCOLL_CONTRACT_FAIL -x MCOLL_DEBUG \
        "$PROG" > "$log" 2>&1
    rc=$?
    grep -q "^$name: PASS" "$log" || { echo "FAIL: $name with engines on (exit $rc)"; grep -v "mcoll INFO" "$log" | tail -n 20; exit 1; }
    grep -q "staged (MPI not CUDA-aware, engine: declined" "$log" || { echo "FAIL: $name: the engines were never asked"; exit 1; }
    # The decision sends these to the engines (here they decline): OSU's default, MPI_CHAR with
    # MPI_SUM, and every collective that has an engine. gatherv, scatterv and alltoallv get there
    # through the ranks' agreement, also on ranks whose blocks are all empty.
    if [ $name = mpi_staged ]; then
        grep -q "allreduce [0-9]* B MPI_CHAR MPI_SUM: staged (MPI not CUDA-aware, engine: declined)" "$log" ||
            { echo "FAIL: $name: allreduce of MPI_CHAR with MPI_SUM was not given to the engines"; exit 1; }
        for c in allreduce reduce bcast reduce_scatter_block allgather allgatherv alltoall alltoallv gather gatherv \
                 scatter scatterv scan exscan; do
            grep -q "INFO [a-z_]*\.c:[0-9]* $c [0-9]* B .*engine: declined" "$log" ||
                { echo "FAIL: $name: $c was never given to the engines"; exit 1; }
        done
    fi
    # Nonblocking gatherv, scatterv and alltoallv are never given to the engines (their choice
    # would take an agreement); the other block collectives and the scans are.
    if [ $name = mpi_nonblocking_blocks ]; then
        for c in gatherv scatterv alltoallv; do
            grep -q "INFO [a-z_]*\.c:[0-9]* $c [0-9]* B .*engine: not agreed without waiting (nonblocking)" "$log" ||
                { echo "FAIL: $name: nonblocking $c not staged without asking the engines"; exit 1; }
            # (one record's fields only: lines of several ranks can interleave in the log)
            ! grep -q "INFO [a-z_]*\.c:[0-9]* $c [0-9]* B [^:]*: [a-z]* ([^)]*engine: declined)" "$log" ||
                { echo "FAIL: $name: nonblocking $c was given to the engines"; exit 1; }
        done
        for c in allgatherv alltoall gather scatter scan exscan; do
            grep -q "INFO [a-z_]*\.c:[0-9]* $c [0-9]* B .*engine: declined" "$log" ||
                { echo "FAIL: $name: nonblocking $c was never given to the engines"; exit 1; }
        done
    fi
    echo "PASS: $name: $(grep -c 'engine: declined' "$log") calls declined by the engines and staged"
done
