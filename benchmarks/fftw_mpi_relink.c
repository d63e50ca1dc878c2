/* One FFTW-MPI program, built twice from this one source: linked with FFTW's libfftw3_mpi
 * (volfft-relink-fftw) and relinked with volfft's volfft_fftw3_mpi (volfft-relink-volfft), to time
 * the same calls on both (docs/fftw-mpi.md). It checks its own round trip, so a fast wrong
 * answer cannot pass.
 *
 * usage: PROGRAM c2c|r2c N REPS [transposed] [inplace]
 *   a 3-D N^3 transform, forward then backward, REPS timed rounds after one warm-up; prints the
 *   median and the spread of the rounds' times (each the maximum over ranks) in ms. transposed:
 *   FFTW_MPI_TRANSPOSED_OUT forward and TRANSPOSED_IN backward (FFTW-MPI's fastest
 *   distributed mode); inplace: one array. Plans with FFTW_MEASURE. Also prints the peak resident
 *   memory (VmHWM of /proc/self/status, the largest over ranks) against the bytes of the
 *   program's own arrays on that rank: what the library needs beyond the data. */
#include <complex.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resident_memory.h"

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc < 4 || (strcmp(argv[1], "c2c") && strcmp(argv[1], "r2c"))) {
    if (rank == 0) fprintf(stderr, "usage: %s c2c|r2c N REPS [transposed] [inplace]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int r2c = strcmp(argv[1], "r2c") == 0;
  const ptrdiff_t n = atol(argv[2]);
  const int reps = atoi(argv[3]);
  int transposed = 0, inplace = 0;
  for (int a = 4; a < argc; ++a) {
    transposed |= strcmp(argv[a], "transposed") == 0;
    inplace |= strcmp(argv[a], "inplace") == 0;
  }
  const unsigned flags_fwd = FFTW_MEASURE | (transposed ? FFTW_MPI_TRANSPOSED_OUT : 0);
  const unsigned flags_bwd = FFTW_MEASURE | (transposed ? FFTW_MPI_TRANSPOSED_IN : 0);
  const ptrdiff_t nc = r2c ? n / 2 + 1 : n;
  ptrdiff_t ln0, s0, ln1, s1;
  const ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(n, n, nc, MPI_COMM_WORLD, &ln0, &s0, &ln1, &s1);
  fftw_complex* spectrum = fftw_alloc_complex(alloc + 1);
  void* data = inplace ? (void*)spectrum : (void*)fftw_alloc_complex(alloc + 1);
  const double t_plan = MPI_Wtime();
  fftw_plan forward, backward;
  if (r2c) {
    forward = fftw_mpi_plan_dft_r2c_3d(n, n, n, data, spectrum, MPI_COMM_WORLD, flags_fwd);
    backward = fftw_mpi_plan_dft_c2r_3d(n, n, n, spectrum, data, MPI_COMM_WORLD, flags_bwd);
  } else {
    forward = fftw_mpi_plan_dft_3d(n, n, n, data, spectrum, MPI_COMM_WORLD, FFTW_FORWARD, flags_fwd);
    backward = fftw_mpi_plan_dft_3d(n, n, n, spectrum, data, MPI_COMM_WORLD, FFTW_BACKWARD, flags_bwd);
  }
  if (!forward || !backward) {
    if (rank == 0) fprintf(stderr, "%s: a plan is NULL\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const double planning = MPI_Wtime() - t_plan;
  /* fill after planning (MEASURE may overwrite the arrays) */
  const ptrdiff_t row = r2c ? 2 * nc : n; /* the real rows are padded */
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < n; ++j)
      for (ptrdiff_t k = 0; k < n; ++k) {
        const double v = sin(0.01 * (s0 + i) + 0.02 * j) + 0.001 * k;
        if (r2c) ((double*)data)[(i * n + j) * row + k] = v;
        else ((fftw_complex*)data)[(i * n + j) * row + k] = v + I * cos(0.03 * k);
      }
  double* times = malloc(sizeof(double) * (reps + 1));
  for (int it = -1; it < reps; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    fftw_execute(forward);
    fftw_execute(backward);
    double dt = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (it >= 0) times[it] = worst;
  }
  /* unnormalised: after 1 + reps round trips the data is (n^3)^(1 + reps) times the input */
  double error = 0;
  const double scale = pow((double)n * n * n, 1 + reps);
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < n; ++j)
      for (ptrdiff_t k = 0; k < n; ++k) {
        const double v = sin(0.01 * (s0 + i) + 0.02 * j) + 0.001 * k;
        const double got = r2c ? ((double*)data)[(i * n + j) * row + k] : creal(((fftw_complex*)data)[(i * n + j) * row + k]);
        error = fmax(error, fabs(got / scale - v));
      }
  MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(times, (size_t)reps, sizeof(double), compare);
  /* the rank with the largest peak, and its own arrays (FFTW's allocation size, 1 or 2 arrays) */
  double peak[2] = {peak_resident_bytes(), (double)(alloc + 1) * sizeof(fftw_complex) * (inplace ? 1 : 2)}, worst[2];
  struct {
    double value;
    int rank;
  } mine = {peak[0], rank}, top;
  MPI_Allreduce(&mine, &top, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  worst[0] = top.value, worst[1] = peak[1];
  MPI_Bcast(&worst[1], 1, MPI_DOUBLE, top.rank, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s %s %td^3 np %d%s%s: fwd+bwd median %.2f ms (min %.2f, max %.2f), planning %.1f s, round-trip error %.1e, "
           "peak resident %.1f MiB/rank for %.1f MiB of arrays (%.2fx)\n",
           argv[0], argv[1], n, ranks, transposed ? " transposed" : "", inplace ? " in-place" : "",
           1e3 * times[reps / 2], 1e3 * times[0], 1e3 * times[reps - 1], planning, error, worst[0] / 1048576.0,
           worst[1] / 1048576.0, worst[0] / worst[1]);
  fftw_destroy_plan(forward), fftw_destroy_plan(backward);
  fftw_free(spectrum);
  if (!inplace) fftw_free(data);
  free(times);
  MPI_Finalize();
  return error < 1e-9 ? 0 : 1;
}
