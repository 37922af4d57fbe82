#!/bin/sh
# A rank that dies while its peers hold a team with it (tests/contract/dead_peer.c, contract
# driver, `mpirun --enable-recovery` so the survivors keep running as some launchers do):
#   taken    the survivors' next native call fails with MCOLL_ERR_ABORTED, their next MPI call on
#            device buffers of zero-copy size with MPI_ERR_OTHER (not waiting in the exchange of
#            the buffers' descriptions), and they leave cleanly, each having logged one line
#            naming the dead rank per team (the native communicator's and the plug-in's);
#            MCOLL_NVLS=0, since the plug-in maps the peers' buffers on the unicast engine only;
#   blocked  survivors stuck in an MPI call with the dead rank are ended by the watchdog's
#            MPI_Abort within its bound (a 0.5 s look, 5 s of grace);
#   create   the last rank is killed inside team creation (its first cuMemCreate): the others,
#            left in the rest of team creation, are ended the same way within the same bound;
#   staged   (MCOLL_ENGINE=staged, plain mpirun) the last rank dies during a staged call: the
#            launcher ends the job within 30 s, naming the rank.
# Environment (set by tests/run.sh): BUILD, MPIRUN. Exit: 0 passed, 1 failed, 77 skipped.
set -u
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
PROG=$BUILD/tests/contract/dead_peer
LOGS=$BUILD/tests/logs
NP=3
[ -x "$PROG" ] || { echo "skip: $PROG is not built"; exit 77; }
command -v "$MPIRUN" > /dev/null 2>&1 || { echo "skip: no $MPIRUN"; exit 77; }
mkdir -p "$LOGS"
status=0

log=$LOGS/contract_test_dead_peer.taken.log
# mpirun --enable-recovery sometimes tears the whole job down anyway when a rank dies by a
# signal (then no survivor prints anything, which says nothing about mcoll): one more try.
for attempt in 1 2; do
    MCOLL_NVLS=0 timeout 60 "$MPIRUN" -np $NP --oversubscribe --enable-recovery -x MCOLL_NVLS "$PROG" taken > "$log" 2>&1
    grep -q '^survivor ' "$log" && break
    [ $attempt = 1 ] && echo "note: taken: no survivor ran on (mpirun ended the job); trying once more"
done
if grep -q -i -E 'unrecognized|unknown option' "$log"; then
    echo "skip: $MPIRUN does not take --enable-recovery (survivors cannot outlive a dead rank)"
    exit 77
fi
survivors=$(grep -c '^survivor [0-9]*: ok$' "$log")
named=$(grep -c "local rank $((NP - 1)) (pid [0-9]*) of this communicator's team has exited" "$log")
if [ "$survivors" -eq $((NP - 1)) ] && [ "$named" -eq $((2 * (NP - 1))) ]; then
    echo "PASS taken: $survivors survivors got MCOLL_ERR_ABORTED and MPI_ERR_OTHER and left; each named the dead rank for both teams"
else
    echo "FAIL taken: $survivors of $((NP - 1)) survivors ok, $named lines naming the dead rank (log $log)"
    tail -n 20 "$log" | sed 's/^/    /'
    status=1
fi

# ended MODE WHAT: survivors that cannot take the failure from a call (MODE: blocked in an MPI
# barrier, or create: in the rest of team creation) must be ended by the watchdog's MPI_Abort,
# each having named the dead rank, within the bound (0.5 s look + 5 s grace; 30 s allowed for
# a loaded machine).
ended() {
    mode=$1 what=$2
    log=$LOGS/contract_test_dead_peer.$mode.log
    for attempt in 1 2; do
        start=$(date +%s)
        timeout 60 "$MPIRUN" -np $NP --oversubscribe --enable-recovery "$PROG" "$mode" > "$log" 2>&1
        rc=$?
        took=$(($(date +%s) - start))
        grep -q 'has exited while this rank may wait' "$log" && break
        [ $attempt = 1 ] && echo "note: $mode: the watchdog saw no dead peer (mpirun ended the job first?); trying once more"
    done
    named=$(grep -c "local rank $((NP - 1)) (pid [0-9]*) of this communicator's team has exited" "$log")
    # (mpirun's own MPI_ABORT notice may be lost when the job is torn down: not required.)
    if [ "$rc" -ne 124 ] && [ "$took" -le 30 ] && grep -q 'aborting the job' "$log" && [ "$named" -ge 1 ] &&
       ! grep -q -E 'barrier completed|team creation returned' "$log"; then
        echo "PASS $mode: $what: the watchdog ended the job in $took s (exit $rc); $named lines named the dead rank"
    else
        echo "FAIL $mode: $what: exit $rc after $took s, $named lines naming the dead rank (log $log)"
        tail -n 20 "$log" | sed 's/^/    /'
        status=1
    fi
}

ended blocked "survivors in an MPI barrier with the dead rank"
ended create "the last rank killed inside team creation"

# staged: MCOLL_ENGINE=staged, so no team and no watchdog: survivors wait inside the MPI, and the
# launcher's handling of a rank killed by a signal is the bound (plain mpirun ends the job).
log=$LOGS/contract_test_dead_peer.staged.log
start=$(date +%s)
MCOLL_ENGINE=staged timeout 60 "$MPIRUN" -np $NP --oversubscribe -x MCOLL_ENGINE "$PROG" staged > "$log" 2>&1
rc=$?
took=$(($(date +%s) - start))
if [ $rc -ne 124 ] && [ "$took" -le 30 ] && grep -q "rank $((NP - 1)) .*exited on signal 9" "$log" &&
   ! grep -q 'returned with a dead peer' "$log"; then
    echo "PASS staged: mpirun ended the job $took s after the rank in a staged call died (exit $rc)"
else
    echo "FAIL staged: exit $rc after $took s (log $log)"
    tail -n 20 "$log" | sed 's/^/    /'
    status=1
fi
exit $status
