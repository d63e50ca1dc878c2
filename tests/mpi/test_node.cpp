// Engine "node" against the serial reference on the usual shapes, with the ranks on one real
// node (every partner read through shared memory), cut into two pretend nodes (both the
// shared-memory and the MPI path in one exchange), and one rank per pretend node (MPI only);
// with rank orders that interleave the nodes across the grid, with a user workspace (the
// staging fallback) and on a sub-communicator; its workspace on one node and on several. Run at
// np 1, 2, 3 and 4 by ctest, and with --quick (small shapes) at np 5.
//
// --chunk-bytes B: the engine's transform on arrival (src/exchange/node.cpp) cut into chunks of
// about B bytes on every array, however small (VOLFFT_TEST_NODE_CHUNK_BYTES), instead of only
// where its rule chooses it; ctest runs B = 1 (one plane a chunk) and B = 3000 (several planes,
// the last chunk shorter). Without it, shapes large enough for the rule itself run too.
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "mpi/transform_check.hpp"
#include "support/mpi_main.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

std::string grid_text(std::array<int, 2> g) { return std::to_string(g[0]) + "x" + std::to_string(g[1]); }

// Engine node on `grid` ({0, 0}: by rule), nodes of `ranks_per_node` (0: the real ones),
// estimated FFT plans (the cases are many and small).
Options node_options(std::array<int, 2> grid, int ranks_per_node = 0) {
  Options o;
  o.engine = Engine::node;
  o.effort = Effort::estimate;
  o.grid = grid;
  o.ranks_per_node = ranks_per_node;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  // --quick: the small shapes only (for the odd process counts, which run oversubscribed).
  const bool quick = has_flag(argc, argv, "--quick");
  bool forced_chunks = false;
  for (int k = 1; k + 1 < argc; ++k)
    if (std::string(argv[k]) == "--chunk-bytes") {
      setenv("VOLFFT_TEST_NODE_CHUNK_BYTES", argv[k + 1], 1);  // before any plan reads it
      forced_chunks = true;
    }
  return run_mpi_test(argc, argv, [quick, forced_chunks](int rank, int size) {
    std::vector<std::vector<Index>> shapes3 = shared_shapes3();
    std::vector<std::vector<Index>> shapes2 = shared_shapes2();
    if (quick) {
      shapes3 = {{8, 8, 8}, {7, 9, 11}, {1, 5, 6}, {3, 4, 2}, {2, 3, 1}};
      shapes2 = {{7, 9}, {1, 5}, {13, 4}};
    }
    std::vector<std::array<int, 2>> grids;
    for (int p0 = 1; p0 <= size; ++p0)
      if (size % p0 == 0) grids.push_back({p0, size / p0});
    // 0: the real node (all shared memory here); (size+1)/2: two pretend nodes; 1: MPI only.
    std::vector<int> node_sizes = {0};
    if (size > 1) node_sizes.push_back((size + 1) / 2);
    if (size > 2) node_sizes.push_back(1);
    int cases = 0;
    for (int rpn : node_sizes)
      for (Kind kind : {Kind::c2c, Kind::r2c})
        for (Layout layout : {Layout::transposed, Layout::natural}) {
          Options o = node_options({0, 0}, rpn);
          o.layout = layout;
          const std::string how = std::string(" node ranks_per_node ") + std::to_string(rpn) + " " + to_string(layout);
          for (const auto& shape : shapes3)
            for (auto g : grids) {
              o.grid = g;
              check_transform<double>(MPI_COMM_WORLD, shape, kind, o, shape_text(shape, kind, "double") + " grid " + grid_text(g) + how);
              check_transform<float>(MPI_COMM_WORLD, shape, kind, o, shape_text(shape, kind, "float") + " grid " + grid_text(g) + how);
              cases += 2;
            }
          for (const auto& shape : shapes2) {
            o.grid = {size, 1};
            check_transform<double>(MPI_COMM_WORLD, shape, kind, o, shape_text(shape, kind, "double") + how);
            check_transform<float>(MPI_COMM_WORLD, shape, kind, o, shape_text(shape, kind, "float") + how);
            cases += 2;
          }
        }

    // Any placement of ranks on nodes: reversed and interleaved rank orders put members of
    // one grid row or column on different pretend nodes.
    std::vector<std::vector<int>> orders;
    std::vector<int> reversed(size), interleaved;
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    for (int r = 0; r < size; r += 2) interleaved.push_back(r);
    for (int r = 1; r < size; r += 2) interleaved.push_back(r);
    orders.push_back(reversed);
    orders.push_back(interleaved);
    for (const auto& order : orders)
      for (int rpn : node_sizes)
        for (auto g : grids)
          for (Kind kind : {Kind::c2c, Kind::r2c}) {
            Options o = node_options(g, rpn);
            o.rank_order = order;
            check_transform<double>(MPI_COMM_WORLD, {9, 10, 7}, kind, o,
                                    shape_text({9, 10, 7}, kind, "double") + " grid " + grid_text(g) +
                                        " permuted ranks, ranks_per_node " + std::to_string(rpn));
            ++cases;
          }

    // A user workspace is not in a shared window: the engine copies through its own window.
    for (int rpn : node_sizes)
      for (auto g : grids) {
        Options o = node_options(g, rpn);
        const std::vector<Index> shape{11, 6, 9};
        const std::size_t bytes =
            Plan::required_workspace_bytes(size, rank, shape, Kind::c2c, Precision::float64, o);
        std::vector<unsigned char> workspace(bytes + 1);
        o.workspace = workspace.data() + 1;  // deliberately unaligned
        o.workspace_bytes = bytes;
        check_transform<double>(MPI_COMM_WORLD, shape, Kind::c2c, o,
                                shape_text(shape, Kind::c2c, "double") + " grid " + grid_text(g) +
                                    " user workspace, ranks_per_node " + std::to_string(rpn));
        ++cases;
      }

    // Workspace: with every rank on one node nothing is sent, so there is no send area and the
    // buffers are alltoallw's; ranks on several (pretend) nodes keep it, as alltoallv's. (The
    // real node is one here: tests run on one machine.)
    for (int rpn : node_sizes)
      for (Kind kind : {Kind::c2c, Kind::r2c}) {
        Options o = node_options({size, 1}, rpn);
        const Plan node(MPI_COMM_WORLD, {9, 10, 7}, kind, Precision::float64, o);
        const bool one_node = rpn == 0 || rpn >= size;
        o.engine = one_node ? Engine::alltoallw : Engine::alltoallv;
        const Plan like(MPI_COMM_WORLD, {9, 10, 7}, kind, Precision::float64, o);
        CHECK_MSG(node.workspace_bytes() == like.workspace_bytes(),
                  to_string(kind) << " ranks_per_node " << rpn << ": workspace " << node.workspace_bytes()
                                  << ", engine " << to_string(o.engine) << "'s " << like.workspace_bytes());
        ++cases;
      }

    // The engine on a sub-communicator (pretend nodes still follow world ranks).
    if (size > 2) {
      MPI_Comm part;
      MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &part);
      int part_size = 0;
      MPI_Comm_size(part, &part_size);
      for (int rpn : {0, 2}) {
        const Options o = node_options({part_size, 1}, rpn);
        check_transform<double>(part, {6, 5, 4}, Kind::r2c, o,
                                "sub-communicator 6x5x4 r2c, ranks_per_node " + std::to_string(rpn));
        ++cases;
      }
      MPI_Comm_free(&part);
    }
    // Arrays large enough that the engine's own rule transforms the last stage chunk by chunk
    // on one node (planes of at most 256 KiB, arrays of at least 1 MiB a rank), slabs and
    // pencils, both layouts (natural: the slowest axis is the transformed one, no chunks), and
    // with threads (which the rule leaves whole).
    if (!quick && !forced_chunks)
      for (Kind kind : {Kind::c2c, Kind::r2c})
        for (Layout layout : {Layout::transposed, Layout::natural})
          for (int threads : {1, 2})
            for (auto g : grids) {
              Options o = node_options(g);
              o.layout = layout;
              o.threads = threads;
              const std::vector<Index> shape{64, 72, 66};
              check_transform<double>(MPI_COMM_WORLD, shape, kind, o,
                                      shape_text(shape, kind, "double") + " grid " + grid_text(g) + " " +
                                          to_string(layout) + " threads " + std::to_string(threads));
              ++cases;
            }
    if (rank == 0) std::printf("%d node-engine cases\n", cases);
  });
}
