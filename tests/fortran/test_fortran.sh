#!/bin/sh
# The Fortran programs (use mpi, mpif.h, nonblocking calls through use mpi; use mpi_f08 is test_fortran_f08.sh) under mpirun: their own checks pass, and mcoll's INFO
# log shows that mcoll's Fortran entry points ran each call (Open MPI's Fortran bindings call
# PMPI_* directly, so these lines can only come from mcoll's wrappers).
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
[ "${HAVE_FORTRAN:-yes}" = yes ] || { echo "skip: no Fortran compiler (configure found no mpifort)"; exit 77; }
[ -x "$BUILD/tests/fortran/fortran_use_mpi" ] || { echo "skip: Fortran tests not built"; exit 77; }
out=$BUILD/tests/logs/fortran.out
fail=0

for prog in fortran_use_mpi fortran_mpif fortran_nonblocking fortran_nonblocking_blocks fortran_persistent; do
    [ -x "$BUILD/tests/fortran/$prog" ] || { echo "skip $prog: not built (its MPI calls are not in this MPI)"; continue; }
    MCOLL_DEBUG=INFO "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_DEBUG "$BUILD/tests/fortran/$prog" > "$out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "^PASS $prog" "$out"; then
        echo "FAIL: $prog (exit $rc)"; tail -n 20 "$out"; fail=1; continue
    fi
    echo "PASS $prog"
    case $prog in
        fortran_use_mpi) calls="allreduce bcast reduce allgather reduce_scatter_block reduce_scatter barrier
                                gatherv alltoallv alltoallw scatter exscan" ;;
        fortran_nonblocking) calls="allreduce bcast reduce allgather reduce_scatter_block reduce_scatter" ;;
        fortran_nonblocking_blocks) calls="allgatherv alltoall alltoallv alltoallw gather gatherv scatter scatterv
                                           scan exscan" ;;
        fortran_persistent) calls="allreduce allgatherv gatherv scan scatter" ;;
        *) calls="allreduce bcast barrier alltoall scan reduce_local" ;;
    esac
    for c in $calls; do
        n=$(grep -c "mcoll INFO pmpi_[a-z_]*\.c:[0-9]* $c[ :]" "$out")
        if [ "$n" -lt "$NP" ]; then
            echo "FAIL: $prog: $c did not go through mcoll's wrapper ($n log lines)"; fail=1
        fi
    done
    grep -q "PMPI plug-in active" "$out" || { echo "FAIL: $prog: MPI_Init not intercepted"; fail=1; }
    grep -q "finalized: every resource" "$out" || { echo "FAIL: $prog: MPI_Finalize did not free mcoll"; fail=1; }
done
exit $fail
