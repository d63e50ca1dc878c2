#include "plan/autotune.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <set>
#include <sstream>

#include "comm/exchange.hpp"
#include "plan/json.hpp"
#include "volfft/plan.hpp"

namespace volfft::plan {
namespace {

constexpr const char* kSchema = "volfft-wisdom/1";

struct Candidate {
  std::array<int, 2> grid{0, 0};
  Engine engine = Engine::alltoallv;
  int planes = -1;
  double seconds = 0;
};

std::string describe_candidate(const Candidate& c) {
  std::string s = std::to_string(c.grid[0]) + "x" + std::to_string(c.grid[1]) + " " + to_string(c.engine);
  if (c.engine == Engine::pipelined) s += " planes " + (c.planes < 0 ? std::string("auto") : std::to_string(c.planes));
  return s;
}

std::vector<Candidate> candidates(int size, const std::vector<std::int64_t>& shape, const Options& o) {
  std::vector<std::array<int, 2>> grids;
  if (o.grid[0] != 0 || o.grid[1] != 0) {
    grids.push_back(o.grid);
  } else if (shape.size() == 2) {
    grids.push_back({size, 1});
  } else {
    for (int p0 = size; p0 >= 1; --p0)
      if (size % p0 == 0) grids.push_back({p0, size / p0});
  }
  std::vector<Engine> engines;
  if (o.engine != Engine::automatic) {
    engines.push_back(o.engine);
  } else {
    engines = {Engine::alltoallv, Engine::alltoall, Engine::p2p, Engine::pipelined, Engine::node};
    if (comm::have_persistent_collectives()) engines.push_back(Engine::persistent);
    if (o.effort == Effort::patient) engines.push_back(Engine::alltoallw);
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

double time_candidate(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                      const Options& base, const Candidate& c, int index) {
  Options o = base;
  o.grid = c.grid, o.engine = c.engine, o.planes = c.planes;
  o.effort = Effort::estimate;  // candidates are compared, not kept: plan them quickly
  o.wisdom_file.clear(), o.verbose = false;
  o.workspace = nullptr, o.workspace_bytes = 0;
  Plan plan(comm, shape, kind, precision, o);
  const std::size_t real_bytes = precision == Precision::float64 ? 8 : 4;
  const std::size_t in_bytes = std::max<std::int64_t>(plan.input_count(), 1) * real_bytes * (kind == Kind::c2c ? 2 : 1);
  const std::size_t out_bytes = std::max<std::int64_t>(plan.output_count(), 1) * real_bytes * 2;
  struct Buffer {
    void* p;
    explicit Buffer(std::size_t n) : p(::operator new(n, std::align_val_t(64))) { std::fill_n(static_cast<char*>(p), n, 0); }
    ~Buffer() { ::operator delete(p, std::align_val_t(64)); }
  } in(in_bytes), out(out_bytes), back(in_bytes);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<double> times;
  for (int it = -1; it < 3; ++it) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    plan.forward_raw(in.p, out.p);
    plan.backward_raw(out.p, back.p);
    double dt = MPI_Wtime() - t0 + noise(rank, index * 16 + it + 1);
    double worst = dt;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (it >= 0) times.push_back(worst);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// --- wisdom ------------------------------------------------------------------------------------

std::string host_set(MPI_Comm comm) {
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0, size = 0;
  MPI_Get_processor_name(name, &len);
  MPI_Comm_size(comm, &size);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm);
  std::set<std::string> hosts;
  for (int r = 0; r < size; ++r) hosts.insert(std::string(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]));
  std::string joined;
  for (const auto& h : hosts) joined += h + ",";
  std::uint64_t hash = 1469598103934665603ull;
  for (char ch : joined) hash = (hash ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  char text[64];
  std::snprintf(text, sizeof text, "%zu hosts %016llx", hosts.size(), static_cast<unsigned long long>(hash));
  return text;
}

std::string mpi_library() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(lib, &n);
  std::string s(lib, n);
  return s.substr(0, s.find_first_of(",\n"));
}

Json wisdom_key(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                const Options& o) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  Json k = Json::dict();
  Json sh = Json::list();
  for (auto n : shape) sh.array.push_back(Json::of(static_cast<double>(n)));
  k.object["shape"] = sh;
  k.object["kind"] = Json::of(std::string(to_string(kind)));
  k.object["precision"] = Json::of(std::string(to_string(precision)));
  k.object["ranks"] = Json::of(static_cast<double>(size));
  k.object["layout"] = Json::of(std::string(to_string(o.layout)));
  k.object["grid"] = Json::of(o.grid[0] || o.grid[1] ? std::to_string(o.grid[0]) + "x" + std::to_string(o.grid[1]) : "auto");
  k.object["engine"] = Json::of(std::string(to_string(o.engine)));
  k.object["planes"] = Json::of(static_cast<double>(o.planes));
  k.object["mpi"] = Json::of(mpi_library());
  k.object["hosts"] = Json::of(host_set(comm));
  return k;
}

enum class WisdomState { absent, found, missing_entry, rejected };

// Rank 0 reads the file; the outcome and the choice are broadcast so all ranks agree.
WisdomState read_wisdom(MPI_Comm comm, const std::string& path, const Json& key, Candidate& choice,
                        std::string& message, Json& document) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int state = static_cast<int>(WisdomState::absent);
  int chosen[4] = {0, 0, 0, -1};
  if (rank == 0) {
    std::ifstream f(path);
    if (f) {
      std::stringstream ss;
      ss << f.rdbuf();
      try {
        document = parse_json(ss.str());
        const Json* schema = document.get("schema");
        const Json* entries = document.get("entries");
        if (!schema || schema->type != Json::Type::string || schema->string != kSchema || !entries ||
            entries->type != Json::Type::array)
          throw std::runtime_error(std::string("not a ") + kSchema + " document");
        state = static_cast<int>(WisdomState::missing_entry);
        for (const Json& e : entries->array) {
          const Json* k = e.get("key");
          if (!k || k->dump() != key.dump()) continue;
          const Json* g = e.get("grid");
          const Json* en = e.get("engine");
          const Json* pl = e.get("planes");
          if (!g || g->type != Json::Type::array || g->array.size() != 2 || !en || !pl)
            throw std::runtime_error("an entry for this problem lacks grid, engine or planes");
          chosen[0] = static_cast<int>(g->array[0].number);
          chosen[1] = static_cast<int>(g->array[1].number);
          chosen[2] = static_cast<int>(parse_engine(en->string));
          chosen[3] = static_cast<int>(pl->number);
          state = static_cast<int>(WisdomState::found);
        }
      } catch (const std::exception& e) {
        state = static_cast<int>(WisdomState::rejected);
        message = "volfft: wisdom file '" + path + "' rejected (" + e.what() + "); measuring instead and leaving the file unchanged";
        document = Json();
      }
    }
  }
  MPI_Bcast(&state, 1, MPI_INT, 0, comm);
  MPI_Bcast(chosen, 4, MPI_INT, 0, comm);
  if (state == static_cast<int>(WisdomState::rejected)) {  // every rank reports the same
    int length = static_cast<int>(message.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, comm);
    message.resize(static_cast<std::size_t>(length));
    MPI_Bcast(&message[0], length, MPI_CHAR, 0, comm);
  }
  if (state == static_cast<int>(WisdomState::found)) {
    choice.grid = {chosen[0], chosen[1]};
    choice.engine = static_cast<Engine>(chosen[2]);
    choice.planes = chosen[3];
  }
  return static_cast<WisdomState>(state);
}

void write_wisdom(MPI_Comm comm, const std::string& path, const Json& key, const Candidate& c, Json document) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  if (document.type != Json::Type::object) {
    document = Json::dict();
    document.object["schema"] = Json::of(std::string(kSchema));
    document.object["entries"] = Json::list();
  }
  Json& entries = document.object["entries"];
  Json e = Json::dict();
  e.object["key"] = key;
  Json g = Json::list();
  g.array = {Json::of(c.grid[0]), Json::of(c.grid[1])};
  e.object["grid"] = g;
  e.object["engine"] = Json::of(std::string(to_string(c.engine)));
  e.object["planes"] = Json::of(c.planes);
  e.object["seconds"] = Json::of(c.seconds);
  std::vector<Json> kept;
  for (const Json& old : entries.array)
    if (!old.get("key") || old.get("key")->dump() != key.dump()) kept.push_back(old);
  kept.push_back(e);
  entries.array = kept;
  std::ofstream f(path);
  if (f) f << document.dump() << "\n";
}

}  // namespace

bool wants_tuning(int comm_size, const Options& o) {
  const bool automatic_grid = o.grid[0] == 0 && o.grid[1] == 0;
  const bool automatic_engine = o.engine == Engine::automatic;
  return comm_size > 1 && o.effort != Effort::estimate && (automatic_grid || automatic_engine);
}

Options tune(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
             const Options& options, std::string& report) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const char* env = std::getenv("VOLFFT_WISDOM");
  const std::string path = !options.wisdom_file.empty() ? options.wisdom_file : (env ? env : "");
  Options chosen = options;
  std::ostringstream table;
  Candidate best;
  Json key, document;
  bool rejected = false;
  if (!path.empty()) {
    key = wisdom_key(comm, shape, kind, precision, options);
    std::string message;
    const WisdomState state = read_wisdom(comm, path, key, best, message, document);
    if (state == WisdomState::found) {
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
  auto list = candidates(size, shape, options);
  for (std::size_t k = 0; k < list.size(); ++k)
    list[k].seconds = time_candidate(comm, shape, kind, precision, options, list[k], static_cast<int>(k));
  // Every rank holds the same reduced times, so the same (first) minimum.
  std::size_t b = 0;
  for (std::size_t k = 1; k < list.size(); ++k)
    if (list[k].seconds < list[b].seconds) b = k;
  best = list[b];
  table << "volfft autotune: " << list.size() << " candidates, forward+backward ms (median of 3, max over ranks)\n";
  std::vector<std::size_t> order(list.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return list[x].seconds < list[y].seconds; });
  for (std::size_t k : order) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-34s %10.3f%s\n", describe_candidate(list[k]).c_str(), list[k].seconds * 1e3,
                  k == b ? "  <- chosen" : "");
    table << line;
  }
  report = table.str();
  if (options.verbose && rank == 0) std::printf("%s", report.c_str());
  // Add the choice to the file (or start one), but never overwrite a file that was rejected.
  if (!path.empty() && !rejected) write_wisdom(comm, path, key, best, document);
  chosen.grid = best.grid, chosen.engine = best.engine, chosen.planes = best.planes;
  return chosen;
}

}  // namespace volfft::plan
