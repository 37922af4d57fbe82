#!/bin/sh
# Errors name the user's call (docs/pmpi.md, "Errors"). tests/mpi/bad_call, 2 ranks:
#   - MPI_ERRORS_ARE_FATAL: a negative count in MPI_Allreduce (MPI_Iallreduce) ends the job with
#     the MPI's report naming MPI_Allreduce (MPI_Iallreduce), the communicator and the error
#     class's text, on every rank, and never "MPI_Comm_call_errhandler";
#   - MPI_ERRORS_RETURN: the calls return MPI_ERR_COUNT and MPI_ERR_ROOT, nothing is printed;
#   - a handler of the user's is called once with MPI_ERR_COUNT.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
PROG=$BUILD/tests/mpi/bad_call
[ -x "$PROG" ] || { echo "skip: $PROG not built"; exit 77; }
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_error_names.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

run() { # mode: the program under mpirun -np 2; $tmp/MODE.out, $tmp/MODE.err, $rc
    "$MPIRUN" -np 2 --oversubscribe "$PROG" "$1" > "$tmp/$1.out" 2> "$tmp/$1.err"
    rc=$?
}

for case in fatal:MPI_Allreduce fatal_nonblocking:MPI_Iallreduce; do
    mode=${case%%:*} call=${case#*:}
    run "$mode"
    err=$tmp/$mode.err
    [ $rc -ne 0 ] || bad "$mode: the job did not end"
    grep -q "PASS\|FAIL" "$tmp/$mode.out" && bad "$mode: the program went on after a fatal error"
    [ "$(grep -c "\*\*\* An error occurred in $call\$" "$err")" -eq 2 ] ||
        { bad "$mode: no report naming $call on each rank"; head -n 12 "$err"; }
    [ "$(grep -c "\*\*\* on communicator bad_call comm\$" "$err")" -eq 2 ] || bad "$mode: the communicator is not named"
    [ "$(grep -ci "\*\*\* .*invalid count" "$err")" -eq 2 ] || bad "$mode: the error class's text is missing"
    grep -q "\*\*\* MPI_ERRORS_ARE_FATAL" "$err" || bad "$mode: the handler is not named"
    grep -q "MPI_Comm_call_errhandler" "$err" && bad "$mode: the MPI still names MPI_Comm_call_errhandler"
done

for mode in return user; do
    run "$mode"
    [ $rc -eq 0 ] && grep -q "^bad_call $mode: PASS" "$tmp/$mode.out" ||
        { bad "$mode: exit $rc"; cat "$tmp/$mode.out"; tail -n 12 "$tmp/$mode.err"; }
    grep -q "An error occurred" "$tmp/$mode.err" && bad "$mode: a report was printed"
done

[ $fail -eq 0 ] && echo "error names: fatal reports name the call; MPI_ERRORS_RETURN and user handlers as MPI"
exit $fail
