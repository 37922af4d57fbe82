#!/bin/sh
# Every launched kernel ends with the completion word's epilogue (collectives/completion.cuh):
# compiled for sm_90 as the build does, each kernel entry but the resident kernel (which has its
# ring's done count) and the module anchors holds the block count (atom.global.add.u32) and the
# word's system-scope release store (st.release.sys.global.u64), and the resident kernel holds
# no such count, so the count is the epilogue's. The kernels of the files checked need no stack
# with it (a frame costs local memory for every thread the GPU can hold:
# test_kernel_stack.sh). Of the reductions' files only reduce_pair.cu (MINLOC and MAXLOC pairs)
# is compiled, for time: the others instantiate the same two kernels of reduce_kernel.cuh.
# Needs only nvcc.
# Environment: BUILD (build dir), SRCDIR (source dir); NVCC optional.
set -u
. "$(dirname "$0")/nvcc_env.sh"
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_completion_ptx.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM
status=0

# One compile per file gives the PTX (kept) and ptxas's report; the two slow ones side by side.
build_one() {
    name=$1
    mkdir -p "$tmp/$name"
    "$NVCC" -std=c++17 -O3 -arch=sm_90 -Xptxas -v -I"$SRCDIR/include" -I"$SRCDIR/src" -I"$SRCDIR/collectives" \
        -I"$CUDA_INC" -cubin --keep --keep-dir "$tmp/$name" "$SRCDIR/collectives/$name.cu" \
        -o "$tmp/$name/$name.cubin" > "$tmp/$name.log" 2>&1 || echo "$name" >> "$tmp/failed"
}
build_one ll_run &
for name in reduce_pair barrier push_run direct_run exchange_run; do build_one $name; done
wait
if [ -s "$tmp/failed" ]; then
    for name in $(cat "$tmp/failed"); do cat "$tmp/$name.log"; echo "FAIL: collectives/$name.cu does not compile"; done
    exit 1
fi

# Each .entry of the PTX: does its body have the count and the release store?
cat "$tmp"/*/*.ptx | awk '
    /^(\.visible |\.weak )?\.entry / { name = $NF; sub(/\(.*/, "", name); count[name] = 0; store[name] = 0; inside = 1; next }
    inside && /atom\.global\.add\.u32/ { count[name] = 1 }
    inside && /st\.release\.sys\.global\.u64/ { store[name] = 1 }
    /^}/ { inside = 0 }
    END {
        bad = 0; n = 0; resident = 0
        for (f in count) {
            if (f ~ /kernel_module_anchor/) continue
            if (f ~ /resident_kernel/) {
                resident = 1
                if (count[f]) { printf "FAIL %s: the resident kernel counts blocks like the epilogue\n", f; bad = 1 }
                continue
            }
            n++
            if (!count[f] || !store[f]) {
                printf "FAIL %s: no completion word epilogue (count %d, release store %d)\n", f, count[f], store[f]
                bad = 1
            }
        }
        if (!resident) { print "FAIL: resident_kernel not found in the PTX"; bad = 1 }
        if (n < 8) { printf "FAIL: only %d launched kernels found in the PTX\n", n; bad = 1 }
        if (!bad) printf "ok   %d launched kernels end with the completion word epilogue\n", n
        exit bad
    }' || status=1

# ptxas -v: every entry's frame and cumulative stack, as in test_kernel_stack.sh.
cat "$tmp"/*.log | awk '
    /Compiling entry function/ { entry = $NF; gsub(/[^A-Za-z0-9_]/, "", entry) }
    /Function properties for/ { name = $NF }
    /bytes stack frame/ { frame[name] = $1 + 0 }
    /cumulative stack size/ { for (i = 1; i < NF; i++) if ($(i + 1) == "bytes" && $(i + 2) == "cumulative") cum[entry] = $i + 0 }
    END {
        bad = 0; n = 0
        for (f in frame) if (f ~ /kernel/ && f !~ /kernel_module_anchor/) {
            n++
            s = frame[f] > cum[f] ? frame[f] : cum[f]
            if (s > 0) { printf "FAIL %s: %d bytes of stack\n", f, s; bad = 1 }
        }
        if (n < 8) { printf "FAIL: only %d kernels in the ptxas output\n", n; bad = 1 }
        if (!bad) printf "ok   %d kernels need no stack\n", n
        exit bad
    }' || status=1

[ $status -eq 0 ] && echo "PASS: launched kernels end with the completion word, with no stack"
exit $status
