/* Smoke test for the multi-host harness: every rank reports its host (namespace hostname),
 * then an allreduce and a ring exchange check that the ranks really talk to each other.
 * Exits non-zero on any wrong result, so the harness can tell a pass from a fail. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);

    /* Sum of ranks: a wrong value means a message was lost or a rank counted twice. */
    long mine = rank + 1, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long expect = (long)size * (size + 1) / 2;

    /* 1 MiB to the right neighbour: a message that needs many TCP segments. */
    const int n = 1 << 17;
    double *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
    for (int i = 0; i < n; ++i) out[i] = rank * 1e6 + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(out, n, MPI_DOUBLE, right, 7, in, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int bad = total != expect;
    for (int i = 0; i < n; ++i) bad |= in[i] != left * 1e6 + i;

    /* Distinct hosts: gather the names so rank 0 can show the placement. */
    char *names = rank == 0 ? malloc((size_t)size * MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; ++r) printf("rank %d on %s\n", r, names + (size_t)r * MPI_MAX_PROCESSOR_NAME);
        printf("%s: allreduce %ld (expected %ld), ring exchange of 1 MiB %s\n",
               anybad ? "FAIL" : "OK", total, expect, anybad ? "wrong" : "correct");
        free(names);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return anybad ? 1 : 0;
}
