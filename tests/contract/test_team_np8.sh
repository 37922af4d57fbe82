#!/bin/sh
# The team code at team sizes other than the 4 ranks tests/run.sh uses: mpi_team_success and
# mpi_team_faults under mpirun with 8, 2 and 3 ranks. Each run must pass and report the number
# of ranks it ran with. Environment (set by tests/run.sh): BUILD, SRCDIR, MPIRUN.
# Exit: 0 all passed, 1 a run failed, 77 the programs or mpirun are missing.
set -u
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
DIR=$BUILD/tests/contract
LOGS=$BUILD/tests/logs
PROGRAMS="mpi_team_success mpi_team_faults"

for program in $PROGRAMS; do
    if [ ! -x "$DIR/$program" ]; then
        echo "skip: $DIR/$program is not built"
        exit 77
    fi
done
if ! command -v "$MPIRUN" > /dev/null 2>&1; then
    echo "skip: no $MPIRUN"
    exit 77
fi
mkdir -p "$LOGS"

status=0
for np in 8 2 3; do
    for program in $PROGRAMS; do
        log=$LOGS/contract_test_team_np8.$program.np$np.log
        "$MPIRUN" -np "$np" --oversubscribe "$DIR/$program" > "$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q "^$program: np=$np, [0-9]* cases, 0 failed" "$log"; then
            echo "PASS $program -np $np: $(grep "^$program: np=" "$log")"
        else
            echo "FAIL $program -np $np (exit $rc; log $log)"
            grep -a -E "^FAIL|check failed" "$log" | head -n 20 | sed 's/^/    /'
            tail -n 10 "$log" | sed 's/^/    /'
            status=1
        fi
    done
done
exit $status
