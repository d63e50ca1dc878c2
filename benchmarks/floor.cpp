#include "floor.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include "backend/fftw_api.hpp"
#include "kernels/copy_box.hpp"

namespace bench {

namespace {

using volfft::AxisKind;

// Memory aligned for FFTW's SIMD codelets and the streamed stores (64 bytes).
struct Aligned {
  explicit Aligned(std::size_t bytes) : p(std::aligned_alloc(64, (bytes + 63) / 64 * 64)) {
    if (!p) throw std::bad_alloc();
  }
  ~Aligned() { std::free(p); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  void* p;
};

// Best of `reps` collective timings of copy(): the slowest rank's time each.
template <class F>
double best_of(MPI_Comm comm, int reps, const F& copy) {
  copy();  // warm-up
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    copy();
    double mine = MPI_Wtime() - t0, slowest = mine;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    best = std::min(best, slowest);
  }
  return best;
}

// part(lo, n) on [0, bytes) split over `threads` threads, the calling thread one of them.
template <class F>
void split(std::size_t bytes, int threads, const F& part) {
  const std::size_t t = static_cast<std::size_t>(std::max(1, threads));
  // Whole 64-byte lines a thread, so that every part of a streamed copy starts on a line.
  const std::size_t share = (bytes / t + 63) / 64 * 64;
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < t; ++k) {
    const std::size_t lo = std::min(bytes, share * k), n = std::min(share, bytes - lo);
    pool.emplace_back([&part, lo, n] { part(lo, n); });
  }
  part(0, std::min(share, bytes));
  for (auto& th : pool) th.join();
}

// FFTW's r2r kind for a volfft AxisKind, forward or its inverse (backward).
fftw_r2r_kind r2r_kind(AxisKind k, bool forward) {
  switch (k) {
    case AxisKind::dct1: return FFTW_REDFT00;
    case AxisKind::dct2: return forward ? FFTW_REDFT10 : FFTW_REDFT01;
    case AxisKind::dct3: return forward ? FFTW_REDFT01 : FFTW_REDFT10;
    case AxisKind::dct4: return FFTW_REDFT11;
    case AxisKind::dst1: return FFTW_RODFT00;
    case AxisKind::dst2: return forward ? FFTW_RODFT10 : FFTW_RODFT01;
    case AxisKind::dst3: return forward ? FFTW_RODFT01 : FFTW_RODFT10;
    default: return FFTW_RODFT11;  // dst4
  }
}

// This rank's LineTime::seconds (see floor.hpp). Lines are contiguous and out of place (the
// input never changes, so repeated calls neither grow nor decay the values), as many as fill
// about 128 KiB of input and output together (in the L2 of current x86 cores), at least one.
template <class Api>
double line_seconds(std::int64_t n, AxisKind kind, bool forward) {
  using R = typename Api::real;
  const bool real_kind = kind != AxisKind::dft && kind != AxisKind::r2c;
  const std::int64_t half = n / 2 + 1;
  // Elements of R per line on each side.
  std::int64_t in_reals = 2 * n, out_reals = 2 * n;
  if (kind == AxisKind::r2c) (forward ? in_reals : out_reals) = n, (forward ? out_reals : in_reals) = 2 * half;
  if (real_kind) in_reals = out_reals = n;
  const std::int64_t line_bytes = (in_reals + out_reals) * static_cast<std::int64_t>(sizeof(R));
  const std::int64_t lines = std::max<std::int64_t>(1, (std::int64_t(128) << 10) / line_bytes);
  Aligned in(static_cast<std::size_t>(in_reals * lines) * sizeof(R));
  Aligned out(static_cast<std::size_t>(out_reals * lines) * sizeof(R));
  R* x = static_cast<R*>(in.p);
  for (std::int64_t k = 0; k < in_reals * lines; ++k) x[k] = R(0.1) + R(k % 9) / R(10);
  // Strides in units of the plan's elements: complex on the complex side, real on the real one.
  const std::int64_t in_dist = kind == AxisKind::dft || (kind == AxisKind::r2c && !forward) ? in_reals / 2 : in_reals;
  const std::int64_t out_dist = kind == AxisKind::dft || (kind == AxisKind::r2c && forward) ? out_reals / 2 : out_reals;
  const fftw_iodim64 dim{n, 1, 1}, many{lines, in_dist, out_dist};
  const int previous = Api::planner_threads();
  if (previous != 1) Api::plan_with_threads(1);  // one thread: the caller divides by the workers
  // FFTW_MEASURE overwrites the arrays while it plans; the input is filled again below.
  std::vector<R> saved(x, x + in_reals * lines);
  typename Api::plan p = nullptr;
  fftw_r2r_kind r2r = FFTW_R2HC;
  if (kind == AxisKind::dft)
    p = Api::dft(1, &dim, 1, &many, in.p, out.p, forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_MEASURE);
  else if (kind == AxisKind::r2c && forward)
    p = Api::r2c(1, &dim, 1, &many, in.p, out.p, FFTW_MEASURE);
  else if (kind == AxisKind::r2c)  // a 1-D c2r can keep its input (FFTW's manual)
    p = Api::c2r(1, &dim, 1, &many, in.p, out.p, FFTW_MEASURE | FFTW_PRESERVE_INPUT);
  else
    r2r = r2r_kind(kind, forward), p = Api::r2r(1, &dim, 1, &many, in.p, out.p, &r2r, FFTW_MEASURE);
  if (previous != 1) Api::plan_with_threads(previous);
  if (!p) return 0;  // FFTW has no plan: the phase gets no compute floor
  std::copy(saved.begin(), saved.end(), x);
  const auto run = [&] {
    if (kind == AxisKind::dft) Api::exec_dft(p, in.p, out.p);
    else if (kind == AxisKind::r2c && forward) Api::exec_r2c(p, in.p, out.p);
    else if (kind == AxisKind::r2c) Api::exec_c2r(p, in.p, out.p);
    else Api::exec_r2r(p, in.p, out.p);
  };
  // Enough calls a timing to take half a millisecond; the best of 7 timings.
  int calls = 1;
  for (;;) {
    const double t0 = MPI_Wtime();
    for (int c = 0; c < calls; ++c) run();
    if (MPI_Wtime() - t0 >= 5e-4 || calls >= (1 << 20)) break;
    calls *= 2;
  }
  double best = 1e300;
  for (int r = 0; r < 7; ++r) {
    const double t0 = MPI_Wtime();
    for (int c = 0; c < calls; ++c) run();
    best = std::min(best, MPI_Wtime() - t0);
  }
  Api::destroy(p);
  return best / (static_cast<double>(calls) * static_cast<double>(lines));
}

// The kind of each transformed axis, from the plan's stages.
std::map<int, AxisKind> axis_kinds(const volfft::PlanDescription& plan) {
  std::map<int, AxisKind> kinds;
  for (const auto& s : plan.stages)
    for (std::size_t q = 0; q < s.axes.size() && q < s.kinds.size(); ++q)
      if (s.kinds[q] != AxisKind::none) kinds[s.axes[q]] = s.kinds[q];
  return kinds;
}

}  // namespace

CopyBandwidth copy_bandwidth(MPI_Comm comm, std::size_t bytes_per_rank, int threads, int reps) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  bytes_per_rank = bytes_per_rank / 64 * 64;
  // Touched before timing (first-touch places the pages; nothing is timed twice cold).
  Aligned src(bytes_per_rank), dst(bytes_per_rank);
  auto* s = static_cast<unsigned char*>(src.p);
  auto* d = static_cast<unsigned char*>(dst.p);
  std::memset(s, 1, bytes_per_rank);
  std::memset(d, 0, bytes_per_rank);
  const double bytes = 2.0 * static_cast<double>(bytes_per_rank) * size;
  CopyBandwidth bw;
  bw.memcpy = bytes / best_of(comm, reps, [&] {
    split(bytes_per_rank, threads, [&](std::size_t lo, std::size_t n) { std::memcpy(d + lo, s + lo, n); });
  });
  using C = std::complex<double>;
  bw.streamed = bytes / best_of(comm, reps, [&] {
    split(bytes_per_rank, threads, [&](std::size_t lo, std::size_t n) {
      volfft::kernels::stream_row(reinterpret_cast<const C*>(s + lo), 1, reinterpret_cast<C*>(d + lo),
                                  static_cast<volfft::kernels::Index>(n / sizeof(C)));
      volfft::kernels::stream_fence();
    });
  });
  return bw;
}

std::vector<LineTime> fft_line_times(MPI_Comm comm, const volfft::PlanDescription& plan) {
  std::vector<LineTime> times;
  for (const auto& [axis, kind] : axis_kinds(plan))
    for (bool forward : {true, false}) {
      LineTime t;
      t.axis = axis, t.n = plan.shape[static_cast<std::size_t>(axis)], t.kind = kind, t.forward = forward;
      MPI_Barrier(comm);  // every rank at once, as in the phases
      using volfft::backend::DoubleApi, volfft::backend::FloatApi;
      t.seconds = plan.precision == volfft::Precision::float32 ? line_seconds<FloatApi>(t.n, kind, forward)
                                                              : line_seconds<DoubleApi>(t.n, kind, forward);
      times.push_back(t);
    }
  std::vector<double> mine, slowest(times.size());
  for (const auto& t : times) mine.push_back(t.seconds);
  MPI_Allreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, comm);
  for (std::size_t k = 0; k < times.size(); ++k) times[k].seconds = slowest[k];
  return times;
}

std::vector<FloorRow> floor_rows(const volfft::PlanDescription& plan, bool forward,
                                 const std::vector<std::string>& phase_names,
                                 const std::vector<double>& phase_seconds, double bandwidth,
                                 const std::vector<LineTime>& line_times, int workers) {
  // Elements of the whole array (every field): N reals or complexes in; N' = N / n_last *
  // (n_last / 2 + 1) complexes after the r2c axis.
  double n = plan.fields;
  for (auto e : plan.shape) n *= static_cast<double>(e);
  const double cb = static_cast<double>(plan.element_bytes), rb = cb / 2;
  const bool real = plan.kind == volfft::Kind::r2c;
  const double last = static_cast<double>(plan.shape.back());
  const double spectral = real ? n / last * (std::floor(last / 2) + 1) : n;
  // The complex array read and written once; the real side of the r2c/c2r phase instead of one
  // of them: the first forward FFT phase reads the reals, the last backward one writes them.
  const double fft_bytes = 2 * spectral * cb;
  const double real_fft_bytes = n * rb + spectral * cb;
  // An exchange redistributes the whole array: each value is either sent or, in each rank's own
  // block, copied into the next stage's array (both are copies the phases make), so its floor
  // is one read and one write of the array. Exchanges move the complex values (after r2c).
  const double exchange_bytes = 2 * spectral * cb;
  int fft_phases = 0, fft_seen = 0;
  for (const auto& name : phase_names) fft_phases += name.rfind("fft", 0) == 0;
  // An FFT phase's transforms in cache: lines of each of its axes times their LineTime, over
  // every worker. The r2c axis has N / n_last real lines, every other axis its share of the
  // complex (or, r2r, real) elements.
  const auto compute = [&](const std::string& name) {
    double seconds = 0;
    for (std::size_t c = 3; c < name.size(); ++c) {
      if (name[c] < '0' || name[c] > '9') return 0.0;
      const int axis = name[c] - '0';
      const LineTime* t = nullptr;
      for (const auto& l : line_times)
        if (l.axis == axis && l.forward == forward) t = &l;
      if (!t || t->seconds <= 0) return 0.0;  // an axis without a measured line: no floor
      const double elements = t->kind == volfft::AxisKind::r2c ? n / last * static_cast<double>(t->n) : spectral;
      seconds += elements / static_cast<double>(t->n) * t->seconds;
    }
    return seconds / std::max(1, workers);
  };

  std::vector<FloorRow> rows;
  std::map<std::string, std::size_t> group_row;  // exchange name -> its row
  for (std::size_t k = 0; k < phase_names.size(); ++k) {
    const std::string& name = phase_names[k];
    const double s = phase_seconds[k];
    if (name.rfind("hidden_", 0) == 0) continue;  // under compute: already in the FFT phases
    std::string group;
    for (const char* prefix : {"pack_", "exchange_", "unpack_"})
      if (name.rfind(prefix, 0) == 0) group = name.substr(std::strlen(prefix));
    if (!group.empty()) {
      auto it = group_row.find(group);
      if (it == group_row.end()) {
        FloorRow row;
        row.phase = "pack+exchange+unpack " + group;
        row.bytes = exchange_bytes;
        group_row[group] = rows.size();
        rows.push_back(row);
        it = group_row.find(group);
      }
      rows[it->second].seconds += s;
      continue;
    }
    FloorRow row;
    row.phase = name;
    row.seconds = s;
    if (name.rfind("fft", 0) == 0) {
      const bool real_side = real && (forward ? fft_seen == 0 : fft_seen == fft_phases - 1);
      row.bytes = real_side ? real_fft_bytes : fft_bytes;
      row.compute_seconds = compute(name);
      ++fft_seen;
    } else if (name == "scale") {
      row.bytes = forward ? 2 * spectral * cb : (real ? 2 * n * rb : 2 * n * cb);
    }
    rows.push_back(row);
  }
  for (auto& row : rows) row.floor_seconds = bandwidth > 0 ? row.bytes / bandwidth : 0;
  return rows;
}

void print_floor(const std::vector<FloorRow>& forward, const std::vector<FloorRow>& backward) {
  // `floor`: the row's larger floor (for the total, the sum of its phases' larger floors).
  auto line = [](const FloorRow& r, double floor) {
    char cache[32] = "-", of_floor[32] = "-";
    if (r.compute_seconds > 0) std::snprintf(cache, sizeof cache, "%.3f ms", r.compute_seconds * 1e3);
    if (r.seconds > 0 && floor > 0) std::snprintf(of_floor, sizeof of_floor, "%.0f%%", 100 * floor / r.seconds);
    if (r.bytes > 0)
      std::printf("    %-30s %10.3f %10.1f %9.3f ms %8.0f%% %12s %8s\n", r.phase.c_str(), r.seconds * 1e3,
                  r.bytes * 1e-6, r.floor_seconds * 1e3, r.seconds > 0 ? 100 * r.floor_seconds / r.seconds : 0.0,
                  cache, of_floor);
    else
      std::printf("    %-30s %10.3f %10s %12s %9s %12s %8s\n", r.phase.c_str(), r.seconds * 1e3, "-", "-", "-", "-", "-");
  };
  std::printf("    %-30s %10s %10s %12s %9s %12s %8s\n", "phase", "ms", "MB moved", "at copy bw", "fraction",
              "in cache", "of floor");
  for (const auto* rows : {&forward, &backward}) {
    std::printf("    %s\n", rows == &forward ? "forward" : "backward");
    FloorRow all{"all phases"};
    double all_floor = 0;
    for (const auto& row : *rows) {
      const double floor = std::max(row.floor_seconds, row.compute_seconds);
      line(row, floor);
      all.seconds += row.seconds, all.bytes += row.bytes, all.floor_seconds += row.floor_seconds;
      all_floor += floor;
    }
    line(all, all_floor);
  }
  std::printf("    (fraction: the time the bytes take at the copy bandwidth over the phase's time, every\n"
              "     phase's bytes one read and one write of what it transforms or moves; in cache: the\n"
              "     phase's FFTs timed alone with their data in cache, over every rank's threads; of floor:\n"
              "     the larger of the two over the phase's time, all phases: the sum of the larger ones)\n");
}

}  // namespace bench
