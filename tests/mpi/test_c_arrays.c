/* The C API of user arrays, named distributions and Reshape, against serial FFTW:
 *  - volfft_reshape from bricks to x-pencils and back, complex double and real float;
 *  - a plan on bricks in and bricks out (volfft_plan_create_on_arrays), with ghost layers on the
 *    input, forward against FFTW's serial 3-D DFT of the gathered array, backward round trip;
 *  - an r2r plan (VOLFFT_R2R, real data) on bricks against FFTW's serial r2r_3d;
 *  - errors: an overlapping cover and a NULL array on one rank fail on every rank alike;
 *  - the C API's own argument checks (c_api_contracts): arguments wrong on one rank fail the
 *    call on every rank (split-phase starts, collective timings, Reshape's threads), NULL output
 *    pointers, option arrays and their lengths, MPI_COMM_NULL, enum values a Reshape reads, and
 *    the workspace a plan needs queried before it exists (volfft_required_workspace_bytes).
 * Any failure aborts the job (MPI_Abort), so a failing rank never leaves the others waiting. */
#include <complex.h>
#include <fftw3.h> /* after complex.h: fftw_complex is double complex */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <volfft/volfft.h>

static int rank = 0, ranks = 1;

/* the C API's message after a failed call */
#define CHECK_C_LAST_ERROR() volfft_last_error()
#include "support/check_c.h"

/* The global test function: a value per global index, different everywhere. */
static double complex value_at(int64_t i, int64_t j, int64_t k) {
  return sin(0.7 * i + 0.3) + 0.25 * j - 0.1 * k + I * cos(0.2 * i * j + 0.5 * k);
}

static int64_t extent(const volfft_box* b, int a) { return b->hi[a] - b->lo[a]; }

/* Offset of global (i, j, k) in a C-order array over `storage`. */
static int64_t offset_in(const volfft_box* s, int64_t i, int64_t j, int64_t k) {
  return ((i - s->lo[0]) * extent(s, 1) + (j - s->lo[1])) * extent(s, 2) + (k - s->lo[2]);
}

static void reshape_bricks_to_pencils(void) {
  const int64_t shape[3] = {13, 10, 7};
  volfft_box* bricks = malloc(ranks * sizeof *bricks);
  volfft_box* pencils = malloc(ranks * sizeof *pencils);
  CHECK(volfft_bricks(3, shape, ranks, bricks) == VOLFFT_OK, "volfft_bricks");
  CHECK(volfft_pencils(3, shape, ranks, 0, pencils) == VOLFFT_OK, "volfft_pencils");
  volfft_local_array in, out;
  memset(&in, 0, sizeof in), memset(&out, 0, sizeof out);
  in.box = bricks[rank];
  out.box = pencils[rank];
  /* The output in memory order (1, 2, 0): axis 0 fastest, as an x-pencil code holds it. */
  out.order[0] = 1, out.order[1] = 2, out.order[2] = 0, out.order_length = 3;

  /* complex double */
  volfft_reshape reshape;
  CHECK(volfft_reshape_create(MPI_COMM_WORLD, 3, shape, &in, &out, VOLFFT_DOUBLE, VOLFFT_VALUES_COMPLEX, NULL,
                              &reshape) == VOLFFT_OK, "volfft_reshape_create");
  int64_t n_in = 0, n_out = 0;
  CHECK(volfft_reshape_counts(reshape, &n_in, &n_out) == VOLFFT_OK, "counts");
  const volfft_box* b = &in.box;
  CHECK(n_in == extent(b, 0) * extent(b, 1) * extent(b, 2), "input count %lld", (long long)n_in);
  double complex* x = malloc((n_in + 1) * sizeof *x);
  double complex* y = malloc((n_out + 1) * sizeof *y);
  double complex* z = malloc((n_in + 1) * sizeof *z);
  for (int64_t i = b->lo[0]; i < b->hi[0]; ++i)
    for (int64_t j = b->lo[1]; j < b->hi[1]; ++j)
      for (int64_t k = b->lo[2]; k < b->hi[2]; ++k) x[offset_in(b, i, j, k)] = value_at(i, j, k);
  CHECK(volfft_reshape_execute(reshape, x, y) == VOLFFT_OK, "execute");
  const volfft_box* p = &out.box;
  for (int64_t i = p->lo[0]; i < p->hi[0]; ++i)
    for (int64_t j = p->lo[1]; j < p->hi[1]; ++j)
      for (int64_t k = p->lo[2]; k < p->hi[2]; ++k) {
        const int64_t at = ((j - p->lo[1]) * extent(p, 2) + (k - p->lo[2])) * extent(p, 0) + (i - p->lo[0]);
        CHECK(y[at] == value_at(i, j, k), "reshaped element (%lld, %lld, %lld)", (long long)i, (long long)j,
              (long long)k);
      }
  /* split phase of the reverse: back to bricks */
  CHECK(volfft_reshape_start(reshape, y, z, 1) == VOLFFT_OK, "start reversed");
  int done = 0;
  CHECK(volfft_reshape_test(reshape, &done) == VOLFFT_OK, "test");
  CHECK(volfft_reshape_finish(reshape) == VOLFFT_OK, "finish");
  for (int64_t n = 0; n < n_in; ++n) CHECK(z[n] == x[n], "reversed element %lld", (long long)n);
  int engine = -1;
  CHECK(volfft_reshape_engine(reshape, &engine) == VOLFFT_OK && engine == VOLFFT_ENGINE_ALLTOALLV,
        "default engine: %d", engine);
  size_t bytes = 0;
  CHECK(volfft_reshape_workspace_bytes(reshape, &bytes) == VOLFFT_OK, "workspace");
  CHECK(volfft_reshape_destroy(reshape) == VOLFFT_OK, "destroy");

  /* real float on the p2p engine, C order both sides */
  out.order_length = 0;
  volfft_options options;
  volfft_options_default(&options);
  options.engine = VOLFFT_ENGINE_P2P;
  CHECK(volfft_reshape_create(MPI_COMM_WORLD, 3, shape, &in, &out, VOLFFT_FLOAT, VOLFFT_VALUES_REAL, &options,
                              &reshape) == VOLFFT_OK, "volfft_reshape_create (float)");
  float* xf = malloc((n_in + 1) * sizeof *xf);
  float* yf = malloc((n_out + 1) * sizeof *yf);
  for (int64_t i = b->lo[0]; i < b->hi[0]; ++i)
    for (int64_t j = b->lo[1]; j < b->hi[1]; ++j)
      for (int64_t k = b->lo[2]; k < b->hi[2]; ++k) xf[offset_in(b, i, j, k)] = (float)(100 * i + 10 * j + k);
  CHECK(volfft_reshape_execute(reshape, xf, yf) == VOLFFT_OK, "execute (float)");
  for (int64_t i = p->lo[0]; i < p->hi[0]; ++i)
    for (int64_t j = p->lo[1]; j < p->hi[1]; ++j)
      for (int64_t k = p->lo[2]; k < p->hi[2]; ++k)
        CHECK(yf[offset_in(p, i, j, k)] == (float)(100 * i + 10 * j + k), "float element");
  CHECK(volfft_reshape_destroy(reshape) == VOLFFT_OK, "destroy");
  free(x), free(y), free(z), free(xf), free(yf), free(bricks), free(pencils);
}

static void plan_on_bricks(void) {
  const int64_t shape[3] = {9, 11, 6};
  const int64_t N = shape[0] * shape[1] * shape[2];
  volfft_box* bricks = malloc(ranks * sizeof *bricks);
  CHECK(volfft_bricks(3, shape, ranks, bricks) == VOLFFT_OK, "volfft_bricks");
  volfft_local_array in, out;
  memset(&in, 0, sizeof in), memset(&out, 0, sizeof out);
  in.box = bricks[rank];
  out.box = bricks[rank];
  /* a ghost layer of 1 around the input brick */
  in.storage = in.box;
  for (int a = 0; a < 3; ++a) in.storage.lo[a] -= 1, in.storage.hi[a] += 1;
  volfft_plan plan;
  CHECK(volfft_plan_create_on_arrays(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, NULL, &in, &out,
                                     &plan) == VOLFFT_OK, "volfft_plan_create_on_arrays");
  volfft_local_array got;
  CHECK(volfft_input_array(plan, &got) == VOLFFT_OK, "input_array");
  for (int a = 0; a < 3; ++a)
    CHECK(got.box.lo[a] == in.box.lo[a] && got.storage.hi[a] == in.storage.hi[a], "input_array axis %d", a);
  int64_t n_in = 0, n_out = 0;
  CHECK(volfft_counts(plan, &n_in, &n_out) == VOLFFT_OK, "counts");
  const volfft_box* s = &in.storage;
  CHECK(n_in == extent(s, 0) * extent(s, 1) * extent(s, 2), "input count with ghosts: %lld", (long long)n_in);
  double complex* x = malloc((n_in + 1) * sizeof *x);
  double complex* y = malloc((n_out + 1) * sizeof *y);
  double complex* z = malloc((n_in + 1) * sizeof *z);
  for (int64_t n = 0; n < n_in; ++n) x[n] = z[n] = 1e300; /* ghosts: never read */
  const volfft_box* b = &in.box;
  for (int64_t i = b->lo[0]; i < b->hi[0]; ++i)
    for (int64_t j = b->lo[1]; j < b->hi[1]; ++j)
      for (int64_t k = b->lo[2]; k < b->hi[2]; ++k) x[offset_in(s, i, j, k)] = value_at(i, j, k);
  CHECK(volfft_forward(plan, x, y) == VOLFFT_OK, "forward");

  /* serial reference: every rank transforms the whole array */
  fftw_complex* whole = fftw_malloc(N * sizeof *whole);
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      for (int64_t k = 0; k < shape[2]; ++k)
        whole[(i * shape[1] + j) * shape[2] + k] = value_at(i, j, k);
  fftw_plan serial = fftw_plan_dft_3d((int)shape[0], (int)shape[1], (int)shape[2], whole, whole, FFTW_FORWARD,
                                      FFTW_ESTIMATE);
  fftw_execute(serial);
  const volfft_box* o = &out.box;
  double error = 0;
  for (int64_t i = o->lo[0]; i < o->hi[0]; ++i)
    for (int64_t j = o->lo[1]; j < o->hi[1]; ++j)
      for (int64_t k = o->lo[2]; k < o->hi[2]; ++k) {
        error = fmax(error, cabs(y[offset_in(o, i, j, k)] - whole[(i * shape[1] + j) * shape[2] + k]));
      }
  CHECK(error < 1e-10 * N, "forward against serial FFTW: error %.3e", error);
  CHECK(volfft_backward(plan, y, z) == VOLFFT_OK, "backward");
  for (int64_t i = b->lo[0]; i < b->hi[0]; ++i)
    for (int64_t j = b->lo[1]; j < b->hi[1]; ++j)
      for (int64_t k = b->lo[2]; k < b->hi[2]; ++k)
        CHECK(cabs(z[offset_in(s, i, j, k)] - value_at(i, j, k)) < 1e-12, "round trip");
  CHECK(z[0] == 1e300, "backward wrote a ghost element");
  fftw_destroy_plan(serial);
  fftw_free(whole);
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK, "destroy");
  free(x), free(y), free(z), free(bricks);
}

/* An r2r plan (VOLFFT_R2R) on real bricks in and out: DST-I, DCT-II, DCT-I per axis against FFTW's
 * serial fftw_plan_r2r_3d of the gathered array, then the round trip (backward scaled by 1/N of
 * the logical sizes 2(n+1), 2n, 2(n-1)). */
static void r2r_plan_on_bricks(void) {
  const int64_t shape[3] = {7, 10, 5};
  volfft_box* bricks = malloc(ranks * sizeof *bricks);
  CHECK(volfft_bricks(3, shape, ranks, bricks) == VOLFFT_OK, "volfft_bricks");
  volfft_local_array in, out;
  memset(&in, 0, sizeof in), memset(&out, 0, sizeof out);
  in.box = out.box = bricks[rank];
  volfft_options options;
  volfft_options_default(&options);
  const int kinds[3] = {VOLFFT_AXIS_DST1, VOLFFT_AXIS_DCT2, VOLFFT_AXIS_DCT1};
  options.kinds = kinds, options.kinds_length = 3;
  options.effort = VOLFFT_ESTIMATE;
  volfft_plan plan;
  CHECK(volfft_plan_create_on_arrays(MPI_COMM_WORLD, 3, shape, VOLFFT_R2R, VOLFFT_DOUBLE, &options, &in, &out,
                                     &plan) == VOLFFT_OK, "volfft_plan_create_on_arrays (r2r): %s", volfft_last_error());
  int64_t n_in = 0, n_out = 0;
  CHECK(volfft_counts(plan, &n_in, &n_out) == VOLFFT_OK, "counts");
  const volfft_box* b = &in.box;
  CHECK(n_in == extent(b, 0) * extent(b, 1) * extent(b, 2) && n_out == n_in, "r2r counts %lld %lld",
        (long long)n_in, (long long)n_out);
  double* x = malloc((n_in + 1) * sizeof *x);
  double* y = malloc((n_out + 1) * sizeof *y);
  double* z = malloc((n_in + 1) * sizeof *z);
  for (int64_t i = b->lo[0]; i < b->hi[0]; ++i)
    for (int64_t j = b->lo[1]; j < b->hi[1]; ++j)
      for (int64_t k = b->lo[2]; k < b->hi[2]; ++k) x[offset_in(b, i, j, k)] = creal(value_at(i, j, k));
  CHECK(volfft_forward(plan, x, y) == VOLFFT_OK, "forward (r2r)");
  const int64_t N = shape[0] * shape[1] * shape[2];
  double* whole = fftw_malloc(N * sizeof *whole);
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      for (int64_t k = 0; k < shape[2]; ++k) whole[(i * shape[1] + j) * shape[2] + k] = creal(value_at(i, j, k));
  fftw_plan serial = fftw_plan_r2r_3d((int)shape[0], (int)shape[1], (int)shape[2], whole, whole, FFTW_RODFT00,
                                      FFTW_REDFT10, FFTW_REDFT00, FFTW_ESTIMATE);
  fftw_execute(serial);
  double error = 0, scale = 0;
  for (int64_t i = b->lo[0]; i < b->hi[0]; ++i)
    for (int64_t j = b->lo[1]; j < b->hi[1]; ++j)
      for (int64_t k = b->lo[2]; k < b->hi[2]; ++k) {
        const double want = whole[(i * shape[1] + j) * shape[2] + k];
        error = fmax(error, fabs(y[offset_in(b, i, j, k)] - want)), scale = fmax(scale, fabs(want));
      }
  CHECK(error <= 1e-12 * scale, "r2r forward against serial FFTW r2r: error %.3e (largest value %.3e)", error, scale);
  CHECK(volfft_backward(plan, y, z) == VOLFFT_OK, "backward (r2r)");
  for (int64_t n = 0; n < n_in; ++n) CHECK(fabs(z[n] - x[n]) < 1e-12, "r2r round trip element %lld", (long long)n);
  fftw_destroy_plan(serial);
  fftw_free(whole);
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK, "destroy");
  /* a complex DFT axis in an r2r plan: refused on every rank alike */
  const int dft[3] = {VOLFFT_AXIS_DCT2, VOLFFT_AXIS_DFT, VOLFFT_AXIS_DCT2};
  options.kinds = dft;
  CHECK(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_R2R, VOLFFT_DOUBLE, &options, &plan) ==
            VOLFFT_ERROR_ARGUMENT && plan == NULL && strstr(volfft_last_error(), "an r2r plan's data is real"),
        "dft axis in an r2r plan: %s", volfft_last_error());
  free(x), free(y), free(z), free(bricks);
}

/* A 4-D c2c plan on its own arrays through the C API: the box and order describe the first three
 * axes (order: all four, the trailing one last), the fourth is whole; against FFTW's serial 4-D
 * plan, and the round trip. */
static void c2c_4d(void) {
  const int64_t shape[4] = {5, 4, 3, 6};
  volfft_options options;
  volfft_options_default(&options);
  options.effort = VOLFFT_ESTIMATE;
  volfft_plan plan;
  CHECK(volfft_plan_create(MPI_COMM_WORLD, 4, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &options, &plan) == VOLFFT_OK,
        "volfft_plan_create (4-D): %s", volfft_last_error());
  volfft_local_array ia, oa;
  int in_order[4], out_order[4];
  CHECK(volfft_input_array(plan, &ia) == VOLFFT_OK && volfft_output_array(plan, &oa) == VOLFFT_OK, "arrays");
  CHECK(volfft_input_order(plan, in_order) == VOLFFT_OK && volfft_output_order(plan, out_order) == VOLFFT_OK, "orders");
  CHECK(in_order[3] == 3 && out_order[3] == 3, "the trailing axis is last: %d %d", in_order[3], out_order[3]);
  int64_t n_in = 0, n_out = 0;
  CHECK(volfft_counts(plan, &n_in, &n_out) == VOLFFT_OK, "counts");
  CHECK(n_in == extent(&ia.box, 0) * extent(&ia.box, 1) * extent(&ia.box, 2) * shape[3], "4-D input count %lld",
        (long long)n_in);
  const int64_t N = shape[0] * shape[1] * shape[2] * shape[3];
  double complex* whole = fftw_malloc(N * sizeof *whole);
  for (int64_t x = 0; x < N; ++x) whole[x] = value_at(x / 72, (x / 18) % 4, x % 18);
  double complex* a = malloc((n_in + 1) * sizeof *a);
  double complex* y = malloc((n_out + 1) * sizeof *y);
  double complex* z = malloc((n_in + 1) * sizeof *z);
  /* strides of the local arrays from their orders (slowest first), the fourth axis fastest */
  int64_t is[4], os[4], step = 1;
  for (int k = 3; k >= 0; --k) is[in_order[k]] = step, step *= in_order[k] == 3 ? shape[3] : extent(&ia.box, in_order[k]);
  step = 1;
  for (int k = 3; k >= 0; --k) os[out_order[k]] = step, step *= out_order[k] == 3 ? shape[3] : extent(&oa.box, out_order[k]);
  for (int64_t i = ia.box.lo[0]; i < ia.box.hi[0]; ++i)
    for (int64_t j = ia.box.lo[1]; j < ia.box.hi[1]; ++j)
      for (int64_t k = ia.box.lo[2]; k < ia.box.hi[2]; ++k)
        for (int64_t l = 0; l < shape[3]; ++l)
          a[(i - ia.box.lo[0]) * is[0] + (j - ia.box.lo[1]) * is[1] + (k - ia.box.lo[2]) * is[2] + l * is[3]] =
              whole[((i * shape[1] + j) * shape[2] + k) * shape[3] + l];
  CHECK(volfft_forward(plan, a, y) == VOLFFT_OK, "forward (4-D)");
  const int n[4] = {5, 4, 3, 6};
  fftw_plan serial = fftw_plan_dft(4, n, whole, whole, FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(serial);
  fftw_destroy_plan(serial);
  double error = 0, scale = 0;
  for (int64_t i = oa.box.lo[0]; i < oa.box.hi[0]; ++i)
    for (int64_t j = oa.box.lo[1]; j < oa.box.hi[1]; ++j)
      for (int64_t k = oa.box.lo[2]; k < oa.box.hi[2]; ++k)
        for (int64_t l = 0; l < shape[3]; ++l) {
          const double complex want = whole[((i * shape[1] + j) * shape[2] + k) * shape[3] + l];
          const double complex got =
              y[(i - oa.box.lo[0]) * os[0] + (j - oa.box.lo[1]) * os[1] + (k - oa.box.lo[2]) * os[2] + l * os[3]];
          error = fmax(error, cabs(got - want)), scale = fmax(scale, cabs(want));
        }
  CHECK(error <= 1e-12 * fmax(scale, 1), "4-D forward against serial FFTW: error %.3e", error);
  CHECK(volfft_backward(plan, y, z) == VOLFFT_OK, "backward (4-D)");
  for (int64_t m = 0; m < n_in; ++m) CHECK(cabs(z[m] - a[m]) < 1e-12, "4-D round trip element %lld", (long long)m);
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK, "destroy");
  fftw_free(whole);
  free(a), free(y), free(z);
}

/* Both must fail on every rank with the same status, and return (no hang: ctest's timeout). */
static void errors_on_every_rank(void) {
  const int64_t shape[3] = {8, 6, 5};
  volfft_box* slabs = malloc(ranks * sizeof *slabs);
  CHECK(volfft_slabs(3, shape, ranks, 0, slabs) == VOLFFT_OK, "volfft_slabs");
  volfft_local_array in, out;
  memset(&in, 0, sizeof in), memset(&out, 0, sizeof out);
  in.box = slabs[rank];
  out.box = slabs[rank];
  /* rank 0 claims the whole array: an overlap with every other rank (np > 1); at np 1 a box one
   * plane too long, outside the array */
  const volfft_box own = in.box;
  if (rank == 0) in.box.hi[0] = ranks > 1 ? shape[0] : shape[0] + 1;
  volfft_reshape reshape = (volfft_reshape)&in;  /* must come back NULL */
  int status = volfft_reshape_create(MPI_COMM_WORLD, 3, shape, &in, &out, VOLFFT_DOUBLE, VOLFFT_VALUES_COMPLEX,
                                     NULL, &reshape);
  CHECK(status == VOLFFT_ERROR_ARGUMENT && reshape == NULL, "bad cover accepted: status %d", status);
  CHECK(strstr(volfft_last_error(), ranks > 1 ? "overlap" : "not inside the array") != NULL, "message: %s",
        volfft_last_error());
  in.box = own;
  /* a NULL output array on the last rank only */
  status = volfft_reshape_create(MPI_COMM_WORLD, 3, shape, &in, rank == ranks - 1 ? NULL : &out, VOLFFT_DOUBLE,
                                 VOLFFT_VALUES_COMPLEX, NULL, &reshape);
  CHECK(status == VOLFFT_ERROR_ARGUMENT, "NULL out on one rank: status %d", status);
  CHECK(rank != ranks - 1 || strstr(volfft_last_error(), "out is NULL") != NULL, "message: %s",
        volfft_last_error());
  /* a bad order length, agreed before the plan's collectives */
  out.order_length = rank == 0 ? 7 : 0;
  volfft_plan plan;
  status = volfft_plan_create_on_arrays(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, NULL, &in, &out, &plan);
  CHECK(status == VOLFFT_ERROR_ARGUMENT && plan == NULL, "order_length 7 accepted");
  CHECK(rank != 0 || strstr(volfft_last_error(), "out.order_length must be 0 (C order) or the number of dimensions, "
                                                 "at most 3") != NULL, "message: %s", volfft_last_error());
  /* distributions: bad axis, named */
  CHECK(volfft_pencils(3, shape, ranks, 3, slabs) == VOLFFT_ERROR_ARGUMENT && strstr(volfft_last_error(), "axis"),
        "pencils axis 3: %s", volfft_last_error());
  CHECK(volfft_bricks(3, shape, ranks, NULL) == VOLFFT_ERROR_ARGUMENT, "bricks into NULL");
  free(slabs);
}

/* status must be VOLFFT_ERROR_ARGUMENT with a message containing `text`, on every rank (where one
 * rank's argument was wrong, the others get its message, "(on rank r)" appended). */
static void expect_argument_error(int status, const char* text, const char* what) {
  CHECK(status == VOLFFT_ERROR_ARGUMENT, "%s: status %d", what, status);
  CHECK(strstr(volfft_last_error(), text) != NULL, "%s: message lacks '%s': %s", what, text, volfft_last_error());
}

static void c_api_contracts(void) {
  const int64_t shape[3] = {8, 6, 5};
  const int last = ranks - 1;
  volfft_plan plan = NULL;
  CHECK(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, NULL, &plan) == VOLFFT_OK, "plan");
  int64_t n_in = 0, n_out = 0;
  CHECK(volfft_counts(plan, &n_in, &n_out) == VOLFFT_OK, "counts");
  double complex* a = calloc(n_in > 0 ? n_in : 1, sizeof *a);
  double complex* y = calloc(n_out > 0 ? n_out : 1, sizeof *y);

  /* A split-phase start whose request pointer is NULL on one rank fails on every rank (before,
   * the others went into the transform and the job hung), and the plan stays usable. */
  /* On the ranks whose pointer is good, *request is NULL after the failure (it held garbage). */
  volfft_request request = (volfft_request)&n_in;
  expect_argument_error(volfft_forward_start(plan, a, y, rank == last ? NULL : &request), "request",
                        "forward_start with a NULL request on one rank");
  CHECK(rank == last || request == NULL, "forward_start failed: *request is NULL");
  request = (volfft_request)&n_in;
  expect_argument_error(volfft_backward_start(plan, y, a, rank == last ? NULL : &request), "request",
                        "backward_start with a NULL request on one rank");
  CHECK(rank == last || request == NULL, "backward_start failed: *request is NULL");
  CHECK(volfft_forward(plan, a, y) == VOLFFT_OK, "forward after the failed starts");

  /* volfft_timings over ranks (collective): a NULL count or a bad direction on one rank. */
  int count = 8;
  const char* names[8];
  double seconds[8];
  expect_argument_error(volfft_timings(plan, VOLFFT_FORWARD, 1, rank == last ? NULL : &count, names, seconds),
                        "count is NULL", "timings, NULL count on one rank");
  expect_argument_error(volfft_timings(plan, rank == last ? 7 : VOLFFT_FORWARD, 1, &count, names, seconds),
                        "direction", "timings, direction 7 on one rank");
  count = 8;
  CHECK(volfft_timings(plan, VOLFFT_FORWARD, 1, &count, names, seconds) == VOLFFT_OK && count > 0, "timings");

  /* The engine and backend auto chose: named ones, the same on every rank. */
  int engine = -1, backend = -1;
  CHECK(volfft_plan_engine(plan, &engine) == VOLFFT_OK && engine > VOLFFT_ENGINE_AUTO &&
            engine <= VOLFFT_ENGINE_NODE,
        "plan_engine");
  CHECK(volfft_plan_backend(plan, &backend) == VOLFFT_OK && backend > VOLFFT_BACKEND_AUTO &&
            backend <= VOLFFT_BACKEND_DUCC0,
        "plan_backend");
  int highest[2] = {engine, backend}, lowest[2] = {engine, backend};
  MPI_Allreduce(MPI_IN_PLACE, lowest, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, highest, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lowest[0] == highest[0] && lowest[1] == highest[1], "plan_engine/plan_backend the same on every rank");
  {
    volfft_options o;
    volfft_options_default(&o);
    o.engine = VOLFFT_ENGINE_P2P;
    o.backend = VOLFFT_BACKEND_FFTW;
    volfft_plan chosen = NULL;
    CHECK(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &chosen) == VOLFFT_OK,
          "plan with engine p2p");
    CHECK(volfft_plan_engine(chosen, &engine) == VOLFFT_OK && engine == VOLFFT_ENGINE_P2P, "plan_engine p2p");
    CHECK(volfft_plan_backend(chosen, &backend) == VOLFFT_OK && backend == VOLFFT_BACKEND_FFTW, "plan_backend fftw");
    volfft_plan_destroy(chosen);
  }

  /* Getters: NULL output pointers are argument errors, not crashes. */
  int64_t lo[3], hi[3];
  expect_argument_error(volfft_workspace_bytes(plan, NULL), "bytes", "workspace_bytes(NULL)");
  expect_argument_error(volfft_in_place_bytes(plan, NULL), "bytes", "in_place_bytes(NULL)");
  expect_argument_error(volfft_grid(plan, NULL), "grid", "grid(NULL)");
  expect_argument_error(volfft_plan_engine(plan, NULL), "engine", "plan_engine(NULL)");
  expect_argument_error(volfft_plan_backend(plan, NULL), "backend", "plan_backend(NULL)");
  expect_argument_error(volfft_input_order(plan, NULL), "order", "input_order(NULL)");
  expect_argument_error(volfft_output_order(plan, NULL), "order", "output_order(NULL)");
  expect_argument_error(volfft_input_box(plan, NULL, hi), "lo", "input_box(NULL, hi)");
  expect_argument_error(volfft_output_box(plan, lo, NULL), "hi", "output_box(lo, NULL)");
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK, "destroy");

  /* The workspace a plan given one needs, before it exists: exactly enough, and one byte less
   * is refused (engine auto: a plan that owns its workspace may take engine node, which needs
   * less, so volfft_workspace_bytes of such a plan is not the answer). */
  volfft_options o;
  volfft_options_default(&o);
  size_t need = 0;
  CHECK(volfft_required_workspace_bytes(ranks, rank, 3, shape, VOLFFT_R2C, VOLFFT_DOUBLE, &o, &need) == VOLFFT_OK,
        "required_workspace_bytes");
  unsigned char* memory = malloc(need + 64);
  o.workspace = memory, o.workspace_bytes = need;
  CHECK(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_R2C, VOLFFT_DOUBLE, &o, &plan) == VOLFFT_OK,
        "plan on the queried workspace (%zu bytes)", need);
  size_t used = 0;
  CHECK(volfft_workspace_bytes(plan, &used) == VOLFFT_OK && used == need, "workspace used %zu, queried %zu", used,
        need);
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK, "destroy");
  if (need > 0) {
    o.workspace_bytes = need - 1;
    expect_argument_error(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_R2C, VOLFFT_DOUBLE, &o, &plan),
                          "bytes", "workspace one byte short");
  }
  free(memory);
  expect_argument_error(volfft_required_workspace_bytes(ranks, ranks, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, NULL, &need),
                        "rank", "required_workspace_bytes, rank out of range");

  /* Option arrays and their lengths. */
  volfft_options_default(&o);
  o.spectral_ndim = 3;  /* no spectral_shape: was silently an unpadded plan */
  expect_argument_error(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan),
                        "spectral_shape", "spectral_ndim 3 with no spectral_shape");
  volfft_options_default(&o);
  const int kinds[3] = {VOLFFT_AXIS_DCT2, VOLFFT_AXIS_DCT2, VOLFFT_AXIS_DCT2};
  o.kinds = kinds, o.kinds_length = -1;
  expect_argument_error(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_R2R, VOLFFT_DOUBLE, &o, &plan),
                        "kinds_length", "kinds_length -1");

  /* MPI_COMM_NULL: an error on this rank, not an abort of the job. */
  expect_argument_error(volfft_plan_create(MPI_COMM_NULL, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, NULL, &plan),
                        "MPI_COMM_NULL", "plan on MPI_COMM_NULL");
  CHECK(plan == NULL, "plan on MPI_COMM_NULL left set");
  expect_argument_error(volfft_plan_create(MPI_COMM_WORLD, -5, shape, VOLFFT_C2C, VOLFFT_DOUBLE, NULL, &plan),
                        "ndim", "ndim -5");

  /* Reshape: threads 0 on one rank fails every rank; enum values out of range are named. */
  volfft_box* slabs = malloc(ranks * sizeof *slabs);
  CHECK(volfft_slabs(3, shape, ranks, 0, slabs) == VOLFFT_OK, "volfft_slabs");
  volfft_local_array in, out;
  memset(&in, 0, sizeof in), memset(&out, 0, sizeof out);
  in.box = out.box = slabs[rank];
  volfft_reshape reshape = NULL;
  volfft_options_default(&o);
  if (rank == last) o.threads = 0;
  expect_argument_error(volfft_reshape_create(MPI_COMM_WORLD, 3, shape, &in, &out, VOLFFT_DOUBLE,
                                              VOLFFT_VALUES_COMPLEX, &o, &reshape),
                        "options.threads", "reshape, threads 0 on one rank");
  volfft_options_default(&o);
  o.engine = 99;
  expect_argument_error(volfft_reshape_create(MPI_COMM_WORLD, 3, shape, &in, &out, VOLFFT_DOUBLE,
                                              VOLFFT_VALUES_COMPLEX, &o, &reshape),
                        "options.engine", "reshape, engine 99");
  volfft_options_default(&o);
  o.batch = 2, o.batch_layout = 7;
  expect_argument_error(volfft_reshape_create(MPI_COMM_WORLD, 3, shape, &in, &out, VOLFFT_DOUBLE,
                                              VOLFFT_VALUES_COMPLEX, &o, &reshape),
                        "options.batch_layout", "reshape, batch_layout 7");
  expect_argument_error(volfft_reshape_create(MPI_COMM_NULL, 3, shape, &in, &out, VOLFFT_DOUBLE,
                                              VOLFFT_VALUES_COMPLEX, NULL, &reshape),
                        "MPI_COMM_NULL", "reshape on MPI_COMM_NULL");
  /* A user workspace with user arrays: named as such, before any size check. */
  volfft_options_default(&o);
  unsigned char byte[64];
  o.workspace = byte, o.workspace_bytes = sizeof byte;
  expect_argument_error(volfft_plan_create_on_arrays(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &in,
                                                     &out, &plan),
                        "does not combine with user arrays", "workspace with user arrays");

  /* FFTW's blocks with a block far beyond the axis (its products once overflowed): rank 0 holds
   * the whole axis. */
  CHECK(volfft_fftw_blocks(3, shape, ranks, 0, (int64_t)1 << 62, slabs) == VOLFFT_OK, "fftw_blocks 2^62: %s",
        volfft_last_error());
  for (int r = 0; r < ranks; ++r)
    CHECK(slabs[r].lo[0] == (r == 0 ? 0 : shape[0]) && slabs[r].hi[0] == shape[0], "fftw_blocks 2^62: rank %d [%lld, %lld)",
          r, (long long)slabs[r].lo[0], (long long)slabs[r].hi[0]);
  free(slabs), free(a), free(y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  reshape_bricks_to_pencils();
  plan_on_bricks();
  r2r_plan_on_bricks();
  c2c_4d();
  errors_on_every_rank();
  c_api_contracts();
  if (rank == 0) printf("test_c_arrays: all passed at np %d\n", ranks);
  MPI_Finalize();
  return 0;
}
