#include "tune/wisdom.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
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

// The file written first and then renamed over `path`, so that a reader (another plan, another
// job) never sees a half-written file. Named by host and process: jobs on other nodes writing
// the same file on a shared file system may have the same process id.
std::string temporary_name(const std::string& path) {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return path + ".tmp." + host + "." + std::to_string(static_cast<long>(getpid()));
}

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
  if (errno != ENOENT) return std::string("cannot be used (") + std::strerror(errno) + ")";
  const std::size_t slash = path.find_last_of('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "lies in a folder that does not exist ('" + folder + "')";
  if (access(folder.c_str(), W_OK | X_OK) != 0) return "cannot be created: the folder '" + folder + "' is not writable";
  // What the write will do, tried now: a name too long, a read-only or pseudo file system (root
  // passes access() there) refuse here instead of at the write, after the measuring.
  // The temporary file first (write_wisdom's way), else the file itself (written in place then).
  std::string probe = temporary_name(path);
  int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) fd = open((probe = path).c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return std::string("cannot be created (") + std::strerror(errno) + ")";
  close(fd);
  unlink(probe.c_str());
  return "";
}

// Reads `path`: the parsed document, or throws what is wrong with it. An empty file (touch) is a
// document without entries.
Json read_document(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot be read");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return Json();
  Json document = parse_json(text);
  const Json* schema = document.get("schema");
  const Json* entries = document.get("entries");
  if (!schema || schema->type != Json::Type::string || schema->string != kSchema || !entries ||
      entries->type != Json::Type::array)
    throw std::runtime_error(std::string("not a ") + kSchema + " document");
  return document;
}

// An entry's integer field: a number with an integer value in [least, INT_MAX], else throws.
int integer_field(const Json* v, const char* name, int least) {
  if (!v || v->type != Json::Type::number || !std::isfinite(v->number) || v->number != std::floor(v->number) ||
      v->number < least || v->number > INT_MAX)
    throw std::runtime_error(std::string("its entry for this problem has ") + name + " " + (v ? v->dump() : "missing") +
                             "; expected an integer >= " + std::to_string(least));
  return static_cast<int>(v->number);
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
  // What else changes which candidate is fastest, or which candidates there are: each only where
  // it is not the default, so that entries of plans without it keep their keys.
  if (!o.kinds.empty()) {
    Json kinds = Json::list();
    for (AxisKind a : o.kinds) kinds.array.push_back(Json::of(std::string(to_string(a))));
    k.object["kinds"] = kinds;
  }
  if (!o.spectral_shape.empty()) {
    Json m = Json::list();
    for (auto n : o.spectral_shape) m.array.push_back(Json::of(static_cast<double>(n)));
    k.object["spectral_shape"] = m;
  }
  if (o.batch != 1) {
    k.object["batch"] = Json::of(static_cast<double>(o.batch));
    k.object["batch_layout"] = Json::of(std::string(to_string(o.batch_layout)));
  }
  if (o.threads != 1) k.object["threads"] = Json::of(static_cast<double>(o.threads));
  if (o.backend != Backend::fftw) k.object["backend"] = Json::of(std::string(to_string(o.backend)));
  if (o.effort == Effort::patient) k.object["effort"] = Json::of(std::string(to_string(o.effort)));  // more candidates
  if (o.ranks_per_node != 0) k.object["ranks_per_node"] = Json::of(static_cast<double>(o.ranks_per_node));
  if (o.max_in_flight != 4) k.object["max_in_flight"] = Json::of(static_cast<double>(o.max_in_flight));
  if (o.pipeline_p2p) k.object["pipeline_p2p"] = Json::of(1.0);
  if (o.destroy_input) k.object["destroy_input"] = Json::of(1.0);
  if (!o.rank_order.empty()) {  // the placement (a map file's, resolved by now)
    core::Fnv1a placement;
    for (int r : o.rank_order) placement.mix(static_cast<std::uint64_t>(r));
    k.object["rank_order"] = Json::of(std::to_string(placement.value));
  }
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
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) {
      try {
        document = read_document(path);
        state = static_cast<int>(WisdomState::missing_entry);
        const Json* entries = document.get("entries");
        for (const Json& e : entries ? entries->array : std::vector<Json>{}) {
          const Json* k = e.get("key");
          if (!k || k->dump() != key.dump()) continue;
          const Json* g = e.get("grid");
          const Json* en = e.get("engine");
          if (!g || g->type != Json::Type::array || g->array.size() != 2)
            throw std::runtime_error("its entry for this problem has no grid [p0, p1]");
          chosen[0] = integer_field(&g->array[0], "grid[0]", 1);
          chosen[1] = integer_field(&g->array[1], "grid[1]", 1);
          if (!en || en->type != Json::Type::string)
            throw std::runtime_error("its entry for this problem has no engine name");
          const Engine engine = parse_engine(en->string);
          if (engine == Engine::automatic) throw std::runtime_error("its entry for this problem has engine 'auto'");
          chosen[2] = static_cast<int>(engine);
          chosen[3] = integer_field(e.get("planes"), "planes", -1);
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

std::string write_wisdom(MPI_Comm comm, const std::string& path, const Json& key, const Choice& c, Json document) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string problem;
  if (rank == 0) {
    // The file as it is now: another plan (this job's or another's) may have added entries
    // while this one measured; they are kept. A file that became something else is left alone.
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) {
      try {
        document = read_document(path);
      } catch (const std::exception& e) {
        problem = "volfft: wisdom file '" + path + "' not updated: it changed while measuring and is now rejected (" +
                  e.what() + ")";
      }
    }
    if (problem.empty()) {
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
      const std::string text = document.dump() + "\n";
      // Written whole into a file of its own, then renamed over the old one: readers see the old
      // file or the new one, never a part. Where the folder takes no new file (the file alone is
      // writable), in place.
      const std::string temporary = temporary_name(path);
      bool written = false;
      {
        std::ofstream f(temporary);
        if (f) {
          f << text;
          f.close();
          if (!f) problem = std::string("could not write '") + temporary + "'";
          else written = std::rename(temporary.c_str(), path.c_str()) == 0;
          if (!written && problem.empty()) problem = std::string("could not rename it into place (") + std::strerror(errno) + ")";
          if (!written) std::remove(temporary.c_str());
        }
      }
      if (!written) {
        std::ofstream f(path);
        if (f) {
          f << text;
          f.close();
        }
        if (f) problem.clear(), written = true;
        else if (problem.empty()) problem = std::strerror(errno);
      }
      if (!written) problem = "volfft: wisdom file '" + path + "' could not be written (" + problem + "); the choice is not remembered";
    }
  }
  // Every rank reports the same.
  int length = static_cast<int>(problem.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  problem.resize(static_cast<std::size_t>(length));
  if (length > 0) MPI_Bcast(&problem[0], length, MPI_CHAR, 0, comm);
  return problem;
}

}  // namespace volfft::tune
