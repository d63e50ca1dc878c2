/* volfft-memory: the memory a volfft plan adds to its data, through the C API.
 *
 * usage: volfft-memory c2c|r2c N ENGINE [inplace] [estimate|ducc0]
 *   holds arrays of volfft_counts / volfft_in_place_bytes, then plans a 3-D N^3 transform
 *   (ENGINE: auto, alltoallv, alltoallw, node, ...; FFTW_MEASURE, or FFTW_ESTIMATE with
 *   `estimate`, or the ducc0 backend with `ducc0`: neither plans on arrays, so with alltoallw and
 *   inplace this is the minimum-memory configuration) and runs forward and backward
 *   twice; prints per rank (the largest over ranks): the data's bytes, volfft_workspace_bytes,
 *   and the peak resident memory (VmHWM of /proc/self/status) with the data alone, after
 *   planning and after the transforms, the last also as a multiple of the data. The same measure as volfft-relink-fftw's, which prints FFTW-MPI's
 *   (docs/performance.md "Memory"). Resident memory counts shared pages (engine node's windows)
 *   in every process that touches them. */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <volfft/volfft.h>

#include "resident_memory.h"

static double max_over_ranks(double x) {
  double m = x;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

static int engine_of(const char* name) {
  static const char* names[] = {"auto", "alltoallv", "alltoall", "alltoallw", "p2p", "pipelined", "persistent", "node"};
  for (int e = 0; e < 8; ++e)
    if (strcmp(name, names[e]) == 0) return e; /* volfft_engine's order */
  return -1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int engine = argc >= 4 ? engine_of(argv[3]) : -1;
  if (argc < 4 || (strcmp(argv[1], "c2c") && strcmp(argv[1], "r2c")) || engine < 0 || atol(argv[2]) < 1) {
    if (rank == 0) fprintf(stderr, "usage: %s c2c|r2c N ENGINE [inplace] [estimate]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  int inplace = 0, estimate = 0, ducc0 = 0;
  for (int k = 4; k < argc; ++k) {
    if (strcmp(argv[k], "inplace") == 0) inplace = 1;
    else if (strcmp(argv[k], "estimate") == 0) estimate = 1;
    else if (strcmp(argv[k], "ducc0") == 0) ducc0 = 1;
  }
  const int r2c = strcmp(argv[1], "r2c") == 0;
  const int64_t n = atol(argv[2]), shape[3] = {n, n, n};
  volfft_options options;
  volfft_options_default(&options);
  options.engine = engine, options.in_place = inplace, options.effort = VOLFFT_ESTIMATE;
  volfft_plan plan = NULL;
  const int kind = r2c ? VOLFFT_R2C : VOLFFT_C2C;
  /* The arrays first, as an FFTW-MPI program holds them before it plans: their sizes from a plan
   * made and freed first, then the peak measured from there on. */
  if (volfft_plan_create(MPI_COMM_WORLD, 3, shape, kind, VOLFFT_DOUBLE, &options, &plan) != VOLFFT_OK) {
    if (rank == 0) fprintf(stderr, "%s: %s\n", argv[0], volfft_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int64_t n_in = 0, n_out = 0;
  size_t workspace = 0, one = 0;
  volfft_counts(plan, &n_in, &n_out);
  volfft_workspace_bytes(plan, &workspace);
  volfft_in_place_bytes(plan, &one);
  volfft_plan_destroy(plan);
  const size_t in_bytes = (size_t)n_in * (r2c ? sizeof(double) : sizeof(double complex));
  const size_t out_bytes = (size_t)n_out * sizeof(double complex);
  const size_t data = inplace ? one : in_bytes + out_bytes;
  unsigned char* a = malloc(data + 1);
  unsigned char* b = inplace ? a : a + in_bytes;
  memset(a, 0, data + 1);
  reset_peak_resident();
  const double before = peak_resident_bytes();
  options.effort = estimate ? VOLFFT_ESTIMATE : VOLFFT_MEASURE;
  if (ducc0) options.backend = VOLFFT_BACKEND_DUCC0;
  if (volfft_plan_create(MPI_COMM_WORLD, 3, shape, kind, VOLFFT_DOUBLE, &options, &plan) != VOLFFT_OK) {
    if (rank == 0) fprintf(stderr, "%s: %s\n", argv[0], volfft_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const double after_planning = peak_resident_bytes();
  for (size_t k = 0; k < in_bytes / sizeof(double); ++k) ((double*)a)[k] = (double)(k % 1000) * 1e-3;
  for (int round = 0; round < 2; ++round)
    if (volfft_forward(plan, a, b) != VOLFFT_OK || volfft_backward(plan, b, a) != VOLFFT_OK) {
      fprintf(stderr, "%s: %s\n", argv[0], volfft_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  const double after_transforms = peak_resident_bytes();
  const double d = max_over_ranks((double)data), w = max_over_ranks((double)workspace);
  const double s = max_over_ranks(before), p = max_over_ranks(after_planning), t = max_over_ranks(after_transforms);
  if (rank == 0)
    printf("%s %s %lld^3 %s%s%s: data %.1f MiB/rank, workspace %.1f MiB (%.2fx with the data); peak resident %.1f MiB "
           "with the data alone, %.1f MiB after planning, %.1f MiB after the transforms (%.2fx the data)\n",
           argv[0], argv[1], (long long)n, argv[3], inplace ? " in-place" : "",
           estimate ? " estimate" : ducc0 ? " ducc0" : "", d / 1048576, w / 1048576, (d + w) / d,
           s / 1048576, p / 1048576, t / 1048576, t / d);
  volfft_plan_destroy(plan);
  free(a);
  MPI_Finalize();
  return 0;
}
