#!/bin/bash
# Session W run 1b (warm, same build): issue 12's configuration, 2 ranks on GPU 0 under MPS:
# the OSU nonblocking look-alikes, launches in the caller and in the launcher thread.
set -u
[ "${NCCL_NVLS_ENABLE-unset}" = 0 ] || { echo "NCCL_NVLS_ENABLE is not 0: refusing"; exit 2; }
export OMPI_MCA_op=^avx OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
CUDA_VISIBLE_DEVICES=0 OUT=$OUT/w1b bash tests/gpu/run.sh --np 2 --steps build,guard,overlap --budget 500 --timeout 400 > $OUT/overlap-w1b.txt 2>&1
echo "run.sh exit $?"
cat $OUT/w1b/summary.txt
cd $OUT/w1b && for f in overlap*.log; do echo "== $f"; grep -v '^#' $f | awk 'NF>5' | head -20; done
