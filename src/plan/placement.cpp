#include "plan/placement.hpp"

#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "mpi/check.hpp"
#include "volfft/error.hpp"

namespace volfft::plan {

std::vector<int> rank_order_from_map_file(MPI_Comm comm, const std::string& path,
                                          const std::vector<int>& coordinate) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // Rank 0 reads; a read failure travels in the broadcast as a negative length.
  std::string text;
  long long length = 0;
  if (rank == 0) {
    std::ifstream f(path);
    if (!f) {
      length = -1;
    } else {
      std::stringstream ss;
      ss << f.rdbuf();
      text = ss.str();
      length = static_cast<long long>(text.size());
    }
  }
  MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, comm);
  if (length < 0) throw Error("volfft: map_file '" + path + "' cannot be read by rank 0 (rank 0 alone reads it)");
  text.resize(static_cast<std::size_t>(length));
  if (length > 0) MPI_Bcast(&text[0], static_cast<int>(length), MPI_CHAR, 0, comm);

  // Every rank's coordinate; their lengths must agree first.
  int dims = static_cast<int>(coordinate.size()), min_dims = 0, max_dims = 0;
  MPI_Allreduce(&dims, &min_dims, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(&dims, &max_dims, 1, MPI_INT, MPI_MAX, comm);
  if (min_dims != max_dims || min_dims == 0)
    throw Error("volfft: coordinate must have the same number (>= 1) of entries on every rank "
                "when map_file is given; got between " + std::to_string(min_dims) + " and " +
                std::to_string(max_dims));
  std::vector<int> all(static_cast<std::size_t>(size) * dims);
  mpi::check(MPI_Allgather(coordinate.data(), dims, MPI_INT, all.data(), dims, MPI_INT, comm),
                  "MPI_Allgather");
  std::map<std::vector<int>, int> owner;
  for (int r = 0; r < size; ++r) {
    std::vector<int> c(all.begin() + static_cast<std::ptrdiff_t>(r) * dims,
                       all.begin() + static_cast<std::ptrdiff_t>(r + 1) * dims);
    if (!owner.emplace(c, r).second)
      throw Error("volfft: coordinate of rank " + std::to_string(r) + " is also the coordinate of rank " +
                  std::to_string(owner[c]) + "; every rank needs its own");
  }
  // Parse: one line per task, `dims` integers (blank lines and # comments skipped).
  std::vector<int> order;
  std::istringstream lines(text);
  std::string line;
  int line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    // Token by token: a token that is not an int (a letter, or a number out of range of int)
    // makes the line bad; only a line of white space alone is blank.
    std::istringstream ls(line);
    std::vector<int> c;
    bool bad = false;
    for (;;) {
      ls >> std::ws;
      if (ls.eof()) break;
      int v = 0;
      if (!(ls >> v)) {
        bad = true;
        break;
      }
      c.push_back(v);
    }
    if (c.empty() && !bad) continue;
    if (bad || static_cast<int>(c.size()) != dims)
      throw Error("volfft: map_file '" + path + "' line " + std::to_string(line_number) + " must hold " +
                  std::to_string(dims) + " integers (the coordinate length); got '" + line + "'");
    auto it = owner.find(c);
    if (it == owner.end())
      throw Error("volfft: map_file '" + path + "' line " + std::to_string(line_number) +
                  " names a coordinate that no rank has");
    if (it->second < 0)
      throw Error("volfft: map_file '" + path + "' line " + std::to_string(line_number) +
                  " repeats a coordinate");
    order.push_back(it->second);
    it->second = -1;
  }
  if (static_cast<int>(order.size()) != size)
    throw Error("volfft: map_file '" + path + "' has " + std::to_string(order.size()) +
                " tasks but the communicator has " + std::to_string(size) + " ranks");
  return order;
}

std::vector<int> members_in(MPI_Comm comm, MPI_Comm group) {
  MPI_Group g_all, g_part;
  MPI_Comm_group(comm, &g_all);
  MPI_Comm_group(group, &g_part);
  int n = 0;
  MPI_Group_size(g_part, &n);
  std::vector<int> in(n), out(n);
  std::iota(in.begin(), in.end(), 0);
  MPI_Group_translate_ranks(g_part, n, in.data(), g_all, out.data());
  MPI_Group_free(&g_all);
  MPI_Group_free(&g_part);
  return out;
}

}  // namespace volfft::plan
