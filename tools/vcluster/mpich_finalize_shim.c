/* LD_PRELOAD shim for MPICH jobs on the emulated cluster.
 *
 * Debian's MPICH 4.0.2 (ch4:ucx) with UCX 1.13 over TCP leaves about half of the jobs with
 * one rank spinning forever in MPI_Finalize: after its PMI barrier every rank disconnects
 * its UCX endpoints, and a rank whose disconnect needs a peer's progress waits for peers that
 * have already gone on to the next barrier. This happens without namespaces as well
 * (mpiexec -n 3 on localhost with UCX_TLS=tcp,self). The shim replaces MPI_Finalize by a
 * barrier: every rank has finished communicating, the program's own exit status is kept,
 * and the endpoints are closed by process exit. tools.vcluster preloads it for MPICH jobs
 * unless told --mpich-real-finalize. */
#include <mpi.h>

int MPI_Finalize(void) {
    return PMPI_Barrier(MPI_COMM_WORLD);
}
