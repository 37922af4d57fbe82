#!/bin/sh
# mpi_staged with the GPU engines on, on a contract driver without virtual memory management:
# every communicator's engine set-up fails (on every rank alike), the engines decline every
# call, and every call still gives MPI's results through the staged path.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
PROG=$BUILD/tests/contract/mpi_staged
[ -x "$PROG" ] || { echo "skip: $PROG not built"; exit 77; }
log=$BUILD/tests/logs/staged_engines.out
MCOLL_ENGINE=auto MCOLL_BUFFER_SIZE=32M MCOLL_MEMORY_LIMIT=2M MCOLL_DEBUG=INFO \
    "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_ENGINE -x MCOLL_BUFFER_SIZE -x MCOLL_MEMORY_LIMIT -x MCOLL_DEBUG \
    "$PROG" > "$log" 2>&1
rc=$?
grep -q "^mpi_staged: PASS" "$log" || { echo "FAIL: mpi_staged with engines on (exit $rc)"; grep -v "mcoll INFO" "$log" | tail -n 20; exit 1; }
grep -q "staged (MPI not CUDA-aware, engine: declined" "$log" || { echo "FAIL: the engines were never asked"; exit 1; }
echo "PASS: $(grep -c 'engine: declined' "$log") calls declined by the engines and staged"
