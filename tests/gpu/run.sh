#!/bin/bash
# The GPU test suite, for a machine with NVIDIA GPUs. Run from the repository root:
#
#   bash tests/gpu/run.sh [--np 2,4] [--steps LIST] [--mps auto|on|off] [--quick] [--filter F]
#                         [--timeout S] [--budget S]
#
# Steps, in the order they run (default: all; `sanitizer` selects memcheck, racecheck, synccheck,
# initcheck):
#   build      ./configure --with-cuda-arch=<the GPUs'> && make -j (in-tree, into build/;
#              incremental when build/ is there)
#   guard      the cuMulticast guard's self-test (tests/gpu/test_guard.sh); always run when a
#              GPU step is selected, and GPU steps run only when it passed
#   nomps      gpu_mpi -q at NP 2 on ONE GPU without MPS (runs before the MPS daemon starts),
#              MCOLL_DEBUG=INFO: must pass and log the library's "... share GPU ... without MPS"
#              line (ranks sharing a GPU without MPS take the staged path)
#   floors     build/bin/mcoll-floors: the GPU's latency floors (empty launch, graph, launch +
#              sync/query/mapped-flag wait, 8-byte copies, a block barrier by grid size, launches
#              chained by PDL, a two-GPU exchange per kernel in a graph), one process, before the
#              MPS daemon
#   probe      build/bin/mcoll-probe on every GPU of the machine (two or more), one process, before
#              the MPS daemon: the broadcast kernels on 32 and 64 blocks at 2, 8 and 32 MiB, with
#              barrier polls back to back and with MCOLL_POLL_PAUSE_NS's 100 ns, each block
#              barrier traced (benchmarks/README.md); the key figure is the push kernel's 8 MiB
#              median by grid and pause; skipped on one GPU
#   native     build/tests/gpu/gpu_native  at each NP   (native API: the whole matrix)
#   stream     build/tests/gpu/gpu_stream  at each NP   (back-to-back, graphs, two communicators)
#   mpi        build/tests/gpu/gpu_mpi     at each NP   (MPI_* on device buffers via the plug-in)
#   nonblocking build/tests/gpu/gpu_nonblocking at each NP (MPI_I* and persistent calls, the same;
#              small ones through the resident kernel's ring), then again with MCOLL_ASYNC_START=1
#              (rows nonblocking-async: the engine launches go through the launcher thread; this
#              row hung at 4 ranks now and then before the thread kept call order across
#              communicators, docs/pmpi.md "A hang, found and fixed") and with
#              MCOLL_RESIDENT_NONBLOCKING=0 (rows nonblocking-launched:
#              small ones launched)
#   asyncloop  gpu_nonblocking -q -f in-flight with MCOLL_ASYNC_START=1 at the largest NP, again and
#              again (ASYNC_LOOPS, default 20; each under a 30 s limit): the launcher thread's hang
#              looked for (docs/pmpi.md, "A hang, found and fixed"); FAIL when a run passes its limit or fails
#   errors     build/tests/gpu/gpu_errors  at each NP   (bad arguments)
#   memory     build/tests/gpu/gpu_memory  at each NP   (mcoll_mem_*: windows, registered and imported
#              memory, the registration cache, zero-copy collectives, refusals)
#   split      build/tests/gpu/gpu_split   at NP >= 4   (two-rank sub-communicators side by side)
#   emulation  gpu_native at each NP with MCOLL_TEST_EMULATE_MULTIMEM=1: the multimem layer's
#              requests (every multimem_table entry, st, red, fences) emulated on a second
#              mapping of every rank's memory; no multicast object, guard still loaded
#   staged     gpu_mpi -q with MCOLL_ENGINE=staged at NP 2 (the pinned-host fallback path)
#   paths      gpu_mpi -q at NP 2 on OSU's default (allreduce of MPI_CHAR with MPI_SUM) and the
#              block collectives and scans, MCOLL_DEBUG=INFO: must pass, and the log must show
#              each of them taking the engine path
#   autoreg    gpu_mpi at each NP with MCOLL_ZERO_COPY_MIN=1 and MCOLL_DEBUG=INFO: every blocking
#              allreduce, reduce, bcast, reduce-scatter and allgather on the engine that is not of
#              LL size maps the peers' ordinary device buffers for the call and runs zero-copy
#              (the whole matrix, against host results, and the free-and-reallocate case); must
#              pass, log that calls were mapped, and log no failed mapping; row autoreg-persistent:
#              gpu_nonblocking the same way, whose log must show persistent requests mapped once,
#              at initialization, and no failed mapping
#   loads      MCOLL_STORE_INPUTS=0 at each NP: gpu_native, gpu_memory and gpu_mpi (rows loads-native,
#              loads-memory, loads-mpi): allreduce and reduce-scatter with the slices' owners
#              loading the inputs (by default every rank stores them into the owners)
#   ll         the LL protocol for calls up to 64 KiB (MCOLL_LL_MAX=64K; 2K by default) at each NP: gpu_native and
#              gpu_stream (launched LL kernels, graphs), gpu_mpi and gpu_nonblocking (blocking
#              calls in the resident kernel, interleaved with launched ones; nonblocking and
#              persistent calls posted to its ring, many at once, on two communicators), gpu_nonblocking again with
#              MCOLL_RESIDENT_IDLE_US=1 (ll-nonblocking-relaunch), and gpu_mpi
#              with MCOLL_RESIDENT_IDLE_US=1 (the resident kernel ends after nearly every call and is
#              started again); the MPI runs must log that the resident kernel started, and
#              ll-nonblocking that nonblocking calls were posted to its ring
#   hier       gpu_mpi at NP 4 with MCOLL_DOMAIN_SIZE=2 (two simulated NVLink domains of 2) and
#              =3 (domains of 3 and 1): the hierarchical path (engine inside each domain, MPI
#              between), every collective and root, odd counts, against host results; the
#              PMPI INFO lines must show calls on the `hier` path; hier-d2-host: domains of 2 with
#              MCOLL_HIER_OVERLAP_COPIES=0 (the two domains' reductions reduced on the host); and gpu_nonblocking at
#              MCOLL_DOMAIN_SIZE=2 and MCOLL_HIER_NONBLOCKING=1 (hier-nb-d2: nonblocking and
#              persistent calls on that path, with 64 KiB chunks so that their reductions between
#              domains are exchanged in parts, which the log must say); hier-x3 and hier-x4: gpu_mpi at NP 6 and 8 in
#              domains of 2 (three and four domains: the reductions between them exchanged in
#              parts and reduced on the GPU, src/hier/exchange.c; MCOLL_STAGE_CHUNK=64K so the
#              suite's counts reach it), and hier-x4-host with
#              MCOLL_HIER_OVERLAP_COPIES=0 (those parts reduced on the host)
#   slow       gpu_faults -f slow at NP 2: the last rank joins an MPI_Allreduce on device buffers
#              75 s late (MCOLL_TEST_SLOW_S) and a native one 8 s late; both must be right
#   dead       gpu_faults -f dead at NP 2 under mpirun --enable-recovery: the last rank is killed
#              while the other waits for it on the GPU; the survivor must say which rank died,
#              get MCOLL_ERR_ABORTED, and the job must end (MPI_Abort) within 30 s; then two more
#              rows: dead-create (-f dead-create, --enable-recovery: killed inside team creation;
#              the watchdog must end the job within 30 s, each survivor naming the dead rank; a
#              creation that returned means the kill came too late, and fails the row) and
#              dead-staged (-f dead-staged, MCOLL_ENGINE=staged, plain mpirun: killed during a
#              staged call; no team, so mpirun must end the job within 30 s, naming the rank)
#   soak       gpu_soak at each NP: SOAK_CALLS (100000) randomly mixed calls, checked, stopping
#              by itself 60 s before the step's limit, or after SOAK_SECONDS when set; 100000 calls
#              at 4 ranks on one H100 need about 290 s (--timeout 560); fails on a
#              wrong result, descriptor growth or resident memory growth past 32 MiB
#   memcheck   compute-sanitizer --tool memcheck  on gpu_native -q and gpu_mpi -q at NP 2
#   racecheck  compute-sanitizer --tool racecheck on a few cases of each (float sum, bcast, ...)
#   synccheck  compute-sanitizer --tool synccheck on gpu_native -q and gpu_mpi -q at NP 2
#   overlap    the non-blocking OSU look-alikes (mcoll_osu_iallreduce, _ibcast, _iallgather,
#              _ireduce_scatter) at NP 2, -d cuda, 1 KiB..16 MiB, -f, checked (-c): passes when every
#              row validates; the key figure is the least Overlap(%) from 64 KiB up (target 90).
#              Rows overlap-async run the same with MCOLL_ASYNC_START=1 (launches in the
#              launcher thread)
#   initcheck  compute-sanitizer --tool initcheck on gpu_mpi -q with MCOLL_ENGINE=staged at NP 2
#              (the staged path's copies must read no uninitialized device memory)
#   bench      build/bin/mcoll-bench --quick at the largest NP, if it was built
#
# Ranks and GPUs: a rank count above the number of GPUs runs with ranks sharing GPUs (local
# rank modulo the GPU count). --mps auto (default) starts a private CUDA MPS control daemon
# (tests/gpu/mps.sh: pipe and log under $OUT/mps, stopped on exit) when some selected step has
# more ranks than GPUs, and those steps run under it; --mps on runs every GPU step under it;
# --mps off never starts one (ranks sharing a GPU then time-slice and mcoll stages). When the
# daemon cannot start, run.sh says why and the steps run without MPS.
# A sanitizer step fails on any error it reports other than the expected CUDA_ERROR_NOT_PERMITTED
# of the library's fabric-handle probe (cuMemCreate), on a failed case, when the sanitizer never
# attached (no ERROR SUMMARY from every rank), and when no way of loading the guard into the
# checked program let it start (compute-sanitizer --preload-library, or the guard put ahead of
# the sanitizer's LD_PRELOAD; see the note at the sanitizer steps below).
#
# Time: each step has a limit (--timeout, default 300 s) and the run keeps within --budget
# (default 520 s): steps that would start too late are skipped, so one invocation ends by about
# 540 s. On one H100 under MPS: build 14 s, guard 3 s, native 4/1 47 s, mpi 4/1 41 s, quick
# suites 2-3 s each, bench 6 s; the full list can outrun one 600 s device command, so there run
# it as two invocations (build is incremental):
#   bash tests/gpu/run.sh --steps build,guard,nomps,native,stream,mpi,errors,split
#   bash tests/gpu/run.sh --steps build,guard,staged,slow,dead,memcheck,racecheck,synccheck,bench
# and the soak (about 500 s: each NP stops itself inside its step's limit) and initcheck apart:
#   bash tests/gpu/run.sh --steps build,guard,soak
#   bash tests/gpu/run.sh --steps build,guard,stream,dead,initcheck
#
# Safety: refuses to start (exit 2) unless NCCL_NVLS_ENABLE is exactly 0, and if MCOLL_NVLS or
# MCOLL_ENGINE ask for multicast. Every GPU program runs under the guard (LD_PRELOAD of
# build/tests/gpu/libmcoll_guard.so), which aborts a rank before any cuMulticast* driver
# function runs, and the programs themselves refuse to run without it.
#
# Output: $OUT (default ./gpu-out): system.txt, one <step>[-<program>][-np<N>].log per step,
# mps/log (the daemon's control.log, server.log), summary.txt (GPU count and model, MPS mode,
# then step, ranks/GPUs, MPS, result, seconds, key figure), bench/ (CSV, PNG). Exits 0 only
# when nothing failed.
#   --np LIST       rank counts, e.g. 2 or 2,4 (default 2,4)
#   --steps LIST    e.g. build,guard,native (the guard step is added when a GPU step is listed)
#   --mps MODE      auto, on or off (default auto)
#   --quick         pass -q to the test programs (small counts only)
#   --filter F      pass -f F to the test programs (cases whose name contains F; commas: any);
#                   replaces the sanitizer steps' own filters
# Environment: OUT, MPIRUN (default mpirun), MCOLL_CUDA_ARCH (e.g. sm_90; default from
# nvidia-smi), MCOLL_DEBUG (default WARN), CONFIGURE_ARGS (extra ./configure arguments),
# MCOLL_COMMIT (the commit to name in the summary, where the copy's git history is not current).
# The summary also names the tree that ran by its content (`tree` below): the same id as
# `git rev-parse --short=12 COMMIT^{tree}` of the commit it was copied from, whatever the copy's
# own git history says.
set -u

ALL_STEPS="build guard nomps floors probe native stream mpi nonblocking asyncloop errors memory split emulation autoreg loads ll staged paths hier slow dead soak memcheck racecheck synccheck initcheck overlap bench"
GPU_STEPS="nomps floors probe native stream mpi nonblocking errors memory split emulation autoreg loads ll staged paths hier slow dead soak memcheck racecheck synccheck initcheck overlap bench"
SANITIZER_TOOLS="memcheck racecheck synccheck"
# racecheck is the slowest tool: one case family per collective.
RACECHECK_NATIVE="native/allreduce/float/sum,native/reduce/float/sum,native/bcast/float,native/reduce_scatter/float/sum,native/allgather/float"
RACECHECK_MPI="mpi/allreduce/float/sum,mpi/bcast/float,mpi/barrier"
NPS="2 4"
STEPS=$ALL_STEPS
MPS_MODE=auto
PROG_ARGS=()
USER_FILTER=
STEP_TIMEOUT=300
BUDGET=520

usage() { sed -n '2,/^set -u/p' "$0" | sed -e 's/^# \{0,1\}//' -e '/^set -u/d'; }
die() { echo "run.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --np) [ $# -ge 2 ] || die "--np needs a list"; NPS=$(echo "$2" | tr ',' ' '); shift ;;
        --np=*) NPS=$(echo "${1#*=}" | tr ',' ' ') ;;
        --steps) [ $# -ge 2 ] || die "--steps needs a list"; STEPS=$(echo "$2" | tr ',' ' '); shift ;;
        --steps=*) STEPS=$(echo "${1#*=}" | tr ',' ' ') ;;
        --mps) [ $# -ge 2 ] || die "--mps needs auto, on or off"; MPS_MODE=$2; shift ;;
        --mps=*) MPS_MODE=${1#*=} ;;
        --quick) PROG_ARGS+=(-q) ;;
        --filter) [ $# -ge 2 ] || die "--filter needs a value"; USER_FILTER=$2; shift ;;
        --filter=*) USER_FILTER=${1#*=} ;;
        --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; STEP_TIMEOUT=$2; shift ;;
        --timeout=*) STEP_TIMEOUT=${1#*=} ;;
        --budget) [ $# -ge 2 ] || die "--budget needs seconds"; BUDGET=$2; shift ;;
        --budget=*) BUDGET=${1#*=} ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
[ -n "$USER_FILTER" ] && PROG_ARGS+=(-f "$USER_FILTER")
for np in $NPS; do
    case "$np" in ''|*[!0-9]*) die "bad rank count '$np'" ;; esac
    [ "$np" -ge 1 ] || die "bad rank count '$np'"
done
[ -n "$NPS" ] || die "--np needs at least one rank count"
expanded=
for s in $STEPS; do
    [ "$s" = sanitizer ] && s="$SANITIZER_TOOLS initcheck"
    for t in $s; do
        case " $ALL_STEPS " in *" $t "*) ;; *) die "unknown step '$t' (steps: $ALL_STEPS; sanitizer)" ;; esac
        case " $expanded " in *" $t "*) ;; *) expanded="$expanded $t" ;; esac
    done
done
# The guard step comes with any GPU step; steps run in the order of ALL_STEPS.
for t in $GPU_STEPS; do
    case " $expanded " in *" $t "*) expanded="$expanded guard" ;; esac
done
STEPS=
for t in $ALL_STEPS; do
    case " $expanded " in *" $t "*) STEPS="$STEPS $t" ;; esac
done
STEPS=${STEPS# }
case "$MPS_MODE" in auto|on|off) ;; *) die "--mps takes auto, on or off, not '$MPS_MODE'" ;; esac
case "$STEP_TIMEOUT$BUDGET" in *[!0-9]*) die "--timeout and --budget take whole seconds" ;; esac

# --- safety: multicast stays off ------------------------------------------------------------
if [ "${NCCL_NVLS_ENABLE-unset}" != 0 ]; then
    echo "run.sh: refusing to run: NCCL_NVLS_ENABLE is '${NCCL_NVLS_ENABLE-unset}', it must be exactly 0" >&2
    echo "run.sh: (the GPU tests never create a multicast object; this machine's setting must say so too)" >&2
    exit 2
fi
case "$(echo "${MCOLL_NVLS-}" | tr '[:upper:]' '[:lower:]')" in
    1|on|yes|true|enable) echo "run.sh: refusing to run: MCOLL_NVLS=$MCOLL_NVLS asks for multicast" >&2; exit 2 ;;
esac
case "$(echo "${MCOLL_ENGINE-}" | tr '[:upper:]' '[:lower:]')" in
    nvls) echo "run.sh: refusing to run: MCOLL_ENGINE=nvls asks for multicast" >&2; exit 2 ;;
esac

selected() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

SRCDIR=$(cd "$(dirname "$0")/../.." && pwd) || die "cannot find the repository root"
cd "$SRCDIR" || die "cannot enter $SRCDIR"
# shellcheck source=tests/gpu/mps.sh
. "$SRCDIR/tests/gpu/mps.sh" || die "cannot read tests/gpu/mps.sh"
BUILD=$SRCDIR/build
GUARD=$BUILD/tests/gpu/libmcoll_guard.so
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
MPIRUN=${MPIRUN:-mpirun}
export BUILD SRCDIR MPIRUN
export MCOLL_DEBUG=${MCOLL_DEBUG:-WARN}
# One node, shared memory only, no CUDA-aware transport: the MPI the plug-in is meant for.
# Cross-memory attach is often not permitted in containers, hence no single-copy mechanism.
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
# Open MPI 4.1's AVX op component saturates unsigned 8- and 16-bit MPI_SUM on vectors of 64
# elements or more (200 + 200 gives 255, not 144), where C and MPI wrap; the staged path reduces
# with the MPI's op, so its results would differ from the kernels' (which wrap). Use the MPI's
# plain C ops unless the environment says otherwise.
export OMPI_MCA_op=${OMPI_MCA_op:-^avx}
SECONDS=0

elapsed() { printf '%3d:%02d' $((SECONDS / 60)) $((SECONDS % 60)); }
note() { echo "[$(elapsed)] $*"; }

# The MPS daemon started here is stopped however the run ends.
trap 'stop_running; mps_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The id of the files that ran (tracked, and untracked ones git does not ignore), through a
# scratch index: the real index and the files are not touched.
tree_id() {
    local dir
    dir=$(mktemp -d) || return 0
    if GIT_INDEX_FILE=$dir/index git -C "$SRCDIR" add -A >/dev/null 2>&1; then
        GIT_INDEX_FILE=$dir/index git -C "$SRCDIR" write-tree 2>/dev/null | cut -c1-12
    fi
    rm -rf "$dir"
}
TREE_ID=$(tree_id)
# The copy's git HEAD, named only where its tree is the tree that runs (a copy's history may be
# older than its files).
head_commit() {
    local head tree
    head=$(git -C "$SRCDIR" rev-parse --short HEAD 2>/dev/null) || { echo "no git"; return; }
    tree=$(git -C "$SRCDIR" rev-parse --short=12 "HEAD^{tree}" 2>/dev/null)
    if [ -n "$TREE_ID" ] && [ "$tree" != "$TREE_ID" ]; then echo "not git HEAD $head"; else echo "$head"; fi
}
HEAD_COMMIT=$(head_commit)

# --- the machine ----------------------------------------------------------------------------
{
    echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host:      $(hostname 2>/dev/null)"
    echo "source:    $SRCDIR ($HEAD_COMMIT; commit ${MCOLL_COMMIT:-as git says}; tree ${TREE_ID:-unknown})"
    echo "steps:     $STEPS; NP: $NPS; MPS: $MPS_MODE; program args: ${PROG_ARGS[*]:-none}"
    echo "env:       NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE MCOLL_DEBUG=$MCOLL_DEBUG MCOLL_NVLS=${MCOLL_NVLS-unset}" \
         "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset} CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY-unset}"
    echo "mpi:       $("$MPIRUN" --version 2>&1 | head -n 1); OMPI_MCA_pml=$OMPI_MCA_pml OMPI_MCA_btl=$OMPI_MCA_btl"
    echo "nvcc:      $( (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -n 1)"
    echo "mps:       $(command -v nvidia-cuda-mps-control || echo 'nvidia-cuda-mps-control not found')"
    echo
    echo "\$ nvidia-smi -L"
    nvidia-smi -L 2>&1
    echo
    echo "\$ nvidia-smi --query-gpu=index,name,compute_cap,compute_mode,memory.used,memory.total,driver_version --format=csv"
    nvidia-smi --query-gpu=index,name,compute_cap,compute_mode,memory.used,memory.total,driver_version --format=csv 2>&1
    echo
    echo "\$ nvidia-smi topo -m"
    nvidia-smi topo -m 2>&1
} > "$OUT/system.txt"
cat "$OUT/system.txt"
echo

NGPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ -n "${CUDA_VISIBLE_DEVICES-}" ]; then
    visible=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
    [ "$visible" -lt "$NGPUS" ] && NGPUS=$visible
fi
FIRST_GPU=0
[ -n "${CUDA_VISIBLE_DEVICES-}" ] && FIRST_GPU=${CUDA_VISIBLE_DEVICES%%,*}
GPU_MODEL=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c |
            sed 's/^ *\([0-9]*\) /\1 x /' | paste -sd ';' -)
note "GPUs usable: $NGPUS${GPU_MODEL:+ ($GPU_MODEL)}"
NO_GPU=0
for s in $GPU_STEPS; do
    if selected "$s" && [ "$NGPUS" -eq 0 ]; then NO_GPU=1; fi
done

smallest=$(for np in $NPS; do echo "$np"; done | sort -n | head -n 1)
largest=$(for np in $NPS; do echo "$np"; done | sort -n | tail -n 1)
small_np=2
case " $NPS " in *" 2 "*) ;; *) small_np=$smallest ;; esac

# --- bookkeeping ----------------------------------------------------------------------------
R_STEP=() R_RG=() R_MPS=() R_RES=() R_SEC=() R_KEY=()
record() { # step ranks/GPUs mps result seconds key
    R_STEP+=("$1"); R_RG+=("${2:--}"); R_MPS+=("${3:--}"); R_RES+=("$4"); R_SEC+=("$5"); R_KEY+=("$6")
    note "$4 $1${2:+ $2}${3:+ (MPS $3)} ($5 s)${6:+: $6}"
}

# "2/1": ranks over the GPUs they run on.
ranks_gpus() { # np [gpus]
    local g=${2:-$NGPUS}
    [ "$1" -lt "$g" ] && g=$1
    echo "$1/$g"
}

# The program summary "N passed, F failed, S skipped (T s)" of a log; library log lines
# (MCOLL_DEBUG=INFO) are left out.
summary_of() { # log
    grep -v -E ' mcoll (INFO|TRACE|WARN) ' "$1" | grep -E ' passed, [0-9]+ failed' | tail -n 1 | sed 's/^[^:]*: //'
}

# The key figure of a finished step, from its log.
key_of() { # step log
    case "$1" in
        build)
            problem=$(grep -m 1 -E ': error|undefined reference|multiple definition|Error [0-9]' "$2")
            if [ -n "$problem" ]; then echo "$problem" | cut -c1-110
            else echo "${arch:-default targets}; $(find "$BUILD/tests/gpu" -maxdepth 1 -name 'gpu_*' -type f 2>/dev/null | wc -l) GPU test programs"; fi ;;
        guard) grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1 ;;
        floors) awk '$1 == "launch" && $2 ~ /^[0-9]/ { l = $2 } $1 == "graph" && $2 ~ /^[0-9]/ { g = $2 } /^launch\+sync / { s = $2 } /^launch\+flag / { f = $2 }
                     /^barrier x32 / { b32 = $3 } /^barrier x64 / { b64 = $3 }
                     /^graph pdl / { gp = $3 } /^exch graph / { x = $3 } /^exch pdl / { xp = $3 }
                     END { printf "median us: launch %s, graph %s (pdl %s), launch+sync %s, launch+flag %s; barrier of 32 / 64 blocks %s / %s; 2-GPU exchange in a graph %s (pdl %s)", l, g, gp, s, f, b32, b64, x, xp }' "$2" ;;
        probe) awk '$1 == "push" && $4 == 8388608 { m[$2 "/" $(NF-1)] = $7 }
                    END { printf "push kernel, 8 MiB, median us, blocks/pause ns: 32/0 %s, 64/0 %s, 32/100 %s, 64/100 %s",
                          m["32/0"], m["64/0"], m["32/100"], m["64/100"] }' "$2" ;;
        overlap|overlap-async) # rows (-f -c): size overall compute init test wait pure min max overlap validation
            awk '/^# OSU/ { sub(/^# OSU MPI(-CUDA)? Non-blocking /, ""); sub(/ Latency Test.*/, ""); name = $0 }
                 /^[0-9]/ && $1 >= 65536 { n++; if (min == "" || $10 < min) min = $10; if ($11 == "Fail") bad++ }
                 END { if (n) printf "%s: least overlap %.1f%% over %d sizes >= 64 KiB (target 90)%s", name, min, n, bad ? "; " bad " failed validation" : ""
                       else printf "%s: no row >= 64 KiB", name }' "$2" ;;
        bench)
            shared=$(grep -m 1 -o 'ranks [0-9,]* share GPU [^ ]*' "$2")
            echo "$(grep -v '^#' "$2" | grep -v -E ' mcoll (INFO|TRACE|WARN) ' | grep . | tail -n 1 | cut -c1-70)${shared:+; nccl not measured: $shared}" ;;
        soak) grep '^# soak: ' "$2" | tail -n 1 | sed 's/^# soak: //' ;;
        *) summary_of "$2" ;;
    esac
}

# Sanitizer verdict of a finished log: sets S_OK (1 clean) and S_KEY.
# Every compute-sanitizer front end (one per rank) ends with "ERROR SUMMARY: N errors"; the one
# error allowed is the CUDA_ERROR_NOT_PERMITTED that cuMemCreate returns to the library's
# fabric-handle probe where fabric handles are not available.
sanitizer_verdict() { # log np
    local log=$1 np=$2 summaries total expected other unexpected hazards
    summaries=$(grep -c 'ERROR SUMMARY: [0-9]* error' "$log")
    total=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$log" | awk '{s += $3} END {print s + 0}')
    # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)" instead.
    if [ "$summaries" -eq 0 ]; then
        summaries=$(grep -c 'RACECHECK SUMMARY: [0-9]* hazard' "$log")
        total=$(grep -o 'RACECHECK SUMMARY: .*(\([0-9]*\) error' "$log" | sed 's/.*(\([0-9]*\) error/\1/' |
                awk '{s += $1} END {print s + 0}')
    fi
    expected=$(grep -c 'Program hit CUDA_ERROR_NOT_PERMITTED.*cuMemCreate' "$log")
    other=$(grep -E '^========= +Program hit ' "$log" | grep -v -c 'CUDA_ERROR_NOT_PERMITTED.*cuMemCreate')
    hazards=$(grep -o 'RACECHECK SUMMARY: .*' "$log" | head -n 1)
    unexpected=$((total - expected))
    [ "$unexpected" -lt "$other" ] && unexpected=$other
    S_OK=0
    if [ "$summaries" -eq 0 ]; then
        if grep -q 'No attachable process' "$log"; then S_KEY="never attached (No attachable process found)"
        else S_KEY="never attached (no ERROR SUMMARY)"; fi
    elif [ "$summaries" -lt "$np" ]; then
        S_KEY="ERROR SUMMARY from $summaries of $np ranks"
    elif [ "$unexpected" -gt 0 ]; then
        S_KEY="$unexpected error(s) reported besides the expected cuMemCreate NOT_PERMITTED ($expected)"
    else
        S_OK=1
        S_KEY="0 errors"
        [ "$expected" -gt 0 ] && S_KEY="0 errors ($expected expected NOT_PERMITTED from cuMemCreate)"
    fi
    [ -n "$hazards" ] && S_KEY="$S_KEY; ${hazards#RACECHECK SUMMARY: }"
}

# --- running a step -------------------------------------------------------------------------
# Every step runs in the background under `timeout` while run.sh watches it: it notes the
# step's processes as they appear, and when the step has ended, ends by process id the ones
# still alive (a rank orphaned by a killed mpirun or sanitizer front end would keep the GPU,
# and the MPS daemon, busy). With START_RE set, a step whose log shows no line matching it
# after START_S seconds is stopped (NOSTART=1): a program that never got going.
RUNNING_PID=
descendants() { # PID: "pid:starttime" of every process below PID
    local p
    for p in $(ps -e -o pid= -o ppid= 2>/dev/null | awk -v root="$1" '
            { parent[$1] = $2 }
            END { seen[root] = 1; grew = 1
                  while (grew) { grew = 0
                      for (c in parent) if (!(c in seen) && (parent[c] in seen)) { seen[c] = 1; grew = 1 } }
                  for (c in seen) if (c != root) print c }'); do
        echo "$p:$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f20)"
    done
}
reap() { # "pid:starttime"...: end those still alive (same start time: the same process)
    local e n=0
    for e in "$@"; do
        [ "$(sed 's/^.*) //' "/proc/${e%%:*}/stat" 2>/dev/null | cut -d' ' -f20)" = "${e#*:}" ] || continue
        kill -KILL "${e%%:*}" 2>/dev/null && n=$((n + 1))
    done
    echo "$n"
}
stop_running() {
    [ -n "$RUNNING_PID" ] || return 0
    local left
    left=$(descendants "$RUNNING_PID")
    kill -TERM "$RUNNING_PID" 2>/dev/null
    sleep 2
    # shellcheck disable=SC2086 # one word per process
    reap $left > /dev/null
    RUNNING_PID=
}

# run_cmd LIMIT LOG COMMAND...: sets RC (124/137 at the limit) and NOSTART.
run_cmd() {
    local limit=$1 log=$2 t0=$SECONDS started=0 n e
    local -A seen=()
    shift 2
    NOSTART=0
    timeout -k 10 "$limit" "$@" >> "$log" 2>&1 &
    RUNNING_PID=$!
    while kill -0 "$RUNNING_PID" 2>/dev/null; do
        for e in $(descendants "$RUNNING_PID"); do seen[$e]=1; done
        if [ -n "${START_RE-}" ] && [ $started = 0 ] && [ $NOSTART = 0 ]; then
            if grep -q -E "$START_RE" "$log"; then
                started=1
            elif [ $((SECONDS - t0)) -ge "${START_S:-60}" ]; then
                NOSTART=1
                echo "# run.sh: nothing from the program after ${START_S:-60} s: stopped" >> "$log"
                kill -TERM "$RUNNING_PID" 2>/dev/null
            fi
        fi
        sleep 1
    done
    wait "$RUNNING_PID"
    RC=$?
    RUNNING_PID=
    sleep 1
    n=$(reap "${!seen[@]}")
    if [ "$n" -gt 0 ]; then echo "# run.sh: ended $n processes this step left running" >> "$log"; fi
}

# step_limit STEP RG MPS: LIMIT for the next step, or a SKIP row and failure when the budget is spent.
step_limit() {
    local left=$((BUDGET - SECONDS))
    if [ "$left" -lt 30 ]; then
        record "$1" "$2" "$3" SKIP 0 "time budget (${BUDGET} s) spent"
        return 1
    fi
    LIMIT=$STEP_TIMEOUT
    [ "$LIMIT" -gt $((left - 15)) ] && LIMIT=$((left - 15))
    return 0
}

log_command() { # LOG COMMAND...: the command line, shell-quoted, at the top of the log
    local log=$1
    shift
    { printf '$'; printf ' %q' "$@"; printf '\n# limit %s s\n' "$LIMIT"; } >> "$log"
}

# show_failure LOG: the lines that say what went wrong
show_failure() {
    if grep -q '^FAIL ' "$1"; then grep '^FAIL ' "$1" | head -n 12 | cut -c1-300 | sed 's/^/    /'
    else grep -v -E ' mcoll (INFO|TRACE) ' "$1" | tail -n 12 | cut -c1-300 | sed 's/^/    /'; fi
}

# paths_missing LOG: the calls of the paths step whose INFO line does not show the engine path.
PATH_CALLS="allreduce:MPI_CHAR_MPI_SUM allgatherv alltoall alltoallv gather gatherv scatter scatterv scan exscan"
paths_missing() {
    local c name what
    for c in $PATH_CALLS; do
        name=${c%%:*}
        what='[^:]*'
        [ "$c" != "$name" ] && what=$(echo "${c#*:}" | tr _ ' ' | sed 's/MPI /MPI_/g')
        grep -q "mcoll INFO [a-z_]*\.c:[0-9]* $name [1-9][0-9]* B $what: engine (" "$1" || printf ' %s' "$c"
    done
}

# run_step STEP RANKS/GPUS MPS LOG COMMAND...: run under the time limit, log, record the outcome.
run_step() {
    local step=$1 rg=$2 mps=$3 log=$4 t0 result key missing
    shift 4
    step_limit "$step" "$rg" "$mps" || return 1
    note "start $step${rg:+ $rg}${mps:+ (MPS $mps)} (limit $LIMIT s) -> $log"
    : > "$log"
    log_command "$log" "$@"
    t0=$SECONDS
    run_cmd "$LIMIT" "$log" "$@"
    key=$(key_of "$step" "$log")
    case $RC in
        0) result=PASS ;;
        77) result=SKIP; key=$(grep -m 1 -i 'skip' "$log" | cut -c1-70) ;;
        124|137) result=FAIL; key="time limit ($LIMIT s); ${key}" ;;
        *) result=FAIL; key="exit $RC; ${key}" ;;
    esac
    if [ "$step" = nomps ] && [ "$result" = PASS ]; then
        if grep -q 'without MPS' "$log"; then
            key="$key; 'without MPS' INFO line present"
        else
            result=FAIL
            key="no 'without MPS' INFO line in the log; $key"
        fi
    fi
    if [ "$step" = paths ] && [ "$result" = PASS ]; then
        missing=$(paths_missing "$log")
        if [ -n "$missing" ]; then
            result=FAIL
            key="not on the engine:$missing; $key"
        else
            key="$key; every call on the engine"
        fi
    fi
    if [ "${step%%-*}" = ll ] && [ "$result" = PASS ] && [ "$step" != ll-native ] && [ "$step" != ll-stream ]; then
        n=$(grep -c 'resident kernel: started' "$log")
        if [ "$n" -gt 0 ]; then key="$key; resident kernel started on $n ranks"
        else result=FAIL; key="the resident kernel never started; $key"; fi
        # Nonblocking and persistent LL calls are posted to its ring (MCOLL_RESIDENT_NONBLOCKING).
        if [ "$step" = ll-nonblocking ] && [ "$result" = PASS ]; then
            n=$(grep -c 'resident kernel: nonblocking and persistent LL calls through MPI are posted to it' "$log")
            if [ "$n" -gt 0 ]; then key="$key; nonblocking calls through its ring on $n communicator ranks"
            else result=FAIL; key="no nonblocking call went through the resident kernel's ring; $key"; fi
        fi
    fi
    if [ "$step" = autoreg ] && [ "$result" = PASS ]; then
        n=$(grep -c 'zero-copy: a call through MPI mapped' "$log")
        failed_maps=$(grep -c "zero-copy: mapping the peers' buffers failed" "$log")
        if [ "$n" -gt 0 ] && [ "$failed_maps" -eq 0 ]; then key="$key; calls mapped zero-copy ($n first-call lines)"
        else result=FAIL; key="$n first-call mapped lines, $failed_maps failed mappings; $key"; fi
    fi
    if [ "$step" = autoreg-persistent ] && [ "$result" = PASS ]; then
        n=$(grep -c 'zero-copy: a persistent request mapped' "$log")
        failed_maps=$(grep -c "zero-copy: mapping the peers' buffers failed" "$log")
        if [ "$n" -gt 0 ] && [ "$failed_maps" -eq 0 ]; then key="$key; persistent requests mapped at initialization ($n first lines)"
        else result=FAIL; key="$n first persistent-mapping lines, $failed_maps failed mappings; $key"; fi
    fi
    if [ "${step%%-*}" = hier ] && [ "$result" = PASS ]; then
        n=$(grep -c ': hier (' "$log")
        if [ "$n" -gt 0 ]; then key="$key; $n hierarchical decisions logged"
        else result=FAIL; key="no call took the hierarchical path; $key"; fi
    fi
    # The rows of three and four domains: the reductions between them took the exchange, on the
    # GPU (hier-x3, hier-x4) or on the host (hier-x4-host).
    local how=""
    case $step in
        hier-x3|hier-x4) how="exchanged in parts through the MPI and reduced on the GPU" ;;
        hier-x4-host) how="exchanged in parts through the MPI and reduced on the host" ;;
        hier-nb-d2) how="exchanged in parts (nonblocking) through the MPI and reduced on the" ;;
    esac
    if [ -n "$how" ] && [ "$result" = PASS ]; then
        if grep -q "$how" "$log"; then key="$key; between domains: $how"
        else result=FAIL; key="no line \"$how\"; $key"; fi
    fi
    record "$step" "$rg" "$mps" "$result" $((SECONDS - t0)) "$key"
    [ "$result" = FAIL ] && show_failure "$log"
    [ "$result" = PASS ]
}

# --- build ----------------------------------------------------------------------------------
BUILD_OK=1
arch=
if selected build; then
    arch=${MCOLL_CUDA_ARCH:-}
    if [ -z "$arch" ]; then
        cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
        case "$cc" in ''|*[!0-9]*) ;; *) arch=sm_$cc ;; esac
    fi
    export CONFIGURE_LINE="./configure ${arch:+--with-cuda-arch=$arch} ${CONFIGURE_ARGS:-}"
    JOBS=$(nproc 2>/dev/null || echo 4)
    export JOBS
    # shellcheck disable=SC2016 # expanded by the inner shell
    run_step build "" "" "$OUT/build.log" bash -c '$CONFIGURE_LINE && make -j"$JOBS"' || BUILD_OK=0
fi

# --- guard ----------------------------------------------------------------------------------
GUARD_OK=0
if selected guard; then
    if [ $BUILD_OK = 1 ]; then
        run_step guard "" "" "$OUT/guard.log" sh "$SRCDIR/tests/gpu/test_guard.sh" && GUARD_OK=1
    else
        record guard "" "" SKIP 0 "the build failed"
    fi
    if [ $GUARD_OK = 1 ] && [ ! -f "$GUARD" ]; then
        record guard-lib "" "" FAIL 0 "$GUARD is missing"
        GUARD_OK=0
    fi
fi

# --- GPU programs ---------------------------------------------------------------------------
MPS_STATE=off   # on: the daemon answers; failed: it could not start (MPS_WHY)
uses_mps() { # np: whether a step at this rank count runs under the daemon
    [ "$MPS_STATE" = on ] || return 1
    [ "$MPS_MODE" = on ] || [ "$1" -gt "$NGPUS" ]
}
mps_col() { # np: the MPS column of a row
    if uses_mps "$1"; then echo on
    elif [ "$MPS_STATE" = failed ] && { [ "$MPS_MODE" = on ] || [ "$1" -gt "$NGPUS" ]; }; then echo "off(failed)"
    else echo off; fi
}

# mpi_cmd NP MPS(on/off) DEBUG GUARD(1/0) [REQUIRE(1/0, default 1)]: the mpirun prefix every GPU
# program runs under, in MPI; REQUIRE=0 lets a program run without the guard (sanitizer only).
mpi_cmd() {
    MPI=("$MPIRUN" --allow-run-as-root -np "$1" --bind-to none
         -x NCCL_NVLS_ENABLE -x "MCOLL_DEBUG=$3" -x "MCOLL_TEST_REQUIRE_GUARD=${5:-1}")
    if [ "$2" = on ]; then
        MPI+=(-x "CUDA_MPS_PIPE_DIRECTORY=$MPS_PIPE" -x "CUDA_MPS_LOG_DIRECTORY=$MPS_LOG")
    fi
    if [ "$4" = 1 ]; then MPI+=(-x "LD_PRELOAD=$GUARD"); fi
    # The settings a step sets for its ranks (run.sh exports them per step).
    local v
    for v in MCOLL_ENGINE MCOLL_TEST_EMULATE_MULTIMEM MCOLL_DOMAIN_SIZE MCOLL_HIER_NONBLOCKING MCOLL_HIER_OVERLAP_COPIES MCOLL_LL_MAX MCOLL_RESIDENT_IDLE_US MCOLL_ASYNC_START MCOLL_ZERO_COPY_MIN MCOLL_RESIDENT_NONBLOCKING MCOLL_STORE_INPUTS; do
        if [ -n "${!v-}" ]; then MPI+=(-x "$v=${!v}"); fi
    done
}

# gpu_ready STEP RG MPS PROGRAM: the common checks; records why not and fails when a step cannot run.
gpu_ready() {
    if [ $BUILD_OK = 0 ]; then record "$1" "$2" "$3" SKIP 0 "the build failed"; return 1; fi
    if [ "$NGPUS" -eq 0 ]; then record "$1" "$2" "$3" SKIP 0 "no GPU"; return 1; fi
    if [ $GUARD_OK = 0 ]; then record "$1" "$2" "$3" FAIL 0 "not run: the guard self-test did not pass"; return 1; fi
    if [ ! -x "$4" ]; then record "$1" "$2" "$3" FAIL 0 "$4 was not built"; return 1; fi
    return 0
}

# gpu_step STEP NP PROGRAM ARGS...: the program under mpirun and the guard.
gpu_step() {
    local step=$1 np=$2 prog=$3 rg mps
    shift 3
    rg=$(ranks_gpus "$np")
    mps=$(mps_col "$np")
    gpu_ready "$step" "$rg" "$mps" "$prog" || return 0
    mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 1
    run_step "$step" "$rg" "$mps" "$OUT/$step-np$np.log" "${MPI[@]}" "$prog" "$@"
}

# nomps: two ranks on one GPU, no MPS daemon reachable, before the daemon starts.
if selected nomps; then
    np=2
    prog=$BUILD/tests/gpu/gpu_mpi
    if gpu_ready nomps "$np/1" off "$prog"; then
        mpi_cmd "$np" off INFO 1
        # One GPU for both ranks, also on machines with more.
        MPI+=(-x "CUDA_VISIBLE_DEVICES=$FIRST_GPU")
        pipe=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}
        [ -e "$pipe/control" ] && note "note: an MPS daemon outside this run listens on $pipe; nomps ranks may reach it"
        run_step nomps "$np/1" off "$OUT/nomps-np$np.log" "${MPI[@]}" "$prog" -q ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    fi
fi

# floors: one process, before the MPS daemon starts, so the figures are the bare GPU's.
if selected floors; then
    prog=$BUILD/bin/mcoll-floors
    if gpu_ready floors 1/1 off "$prog"; then
        run_step floors 1/1 off "$OUT/floors.log" "$prog"
    fi
fi

# probe: one process driving every GPU, also before the MPS daemon.
if selected probe; then
    prog=$BUILD/bin/mcoll-probe
    if gpu_ready probe "$NGPUS/$NGPUS" off "$prog"; then
        run_step probe "$NGPUS/$NGPUS" off "$OUT/probe.log" "$prog" -b 32,64 -s 2M,8M,32M -n 20 -p 0,100
    fi
fi

# The MPS daemon, when a step needs one.
want_mps=0
if [ "$MPS_MODE" != off ] && [ "$NGPUS" -gt 0 ] && [ $BUILD_OK = 1 ] && [ $GUARD_OK = 1 ]; then
    for s in native stream mpi nonblocking asyncloop errors memory split emulation autoreg loads ll staged paths hier slow dead soak $SANITIZER_TOOLS initcheck overlap bench; do
        selected "$s" || continue
        case $s in
            native|stream|mpi|nonblocking|errors|memory|emulation|autoreg|loads|ll|soak) nps=$NPS ;;
            split) nps=$(for np in $NPS; do [ "$np" -ge 4 ] && echo "$np"; done) ;;
            hier) nps="4 8" ;;
            bench|asyncloop) nps=$largest ;;
            *) nps=$small_np ;;
        esac
        for np in $nps; do
            if [ "$MPS_MODE" = on ] || [ "$np" -gt "$NGPUS" ]; then want_mps=1; fi
        done
    done
fi
MPS_LINE="$MPS_MODE: not started (no selected step has more ranks than GPUs)"
[ "$MPS_MODE" = off ] && MPS_LINE="off (--mps off)"
if [ $want_mps = 1 ]; then
    if mps_start "$OUT/mps"; then
        MPS_STATE=on
        MPS_LINE="$MPS_MODE: on (daemon on $MPS_PIPE, log $MPS_LOG${MPS_NOTE:+; $MPS_NOTE})"
        note "MPS: control daemon up (pipe $MPS_PIPE)${MPS_NOTE:+; $MPS_NOTE}"
    else
        MPS_STATE=failed
        MPS_LINE="$MPS_MODE: off (failed to start: $MPS_WHY)"
        note "MPS: failed to start ($MPS_WHY); steps with ranks sharing a GPU run without MPS"
    fi
fi

for step in native stream mpi nonblocking errors memory split; do
    selected $step || continue
    for np in $NPS; do
        if [ $step = split ] && [ "$np" -lt 4 ]; then
            record split "$(ranks_gpus "$np")" "" SKIP 0 "needs 4 ranks"
            continue
        fi
        gpu_step $step "$np" "$BUILD/tests/gpu/gpu_$step" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        if [ $step = nonblocking ]; then
            MCOLL_ASYNC_START=1 gpu_step nonblocking-async "$np" "$BUILD/tests/gpu/gpu_nonblocking" \
                ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
            MCOLL_RESIDENT_NONBLOCKING=0 gpu_step nonblocking-launched "$np" "$BUILD/tests/gpu/gpu_nonblocking" \
                ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        fi
    done
done

# asyncloop: the same cases again and again with the launcher thread, at the largest NP (the
# hang was seen at 4 ranks on one GPU only, in the two-communicator cases).
if selected asyncloop; then
    np=${NPS##* }
    prog=$BUILD/tests/gpu/gpu_nonblocking
    rg=$(ranks_gpus "$np")
    mps=$(mps_col "$np")
    if gpu_ready asyncloop "$rg" "$mps" "$prog" && step_limit asyncloop "$rg" "$mps"; then
        log=$OUT/asyncloop-np$np.log
        : > "$log"
        MCOLL_ASYNC_START=1 mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 1
        log_command "$log" "${MPI[@]}" "$prog" -q -f in-flight
        t0=$SECONDS runs=0 hung=0 bad=0 skipped=0
        while [ $runs -lt "${ASYNC_LOOPS:-20}" ] && [ $((SECONDS - t0 + 45)) -le "$LIMIT" ]; do
            runs=$((runs + 1))
            echo "# run.sh: run $runs" >> "$log"
            run_cmd 30 "$log" "${MPI[@]}" "$prog" -q -f in-flight
            case $RC in
                0) ;;
                77) skipped=$((skipped + 1)) ;;
                124|137) hung=$((hung + 1)); echo "# run.sh: run $runs passed 30 s" >> "$log" ;;
                *) bad=$((bad + 1)); echo "# run.sh: run $runs exit $RC" >> "$log" ;;
            esac
        done
        result=PASS
        [ $((hung + bad)) -gt 0 ] && result=FAIL
        [ $((runs - skipped)) -eq 0 ] && result=SKIP
        record asyncloop "$rg" "$mps" $result $((SECONDS - t0)) \
            "$runs runs: $hung past 30 s, $bad failed, $skipped skipped$([ $runs -lt "${ASYNC_LOOPS:-20}" ] && echo "; time limit reached")"
    fi
fi

# The multimem layer emulated through aliases of every rank's memory (test-only switch, honoured
# by the library only with the guard loaded; gpu_native then requires that the team says so).
if selected emulation; then
    for np in $NPS; do
        MCOLL_TEST_EMULATE_MULTIMEM=1 gpu_step emulation "$np" "$BUILD/tests/gpu/gpu_native" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    done
fi

if selected staged; then
    # Every device-buffer call through pinned host memory and MPI: the path the engines fall back to.
    MCOLL_ENGINE=staged gpu_step staged "$small_np" "$BUILD/tests/gpu/gpu_mpi" -q ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
fi
# Blocking calls on ordinary device buffers mapped for each call and run zero-copy, from 1 byte.
if selected autoreg; then
    for np in $NPS; do
        MCOLL_ZERO_COPY_MIN=1 MCOLL_DEBUG=INFO gpu_step autoreg "$np" "$BUILD/tests/gpu/gpu_mpi" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        MCOLL_ZERO_COPY_MIN=1 MCOLL_DEBUG=INFO gpu_step autoreg-persistent "$np" "$BUILD/tests/gpu/gpu_nonblocking" \
            ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    done
fi
# Two-shot allreduce and reduce-scatter with the owners loading the inputs (not the default).
if selected loads; then
    for np in $NPS; do
        for prog in native memory mpi; do
            MCOLL_STORE_INPUTS=0 gpu_step loads-$prog "$np" "$BUILD/tests/gpu/gpu_$prog" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        done
    done
fi
# The LL protocol and the resident kernel on calls far larger than by default (MCOLL_LL_MAX=2K).
if selected ll; then
    for np in $NPS; do
        MCOLL_LL_MAX=64K gpu_step ll-native "$np" "$BUILD/tests/gpu/gpu_native" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        MCOLL_LL_MAX=64K gpu_step ll-stream "$np" "$BUILD/tests/gpu/gpu_stream" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        MCOLL_LL_MAX=64K MCOLL_DEBUG=INFO gpu_step ll-mpi "$np" "$BUILD/tests/gpu/gpu_mpi" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        MCOLL_LL_MAX=64K MCOLL_RESIDENT_NONBLOCKING=1 MCOLL_DEBUG=INFO gpu_step ll-nonblocking "$np" "$BUILD/tests/gpu/gpu_nonblocking" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
        MCOLL_LL_MAX=64K MCOLL_RESIDENT_NONBLOCKING=1 MCOLL_RESIDENT_IDLE_US=1 MCOLL_DEBUG=INFO gpu_step ll-nonblocking-relaunch "$np" "$BUILD/tests/gpu/gpu_nonblocking" -q
        MCOLL_LL_MAX=64K MCOLL_RESIDENT_IDLE_US=1 MCOLL_DEBUG=INFO gpu_step ll-relaunch "$np" "$BUILD/tests/gpu/gpu_mpi" -q
    done
fi

if selected paths; then
    # The decision's path, read from the INFO lines: OSU's default datatype (MPI_CHAR, MPI_SUM)
    # and every collective that has an engine must run on it.
    MCOLL_DEBUG=INFO gpu_step paths "$small_np" "$BUILD/tests/gpu/gpu_mpi" -q \
        -f mpi/allreduce/char/sum,mpi/allgatherv,mpi/alltoall,mpi/gather,mpi/scatter,mpi/scan,mpi/exscan
fi

if selected hier; then
    # Four ranks in simulated NVLink domains: each collective runs inside the domains on the
    # engine and between them through MPI (staged: the MPI here is not CUDA-aware). The PMPI
    # INFO lines show that the calls took that path (checked in run_step).
    prog=$BUILD/tests/gpu/gpu_mpi
    rg=$(ranks_gpus 4)
    mps=$(mps_col 4)
    for k in 2 3; do
        gpu_ready "hier-d$k" "$rg" "$mps" "$prog" || continue
        MCOLL_DOMAIN_SIZE=$k mpi_cmd 4 "${mps%%(*}" INFO 1
        MPI+=(-x MCOLL_DEBUG_SUBSYS=PMPI)
        run_step "hier-d$k" "$rg" "$mps" "$OUT/hier-d$k-np4.log" "${MPI[@]}" "$prog" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    done
    # Every MPI step waiting for its own copies: the two domains' reductions swapped and reduced
    # on the host (src/hier/pair.c's other form).
    if gpu_ready hier-d2-host "$rg" "$mps" "$prog"; then
        MCOLL_DOMAIN_SIZE=2 MCOLL_HIER_OVERLAP_COPIES=0 mpi_cmd 4 "${mps%%(*}" INFO 1
        MPI+=(-x MCOLL_DEBUG_SUBSYS=PMPI)
        run_step hier-d2-host "$rg" "$mps" "$OUT/hier-d2-host-np4.log" "${MPI[@]}" "$prog" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    fi
    # Three and four domains of 2: the reductions between domains exchanged in parts and reduced
    # on the GPU (src/hier/exchange.c), or on the host when every MPI step waits for its copies.
    for row in x3:6:1 x4:8:1 x4-host:8:0; do
        name=hier-${row%%:*} np=${row#*:}
        copies=${np#*:} np=${np%:*}
        rg=$(ranks_gpus "$np")
        mps=$(mps_col "$np")
        gpu_ready "$name" "$rg" "$mps" "$prog" || continue
        MCOLL_DOMAIN_SIZE=2 MCOLL_HIER_OVERLAP_COPIES=$copies mpi_cmd "$np" "${mps%%(*}" INFO 1
        # Every domain's kernels must be resident at once on the one GPU: 16 blocks a rank
        # (docs/hierarchical.md, "Settings"). Chunks of 64 KiB, so that the suite's counts (up
        # to 64 KiB of floats with -q) reach the exchange (slices of a quarter chunk or more) and
        # the larger types take several chunks.
        MPI+=(-x MCOLL_DEBUG_SUBSYS=PMPI -x MCOLL_MAX_BLOCKS=16 -x MCOLL_ZERO_COPY_BLOCKS=16 -x MCOLL_STAGE_CHUNK=64K)
        run_step "$name" "$rg" "$mps" "$OUT/$name-np$np.log" "${MPI[@]}" "$prog" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    done
    rg=$(ranks_gpus 4)
    mps=$(mps_col 4)
    # The nonblocking and persistent calls on the same path (their steps advanced by the
    # completion calls, the engine's steps launched from there).
    prog=$BUILD/tests/gpu/gpu_nonblocking
    if gpu_ready hier-nb-d2 "$rg" "$mps" "$prog"; then
        MCOLL_DOMAIN_SIZE=2 MCOLL_HIER_NONBLOCKING=1 mpi_cmd 4 "${mps%%(*}" INFO 1
        # Chunks of 64 KiB: the suite's counts reach the exchange of the recorded calls.
        MPI+=(-x MCOLL_DEBUG_SUBSYS=PMPI -x MCOLL_STAGE_CHUNK=64K)
        run_step hier-nb-d2 "$rg" "$mps" "$OUT/hier-nb-d2-np4.log" "${MPI[@]}" "$prog" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    fi
fi

# Faults: a slow peer must be waited for; a dead one must end its team's waits and the job.
if selected slow; then
    gpu_step slow "$small_np" "$BUILD/tests/gpu/gpu_faults" -f slow
fi
if selected dead; then
    np=$small_np
    prog=$BUILD/tests/gpu/gpu_faults
    rg=$(ranks_gpus "$np")
    mps=$(mps_col "$np")
    if gpu_ready dead "$rg" "$mps" "$prog" && step_limit dead "$rg" "$mps"; then
        log=$OUT/dead-np$np.log
        : > "$log"
        mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 1
        t0=$SECONDS
        log_command "$log" "${MPI[@]}" --enable-recovery "$prog" -f dead
        run_cmd "$LIMIT" "$log" "${MPI[@]}" --enable-recovery "$prog" -f dead
        took=$((SECONDS - t0))
        ok=$(grep -c '^dead: survivors ok' "$log")
        named=$(grep -c "local rank $((np - 1)) (pid [0-9]*) of this communicator's team has exited" "$log")
        if [ "$ok" -eq $((np - 1)) ] && [ "$named" -ge $((np - 1)) ] && [ "$took" -le 30 ] &&
           ! grep -q 'returned with a dead peer' "$log"; then
            record dead "$rg" "$mps" PASS "$took" "$ok survivor(s) got MCOLL_ERR_ABORTED and named the dead rank; job ended in $took s (exit $RC)"
        else
            record dead "$rg" "$mps" FAIL "$took" "survivors ok $ok/$((np - 1)), lines naming the dead rank $named, $took s, exit $RC"
            show_failure "$log"
        fi
    fi
fi

# dead_more CASE: gpu_faults -f dead-CASE at the small NP, one row "dead-CASE" (see the header).
dead_more() {
    local what=$1 np=$small_np prog=$BUILD/tests/gpu/gpu_faults rg mps log t0 took named ok=0 key
    local recovery=(--enable-recovery)
    rg=$(ranks_gpus "$np")
    mps=$(mps_col "$np")
    gpu_ready "dead-$what" "$rg" "$mps" "$prog" || return 0
    step_limit "dead-$what" "$rg" "$mps" || return 0
    log=$OUT/dead-$what-np$np.log
    : > "$log"
    if [ "$what" = staged ]; then
        # No team: only the launcher can end a rank waiting inside the MPI.
        MCOLL_ENGINE=staged mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 1
        recovery=()
    else
        mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 1
    fi
    t0=$SECONDS
    log_command "$log" "${MPI[@]}" ${recovery[@]+"${recovery[@]}"} "$prog" -f "dead-$what"
    run_cmd "$LIMIT" "$log" "${MPI[@]}" ${recovery[@]+"${recovery[@]}"} "$prog" -f "dead-$what"
    took=$((SECONDS - t0))
    if [ "$what" = create ]; then
        named=$(grep -c "local rank $((np - 1)) (pid [0-9]*) of this communicator's team has exited" "$log")
        [ "$named" -ge $((np - 1)) ] && ok=1
        key="the victim $(grep -o -m 1 'dies [0-9.]* s into team creation' "$log" || echo 'printed nothing')"
        # A creation that returned means the victim died after it: the case was not exercised.
        if grep -q 'team creation returned' "$log"; then
            key="$key, after team creation returned (not a creation case)"
            ok=0
        fi
        key="$key; $named line(s) named the dead rank"
    else
        grep -q "rank $((np - 1)) .*exited on signal 9" "$log" && ok=1
        key="mpirun's line naming the killed rank: $([ $ok = 1 ] && echo present || echo missing)"
    fi
    # 137 is also how mpirun ends after a rank died of SIGKILL; only a run that reached the
    # step's limit was ended by the limit.
    if [ "$took" -gt 30 ] || [ "$RC" -eq 124 ] || { [ "$RC" -eq 137 ] && [ "$took" -ge "$LIMIT" ]; } ||
       grep -q 'returned with a dead peer' "$log"; then ok=0; fi
    if [ $ok = 1 ]; then record "dead-$what" "$rg" "$mps" PASS "$took" "$key; job ended in $took s (exit $RC)"
    else
        record "dead-$what" "$rg" "$mps" FAIL "$took" "$key; $took s, exit $RC"
        show_failure "$log"
    fi
}
if selected dead; then
    dead_more create
    dead_more staged
fi

# soak_step NP: gpu_soak told to end by itself 60 s before the step's limit.
soak_step() {
    local np=$1 prog=$BUILD/tests/gpu/gpu_soak rg mps secs
    rg=$(ranks_gpus "$np")
    mps=$(mps_col "$np")
    gpu_ready soak "$rg" "$mps" "$prog" || return 0
    step_limit soak "$rg" "$mps" || return 0
    # By default the soak may use its step's whole limit but a minute (it stops at SOAK_CALLS).
    secs=${SOAK_SECONDS:-$((LIMIT - 60))}
    [ "$secs" -gt $((LIMIT - 60)) ] && secs=$((LIMIT - 60))
    [ "$secs" -lt 10 ] && secs=10
    mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 1
    run_step soak "$rg" "$mps" "$OUT/soak-np$np.log" "${MPI[@]}" "$prog" -n "${SOAK_CALLS:-100000}" -t "$secs"
}
if selected soak; then
    for np in $NPS; do soak_step "$np"; done
fi

# Sanitizer steps. The guard must be in the checked program next to the sanitizer's own
# injection libraries: first through the sanitizer's --preload-library, else put ahead of the
# sanitizer's LD_PRELOAD by sh. A way that gets no line from the program within SAN_START_S
# seconds is stopped and not tried again; when none is left the rows fail and say so.
# Seen on one H100 (CUDA 13.0, compute-sanitizer 2025.3.1): every way of loading the guard
# (these two; appended to LD_PRELOAD; preloaded into the front end too) leaves the program
# spinning before main, with the guard initialised next to libInterceptorInjectionTarget.so
# (both interpose dlsym); without the guard the same command runs. So by default the sanitizer
# runs the program without the guard ("unguarded"), which is safe only because of what this run
# has already proved: the guard's self-test passed and every other GPU step ran this same
# build under the guard with NCCL_NVLS_ENABLE=0, under which the library does not even look up
# a cuMulticast* entry point. The unguarded program also gets MCOLL_NVLS=0. The row says
# "[unguarded]". SAN_WAYS="preload prepend unguarded" tries the guarded ways first.
SAN_WAYS=${SAN_WAYS:-unguarded}
SAN_START_S=${SAN_START_S:-30}
SAN_BAD=
sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")

# sanitizer_step TOOL NP PROG FILTER...: one row for compute-sanitizer --tool TOOL on gpu_PROG -q.
sanitizer_step() {
    local tool=$1 np=$2 prog=$3 rg mps log part way t0 result key tried=
    shift 3
    rg=$(ranks_gpus "$np")
    mps=$(mps_col "$np")
    gpu_ready "$tool" "$rg" "$mps" "$BUILD/tests/gpu/gpu_$prog" || return 0
    step_limit "$tool" "$rg" "$mps" || return 0
    mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 0
    log=$OUT/$tool-$prog-np$np.log
    part=$log.part
    : > "$log"
    t0=$SECONDS
    for way in $SAN_WAYS; do
        case " $SAN_BAD " in *" $way "*) continue ;; esac
        step_limit "$tool" "$rg" "$mps" || return 0
        tried="$tried $way"
        local cmd
        if [ "$way" = unguarded ]; then
            mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 0 0
            cmd=("${MPI[@]}" -x MCOLL_NVLS=0)
        else
            mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 0 1
            cmd=("${MPI[@]}")
        fi
        cmd+=("$sanitizer" --tool "$tool" --target-processes all)
        # shellcheck disable=SC2016 # expanded by the inner shell
        case $way in
            preload) cmd+=(--preload-library "$GUARD") ;;
            prepend) cmd+=(sh -c 'LD_PRELOAD="$0${LD_PRELOAD:+:$LD_PRELOAD}"; export LD_PRELOAD; exec "$@"' "$GUARD") ;;
            unguarded) ;;
        esac
        cmd+=("$BUILD/tests/gpu/gpu_$prog" -q "$@")
        note "start $tool $rg (MPS $mps) gpu_$prog, guard: $way (limit $LIMIT s) -> $log"
        : > "$part"
        echo "# attempt: guard: $way" >> "$part"
        log_command "$part" "${cmd[@]}"
        START_RE='^# gpu_' START_S=$SAN_START_S run_cmd "$LIMIT" "$part" "${cmd[@]}"
        cat "$part" >> "$log"
        if [ "$NOSTART" = 1 ]; then
            SAN_BAD="$SAN_BAD $way"
            note "$tool: gpu_$prog did not start with the guard loaded by $way; not used again"
            continue
        fi
        key=$(key_of "$tool" "$part")
        case $RC in
            0) result=PASS ;;
            124|137) result=FAIL; key="time limit ($LIMIT s)${key:+; $key}" ;;
            *) result=FAIL; key="exit $RC${key:+; $key}" ;;
        esac
        sanitizer_verdict "$part" "$np"
        [ "$S_OK" = 1 ] || result=FAIL
        rm -f "$part"
        record "$tool" "$rg" "$mps" "$result" $((SECONDS - t0)) "$prog [$way]: $S_KEY${key:+; $key}"
        [ "$result" = FAIL ] && show_failure "$log"
        return 0
    done
    rm -f "$part"
    if [ -n "$tried" ]; then tried="tried:$tried"; else tried="failed earlier:$SAN_BAD"; fi
    record "$tool" "$rg" "$mps" FAIL $((SECONDS - t0)) "$prog: the sanitizer never ran it with the guard loaded ($tried)"
}

for tool in $SANITIZER_TOOLS; do
    selected "$tool" || continue
    np=$small_np
    if [ ! -x "$sanitizer" ]; then
        record "$tool" "$(ranks_gpus "$np")" "$(mps_col "$np")" SKIP 0 "no compute-sanitizer"
        continue
    fi
    for prog in native mpi; do
        filter=()
        if [ -n "$USER_FILTER" ]; then filter=(-f "$USER_FILTER")
        elif [ "$tool" = racecheck ] && [ $prog = native ]; then filter=(-f "$RACECHECK_NATIVE")
        elif [ "$tool" = racecheck ]; then filter=(-f "$RACECHECK_MPI"); fi
        sanitizer_step "$tool" "$np" "$prog" ${filter[@]+"${filter[@]}"}
    done
done

# initcheck on the staged path: every device buffer is copied to and from pinned host memory.
if selected initcheck; then
    if [ ! -x "$sanitizer" ]; then
        record initcheck "$(ranks_gpus "$small_np")" "$(mps_col "$small_np")" SKIP 0 "no compute-sanitizer"
    else
        filter=()
        [ -n "$USER_FILTER" ] && filter=(-f "$USER_FILTER")
        MCOLL_ENGINE=staged sanitizer_step initcheck "$small_np" mpi ${filter[@]+"${filter[@]}"}
    fi
fi

if selected overlap; then
    np=$small_np
    for p in iallreduce ibcast iallgather ireduce_scatter; do
        prog=$BUILD/bin/mcoll_osu_$p
        gpu_ready overlap "$(ranks_gpus "$np")" "$(mps_col "$np")" "$prog" || continue
        mps=$(mps_col "$np")
        # Launches made in the calling thread (the default), then handed to the launcher thread.
        for start in 0 1; do
            step=overlap
            [ "$start" = 1 ] && step=overlap-async
            MCOLL_ASYNC_START=$start mpi_cmd "$np" "${mps%%(*}" "$MCOLL_DEBUG" 1
            run_step $step "$(ranks_gpus "$np")" "$mps" "$OUT/$step-$p-np$np.log" "${MPI[@]}" "$prog" \
                -d cuda -m 1K:16M -i 50 -x 5 -f -c
        done
    done
fi

if selected bench; then
    if [ ! -x "$BUILD/bin/mcoll-bench" ]; then
        record bench "$(ranks_gpus "$largest")" "" SKIP 0 "build/bin/mcoll-bench not built"
    else
        mkdir -p "$OUT/bench"
        marker=$OUT/bench/.started
        : > "$marker"
        cd "$OUT/bench" && gpu_step bench "$largest" "$BUILD/bin/mcoll-bench" --quick --output "$OUT/bench"
        cd "$SRCDIR" || exit 1
        # Results written elsewhere in the tree during the run are collected too.
        find "$SRCDIR" -newer "$marker" \( -name '*.csv' -o -name '*.png' \) -not -path "$OUT/*" \
            -exec cp {} "$OUT/bench/" \; 2>/dev/null
        rm -f "$marker"
        note "bench outputs: $(find "$OUT/bench" -type f | sed "s|^$OUT/||" | tr '\n' ' ')"
    fi
fi

if [ "$MPS_STATE" = on ] && [ "$MPS_OWNED" != 1 ]; then
    note "MPS: the daemon on $MPS_PIPE was not started here and is left running"
elif [ "$MPS_STATE" = on ]; then
    if mps_stop; then note "MPS: daemon stopped; logs in $MPS_LOG"
    else record mps "" "" FAIL 0 "$MPS_WHY"; fi
fi

if [ $NO_GPU = 1 ]; then record gpus "" "" FAIL 0 "no NVIDIA GPU found (nvidia-smi -L): nothing was tested on a GPU"; fi

# --- summary --------------------------------------------------------------------------------
failed=0
{
    echo "GPUs:  $NGPUS${GPU_MODEL:+ ($GPU_MODEL)}; driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
    echo "MPS:   $MPS_LINE"
    echo "run:   steps $STEPS; NP $NPS; program args ${PROG_ARGS[*]:-none}; ${MCOLL_COMMIT:-$HEAD_COMMIT}; tree ${TREE_ID:-unknown}"
    printf '%-10s %-10s %-11s %-6s %7s  %s\n' step ranks/GPUs MPS result seconds "key figure"
    for i in "${!R_STEP[@]}"; do
        printf '%-10s %-10s %-11s %-6s %7s  %s\n' "${R_STEP[$i]}" "${R_RG[$i]}" "${R_MPS[$i]}" "${R_RES[$i]}" \
            "${R_SEC[$i]}" "${R_KEY[$i]}"
        [ "${R_RES[$i]}" = FAIL ] && failed=$((failed + 1))
    done
    echo "total $SECONDS s; $failed failed; logs in $OUT"
} > "$OUT/summary.txt"
echo
cat "$OUT/summary.txt"
[ $failed -eq 0 ]
