#!/bin/sh
# A program that is not linked to mcoll gives the same output with LD_PRELOAD=libmcoll.so as
# without it, and mcoll's INFO log shows that the preloaded wrappers ran (also with
# MCOLL_DISABLE=1, where they forward everything untouched).
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
PROG=$BUILD/tests/mpi/plain/host_program
LIB=$BUILD/lib/libmcoll.so
[ -x "$PROG" ] && [ -f "$LIB" ] || { echo "skip: $PROG or $LIB not built"; exit 77; }
if ldd "$PROG" | grep -q libmcoll; then echo "FAIL: $PROG is linked to mcoll"; exit 1; fi
dir=$BUILD/tests/logs/preload
mkdir -p "$dir"
fail=0

"$MPIRUN" -np "$NP" --oversubscribe "$PROG" > "$dir/plain.out" 2> "$dir/plain.err" || { echo "FAIL: plain run"; cat "$dir/plain.err"; exit 1; }
grep -q "mcoll" "$dir/plain.err" && { echo "FAIL: mcoll active without LD_PRELOAD"; fail=1; }

"$MPIRUN" -np "$NP" --oversubscribe -x LD_PRELOAD="$LIB" -x MCOLL_DEBUG=INFO "$PROG" > "$dir/preload.out" 2> "$dir/preload.err" ||
    { echo "FAIL: preloaded run"; tail -n 20 "$dir/preload.err"; exit 1; }
if ! cmp -s "$dir/plain.out" "$dir/preload.out"; then
    echo "FAIL: output differs under LD_PRELOAD"; diff "$dir/plain.out" "$dir/preload.out" | head -20; fail=1
fi
[ "$(grep -c 'PMPI plug-in active' "$dir/preload.err")" -eq "$NP" ] || { echo "FAIL: plug-in not active on every rank"; fail=1; }
for c in allreduce bcast reduce reduce_scatter_block reduce_scatter allgather barrier gather alltoallv scan \
         neighbor_allgather; do
    grep -q "mcoll INFO pmpi_[a-z_]*\.c:[0-9]* $c[ :].*mpi (" "$dir/preload.err" ||
        { echo "FAIL: no path line for $c under LD_PRELOAD"; fail=1; }
done

"$MPIRUN" -np "$NP" --oversubscribe -x LD_PRELOAD="$LIB" -x MCOLL_DEBUG=INFO -x MCOLL_DISABLE=1 "$PROG" \
    > "$dir/disabled.out" 2> "$dir/disabled.err" || { echo "FAIL: MCOLL_DISABLE=1 run"; exit 1; }
cmp -s "$dir/plain.out" "$dir/disabled.out" || { echo "FAIL: output differs with MCOLL_DISABLE=1"; fail=1; }
grep -q "MCOLL_DISABLE=1: every call goes to MPI untouched" "$dir/disabled.err" || { echo "FAIL: MCOLL_DISABLE not reported"; fail=1; }
grep -q "mcoll INFO pmpi_run" "$dir/disabled.err" && { echo "FAIL: calls were not forwarded untouched with MCOLL_DISABLE=1"; fail=1; }

[ $fail -eq 0 ] && echo "preload: $(wc -l < "$dir/plain.out") output lines identical with and without mcoll"
exit $fail
