#!/bin/sh
# The multicast guard (tests/gpu/guard/guard.c) proves the kill switch on every GPU run, so it
# is proven first, here: every route to a cuMulticast* function must abort under the guard
# before a driver is reached, a lookup alone must not (unless MCOLL_GUARD_STRICT=1), and
# programs that never touch multicast must behave exactly as without it. Runs without a GPU:
# the driver is a fake libcuda.so.1 built here (tests/gpu/guard/fake_libcuda.c), and also
# libcuda.so.1 or the toolkit stub when there is one. Safe on GPU machines: the self-test
# calls a multicast pointer only when it lies inside the guard.
# Environment: BUILD (build dir, absolute), SRCDIR; CC, CUDA_HOME, MPIRUN optional.
# Exit: 0 pass, 1 fail, 77 skip.
set -u
BUILD=${BUILD:?BUILD must name the build directory}
SRCDIR=${SRCDIR:?SRCDIR must name the source directory}
CC=${CC:-cc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
SRC=$SRCDIR/tests/gpu/guard
OUT=$BUILD/tests/gpu/guard
GUARD=$BUILD/tests/gpu/libmcoll_guard.so
FAKE=$OUT/fake/libcuda.so.1
LOG=$OUT/log
ulimit -c 0 2>/dev/null
mkdir -p "$OUT/fake" "$LOG" || exit 1
# Lower-level settings from the caller's environment would change what is tested. The
# multicast switches are left exactly as the machine has them.
unset LD_PRELOAD MCOLL_GUARD_VERBOSE MCOLL_GUARD_STRICT MCOLL_GUARD_EXPECTED \
    MCOLL_GUARD_SELFTEST_LIBCUDA

command -v "$CC" >/dev/null 2>&1 || { echo "skip: no C compiler ($CC)"; exit 77; }

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
show_log() { sed 's/^/       | /' "$1" | head -n 15; }

# stale TARGET SOURCE...: the target is missing or older than a source or this script
stale() {
    t=$1; shift
    [ -f "$t" ] || return 0
    [ -n "$(find "$@" "$SRCDIR/tests/gpu/test_guard.sh" -newer "$t" 2>/dev/null)" ]
}

build() { # target, then the compiler command line
    t=$1; shift
    if ! "$@" > "$LOG/build.txt" 2>&1; then
        echo "FAIL building $t:"; show_log "$LOG/build.txt"; exit 1
    fi
}

# --- builds ---------------------------------------------------------------------------------
# Normally make has built it; only a missing or outdated one is built here.
if [ ! -f "$GUARD" ] || [ -n "$(find "$SRC/guard.c" -newer "$GUARD")" ]; then
    GCC_FOR_GUARD=$CC; command -v mpicc >/dev/null 2>&1 && GCC_FOR_GUARD=mpicc
    build "$GUARD" $GCC_FOR_GUARD -std=c11 -Wall -Wextra -fPIC -shared "$SRC/guard.c" -o "$GUARD" -ldl
fi
# Its symbols get a version node so that dlvsym can find them: glibc's dlvsym refuses an
# unversioned definition in an object that has a version table (as the real driver does).
if stale "$FAKE" "$SRC/fake_libcuda.c"; then
    echo 'MCOLL_FAKE_CUDA { global: *; };' > "$OUT/fake/libcuda.map"
    build "$FAKE" $CC -std=c11 -Wall -Wextra -fPIC -shared -Wl,-soname,libcuda.so.1 \
        -Wl,--version-script,"$OUT/fake/libcuda.map" "$SRC/fake_libcuda.c" -o "$FAKE"
fi
ln -sf libcuda.so.1 "$OUT/fake/libcuda.so"
ST=$OUT/selftest STL=$OUT/selftest-linked
stale "$ST" "$SRC/selftest.c" &&
    build "$ST" $CC -std=c11 -Wall -Wextra "$SRC/selftest.c" -o "$ST" -ldl
stale "$STL" "$SRC/selftest.c" "$FAKE" &&
    build "$STL" $CC -std=c11 -Wall -Wextra -DSELFTEST_LINKED "$SRC/selftest.c" -o "$STL" \
        -L"$OUT/fake" -Wl,-rpath,"$OUT/fake" -lcuda -ldl
SEM=$OUT/semantics
if stale "$SEM" "$SRC/semantics.c"; then
    for lib in A B Q G; do
        build "$OUT/libsem$lib.so" $CC -std=c11 -Wall -Wextra -fPIC -shared -DSEM_LIB=$lib \
            "$SRC/semantics.c" -o "$OUT/libsem$lib.so" -ldl
    done
    build "$OUT/libsemP.so" $CC -std=c11 -Wall -Wextra -fPIC -shared -DSEM_LIB=P \
        "$SRC/semantics.c" -o "$OUT/libsemP.so" -Wl,--no-as-needed -L"$OUT" -lsemQ \
        -Wl,-rpath,"$OUT" -ldl
    build "$SEM" $CC -std=c11 -Wall -Wextra "$SRC/semantics.c" -o "$SEM" -Wl,--no-as-needed \
        -L"$OUT" -lsemA -lsemB -Wl,-rpath,"$OUT" -ldl
fi
STM=
if command -v mpicc >/dev/null 2>&1; then
    STM=$OUT/selftest-mpi
    stale "$STM" "$SRC/selftest.c" &&
        build "$STM" mpicc -std=c11 -Wall -Wextra -DSELFTEST_MPI "$SRC/selftest.c" -o "$STM" -ldl
fi

# --- the guard as built ---------------------------------------------------------------------
if $CC -std=c11 -Wall -Wextra -Werror -fPIC -shared "$SRC/guard.c" -o "$OUT/guard-werror.so" \
        -ldl > "$LOG/werror.txt" 2>&1; then
    ok "guard.c compiles with -Wall -Wextra -Werror"
else
    bad "guard.c has warnings"; show_log "$LOG/werror.txt"
fi
CUDA_H=$CUDA_HOME/include/cuda.h
if [ -f "$CUDA_H" ]; then
    if $CC -std=c11 -Wall -Wextra -Werror -fPIC -shared -DMCOLL_GUARD_CHECK_CUDA_H \
            -I"$CUDA_HOME/include" "$SRC/guard.c" -o "$OUT/guard-cuda-h.so" -ldl \
            > "$LOG/cuda-h.txt" 2>&1; then
        ok "the guard's definitions match $CUDA_H"
    else
        bad "the guard's definitions differ from $CUDA_H"; show_log "$LOG/cuda-h.txt"
    fi
    declared=$(grep -o 'CUDAAPI cuMulticast[A-Za-z0-9_]*' "$CUDA_H" | sed 's/CUDAAPI //' | sort -u)
    if command -v nm >/dev/null 2>&1; then
        exported=$(nm -D --defined-only "$GUARD" | awk '{print $3}')
        missing=
        for f in $declared; do
            echo "$exported" | grep -qx "$f" || missing="$missing $f"
        done
        if [ -z "$missing" ] && [ -n "$declared" ]; then
            ok "the guard defines all $(echo "$declared" | wc -l | tr -d ' ') cuMulticast* functions cuda.h declares"
        else
            bad "cuda.h declares cuMulticast* functions the guard does not define:${missing:- (none found in cuda.h)}"
        fi
    else
        echo "note: no nm; exported names not checked"
    fi
else
    echo "note: no $CUDA_H; prototypes and the list of names not checked against it"
fi

# --- routes ---------------------------------------------------------------------------------
# expect_abort LABEL WANTED_LINE ENV... -- PROGRAM ARGS...: SIGABRT, and WANTED_LINE on stderr
n=0
expect_abort() {
    label=$1 want=$2; shift 2
    n=$((n + 1)); log=$LOG/$n.txt
    env "$@" > "$log" 2>&1; rc=$?
    if [ $rc -eq 134 ] && grep -qxF "$want" "$log"; then
        ok "$label"
    else
        bad "$label (exit $rc; wanted SIGABRT and: $want)"; show_log "$log"
    fi
}
# expect_exit LABEL STATUS ENV... PROGRAM ARGS...
expect_exit() {
    label=$1 want=$2; shift 2
    n=$((n + 1)); log=$LOG/$n.txt
    env "$@" > "$log" 2>&1; rc=$?
    if [ $rc -eq "$want" ]; then
        ok "$label"
    else
        bad "$label (exit $rc, wanted $want)"; show_log "$log"
    fi
}
called() { # function, route text
    echo "mcoll guard: $1 reached through $2 with the multicast kill switch set; aborting before the driver is touched"
}
G="LD_PRELOAD=$GUARD NCCL_NVLS_ENABLE=0 MCOLL_GUARD_EXPECTED=1"

# Drivers: the fake always; whatever libcuda.so.1 or stub this machine has, when it has one.
DRIVERS=fake
if env "$ST" probe > "$LOG/probe.txt" 2>&1; then
    DRIVERS="fake system"; echo "note: also testing with $(sed 's/^selftest: //' "$LOG/probe.txt")"
else
    echo "note: no libcuda.so.1 or toolkit stub here; routes tested with the fake driver only"
fi

for drv in $DRIVERS; do
    if [ "$drv" = fake ]; then D="MCOLL_GUARD_SELFTEST_LIBCUDA=$FAKE"; else D="MCOLL_GUARD_SELFTEST_LIBCUDA="; fi
    for f in cuMulticastCreate cuMulticastAddDevice cuMulticastBindMem cuMulticastBindAddr \
             cuMulticastUnbind cuMulticastGetGranularity; do
        expect_abort "[$drv] dlsym on the driver's handle: $f" "$(called $f dlsym)" \
            $G $D "$ST" dlsym $f
    done
    expect_abort "[$drv] dlsym(RTLD_DEFAULT)" "$(called cuMulticastGetGranularity dlsym)" \
        $G $D "$ST" dlsym-default cuMulticastGetGranularity
    expect_abort "[$drv] dlsym(RTLD_NEXT)" "$(called cuMulticastCreate dlsym)" \
        $G $D "$ST" dlsym-next cuMulticastCreate
    n=$((n + 1)); log=$LOG/$n.txt
    env $G $D "$ST" dlvsym cuMulticastBindMem > "$log" 2>&1; rc=$?
    if [ $rc -eq 134 ] && grep -qxF "$(called cuMulticastBindMem dlvsym)" "$log"; then
        ok "[$drv] dlvsym"
    elif [ $rc -eq 6 ] && [ "$drv" = system ]; then
        echo "note: [$drv] dlvsym finds nothing in this driver library (versioned object); dlvsym covered by the fake"
    else
        bad "[$drv] dlvsym (exit $rc)"; show_log "$log"
    fi
    expect_abort "[$drv] cuGetProcAddress_v2 found with dlsym" \
        "$(called cuMulticastGetGranularity cuGetProcAddress_v2)" \
        $G $D "$ST" getprocaddress-via-dlsym cuMulticastGetGranularity
    expect_abort "[$drv] cuGetProcAddress found with dlsym" \
        "$(called cuMulticastCreate cuGetProcAddress)" \
        $G $D "$ST" getprocaddress-v1-via-dlsym cuMulticastCreate
    expect_abort "[$drv] an unlisted cuMulticast* name through cuGetProcAddress_v2" \
        "$(called cuMulticastFutureCall cuGetProcAddress_v2)" \
        $G $D "$ST" getprocaddress-via-dlsym cuMulticastFutureCall
    n=$((n + 1)); log=$LOG/$n.txt
    env $G $D "$ST" getprocaddress-nested cuMulticastBindAddr > "$log" 2>&1; rc=$?
    if [ $rc -eq 134 ] && grep -qxF "$(called cuMulticastBindAddr cuGetProcAddress_v2)" "$log"; then
        ok "[$drv] the driver's cuGetProcAddress fetched through itself"
    elif [ $rc -eq 6 ] && [ "$drv" = system ]; then
        echo "note: [$drv] this driver library does not hand out cuGetProcAddress (the stub); nested route covered by the fake"
    else
        bad "[$drv] the driver's cuGetProcAddress fetched through itself (exit $rc)"; show_log "$log"
    fi
    expect_exit "[$drv] lookup-only runs under the guard" 0 $G $D "$ST" lookup-only
    expect_abort "[$drv] lookup-only aborts with MCOLL_GUARD_STRICT=1" \
        "mcoll guard: cuMulticastCreate looked up through dlsym with MCOLL_GUARD_STRICT=1 with the multicast kill switch set; aborting before the driver is touched" \
        $G MCOLL_GUARD_STRICT=1 $D "$ST" lookup-only
    expect_exit "[$drv] lookup-only runs without the guard" 0 $D "$ST" lookup-only
    expect_exit "[$drv] clean program under the guard" 0 $G $D "$ST" clean
    if grep -q "mcoll guard" "$log"; then bad "[$drv] the guard printed in a clean run"; show_log "$log"; fi
    expect_exit "[$drv] clean program under the guard, strict" 0 $G MCOLL_GUARD_STRICT=1 $D "$ST" clean
    expect_exit "[$drv] clean program without the guard" 0 $D "$ST" clean
done

# The build linked to libcuda (the fake) for plain calls.
L="MCOLL_GUARD_SELFTEST_LIBCUDA=$FAKE LD_LIBRARY_PATH=$OUT/fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
expect_abort "direct call: cuMulticastCreate" "$(called cuMulticastCreate 'a direct call')" \
    $G $L "$STL" direct cuMulticastCreate
expect_abort "direct call: cuMulticastUnbind" "$(called cuMulticastUnbind 'a direct call')" \
    $G $L "$STL" direct cuMulticastUnbind
expect_abort "cuGetProcAddress_v2 called directly" \
    "$(called cuMulticastGetGranularity cuGetProcAddress_v2)" \
    $G $L "$STL" getprocaddress cuMulticastGetGranularity
expect_abort "cuGetProcAddress called directly" "$(called cuMulticastAddDevice cuGetProcAddress)" \
    $G $L "$STL" getprocaddress-v1 cuMulticastAddDevice
expect_exit "linked clean program under the guard" 0 $G $L "$STL" clean

# The kill switch in the message; the guard aborts whether or not it is set.
expect_abort "MCOLL_NVLS=0 counts as the kill switch" "$(called cuMulticastCreate dlsym)" \
    LD_PRELOAD="$GUARD" MCOLL_NVLS=0 MCOLL_GUARD_EXPECTED=1 $L "$ST" dlsym cuMulticastCreate

# The self-test's own interlocks.
expect_exit "self-test refuses to call without the guard" 3 \
    NCCL_NVLS_ENABLE=0 MCOLL_GUARD_EXPECTED=1 $L "$ST" dlsym cuMulticastCreate
expect_exit "self-test refuses to call without MCOLL_GUARD_EXPECTED=1" 3 \
    LD_PRELOAD="$GUARD" NCCL_NVLS_ENABLE=0 $L "$ST" dlsym cuMulticastCreate

# Verbose mode.
n=$((n + 1)); log=$LOG/$n.txt
env $G MCOLL_GUARD_VERBOSE=1 $L "$ST" lookup-only > "$log" 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q '^mcoll guard: active in pid' "$log" &&
        grep -q '^mcoll guard: lookup 1: cuMulticastCreate through dlsym' "$log" &&
        grep -q '^mcoll guard: lookup 4: cuMulticastUnbind through cuGetProcAddress_v2' "$log" &&
        grep -q 'exits after 4 multicast lookups and no multicast call' "$log"; then
    ok "MCOLL_GUARD_VERBOSE=1 reports the load, each lookup and the count"
else
    bad "MCOLL_GUARD_VERBOSE=1 output (exit $rc)"; show_log "$log"
fi

# dlsym semantics relative to the caller: the same answers with and without the guard.
if env "$SEM" "$OUT" > "$LOG/semantics-native.txt" 2>&1; then
    env LD_PRELOAD="$GUARD" NCCL_NVLS_ENABLE=0 "$SEM" "$OUT" > "$LOG/semantics-guard.txt" 2>&1; rc=$?
    if [ $rc -eq 0 ] && cmp -s "$LOG/semantics-native.txt" "$LOG/semantics-guard.txt"; then
        ok "dlsym/dlvsym RTLD_NEXT, RTLD_DEFAULT and handles answer as without the guard ($(wc -l < "$LOG/semantics-native.txt" | tr -d ' ') lookups)"
    else
        bad "dlsym semantics differ under the guard (exit $rc):"
        diff "$LOG/semantics-native.txt" "$LOG/semantics-guard.txt" | head -n 20 | sed 's/^/       | /'
    fi
else
    bad "the semantics program fails without the guard"; show_log "$LOG/semantics-native.txt"
fi

# Ordinary programs under the guard.
expect_exit "sh runs under the guard" 0 LD_PRELOAD="$GUARD" NCCL_NVLS_ENABLE=0 sh -c 'exit 0'
if [ -n "$STM" ]; then
    MPIRUN=${MPIRUN:-mpirun}
    MPIENV="OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
    if env $MPIENV timeout 120 "$MPIRUN" -np 2 "$STM" mpi > "$LOG/mpi-native.txt" 2>&1; then
        expect_exit "MPI program under the guard (mpirun preloaded too)" 0 \
            LD_PRELOAD="$GUARD" NCCL_NVLS_ENABLE=0 $MPIENV timeout 120 "$MPIRUN" -np 2 "$STM" mpi
        if grep -q "mcoll guard" "$log"; then bad "the guard printed in an MPI run"; show_log "$log"; fi
    else
        echo "note: $MPIRUN does not run here without the guard either; MPI run skipped"
    fi
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
