/* Type signatures of one predefined type (src/pmpi/signature.h): the constructors that keep
 * elements back to back reduce to their base type and element count, through any nesting;
 * datatypes with gaps, mixed types or other constructors have no base. The walk gives back the
 * references MPI_Type_get_contents hands out: the user's types are freed afterwards (Open MPI
 * aborts on a type freed once too often) and the walk repeated many times. Runs as an MPI
 * singleton, the library linked statically (its MPI_Init builds the datatype table). */
#include <mpi.h>
#include "signature.h"
#include "mcoll.h"
#include "unit.h"

static int failures_in_loop;

/* 1 when `type` reduces to `base` x n. */
static int reduces_to(MPI_Datatype type, MPI_Datatype base, MPI_Aint n)
{
    MPI_Aint per = -1;
    const mcoll_type_info *row = mcoll_signature(type, mcoll_typeinfo_lookup(type), &per);
    return row && row->type == base && per == n;
}

static int no_base(MPI_Datatype type)
{
    MPI_Aint per = -1;
    return mcoll_signature(type, mcoll_typeinfo_lookup(type), &per) == NULL && per == 1;
}

static MPI_Datatype committed(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Datatype contig4, dup, vec, gappy, one_block, hvec, hgappy, same_extent, new_lb, wider, inner, nested, half3,
        pairs, st, idx;
    int blocklens[2] = {1, 1}, displs[2] = {0, 2}, i;
    MPI_Aint sdispls[2] = {0, 4};
    MPI_Datatype stypes[2] = {MPI_INT, MPI_FLOAT};

    MPI_Init(&argc, &argv);

    /* Predefined types are their own base. */
    CHECK(reduces_to(MPI_INT, MPI_INT, 1) && reduces_to(MPI_DOUBLE, MPI_DOUBLE, 1));
    CHECK(no_base(MPI_DATATYPE_NULL));

    MPI_Type_contiguous(4, MPI_INT, &contig4);
    contig4 = committed(contig4);
    CHECK(reduces_to(contig4, MPI_INT, 4));
    MPI_Type_dup(contig4, &dup);
    CHECK(reduces_to(dup, MPI_INT, 4));

    MPI_Type_vector(3, 2, 2, MPI_INT, &vec);
    CHECK(reduces_to(committed(vec), MPI_INT, 6));
    MPI_Type_vector(3, 2, 3, MPI_INT, &gappy);
    CHECK(no_base(committed(gappy)));
    MPI_Type_vector(1, 5, 9, MPI_INT, &one_block);
    CHECK(reduces_to(committed(one_block), MPI_INT, 5));
    MPI_Type_create_hvector(2, 2, 2 * sizeof(int), MPI_INT, &hvec);
    CHECK(reduces_to(committed(hvec), MPI_INT, 4));
    MPI_Type_create_hvector(2, 2, 3 * sizeof(int), MPI_INT, &hgappy);
    CHECK(no_base(committed(hgappy)));

    /* resized: a new lower bound keeps the base, a new extent opens gaps */
    MPI_Type_create_resized(MPI_INT, 0, sizeof(int), &same_extent);
    CHECK(reduces_to(committed(same_extent), MPI_INT, 1));
    MPI_Type_create_resized(MPI_INT, -(MPI_Aint)sizeof(int), sizeof(int), &new_lb);
    CHECK(reduces_to(committed(new_lb), MPI_INT, 1));
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &wider);
    CHECK(no_base(committed(wider)));

    /* nested: contiguous(2, vector(3, 2, 2, contiguous(2, MPI_FLOAT))) is 24 floats */
    MPI_Type_contiguous(2, MPI_FLOAT, &inner);
    MPI_Type_vector(3, 2, 2, inner, &vec);
    MPI_Type_contiguous(2, vec, &nested);
    nested = committed(nested);
    CHECK(reduces_to(nested, MPI_FLOAT, 24));

    /* mcoll's 16-bit types are table types: the walk stops there where MPI hands back their
     * handle; Open MPI hands out a copy, whose signature is 2 x MPI_BYTE */
    MPI_Type_contiguous(3, MCOLL_FLOAT16, &half3);
    half3 = committed(half3);
    CHECK(reduces_to(half3, MCOLL_FLOAT16, 3) || reduces_to(half3, MPI_BYTE, 6));
    /* a signature, whatever the layout of the base type (the decision checks the layout) */
    MPI_Type_contiguous(2, MPI_DOUBLE_INT, &pairs);
    CHECK(reduces_to(committed(pairs), MPI_DOUBLE_INT, 2));

    /* other constructors have no base */
    MPI_Type_create_struct(2, blocklens, sdispls, stypes, &st);
    CHECK(no_base(committed(st)));
    MPI_Type_indexed(2, blocklens, displs, MPI_INT, &idx);
    CHECK(no_base(committed(idx)));

    /* Every reference the walk took was given back: walk often, then free the user's types. */
    for (i = 0; i < 1000; i++)
        if (!reduces_to(nested, MPI_FLOAT, 24) || !reduces_to(dup, MPI_INT, 4) || no_base(half3)) failures_in_loop++;
    CHECK(failures_in_loop == 0);
    MPI_Type_free(&nested);
    MPI_Type_free(&vec);
    MPI_Type_free(&inner);
    MPI_Type_free(&half3);
    MPI_Type_free(&dup);
    MPI_Type_free(&contig4);
    MPI_Type_free(&gappy);
    MPI_Type_free(&one_block);
    MPI_Type_free(&hvec);
    MPI_Type_free(&hgappy);
    MPI_Type_free(&same_extent);
    MPI_Type_free(&new_lb);
    MPI_Type_free(&wider);
    MPI_Type_free(&pairs);
    MPI_Type_free(&st);
    MPI_Type_free(&idx);
    /* MCOLL_FLOAT16 itself is still alive and named */
    {
        char name[MPI_MAX_OBJECT_NAME];
        int len = 0;
        MPI_Type_get_name(MCOLL_FLOAT16, name, &len);
        CHECK(len > 0);
    }
    MPI_Finalize();
    return unit_exit("test_signature");
}
