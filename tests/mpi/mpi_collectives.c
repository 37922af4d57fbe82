/* Every intercepted collective on host buffers, for every predefined datatype and every
 * built-in op, in and out of place, on world, split and duplicated communicators, compared
 * bitwise with the same call made through PMPI_* (return class included: a pair the MPI refuses
 * must be refused alike and leave the buffers alone). Also large messages (above the staging
 * chunk), a derived datatype with gaps, a user-defined op, an intercommunicator, and the
 * collectives with blocks per peer (every root, uneven counts and displacements with gaps,
 * mixed datatypes for the w variants) including the neighbourhood ones on a ring and on a
 * distributed graph. */
#include "common/colltest.h"
#include "common/colltest_blocks.h"

static void *h_alloc(size_t n) { return malloc(n); }
static void h_release(void *p) { free(p); }
static void h_put(void *d, const void *s, size_t n) { memcpy(d, s, n); }
static void h_get(void *d, const void *s, size_t n) { memcpy(d, s, n); }
static const colltest_mem host_mem = {h_alloc, h_release, h_put, h_get};

int main(int argc, char **argv)
{
    ct_type types[64];
    const char *const *op_names;
    const MPI_Op *ops;
    int ntypes, nops, t, o, c, rank, size, provided;
    static const int counts[] = {0, 1, 33};
    MPI_Comm split, dup;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ct_verbose = getenv("CT_VERBOSE") != NULL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    ntypes = ct_types(types);
    ops = ct_ops(&nops, &op_names);

    /* Every datatype x op on world. */
    for (t = 0; t < ntypes; t++) {
        for (o = 0; o < nops; o++)
            for (c = 0; c < 3; c++) ct_check_reductions(&host_mem, MPI_COMM_WORLD, &types[t], ops[o], op_names[o], counts[c]);
        for (c = 0; c < 3; c++) ct_check_movers(&host_mem, MPI_COMM_WORLD, &types[t], counts[c]);
    }
    /* The collectives with blocks per peer, every datatype; on a ring and a graph. */
    for (t = 0; t < ntypes; t++)
        for (c = 0; c < 3; c++) cb_check_all(&host_mem, MPI_COMM_WORLD, &types[t], counts[c]);
    {
        MPI_Comm ring, graph;
        cb_make_topologies(&ring, &graph);
        for (t = 0; t < ntypes; t++)
            for (c = 0; c < 3; c++) {
                cb_check_neighbors(&host_mem, ring, &types[t], counts[c]);
                if (graph != MPI_COMM_NULL) cb_check_neighbors(&host_mem, graph, &types[t], counts[c]);
            }
        MPI_Comm_free(&ring);
        if (graph != MPI_COMM_NULL) MPI_Comm_free(&graph);
    }
    /* A few on split and duplicated communicators. */
    for (t = 0; t < ntypes; t++) {
        if (types[t].type != MPI_INT && types[t].type != MPI_DOUBLE && types[t].type != MCOLL_FLOAT16 &&
            types[t].type != MPI_2INT)
            continue;
        for (o = 0; o < nops; o++) {
            ct_check_reductions(&host_mem, split, &types[t], ops[o], op_names[o], 5);
            ct_check_reductions(&host_mem, dup, &types[t], ops[o], op_names[o], 5);
        }
        ct_check_movers(&host_mem, split, &types[t], 9);
        ct_check_movers(&host_mem, dup, &types[t], 9);
        cb_check_all(&host_mem, split, &types[t], 4);
    }
    /* Larger than the staging chunk (MCOLL_STAGE_CHUNK, 4 MiB by default). */
    for (t = 0; t < ntypes; t++) {
        int big = (5 << 20) / types[t].size + 3;
        if (types[t].type == MPI_INT || types[t].type == MPI_DOUBLE) {
            ct_check(&host_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], MPI_SUM, "SUM", big, 0, 0);
            ct_check(&host_mem, MPI_COMM_WORLD, CT_ALLREDUCE, &types[t], MPI_MAX, "MAX", big, 1, 0);
            ct_check(&host_mem, MPI_COMM_WORLD, CT_REDUCE, &types[t], MPI_SUM, "SUM", big, 0, 2);
            ct_check(&host_mem, MPI_COMM_WORLD, CT_BCAST, &types[t], MPI_OP_NULL, "-", big, 0, 3);
            ct_check(&host_mem, MPI_COMM_WORLD, CT_RSB, &types[t], MPI_SUM, "SUM", big / 4, 0, 0);
            ct_check(&host_mem, MPI_COMM_WORLD, CT_ALLGATHER, &types[t], MPI_OP_NULL, "-", big / 4, 0, 0);
        }
    }
    ct_check_vector(&host_mem, MPI_COMM_WORLD, 0);
    ct_check_vector(&host_mem, split, 0);
    /* Intercommunicator between the two halves of world */
    if (size >= 2) {
        MPI_Comm inter;
        ct_make_inter(&inter);
        for (t = 0; t < ntypes; t++)
            if (types[t].type == MPI_INT || types[t].type == MCOLL_FLOAT16 || types[t].type == MPI_DOUBLE_INT) {
                ct_check_inter(&host_mem, inter, rank % 2 == 0, &types[t], MPI_MAX, "MAX", 7);
                ct_check_inter(&host_mem, inter, rank % 2 == 1, &types[t], MPI_MINLOC, "MINLOC", 0);
                ct_check_inter(&host_mem, inter, rank % 2 == 1, &types[t], MPI_MINLOC, "MINLOC", 3);
                cb_check_inter(&host_mem, inter, rank % 2 == 0, &types[t], 3);
                cb_check_inter(&host_mem, inter, rank % 2 == 1, &types[t], 0);
            }
        MPI_Comm_free(&inter);
    }

    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    c = ct_finish("mpi_collectives");
    MPI_Finalize();
    return c;
}
