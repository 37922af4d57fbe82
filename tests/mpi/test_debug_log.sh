#!/bin/sh
# MCOLL_DEBUG_SUBSYS and MCOLL_DEBUG_FILE on a host-only MPI program run through the plug-in
# (tests/mpi/plain/host_program with LD_PRELOAD=libmcoll.so, 2 ranks, MCOLL_DEBUG=INFO):
#   - INIT keeps the start and finalize lines and drops the per-call PMPI lines, PMPI the
#     reverse, ^PMPI is INIT here; a warning (a bad setting) is printed whatever the subsystems;
#     a bad MCOLL_DEBUG_SUBSYS is warned about and everything printed;
#   - MCOLL_DEBUG_FILE=DIR/log.%h.%p: one file per rank, named with its host and pid, holding
#     that process's lines and nothing left on stderr; a file that cannot be opened: one warning
#     per process and the lines on stderr;
#   - 1000 allreduces (tests/mpi/plain/allreduce_loop) log one INFO decision line per rank at
#     INFO, and 1000 per rank (the first at INFO) at TRACE.
# The program's own output is the same in every run.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
PROG=$BUILD/tests/mpi/plain/host_program
LIB=$BUILD/lib/libmcoll.so
[ -x "$PROG" ] && [ -f "$LIB" ] || { echo "skip: $PROG or $LIB not built"; exit 77; }
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_debug_log.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# run NAME VAR=VALUE...: the program under mpirun -np 2 with the plug-in preloaded at INFO;
# stdout in $tmp/NAME.out, stderr in $tmp/NAME.err.
run() {
    name=$1; shift
    xs=
    for kv; do xs="$xs -x $kv"; done
    # shellcheck disable=SC2086
    "$MPIRUN" -np 2 --oversubscribe -x LD_PRELOAD="$LIB" -x MCOLL_DEBUG=INFO $xs "$PROG" \
        > "$tmp/$name.out" 2> "$tmp/$name.err" || { bad "$name: the program failed"; tail -n 10 "$tmp/$name.err"; }
    cmp -s "$tmp/$name.out" "$tmp/all.out" 2>/dev/null || [ "$name" = all ] || bad "$name: the program's output differs"
}
count() { grep -c "$1" "$2"; }
init_line='mcoll INFO pmpi_init.c:[0-9]* PMPI plug-in active'
pmpi_line='mcoll INFO pmpi_run.c:[0-9]* allreduce '

run all
[ "$(count "$init_line" "$tmp/all.err")" -eq 2 ] || bad "default: no start line on each rank"
[ "$(count "$pmpi_line" "$tmp/all.err")" -ge 2 ] || bad "default: no allreduce lines"

run init MCOLL_DEBUG_SUBSYS=INIT
[ "$(count "$init_line" "$tmp/init.err")" -eq 2 ] || bad "INIT: the start lines are missing"
grep -q "finalized" "$tmp/init.err" || bad "INIT: the finalize lines are missing"
grep -q "mcoll INFO pmpi_run.c\|mcoll INFO pmpi_barrier.c" "$tmp/init.err" && bad "INIT: per-call PMPI lines printed"

run pmpi MCOLL_DEBUG_SUBSYS=PMPI
[ "$(count "$pmpi_line" "$tmp/pmpi.err")" -eq "$(count "$pmpi_line" "$tmp/all.err")" ] || bad "PMPI: allreduce lines missing"
grep -q "mcoll INFO pmpi_barrier.c" "$tmp/pmpi.err" || bad "PMPI: the barrier lines are missing"
grep -q "mcoll INFO pmpi_init.c\|mcoll INFO driver.c" "$tmp/pmpi.err" && bad "PMPI: INIT lines printed"

run notpmpi 'MCOLL_DEBUG_SUBSYS=^PMPI' MCOLL_STAGE_CHUNK=bogus
[ "$(count "$init_line" "$tmp/notpmpi.err")" -eq 2 ] || bad "^PMPI: the start lines are missing"
grep -q "mcoll INFO pmpi_run.c" "$tmp/notpmpi.err" && bad "^PMPI: PMPI lines printed"
[ "$(count "mcoll WARN config.c:[0-9]* MCOLL_STAGE_CHUNK=bogus is not valid" "$tmp/notpmpi.err")" -eq 2 ] ||
    bad "^PMPI: the warning about a bad setting was filtered"

run badsubsys MCOLL_DEBUG_SUBSYS=INIT,NETWORK
[ "$(count "MCOLL_DEBUG_SUBSYS=INIT,NETWORK is not valid" "$tmp/badsubsys.err")" -eq 2 ] || bad "a bad MCOLL_DEBUG_SUBSYS is not warned about"
[ "$(count "$pmpi_line" "$tmp/badsubsys.err")" -ge 2 ] || bad "a bad MCOLL_DEBUG_SUBSYS does not fall back to ALL"

mkdir -p "$tmp/logs"
run file "MCOLL_DEBUG_FILE=$tmp/logs/log.%h.%p"
grep -q "mcoll " "$tmp/file.err" && bad "MCOLL_DEBUG_FILE: lines still on stderr: $(grep -m1 'mcoll ' "$tmp/file.err")"
nfiles=$(ls "$tmp/logs" | wc -l)
[ "$nfiles" -eq 2 ] || bad "MCOLL_DEBUG_FILE: $nfiles files, not one per rank"
for f in "$tmp"/logs/log.*; do
    [ -f "$f" ] || continue
    host=$(head -n 1 "$f" | cut -d: -f1)
    pid=$(head -n 1 "$f" | cut -d: -f2)
    [ "$(basename "$f")" = "log.$host.$pid" ] || bad "MCOLL_DEBUG_FILE: $(basename "$f") holds lines of $host:$pid"
    [ "$(cut -d: -f2 "$f" | sort -u)" = "$pid" ] || bad "MCOLL_DEBUG_FILE: $(basename "$f") holds several processes' lines"
    [ "$(count "$init_line" "$f")" -eq 1 ] || bad "MCOLL_DEBUG_FILE: $(basename "$f") lacks its start line"
    grep -q "$pmpi_line" "$f" || bad "MCOLL_DEBUG_FILE: $(basename "$f") lacks the PMPI lines"
done

run nofile "MCOLL_DEBUG_FILE=$tmp/missing/log.%p"
[ "$(count "mcoll WARN log.c:[0-9]* cannot open MCOLL_DEBUG_FILE $tmp/missing/log\.[0-9]*" "$tmp/nofile.err")" -eq 2 ] ||
    bad "unwritable MCOLL_DEBUG_FILE: not one warning per process"
[ "$(count "$init_line" "$tmp/nofile.err")" -eq 2 ] || bad "unwritable MCOLL_DEBUG_FILE: the lines are not on stderr"

# INFO says each distinct decision once per communicator, TRACE every call: 1000 allreduces
# (tests/mpi/plain/allreduce_loop, which adds one iallreduce, a decision of its own). The lines
# go to one file per process: mpirun may cut lines of two ranks' stderr into each other.
LOOP=$BUILD/tests/mpi/plain/allreduce_loop
decision='pmpi_run.c:[0-9]* allreduce 4 B MPI_INT MPI_SUM: mpi (host buffers)'
for level in INFO TRACE; do
    mkdir -p "$tmp/loop$level"
    "$MPIRUN" -np 2 --oversubscribe -x LD_PRELOAD="$LIB" -x MCOLL_DEBUG=$level -x "MCOLL_DEBUG_FILE=$tmp/loop$level/%p" \
        "$LOOP" 1000 > "$tmp/loop.out" 2> "$tmp/loop.err" || bad "allreduce_loop at $level failed"
    cat "$tmp/loop$level"/* > "$tmp/loop.$level.err"
done
[ "$(count "mcoll INFO $decision" "$tmp/loop.INFO.err")" -eq 2 ] ||
    bad "INFO: $(count "mcoll INFO $decision" "$tmp/loop.INFO.err") lines for 1000 allreduces on 2 ranks, not one per rank"
[ "$(count "mcoll INFO pmpi_run.c:[0-9]* allreduce 4 B MPI_INT MPI_MAX: mpi" "$tmp/loop.INFO.err")" -eq 2 ] ||
    bad "INFO: the iallreduce's decision is not reported on each rank"
[ "$(count "mcoll TRACE " "$tmp/loop.INFO.err")" -eq 0 ] || bad "INFO: TRACE lines printed"
[ "$(count "mcoll INFO $decision" "$tmp/loop.TRACE.err")" -eq 2 ] || bad "TRACE: the first decision is not at INFO"
[ "$(count "mcoll \(INFO\|TRACE\) $decision" "$tmp/loop.TRACE.err")" -eq 2000 ] ||
    bad "TRACE: $(count "mcoll \(INFO\|TRACE\) $decision" "$tmp/loop.TRACE.err") decision lines, not 1000 per rank"

[ $fail -eq 0 ] && echo "debug log: subsystems filter, files per process, fallback to stderr, INFO once per decision"
exit $fail
