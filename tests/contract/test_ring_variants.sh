#!/bin/sh
# mpi_ring with the ring's setting off (MCOLL_RESIDENT_NONBLOCKING=0: every small nonblocking call
# is launched, mpi_ring checks none reached the ring) and with the launcher thread on
# (MCOLL_ASYNC_START=1: the large calls are launched there, and drain the ring there), and with the
# legacy stream's query off (MCOLL_LEGACY_STREAM_ORDER=0: mpi_ring checks nobody asks).
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
PROG=$BUILD/tests/contract/mpi_ring
[ -x "$PROG" ] || { echo "skip: $PROG not built"; exit 77; }
mkdir -p "$BUILD/tests/logs"
for setting in MCOLL_RESIDENT_NONBLOCKING=0 MCOLL_ASYNC_START=1 MCOLL_LEGACY_STREAM_ORDER=0; do
    log=$BUILD/tests/logs/ring_$setting.out
    env "$setting" "$MPIRUN" -np "$NP" --oversubscribe -x "${setting%%=*}" "$PROG" > "$log" 2>&1
    rc=$?
    grep -q "^mpi_ring: PASS" "$log" || { echo "FAIL: mpi_ring with $setting (exit $rc)"; tail -n 20 "$log"; exit 1; }
done
echo "PASS: mpi_ring with MCOLL_RESIDENT_NONBLOCKING=0, with MCOLL_ASYNC_START=1 and with MCOLL_LEGACY_STREAM_ORDER=0"
