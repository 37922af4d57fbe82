#!/bin/sh
# Mutation run (`make mutation`, not part of `make check`): applies each mistake listed in
# tests/contract/mutations.txt to the source tree, one at a time, rebuilds the library and the
# team contract tests (and the plug-in's zero-copy test), and runs those tests until one fails.
# A mistake no test catches is a gap in the contract model or its tests. The source file is restored after each mistake (also on
# interrupt) and touched, so the next build recompiles it. Results go to
# tests/contract/mutation-results.txt (MUTATION_RESULTS= elsewhere); exit 1 when any was missed.
# Environment: BUILD (build dir), SRCDIR (source dir), MPIRUN, MCOLL_TEST_NP (4), MUTATION_TIMEOUT
# (seconds per test run, 90).
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
LIMIT=${MUTATION_TIMEOUT:-90}
LIST=$SRCDIR/tests/contract/mutations.txt
RESULTS=${MUTATION_RESULTS:-$SRCDIR/tests/contract/mutation-results.txt}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
export MCOLL_CONTRACT_QUIET=1
# The tests most likely to catch a mistake first.
TESTS="mpi_team_kernel_view mpi_team_success mpi_team_alias mpi_team_faults mpi_team_shared_gpu mpi_team_span
       mpi_team_killswitch mpi_team_killswitch_mcoll mpi_team_killswitch_wins mpi_zero_copy"

tmp=$(mktemp -d)
saved=
restore() {
    if [ -n "$saved" ]; then
        cp "$tmp/original" "$SRCDIR/$saved" && touch "$SRCDIR/$saved"
        saved=
    fi
}
trap 'restore; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# mutate N FILE: FILE with the edits of record N of the list, on stdout; exit 2 when a "-" text
# does not occur exactly once.
mutate() {
    awk -v want="$1" '
        FNR == NR {
            if ($0 ~ /^@ /) n++
            else if (n == want && $0 ~ /^- /) from[++pairs] = substr($0, 3)
            else if (n == want && $0 ~ /^\+/) to[pairs] = substr($0, 3)
            next
        }
        { text = text $0 "\n" }
        END {
            for (p = 1; p <= pairs; p++) {
                at = index(text, from[p])
                if (at == 0 || index(substr(text, at + 1), from[p]) != 0) {
                    print "not exactly once: " from[p] > "/dev/stderr"; exit 2
                }
                text = substr(text, 1, at - 1) to[p] substr(text, at + length(from[p]))
            }
            printf "%s", text
        }' "$LIST" "$2"
}

field() { # N PREFIX: the first line of record N that starts with PREFIX, without it
    awk -v want="$1" -v prefix="$2" '
        /^@ / { n++ }
        n == want && index($0, prefix) == 1 { print substr($0, length(prefix) + 1); exit }' "$LIST"
}

programs=
rel=${BUILD#"$SRCDIR"/}  # make names its targets relative to the source tree
for t in $TESTS; do programs="$programs $rel/tests/contract/$t"; done
count=$(grep -c '^@ ' "$LIST")
caught=0 missed=0 broken=0
{
    echo "# make mutation: tests/contract/mutations.txt against the team contract tests"
    echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git -C "$SRCDIR" rev-parse --short HEAD 2>/dev/null || echo '?'), np=$NP"
} > "$tmp/results"

n=1
while [ "$n" -le "$count" ]; do
    what=$(field "$n" '@ ')
    file=$(field "$n" '< ')
    verdict=
    cp "$SRCDIR/$file" "$tmp/original"
    if ! mutate "$n" "$SRCDIR/$file" > "$tmp/mutated" 2> "$tmp/why"; then
        verdict="NOT APPLIED ($(cat "$tmp/why"))"
        broken=$((broken + 1))
    else
        saved=$file
        cp "$tmp/mutated" "$SRCDIR/$file"
        if ! make -C "$SRCDIR" -j2 $programs > "$tmp/build.log" 2>&1; then
            verdict="DOES NOT BUILD"
            broken=$((broken + 1))
        else
            for t in $TESTS; do
                if ! timeout "$LIMIT" "$MPIRUN" -np "$NP" --oversubscribe "$BUILD/tests/contract/$t" \
                     > "$tmp/test.log" 2>&1; then
                    reason=$(grep -m 1 -E 'violation|check failed|FAIL' "$tmp/test.log" | sed "s|$SRCDIR/||g" | cut -c1-140)
                    verdict="caught by $t${reason:+: $reason}"
                    break
                fi
            done
            if [ -z "$verdict" ]; then verdict=MISSED; missed=$((missed + 1)); else caught=$((caught + 1)); fi
        fi
        restore
    fi
    printf '%2d %-60s %s\n' "$n" "$what ($file)" "$verdict" | tee -a "$tmp/results"
    n=$((n + 1))
done
echo "$caught caught, $missed missed, $broken not applied or not building, of $count" | tee -a "$tmp/results"
cp "$tmp/results" "$RESULTS"
# Leave the build as the sources are.
make -C "$SRCDIR" -j2 $programs > /dev/null 2>&1
[ "$missed" -eq 0 ] && [ "$broken" -eq 0 ]
