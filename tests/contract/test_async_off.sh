#!/bin/sh
# mpi_async with MCOLL_ASYNC_START=0: nonblocking and persistent engine calls launch in the
# calling thread (mpi_async checks every launch was made there and no launcher thread ran), and
# a failed launch is the call's own error; then the same with MCOLL_LEGACY_STREAM_ORDER=0.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
PROG=$BUILD/tests/contract/mpi_async
[ -x "$PROG" ] || { echo "skip: $PROG not built"; exit 77; }
mkdir -p "$BUILD/tests/logs"
log=$BUILD/tests/logs/async_off.out
MCOLL_ASYNC_START=0 "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_ASYNC_START "$PROG" > "$log" 2>&1
rc=$?
grep -q "^mpi_async: PASS (launches in the caller)" "$log" || { echo "FAIL: mpi_async with MCOLL_ASYNC_START=0 (exit $rc)"; tail -n 20 "$log"; exit 1; }
# MCOLL_LEGACY_STREAM_ORDER=0: nonblocking launches no longer wait for the legacy default stream,
# but still for the blocking calls' launches before them (mpi_async checks both orders).
log=$BUILD/tests/logs/async_off_no_legacy_order.out
MCOLL_ASYNC_START=0 MCOLL_LEGACY_STREAM_ORDER=0 "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_ASYNC_START \
    -x MCOLL_LEGACY_STREAM_ORDER "$PROG" > "$log" 2>&1
rc=$?
grep -q "^mpi_async: PASS (launches in the caller)" "$log" ||
    { echo "FAIL: mpi_async with MCOLL_LEGACY_STREAM_ORDER=0 (exit $rc)"; tail -n 20 "$log"; exit 1; }
echo "PASS: mpi_async with MCOLL_ASYNC_START=0, and with MCOLL_LEGACY_STREAM_ORDER=0"
