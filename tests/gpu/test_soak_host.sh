#!/bin/sh
# `make check` entry for the soak program (gpu_soak --host): randomly mixed MPI calls, blocking
# and nonblocking, on host buffers through the plug-in, at 2 and 4 ranks, no GPU needed. It
# runs the soak's own logic (agreed seed and call sequence, layouts, checks, usage samples,
# the growth verdict, the time limit), then proves the verdict: with --leak-fds the run must
# fail, naming the descriptors. The GPU soak runs in tests/gpu/run.sh (step soak).
# Environment (from tests/run.sh): BUILD, MPIRUN. Exit: 0 pass, 1 fail, 77 skip.
set -u
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
PROG=$BUILD/tests/gpu/gpu_soak
LOGS=$BUILD/tests/logs
[ -x "$PROG" ] || { echo "skip: $PROG is not built"; exit 77; }
command -v "$MPIRUN" > /dev/null 2>&1 || { echo "skip: no $MPIRUN"; exit 77; }
mkdir -p "$LOGS"
# The programs refuse to run unless multicast is off; nothing here touches a GPU anyway.
NCCL_NVLS_ENABLE=0
# Open MPI 4.1's AVX ops saturate unsigned 8- and 16-bit sums (see tests/gpu/run.sh).
OMPI_MCA_op=${OMPI_MCA_op:-^avx}
export NCCL_NVLS_ENABLE OMPI_MCA_op
status=0

soak() { # name expect(pass|fail) np args...
    name=$1 expect=$2 np=$3
    shift 3
    log=$LOGS/gpu_test_soak_host.$name.log
    timeout 120 "$MPIRUN" -np "$np" --oversubscribe "$PROG" --host "$@" > "$log" 2>&1
    rc=$?
    line=$(grep '^# soak: ' "$log" | tail -n 1 | sed 's/^# //')
    if [ "$expect" = pass ] && [ $rc -eq 0 ] && grep -q '^PASS soak/' "$log"; then
        echo "PASS $name: $line"
    elif [ "$expect" = fail ] && [ $rc -ne 0 ] && grep -q '^FAIL soak/.*open descriptors grew' "$log"; then
        echo "PASS $name: the leak was found ($(grep -o 'open descriptors grew by [0-9]*' "$log" | head -n 1))"
    else
        echo "FAIL $name: exit $rc, want $expect (log $log)"
        tail -n 15 "$log" | sed 's/^/    /'
        status=1
    fi
}

soak np2 pass 2 -n 20000 -s 11
soak np4 pass 4 -n 20000 -s 12
# A time limit well below what the calls need: every rank stops at the same call.
soak np4-time pass 4 -n 100000000 -t 3 -s 0
soak leak fail 2 -n 3000 --leak-fds
exit $status
