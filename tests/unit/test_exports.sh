#!/bin/sh
# The shared library exports the C and Fortran (mpif.h, use mpi, use mpi_f08) MPI entry points it
# intercepts, the PMPI_* names it answers for PMPI tools in front of it, and the mcoll_* API of
# include/mcoll.h, and nothing else (no internal mcoll_* function or table).
BUILD=${BUILD:-$(pwd)/build}
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
LIB=$BUILD/lib/libmcoll.so
[ -f "$LIB" ] || { echo "skip: $LIB not built"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "skip: nm not found"; exit 77; }

exported=$(nm -D --defined-only "$LIB" | awk '{print $3}' | sort)
fail=0
need() {
    echo "$exported" | grep -qx "$1" || { echo "FAIL: $1 is not exported"; fail=1; }
}

# C, mpif.h / use mpi (four spellings) and use mpi_f08 names of every intercepted call.
for f in Init Init_thread Finalize Allreduce Bcast Reduce Reduce_scatter_block Reduce_scatter Allgather Barrier \
         Allgatherv Alltoall Alltoallv Alltoallw Gather Gatherv Scatter Scatterv Scan Exscan Reduce_local \
         Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall Neighbor_alltoallv Neighbor_alltoallw; do
    need "MPI_$f"
    lower=$(echo "mpi_$f" | tr 'A-Z' 'a-z')
    upper=$(echo "MPI_$f" | tr 'a-z' 'A-Z')
    need "$lower"; need "${lower}_"; need "${lower}__"; need "$upper"; need "${lower}_f08_"
done

# Nonblocking and persistent collectives and the completion calls that drive them.
NONBLOCKING="Iallreduce Ibcast Ireduce Ireduce_scatter_block Ireduce_scatter Iallgather Ibarrier Iallgatherv Ialltoall
             Ialltoallv Ialltoallw Igather Igatherv Iscatter Iscatterv Iscan Iexscan"
COMPLETION="Wait Test Waitall Testall Waitany Testany Waitsome Testsome Request_get_status"
for f in $NONBLOCKING $COMPLETION Request_free Start Startall; do
    need "MPI_$f"
done
# Their Fortran names (mpif.h, use mpi and use mpi_f08), persistent ones and MPI_START... aside.
for f in $NONBLOCKING $COMPLETION; do
    lower=$(echo "mpi_$f" | tr 'A-Z' 'a-z')
    upper=$(echo "MPI_$f" | tr 'a-z' 'A-Z')
    need "$lower"; need "${lower}_"; need "${lower}__"; need "$upper"; need "${lower}_f08_"
done
# The persistent forms under the names the MPI declares (configure: MCOLL_PCOLL).
pcoll=$(sed -n 's/.*-DMCOLL_PCOLL=\([0-9]\).*/\1/p' "$BUILD/../Makefile" 2>/dev/null | head -n 1)
for f in Allreduce Bcast Reduce Reduce_scatter_block Reduce_scatter Allgather Barrier Allgatherv Alltoall Alltoallv \
         Alltoallw Gather Gatherv Scatter Scatterv Scan Exscan; do
    case "$pcoll" in 1) init="MPI_${f}_init" ;; 2) init="MPIX_${f}_init" ;; *) continue ;; esac
    need "$init"
    # Their Fortran names, MPI_ALLTOALLW_INIT aside (its datatype arrays would have to outlive the call).
    [ "$f" = Alltoallw ] && continue
    lower=$(echo "$init" | tr 'A-Z' 'a-z')
    upper=$(echo "$init" | tr 'a-z' 'A-Z')
    need "$lower"; need "${lower}_"; need "${lower}__"; need "$upper"; need "${lower}_f08_"
done
for f in Start Startall Request_free; do
    lower=$(echo "mpi_$f" | tr 'A-Z' 'a-z')
    upper=$(echo "MPI_$f" | tr 'a-z' 'A-Z')
    need "$lower"; need "${lower}_"; need "${lower}__"; need "$upper"; need "${lower}_f08_"
done

# The PMPI_* names mcoll answers for PMPI tools in front of it (src/pmpi/chain_calls.h).
for f in $(sed -n 's/^ *X.\([A-Za-z_]*\),.*/\1/p' "$SRCDIR/src/pmpi/chain_calls.h"); do
    need "PMPI_$f"
done

# Every API function of mcoll.h that the library defines, and the 16-bit datatype handles.
api=$(grep -oE '\bmcoll_[a-z0-9_]+ *\(' "$SRCDIR/include/mcoll.h" | tr -d ' (' | sort -u)
defined=$(nm --defined-only "$BUILD/lib/libmcoll.a" 2>/dev/null | awk '$2 == "T" {print $3}' | sort -u)
for f in $api; do
    if echo "$defined" | grep -qx "$f"; then need "$f"; fi
done
need MCOLL_FLOAT16
need MCOLL_BFLOAT16
# The native collectives by name, so that one the header scan above misses still counts.
for f in allreduce bcast reduce reduce_scatter allgather barrier allgatherv alltoall alltoallv gather gatherv \
         scatter scatterv scan exscan mem_alloc mem_free mem_register mem_deregister mem_import_external \
         mem_release_external; do
    need "mcoll_$f"
done

# Nothing else: internal functions and tables stay hidden.
for s in $exported; do
    case "$s" in
        MPI_*|PMPI_*|MPIX_*|mpi_*|mpix_*|MCOLL_FLOAT16|MCOLL_BFLOAT16) ;;
        *) echo "$api" | grep -qx "$s" || { echo "FAIL: internal symbol $s is exported"; fail=1; } ;;
    esac
done
for s in mcoll_cu mcoll_log_print mcoll_settings_get mcoll_driver_load mcoll_pmpi_run mcoll_classify; do
    echo "$exported" | grep -qx "$s" && { echo "FAIL: $s is exported"; fail=1; }
done

[ $fail -eq 0 ] && echo "exports: $(echo "$exported" | wc -l) symbols, all expected"
exit $fail
