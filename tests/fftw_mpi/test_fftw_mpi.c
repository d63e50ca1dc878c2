/* A program written for FFTW-MPI, in the style of FFTW's manual, linked against volfft's
 * volfft_fftw3_mpi instead of FFTW's libfftw3_mpi: every result against FFTW's serial transform
 * of the whole array (computed on each rank, through the same fftw_execute, which passes FFTW's
 * own plans on to FFTW).
 *
 * Cases: r2c 3-D with padded rows out of place and c2r back (FFTW's default flags, which let
 * the c2r destroy its input, and FFTW_PRESERVE_INPUT, which must not; the r2c again with
 * FFTW_DESTROY_INPUT); c2c 3-D in place with
 * FFTW_MPI_TRANSPOSED_OUT, back with FFTW_MPI_TRANSPOSED_IN; 2-D c2c in place; howmany = 3 with a
 * given block size; howmany = 2 in place and out of place with empty ranks passing NULL; r2r 2-D
 * (REDFT10 x RODFT10) in place; many_transpose of pairs in and out of place; single precision
 * r2c 2-D; new-array execute; 4-D c2c (transposed out) and r2r; and what volfft does not plan (1-D,
 * R2HC, scrambled, r2c of 4 dimensions) returns NULL; an argument wrong on one rank only
 * (howmany, rnk, sign, a scrambled flag) returns NULL on every rank instead of leaving the others
 * in the planner; FFTW_DESTROY_INPUT from some ranks only is taken as a permission; local sizes
 * of idle ranks and of rnk 0; FFTW's serial wisdom broadcast from rank 0 and gathered on it.
 * Any failure aborts the job. */
#include <complex.h>
#include <fftw3.h> /* after complex.h: fftw_complex is double complex */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef VOLFFT_TEST_SYSTEM_HEADER
/* FFTW's own declarations and volfft's in one translation unit: C refuses two declarations of a
 * function that disagree, so this compiles only if volfft's header is FFTW's interface. */
#include <fftw3-mpi.h>
#endif
#include <volfft/fftw3_mpi.h>

static int rank = 0, ranks = 1;

#include "support/check_c.h"

static double f_real(ptrdiff_t i, ptrdiff_t j, ptrdiff_t k) { return sin(0.9 * i + 0.4) + 0.3 * j - 0.07 * k * k; }
static double complex f_complex(ptrdiff_t i, ptrdiff_t j, ptrdiff_t k) {
  return f_real(i, j, k) + I * cos(0.3 * i * j - 0.8 * k);
}

static double max_abs(const double complex* a, ptrdiff_t n) {
  double m = 0;
  for (ptrdiff_t k = 0; k < n; ++k) m = fmax(m, cabs(a[k]));
  return m;
}

/* f_real on this rank's planes of an (n0, M, N) array whose rows are padded to Np reals. */
static void fill_padded_rows(double* rin, ptrdiff_t local_n0, ptrdiff_t local_0_start, ptrdiff_t M, ptrdiff_t N,
                             ptrdiff_t Np) {
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < N; ++k) rin[(i * M + j) * Np + k] = f_real(local_0_start + i, j, k);
}

/* r2c 3-D out of place, padded real rows (the manual's example), then c2r back. */
static void r2c_3d(void) {
  const ptrdiff_t L = 9, M = 6, N = 10, Nc = N / 2 + 1, Np = 2 * Nc;
  ptrdiff_t local_n0, local_0_start;
  const ptrdiff_t alloc = fftw_mpi_local_size_3d(L, M, Nc, MPI_COMM_WORLD, &local_n0, &local_0_start);
  double* rin = fftw_alloc_real(2 * alloc + 1);
  fftw_complex* cout = fftw_alloc_complex(alloc + 1);
  fftw_plan forward = fftw_mpi_plan_dft_r2c_3d(L, M, N, rin, cout, MPI_COMM_WORLD, FFTW_ESTIMATE);
  fftw_plan backward = fftw_mpi_plan_dft_c2r_3d(L, M, N, cout, rin, MPI_COMM_WORLD, FFTW_ESTIMATE);
  CHECK(forward && backward, "r2c/c2r 3-D plans");
  fill_padded_rows(rin, local_n0, local_0_start, M, N, Np);
  fftw_execute(forward);

  double* whole = fftw_alloc_real(L * M * N);
  fftw_complex* spectrum = fftw_alloc_complex(L * M * Nc);
  for (ptrdiff_t i = 0; i < L; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < N; ++k) whole[(i * M + j) * N + k] = f_real(i, j, k);
  fftw_plan serial = fftw_plan_dft_r2c_3d((int)L, (int)M, (int)N, whole, spectrum, FFTW_ESTIMATE);
  fftw_execute(serial);
  const double scale = max_abs(spectrum, L * M * Nc);
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < Nc; ++k)
        CHECK(cabs(cout[(i * M + j) * Nc + k] - spectrum[((local_0_start + i) * M + j) * Nc + k]) < 1e-12 * scale,
              "r2c 3-D element (%td, %td, %td)", local_0_start + i, j, k);
  fftw_execute(backward); /* unnormalised: L M N times the input */
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < N; ++k)
        CHECK(fabs(rin[(i * M + j) * Np + k] / (L * M * N) - f_real(local_0_start + i, j, k)) < 1e-12,
              "c2r 3-D round trip");
  /* FFTW's c2r default is FFTW_DESTROY_INPUT, which volfft takes (a faster plan at one rank);
   * FFTW_PRESERVE_INPUT keeps the spectrum. fftw_sprint_plan says which volfft made. */
  char* described = fftw_sprint_plan(backward);
  CHECK(strstr(described, "destroy-input") != NULL, "c2r by default may destroy its input: %s", described);
  free(described);
  fill_padded_rows(rin, local_n0, local_0_start, M, N, Np);
  fftw_execute(forward);
  fftw_plan keeping = fftw_mpi_plan_dft_c2r_3d(L, M, N, cout, rin, MPI_COMM_WORLD, FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  CHECK(keeping != NULL, "c2r 3-D plan with FFTW_PRESERVE_INPUT");
  described = fftw_sprint_plan(keeping);
  CHECK(strstr(described, "destroy-input") == NULL, "c2r with FFTW_PRESERVE_INPUT keeps its input: %s", described);
  free(described);
  fftw_complex* before = fftw_alloc_complex(alloc + 1);
  memcpy(before, cout, sizeof(fftw_complex) * (size_t)(local_n0 * M * Nc));
  fftw_execute(keeping);
  CHECK(memcmp(before, cout, sizeof(fftw_complex) * (size_t)(local_n0 * M * Nc)) == 0,
        "c2r with FFTW_PRESERVE_INPUT changed its input");
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < N; ++k)
        CHECK(fabs(rin[(i * M + j) * Np + k] / (L * M * N) - f_real(local_0_start + i, j, k)) < 1e-12,
              "c2r 3-D (FFTW_PRESERVE_INPUT) round trip");
  fftw_destroy_plan(keeping);
  /* An r2c keeps its input unless given FFTW_DESTROY_INPUT, which volfft then takes too. */
  described = fftw_sprint_plan(forward);
  CHECK(strstr(described, "destroy-input") == NULL, "r2c by default keeps its input: %s", described);
  free(described);
  fftw_plan scratching = fftw_mpi_plan_dft_r2c_3d(L, M, N, rin, cout, MPI_COMM_WORLD, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  CHECK(scratching != NULL, "r2c 3-D plan with FFTW_DESTROY_INPUT");
  described = fftw_sprint_plan(scratching);
  CHECK(strstr(described, "destroy-input") != NULL, "r2c with FFTW_DESTROY_INPUT may destroy its input: %s", described);
  free(described);
  fill_padded_rows(rin, local_n0, local_0_start, M, N, Np);
  fftw_execute(scratching);
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < Nc; ++k)
        CHECK(cabs(cout[(i * M + j) * Nc + k] - spectrum[((local_0_start + i) * M + j) * Nc + k]) < 1e-12 * scale,
              "r2c 3-D (FFTW_DESTROY_INPUT) element (%td, %td, %td)", local_0_start + i, j, k);
  fftw_destroy_plan(scratching);
  fftw_free(before);
  fftw_destroy_plan(serial);
  fftw_destroy_plan(forward);
  fftw_destroy_plan(backward);
  fftw_free(rin), fftw_free(cout), fftw_free(whole), fftw_free(spectrum);
}

/* Serial complex 3-D (or 2-D with n2 = 1) DFT of f_complex, `sign`. */
static fftw_complex* serial_dft(ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2, int sign) {
  fftw_complex* a = fftw_alloc_complex(n0 * n1 * n2);
  for (ptrdiff_t i = 0; i < n0; ++i)
    for (ptrdiff_t j = 0; j < n1; ++j)
      for (ptrdiff_t k = 0; k < n2; ++k) a[(i * n1 + j) * n2 + k] = f_complex(i, j, k);
  fftw_plan p = fftw_plan_dft_3d((int)n0, (int)n1, (int)n2, a, a, sign, FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  return a;
}

/* c2c 3-D in place: forward TRANSPOSED_OUT, then backward TRANSPOSED_IN. */
static void c2c_3d_transposed(void) {
  const ptrdiff_t L = 7, M = 8, N = 5;
  ptrdiff_t ln0, s0, ln1, s1;
  const ptrdiff_t alloc = fftw_mpi_local_size_3d_transposed(L, M, N, MPI_COMM_WORLD, &ln0, &s0, &ln1, &s1);
  fftw_complex* data = fftw_alloc_complex(alloc + 1);
  fftw_plan forward = fftw_mpi_plan_dft_3d(L, M, N, data, data, MPI_COMM_WORLD, FFTW_FORWARD,
                                           FFTW_MEASURE | FFTW_MPI_TRANSPOSED_OUT);
  fftw_plan backward = fftw_mpi_plan_dft_3d(L, M, N, data, data, MPI_COMM_WORLD, FFTW_BACKWARD,
                                            FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
  CHECK(forward && backward, "c2c 3-D transposed plans");
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < N; ++k) data[(i * M + j) * N + k] = f_complex(s0 + i, j, k);
  fftw_execute(forward);
  fftw_complex* want = serial_dft(L, M, N, FFTW_FORWARD);
  const double scale = max_abs(want, L * M * N);
  for (ptrdiff_t j = 0; j < ln1; ++j) /* transposed: local_n1 x L x N */
    for (ptrdiff_t i = 0; i < L; ++i)
      for (ptrdiff_t k = 0; k < N; ++k)
        CHECK(cabs(data[(j * L + i) * N + k] - want[(i * M + s1 + j) * N + k]) < 1e-12 * scale,
              "transposed-out element (%td, %td, %td)", i, s1 + j, k);
  fftw_execute(backward);
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      for (ptrdiff_t k = 0; k < N; ++k)
        CHECK(cabs(data[(i * M + j) * N + k] / (L * M * N) - f_complex(s0 + i, j, k)) < 1e-12, "round trip");
  fftw_destroy_plan(forward), fftw_destroy_plan(backward);
  fftw_free(data), fftw_free(want);
}

/* 4-D c2c out of place with TRANSPOSED_OUT and back, and a 4-D r2r (REDFT10 x RODFT00 x REDFT01 x
 * REDFT11) in place, against FFTW's serial plans of the whole array; a prime first dimension. */
static double complex f4(ptrdiff_t i, ptrdiff_t j, ptrdiff_t k, ptrdiff_t l) { return f_complex(i + l, j - l, k * l); }
static void c2c_r2r_4d(void) {
  const ptrdiff_t n[4] = {5, 6, 3, 4};
  const ptrdiff_t total = n[0] * n[1] * n[2] * n[3], inner = n[2] * n[3];
  ptrdiff_t ln0, s0, ln1, s1;
  const ptrdiff_t alloc = fftw_mpi_local_size_transposed(4, n, MPI_COMM_WORLD, &ln0, &s0, &ln1, &s1);
  fftw_complex* in = fftw_alloc_complex(alloc + 1);
  fftw_complex* out = fftw_alloc_complex(alloc + 1);
  fftw_plan forward = fftw_mpi_plan_dft(4, n, in, out, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_OUT);
  fftw_plan backward = fftw_mpi_plan_dft(4, n, out, in, MPI_COMM_WORLD, FFTW_BACKWARD, FFTW_ESTIMATE | FFTW_MPI_TRANSPOSED_IN);
  CHECK(forward && backward, "c2c 4-D transposed plans");
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < n[1]; ++j)
      for (ptrdiff_t q = 0; q < inner; ++q) in[(i * n[1] + j) * inner + q] = f4(s0 + i, j, q / n[3], q % n[3]);
  fftw_execute(forward);
  fftw_complex* want = fftw_alloc_complex(total);
  for (ptrdiff_t x = 0; x < total; ++x)
    want[x] = f4(x / (n[1] * inner), (x / inner) % n[1], (x % inner) / n[3], x % n[3]);
  const int ni[4] = {(int)n[0], (int)n[1], (int)n[2], (int)n[3]};
  fftw_plan serial = fftw_plan_dft(4, ni, want, want, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(serial);
  fftw_destroy_plan(serial);
  const double scale = max_abs(want, total);
  for (ptrdiff_t j = 0; j < ln1; ++j) /* transposed: local_n1 x n0 x n2 x n3 */
    for (ptrdiff_t i = 0; i < n[0]; ++i)
      for (ptrdiff_t q = 0; q < inner; ++q)
        CHECK(cabs(out[(j * n[0] + i) * inner + q] - want[(i * n[1] + s1 + j) * inner + q]) < 1e-12 * scale,
              "4-D transposed-out element (%td, %td, %td)", i, s1 + j, q);
  fftw_execute(backward);
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < n[1]; ++j)
      for (ptrdiff_t q = 0; q < inner; ++q)
        CHECK(cabs(in[(i * n[1] + j) * inner + q] / total - f4(s0 + i, j, q / n[3], q % n[3])) < 1e-12,
              "4-D round trip");
  fftw_destroy_plan(forward), fftw_destroy_plan(backward);
  /* r2r in place, untransposed. */
  const fftw_r2r_kind kinds[4] = {FFTW_REDFT10, FFTW_RODFT00, FFTW_REDFT01, FFTW_REDFT11};
  double* r = (double*)in;
  fftw_plan rp = fftw_mpi_plan_r2r(4, n, r, r, MPI_COMM_WORLD, kinds, FFTW_ESTIMATE);
  CHECK(rp != NULL, "r2r 4-D plan");
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < n[1]; ++j)
      for (ptrdiff_t q = 0; q < inner; ++q) r[(i * n[1] + j) * inner + q] = creal(f4(s0 + i, j, q / n[3], q % n[3]));
  fftw_execute(rp);
  double* rw = fftw_alloc_real(total);
  for (ptrdiff_t x = 0; x < total; ++x)
    rw[x] = creal(f4(x / (n[1] * inner), (x / inner) % n[1], (x % inner) / n[3], x % n[3]));
  fftw_plan rs = fftw_plan_r2r(4, ni, rw, rw, kinds, FFTW_ESTIMATE);
  fftw_execute(rs);
  fftw_destroy_plan(rs);
  double rscale = 0;
  for (ptrdiff_t x = 0; x < total; ++x) rscale = fmax(rscale, fabs(rw[x]));
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t q = 0; q < n[1] * inner; ++q)
      CHECK(fabs(r[i * n[1] * inner + q] - rw[(s0 + i) * n[1] * inner + q]) < 1e-12 * rscale, "4-D r2r element");
  fftw_destroy_plan(rp);
  fftw_free(in), fftw_free(out), fftw_free(want), fftw_free(rw);
}

/* 2-D c2c in place, untransposed, backward sign (the manual's 2-D example). */
static void c2c_2d_in_place(void) {
  const ptrdiff_t N0 = 11, N1 = 6;
  ptrdiff_t local_n0, local_0_start;
  const ptrdiff_t alloc = fftw_mpi_local_size_2d(N0, N1, MPI_COMM_WORLD, &local_n0, &local_0_start);
  fftw_complex* data = fftw_alloc_complex(alloc + 1);
  fftw_plan plan = fftw_mpi_plan_dft_2d(N0, N1, data, data, MPI_COMM_WORLD, FFTW_BACKWARD, FFTW_ESTIMATE);
  CHECK(plan, "2-D plan");
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < N1; ++j) data[i * N1 + j] = f_complex(local_0_start + i, j, 0);
  fftw_execute(plan);
  fftw_complex* want = serial_dft(N0, N1, 1, FFTW_BACKWARD);
  const double scale = max_abs(want, N0 * N1);
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < N1; ++j)
      CHECK(cabs(data[i * N1 + j] - want[(local_0_start + i) * N1 + j]) < 1e-12 * scale, "2-D element");
  fftw_destroy_plan(plan);
  fftw_free(data), fftw_free(want);
}

/* Interleaved fields (howmany) of FFTW's slab: field h of point p of local plane i holds
 * (h + 1) times the test function. */
static void fill_fields(fftw_complex* a, const ptrdiff_t n[3], ptrdiff_t howmany, ptrdiff_t local_n0,
                        ptrdiff_t local_0_start) {
  const ptrdiff_t plane = n[1] * n[2];
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t p = 0; p < plane; ++p)
      for (ptrdiff_t h = 0; h < howmany; ++h)
        a[(i * plane + p) * howmany + h] = (h + 1) * f_complex(local_0_start + i, p / n[2], p % n[2]);
}

/* Each field against (h + 1) times the serial forward DFT of the test function. */
static void check_fields(const fftw_complex* a, const ptrdiff_t n[3], ptrdiff_t howmany, ptrdiff_t local_n0,
                         ptrdiff_t local_0_start, const char* what) {
  const ptrdiff_t plane = n[1] * n[2];
  fftw_complex* want = serial_dft(n[0], n[1], n[2], FFTW_FORWARD);
  const double scale = max_abs(want, n[0] * plane);
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t p = 0; p < plane; ++p)
      for (ptrdiff_t h = 0; h < howmany; ++h)
        CHECK(cabs(a[(i * plane + p) * howmany + h] - (h + 1) * want[(local_0_start + i) * plane + p]) <
                  3e-12 * scale, "%s element (%td, %td) field %td", what, local_0_start + i, p, h);
  fftw_free(want);
}

/* howmany = 3 interleaved fields, a block size of our own, out of place, and new-array execute. */
static void many_dft(void) {
  const ptrdiff_t n[3] = {10, 4, 6}, howmany = 3;
  const ptrdiff_t block = ranks >= 3 ? 4 : FFTW_MPI_DEFAULT_BLOCK; /* 4, 4, 2, 0 ... at np >= 3 */
  ptrdiff_t local_n0, local_0_start;
  const ptrdiff_t alloc = fftw_mpi_local_size_many(3, n, howmany, block, MPI_COMM_WORLD, &local_n0, &local_0_start);
  fftw_complex *in = fftw_alloc_complex(alloc + 1), *out = fftw_alloc_complex(alloc + 1);
  fftw_complex *in2 = fftw_alloc_complex(alloc + 1), *out2 = fftw_alloc_complex(alloc + 1);
  fftw_plan plan = fftw_mpi_plan_many_dft(3, n, howmany, block, block, in, out, MPI_COMM_WORLD, FFTW_FORWARD,
                                          FFTW_ESTIMATE);
  CHECK(plan, "many_dft plan");
  fill_fields(in2, n, howmany, local_n0, local_0_start);
  fftw_mpi_execute_dft(plan, in2, out2); /* new arrays */
  check_fields(out2, n, howmany, local_n0, local_0_start, "howmany");
  fftw_destroy_plan(plan);
  fftw_free(in), fftw_free(out), fftw_free(in2), fftw_free(out2);
}

/* howmany = 2 in place and out of place on n0 = 2, so that from np 3 on the last ranks hold
 * nothing and pass NULL arrays, as FFTW's mpi-bench does (found by FFTW's own harness,
 * tests/fftw_mpi/fftw_harness.sh: "icf12x8v2" was refused, "obrd[6x9x10" at np 4 refused because
 * the empty rank's in == out (both NULL) made it in place while the others were not). */
static void many_dft_in_place_and_empty_ranks(int in_place) {
  const ptrdiff_t n[3] = {2, 6, 5}, howmany = 2;
  ptrdiff_t local_n0, local_0_start;
  const ptrdiff_t alloc = fftw_mpi_local_size_many(3, n, howmany, FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &local_n0,
                                                   &local_0_start);
  fftw_complex* in = local_n0 ? fftw_alloc_complex(alloc) : NULL;
  fftw_complex* out = in_place ? in : local_n0 ? fftw_alloc_complex(alloc) : NULL;
  fftw_plan plan = fftw_mpi_plan_many_dft(3, n, howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, in, out,
                                          MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  CHECK(plan, "many_dft plan (%s, howmany 2)", in_place ? "in place" : "out of place");
  fill_fields(in, n, howmany, local_n0, local_0_start);
  fftw_execute(plan);
  check_fields(out, n, howmany, local_n0, local_0_start, in_place ? "howmany in place" : "howmany out of place");
  fftw_destroy_plan(plan);
  if (out != in) fftw_free(out);
  fftw_free(in);
}

/* r2r 2-D: REDFT10 (DCT-II) x RODFT10 (DST-II), in place (the manual's example). */
static void r2r_2d(void) {
  const ptrdiff_t L = 9, M = 7;
  ptrdiff_t local_n0, local_0_start;
  const ptrdiff_t alloc = fftw_mpi_local_size_2d(L, M, MPI_COMM_WORLD, &local_n0, &local_0_start);
  double* data = fftw_alloc_real(alloc + 1);
  fftw_plan plan = fftw_mpi_plan_r2r_2d(L, M, data, data, MPI_COMM_WORLD, FFTW_REDFT10, FFTW_RODFT10, FFTW_ESTIMATE);
  CHECK(plan, "r2r plan");
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j) data[i * M + j] = f_real(local_0_start + i, j, 1);
  fftw_execute(plan);
  double* whole = fftw_alloc_real(L * M);
  for (ptrdiff_t i = 0; i < L; ++i)
    for (ptrdiff_t j = 0; j < M; ++j) whole[i * M + j] = f_real(i, j, 1);
  fftw_plan serial = fftw_plan_r2r_2d((int)L, (int)M, whole, whole, FFTW_REDFT10, FFTW_RODFT10, FFTW_ESTIMATE);
  fftw_execute(serial);
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j)
      CHECK(fabs(data[i * M + j] - whole[(local_0_start + i) * M + j]) < 1e-11, "r2r element (%td, %td)",
            local_0_start + i, j);
  fftw_destroy_plan(plan), fftw_destroy_plan(serial);
  fftw_free(data), fftw_free(whole);
}

/* many_transpose of pairs (howmany 2): n0 x n1 distributed over n0 -> n1 x n0 over n1. */
static void transpose(int in_place) {
  const ptrdiff_t n[2] = {9, 5}, howmany = 2;
  ptrdiff_t ln0, s0, ln1, s1;
  const ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(2, n, howmany, FFTW_MPI_DEFAULT_BLOCK,
                                                              FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &ln0, &s0,
                                                              &ln1, &s1);
  double* in = fftw_alloc_real(alloc + 1);
  double* out = in_place ? in : fftw_alloc_real(alloc + 1);
  fftw_plan plan = fftw_mpi_plan_many_transpose(n[0], n[1], howmany, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
                                                in, out, MPI_COMM_WORLD, FFTW_ESTIMATE);
  CHECK(plan, "transpose plan");
  for (ptrdiff_t i = 0; i < ln0; ++i)
    for (ptrdiff_t j = 0; j < n[1]; ++j)
      for (ptrdiff_t h = 0; h < howmany; ++h) in[(i * n[1] + j) * howmany + h] = 1000 * (s0 + i) + 10 * j + h;
  fftw_execute(plan);
  for (ptrdiff_t j = 0; j < ln1; ++j)
    for (ptrdiff_t i = 0; i < n[0]; ++i)
      for (ptrdiff_t h = 0; h < howmany; ++h)
        CHECK(out[(j * n[0] + i) * howmany + h] == 1000 * i + 10 * (s1 + j) + h, "transposed (%td, %td, %td)", i,
              s1 + j, h);
  fftw_destroy_plan(plan);
  fftw_free(in);
  if (!in_place) fftw_free(out);
}

/* Single precision: 2-D r2c out of place, against the double serial transform. */
static void r2c_2d_float(void) {
  const ptrdiff_t L = 8, M = 9, Mc = M / 2 + 1;
  ptrdiff_t local_n0, local_0_start;
  const ptrdiff_t alloc = fftwf_mpi_local_size_2d(L, Mc, MPI_COMM_WORLD, &local_n0, &local_0_start);
  float* rin = fftwf_alloc_real(2 * alloc + 1);
  fftwf_complex* cout = fftwf_alloc_complex(alloc + 1);
  fftwf_plan plan = fftwf_mpi_plan_dft_r2c_2d(L, M, rin, cout, MPI_COMM_WORLD, FFTW_ESTIMATE);
  CHECK(plan, "float r2c plan");
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < M; ++j) rin[i * 2 * Mc + j] = (float)f_real(local_0_start + i, j, 2);
  fftwf_execute(plan);
  double* whole = fftw_alloc_real(L * M);
  fftw_complex* spectrum = fftw_alloc_complex(L * Mc);
  for (ptrdiff_t i = 0; i < L; ++i)
    for (ptrdiff_t j = 0; j < M; ++j) whole[i * M + j] = (float)f_real(i, j, 2);
  fftw_plan serial = fftw_plan_dft_r2c_2d((int)L, (int)M, whole, spectrum, FFTW_ESTIMATE);
  fftw_execute(serial);
  const double scale = max_abs(spectrum, L * Mc);
  for (ptrdiff_t i = 0; i < local_n0; ++i)
    for (ptrdiff_t j = 0; j < Mc; ++j)
      CHECK(cabs((double complex)cout[i * Mc + j] - spectrum[(local_0_start + i) * Mc + j]) < 1e-5 * scale,
            "float r2c element");
  fftwf_destroy_plan(plan), fftw_destroy_plan(serial);
  fftwf_free(rin), fftwf_free(cout), fftw_free(whole), fftw_free(spectrum);
}

/* What volfft does not plan comes back NULL (with a message on rank 0), never a wrong plan. */
static void unsupported(void) {
  fftw_complex* a = fftw_alloc_complex(64);
  double* r = fftw_alloc_real(64);
  CHECK(fftw_mpi_plan_dft_1d(64, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE) == NULL, "1-D plan");
  CHECK(fftw_mpi_plan_r2r_2d(4, 4, r, r, MPI_COMM_WORLD, FFTW_R2HC, FFTW_REDFT10, FFTW_ESTIMATE) == NULL, "R2HC");
  CHECK(fftw_mpi_plan_dft_2d(4, 4, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE | FFTW_MPI_SCRAMBLED_OUT) == NULL,
        "scrambled");
  const ptrdiff_t n4[4] = {2, 2, 2, 2};
  CHECK(fftw_mpi_plan_dft_r2c(4, n4, r, a, MPI_COMM_WORLD, FFTW_ESTIMATE) == NULL, "4-D r2c");
  CHECK(fftw_mpi_plan_dft_2d(4, 4, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_WISDOM_ONLY) == NULL, "wisdom only");
  fftw_free(a), fftw_free(r);
}

/* Arguments that differ between ranks: NULL on every rank (no rank left in the planner: ctest's
 * timeout would catch it), and the plan after them works. */
static void arguments_differing_between_ranks(void) {
  const int odd = rank == ranks - 1;
  const ptrdiff_t n[2] = {4, 6}, one[1] = {8};
  ptrdiff_t local_n0, local_0_start;
  const ptrdiff_t alloc = fftw_mpi_local_size_many(2, n, 2, FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &local_n0,
                                                   &local_0_start);
  fftw_complex* a = fftw_alloc_complex(alloc > 8 ? alloc : 8);
  fftw_plan p = fftw_mpi_plan_many_dft(2, n, odd ? 0 : 2, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, a, a,
                                       MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  CHECK(p == NULL, "howmany 0 on one rank");
  p = fftw_mpi_plan_dft(odd ? 1 : 2, odd ? one : n, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  CHECK(p == NULL, "rnk 1 on one rank");
  p = fftw_mpi_plan_dft(2, n, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE | (odd ? FFTW_MPI_SCRAMBLED_OUT : 0));
  CHECK(p == NULL, "scrambled on one rank");
  p = fftw_mpi_plan_dft(2, n, a, a, MPI_COMM_WORLD, odd ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_ESTIMATE);
  CHECK(ranks == 1 ? p != NULL : p == NULL, "sign differing between ranks");
  if (p) fftw_destroy_plan(p);
  p = fftw_mpi_plan_many_dft(2, n, 1, -3, FFTW_MPI_DEFAULT_BLOCK, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  CHECK(p == NULL, "negative block");
  p = fftw_mpi_plan_dft(2, n, a, a, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
  CHECK(p != NULL, "a plan after the refused ones");
  fftw_destroy_plan(p);
  /* FFTW_DESTROY_INPUT is a permission: from some ranks only, the plan is made (and keeps its input). */
  fftw_complex* b = fftw_alloc_complex(alloc > 8 ? alloc : 8);
  p = fftw_mpi_plan_dft(2, n, a, b, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE | (odd ? FFTW_DESTROY_INPUT : 0));
  CHECK(p != NULL, "FFTW_DESTROY_INPUT on one rank");
  char* text = fftw_sprint_plan(p);
  CHECK(ranks == 1 || strstr(text, "destroy-input") == NULL, "destroy-input taken from one rank: %s", text);
  free(text);
  fftw_destroy_plan(p);
  fftw_free(a), fftw_free(b);
  /* Local sizes: rnk 0 sets the outputs (it left them as they were), idle ranks start at 0 and
   * allocate one element, as FFTW reports them. */
  local_n0 = local_0_start = -77;
  CHECK(fftw_mpi_local_size(0, n, MPI_COMM_WORLD, &local_n0, &local_0_start) == 0 && local_n0 == 0 &&
            local_0_start == 0,
        "rnk 0: local_n0 %td, start %td", local_n0, local_0_start);
  const ptrdiff_t small[2] = {2, 2};
  ptrdiff_t local_n1, local_1_start;
  const ptrdiff_t got = fftw_mpi_local_size_transposed(2, small, MPI_COMM_WORLD, &local_n0, &local_0_start,
                                                       &local_n1, &local_1_start);
  if (rank >= 2)
    CHECK(got == 1 && local_n0 == 0 && local_0_start == 0 && local_n1 == 0 && local_1_start == 0,
          "idle rank: alloc %td, n0 %td from %td, n1 %td from %td", got, local_n0, local_0_start, local_n1,
          local_1_start);
}

/* FFTW's serial wisdom through the MPI calls (FFTW's manual, "FFTW MPI Wisdom"): rank 0's plan
 * broadcast makes a FFTW_WISDOM_ONLY plan of it possible everywhere; every rank's plan gathered
 * makes each possible on rank 0. */
static void wisdom(void) {
  const int size = 96 + 2 * rank;  /* a size of this rank's own */
  fftw_complex* a = fftw_alloc_complex(128);
  fftw_complex* b = fftw_alloc_complex(128);
  if (rank == 0) fftw_destroy_plan(fftw_plan_dft_1d(90, a, b, FFTW_FORWARD, FFTW_MEASURE));
  fftw_mpi_broadcast_wisdom(MPI_COMM_WORLD);
  fftw_plan p = fftw_plan_dft_1d(90, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY);
  CHECK(p != NULL, "rank 0's wisdom, broadcast, plans here");
  fftw_destroy_plan(p);
  fftw_destroy_plan(fftw_plan_dft_1d(size, a, b, FFTW_FORWARD, FFTW_MEASURE));
  fftw_mpi_gather_wisdom(MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < ranks; ++r) {
      p = fftw_plan_dft_1d(96 + 2 * r, a, b, FFTW_FORWARD, FFTW_WISDOM_ONLY);
      CHECK(p != NULL, "rank %d's wisdom, gathered, plans on rank 0", r);
      fftw_destroy_plan(p);
    }
  fftw_free(a), fftw_free(b);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  fftwf_mpi_init();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  r2c_3d();
  c2c_3d_transposed();
  c2c_2d_in_place();
  c2c_r2r_4d();
  many_dft();
  many_dft_in_place_and_empty_ranks(1);
  many_dft_in_place_and_empty_ranks(0);
  r2r_2d();
  transpose(0);
  transpose(1);
  r2c_2d_float();
  unsupported();
  arguments_differing_between_ranks();
  wisdom();
  fftw_mpi_cleanup();
  fftwf_mpi_cleanup();
  if (rank == 0) printf("test_fftw_mpi: all passed at np %d\n", ranks);
  MPI_Finalize();
  return 0;
}
