#!/bin/sh
# Every collectives/*.cu that defines or instantiates kernels marks its module
# (MCOLL_KERNEL_MODULE(<file name>)), so that a team loads all of its kernels before its first
# call (src/team/kernels.c): a module left to lazy loading may be loaded while a kernel waits for
# a peer, and the load may wait for that kernel. Environment: SRCDIR (source dir).
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bad=0
n=0
for f in "$SRCDIR"/collectives/*.cu; do
    name=$(basename "$f" .cu)
    if grep -q '__global__\|#include "reduce_kernel.cuh"' "$f"; then
        n=$((n + 1))
        if [ "$(grep -c "^MCOLL_KERNEL_MODULE($name)\$" "$f")" != 1 ]; then
            echo "FAIL: $f defines kernels but does not mark its module once: MCOLL_KERNEL_MODULE($name)"
            bad=1
        fi
    elif grep -q '^MCOLL_KERNEL_MODULE' "$f"; then
        echo "FAIL: $f marks a module but defines no kernels"
        bad=1
    fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no kernel files found under $SRCDIR/collectives"; exit 1; }
[ $bad = 0 ] && echo "PASS: the $n kernel files of collectives/ mark their modules"
exit $bad
