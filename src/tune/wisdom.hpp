// The wisdom file: the measured planner's choices, remembered in a JSON file keyed by problem,
// process count, MPI library and hosts. Rank 0 reads and writes it; outcomes are broadcast.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tune/json.hpp"
#include "volfft/options.hpp"

namespace volfft::tune {

/// One configuration of the measured planner, and its time (forward + backward seconds).
struct Choice {
  std::array<int, 2> grid{0, 0};
  Engine engine = Engine::alltoallv;
  int planes = -1;
  double seconds = 0;
};

/// The file's key of a problem. Collective (gathers the host names). `arrays`: a plan on the
/// user's arrays, their hash over all ranks (0: none).
Json wisdom_key(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                const Options& options, std::uint64_t arrays = 0);

enum class WisdomState { absent, found, missing_entry, rejected };

/// Collective: throws volfft::Error on every rank when `path` could not be read and written as
/// a wisdom file (a directory, a missing or read-only folder), which would otherwise be ignored
/// without a word. Plans check a given wisdom_file this way whether or not they tune.
void check_wisdom_path(MPI_Comm comm, const std::string& path);

/// Collective: rank 0 reads `path`; every rank gets the same state, choice and message.
WisdomState read_wisdom(MPI_Comm comm, const std::string& path, const Json& key, Choice& choice,
                        std::string& message, Json& document);

/// Collective: rank 0 adds (or replaces) the entry for `key` in the file as it is now (`document`,
/// as read before measuring, where the file is gone) and writes it to `path` through a temporary
/// file renamed over it. Returns "" or why the file was not written, the same on every rank.
std::string write_wisdom(MPI_Comm comm, const std::string& path, const Json& key, const Choice& choice, Json document);

}  // namespace volfft::tune
