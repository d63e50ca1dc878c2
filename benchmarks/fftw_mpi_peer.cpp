#include "fftw_mpi_peer.hpp"

#include "median.hpp"

// VOLFFT_BENCH_FFTW_MPI (benchmarks/CMakeLists.txt): FFTW-MPI exists for this build's MPI.
#if VOLFFT_BENCH_FFTW_MPI
#include <fftw3-mpi.h>
#else
#include <fftw3.h>
#endif

#if defined(VOLFFT_BENCH_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

void forget_fftw_wisdom() {
  fftw_forget_wisdom();
  fftwf_forget_wisdom();
}

namespace {

unsigned flags_of(volfft::Effort e) {
  return e == volfft::Effort::estimate ? FFTW_ESTIMATE
         : e == volfft::Effort::patient ? FFTW_PATIENT
                                        : FFTW_MEASURE;
}

double max_over(MPI_Comm comm, double t) {
  double m = t;
  MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

// FFTW's OpenMP library runs a plan of T threads in a team of OpenMP's default size (every core
// unless OMP_NUM_THREADS says otherwise), whose members beyond T spin idle at its barrier. A user
// running FFTW with T threads sets OMP_NUM_THREADS=T; the peer's threads() does the same (volfft
// sizes its teams itself, src/backend/omp_team.hpp).
void peer_team(int threads) {
#if defined(VOLFFT_BENCH_OPENMP)
  omp_set_num_threads(threads);
#else
  (void)threads;
#endif
}

// A string FFTW allocated (fftw_sprint_plan: malloc'ed, the caller frees it), as a std::string.
std::string taken(char* text) {
  std::string s = text ? text : "";
  std::free(text);
  return s;
}

// The FFTW (-MPI) API for one precision.
struct D {
  using real = double;
  using cplx = fftw_complex;
  using plan = fftw_plan;
#if VOLFFT_BENCH_FFTW_MPI
  static void init() { fftw_mpi_init(); }
  // The "many" forms: h interleaved fields (howmany), FFTW's default blocks.
  static ptrdiff_t local_size(int r, const ptrdiff_t* n, ptrdiff_t h, MPI_Comm c, ptrdiff_t* a, ptrdiff_t* b,
                              ptrdiff_t* x, ptrdiff_t* y) {
    return fftw_mpi_local_size_many_transposed(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, c, a, b, x, y);
  }
  static plan dft(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, int s, unsigned f) {
    return fftw_mpi_plan_many_dft(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (cplx*)i, (cplx*)o, c, s, f);
  }
  static plan r2c(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, unsigned f) {
    return fftw_mpi_plan_many_dft_r2c(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (real*)i, (cplx*)o, c, f);
  }
  static plan c2r(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, unsigned f) {
    return fftw_mpi_plan_many_dft_c2r(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (cplx*)i, (real*)o, c, f);
  }
  static plan r2r(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, const fftw_r2r_kind* k,
                  unsigned f) {
    return fftw_mpi_plan_many_r2r(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (real*)i, (real*)o, c, k, f);
  }
#endif
  static void* alloc(std::size_t bytes) { return fftw_malloc(bytes); }
  static void release(void* p) { fftw_free(p); }
  // The advanced interface: h interleaved fields (stride h, distance 1), the arrays' shapes
  // `ie`/`oe` (an in-place r2c's real rows are padded).
  static plan serial_dft(int r, const int* n, int h, void* i, void* o, int s, unsigned f) {
    return fftw_plan_many_dft(r, n, h, (cplx*)i, nullptr, h, 1, (cplx*)o, nullptr, h, 1, s, f);
  }
  static plan serial_r2c(int r, const int* n, int h, const int* ie, void* i, void* o, unsigned f) {
    return fftw_plan_many_dft_r2c(r, n, h, (real*)i, ie, h, 1, (cplx*)o, nullptr, h, 1, f);
  }
  static plan serial_c2r(int r, const int* n, int h, const int* oe, void* i, void* o, unsigned f) {
    return fftw_plan_many_dft_c2r(r, n, h, (cplx*)i, nullptr, h, 1, (real*)o, oe, h, 1, f);
  }
  static plan serial_r2r(int r, const int* n, int h, void* i, void* o, const fftw_r2r_kind* k, unsigned f) {
    return fftw_plan_many_r2r(r, n, h, (real*)i, nullptr, h, 1, (real*)o, nullptr, h, 1, k, f);
  }
  static void threads(int t) {
    fftw_init_threads();
    fftw_plan_with_nthreads(t);
    peer_team(t);
  }
  static void execute(plan p) { fftw_execute(p); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
  static std::string text(plan p) { return taken(fftw_sprint_plan(p)); }
};
struct F {
  using real = float;
  using cplx = fftwf_complex;
  using plan = fftwf_plan;
#if VOLFFT_BENCH_FFTW_MPI
  static void init() { fftwf_mpi_init(); }
  // The "many" forms: h interleaved fields (howmany), FFTW's default blocks.
  static ptrdiff_t local_size(int r, const ptrdiff_t* n, ptrdiff_t h, MPI_Comm c, ptrdiff_t* a, ptrdiff_t* b,
                              ptrdiff_t* x, ptrdiff_t* y) {
    return fftwf_mpi_local_size_many_transposed(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, c, a, b, x, y);
  }
  static plan dft(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, int s, unsigned f) {
    return fftwf_mpi_plan_many_dft(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (cplx*)i, (cplx*)o, c, s, f);
  }
  static plan r2c(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, unsigned f) {
    return fftwf_mpi_plan_many_dft_r2c(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (real*)i, (cplx*)o, c, f);
  }
  static plan c2r(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, unsigned f) {
    return fftwf_mpi_plan_many_dft_c2r(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (cplx*)i, (real*)o, c, f);
  }
  static plan r2r(int r, const ptrdiff_t* n, ptrdiff_t h, void* i, void* o, MPI_Comm c, const fftw_r2r_kind* k,
                  unsigned f) {
    return fftwf_mpi_plan_many_r2r(r, n, h, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, (real*)i, (real*)o, c, k, f);
  }
#endif
  static void* alloc(std::size_t bytes) { return fftwf_malloc(bytes); }
  static void release(void* p) { fftwf_free(p); }
  // The advanced interface: h interleaved fields (stride h, distance 1), the arrays' shapes
  // `ie`/`oe` (an in-place r2c's real rows are padded).
  static plan serial_dft(int r, const int* n, int h, void* i, void* o, int s, unsigned f) {
    return fftwf_plan_many_dft(r, n, h, (cplx*)i, nullptr, h, 1, (cplx*)o, nullptr, h, 1, s, f);
  }
  static plan serial_r2c(int r, const int* n, int h, const int* ie, void* i, void* o, unsigned f) {
    return fftwf_plan_many_dft_r2c(r, n, h, (real*)i, ie, h, 1, (cplx*)o, nullptr, h, 1, f);
  }
  static plan serial_c2r(int r, const int* n, int h, const int* oe, void* i, void* o, unsigned f) {
    return fftwf_plan_many_dft_c2r(r, n, h, (cplx*)i, nullptr, h, 1, (real*)o, oe, h, 1, f);
  }
  static plan serial_r2r(int r, const int* n, int h, void* i, void* o, const fftw_r2r_kind* k, unsigned f) {
    return fftwf_plan_many_r2r(r, n, h, (real*)i, nullptr, h, 1, (real*)o, nullptr, h, 1, k, f);
  }
  static void threads(int t) {
    fftwf_init_threads();
    fftwf_plan_with_nthreads(t);
    peer_team(t);
  }
  static void execute(plan p) { fftwf_execute(p); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
  static std::string text(plan p) { return taken(fftwf_sprint_plan(p)); }
};

// FFTW's r2r kinds for volfft's per-axis kinds, forward and (the inverse kinds) backward; empty
// unless `kind` is r2r. FFTW has a transform for r2r plans whose every axis is a DCT/DST, and for
// c2c/r2c plans whose axes are all DFTs: anything else is refused rather than timed as another
// transform.
struct R2rKinds {
  std::vector<fftw_r2r_kind> forward, backward;
};
fftw_r2r_kind fftw_kind_of(volfft::AxisKind k) {
  using volfft::AxisKind;
  switch (k) {
    case AxisKind::dct1: return FFTW_REDFT00;
    case AxisKind::dct2: return FFTW_REDFT10;
    case AxisKind::dct3: return FFTW_REDFT01;
    case AxisKind::dct4: return FFTW_REDFT11;
    case AxisKind::dst1: return FFTW_RODFT00;
    case AxisKind::dst2: return FFTW_RODFT10;
    case AxisKind::dst3: return FFTW_RODFT01;
    case AxisKind::dst4: return FFTW_RODFT11;
    default: throw std::runtime_error(std::string("volfft-bench: FFTW has no r2r transform for axis kind '") +
                                      volfft::to_string(k) + "' (the FFTW peers take DCT/DST kinds only)");
  }
}
R2rKinds r2r_kinds(volfft::Kind kind, const std::vector<volfft::AxisKind>& kinds) {
  R2rKinds k;
  if (kind != volfft::Kind::r2r) {
    for (volfft::AxisKind a : kinds)
      if (a != volfft::AxisKind::dft && a != volfft::AxisKind::r2c)
        throw std::runtime_error("volfft-bench: the FFTW peers transform DCT/DST axes of real data only (kind r2r); "
                                 "a c2c or r2c plan with other kinds has no FFTW peer");
    return k;
  }
  for (volfft::AxisKind a : kinds) {
    k.forward.push_back(fftw_kind_of(a));
    k.backward.push_back(fftw_kind_of(a == volfft::AxisKind::dct2   ? volfft::AxisKind::dct3
                                      : a == volfft::AxisKind::dct3 ? volfft::AxisKind::dct2
                                      : a == volfft::AxisKind::dst2 ? volfft::AxisKind::dst3
                                      : a == volfft::AxisKind::dst3 ? volfft::AxisKind::dst2
                                                                    : a));
  }
  return k;
}

// Data that is not zeros, so that no branch is faster than in real use; refilled before each
// in-place forward (an unscaled round trip multiplies by N: left alone, single precision would
// reach infinities within a few iterations).
template <class A>
void fill(void* data, std::size_t reals) {
  auto* x = static_cast<typename A::real*>(data);
  for (std::size_t k = 0; k < reals; ++k) x[k] = static_cast<typename A::real>((k * 7919 % 1000) * 1e-3);
}

// Times planned forward/backward pairs: forward in -> out, backward out -> back (all one buffer
// in place). c2r destroys its input, so out of place the forward runs again (untimed) to
// restore it; in place the data is refilled (untimed) before each forward. The companion, when
// given, runs in every iteration, first in the even ones and last in the odd ones.
template <class A, class Max>
void time_pairs(PeerTimes& t, typename A::plan pf, typename A::plan pb, void* in, std::size_t reals,
                bool in_place, bool real, int warmup, int iters, const Max& max_over_ranks,
                const std::function<void()>& barrier, const Companion& companion) {
  fill<A>(in, reals);
  for (int it = -warmup; it < iters; ++it) {
    const bool companion_first = (it + warmup) % 2 == 0;
    auto run_companion = [&] {
      if (!companion) return;
      const auto [cf, cb] = companion();
      if (it >= 0) t.companion_forward.push_back(cf), t.companion_backward.push_back(cb);
    };
    if (companion_first) run_companion();
    if (in_place) fill<A>(in, reals);
    barrier();
    double a = MPI_Wtime();
    A::execute(pf);
    const double tf = max_over_ranks(MPI_Wtime() - a);
    barrier();
    a = MPI_Wtime();
    A::execute(pb);
    const double tb = max_over_ranks(MPI_Wtime() - a);
    if (real && !in_place) A::execute(pf);  // restore `out` for the next backward
    if (it >= 0) t.forward.push_back(tf), t.backward.push_back(tb);
    if (!companion_first) run_companion();
  }
}

#if VOLFFT_BENCH_FFTW_MPI
template <class A>
PeerTimes mpi_times(MPI_Comm comm, const std::vector<std::int64_t>& shape, volfft::Kind kind, const R2rKinds& rk,
                    int howmany, volfft::Effort effort, bool transposed, bool in_place, int warmup, int iters,
                    const Companion& companion) {
  A::init();
  const int r = static_cast<int>(shape.size());
  std::vector<ptrdiff_t> n(shape.begin(), shape.end()), nc = n;
  const bool real = kind == volfft::Kind::r2c;
  if (real) nc.back() = n.back() / 2 + 1;
  ptrdiff_t n0, s0, n1, s1;
  // Complex elements per rank, enough for either side and for in place (FFTW-MPI pads real
  // arrays' last axis to 2*(n/2+1)).
  const ptrdiff_t count = A::local_size(r, nc.data(), howmany, comm, &n0, &s0, &n1, &s1);
  const std::size_t bytes = std::max<ptrdiff_t>(count, 1) * sizeof(typename A::cplx);
  void* in = A::alloc(bytes);
  void* out = in_place ? in : A::alloc(bytes);
  void* back = in_place ? in : A::alloc(bytes);
  std::memset(in, 0, bytes);
  const unsigned f = flags_of(effort);
  const unsigned fo = f | (transposed ? FFTW_MPI_TRANSPOSED_OUT : 0u);
  const unsigned fi = f | (transposed ? FFTW_MPI_TRANSPOSED_IN : 0u);
  PeerTimes t;
  forget_fftw_wisdom();
  double t0 = MPI_Wtime();
  // r2r: real arrays of the same local sizes (FFTW-MPI's local_size counts reals for r2r).
  const bool r2r = kind == volfft::Kind::r2r;
  const ptrdiff_t h = howmany;
  typename A::plan pf = r2r    ? A::r2r(r, n.data(), h, in, out, comm, rk.forward.data(), fo)
                        : real ? A::r2c(r, n.data(), h, in, out, comm, fo)
                               : A::dft(r, n.data(), h, in, out, comm, FFTW_FORWARD, fo);
  typename A::plan pb = r2r    ? A::r2r(r, n.data(), h, out, back, comm, rk.backward.data(), fi)
                        : real ? A::c2r(r, n.data(), h, out, back, comm, fi)
                               : A::dft(r, n.data(), h, out, back, comm, FFTW_BACKWARD, fi);
  t.plan_seconds = max_over(comm, MPI_Wtime() - t0);
  if (!pf || !pb) throw std::runtime_error("FFTW-MPI could not plan this problem");
  t.plan_forward = A::text(pf), t.plan_backward = A::text(pb);
  time_pairs<A>(t, pf, pb, in, bytes / sizeof(typename A::real), in_place, real, warmup, iters,
                [&](double x) { return max_over(comm, x); }, [&] { MPI_Barrier(comm); }, companion);
  A::destroy(pf);
  A::destroy(pb);
  A::release(in);
  if (!in_place) A::release(out), A::release(back);
  t.mode = std::string("FFTW-MPI slab, ") + (r2r ? "r2r, " : "") +
           (howmany > 1 ? "howmany " + std::to_string(howmany) + ", " : "") + (in_place ? "in-place, " : "out-of-place, ") +
           (transposed ? "TRANSPOSED_OUT/IN" : "natural order");
  return t;
}

#endif

template <class A>
PeerTimes serial_times(const std::vector<std::int64_t>& shape, volfft::Kind kind, const R2rKinds& rk, int howmany,
                       volfft::Effort effort, int threads, bool in_place, int warmup, int iters,
                       const Companion& companion) {
  A::threads(threads);
  const int r = static_cast<int>(shape.size());
  std::vector<int> n(shape.begin(), shape.end());
  std::size_t total = static_cast<std::size_t>(howmany);  // all fields
  for (int e : n) total *= static_cast<std::size_t>(e);
  // The real array's shape: an in-place r2c's rows hold 2(n/2 + 1) reals (FFTW's layout).
  std::vector<int> real_embed = n;
  if (in_place) real_embed.back() = 2 * (n.back() / 2 + 1);
  const bool real = kind == volfft::Kind::r2c;
  // Complex elements of the spectrum: also the padded real array of an in-place r2c.
  const std::size_t complex_count = real ? total / n.back() * (n.back() / 2 + 1) : total;
  const std::size_t bytes = std::max(total, complex_count) * sizeof(typename A::cplx);
  void* in = A::alloc(bytes);
  void* out = in_place ? in : A::alloc(complex_count * sizeof(typename A::cplx));
  void* back = in_place ? in : A::alloc(bytes);
  const unsigned f = flags_of(effort);
  PeerTimes t;
  forget_fftw_wisdom();
  double t0 = MPI_Wtime();
  const bool r2r = kind == volfft::Kind::r2r;  // real arrays both ways, within the same buffers
  const int h = howmany;
  typename A::plan pf = r2r    ? A::serial_r2r(r, n.data(), h, in, out, rk.forward.data(), f)
                        : real ? A::serial_r2c(r, n.data(), h, real_embed.data(), in, out, f)
                               : A::serial_dft(r, n.data(), h, in, out, FFTW_FORWARD, f);
  typename A::plan pb = r2r    ? A::serial_r2r(r, n.data(), h, out, back, rk.backward.data(), f)
                        : real ? A::serial_c2r(r, n.data(), h, real_embed.data(), out, back, f)
                               : A::serial_dft(r, n.data(), h, out, back, FFTW_BACKWARD, f);
  t.plan_seconds = MPI_Wtime() - t0;
  if (!pf || !pb) throw std::runtime_error("FFTW could not plan this problem");
  t.plan_forward = A::text(pf), t.plan_backward = A::text(pb);
  time_pairs<A>(t, pf, pb, in, (real ? 2 * complex_count : 2 * total), in_place, real, warmup, iters,
                [](double x) { return x; }, [] {}, companion);
  A::destroy(pf);
  A::destroy(pb);
  A::release(in);
  if (!in_place) A::release(out), A::release(back);
  A::threads(1);
  t.mode = "FFTW serial " + std::to_string(r) + "-D plan, " + (howmany > 1 ? "howmany " + std::to_string(howmany) + ", " : "") +
           (in_place ? "in-place, " : "out-of-place, ") +
           std::to_string(threads) + " thread(s)";
  return t;
}

}  // namespace

bool have_fftw_mpi() {
#if VOLFFT_BENCH_FFTW_MPI
  return true;
#else
  return false;
#endif
}

std::vector<PeerTimes> time_fftw_mpi(MPI_Comm comm, const std::vector<std::int64_t>& shape, volfft::Kind kind,
                                     const std::vector<volfft::AxisKind>& kinds, int howmany,
                                     volfft::Precision precision, volfft::Effort effort, int warmup, int iters,
                                     const Companion& companion) {
  std::vector<PeerTimes> modes;
  const R2rKinds rk = r2r_kinds(kind, kinds);
#if !VOLFFT_BENCH_FFTW_MPI
  (void)comm, (void)shape, (void)kind, (void)precision, (void)effort, (void)warmup, (void)iters, (void)rk, (void)howmany,
      (void)companion;
  throw std::runtime_error("volfft-bench: built without FFTW-MPI (VOLFFT_BENCH_FFTW_MPI=OFF)");
#else
  for (bool in_place : {false, true})
    for (bool transposed : {true, false})
      modes.push_back(precision == volfft::Precision::float64
                          ? mpi_times<D>(comm, shape, kind, rk, howmany, effort, transposed, in_place, warmup, iters,
                                         companion)
                          : mpi_times<F>(comm, shape, kind, rk, howmany, effort, transposed, in_place, warmup, iters,
                                         companion));
  return modes;
#endif
}

std::vector<PeerTimes> time_fftw_serial(const std::vector<std::int64_t>& shape, volfft::Kind kind,
                                        const std::vector<volfft::AxisKind>& kinds, int howmany,
                                        volfft::Precision precision, volfft::Effort effort, int threads, int warmup,
                                        int iters, const Companion& companion) {
  std::vector<PeerTimes> modes;
  const R2rKinds rk = r2r_kinds(kind, kinds);
  for (bool in_place : {false, true})
    modes.push_back(precision == volfft::Precision::float64
                        ? serial_times<D>(shape, kind, rk, howmany, effort, threads, in_place, warmup, iters, companion)
                        : serial_times<F>(shape, kind, rk, howmany, effort, threads, in_place, warmup, iters,
                                          companion));
  return modes;
}

std::size_t fastest(const std::vector<PeerTimes>& modes) {
  auto total = [](const PeerTimes& p) { return median(p.forward) + median(p.backward); };
  std::size_t best = 0;
  for (std::size_t k = 1; k < modes.size(); ++k)
    if (total(modes[k]) < total(modes[best])) best = k;
  return best;
}

}  // namespace bench
