#!/bin/sh
# `make check` entry for the GPU tests: the quick native test (gpu_native -q) on 2 GPUs, under
# the cuMulticast guard, with multicast switched off. Without an NVIDIA GPU it skips (exit 77);
# the full suite runs with tests/gpu/run.sh on a GPU machine.
# Environment (from tests/run.sh): BUILD, SRCDIR, MPIRUN.
# Exit: 0 pass, 1 fail, 2 refused (NCCL_NVLS_ENABLE set to something other than 0), 77 skip.
set -u
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ "$gpus" -eq 0 ]; then
    echo "skip: no NVIDIA GPU on this machine; GPU tests run with tests/gpu/run.sh on a GPU machine"
    exit 77
fi
if [ "$gpus" -lt 2 ]; then
    echo "skip: one NVIDIA GPU on this machine; the GPU tests need 2 (tests/gpu/run.sh)"
    exit 77
fi

# Multicast stays off: a value other than 0 is refused, never changed; unset, it is set to 0
# for the ranks (the safe direction).
case "${NCCL_NVLS_ENABLE-unset}" in
    0) ;;
    unset) NCCL_NVLS_ENABLE=0; export NCCL_NVLS_ENABLE ;;
    *) echo "refusing to run: NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE; the GPU tests run only with 0"; exit 2 ;;
esac

guard=$BUILD/tests/gpu/libmcoll_guard.so
prog=$BUILD/tests/gpu/gpu_native
[ -f "$guard" ] || { echo "FAIL: $guard is missing (make builds it)"; exit 1; }
[ -x "$prog" ] || { echo "FAIL: $prog is missing (make builds it)"; exit 1; }

# Open MPI passes variables with -x, MPICH's Hydra with -genv.
if "$MPIRUN" --version 2>&1 | grep -q -i -e 'open mpi' -e 'openrte'; then
    set -- -np 2 --bind-to none -x "LD_PRELOAD=$guard" -x NCCL_NVLS_ENABLE -x MCOLL_TEST_REQUIRE_GUARD=1
else
    set -- -np 2 -bind-to none -genv LD_PRELOAD "$guard" -genv NCCL_NVLS_ENABLE 0 -genv MCOLL_TEST_REQUIRE_GUARD 1
fi
exec "$MPIRUN" "$@" "$prog" -q
