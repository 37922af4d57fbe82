#!/bin/sh
# The benchmarks' command lines and CPU paths, without a GPU:
#   - every mcoll_osu_* program prints its usage with -h and refuses an unknown option;
#   - with host buffers under mpirun, each prints the OSU header and a Pass row per size
#     (allreduce as the issue states it; the others with -f, -T and -l as well);
#   - -d cuda and mcoll-bench, with every GPU hidden, print why and exit 77;
#   - mcoll-bench -h prints its usage and a bad option exits 2.
# Environment: BUILD (build directory), SRCDIR, MPIRUN. Exit 0 pass, 1 fail, 77 skip.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
BIN=$BUILD/bin
NP=2
failures=0
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_bench_cli.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

for p in mcoll_osu_allreduce mcoll_osu_bcast mcoll_osu_reduce mcoll_osu_reduce_scatter \
         mcoll_osu_allgather mcoll-bench; do
    if [ ! -x "$BIN/$p" ]; then
        echo "skip: $BIN/$p is not built (make benchmarks)"
        exit 77
    fi
done
if ! command -v "$MPIRUN" >/dev/null 2>&1; then
    echo "skip: $MPIRUN not found"
    exit 77
fi

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_status WANT NAME COMMAND...: run it, output in $tmp/out
expect_status() {
    want=$1 name=$2
    shift 2
    "$@" > "$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit status $got, want $want"
        sed 's/^/    /' "$tmp/out" | tail -n 20
        return 1
    fi
    return 0
}

expect_text() { # NAME TEXT: a line of $tmp/out contains TEXT
    if ! grep -F -e "$2" "$tmp/out" >/dev/null; then
        fail "$1: no '$2' in the output"
        sed 's/^/    /' "$tmp/out" | tail -n 20
    fi
}

# Rows "SIZE  AVG ... Pass": exactly WANT of them, and no Fail.
expect_pass_rows() { # NAME WANT
    rows=$(grep -c -E '^[0-9]+ +[0-9]+\.[0-9]+ .*Pass$' "$tmp/out")
    if [ "$rows" -ne "$2" ] || grep -q 'Fail' "$tmp/out"; then
        fail "$1: $rows Pass rows, want $2 and no Fail"
        sed 's/^/    /' "$tmp/out" | tail -n 20
    fi
}

# --- usage and option errors (no MPI needed) ---------------------------------------------------
for p in allreduce bcast reduce reduce_scatter allgather; do
    if expect_status 0 "mcoll_osu_$p -h" "$BIN/mcoll_osu_$p" -h; then
        expect_text "mcoll_osu_$p -h" "Usage:"
        expect_text "mcoll_osu_$p -h" "-m, --message-size"
    fi
    expect_status 2 "mcoll_osu_$p --no-such-option" "$BIN/mcoll_osu_$p" --no-such-option
done
expect_status 2 "mcoll_osu_bcast -l" "$BIN/mcoll_osu_bcast" -l -d host
expect_status 2 "mcoll_osu_allreduce -T bad" "$BIN/mcoll_osu_allreduce" -T mpi_nothing -d host
if expect_status 0 "mcoll-bench -h" "$BIN/mcoll-bench" -h; then
    expect_text "mcoll-bench -h" "Usage:"
    expect_text "mcoll-bench -h" "--quick"
fi
expect_status 2 "mcoll-bench -c nothing" "$BIN/mcoll-bench" -c nothing
expect_status 2 "mcoll-bench -b 2G -e 1G" "$BIN/mcoll-bench" -b 2G -e 1G

# --- OSU programs on host buffers ----------------------------------------------------------------
run="$MPIRUN -np $NP --oversubscribe"
if expect_status 0 "mcoll_osu_allreduce -d host" $run "$BIN/mcoll_osu_allreduce" -d host -m 8:64 -i 5 -c; then
    expect_text "mcoll_osu_allreduce -d host" "# OSU MPI Allreduce Latency Test"
    expect_text "mcoll_osu_allreduce -d host" "# Datatype: MPI_FLOAT."
    expect_text "mcoll_osu_allreduce -d host" "Avg Latency(us)"
    expect_text "mcoll_osu_allreduce -d host" "Validation"
    expect_pass_rows "mcoll_osu_allreduce -d host" 4
fi
# 1..256 bytes of int: 7 sizes hold an element (4..256); reduce_scatter needs one per rank
# (2 ranks: 8..256, 6 sizes).
for case in "bcast Broadcast 7" "reduce Reduce 7 -l" "reduce_scatter Reduce_scatter 6 -l" \
            "allgather Allgather 7 -l" "allreduce Allreduce 7 -l"; do
    set -- $case
    p=$1 title=$2 rows=$3
    shift 3
    name="mcoll_osu_$p -f -T mpi_int $*"
    if expect_status 0 "$name" $run "$BIN/mcoll_osu_$p" -d host -m 1:256 -i 3 -x 1 -f -c -T mpi_int "$@"; then
        expect_text "$name" "# OSU MPI $title Latency Test"
        expect_text "$name" "Min Latency(us)"
        expect_text "$name" "Iterations"
        expect_pass_rows "$name" "$rows"
    fi
done
if expect_status 0 "mcoll_osu_allgather -T double" $run "$BIN/mcoll_osu_allgather" -d host -m 8:1K -i 3 -c -T double; then
    expect_pass_rows "mcoll_osu_allgather -T double" 8
fi

# --- no GPU: a clear message and exit 77 ---------------------------------------------------------
# An empty CUDA_VISIBLE_DEVICES hides every GPU, so this holds on GPU machines too.
CUDA_VISIBLE_DEVICES=
export CUDA_VISIBLE_DEVICES
if expect_status 77 "mcoll_osu_allreduce -d cuda, no GPU" $run -x CUDA_VISIBLE_DEVICES "$BIN/mcoll_osu_allreduce" -d cuda -m 8:64; then
    expect_text "mcoll_osu_allreduce -d cuda, no GPU" "nothing to measure"
fi
if expect_status 77 "mcoll-bench, no GPU" $run -x CUDA_VISIBLE_DEVICES "$BIN/mcoll-bench" -o "$tmp/results"; then
    expect_text "mcoll-bench, no GPU" "nothing to measure"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all benchmark command-line checks passed"
exit 0
