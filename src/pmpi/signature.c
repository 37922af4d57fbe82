/* Datatype signatures of one predefined type (see signature.h). MPI_Type_get_contents hands
 * out a reference to every derived inner type, which must be given back with MPI_Type_free;
 * predefined ones must not be freed. */
#include "signature.h"

#define MAX_DEPTH 8

static void give_back(MPI_Datatype *type)
{
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(*type, &ni, &na, &nd, &combiner) == MPI_SUCCESS && combiner != MPI_COMBINER_NAMED)
        PMPI_Type_free(type);
}

/* One constructor: its inner type and how many inner elements one element of `type` holds,
 * when they lie back to back; 0 (holding nothing) otherwise. */
static int unwrap(MPI_Datatype type, MPI_Datatype *inner, MPI_Aint *times)
{
    int ni, na, nd, combiner, ints[3] = {0, 0, 0}, ok;
    MPI_Aint addrs[2] = {0, 0}, lb, extent;

    if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return 0;
    if (combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_VECTOR &&
        combiner != MPI_COMBINER_HVECTOR && combiner != MPI_COMBINER_RESIZED)
        return 0;
    if (ni > 3 || na > 2 || nd != 1) return 0;
    if (PMPI_Type_get_contents(type, ni, na, nd, ints, addrs, inner) != MPI_SUCCESS) return 0;
    if (PMPI_Type_get_extent(*inner, &lb, &extent) != MPI_SUCCESS) {
        give_back(inner);
        return 0;
    }
    switch (combiner) {
    case MPI_COMBINER_DUP: *times = 1; ok = 1; break;
    case MPI_COMBINER_CONTIGUOUS: *times = ints[0]; ok = 1; break;
    /* count blocks of blocklength elements; back to back when one block starts where the last
     * ended (or there is at most one block) */
    case MPI_COMBINER_VECTOR: *times = (MPI_Aint)ints[0] * ints[1]; ok = ints[0] <= 1 || ints[2] == ints[1]; break;
    case MPI_COMBINER_HVECTOR:
        *times = (MPI_Aint)ints[0] * ints[1];
        ok = ints[0] <= 1 || addrs[0] == ints[1] * extent;
        break;
    /* a new lower bound moves nothing; a new extent would open gaps between elements */
    default: *times = 1; ok = addrs[1] == extent; break;
    }
    if (!ok) give_back(inner);
    return ok;
}

const mcoll_type_info *mcoll_signature(MPI_Datatype type, const mcoll_type_info *info, MPI_Aint *per_element)
{
    const mcoll_type_info *base = info;
    MPI_Datatype cur = type, inner;
    MPI_Aint total = 1, times;
    int depth, held = 0; /* held: cur is a reference get_contents gave out */

    for (depth = 0; !base && depth < MAX_DEPTH; depth++) {
        if (type == MPI_DATATYPE_NULL || !unwrap(cur, &inner, &times)) break;
        if (held) give_back(&cur);
        cur = inner;
        held = 1;
        total *= times;
        base = mcoll_typeinfo_lookup(cur);
    }
    if (held) give_back(&cur);
    *per_element = base ? total : 1;
    return base;
}
