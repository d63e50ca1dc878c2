// volfft-one-rank-plans: at one rank, are volfft's whole-transform FFTW plans the peer's plans,
// and does volfft run them at the peer's speed? (docs/performance.md, "One rank: volfft's FFTW
// plan against FFTW's own".)
//
//   volfft-one-rank-plans N THREADS ROUNDS [c2c|r2c]
//
// KIND (default c2c) double N^3 in place, effort measure, `THREADS` threads, forward and
// backward (unscaled). Three contenders in one process, timed in alternating rounds (the order
// reversed every other round, so that none always runs after another):
//   volfft        volfft_forward(a, a), then volfft_backward(a, a), on a plan of one rank;
//   fftw-same     fftw_plan_dft_3d (r2c: fftw_plan_dft_r2c_3d and _c2r_3d) on the same problem,
//                 planned with volfft's wisdom still in FFTW's memory: FFTW takes the plans
//                 volfft's measurement chose;
//   fftw-fresh    the same after fftw_forget_wisdom: FFTW's own measurement, what the bench's
//                 fftw-threads peer runs.
// Every FFTW plan libvolfft makes passes through this program's fftw_plan_guru64_dft,
// fftw_plan_guru64_dft_r2c and fftw_plan_guru64_dft_c2r (the executable exports them, so the
// loader binds libvolfft's calls here), which print the plan FFTW chose; fftw_sprint_plan prints
// the peers'. Same text: the same plan; then a speed difference is volfft's own (its call path,
// its team), else the measurements chose differently.
//
// It checks itself: after the rounds, one more forward and backward of each on the same input;
// volfft's outputs must equal fftw-same's (1e-12, relative to the largest value) and
// fftw-fresh's (1e-10: another plan rounds differently). Exit status 1 when a check fails or,
// where volfft runs the whole transform as one 3-D plan (c2c), one of fftw-same's plans is not
// one of volfft's (then the comparison is void). Whether it does is seen in one forward and
// backward after planning (this program's fftw_execute_dft): a c2c plan times its 3-D plan
// against axis 0 and then the planes at planning and may keep the latter. volfft's r2c at one
// rank and one thread runs by planes (an r2c over axes 1-2 and a c2c along axis 0); where volfft
// runs by planes fftw-same is FFTW's 3-D plan and the rounds compare volfft's split with it;
// tests/CMakeLists.txt runs it small for both kinds (one_rank_plans, one_rank_plans_r2c).
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
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "median.hpp"

namespace {
std::vector<std::string> volfft_plans;  // the text of every plan libvolfft made
std::vector<fftw_plan> volfft_3d_plans;  // those of them that transform the whole 3-D array
bool watching = false;                  // record whether volfft's calls execute one of them
bool volfft_whole = false;              // they did: volfft runs the transform as one 3-D plan

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// FFTW's own planner `symbol` on `args` (the guru call libvolfft made, whose first arguments
// are rank, dims, howmany_rank), timed; the plan it returns is recorded and printed (`kind`:
// what was planned).
template <class... Args>
fftw_plan plan_and_record(const char* symbol, const char* kind, bool in_place, unsigned flags, int rank,
                          const fftw_iodim64* dims, int howmany_rank, Args... args) {
  using Fn = fftw_plan (*)(int, const fftw_iodim64*, int, Args...);
  const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, symbol));  // planning only: no need to keep it
  fftw_plan p = nullptr;
  const double planned = seconds_of([&] { p = real(rank, dims, howmany_rank, args...); });
  if (!p) return p;
  char* text = fftw_sprint_plan(p);
  volfft_plans.emplace_back(text);
  if (rank == 3) volfft_3d_plans.push_back(p);
  std::printf("volfft's %s plan (rank %d, howmany rank %d, %s, flags 0x%x; planned in %.2f s):\n%s\n", kind, rank,
              howmany_rank, in_place ? "in place" : "out of place", flags, planned, text);
  std::free(text);
  return p;
}

bool same(const void* in, const void* out) { return in == out; }
}  // namespace

extern "C" {
// These interpose FFTW's guru planners for libvolfft: each prints the plan it returns.
fftw_plan fftw_plan_guru64_dft(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                               fftw_complex* in, fftw_complex* out, int sign, unsigned flags) {
  return plan_and_record("fftw_plan_guru64_dft", sign == FFTW_FORWARD ? "c2c forward" : "c2c backward", same(in, out),
                         flags, rank, dims, howmany_rank, howmany, in, out, sign, flags);
}
fftw_plan fftw_plan_guru64_dft_r2c(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                                   double* in, fftw_complex* out, unsigned flags) {
  return plan_and_record("fftw_plan_guru64_dft_r2c", "r2c", same(in, out), flags, rank, dims, howmany_rank, howmany,
                         in, out, flags);
}
fftw_plan fftw_plan_guru64_dft_c2r(int rank, const fftw_iodim64* dims, int howmany_rank, const fftw_iodim64* howmany,
                                   fftw_complex* in, double* out, unsigned flags) {
  return plan_and_record("fftw_plan_guru64_dft_c2r", "c2r", same(in, out), flags, rank, dims, howmany_rank, howmany,
                         in, out, flags);
}
// And FFTW's new-array execute, which libvolfft runs its plans with: a c2c plan at one rank
// times its 3-D plan against axis 0 and the planes at planning (src/plan/plane_split.cpp,
// src/plan/program.cpp) and keeps one of them, so the plans it made do not say which it runs.
void fftw_execute_dft(const fftw_plan p, fftw_complex* in, fftw_complex* out) {
  using Fn = void (*)(const fftw_plan, fftw_complex*, fftw_complex*);
  static const auto real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "fftw_execute_dft"));
  if (watching)
    for (fftw_plan q : volfft_3d_plans) volfft_whole = volfft_whole || q == p;
  real(p, in, out);
}
}

namespace {

// The peer's two plans on its own array.
struct Peer {
  const char* name;
  fftw_plan forward = nullptr, backward = nullptr;
  double plan_s = 0;
  double* array = nullptr;
  std::vector<double> tf, tb;
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if ((argc != 4 && argc != 5) || ranks != 1) {
    std::fprintf(stderr, "usage: volfft-one-rank-plans N THREADS ROUNDS [c2c|r2c] (one process)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = std::atoi(argv[1]), threads = std::atoi(argv[2]), rounds = std::atoi(argv[3]);
  const char* kind_name = argc == 5 ? argv[4] : "c2c";
  const bool r2c = std::strcmp(kind_name, "r2c") == 0;
  if (n < 2 || threads < 1 || rounds < 1 || (!r2c && std::strcmp(kind_name, "c2c") != 0)) {
    std::fprintf(stderr, "volfft-one-rank-plans: N >= 2, THREADS >= 1, ROUNDS >= 1 and KIND c2c or r2c expected\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Doubles in the one in-place array (r2c: FFTW's padded rows of 2(n/2+1) reals), and those
  // that hold values (r2c: the padding excluded when comparing real data).
  const std::size_t row = r2c ? 2 * (std::size_t(n) / 2 + 1) : 2 * std::size_t(n);
  const std::size_t doubles = std::size_t(n) * n * row;

  volfft_options o;
  volfft_options_default(&o);
  o.in_place = 1;
  o.threads = threads;
  o.effort = VOLFFT_MEASURE;
  o.scale_backward = 0;
  const int64_t shape[3] = {n, n, n};
  volfft_plan plan = nullptr;
  const double volfft_plan_s = seconds_of([&] {
    if (volfft_plan_create(MPI_COMM_WORLD, 3, shape, r2c ? VOLFFT_R2C : VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan)) {
      std::fprintf(stderr, "%s\n", volfft_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  });
  std::size_t bytes = 0;
  volfft_in_place_bytes(plan, &bytes);
  if (bytes != doubles * sizeof(double)) {
    std::fprintf(stderr, "volfft_in_place_bytes: %zu, expected %zu (FFTW's in-place layout)\n", bytes,
                 doubles * sizeof(double));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  auto* a = static_cast<double*>(fftw_malloc(bytes));
  std::memset(a, 0, bytes);
  watching = true;  // which of its plans volfft runs
  volfft_forward(plan, a, a);
  volfft_backward(plan, a, a);
  watching = false;

  // The peers as a user of FFTW's OpenMP library with T threads runs them (OMP_NUM_THREADS=T).
  fftw_init_threads();
  omp_set_num_threads(threads);
  fftw_plan_with_nthreads(threads);
  Peer same{"fftw-same"}, fresh{"fftw-fresh"};
  for (Peer* p : {&same, &fresh}) {
    p->array = static_cast<double*>(fftw_malloc(bytes));
    auto* c = reinterpret_cast<fftw_complex*>(p->array);
    if (p == &fresh) fftw_forget_wisdom();
    p->plan_s = seconds_of([&] {
      if (r2c) {
        p->forward = fftw_plan_dft_r2c_3d(n, n, n, p->array, c, FFTW_MEASURE);
        p->backward = fftw_plan_dft_c2r_3d(n, n, n, c, p->array, FFTW_MEASURE);
      } else {
        p->forward = fftw_plan_dft_3d(n, n, n, c, c, FFTW_FORWARD, FFTW_MEASURE);
        p->backward = fftw_plan_dft_3d(n, n, n, c, c, FFTW_BACKWARD, FFTW_MEASURE);
      }
    });
  }
  if (volfft_plans.empty())
    std::printf("volfft made no plan through FFTW's guru64 planners: its plans are not shown, and the peers' "
                "cannot be compared with them\n");
  bool same_is_volffts = true;
  for (Peer* p : {&same, &fresh})
    for (auto [direction, q] : {std::pair<const char*, fftw_plan>{"forward", p->forward}, {"backward", p->backward}}) {
      char* text = fftw_sprint_plan(q);
      bool volfft_has_it = false;
      for (const std::string& v : volfft_plans) volfft_has_it = volfft_has_it || v == text;
      if (p == &same && volfft_whole) same_is_volffts = same_is_volffts && volfft_has_it;
      std::printf("%s's %s plan (%s one of volfft's):\n%s\n", p->name, direction, volfft_has_it ? "the same as" : "not",
                  text);
      std::free(text);
    }

  // Input values; r2c: real values in the rows' first n places, FFTW's padding left zero.
  auto fill = [&](double* x) {
    for (std::size_t k = 0; k < doubles; ++k) {
      const std::size_t column = k % row;
      x[k] = r2c && column >= std::size_t(n) ? 0.0 : double(k % 17) - 8 + 0.25 * double(k % 5);
    }
  };
  std::vector<double> tf, tb;  // volfft's forward and backward times
  auto run_volfft = [&] {
    tf.push_back(seconds_of([&] { volfft_forward(plan, a, a); }));
    tb.push_back(seconds_of([&] { volfft_backward(plan, a, a); }));
  };
  auto run_peer = [&](Peer& p) {
    p.tf.push_back(seconds_of([&] { fftw_execute(p.forward); }));
    p.tb.push_back(seconds_of([&] { fftw_execute(p.backward); }));
  };
  for (int r = 0; r < rounds; ++r) {
    // Keep the values bounded: an unscaled round trip multiplies them by N^3.
    fill(a), fill(same.array), fill(fresh.array);
    if (r % 2 == 0) run_volfft(), run_peer(same), run_peer(fresh);
    else run_peer(fresh), run_peer(same), run_volfft();
  }
  auto line = [&](const char* name, const char* direction, const std::vector<double>& t, double plan_s) {
    double lo = t[0];
    for (double x : t) lo = std::min(lo, x);
    std::printf("%-11s %-8s median %8.3f ms, min %8.3f ms, plan %.2f s; each round (ms):", name, direction,
                bench::median(t) * 1e3, lo * 1e3, plan_s);
    for (double x : t) std::printf(" %.3g", x * 1e3);
    std::printf("\n");
  };
  std::printf("%s double %d^3 in place, %d thread(s), %d alternating rounds:\n", kind_name, n, threads, rounds);
  line("volfft", "forward", tf, volfft_plan_s);
  line("volfft", "backward", tb, volfft_plan_s);
  for (Peer* p : {&same, &fresh}) {
    line(p->name, "forward", p->tf, p->plan_s);
    line(p->name, "backward", p->tb, p->plan_s);
  }

  // The check: each direction's output of every contender from the same input. The forward's
  // spectra are compared whole; the backward's real outputs without FFTW's padding (c2r leaves
  // it undefined).
  double to_same[2] = {0, 0}, to_fresh[2] = {0, 0};
  for (int direction = 0; direction < 2; ++direction) {
    fill(a), fill(same.array), fill(fresh.array);
    if (direction == 1) {  // every backward from volfft's spectrum: the same input for all three
      volfft_forward(plan, a, a);
      fftw_execute(same.forward), fftw_execute(fresh.forward);
      std::memcpy(same.array, a, bytes), std::memcpy(fresh.array, a, bytes);
      volfft_backward(plan, a, a);
      fftw_execute(same.backward), fftw_execute(fresh.backward);
    } else {
      volfft_forward(plan, a, a);
      fftw_execute(same.forward), fftw_execute(fresh.forward);
    }
    double largest = 0;
    for (std::size_t k = 0; k < doubles; ++k) {
      if (direction == 1 && r2c && k % row >= std::size_t(n)) continue;
      largest = std::max(largest, std::abs(same.array[k]));
      to_same[direction] = std::max(to_same[direction], std::abs(a[k] - same.array[k]));
      to_fresh[direction] = std::max(to_fresh[direction], std::abs(a[k] - fresh.array[k]));
    }
    to_same[direction] /= largest, to_fresh[direction] /= largest;
  }
  if (!volfft_whole)
    std::printf("volfft runs the transform as more than one FFTW plan (r2c: by planes; c2c: axis 0 and the planes, "
                "by rule or kept by its timing at planning; src/plan/stage_ops.cpp), so fftw-same is FFTW's 3-D plan, "
                "not what volfft runs\n");
  const bool ok = same_is_volffts && std::max(to_same[0], to_same[1]) <= 1e-12 &&
                  std::max(to_fresh[0], to_fresh[1]) <= 1e-10;
  std::printf("check: volfft's forward against fftw-same's %.1e, against fftw-fresh's %.1e; backward %.1e and %.1e "
              "(relative); fftw-same's plans %s volfft's: %s\n",
              to_same[0], to_fresh[0], to_same[1], to_fresh[1],
              !volfft_whole ? "were not compared with" : same_is_volffts ? "are" : "are not",
              ok ? "OK" : "FAILED");
  for (Peer* p : {&same, &fresh}) {
    fftw_destroy_plan(p->forward), fftw_destroy_plan(p->backward);
    fftw_free(p->array);
  }
  volfft_plan_destroy(plan);
  fftw_free(a);
  MPI_Finalize();
  return ok ? 0 : 1;
}
