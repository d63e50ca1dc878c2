#include "tune/autotune.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <new>
#include <set>
#include <sstream>

#include "core/engines.hpp"
#include "core/hash.hpp"
#include "exchange/exchange.hpp"
#include "mpi/agreement.hpp"
#include "tune/wisdom.hpp"
#include "volfft/error.hpp"
#include "volfft/plan.hpp"

namespace volfft::tune {
namespace {

using Candidate = Choice;

std::string describe_candidate(const Candidate& c) {
  std::string s = std::to_string(c.grid[0]) + "x" + std::to_string(c.grid[1]) + " " + to_string(c.engine);
  if (c.engine == Engine::pipelined) s += " planes " + (c.planes < 0 ? std::string("auto") : std::to_string(c.planes));
  return s;
}

// Simplest first: the rule's grid before the others, engines in the catalogue's order
// (alltoallv first). The order breaks ties inside the noise and decides what a time budget
// reaches.
std::vector<Candidate> candidates(int size, const std::vector<std::int64_t>& shape, Kind kind, const Options& o) {
  std::vector<std::array<int, 2>> grids;
  if (o.grid[0] != 0 || o.grid[1] != 0) {
    grids.push_back(o.grid);
  } else if (shape.size() == 2) {
    grids.push_back({size, 1});
  } else {
    grids.push_back(core::choose_grid(size, shape, kind));
    for (int p0 = size; p0 >= 1; --p0)
      if (size % p0 == 0 && std::array<int, 2>{p0, size / p0} != grids.front()) grids.push_back({p0, size / p0});
  }
  std::vector<Engine> engines;
  if (o.engine != Engine::automatic) {
    engines.push_back(o.engine);
  } else {
    // The catalogue's candidates; an engine that does not apply to a problem backs out when
    // its candidate plan is made (time_candidate).
    for (const core::EngineInfo& e : core::engine_catalogue())
      if (e.tuned || (e.tuned_patient && o.effort == Effort::patient)) engines.push_back(e.id);
  }
  std::vector<Candidate> out;
  for (auto g : grids)
    for (Engine e : engines) {
      std::vector<int> planes{o.planes};
      if (e == Engine::pipelined && o.planes < 0) {
        // About 8 chunks (automatic), and about 4 and 16 of the first exchange's local planes.
        const std::int64_t m = (shape[0] + g[0] - 1) / g[0];
        planes = {-1};
        for (std::int64_t div : {4, 16}) {
          const int pl = static_cast<int>(std::max<std::int64_t>(1, (m + div - 1) / div));
          if (std::find(planes.begin(), planes.end(), pl) == planes.end()) planes.push_back(pl);
        }
      }
      for (int pl : planes) out.push_back(Candidate{g, e, pl, 0});
    }
  return out;
}

// Per-rank noise for tests (VOLFFT_TUNE_NOISE = seconds): ranks then measure different times,
// and the choice must still agree.
double noise(int rank, int k) {
  const char* env = std::getenv("VOLFFT_TUNE_NOISE");
  if (!env) return 0;
  const double scale = std::atof(env);
  std::uint64_t x = (static_cast<std::uint64_t>(rank) + 1) * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(k) * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  return scale * static_cast<double>(x >> 11) / static_cast<double>(1ull << 53);
}

Options with(const Options& base, const Candidate& c) {
  Options o = base;
  o.grid = c.grid, o.engine = c.engine, o.planes = c.planes;
  return o;
}

// With a workspace of the user's, only candidates whose plan fits it on every rank are open:
// "" or why not (the same on every rank). Collective.
std::string workspace_problem(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind,
                              Precision precision, const Options& base, const Candidate& c) {
  if (!base.workspace) return "";
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  int fits = 1, all_fit = 1;
  try {
    fits = Plan::required_workspace_bytes(size, rank, shape, kind, precision, with(base, c)) <= base.workspace_bytes;
  } catch (const Error&) {
    // An invalid candidate backs out with its own message when it is planned.
  }
  MPI_Allreduce(&fits, &all_fit, 1, MPI_INT, MPI_MIN, comm);
  return all_fit ? "" : "needs more than the given workspace of " + std::to_string(base.workspace_bytes) + " bytes";
}

// Whether a configuration read from a wisdom file is one this plan can take here (a file edited
// by hand, or written for another communicator or options): "" or why not, the same on every
// rank. Collective.
std::string wisdom_problem(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                           const Options& base, const Candidate& c) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  std::string problem;
  if (base.grid != std::array<int, 2>{0, 0} && c.grid != base.grid)
    problem = "the plan's grid is fixed to " + std::to_string(base.grid[0]) + "x" + std::to_string(base.grid[1]);
  else if (base.engine != Engine::automatic && c.engine != base.engine)
    problem = std::string("the plan's engine is fixed to '") + to_string(base.engine) + "'";
  if (problem.empty()) {
    try {
      (void)Plan::required_workspace_bytes(size, rank, shape, kind, precision, with(base, c));
    } catch (const Error& e) {
      problem = e.what();
    }
  }
  try {
    mpi::agree_or_throw(comm, problem);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

struct Timing {
  double median = 0, spread = 0;  // of the repetitions' times (each the maximum over ranks)
  double noise = 0;               // test noise added on this rank (counts against the budget)
};

Timing time_candidate(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                      const Options& base, const Candidate& c, int index, const std::optional<LocalArray>& user_in,
                      const std::optional<LocalArray>& user_out) {
  Options o = with(base, c);
  o.effort = Effort::estimate;  // candidates are compared, not kept: plan them quickly
  o.wisdom_file.clear(), o.verbose = false;
  o.workspace = nullptr, o.workspace_bytes = 0;
  Plan plan = user_in || user_out ? Plan(comm, shape, kind, precision, o, user_in, user_out)
                                  : Plan(comm, shape, kind, precision, o);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::size_t real_bytes = precision == Precision::float64 ? 8 : 4;
  const std::size_t in_bytes = std::max<std::int64_t>(plan.input_count(), 1) * real_bytes * (kind == Kind::c2c ? 2 : 1);
  const std::size_t out_bytes = std::max<std::int64_t>(plan.output_count(), 1) * real_bytes * 2;
  struct Buffer {
    void* p = nullptr;
    void allocate(std::size_t n) {
      p = ::operator new(n, std::align_val_t(64));
      std::fill_n(static_cast<char*>(p), n, 0);
    }
    ~Buffer() {
      if (p) ::operator delete(p, std::align_val_t(64));
    }
  } in, out, back;
  // The arrays to time on: a rank that cannot have them must not leave the others waiting in
  // the timing's collectives. Agreed, so the candidate backs out on every rank alike.
  std::string problem;
  try {
    // VOLFFT_TEST_TUNE_NO_MEMORY = r: rank r cannot have them (tests; a rank short of memory).
    if (const char* env = std::getenv("VOLFFT_TEST_TUNE_NO_MEMORY"))
      if (std::atoi(env) == rank) throw std::bad_alloc();
    in.allocate(std::max<std::size_t>(in_bytes, plan.in_place_bytes()));
    out.allocate(out_bytes);
    back.allocate(in_bytes);
  } catch (const std::bad_alloc&) {
    const std::size_t bytes = std::max<std::size_t>(in_bytes, plan.in_place_bytes()) + out_bytes + in_bytes;
    problem = "volfft: could not allocate " + std::to_string(bytes) + " bytes of arrays to time this candidate on";
  }
  mpi::agree_or_throw(comm, problem);
  // An in-place candidate runs in place, on one array, as the plan will.
  void* forward_out = o.in_place ? in.p : out.p;
  void* backward_out = o.in_place ? in.p : back.p;
  std::vector<double> times;
  Timing timing;
  for (int it = -1; it < 3; ++it) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    plan.forward_raw(in.p, forward_out);
    plan.backward_raw(forward_out, backward_out);
    const double extra = noise(rank, index * 16 + it + 1);
    timing.noise += extra;
    double dt = MPI_Wtime() - t0 + extra;
    double worst = dt;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (it >= 0) times.push_back(worst);
  }
  std::sort(times.begin(), times.end());
  timing.median = times[times.size() / 2], timing.spread = times.back() - times.front();
  return timing;
}

}  // namespace

bool wants_tuning(int comm_size, const Options& o) {
  const bool automatic_grid = o.grid[0] == 0 && o.grid[1] == 0;
  const bool automatic_engine = o.engine == Engine::automatic;
  return comm_size > 1 && o.tune > 0 && (automatic_grid || automatic_engine);
}

// This rank's user arrays mixed with every other rank's, the same number on every rank (0: none).
// Collective.
static std::uint64_t arrays_hash(MPI_Comm comm, const std::optional<LocalArray>& in, const std::optional<LocalArray>& out) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  core::Fnv1a h;
  h.mix(static_cast<std::uint64_t>(rank));
  for (const auto* side : {&in, &out}) {
    h.mix(side->has_value() ? 1 : 0);
    if (!side->has_value()) continue;
    for (const Box* b : {&(*side)->box, &(*side)->storage})
      for (int a = 0; a < 3; ++a) h.mix(static_cast<std::uint64_t>(b->lo[a])), h.mix(static_cast<std::uint64_t>(b->hi[a]));
    for (int a : (*side)->order) h.mix(static_cast<std::uint64_t>(a));
  }
  const int given = in || out ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&given, &any, 1, MPI_INT, MPI_MAX, comm);
  if (!any) return 0;
  std::uint64_t all = 0, mine = h.value;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_BXOR, comm);
  return all == 0 ? 1 : all;
}

Options tune(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
             const Options& options, std::string& report, const std::optional<LocalArray>& in,
             const std::optional<LocalArray>& out) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  // Plan resolved VOLFFT_WISDOM into wisdom_file and agreed on it before calling here.
  const std::string path = options.wisdom_file;
  Options chosen = options;
  std::ostringstream table;
  Candidate best;
  Json key, document;
  bool rejected = false;
  if (!path.empty()) {
    key = wisdom_key(comm, shape, kind, precision, options, arrays_hash(comm, in, out));
    std::string message;
    WisdomState state = read_wisdom(comm, path, key, best, message, document);
    if (state == WisdomState::found) {
      std::string why = wisdom_problem(comm, shape, kind, precision, options, best);
      if (why.rfind("volfft: ", 0) == 0) why.erase(0, 8);
      if (!why.empty()) {
        state = WisdomState::rejected;
        message = "volfft: wisdom file '" + path + "' rejected (its entry for this problem, " + describe_candidate(best) +
                  ", does not fit this plan: " + why + "); measuring instead and leaving the file unchanged";
      }
    }
    if (state == WisdomState::found && workspace_problem(comm, shape, kind, precision, options, best).empty()) {
      chosen.grid = best.grid, chosen.engine = best.engine, chosen.planes = best.planes;
      report = "volfft autotune: " + describe_candidate(best) + " from wisdom file '" + path + "' (not measured)";
      if (options.verbose && rank == 0) std::printf("%s\n", report.c_str());
      return chosen;
    }
    if (state == WisdomState::rejected) {
      rejected = true;
      table << message << "\n";
      if (rank == 0) std::fprintf(stderr, "%s\n", message.c_str());
    }
  }
  auto list = candidates(size, shape, kind, options);
  std::vector<std::string> backed_out(list.size());
  std::vector<Timing> timing(list.size());
  // The budget is checked on the slowest rank's clock (agreed), so every rank stops together.
  const double start = MPI_Wtime();
  double noise_so_far = 0;  // VOLFFT_TUNE_NOISE pretends a slower machine: the budget sees it
  std::size_t timed = 0;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (k > 0) noise_so_far += timing[k - 1].noise;
    double elapsed = MPI_Wtime() - start + noise_so_far, slowest = elapsed;
    MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (k > 0 && slowest > options.tune) {
      for (std::size_t j = k; j < list.size(); ++j) {
        backed_out[j] = "not timed: the budget of tune=" + std::to_string(options.tune) + " s was spent";
        list[j].seconds = std::numeric_limits<double>::infinity();
      }
      break;
    }
    ++timed;
    try {
      backed_out[k] = workspace_problem(comm, shape, kind, precision, options, list[k]);
      if (backed_out[k].empty())
        timing[k] = time_candidate(comm, shape, kind, precision, options, list[k], static_cast<int>(k), in, out);
      list[k].seconds = timing[k].median;
    } catch (const Error& e) {
      // An engine that does not apply to this problem backs out (on every rank alike: the
      // candidate plan agreed on its applicability).
      backed_out[k] = e.what();
    }
    if (!backed_out[k].empty()) list[k].seconds = std::numeric_limits<double>::infinity();
  }
  // Every rank holds the same reduced times, so the same choice: the fastest, unless a simpler
  // candidate (earlier in the list) lies within the noise of it: within the fastest's spread
  // over its repetitions, and at least 5%. Identical runs then settle on the same simple choice
  // instead of flipping between near-equal ones.
  std::size_t fastest = 0;
  for (std::size_t k = 1; k < list.size(); ++k)
    if (list[k].seconds < list[fastest].seconds) fastest = k;
  const double tolerance = std::max(0.05, timing[fastest].spread / std::max(list[fastest].seconds, 1e-300));
  std::size_t b = fastest;
  for (std::size_t k = 0; k < fastest; ++k)
    if (list[k].seconds <= list[fastest].seconds * (1 + tolerance)) {
      b = k;
      break;
    }
  best = list[b];
  table << "volfft autotune: " << timed << " of " << list.size()
        << " candidates timed (tune=" << options.tune << " s), forward+backward ms (median of 3, max over ranks)\n";
  std::vector<std::size_t> order(list.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return list[x].seconds < list[y].seconds; });
  for (std::size_t k : order) {
    char line[200];
    if (!backed_out[k].empty()) {
      table << "  " << describe_candidate(list[k]) << ": left out (" << backed_out[k] << ")\n";
      continue;
    }
    const char* mark = k != b ? "" : b == fastest ? "  <- chosen" : "  <- chosen (simpler, within the noise of the fastest)";
    std::snprintf(line, sizeof line, "  %-34s %10.3f  +-%6.3f%s\n", describe_candidate(list[k]).c_str(),
                  list[k].seconds * 1e3, timing[k].spread * 1e3 / 2, mark);
    table << line;
  }
  // Add the choice to the file (or start one), but never overwrite a file that was rejected, nor
  // remember a choice that was never timed (every candidate left out: its seconds are infinite,
  // which is not JSON, and the plan may well fail with it).
  if (!path.empty() && !rejected && std::isfinite(best.seconds)) {
    const std::string unwritten = write_wisdom(comm, path, key, best, document);
    if (!unwritten.empty()) {
      table << unwritten << "\n";
      if (rank == 0) std::fprintf(stderr, "%s\n", unwritten.c_str());
    }
  }
  if (!std::isfinite(list[b].seconds))  // every candidate left out: the first one, untimed
    table << "  none could be timed: taking the first, " << describe_candidate(list[b]) << "\n";
  report = table.str();
  if (options.verbose && rank == 0) std::printf("%s", report.c_str());
  chosen.grid = best.grid, chosen.engine = best.engine, chosen.planes = best.planes;
  return chosen;
}

}  // namespace volfft::tune
