/* Wisdom that FFTW refuses to import, through volfft_fftw3_mpi's fftw_mpi_broadcast_wisdom and
 * fftw_mpi_gather_wisdom (src/fftw_mpi/api.cpp): the receiving rank names the call, itself and
 * the source rank on stderr, the call returns on every rank (the ctest timeout catches a hang),
 * and planning goes on without the wisdom.
 *
 * How a refusal is made: fftw_mpi_init registers FFTW's threaded planner on every rank; every
 * rank but 0 then calls fftw_cleanup_threads, so that its planner has other solvers than rank
 * 0's, and FFTW's importer refuses wisdom exported by a planner of the other kind, both ways.
 * Each rank's stderr is read back around the call (a temporary file in its place). Run at np 2
 * and 3. */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <volfft/fftw3_mpi.h>

static int rank = 0, ranks = 1;

#include "support/check_c.h"

/* What `call` wrote to this rank's stderr. */
static void stderr_of(void (*call)(MPI_Comm), char* text, size_t size) {
  fflush(stderr);
  const int saved = dup(2);
  FILE* file = tmpfile();
  CHECK(saved >= 0 && file != NULL, "could not redirect stderr");
  dup2(fileno(file), 2);
  call(MPI_COMM_WORLD);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(file);
  const size_t got = fread(text, 1, size - 1, file);
  text[got] = '\0';
  fclose(file);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CHECK(ranks >= 2, "run at np 2 or more");
  if (rank != 0) fftw_cleanup_threads();
  fftw_complex* a = fftw_alloc_complex(128);
  fftw_complex* b = fftw_alloc_complex(128);
  char text[4096], expected[256];

  /* Rank 0's wisdom, broadcast: refused on every other rank, which says so. */
  if (rank == 0) fftw_destroy_plan(fftw_plan_dft_1d(90, a, b, FFTW_FORWARD, FFTW_MEASURE));
  stderr_of(fftw_mpi_broadcast_wisdom, text, sizeof text);
  fftw_plan p = fftw_plan_dft_1d(90, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY);
  if (rank == 0) {
    CHECK(p != NULL && text[0] == '\0', "rank 0 lost its own wisdom or warned: '%s'", text);
  } else {
    snprintf(expected, sizeof expected,
             "volfft: fftw_mpi_broadcast_wisdom: rank %d could not import the wisdom of rank 0", rank);
    CHECK(strstr(text, expected) != NULL, "broadcast: expected '%s' on stderr, got '%s'", expected, text);
    CHECK(p == NULL, "a wisdom-only plan was made from wisdom said to be refused");
  }
  if (p) fftw_destroy_plan(p);
  /* Planning goes on without it. */
  p = fftw_plan_dft_1d(90, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
  CHECK(p != NULL, "no plan after the refusal");
  fftw_destroy_plan(p);

  /* Every rank's wisdom, gathered: rank 0 refuses each other rank's and names it. */
  fftw_destroy_plan(fftw_plan_dft_1d(96 + 2 * rank, a, b, FFTW_FORWARD, FFTW_MEASURE));
  stderr_of(fftw_mpi_gather_wisdom, text, sizeof text);
  if (rank == 0) {
    for (int r = 1; r < ranks; ++r) {
      snprintf(expected, sizeof expected,
               "volfft: fftw_mpi_gather_wisdom: rank 0 could not import the wisdom of rank %d", r);
      CHECK(strstr(text, expected) != NULL, "gather: expected '%s' on stderr, got '%s'", expected, text);
    }
  } else {
    CHECK(text[0] == '\0', "gather: rank %d warned: '%s'", rank, text);
  }
  fftw_free(a), fftw_free(b);
  fftw_mpi_cleanup();
  if (rank == 0) printf("test_wisdom_refused: all passed at np %d\n", ranks);
  MPI_Finalize();
  return 0;
}
