#!/bin/sh
# The LL kernels (collectives/ll_run.cu), compiled for sm_90 as the build does, need no stack:
# a kernel whose per-thread stack exceeds the context's limit (1 KiB by default) makes the driver
# grow the limit and reserve that much local memory for every thread the GPU can hold, for the
# rest of the process (a 16 KiB stack cost 4 GiB on an H200). The resident kernel starts in every
# MPI program that makes small calls, so ptxas must not give it a frame; ptxas decides by its own
# heuristics (inlining every datatype's reduction into it), hence a test. Needs only nvcc.
# Environment: BUILD (build dir), SRCDIR (source dir); NVCC optional.
set -u
. "$(dirname "$0")/nvcc_env.sh"
tmp=$(mktemp -d 2>/dev/null || echo "/tmp/test_kernel_stack.$$")
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT INT TERM

if ! "$NVCC" -std=c++17 -O3 -arch=sm_90 -Xptxas -v -I"$SRCDIR/include" -I"$SRCDIR/src" -I"$SRCDIR/collectives" \
        -I"$CUDA_INC" -cubin "$SRCDIR/collectives/ll_run.cu" -o "$tmp/ll_run.cubin" > "$tmp/ptxas.log" 2>&1; then
    cat "$tmp/ptxas.log"
    echo "FAIL: collectives/ll_run.cu does not compile"
    exit 1
fi
# "Function properties for NAME" then "N bytes stack frame, ..." for every function; the kernels
# also get "..., N bytes cumulative stack size" (frame and calls together).
awk '/Compiling entry function/ { entry = $NF; gsub(/[^A-Za-z0-9_]/, "", entry) }
     /Function properties for/ { name = $NF }
     /bytes stack frame/ { frame[name] = $1 + 0 }
     /cumulative stack size/ { for (i = 1; i < NF; i++) if ($(i + 1) == "bytes" && $(i + 2) == "cumulative") cum[entry] = $i + 0 }
     END {
         bad = 0; n = 0
         for (f in frame) if (f ~ /ll_kernel|ll_reduce_kernel|resident_kernel/) {
             n++
             s = frame[f] > cum[f] ? frame[f] : cum[f]
             printf "%s %s: %d bytes of stack\n", (s > 0 ? "FAIL" : "ok  "), f, s
             if (s > 0) bad = 1
         }
         if (n < 3) { print "FAIL: did not find ll_kernel, ll_reduce_kernel and resident_kernel in ptxas output"; bad = 1 }
         exit bad
     }' "$tmp/ptxas.log"
status=$?
[ $status -eq 0 ] && echo "PASS: the LL kernels need no stack"
exit $status
