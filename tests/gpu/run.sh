#!/bin/bash
# The GPU test suite, for a machine with NVIDIA GPUs. Run from the repository root:
#
#   bash tests/gpu/run.sh [--np 2,4] [--steps LIST] [--quick] [--filter F] [--timeout S] [--budget S]
#
# Steps, in order (default: all):
#   build      ./configure --with-cuda-arch=<the GPUs'> && make -j (in-tree, into build/)
#   guard      the cuMulticast guard's self-test (tests/gpu/test_guard.sh); always run when a
#              GPU step is selected, and GPU steps run only when it passed
#   native     build/tests/gpu/gpu_native  at each NP   (native API: the whole matrix)
#   stream     build/tests/gpu/gpu_stream  at each NP   (back-to-back, graphs, two communicators)
#   mpi        build/tests/gpu/gpu_mpi     at each NP   (MPI_* on device buffers via the plug-in)
#   errors     build/tests/gpu/gpu_errors  at each NP   (bad arguments)
#   staged     gpu_mpi -q with MCOLL_ENGINE=staged at NP=2 (the pinned-host fallback path)
#   split      build/tests/gpu/gpu_split   at NP >= 4   (two-rank sub-communicators side by side)
#   sanitizer  compute-sanitizer memcheck on gpu_native -q at NP=2 (or the smallest NP)
#   bench      build/bin/mcoll-bench --quick at the largest NP, if it was built
#
# Safety: refuses to start (exit 2) unless NCCL_NVLS_ENABLE is exactly 0, and if MCOLL_NVLS or
# MCOLL_ENGINE ask for multicast. Every GPU program runs under the guard
# (mpirun -x LD_PRELOAD=build/tests/gpu/libmcoll_guard.so), which aborts a rank before any
# cuMulticast* driver function runs, and the programs themselves refuse to run without it.
#
# Output: $OUT (default ./gpu-out): system.txt, one <step>[-np<N>].log per step, summary.txt,
# bench/ (CSV, PNG). Ends with a table (step, NP, result, seconds, key figure) and exits 0 only
# when nothing failed. Each step has a time limit (--timeout, default 300 s) and the whole run
# keeps within --budget seconds (default 530): steps that would start too late are skipped.
#   --np LIST       rank counts, e.g. 2 or 2,4 (default 2,4; counts above the GPU count skip)
#   --steps LIST    e.g. build,guard,native (the guard step is added when a GPU step is listed)
#   --quick         pass -q to the test programs (small counts only)
#   --filter F      pass -f F to the test programs (cases whose name contains F; commas: any)
# Environment: OUT, MPIRUN (default mpirun), MCOLL_CUDA_ARCH (e.g. sm_90; default from
# nvidia-smi), MCOLL_DEBUG (default WARN), CONFIGURE_ARGS (extra ./configure arguments).
set -u

ALL_STEPS="build guard native stream mpi errors split staged sanitizer bench"
GPU_STEPS="native stream mpi errors split staged sanitizer bench"
NPS="2 4"
STEPS=$ALL_STEPS
PROG_ARGS=()
STEP_TIMEOUT=300
BUDGET=530

usage() { sed -n '2,/^set -u/p' "$0" | sed -e 's/^# \{0,1\}//' -e '/^set -u/d'; }
die() { echo "run.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --np) [ $# -ge 2 ] || die "--np needs a list"; NPS=$(echo "$2" | tr ',' ' '); shift ;;
        --np=*) NPS=$(echo "${1#*=}" | tr ',' ' ') ;;
        --steps) [ $# -ge 2 ] || die "--steps needs a list"; STEPS=$(echo "$2" | tr ',' ' '); shift ;;
        --steps=*) STEPS=$(echo "${1#*=}" | tr ',' ' ') ;;
        --quick) PROG_ARGS+=(-q) ;;
        --filter) [ $# -ge 2 ] || die "--filter needs a value"; PROG_ARGS+=(-f "$2"); shift ;;
        --filter=*) PROG_ARGS+=(-f "${1#*=}") ;;
        --timeout) [ $# -ge 2 ] || die "--timeout needs seconds"; STEP_TIMEOUT=$2; shift ;;
        --timeout=*) STEP_TIMEOUT=${1#*=} ;;
        --budget) [ $# -ge 2 ] || die "--budget needs seconds"; BUDGET=$2; shift ;;
        --budget=*) BUDGET=${1#*=} ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done
for np in $NPS; do
    case "$np" in ''|*[!0-9]*) die "bad rank count '$np'" ;; esac
    [ "$np" -ge 1 ] || die "bad rank count '$np'"
done
for s in $STEPS; do
    case " $ALL_STEPS " in *" $s "*) ;; *) die "unknown step '$s' (steps: $ALL_STEPS)" ;; esac
done
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
for s in $GPU_STEPS; do
    if selected "$s" && ! selected guard; then STEPS="$STEPS guard"; fi
done

SRCDIR=$(cd "$(dirname "$0")/../.." && pwd) || die "cannot find the repository root"
cd "$SRCDIR" || die "cannot enter $SRCDIR"
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
SECONDS=0

elapsed() { printf '%3d:%02d' $((SECONDS / 60)) $((SECONDS % 60)); }
note() { echo "[$(elapsed)] $*"; }

# --- the machine ----------------------------------------------------------------------------
{
    echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host:      $(hostname 2>/dev/null)"
    echo "source:    $SRCDIR ($(git -C "$SRCDIR" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
    echo "steps:     $STEPS; NP: $NPS; program args: ${PROG_ARGS[*]:-none}"
    echo "env:       NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE MCOLL_DEBUG=$MCOLL_DEBUG MCOLL_NVLS=${MCOLL_NVLS-unset}" \
         "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-unset}"
    echo "mpi:       $("$MPIRUN" --version 2>&1 | head -n 1); OMPI_MCA_pml=$OMPI_MCA_pml OMPI_MCA_btl=$OMPI_MCA_btl"
    echo "nvcc:      $( (nvcc --version || /usr/local/cuda/bin/nvcc --version) 2>/dev/null | tail -n 1)"
    echo
    echo "\$ nvidia-smi -L"
    nvidia-smi -L 2>&1
    echo
    echo "\$ nvidia-smi --query-gpu=index,name,compute_cap,memory.used,memory.total,driver_version --format=csv"
    nvidia-smi --query-gpu=index,name,compute_cap,memory.used,memory.total,driver_version --format=csv 2>&1
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
note "GPUs usable: $NGPUS"
NO_GPU=0
for s in $GPU_STEPS; do
    if selected "$s" && [ "$NGPUS" -eq 0 ]; then NO_GPU=1; fi
done

# --- bookkeeping ----------------------------------------------------------------------------
R_STEP=() R_NP=() R_RES=() R_SEC=() R_KEY=()
record() { # step np result seconds key
    R_STEP+=("$1"); R_NP+=("${2:--}"); R_RES+=("$3"); R_SEC+=("$4"); R_KEY+=("$5")
    note "$3 $1${2:+ np=$2} ($4 s)${5:+: $5}"
}

# The key figure of a finished step, from its log.
key_of() { # step log
    case "$1" in
        build)
            problem=$(grep -m 1 -E ': error|undefined reference|multiple definition|Error [0-9]' "$2")
            if [ -n "$problem" ]; then echo "$problem" | cut -c1-110
            else echo "${arch:-default targets}; $(find "$BUILD/tests/gpu" -maxdepth 1 -name 'gpu_*' -type f 2>/dev/null | wc -l) GPU test programs"; fi ;;
        guard) grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1 ;;
        sanitizer)
            errors=$(grep -o 'ERROR SUMMARY: [0-9]* error' "$2" | awk '{s += $3} END {print s + 0}')
            echo "memcheck errors: $errors; $(grep -E ' passed, [0-9]+ failed' "$2" | tail -n 1 | sed 's/^[^:]*: //')" ;;
        bench) grep -v '^#' "$2" | grep . | tail -n 1 | cut -c1-70 ;;
        *) grep -E ' passed, [0-9]+ failed' "$2" | tail -n 1 | sed 's/^[^:]*: //' ;;
    esac
}

# run_step STEP NP COMMAND...: run under the time limit, log to $OUT, record the outcome.
run_step() {
    local step=$1 np=$2 log limit left t0 rc result key
    shift 2
    log=$OUT/$step${np:+-np$np}.log
    left=$((BUDGET - SECONDS))
    if [ "$left" -lt 30 ]; then
        record "$step" "$np" SKIP 0 "time budget (${BUDGET} s) spent"
        return 1
    fi
    limit=$STEP_TIMEOUT
    [ "$limit" -gt $((left - 15)) ] && limit=$((left - 15))
    note "start $step${np:+ np=$np} (limit $limit s) -> $log"
    { echo "\$ $*"; echo "# limit $limit s"; } > "$log"
    t0=$SECONDS
    timeout -k 10 "$limit" "$@" >> "$log" 2>&1
    rc=$?
    key=$(key_of "$step" "$log")
    case $rc in
        0) result=PASS ;;
        77) result=SKIP; key=$(grep -m 1 -i 'skip' "$log" | cut -c1-70) ;;
        124|137) result=FAIL; key="time limit ($limit s); ${key}" ;;
        *) result=FAIL; key="exit $rc; ${key}" ;;
    esac
    record "$step" "$np" "$result" $((SECONDS - t0)) "$key"
    if [ "$result" = FAIL ]; then
        if grep -q '^FAIL ' "$log"; then grep '^FAIL ' "$log" | head -n 12 | cut -c1-300 | sed 's/^/    /'
        else tail -n 12 "$log" | cut -c1-300 | sed 's/^/    /'; fi
    fi
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
    run_step build "" bash -c '$CONFIGURE_LINE && make -j"$JOBS"' || BUILD_OK=0
fi

# --- guard ----------------------------------------------------------------------------------
GUARD_OK=0
if selected guard; then
    if [ $BUILD_OK = 1 ]; then
        run_step guard "" sh "$SRCDIR/tests/gpu/test_guard.sh" && GUARD_OK=1
    else
        record guard "" SKIP 0 "the build failed"
    fi
    if [ $GUARD_OK = 1 ] && [ ! -f "$GUARD" ]; then
        record guard-lib "" FAIL 0 "$GUARD is missing"
        GUARD_OK=0
    fi
fi

# --- GPU programs ---------------------------------------------------------------------------
mpi_cmd() { # np: the mpirun prefix every GPU program runs under
    MPI=("$MPIRUN" --allow-run-as-root -np "$1" --bind-to none
         -x NCCL_NVLS_ENABLE -x MCOLL_DEBUG -x MCOLL_TEST_REQUIRE_GUARD=1)
    if [ -z "${SANITIZE-}" ]; then MPI+=(-x "LD_PRELOAD=$GUARD"); fi
    if [ -n "${MCOLL_ENGINE-}" ]; then MPI+=(-x "MCOLL_ENGINE=$MCOLL_ENGINE"); fi
}

# gpu_step STEP NP PROGRAM ARGS...: the common checks, then the program under mpirun.
gpu_step() {
    local step=$1 np=$2 prog=$3
    shift 3
    if [ $BUILD_OK = 0 ]; then record "$step" "$np" SKIP 0 "the build failed"; return; fi
    if [ $GUARD_OK = 0 ]; then record "$step" "$np" FAIL 0 "not run: the guard self-test did not pass"; return; fi
    if [ "$np" -gt "$NGPUS" ]; then record "$step" "$np" SKIP 0 "only $NGPUS GPUs"; return; fi
    if [ ! -x "$prog" ]; then record "$step" "$np" FAIL 0 "$prog was not built"; return; fi
    mpi_cmd "$np"
    run_step "$step" "$np" "${MPI[@]}" "$prog" "$@"
}

for step in native stream mpi errors split; do
    selected $step || continue
    for np in $NPS; do
        if [ $step = split ] && [ "$np" -lt 4 ]; then
            record split "$np" SKIP 0 "needs 4 ranks"
            continue
        fi
        gpu_step $step "$np" "$BUILD/tests/gpu/gpu_$step" ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
    done
done

smallest=$(for np in $NPS; do echo "$np"; done | sort -n | head -n 1)
largest=$(for np in $NPS; do [ "$np" -le "$NGPUS" ] && echo "$np"; done | sort -n | tail -n 1)
small_np=2
case " $NPS " in *" 2 "*) ;; *) small_np=$smallest ;; esac

if selected staged; then
    # Every device-buffer call through pinned host memory and MPI: the path the engines fall back to.
    MCOLL_ENGINE=staged gpu_step staged "$small_np" "$BUILD/tests/gpu/gpu_mpi" -q ${PROG_ARGS[@]+"${PROG_ARGS[@]}"}
fi

if selected sanitizer; then
    np=$small_np
    sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
    if [ ! -x "$sanitizer" ]; then
        record sanitizer "$np" SKIP 0 "no compute-sanitizer"
    else
        # Memcheck makes every kernel slow: quick counts only, whatever --quick says.
        # The guard is preloaded into the checked program only (through env), not into the
        # sanitizer's own front end, which cannot attach with it.
        SANITIZE=1 gpu_step sanitizer "$np" "$sanitizer" --tool memcheck --error-exitcode 9 --target-processes all \
            env "LD_PRELOAD=$GUARD" "$BUILD/tests/gpu/gpu_native" -q
    fi
fi

if selected bench; then
    if [ ! -x "$BUILD/bin/mcoll-bench" ]; then
        record bench "${largest:-}" SKIP 0 "build/bin/mcoll-bench not built"
    elif [ -z "$largest" ]; then
        record bench "" SKIP 0 "no rank count fits $NGPUS GPUs"
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

if [ $NO_GPU = 1 ]; then record gpus "" FAIL 0 "no NVIDIA GPU found (nvidia-smi -L): nothing was tested on a GPU"; fi

# --- summary --------------------------------------------------------------------------------
failed=0
{
    printf '%-10s %-3s %-6s %7s  %s\n' step np result seconds "key figure"
    for i in "${!R_STEP[@]}"; do
        printf '%-10s %-3s %-6s %7s  %s\n' "${R_STEP[$i]}" "${R_NP[$i]}" "${R_RES[$i]}" "${R_SEC[$i]}" "${R_KEY[$i]}"
        [ "${R_RES[$i]}" = FAIL ] && failed=$((failed + 1))
    done
    echo "total $SECONDS s; $failed failed; logs in $OUT"
} > "$OUT/summary.txt"
echo
cat "$OUT/summary.txt"
[ $failed -eq 0 ]
