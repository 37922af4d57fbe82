#!/bin/sh
# Programs that are not linked to mcoll and use nonblocking and persistent collectives, mixed
# with point-to-point requests under every completion call, give the same output with
# LD_PRELOAD=libmcoll.so as without it, and the preloaded wrappers ran.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
LIB=$BUILD/lib/libmcoll.so
# program: the calls whose path lines must appear under LD_PRELOAD
run() {
    name=$1
    shift
    PROG=$BUILD/tests/mpi/plain/$name
    [ -x "$PROG" ] && [ -f "$LIB" ] || { echo "skip: $PROG or $LIB not built"; exit 77; }
    dir=$BUILD/tests/logs/preload_$name
    mkdir -p "$dir"
    "$MPIRUN" -np "$NP" --oversubscribe "$PROG" > "$dir/plain.out" 2> "$dir/plain.err" || { echo "FAIL: $name: plain run"; cat "$dir/plain.err"; exit 1; }
    "$MPIRUN" -np "$NP" --oversubscribe -x LD_PRELOAD="$LIB" -x MCOLL_DEBUG=INFO "$PROG" > "$dir/preload.out" 2> "$dir/preload.err" ||
        { echo "FAIL: $name: preloaded run"; tail -n 20 "$dir/preload.err"; exit 1; }
    cmp -s "$dir/plain.out" "$dir/preload.out" || { echo "FAIL: $name: output differs under LD_PRELOAD"; diff "$dir/plain.out" "$dir/preload.out" | head -20; exit 1; }
    for c in "$@"; do
        grep -q "mcoll INFO [a-z_]*\.c:[0-9]* $c[ :].*mpi (" "$dir/preload.err" || { echo "FAIL: $name: no path line for $c under LD_PRELOAD"; exit 1; }
    done
    echo "preload: $name: $(wc -l < "$dir/plain.out") output lines identical with and without mcoll"
}
run nonblocking_program allreduce bcast reduce reduce_scatter_block reduce_scatter allgather ibarrier
# (gather's line also comes from the program's own MPI_Gather; test_exports.sh checks MPI_Igather is there)
run nonblocking_blocks_program allgatherv alltoall alltoallv alltoallw gather gatherv scatter scatterv scan exscan
