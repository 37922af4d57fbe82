/* What the wrappers know about MPI datatypes and ops without asking MPI on every call.
 *
 * At MPI_Init every predefined datatype is entered in a small hash table with its name, size,
 * and, for each built-in op, the answer of every layer below: does the MPI accept the pair,
 * which kernel reduces it (src/core/dtype.h), and can multimem.ld_reduce do it in the switch.
 * One lookup per call answers all three. The MPI's answers are read from the MPI itself
 * (count-0 reductions on a private duplicate of MPI_COMM_SELF that returns errors), so the
 * wrappers reject exactly the (datatype, op) pairs the MPI would. Derived datatypes are not in
 * the table; for them the same private communicator answers "committed?" and "op valid?" with a
 * count-0 call, which costs a few hundred nanoseconds and happens only for derived types. */
#ifndef MCOLL_TYPEINFO_H
#define MCOLL_TYPEINFO_H

#include <mpi.h>

/* Built-in ops by index. */
enum {
    MCOLL_OPI_MAX = 0, MCOLL_OPI_MIN, MCOLL_OPI_SUM, MCOLL_OPI_PROD, MCOLL_OPI_LAND, MCOLL_OPI_BAND,
    MCOLL_OPI_LOR, MCOLL_OPI_BOR, MCOLL_OPI_LXOR, MCOLL_OPI_BXOR, MCOLL_OPI_MAXLOC, MCOLL_OPI_MINLOC,
    MCOLL_OPI_REPLACE, MCOLL_OPI_NO_OP, MCOLL_NUM_BUILTIN_OPS
};

typedef struct {
    MPI_Datatype type;
    const char *name;   /* "MPI_FLOAT" */
    int size;           /* bytes of data */
    MPI_Aint extent;    /* pair types (MPI_DOUBLE_INT, ...) have padding: extent > size */
    MPI_Aint true_lb, true_extent;
    int dense;          /* size == extent == true_extent, true_lb == 0: elements lie back to back */
    unsigned ops;       /* MPI: bit i set when built-in op i applies */
    int kernel;         /* the kernels' mcoll_dtype, -1 when they do not reduce this type */
    signed char kernel_op[MCOLL_NUM_BUILTIN_OPS]; /* the kernels' mcoll_op for op i, -1: none */
    unsigned multimem_ops; /* bit i set when multimem.ld_reduce does op i (else unicast loads) */
} mcoll_type_info;

/* Build the table (after PMPI_Init and mcoll_dtype_init) and free it (before PMPI_Finalize). */
int mcoll_typeinfo_init(void);
void mcoll_typeinfo_finalize(void);

/* The entry of a predefined datatype (or of MCOLL_FLOAT16/MCOLL_BFLOAT16), NULL otherwise. */
const mcoll_type_info *mcoll_typeinfo_lookup(MPI_Datatype type);

/* Index of a built-in op, -1 for MPI_OP_NULL and user-defined ops. */
int mcoll_op_index(MPI_Op op);
/* "MPI_SUM", or "user op". */
const char *mcoll_op_text(MPI_Op op);

/* For datatypes outside the table: 1 when committed (MPI_DATATYPE_NULL is not). */
int mcoll_type_is_committed(MPI_Datatype type);
/* 1 when the MPI below accepts `op` (built-in op index `opi`, -1 for user-defined ops, which
 * are always accepted) on `type`, whose table row is `info` (NULL: derived, MPI is asked). */
int mcoll_op_accepts(MPI_Op op, int opi, MPI_Datatype type, const mcoll_type_info *info);

#endif /* MCOLL_TYPEINFO_H */
