/* A program linked with FFTW before volfft_fftw3_mpi (the wrong order: FFTW's fftw_execute would
 * be the one called, and it cannot run volfft's plans): the planner must refuse with the reason,
 * a NULL plan on every rank, never a plan that crashes in fftw_execute. */
#include <complex.h>
#include <fftw3.h>
#include <stdio.h>
#include <volfft/fftw3_mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fftw_complex* a = fftw_alloc_complex(64);
  fftw_plan p = fftw_mpi_plan_dft_2d(8, 8, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  const int refused = p == NULL;
  fftw_free(a);
  if (rank == 0) printf("test_link_order: %s\n", refused ? "refused, as it must be" : "a plan was made");
  MPI_Finalize();
  return refused ? 0 : 1;
}
