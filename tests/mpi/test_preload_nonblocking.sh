#!/bin/sh
# A program that is not linked to mcoll and uses nonblocking and persistent collectives, mixed
# with point-to-point requests under every completion call, gives the same output with
# LD_PRELOAD=libmcoll.so as without it, and the preloaded wrappers ran.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
PROG=$BUILD/tests/mpi/plain/nonblocking_program
LIB=$BUILD/lib/libmcoll.so
[ -x "$PROG" ] && [ -f "$LIB" ] || { echo "skip: $PROG or $LIB not built"; exit 77; }
dir=$BUILD/tests/logs/preload_nonblocking
mkdir -p "$dir"
"$MPIRUN" -np "$NP" --oversubscribe "$PROG" > "$dir/plain.out" 2> "$dir/plain.err" || { echo "FAIL: plain run"; cat "$dir/plain.err"; exit 1; }
"$MPIRUN" -np "$NP" --oversubscribe -x LD_PRELOAD="$LIB" -x MCOLL_DEBUG=INFO "$PROG" > "$dir/preload.out" 2> "$dir/preload.err" ||
    { echo "FAIL: preloaded run"; tail -n 20 "$dir/preload.err"; exit 1; }
cmp -s "$dir/plain.out" "$dir/preload.out" || { echo "FAIL: output differs under LD_PRELOAD"; diff "$dir/plain.out" "$dir/preload.out" | head -20; exit 1; }
for c in allreduce bcast reduce reduce_scatter_block reduce_scatter allgather ibarrier; do
    grep -q "mcoll INFO [a-z_]*\.c:[0-9]* $c[ :].*mpi (" "$dir/preload.err" || { echo "FAIL: no path line for $c under LD_PRELOAD"; exit 1; }
done
echo "preload: $(wc -l < "$dir/plain.out") output lines identical with and without mcoll"
