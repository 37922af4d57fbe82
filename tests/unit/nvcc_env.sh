# Sourced by the unit scripts that compile kernels (test_multimem_ptx.sh, test_kernel_stack.sh):
# sets SRCDIR, BUILD, NVCC (the build's, else the one on PATH) and CUDA_INC, or skips (exit 77)
# without nvcc.
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$(pwd)/build}
if [ -z "${NVCC:-}" ] && [ -f "$BUILD/../Makefile" ]; then
    NVCC=$(sed -n 's/^NVCC *= *//p' "$BUILD/../Makefile" | head -n 1)
fi
[ -n "${NVCC:-}" ] || NVCC=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$NVCC" ]; then
    echo "skip: nvcc not found (set NVCC=)"
    exit 77
fi
CUDA_INC=$(cd "$(dirname "$NVCC")/.." && pwd)/include
