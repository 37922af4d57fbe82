#!/bin/sh
# mcoll among other PMPI tools (docs/pmpi.md, "Other PMPI tools"). A program not linked to
# mcoll (tests/mpi/plain/allreduce_loop: N allreduces and one iallreduce) runs on 2 ranks with
# LD_PRELOAD in the orders tool:mcoll, mcoll:tool and tool:mcoll:tool, where the tools
# (tests/mpi/tools/count_*.so) count MPI_Init, MPI_Allreduce and MPI_Iallreduce. In every order:
#   - the results are right;
#   - each tool sees every call once (MPI_Init 1, MPI_Allreduce N, MPI_Iallreduce 1);
#   - mcoll sees every call once: it started, and MCOLL_DEBUG=TRACE logs N + 1 decisions per rank.
# And libmcoll.so answers every PMPI_* name it passes on, with no reference of its own to them
# (mcoll's internal calls reach the MPI, never its own answer).
BUILD=${BUILD:-$(pwd)/build}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
MPIRUN=${MPIRUN:-mpirun}
PROG=$BUILD/tests/mpi/plain/allreduce_loop
LIB=$BUILD/lib/libmcoll.so
BEFORE=$BUILD/tests/mpi/tools/count_before.so
AFTER=$BUILD/tests/mpi/tools/count_after.so
N=25
for f in "$PROG" "$LIB" "$BEFORE" "$AFTER"; do [ -f "$f" ] || { echo "skip: $f not built"; exit 77; }; done
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_pmpi_chain.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The library: every name of chain_calls.h answered, none called through the lookup order.
names=$(sed -n 's/^ *X.\([A-Za-z_]*\),.*/\1/p' "$SRCDIR/src/pmpi/chain_calls.h")
exported=$(nm -D --defined-only "$LIB" | awk '{print $3}')
relocs=$(objdump -R "$LIB" 2>/dev/null | awk '{print $3}' | sed 's/@.*//')
for f in $names; do
    echo "$exported" | grep -qx "PMPI_$f" || bad "libmcoll.so does not answer PMPI_$f"
    echo "$relocs" | grep -qx "PMPI_$f" && bad "libmcoll.so calls PMPI_$f through the lookup order"
done

# run NAME PRELOAD [TOOL...]: check the run, and that each TOOL counted every call once.
run() {
    name=$1 preload=$2; shift 2
    mkdir -p "$tmp/$name"
    # mcoll's lines to one file per process (mpirun may cut the ranks' stderr lines into each other)
    "$MPIRUN" -np 2 --oversubscribe -x LD_PRELOAD="$preload" -x MCOLL_DEBUG=TRACE -x MCOLL_DEBUG_SUBSYS=INIT,PMPI \
        -x "MCOLL_DEBUG_FILE=$tmp/$name/%p" "$PROG" $N > "$tmp/$name.out" 2> "$tmp/$name.err" ||
        { bad "$name: the program failed"; tail -n 15 "$tmp/$name.err"; return; }
    cat "$tmp/$name"/* > "$tmp/$name.log"
    grep -q "^allreduce_loop: $((N + 1)) of $((N + 1)) calls on 2 ranks gave the right result" "$tmp/$name.out" ||
        bad "$name: wrong results"
    [ "$(grep -c 'PMPI plug-in active' "$tmp/$name.log")" -eq 2 ] || bad "$name: mcoll did not start on each rank"
    seen=$(grep -c "mcoll [A-Z]* pmpi_run.c:[0-9]* allreduce [0-9]* B MPI_INT" "$tmp/$name.log")
    [ "$seen" -eq $((2 * (N + 1))) ] || bad "$name: mcoll saw $seen calls, not $((2 * (N + 1)))"
    for tool; do
        [ "$(grep -c "^$tool: rank [01]: MPI_Init 1 MPI_Allreduce $N MPI_Iallreduce 1\$" "$tmp/$name.err")" -eq 2 ] ||
            { bad "$name: $tool did not count every call once"; grep "^$tool:" "$tmp/$name.err"; }
    done
}

run alone "$LIB"
run before "$BEFORE:$LIB" count_before
run after "$LIB:$AFTER" count_after
run both "$BEFORE:$LIB:$AFTER" count_before count_after

[ $fail -eq 0 ] && echo "pmpi chain: tools in front of mcoll and behind it see every call once, and so does mcoll"
exit $fail
