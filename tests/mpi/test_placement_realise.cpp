// A placement realised at plan time: the row and column communicators hold exactly the ranks
// the placement puts there (read back from the communicators), from a rank order and from a map
// file plus each rank's own coordinate; bad map files fail on every rank alike.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <fstream>
#include <string>
#include <unistd.h>

#include "support/mpi_main.hpp"
#include "volfft/plan.hpp"

using namespace volfft;

namespace {

void check_members(const Plan& plan, const std::vector<int>& order, const char* label) {
  const auto g = plan.grid();
  const int p1 = g[1];
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int v = static_cast<int>(std::find(order.begin(), order.end(), rank) - order.begin());
  const int i = v / p1, j = v % p1;
  std::vector<int> row, column;
  for (int m = 0; m < p1; ++m) row.push_back(order[i * p1 + m]);
  for (int m = 0; m < g[0]; ++m) column.push_back(order[m * p1 + j]);
  CHECK_MSG(plan.row_members() == row, label << ": row members differ from the placement");
  CHECK_MSG(plan.column_members() == column, label << ": column members differ from the placement");
  CHECK_MSG(plan.rank_order() == order, label << ": rank order in use differs");
}

std::string shared_path(const char* stem) {
  char name[256] = {0};
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::snprintf(name, sizeof name, "/tmp/volfft-%s-%d.map", stem, static_cast<int>(getpid()));
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  return name;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  return volfft_test::run_mpi_test(argc, argv, [](int rank, int size) {
    std::vector<std::array<int, 2>> grids;
    for (int p0 = 1; p0 <= size; ++p0)
      if (size % p0 == 0) grids.push_back({p0, size / p0});
    // A "tilted" order: position g goes to rank (g + g / p1) mod P within... any permutation works;
    // use a rotation by one and the reversal.
    std::vector<int> reversed(size), rotated(size);
    for (int g = 0; g < size; ++g) reversed[g] = size - 1 - g, rotated[g] = (g + 1) % size;
    for (auto grid : grids)
      for (const auto* order : {&reversed, &rotated}) {
        Options o;
        o.grid = grid, o.effort = Effort::estimate, o.rank_order = *order;
        Plan plan(MPI_COMM_WORLD, {6, 5, 4}, Kind::c2c, Precision::float64, o);
        check_members(plan, *order, "rank_order");
      }

    // A map file: each rank's own coordinate is (rank % 2, rank / 2); line g names the
    // coordinate whose rank takes position g. Write the reversed order.
    const std::string path = shared_path("placement");
    if (rank == 0) {
      std::ofstream f(path);
      f << "# reversed placement\n";
      for (int g = 0; g < size; ++g) f << (reversed[g] % 2) << " " << (reversed[g] / 2) << "\n";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (auto grid : grids) {
      Options o;
      o.grid = grid, o.effort = Effort::estimate, o.map_file = path, o.coordinate = {rank % 2, rank / 2};
      Plan plan(MPI_COMM_WORLD, {6, 5, 4}, Kind::r2c, Precision::float64, o);
      check_members(plan, reversed, "map_file");
    }
    // Bad map files: every rank gets the same message, nobody hangs.
    auto expect = [&](const std::string& content, const std::string& fragment) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) std::ofstream(path) << content;
      MPI_Barrier(MPI_COMM_WORLD);
      Options o;
      o.effort = Effort::estimate, o.map_file = path, o.coordinate = {rank % 2, rank / 2};
      const std::string m = error_of([&] { Plan p(MPI_COMM_WORLD, {6, 5, 4}, Kind::c2c, Precision::float64, o); });
      CHECK_MSG(m.find(fragment) != std::string::npos, "expected '" << fragment << "', got '" << m << "'");
    };
    expect("0 0\n", size == 1 ? "" : "has 1 tasks but the communicator has");
    expect("7 7\n", "names a coordinate that no rank has");
    expect("0 0 0\n", "must hold 2 integers");
    if (size > 1) expect("0 0\n0 0\n", "repeats a coordinate");
    // A number out of range of int is a bad line, named as such, not a blank one.
    expect("99999999999 0\n", "line 1 must hold 2 integers");
    expect("0 0\n99999999999\n", "line 2 must hold 2 integers");
    expect("0 0 x\n", "line 1 must hold 2 integers");
    {
      Options o;
      o.effort = Effort::estimate, o.map_file = "/nonexistent/volfft.map", o.coordinate = {rank};
      const std::string m = error_of([&] { Plan p(MPI_COMM_WORLD, {6, 5, 4}, Kind::c2c, Precision::float64, o); });
      CHECK_MSG(m.find("cannot be read") != std::string::npos, m);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) std::remove(path.c_str());
  });
}
