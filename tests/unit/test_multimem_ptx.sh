#!/bin/sh
# The collective kernels, compiled for sm_90 and sm_100 from the same sources and include paths
# as the build, contain every multimem instruction the multimem layer uses (ld_reduce in each
# form multimem_table.cuh promises, st; no red: arrival is unicast) and the unicast layer's system-scope atomics; with
# MCOLL_NO_MULTIMEM the multimem helpers become traps. Needs only nvcc (no GPU, no cuobjdump).
# Environment: BUILD (build dir), SRCDIR (source dir); NVCC optional.
set -u
. "$(dirname "$0")/nvcc_env.sh"
if [ -f "$BUILD/../Makefile" ] && grep -q 'MCOLL_NO_MULTIMEM' "$BUILD/../Makefile"; then
    echo "skip: configure disabled the multicast kernels (nvcc cannot assemble multimem)"
    exit 77
fi
# PTX of one source with the build's include paths: ptx SRC OUT [nvcc options]
ptx() {
    src=$1 out=$2
    shift 2
    "$NVCC" -std=c++17 -O3 "$@" -I"$SRCDIR/include" -I"$SRCDIR/src" -I"$SRCDIR/collectives" \
        -I"$CUDA_INC" -ptx "$src" -o "$out"
}

tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_multimem_ptx.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# Both targets build at once; each writes its PTX into its own directory.
for arch in sm_90 sm_100; do
    (
        mkdir -p "$tmp/$arch"
        for src in "$SRCDIR"/collectives/*.cu; do
            name=$(basename "$src" .cu)
            ptx "$src" "$tmp/$arch/$name.ptx" -arch="$arch" > "$tmp/$arch/$name.log" 2>&1 ||
                { cat "$tmp/$arch/$name.log"; exit 1; }
        done
    ) &
done
wait
for arch in sm_90 sm_100; do
    n=0 m=0
    for src in "$SRCDIR"/collectives/*.cu; do
        m=$((m + 1))
        [ -s "$tmp/$arch/$(basename "$src" .cu).ptx" ] && n=$((n + 1))
    done
    if [ "$n" -ne "$m" ]; then
        echo "FAIL: $arch: $n of $m collectives sources compiled to PTX"
        cat "$tmp/$arch"/*.log
        exit 1
    fi
done

# expect ARCH PATTERN WHAT: the PTX for ARCH has an instruction matching PATTERN (grep -E).
expect() {
    if cat "$tmp/$1"/*.ptx | grep -Eq "$2"; then
        echo "ok   $1: $3"
    else
        echo "FAIL $1: no $3 ($2)"
        status=1
    fi
}

for arch in sm_90 sm_100; do
    # multimem layer: one pattern per instruction form in collectives/ptx.cuh
    for form in add.v4.f32 add.f64 \
                add.acc::f32.v4.f16x2 min.v4.f16x2 max.v4.f16x2 \
                add.acc::f32.v4.bf16x2 min.v4.bf16x2 max.v4.bf16x2 \
                add.u32 min.u32 max.u32 min.s32 max.s32 \
                add.u64 min.u64 max.u64 min.s64 max.s64 \
                and.b64 or.b64 xor.b64; do
        re=$(printf '%s' "$form" | sed 's/\./\\./g')
        expect "$arch" "multimem\.ld_reduce\.global\.${re}[[:space:]]" "multimem.ld_reduce .$form"
    done
    expect "$arch" 'multimem\.st\.global\.v4\.f32[[:space:]]' "multimem.st .v4.f32"
    # Barrier arrival is unicast on both layers (collectives/README.md, "Memory model").
    if cat "$tmp/$arch"/*.ptx | grep -Eq 'multimem\.red'; then
        echo "FAIL $arch: multimem.red present (arrival must go through the unicast mappings)"; status=1
    else
        echo "ok   $arch: no multimem.red (unicast arrival)"
    fi
    expect "$arch" 'fence\.proxy\.alias;' "fence.proxy.alias"
    # unicast layer and barrier
    expect "$arch" '^[[:space:]]*red\.release\.sys\.global\.add\.u64[[:space:]]' "red.release.sys .add.u64 (unicast arrival)"
    expect "$arch" 'ld\.acquire\.sys\.global\.u64[[:space:]]' "ld.acquire.sys .u64 (barrier wait)"
    expect "$arch" 'ld\.volatile\.global\.u32[[:space:]]' "ld.volatile .u32 (the host's abort flag)"
    expect "$arch" 'nanosleep\.u32[[:space:]]' "nanosleep (backoff of long waits)"
    expect "$arch" 'ld\.global\.v4\.b32[[:space:]]' "16-byte peer loads"
    expect "$arch" 'st\.global\.v4\.b32[[:space:]]' "16-byte peer stores"
    # Programmatic dependent launch (MCOLL_PDL): every launched LL kernel (ll_kernel and each
    # ll_reduce_kernel) lets the next kernel launch and waits for the ones before it ahead of any
    # load or store but its parameters' (ptx.cuh).
    bad=$(awk '/\.entry / { if (name != "" && seen != want) print name; name = ""; seen = ""
                             if ($0 ~ /ll_kernel|ll_reduce_kernel/) { name = $NF; n = 0 } }
               name != "" && n < 2 && (/griddepcontrol\.(wait|launch_dependents)/ || /^[[:space:]]*(ld|st|atom|red)\./) && !/ld\.param/ {
                   seen = seen $1 " "; n++ }
               END { if (name != "" && seen != want) print name }' \
              want="griddepcontrol.launch_dependents; griddepcontrol.wait; " "$tmp/$arch/ll_run.ptx")
    kernels=$(grep -cE '\.entry .*(ll_kernel|ll_reduce_kernel)' "$tmp/$arch/ll_run.ptx")
    if [ -z "$bad" ] && [ "$kernels" -gt 1 ]; then
        echo "ok   $arch: the $kernels launched LL kernels wait for the kernels before them first (griddepcontrol)"
    else
        echo "FAIL $arch: LL kernels that touch memory before griddepcontrol.launch_dependents and .wait (of $kernels): $bad"
        status=1
    fi
done

# Below sm_90 the griddepcontrol helpers are empty (mcoll_launch_pdl_available then keeps PDL off).
cat > "$tmp/pdl.cu" <<'EOF'
#include "ptx.cuh"
__global__ void probe() { mcoll::griddep_launch_dependents(); mcoll::griddep_wait(); }
EOF
if ptx "$tmp/pdl.cu" "$tmp/pdl80.ptx" -arch=sm_80 > "$tmp/pdl.log" 2>&1 && ! grep -q griddepcontrol "$tmp/pdl80.ptx"; then
    echo "ok   sm_80: no griddepcontrol"
else
    cat "$tmp/pdl.log"; echo "FAIL sm_80: griddepcontrol emitted or the helpers do not compile"; status=1
fi

# With MCOLL_NO_MULTIMEM (old nvcc) the helpers still compile, as traps.
cat > "$tmp/trap.cu" <<'EOF'
#include "ptx.cuh"
__global__ void probe(const void *mc, uint4 *out) {
    out[0] = mcoll::multimem_ld_reduce_add_v4f32(mc);
    mcoll::multimem_st_v4f32((void *)mc, out[1]);
}
EOF
if ptx "$tmp/trap.cu" "$tmp/trap.ptx" -arch=sm_90 -DMCOLL_NO_MULTIMEM > "$tmp/trap.log" 2>&1; then
    if grep -q 'multimem\.' "$tmp/trap.ptx"; then
        echo "FAIL MCOLL_NO_MULTIMEM: multimem instructions still emitted"; status=1
    elif grep -q 'trap;' "$tmp/trap.ptx"; then
        echo "ok   MCOLL_NO_MULTIMEM: multimem helpers compile to trap"
    else
        echo "FAIL MCOLL_NO_MULTIMEM: no trap in the helpers"; status=1
    fi
else
    cat "$tmp/trap.log"; echo "FAIL MCOLL_NO_MULTIMEM: helpers do not compile"; status=1
fi

[ $status -eq 0 ] && echo "PASS: multimem and unicast instructions present for sm_90 and sm_100"
exit $status
