// volfft-one-rank-plans: at one rank, is volfft's whole-transform FFTW plan the peer's plan, and
// does volfft run it at the peer's speed? (docs/performance.md, "One rank: volfft's FFTW plan
// against FFTW's own".)
//
//   volfft-one-rank-plans N THREADS ROUNDS
//
// c2c double N^3 in place, effort measure, `THREADS` threads. Three contenders in one process,
// timed in alternating rounds (the order reversed every other round, so that neither always runs
// after the other):
//   volfft        volfft_forward(a, a) on a plan of one rank (no scaling forward);
//   fftw-same     fftw_plan_dft_3d on the same problem, planned with volfft's wisdom still in
//                 FFTW's memory: FFTW takes the plan volfft's measurement chose;
//   fftw-fresh    the same after fftw_forget_wisdom: FFTW's own measurement, what the bench's
//                 fftw-threads peer runs.
// Every FFTW plan libvolfft makes passes through this program's fftw_plan_guru64_dft (the
// executable exports it, so the loader binds libvolfft's calls here), which prints the plan
// FFTW chose; fftw_sprint_plan prints the peers'. Same text: the same plan; then a speed
// difference is volfft's own (its call path, its team), else the measurements chose differently.
//
// It checks itself: after the rounds, one more forward of each on the same input; volfft's output
// must equal fftw-same's (1e-12, relative to the largest value) and fftw-fresh's (1e-10: another
// plan rounds differently). Exit status 1 when a check fails or fftw-same's plan is not one of
// volfft's (then the comparison is void); tests/CMakeLists.txt runs it small (one_rank_plans).
//
// Run as one process (`scripts/mpirun.sh -n 1` or directly). Not installed.
#include <volfft/volfft.h>

#include <fftw3.h>
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "median.hpp"

namespace {
std::vector<std::string> volfft_plans;  // the text of every plan libvolfft made
}

extern "C" {
// Interposes FFTW's guru planner for libvolfft: prints each plan it returns.
fftw_plan fftw_plan_guru64_dft(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                               fftw_complex* in, fftw_complex* out, int sign, unsigned flags) {
  using Fn = fftw_plan (*)(int, const fftw_iodim64*, int, const fftw_iodim64*, fftw_complex*, fftw_complex*, int,
                           unsigned);
  static Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "fftw_plan_guru64_dft"));
  const auto t0 = std::chrono::steady_clock::now();
  fftw_plan p = real(rank, dims, howmany_rank, howmany, in, out, sign, flags);
  const double planned = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (p) {
    char* text = fftw_sprint_plan(p);
    volfft_plans.emplace_back(text);
    std::printf("volfft's plan (rank %d, howmany rank %d, sign %d, %s, flags 0x%x; planned in %.2f s):\n%s\n", rank,
                howmany_rank, sign, in == out ? "in place" : "out of place", flags, planned, text);
    std::free(text);
  }
  return p;
}
}

namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void fill(std::complex<double>* a, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) a[k] = std::complex<double>(double(k % 17) - 8, double(k % 5));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc != 4 || ranks != 1) {
    std::fprintf(stderr, "usage: volfft-one-rank-plans N THREADS ROUNDS (one process)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = std::atoi(argv[1]), threads = std::atoi(argv[2]), rounds = std::atoi(argv[3]);
  if (n < 2 || threads < 1 || rounds < 1) {
    std::fprintf(stderr, "volfft-one-rank-plans: N >= 2, THREADS >= 1, ROUNDS >= 1 expected\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::size_t count = std::size_t(n) * n * n;

  volfft_options o;
  volfft_options_default(&o);
  o.in_place = 1;
  o.threads = threads;
  o.effort = VOLFFT_MEASURE;
  o.scale_backward = 0;
  const int64_t shape[3] = {n, n, n};
  volfft_plan plan = nullptr;
  const double volfft_plan_s = seconds_of([&] {
    if (volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan)) {
      std::fprintf(stderr, "%s\n", volfft_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  });
  std::size_t bytes = 0;
  volfft_in_place_bytes(plan, &bytes);
  auto* a = static_cast<std::complex<double>*>(fftw_malloc(bytes));
  auto* b = static_cast<std::complex<double>*>(fftw_malloc(count * sizeof(fftw_complex)));
  auto* c = static_cast<std::complex<double>*>(fftw_malloc(count * sizeof(fftw_complex)));

  // The peers as a user of FFTW's OpenMP library with T threads runs them (OMP_NUM_THREADS=T).
  fftw_init_threads();
  omp_set_num_threads(threads);
  fftw_plan_with_nthreads(threads);
  auto* fb = reinterpret_cast<fftw_complex*>(b);
  auto* fc = reinterpret_cast<fftw_complex*>(c);
  fftw_plan same = nullptr, fresh = nullptr;
  const double same_plan_s = seconds_of([&] { same = fftw_plan_dft_3d(n, n, n, fb, fb, FFTW_FORWARD, FFTW_MEASURE); });
  fftw_forget_wisdom();
  const double fresh_plan_s =
      seconds_of([&] { fresh = fftw_plan_dft_3d(n, n, n, fc, fc, FFTW_FORWARD, FFTW_MEASURE); });
  if (volfft_plans.empty())
    std::printf("volfft made no plan through fftw_plan_guru64_dft: its plans are not shown, and the peers' "
                "cannot be compared with them\n");
  bool same_is_volffts = false;
  for (auto [name, p] : {std::pair<const char*, fftw_plan>{"fftw-same", same}, {"fftw-fresh", fresh}}) {
    char* text = fftw_sprint_plan(p);
    bool volfft_has_it = false;
    for (const std::string& v : volfft_plans) volfft_has_it = volfft_has_it || v == text;
    if (p == same) same_is_volffts = volfft_has_it;
    std::printf("%s's plan (%s one of volfft's):\n%s\n", name, volfft_has_it ? "the same as" : "not", text);
    std::free(text);
  }
  fill(a, count), fill(b, count), fill(c, count);

  std::vector<double> tv, ts, tf;
  for (int r = 0; r < rounds; ++r) {
    auto run_volfft = [&] { tv.push_back(seconds_of([&] { volfft_forward(plan, a, a); })); };
    auto run_same = [&] { ts.push_back(seconds_of([&] { fftw_execute(same); })); };
    auto run_fresh = [&] { tf.push_back(seconds_of([&] { fftw_execute(fresh); })); };
    if (r % 2 == 0) run_volfft(), run_same(), run_fresh();
    else run_fresh(), run_same(), run_volfft();
    // Keep the values bounded: an unscaled forward grows them by up to N^3 a call.
    if (r % 4 == 3) fill(a, count), fill(b, count), fill(c, count);
  }
  auto line = [&](const char* name, const std::vector<double>& t, double plan_s) {
    double lo = t[0];
    for (double x : t) lo = std::min(lo, x);
    std::printf("%-11s forward median %8.3f ms, min %8.3f ms, plan %.2f s; each round (ms):", name,
                bench::median(t) * 1e3, lo * 1e3, plan_s);
    for (double x : t) std::printf(" %.3g", x * 1e3);
    std::printf("\n");
  };
  std::printf("c2c double %d^3 in place, %d thread(s), %d alternating rounds:\n", n, threads, rounds);
  line("volfft", tv, volfft_plan_s);
  line("fftw-same", ts, same_plan_s);
  line("fftw-fresh", tf, fresh_plan_s);

  fill(a, count), fill(b, count), fill(c, count);
  volfft_forward(plan, a, a);
  fftw_execute(same);
  fftw_execute(fresh);
  double largest = 0, to_same = 0, to_fresh = 0;
  for (std::size_t k = 0; k < count; ++k) {
    largest = std::max(largest, std::abs(b[k]));
    to_same = std::max(to_same, std::abs(a[k] - b[k]));
    to_fresh = std::max(to_fresh, std::abs(a[k] - c[k]));
  }
  to_same /= largest, to_fresh /= largest;
  const bool ok = same_is_volffts && to_same <= 1e-12 && to_fresh <= 1e-10;
  std::printf("check: volfft's forward against fftw-same's %.1e, against fftw-fresh's %.1e (relative); "
              "fftw-same's plan %s volfft's: %s\n",
              to_same, to_fresh, same_is_volffts ? "is" : "is not", ok ? "OK" : "FAILED");
  fftw_destroy_plan(same), fftw_destroy_plan(fresh);
  volfft_plan_destroy(plan);
  fftw_free(a), fftw_free(b), fftw_free(c);
  MPI_Finalize();
  return ok ? 0 : 1;
}
