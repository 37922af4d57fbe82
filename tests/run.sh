#!/bin/sh
# Runs every CPU test and ends with "N passed, N failed, N skipped".
#   test_*          one process
#   mpi_*           under mpirun -np ${MCOLL_TEST_NP:-4} --oversubscribe
#   test_*.sh       scripts (BUILD, SRCDIR, MPIRUN in the environment)
# A test skips by exiting 77 after printing one line that says why.
# Environment: BUILD (build dir), SRCDIR (source dir), MPIRUN, TESTS (optional name filter).
set -u
BUILD=${BUILD:-$(pwd)/build}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
TIMEOUT=${MCOLL_TEST_TIMEOUT:-600}
LOGS=$BUILD/tests/logs
mkdir -p "$LOGS"
export BUILD SRCDIR MPIRUN
# Open MPI refuses root without these; CI runs as root. Keep runs local and quiet.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
passed=0 failed=0 skipped=0 failed_names=

run_one() { # name, command...
    name=$1; shift
    case "$name" in *${TESTS:-}*) ;; *) return ;; esac
    log=$LOGS/$(echo "$name" | tr '/' '_').log
    timeout "$TIMEOUT" "$@" > "$log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1)); echo "PASS $name"
    elif [ $rc -eq 77 ]; then
        skipped=$((skipped + 1)); echo "SKIP $name: $(grep -i -m1 'skip' "$log" || tail -n 1 "$log")"
    else
        failed=$((failed + 1)); failed_names="$failed_names $name"
        echo "FAIL $name (exit $rc; log $log)"
        tail -n 25 "$log" | sed 's/^/    /'
    fi
}

for dir in unit contract mpi; do
    for prog in "$BUILD"/tests/$dir/test_* "$BUILD"/tests/$dir/mpi_*; do
        [ -x "$prog" ] && [ -f "$prog" ] || continue
        case "$prog" in *.o|*.d) continue ;; esac
        name=$dir/$(basename "$prog")
        case "$(basename "$prog")" in
            mpi_*) run_one "$name" "$MPIRUN" -np "$NP" --oversubscribe "$prog" ;;
            *) run_one "$name" "$prog" ;;
        esac
    done
done

for script in "$SRCDIR"/tests/*/test_*.sh; do
    [ -f "$script" ] || continue
    run_one "$(basename "$(dirname "$script")")/$(basename "$script" .sh)" sh "$script"
done

echo
[ -z "$failed_names" ] || echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
