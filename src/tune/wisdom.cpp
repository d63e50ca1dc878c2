#include "tune/wisdom.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/hash.hpp"
#include "mpi/agreement.hpp"
#include "mpi/check.hpp"
#include "volfft/error.hpp"

namespace volfft::tune {
namespace {

constexpr const char* kSchema = "volfft-wisdom/1";

// --- wisdom ------------------------------------------------------------------------------------

// "" when `path` can be read and (re)written as a wisdom file, else what is wrong with it: a
// wisdom file that could never be written would otherwise be ignored without a word.
std::string unusable(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "is a directory; expected a file path (the file is created if missing)";
    if (!S_ISREG(st.st_mode)) return "is not a regular file";
    if (access(path.c_str(), R_OK | W_OK) != 0) return "cannot be read and written";
    return "";
  }
  const std::size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "lies in a folder that does not exist ('" + folder + "')";
  if (access(folder.c_str(), W_OK | X_OK) != 0) return "cannot be created: the folder '" + folder + "' is not writable";
  return "";
}

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
  core::Fnv1a hash;
  for (char ch : joined) hash.mix(static_cast<unsigned char>(ch));
  char text[64];
  std::snprintf(text, sizeof text, "%zu hosts %016llx", hosts.size(), static_cast<unsigned long long>(hash.value));
  return text;
}

}  // namespace

Json wisdom_key(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                const Options& o, std::uint64_t arrays) {
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
  // In place, some engines do not apply (pipelined slabs): its own entries. Only then, so that
  // files written before the option existed keep their keys.
  if (o.in_place) k.object["in_place"] = Json::of(1.0);
  // A plan on the user's arrays: which ones (its reshapes change which candidate is fastest).
  if (arrays != 0) k.object["arrays"] = Json::of(std::to_string(arrays));
  k.object["mpi"] = Json::of(mpi::library_name());
  k.object["hosts"] = Json::of(host_set(comm));
  return k;
}

void check_wisdom_path(MPI_Comm comm, const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 alone looks at the file (it alone reads and writes it): every rank fails alike.
  std::string problem;
  if (rank == 0) {
    const std::string why = unusable(path);
    if (!why.empty()) problem = "volfft: wisdom_file '" + path + "' " + why;
  }
  mpi::throw_root_problem(comm, problem);
}

// Rank 0 reads the file; the outcome and the choice are broadcast so all ranks agree.
WisdomState read_wisdom(MPI_Comm comm, const std::string& path, const Json& key, Choice& choice,
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

void write_wisdom(MPI_Comm comm, const std::string& path, const Json& key, const Choice& c, Json document) {
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

}  // namespace volfft::tune
