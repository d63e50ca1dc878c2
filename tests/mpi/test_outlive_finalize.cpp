// Plans and reshapes that outlive MPI_Finalize, as objects in main's scope do: destroying them
// afterwards must not call MPI (an MPI call after MPI_Finalize aborts the job; engines
// alltoallw, p2p and persistent freed their datatypes and requests and did so until
// 2026-12-07). Every engine, each plan having run a transform; the test fails by the job's
// exit status (Open MPI and MPICH abort the process that calls MPI after MPI_Finalize).
#include <mpi.h>

#include <complex>
#include <cstdio>
#include <memory>
#include <vector>

#include "volfft/plan.hpp"
#include "volfft/reshape.hpp"

int main(int argc, char** argv) {
  using namespace volfft;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::unique_ptr<Plan>> plans;
  std::unique_ptr<Reshape> reshape;
  int made = 0;
  {
    const std::vector<std::int64_t> shape{9, 8, 7};
    for (Engine engine : {Engine::automatic, Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p,
                          Engine::pipelined, Engine::persistent, Engine::node}) {
      Options o;
      o.engine = engine;
      o.effort = Effort::estimate;
      try {
        plans.push_back(std::make_unique<Plan>(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o));
      } catch (const Error& e) {  // engine persistent without MPI-4 persistent collectives: on every rank
        if (rank == 0) std::printf("engine %s: %s\n", to_string(engine), e.what());
        continue;
      }
      Plan& p = *plans.back();
      std::vector<std::complex<double>> x(p.input_count(), 1.0), y(p.output_count());
      p.forward(x.data(), y.data());
      ++made;
    }
    // A reshape with datatypes of its own (engine alltoallw): slabs along axis 0 to slabs along 2.
    LocalArray in, out;
    const Range r0 = block_range(shape[0], size, rank), r2 = block_range(shape[2], size, rank);
    in.box = Box{{r0.lo, 0, 0}, {r0.hi, shape[1], shape[2]}};
    out.box = Box{{0, 0, r2.lo}, {shape[0], shape[1], r2.hi}};
    Options o;
    o.engine = Engine::alltoallw;
    reshape = std::make_unique<Reshape>(MPI_COMM_WORLD, shape, in, out, Precision::float64,
                                        Values::complex, o);
  }
  MPI_Finalize();
  plans.clear();
  reshape.reset();
  if (rank == 0) std::printf("np %d: %d plans and a reshape destroyed after MPI_Finalize\n", size, made);
  return 0;
}
