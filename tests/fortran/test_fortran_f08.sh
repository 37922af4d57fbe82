#!/bin/sh
# The `use mpi_f08` program under mpirun: its own checks pass, and mcoll's INFO log shows that
# mcoll's f08 entry points ran every call (Open MPI's mpi_f08 layer calls PMPI_* directly, so
# these lines can only come from mcoll), MPI_Init and MPI_Finalize included.
BUILD=${BUILD:-$(pwd)/build}
MPIRUN=${MPIRUN:-mpirun}
NP=${MCOLL_TEST_NP:-4}
PROG=$BUILD/tests/fortran/fortran_f08
[ "${HAVE_FORTRAN:-yes}" = yes ] || { echo "skip: no Fortran compiler (configure found no mpifort)"; exit 77; }
[ "${HAVE_FORTRAN_F08:-yes}" = yes ] || { echo "skip: the MPI has no mpi_f08 module for this compiler (configure said so)"; exit 77; }
[ -x "$PROG" ] || { echo "skip: $PROG not built (no mpi_f08 module?)"; exit 77; }
mkdir -p "$BUILD/tests/logs"
out=$BUILD/tests/logs/fortran_f08.out
fail=0

MCOLL_DEBUG=INFO "$MPIRUN" -np "$NP" --oversubscribe -x MCOLL_DEBUG "$PROG" > "$out" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "^PASS fortran_f08" "$out"; then
    echo "FAIL: fortran_f08 (exit $rc)"; grep -v "mcoll INFO" "$out" | tail -n 20; exit 1
fi
for c in allreduce bcast reduce reduce_scatter_block reduce_scatter allgather barrier allgatherv alltoall \
         alltoallv alltoallw gather gatherv scatter scatterv scan exscan reduce_local neighbor_allgather \
         neighbor_allgatherv neighbor_alltoall neighbor_alltoallv neighbor_alltoallw; do
    n=$(grep -c "mcoll INFO pmpi_[a-z_]*\.c:[0-9]* $c[ :]" "$out")
    if [ "$n" -lt "$NP" ]; then
        echo "FAIL: $c did not go through mcoll's f08 entry point ($n log lines)"; fail=1
    fi
done
# The nonblocking forms ran too: a second line per rank.
for c in allgatherv alltoall gatherv scatter scan exscan allreduce; do
    n=$(grep -c "mcoll INFO pmpi_[a-z_]*\.c:[0-9]* $c[ :]" "$out")
    if [ "$n" -lt $((2 * NP)) ]; then
        echo "FAIL: the nonblocking $c did not go through mcoll's f08 entry point ($n log lines)"; fail=1
    fi
done
[ "$(grep -c 'PMPI plug-in active' "$out")" -eq "$NP" ] || { echo "FAIL: MPI_Init (f08) not intercepted"; fail=1; }
grep -q "finalized: every resource" "$out" || { echo "FAIL: MPI_Finalize (f08) did not free mcoll"; fail=1; }
[ $fail -eq 0 ] && echo "PASS fortran_f08: 23 collectives, 7 nonblocking ones, MPI_Init and MPI_Finalize through mcoll's f08 entry points"
exit $fail
