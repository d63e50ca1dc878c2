/* The same through the C API: a 3-D complex FFT on a p0 x p1 grid, forward and back. */
#include <volfft/volfft.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  volfft_options options;
  volfft_options_default(&options);
  MPI_Dims_create(ranks, 2, options.grid);
  const int64_t shape[3] = {64, 48, 32};
  volfft_plan plan;
  if (volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &options, &plan)) {
    fprintf(stderr, "%s\n", volfft_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int64_t n_in, n_out, lo[3], hi[3];
  volfft_counts(plan, &n_in, &n_out);
  volfft_input_box(plan, lo, hi); /* this rank's C-order block: x[i][j][k] */
  double complex *x = malloc(n_in * sizeof *x), *y = malloc(n_out * sizeof *y), *z = malloc(n_in * sizeof *z);
  int64_t n = 0;
  for (int64_t i = lo[0]; i < hi[0]; ++i)
    for (int64_t j = lo[1]; j < hi[1]; ++j)
      for (int64_t k = lo[2]; k < hi[2]; ++k) x[n++] = (i + j) + k * I;

  volfft_forward(plan, x, y);  /* y: this rank's x-pencil */
  volfft_backward(plan, y, z); /* scaled by 1/N, so z == x */
  double error = 0;
  for (n = 0; n < n_in; ++n) error = fmax(error, cabs(z[n] - x[n]));
  MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("grid %dx%d, round-trip error %.1e\n", options.grid[0], options.grid[1], error);
  volfft_plan_destroy(plan);
  free(x), free(y), free(z);
  MPI_Finalize();
  return error < 1e-12 ? 0 : 1;
}
