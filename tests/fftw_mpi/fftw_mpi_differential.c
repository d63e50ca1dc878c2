/* Random small FFTW-MPI problems, written only against FFTW's manual interface, so the same
 * source links against FFTW's own libfftw3_mpi and against volfft_fftw3_mpi: each run writes every
 * rank's local sizes and outputs to DIR/rank<r>.txt, and fftw_mpi_compare.py compares two such
 * directories (tests/fftw_mpi/fftw_mpi_differential.sh runs both).
 *
 *   fftw_mpi_differential SEED CASES DIR
 *
 * Problems: rank 2-4, sizes 1-7 (n0 and n1 often below the rank count, so ranks hold nothing),
 * c2c both signs, r2c and c2r with padded rows, r2r (REDFT/RODFT kinds), many_transpose;
 * FFTW_MPI_TRANSPOSED_IN/OUT, in place and out of place, howmany 1-3, default and explicit block
 * sizes (at least n / ranks: FFTW refuses less, and volfft too), ranks that hold nothing passing
 * NULL arrays (volfft's build). c2r input is the r2c of a real array (Hermitian), so that every
 * library computes the same. */
#include <complex.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long state;
static unsigned draw(unsigned n) { /* the same on every rank: a shared LCG */
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)((state >> 33) % n);
}

enum { C2C, R2C, C2R, R2R, TRANSPOSE };

static double value(ptrdiff_t g, ptrdiff_t h, int part) { return sin(0.37 * g + 1.3 * h + 0.5 * part) + 0.1 * (g % 7); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  fftw_mpi_init();
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const unsigned seed = (unsigned)atoi(argv[1]);
  const int cases = atoi(argv[2]);
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.txt", argv[3], rank);
  FILE* f = fopen(path, "w");
  static const ptrdiff_t sizes[] = {1, 2, 2, 3, 3, 4, 5, 6, 7};
  int failed = 0;
  for (int c = 0; c < cases; ++c) {
    state = seed * 1000003ULL + (unsigned long long)c * 7919ULL + 17;
    const int kind = (int)draw(5);
    int rnk = 2 + (int)draw(3);
    if (kind == TRANSPOSE) rnk = 2;
    ptrdiff_t n[4];
    for (int a = 0; a < rnk; ++a) n[a] = sizes[draw(9)];
    const ptrdiff_t howmany = 1 + draw(3);
    const int in_place = (int)draw(2);
    unsigned flags = FFTW_ESTIMATE;
    int tin = 0, tout = 0;
    if (kind != TRANSPOSE) {
      tin = kind != R2C && draw(3) == 0;
      tout = kind != C2R && draw(3) == 0;
    }
    if (tin) flags |= FFTW_MPI_TRANSPOSED_IN;
    if (tout) flags |= FFTW_MPI_TRANSPOSED_OUT;
    /* The complex shape (r2c/c2r: the last axis halved), which the distribution is of. */
    ptrdiff_t nc[4];
    memcpy(nc, n, sizeof n);
    const int real_kind = kind == R2C || kind == C2R;
    if (real_kind) nc[rnk - 1] = n[rnk - 1] / 2 + 1;
    ptrdiff_t block0 = FFTW_MPI_DEFAULT_BLOCK, block1 = FFTW_MPI_DEFAULT_BLOCK;
    if (draw(3) == 0) {
      const ptrdiff_t least0 = (nc[0] + ranks - 1) / ranks, least1 = (nc[1] + ranks - 1) / ranks;
      block0 = least0 + draw((unsigned)(nc[0] - least0 + 1));
      /* One block of n1 only by default: FFTW then reports, with an explicit block1 >= n1, the
       * whole of n1 on every rank that holds input (more than it allocates), which volfft does not copy. */
      block1 = nc[1] > least1 ? least1 + draw((unsigned)(nc[1] - least1)) : FFTW_MPI_DEFAULT_BLOCK;
    }
    ptrdiff_t ln0, s0, ln1, s1;
    /* The manual's local-size call for each: untransposed plans size by fftw_mpi_local_size_many. */
    ptrdiff_t alloc;
    if (tin || tout || kind == TRANSPOSE) {
      alloc = fftw_mpi_local_size_many_transposed(rnk, nc, howmany, block0, block1, MPI_COMM_WORLD, &ln0, &s0, &ln1, &s1);
    } else {
      alloc = fftw_mpi_local_size_many(rnk, nc, howmany, block0, MPI_COMM_WORLD, &ln0, &s0);
      ln1 = s1 = -1;
    }
    /* Element counts of the input and output arrays (doubles), from the layouts of the manual. */
    ptrdiff_t rest_c = howmany, rest_r = howmany; /* per plane of the distributed axis */
    for (int a = 1; a < rnk; ++a) rest_c *= nc[a];
    for (int a = 1; a < rnk - 1; ++a) rest_r *= n[a];
    const ptrdiff_t padded = 2 * (n[rnk - 1] / 2 + 1);
    rest_r *= padded; /* real rows padded (r2c/c2r) */
    const ptrdiff_t units = kind == C2C ? 2 : (kind == R2R || kind == TRANSPOSE) ? 1 : 2;
#ifdef SLACK /* FFTW's own build: FFTW 3.3.10 writes past its local_size's count with some explicit
              * blocks (its intermediate distribution on ranks that hold none of n0): room for the
              * whole array, twice, on every rank */
    ptrdiff_t whole = howmany;
    for (int x = 0; x < rnk; ++x) whole *= nc[x] + 1;
    const ptrdiff_t bytes_doubles = (alloc + 2 * whole) * units + 256;
#else
    const ptrdiff_t bytes_doubles = alloc * units + 8;
#endif
    /* A rank that holds nothing on either side passes NULL arrays half the time (volfft only). */
    /* (FFTW's untransposed plans go through the transposed distribution: idle in both.) */
    ptrdiff_t tn0, ts0, tn1, ts1;
    fftw_mpi_local_size_many_transposed(rnk, nc, howmany, block0, block1, MPI_COMM_WORLD, &tn0, &ts0, &tn1, &ts1);
    const int idle = tn0 == 0 && tn1 == 0;
#ifdef SLACK /* FFTW's own: its intermediate distributions may use any rank's array */
    const int null_arrays = draw(2) && 0 && idle;
#else
    const int null_arrays = draw(2) && idle;
#endif
    double* a = null_arrays ? NULL : fftw_alloc_real((size_t)bytes_doubles);
    double* b = in_place || null_arrays ? a : fftw_alloc_real((size_t)bytes_doubles);
    for (ptrdiff_t k = 0; a && k < bytes_doubles; ++k) a[k] = 0, b[k] = 0;
    fftw_plan p = NULL;
    const ptrdiff_t ib = tin ? block1 : block0, ob = tout ? block1 : block0;
    const int sign = draw(2) ? FFTW_FORWARD : FFTW_BACKWARD;
    fftw_r2r_kind kinds[4];
    static const fftw_r2r_kind pool[] = {FFTW_REDFT00, FFTW_REDFT10, FFTW_REDFT01, FFTW_REDFT11,
                                         FFTW_RODFT00, FFTW_RODFT10, FFTW_RODFT01, FFTW_RODFT11};
    for (int x = 0; x < rnk; ++x) {
      kinds[x] = pool[draw(8)];
      if (kinds[x] == FFTW_REDFT00 && n[x] < 2) kinds[x] = FFTW_REDFT10; /* REDFT00 needs n > 1 */
    }
    /* Input: in the transposed layout when TRANSPOSED_IN (ln1 x n0 x n2...), else ln0 x n1 x ... */
    const ptrdiff_t local_in = tin ? ln1 : ln0, start_in = tin ? s1 : s0;
    /* Complex (r2r: real) elements per plane of the distributed axis, untransposed and transposed. */
    const ptrdiff_t plane_t = rest_c / nc[1] * nc[0];
    const ptrdiff_t plane = tin ? plane_t : rest_c;
    if (kind == TRANSPOSE) {
      for (ptrdiff_t k = 0; k < local_in * plane; ++k) a[k] = value((start_in * plane) + k, 0, 0);
      p = fftw_mpi_plan_many_transpose(n[0], n[1], howmany, block0, block1, a, b, MPI_COMM_WORLD, flags);
    } else if (kind == C2C || kind == R2R) {
      for (ptrdiff_t k = 0; k < local_in * plane * units; ++k) a[k] = value(start_in * plane * units + k, 0, 1);
      if (kind == C2C)
        p = fftw_mpi_plan_many_dft(rnk, n, howmany, ib, ob, (fftw_complex*)a, (fftw_complex*)b, MPI_COMM_WORLD,
                                   sign, flags);
      else
        p = fftw_mpi_plan_many_r2r(rnk, n, howmany, ib, ob, a, b, MPI_COMM_WORLD, kinds, flags);
    } else if (kind == R2C) {
      /* Rows of the last axis, each `padded` reals of `howmany` interleaved fields. */
      const ptrdiff_t rows = local_in * rest_r / (padded * howmany);
      for (ptrdiff_t r = 0; r < rows; ++r)
        for (ptrdiff_t e = 0; e < padded; ++e)
          for (ptrdiff_t h = 0; h < howmany; ++h)
            a[(r * padded + e) * howmany + h] = e < n[rnk - 1] ? value((start_in * rest_r / (padded * howmany) + r) * 64 + e, h, 2) : 0;
      p = fftw_mpi_plan_many_dft_r2c(rnk, n, howmany, ib, ob, a, (fftw_complex*)b, MPI_COMM_WORLD, flags);
    } else { /* C2R: the r2c (serial FFTW) of a real array, this rank's part of it */
      ptrdiff_t total = 1;
      int ni[4];
      for (int x = 0; x < rnk; ++x) total *= n[x], ni[x] = (int)n[x];
      ptrdiff_t ctotal = total / n[rnk - 1] * nc[rnk - 1];
      double* whole = fftw_alloc_real((size_t)(total * howmany));
      fftw_complex* spectrum = fftw_alloc_complex((size_t)(ctotal * howmany));
      for (ptrdiff_t k = 0; k < total * howmany; ++k) whole[k] = value(k, 0, 3);
      fftw_plan s = fftw_plan_many_dft_r2c(rnk, ni, (int)howmany, whole, NULL, (int)howmany, 1, spectrum, NULL,
                                           (int)howmany, 1, FFTW_ESTIMATE);
      fftw_execute(s);
      fftw_destroy_plan(s);
      fftw_complex* in = (fftw_complex*)a;
      /* Transposed in: local (ln1) x n0 x n2... of the complex array; else ln0 x n1 x ... */
      const ptrdiff_t inner = rest_c / howmany / nc[1]; /* product of nc[2..] */
      for (ptrdiff_t q = 0; q < local_in; ++q)
        for (ptrdiff_t o = 0; o < (tin ? nc[0] : nc[1]); ++o)
          for (ptrdiff_t x = 0; x < inner; ++x)
            for (ptrdiff_t h = 0; h < howmany; ++h) {
              const ptrdiff_t i0 = tin ? o : start_in + q, i1 = tin ? start_in + q : o;
              in[((q * (tin ? nc[0] : nc[1]) + o) * inner + x) * howmany + h] =
                  spectrum[((i0 * nc[1] + i1) * inner + x) * howmany + h];
            }
      fftw_free(whole), fftw_free(spectrum);
      p = fftw_mpi_plan_many_dft_c2r(rnk, n, howmany, ib, ob, (fftw_complex*)a, b, MPI_COMM_WORLD, flags);
    }
    fprintf(f, "case %d kind %d rnk %d n", c, kind, rnk);
    for (int x = 0; x < rnk; ++x) fprintf(f, " %td", n[x]);
    fprintf(f, " howmany %td inplace %d tin %d tout %d blocks %td %td sign %d alloc %td ln0 %td s0 %td ln1 %td s1 %td plan %d\n",
            howmany, in_place, tin, tout, block0, block1, sign, alloc, ln0, s0, ln1, s1, p != NULL);
    fflush(f); /* a crash below leaves the case it happened in on record */
    if (p) {
      double* saved = a ? fftw_alloc_real((size_t)bytes_doubles) : NULL; /* c2r may destroy its input */
      if (a) memcpy(saved, a, sizeof(double) * (size_t)bytes_doubles);
      fftw_execute(p);
      /* Output: transposed (ln1 x n0 x ...) when TRANSPOSED_OUT, else ln0 x n1 x ... */
      const ptrdiff_t local_out = tout ? ln1 : ln0;
      ptrdiff_t count;
      if (kind == C2R) {
        count = local_out * rest_r;
        for (ptrdiff_t r = 0; r < count / (padded * howmany); ++r) /* padding: no values */
          for (ptrdiff_t x = n[rnk - 1] * howmany; x < padded * howmany; ++x) b[r * padded * howmany + x] = 0;
      } else {
        count = kind == TRANSPOSE ? ln1 * plane_t : local_out * (tout ? plane_t : rest_c) * units;
      }
      for (ptrdiff_t k = 0; k < count; ++k) fprintf(f, "%.12e\n", b[k]);
#ifndef SLACK
      /* volfft's build: the new-array execute on copies at other addresses gives the same
       * (nothing of the arrays the plan was made with may be kept). */
      double* a2 = a ? fftw_alloc_real((size_t)bytes_doubles) : NULL;
      double* b2 = in_place || !a ? a2 : fftw_alloc_real((size_t)bytes_doubles);
      if (a) {
        memcpy(a2, saved, sizeof(double) * (size_t)bytes_doubles);
        if (b2 != a2) memset(b2, 0, sizeof(double) * (size_t)bytes_doubles);
      }
      if (kind == C2C)
        fftw_mpi_execute_dft(p, (fftw_complex*)a2, (fftw_complex*)b2);
      else if (kind == R2C)
        fftw_mpi_execute_dft_r2c(p, a2, (fftw_complex*)b2);
      else if (kind == C2R)
        fftw_mpi_execute_dft_c2r(p, (fftw_complex*)a2, b2);
      else
        fftw_mpi_execute_r2r(p, a2, b2);
      if (kind == C2R)
        for (ptrdiff_t r = 0; r < count / (padded * howmany); ++r)
          for (ptrdiff_t x = n[rnk - 1] * howmany; x < padded * howmany; ++x) b2[r * padded * howmany + x] = 0;
      for (ptrdiff_t k = 0; k < count; ++k)
        if (b2[k] != b[k]) {
          fprintf(stderr, "rank %d case %d: the new-array execute differs at %td: %g, not %g\n", rank, c, k, b2[k], b[k]);
          failed = 1;
          break;
        }
      fftw_free(a2);
      if (b2 != a2) fftw_free(b2);
#endif
      fftw_free(saved);
      fftw_destroy_plan(p);
    }
    fftw_free(a);
    if (b != a) fftw_free(b);
  }
  fclose(f);
  fftw_mpi_cleanup();
  MPI_Finalize();
  return failed;
}
