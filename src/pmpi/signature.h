/* A datatype's type signature, when it is a run of one predefined datatype.
 *
 * MPI lets ranks describe the same data with different datatypes as long as the signatures
 * match: 4 x MPI_INT on one rank, 1 x MPI_Type_contiguous(4, MPI_INT) on another. Whatever
 * chooses between the engines and the other paths must therefore look at the signature, never
 * at the handle, or such ranks would choose differently and wait on each other.
 *
 * mcoll_signature reduces the constructors that keep the elements of their inner type back to
 * back to that type, through any nesting: contiguous, dup, vector with stride == blocklength,
 * hvector with a byte stride of blocklength * extent, resized with the inner type's extent. It
 * stops at the first type of the plug-in's table (a predefined type, or MCOLL_FLOAT16 and
 * MCOLL_BFLOAT16 where MPI hands back their own handles; Open MPI hands out copies of inner
 * derived types, and then the walk goes on to their signature in MPI's eyes, 2 x MPI_BYTE,
 * which MPI's built-in ops refuse anyway). Other datatypes (gaps, several types, indexed,
 * struct) have no such base.
 *
 * Nothing is cached: a freed derived handle can come back as another type. The walk costs a
 * few MPI calls per level (and, in Open MPI, a copy of each derived inner type), for derived
 * datatypes only, and only when the engines could take the call. */
#ifndef MCOLL_SIGNATURE_H
#define MCOLL_SIGNATURE_H

#include <mpi.h>
#include "typeinfo.h"

/* The table row of the base type and, in *per_element, how many base elements one element of
 * `type` holds; NULL when the signature is not a run of one table type. `info` is the row of
 * `type` itself (NULL for derived datatypes). */
const mcoll_type_info *mcoll_signature(MPI_Datatype type, const mcoll_type_info *info, MPI_Aint *per_element);

#endif /* MCOLL_SIGNATURE_H */
