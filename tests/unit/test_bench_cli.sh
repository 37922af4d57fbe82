#!/bin/sh
# The benchmarks' command lines and CPU paths, without a GPU:
#   - the OSU look-alikes (mcoll_osu_*) take OSU 7.4's options: --dry-run shows the defaults
#     and the header (title with v7.4, the look-alike line, "# Datatype: MPI_CHAR.", the column
#     line); options that do not apply are accepted and said once on stderr; wrong ones exit 2;
#   - the non-blocking ones (mcoll_osu_i*) print OSU's overlap header and columns, use -t and
#     refuse -k rotate;
#   - with host buffers under mpirun, each prints a Pass row per size (every collective, in
#     place, rotating and fixed roots, several datatypes, tail latencies, the memory limit);
#   - mcoll-bench takes nccl-tests' letters (-b -e -f -i -d -o -r -n -w -c -G -a, -g 1 ...):
#     --dry-run shows nccl-tests' settings line and table header; its own settings are long
#     options, and the letters' earlier meanings are refused with the long option to use; the
#     mcoll-window peer is chosen like the others, and the hbm lines follow MCOLL_ONESHOT_MAX;
#   - benchmarks/plot.py draws the PNGs from a small results.csv where python3 has matplotlib
#     (that part is skipped, saying so, where it has not);
#   - -d cuda, -d managed and mcoll-bench, with every GPU hidden, print why and exit 77.
# Environment: BUILD (build directory), SRCDIR, MPIRUN. Exit 0 pass, 1 fail, 77 skip.
BUILD=${BUILD:-$(pwd)/build}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
MPIRUN=${MPIRUN:-mpirun}
BIN=$BUILD/bin
NP=2
OSU="allreduce bcast reduce reduce_scatter reduce_scatter_block allgather"
OSU_NBC="iallreduce ibcast ireduce iallgather ireduce_scatter"
failures=0
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_bench_cli.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

for p in $(for o in $OSU $OSU_NBC; do echo "mcoll_osu_$o"; done) mcoll-bench; do
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

show() { sed 's/^/    /' "$tmp/out" | tail -n 20; }

# expect_status WANT NAME COMMAND...: run it, output (stdout and stderr) in $tmp/out
expect_status() {
    want=$1 name=$2
    shift 2
    "$@" > "$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit status $got, want $want"
        show
        return 1
    fi
    return 0
}

expect_text() { # NAME TEXT: a line of $tmp/out contains TEXT
    grep -F -e "$2" "$tmp/out" >/dev/null || { fail "$1: no '$2' in the output"; show; }
}

expect_line() { # NAME LINE: a line of $tmp/out is exactly LINE
    grep -x -F -e "$2" "$tmp/out" >/dev/null || { fail "$1: no line '$2' in the output"; show; }
}

expect_count() { # NAME WANT TEXT: exactly WANT lines of $tmp/out contain TEXT
    got=$(grep -c -F -e "$3" "$tmp/out")
    [ "$got" -eq "$2" ] || { fail "$1: $got lines with '$3', want $2"; show; }
}

# Rows "SIZE  AVG ... Pass ...": exactly WANT of them, and no Fail.
expect_pass_rows() { # NAME WANT
    rows=$(grep -c -E '^[0-9]+ +[0-9]+\.[0-9]+ .*Pass( |$)' "$tmp/out")
    if [ "$rows" -ne "$2" ] || grep -q 'Fail' "$tmp/out"; then
        fail "$1: $rows Pass rows, want $2 and no Fail"
        show
    fi
}

# --- OSU look-alikes: usage, defaults and header (no MPI, no GPU) --------------------------------
title_of() {
    case $1 in
        allreduce) echo Allreduce ;;
        bcast) echo Broadcast ;;
        reduce) echo Reduce ;;
        reduce_scatter) echo Reduce_scatter ;;
        reduce_scatter_block) echo Reduce_scatter_block ;;
        allgather) echo Allgather ;;
    esac
}
call_of() {
    case $1 in bcast) echo MPI_Bcast ;; *) echo "MPI_$(title_of "$1")" ;; esac
}
for p in $OSU; do
    prog=$BIN/mcoll_osu_$p title=$(title_of "$p") name="mcoll_osu_$p"
    if expect_status 0 "$name -h" "$prog" -h; then
        expect_text "$name -h" "Usage:"
        expect_text "$name -h" "-m, --message-size"
        expect_text "$name -h" "osu_$p"
    fi
    expect_status 2 "$name --no-such-option" "$prog" --no-such-option
    # OSU 7.4's defaults: host buffers, MPI_CHAR, 1 B..1 MiB, 1000/100 calls after 100/10.
    if expect_status 0 "$name --dry-run" "$prog" --dry-run; then
        expect_line "$name --dry-run" "# OSU MPI $title Latency Test v7.4"
        expect_line "$name --dry-run" "# mcoll look-alike of OSU 7.4's osu_$p: $(call_of "$p") through libmcoll, host buffers"
        expect_line "$name --dry-run" "# Datatype: MPI_CHAR."
        expect_line "$name --dry-run" "# Size         Avg Latency(us)"
        expect_line "$name --dry-run" "#   sizes            1 .. 1048576 bytes, doubling (memory limit 536870912 bytes)"
        expect_line "$name --dry-run" "#   iterations       1000 (100 above 8192 bytes)"
        expect_line "$name --dry-run" "#   warm-up          100 (10 above 8192 bytes)"
        expect_line "$name --dry-run" "#   validation       off"
    fi
    if expect_status 0 "$name -d cuda --dry-run" "$prog" -d cuda --dry-run; then
        expect_line "$name -d cuda --dry-run" "# OSU MPI-CUDA $title Latency Test v7.4"
    fi
done
# Every OSU 7.4 collective option in one command line, short and long forms.
name="mcoll_osu_allreduce with OSU 7.4's options"
if expect_status 0 "$name" "$BIN/mcoll_osu_allreduce" -d managed -m 8:1K -i 10 -x 2 -f -c -u 3 -M 1G \
        -T mpi_int -l -z -G tty -a 32 -b single -t 100 -I -k 0 --iterations=20 --warmup 3 --dry-run; then
    expect_line "$name" "# OSU MPI Allreduce Latency Test v7.4"
    expect_text "$name" "MPI_Allreduce through libmcoll, managed buffers"
    expect_line "$name" "#   sizes            8 .. 1024 bytes, doubling (memory limit 1073741824 bytes)"
    expect_line "$name" "#   iterations       20 (20 above 8192 bytes)"
    expect_line "$name" "#   warm-up          3 (3 above 8192 bytes)"
    expect_line "$name" "#   validation       on, 3 untimed calls before each checked one"
    expect_line "$name" "#   in place         on"
    expect_line "$name" "# Datatype: MPI_INT."
    expect_line "$name" "# Size         Avg Latency(us)     Min Latency(us)     Max Latency(us)  Iterations          Validation    P50 Tail Lat(us)    P90 Tail Lat(us)    P99 Tail Lat(us)"
    for o in -G -a -b -t -I -k; do expect_count "$name" 1 "ignored: $o"; done
fi
name="mcoll_osu_bcast -T all -z50,99 -k rotate"
if expect_status 0 "$name" "$BIN/mcoll_osu_bcast" -T all -z50,99 -k rotate --dry-run; then
    [ "$(grep '^# Datatype' "$tmp/out" | tr '\n' ' ')" = "# Datatype: MPI_CHAR. # Datatype: MPI_INT. # Datatype: MPI_FLOAT. " ] ||
        { fail "$name: -T all is not MPI_CHAR, MPI_INT, MPI_FLOAT in that order"; show; }
    expect_line "$name" "# Size         Avg Latency(us)    P50 Tail Lat(us)    P99 Tail Lat(us)"
    expect_line "$name" "#   root             rotate"
fi
if expect_status 0 "mcoll_osu_reduce -k fixed:2" "$BIN/mcoll_osu_reduce" -k fixed:2 --dry-run; then
    expect_line "mcoll_osu_reduce -k fixed:2" "#   root             2"
fi
if expect_status 0 "mcoll_osu_reduce -v" "$BIN/mcoll_osu_reduce" -d cuda -v; then
    expect_line "mcoll_osu_reduce -v" "# OSU MPI-CUDA Reduce Latency Test v7.4"
fi
expect_status 2 "mcoll_osu_bcast -l" "$BIN/mcoll_osu_bcast" -l
expect_status 2 "mcoll_osu_allreduce -T mpi_nothing" "$BIN/mcoll_osu_allreduce" -T mpi_nothing
expect_status 2 "mcoll_osu_allreduce -u 11" "$BIN/mcoll_osu_allreduce" -u 11
expect_status 2 "mcoll_osu_allreduce -d rocm" "$BIN/mcoll_osu_allreduce" -d rocm
expect_status 2 "mcoll_osu_allreduce -m 0" "$BIN/mcoll_osu_allreduce" -m 0
expect_status 2 "mcoll_osu_allreduce -m 64:8" "$BIN/mcoll_osu_allreduce" -m 64:8
expect_status 2 "mcoll_osu_allreduce -G svg" "$BIN/mcoll_osu_allreduce" -G svg
expect_status 2 "mcoll_osu_allreduce -z101" "$BIN/mcoll_osu_allreduce" -z101
expect_status 2 "mcoll_osu_allreduce -k later" "$BIN/mcoll_osu_reduce" -k later
if expect_status 2 "mcoll_osu_bcast -D cont" "$BIN/mcoll_osu_bcast" -D cont; then
    expect_text "mcoll_osu_bcast -D cont" "not supported: derived datatypes"
fi
expect_status 2 "mcoll_osu_allreduce with a word" "$BIN/mcoll_osu_allreduce" -f extra

# --- mcoll-bench: nccl-tests' options, its own, the header (no MPI, no GPU) -----------------------
MB=$BIN/mcoll-bench
COLUMNS_LINE="#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong  peer              vs NCCL  vs staged  path         hbm   hbmbw"
if expect_status 0 "mcoll-bench -h" "$MB" -h; then
    for t in "Usage:" "-b, --minbytes" "-o, --op" "-r, --root" "-c, --check" "-G, --cudagraph" \
             "--collectives" "--peers" "--reps" "--batch-time" "--output" "--place" "--quick" "--dry-run" \
             "mcoll-window"; do
        expect_text "mcoll-bench -h" "$t"
    done
fi
name="mcoll-bench --dry-run"
if expect_status 0 "$name" "$MB" --dry-run; then
    expect_line "$name" "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 10 iters: 100 agg iters: 1 validation: 1 graph: 1"
    expect_line "$name" "# datatype          float (MPI_FLOAT, nccl-tests float), op sum, root 0"
    expect_line "$name" "# places            out of place, then in place (MPI_IN_PLACE; NCCL: the same buffer)"
    expect_line "$name" "# collectives       allreduce bcast reduce reduce_scatter allgather barrier"
    expect_line "$name" "# peers             mcoll mcoll-window mcoll-graph mcoll-mpi mcoll-persistent nccl nccl-graph staged"
    expect_text "$name" "time = the slowest rank (-a 3)"
    expect_line "$name" "$COLUMNS_LINE"
    expect_line "$name" "#                   mcoll peers on the unicast engine; one-shot up to 256 KiB (MCOLL_ONESHOT_MAX)"
fi
# The zero-copy peer, alone and beside others; the hbm lines read MCOLL_ONESHOT_MAX as mcoll does.
name="mcoll-bench --peers mcoll-window"
if expect_status 0 "$name" "$MB" --peers mcoll-window --dry-run; then
    expect_line "$name" "# peers             mcoll-window"
fi
name="mcoll-bench --peers staged,mcoll-window,mcoll"
if expect_status 0 "$name" "$MB" --peers staged,mcoll-window,mcoll --dry-run; then
    expect_line "$name" "# peers             mcoll mcoll-window staged"
fi
name="MCOLL_ONESHOT_MAX=1M mcoll-bench"
if expect_status 0 "$name" env MCOLL_ONESHOT_MAX=1M "$MB" --dry-run; then
    expect_text "$name" "one-shot up to 1 MiB (MCOLL_ONESHOT_MAX)"
fi
name="MCOLL_ONESHOT_MAX=junk mcoll-bench"
if expect_status 0 "$name" env MCOLL_ONESHOT_MAX=junk "$MB" --dry-run; then
    expect_text "$name" "one-shot up to 256 KiB (MCOLL_ONESHOT_MAX)"
fi
for bad in mcoll-windows window "mcoll,,mcoll-window"; do
    if expect_status 2 "mcoll-bench --peers $bad" "$MB" --peers "$bad" --dry-run; then
        expect_text "mcoll-bench --peers $bad" "invalid peer list"
    fi
done
# nccl-tests' README example, and every nccl-tests letter (the unsupported ones at their defaults).
name="mcoll-bench -b 8 -e 128M -f 2 -g 1"
if expect_status 0 "$name" "$MB" -b 8 -e 128M -f 2 -g 1 --dry-run; then
    expect_text "$name" "# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) "
fi
name="mcoll-bench with nccl-tests' letters"
if expect_status 0 "$name" "$MB" -b 1K -e 1M -i 256K -d int32 -o max -r 1 -n 50 -w 5 -c 3 -G 2 -a 1 -g 1 -t 1 \
        -m 1 -N 1 -z 0 -p 0 -y 0 -T 0 -C 0 -S 0 -R 0 -D 0 -V 16 -M 0 -u 0 -I 0 -K 0 --dry-run; then
    expect_line "$name" "# nThread 1 nGpus 1 minBytes 1024 maxBytes 1048576 step: 262144(bytes) warmup iters: 5 iters: 50 agg iters: 1 validation: 3 graph: 2"
    expect_line "$name" "# datatype          int (MPI_INT, nccl-tests int32), op max, root 1"
    expect_text "$name" "time = the mean over ranks (-a 1)"
    expect_line "$name" "# check             after timing, 3 calls on fresh input, every element: #wrong"
fi
name="mcoll-bench with nccl-tests' long names"
if expect_status 0 "$name" "$MB" --minbytes=1K --maxbytes 4K --stepfactor 4 --datatype double --op min --root 0 \
        --iters 7 --warmup_iters 1 --check 0 --cudagraph 0 --average 2 --dry-run; then
    expect_line "$name" "# nThread 1 nGpus 1 minBytes 1024 maxBytes 4096 step: 4(factor) warmup iters: 1 iters: 7 agg iters: 1 validation: 0 graph: 0"
    expect_line "$name" "# peers             mcoll mcoll-window mcoll-mpi mcoll-persistent nccl staged"
    expect_line "$name" "# check             off (-c 0): #wrong shows N/A"
fi
name="mcoll-bench's own options"
if expect_status 0 "$name" "$MB" --collectives allreduce,bcast --peers mcoll,nccl --place out --reps 7 \
        --batch-time 20 --output "$tmp/out-dir" --nccl-lib libnccl.so --no-plot --quick --dry-run; then
    expect_line "$name" "# nThread 1 nGpus 1 minBytes 8 maxBytes 67108864 step: 4(factor) warmup iters: 2 iters: 20 agg iters: 1 validation: 1 graph: 1"
    expect_line "$name" "# collectives       allreduce bcast"
    expect_line "$name" "# peers             mcoll nccl"
    expect_text "$name" "out of place only (--place out)"
    expect_text "$name" "median of 7 batches"
    expect_text "$name" "about 20 ms"
    expect_line "$name" "# output            $tmp/out-dir"
fi
expect_status 0 "mcoll-bench, earlier long names" "$MB" --min-bytes 1K --max-bytes 2K --step-factor 2 --warmup 1 \
    --batch-ms 5 --dry-run
# The letters' earlier meanings are refused, naming the long option now in charge.
for case in "-t 50|--batch-time" "-p mcoll,nccl|--peers" "-o $tmp/dir|--output" "-c allreduce|--collectives" \
            "-r x|--reps" "-g 2|one GPU per process" "-z 1|not supported" "-J out.json|not supported" \
            "-d half|not supported" "-o prod|not supported" "-d all|one datatype per run" "--place sideways|want out"; do
    args=${case%%|*} text=${case#*|}
    if expect_status 2 "mcoll-bench $args" "$MB" $args --dry-run; then
        expect_text "mcoll-bench $args" "$text"
    fi
done
expect_status 2 "mcoll-bench -f 2 -i 1M" "$MB" -f 2 -i 1M --dry-run
expect_status 2 "mcoll-bench -b 2G -e 1G" "$MB" -b 2G -e 1G
expect_status 2 "mcoll-bench --collectives nothing" "$MB" --collectives nothing

# --- benchmarks/plot.py on a small results.csv ---------------------------------------------------
PLOT=$SRCDIR/benchmarks/plot.py
[ -x "$BIN/mcoll-bench-plot" ] || fail "$BIN/mcoll-bench-plot (benchmarks/plot.py) is not built"
mkdir -p "$tmp/plot"
{
    echo "collective,bytes,peer,time_us_median,time_us_min,time_us_max,algbw_GBps,busbw_GBps,wrong,ranks,count,type,redop,root,in_place"
    for peer in mcoll nccl staged; do
        for b in 8 1024 1048576; do
            echo "allreduce,$b,$peer,10.0,9.0,11.0,1.0,1.5,0,4,$((b / 4)),float,sum,-1,0"
            echo "allreduce,$b,$peer,12.0,9.0,13.0,0.8,1.2,0,4,$((b / 4)),float,sum,-1,1"
            echo "allgather,$b,$peer,20.0,19.0,21.0,0.5,0.4,0,4,$((b / 16)),float,none,-1,0"
        done
    done
} > "$tmp/plot/results.csv"
if ! command -v python3 >/dev/null 2>&1; then
    echo "skip (plot.py part only): python3 is not installed here"
elif ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
    echo "skip (plot.py part only): python3 has no matplotlib here (nothing is installed by this test)"
    if expect_status 1 "plot.py without matplotlib" python3 "$PLOT" "$tmp/plot"; then
        expect_text "plot.py without matplotlib" "matplotlib is not installed"
    fi
else
    if expect_status 0 "plot.py DIR" python3 "$PLOT" "$tmp/plot"; then
        for f in allreduce-latency allreduce-busbw allgather-latency allgather-busbw; do
            head -c 8 "$tmp/plot/$f.png" 2>/dev/null | grep -q PNG || fail "plot.py DIR: no PNG $f.png"
        done
    fi
    # An earlier results.csv (ten columns, no in_place), drawn into another directory.
    cut -d, -f1-10 "$tmp/plot/results.csv" | grep -v ',12.0,' > "$tmp/plot/old.csv"
    mkdir -p "$tmp/plot/old"
    if expect_status 0 "plot.py FILE --out DIR" python3 "$PLOT" "$tmp/plot/old.csv" --out "$tmp/plot/old"; then
        head -c 8 "$tmp/plot/old/allreduce-busbw.png" 2>/dev/null | grep -q PNG ||
            fail "plot.py FILE --out DIR: no PNG allreduce-busbw.png"
    fi
fi
expect_status 2 "plot.py without arguments" python3 "$PLOT"

# --- OSU look-alikes on host buffers -------------------------------------------------------------
run="$MPIRUN -np $NP --oversubscribe"
if expect_status 0 "mcoll_osu_allreduce, defaults" $run "$BIN/mcoll_osu_allreduce" -m 8:64 -i 5 -c; then
    expect_text "mcoll_osu_allreduce, defaults" "# OSU MPI Allreduce Latency Test v7.4"
    expect_text "mcoll_osu_allreduce, defaults" "# Datatype: MPI_CHAR."
    expect_text "mcoll_osu_allreduce, defaults" "Avg Latency(us)"
    expect_text "mcoll_osu_allreduce, defaults" "Validation"
    expect_pass_rows "mcoll_osu_allreduce, defaults" 4
fi
# 1..256 bytes of int: 7 sizes hold an element (4..256); reduce_scatter_block needs one per rank
# (2 ranks: 8..256, 6 sizes); reduce_scatter splits unevenly, so every size with an element runs.
for case in "bcast Broadcast 7" "reduce Reduce 7 -l" "reduce_scatter Reduce_scatter 7 -l" \
            "reduce_scatter_block Reduce_scatter_block 6 -l" "allgather Allgather 7 -l" \
            "allreduce Allreduce 7 -l" "reduce Reduce 7 -k rotate" "bcast Broadcast 7 -k rotate" \
            "reduce Reduce 7 -k fixed:1 -l" "reduce_scatter Reduce_scatter 7 -u 0"; do
    set -- $case
    p=$1 title=$2 rows=$3
    shift 3
    name="mcoll_osu_$p -f -T mpi_int $*"
    if expect_status 0 "$name" $run "$BIN/mcoll_osu_$p" -d host -m 1:256 -i 3 -x 1 -f -c -T mpi_int "$@"; then
        expect_text "$name" "# OSU MPI $title Latency Test v7.4"
        expect_text "$name" "Min Latency(us)"
        expect_text "$name" "Iterations"
        expect_pass_rows "$name" "$rows"
    fi
done
# MPI_Reduce_scatter at 3 ranks: 1 and 2 chars leave ranks without an element; 16 splits 6,5,5.
name="mcoll_osu_reduce_scatter, 3 ranks"
if expect_status 0 "$name" $MPIRUN -np 3 --oversubscribe "$BIN/mcoll_osu_reduce_scatter" -m 1:64 -i 2 -x 0 -c -l; then
    expect_pass_rows "$name" 7
fi
name="mcoll_osu_allgather -T all -T double -z"
if expect_status 0 "$name" $run "$BIN/mcoll_osu_allgather" -m 8:1K -i 3 -c -T all -T double -z; then
    expect_pass_rows "$name" 32
    expect_count "$name" 4 "P99 Tail Lat(us)"
fi
# -M: the allgather receive buffer (ranks x size) must fit: 1 MiB allows 512 KiB at 2 ranks.
name="mcoll_osu_allgather -M 1M"
if expect_status 0 "$name" $run "$BIN/mcoll_osu_allgather" -m 128K:4M -M 1M -i 2 -x 0 -c; then
    expect_text "$name" "largest size lowered to 524288 bytes"
    expect_pass_rows "$name" 3
fi

# The non-blocking look-alikes: OSU's overlap columns, a Pass row per size, overlap in 0..100.
for case in "iallreduce Allreduce" "ibcast Broadcast" "ireduce Reduce" "iallgather Allgather" \
            "ireduce_scatter Reduce_scatter"; do
    set -- $case
    p=$1 title=$2
    name="mcoll_osu_$p -f -c -t 4"
    if expect_status 0 "$name" $run "$BIN/mcoll_osu_$p" -m 4:256 -i 3 -x 1 -f -c -t 4 -T mpi_int; then
        expect_text "$name" "# OSU MPI Non-blocking $title Latency Test v7.4"
        expect_line "$name" "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait"
        expect_text "$name" "Overall(us)         Compute(us)      Coll. Init(us)        MPI_Test(us)        MPI_Wait(us)      Pure Comm.(us)       Min Comm.(us)       Max Comm.(us)          Overlap(%)          Validation"
        expect_pass_rows "$name" 7
        awk '/^[0-9]/ { if ($10 < 0 || $10 > 100) bad = 1 } END { exit bad }' "$tmp/out" ||
            { fail "$name: an Overlap(%) outside 0..100"; show; }
    fi
done
if expect_status 0 "mcoll_osu_iallreduce --dry-run" "$BIN/mcoll_osu_iallreduce" -t 7 --dry-run; then
    expect_line "mcoll_osu_iallreduce --dry-run" "#   MPI_Test calls   7 during each computation"
    expect_line "mcoll_osu_iallreduce --dry-run" "# mcoll look-alike of OSU 7.4's osu_iallreduce: MPI_Iallreduce through libmcoll, host buffers"
fi
expect_status 2 "mcoll_osu_ibcast -k rotate" "$BIN/mcoll_osu_ibcast" -k rotate

# --- no GPU: a clear message and exit 77 ---------------------------------------------------------
# An empty CUDA_VISIBLE_DEVICES hides every GPU, so this holds on GPU machines too.
CUDA_VISIBLE_DEVICES=
export CUDA_VISIBLE_DEVICES
for d in cuda managed; do
    name="mcoll_osu_allreduce -d $d, no GPU"
    if expect_status 77 "$name" $run -x CUDA_VISIBLE_DEVICES "$BIN/mcoll_osu_allreduce" -d $d -m 8:64; then
        expect_text "$name" "nothing to measure"
    fi
done
if expect_status 77 "mcoll-bench, no GPU" $run -x CUDA_VISIBLE_DEVICES "$BIN/mcoll-bench" --output "$tmp/results"; then
    expect_text "mcoll-bench, no GPU" "nothing to measure"
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all benchmark command-line checks passed"
exit 0
