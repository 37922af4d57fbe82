/* Bad calls, for tests/mpi/test_error_names.sh. Each mode makes one on a duplicate of
 * MPI_COMM_WORLD named "bad_call comm":
 *   fatal              MPI_Allreduce with count -1 under MPI_ERRORS_ARE_FATAL: the job ends
 *   fatal_nonblocking  the same with MPI_Iallreduce
 *   return             MPI_ERRORS_RETURN: MPI_Allreduce count -1 returns MPI_ERR_COUNT and
 *                      MPI_Bcast with root = size returns MPI_ERR_ROOT
 *   user               a handler of the user's: called once with MPI_ERR_COUNT, and the call
 *                      returns what MPI returns after it
 * "return" and "user" print "bad_call MODE: PASS" and exit 0 when all is as MPI says. */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

static int handled, handled_class;

static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handled++;
    MPI_Error_class(*code, &handled_class);
}

static int class_of(int code)
{
    int c = code;
    if (code != MPI_SUCCESS) MPI_Error_class(code, &c);
    return c;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fatal";
    float a = 1, b = 0;
    int rank, size, ok = 1, rc;
    MPI_Comm comm;
    MPI_Request request;
    MPI_Errhandler user;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "bad_call comm");
    if (!strcmp(mode, "fatal")) {
        MPI_Allreduce(&a, &b, -1, MPI_FLOAT, MPI_SUM, comm);
    } else if (!strcmp(mode, "fatal_nonblocking")) {
        MPI_Iallreduce(&a, &b, -1, MPI_FLOAT, MPI_SUM, comm, &request);
    } else if (!strcmp(mode, "return")) {
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        ok &= class_of(MPI_Allreduce(&a, &b, -1, MPI_FLOAT, MPI_SUM, comm)) == MPI_ERR_COUNT;
        ok &= class_of(MPI_Bcast(&a, 1, MPI_FLOAT, size, comm)) == MPI_ERR_ROOT;
    } else if (!strcmp(mode, "user")) {
        MPI_Comm_create_errhandler(handler, &user);
        MPI_Comm_set_errhandler(comm, user);
        rc = MPI_Allreduce(&a, &b, -1, MPI_FLOAT, MPI_SUM, comm);
        ok &= handled == 1 && handled_class == MPI_ERR_COUNT && class_of(rc) == MPI_ERR_COUNT;
        MPI_Errhandler_free(&user);
    } else {
        ok = 0;
    }
    /* Reached only when the error did not end the job. */
    if (rank == 0) printf("bad_call %s: %s\n", mode, ok ? "PASS" : "FAIL");
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return !ok;
}
