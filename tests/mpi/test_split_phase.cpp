// Split-phase lifetimes (Plan::forward_start/backward_start and Request, Reshape::start/finish):
// a request destroyed while its rank unwinds from an exception, requests dropped or moved before
// wait(), plans and reshapes destroyed with a call pending, test() on some ranks only, and calls
// made while one is pending. Each case must end in the same error on every rank or in correct
// results, never in a hang (ctest's timeout) or a crash. Every engine; plans on user arrays
// (bricks), so that wait() runs a reshape after the transform.
#include <algorithm>
#include <complex>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi/transform_check.hpp"
#include "support/errors.hpp"
#include "support/mpi_main.hpp"
#include "volfft/distribution.hpp"
#include "volfft/plan.hpp"
#include "volfft/reshape.hpp"

using namespace volfft;
using volfft_test::error_of;
using volfft_test::expect_everywhere;
using Index = std::int64_t;
using cd = std::complex<double>;

namespace {

const std::vector<Index> kShape{12, 10, 9};

std::vector<Engine> tested_engines() {
  std::vector<Engine> e{Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p, Engine::pipelined,
                        Engine::node};
  if (volfft_test::persistent_tested()) e.push_back(Engine::persistent);
  return e;
}

Options with_engine(Engine engine) {
  Options o;
  o.engine = engine;
  o.effort = Effort::estimate;
  return o;
}

// A c2c plan whose user arrays are bricks on both sides: wait() runs the output reshape, a
// collective of its own, after the transform's exchanges.
std::unique_ptr<Plan> brick_plan(int rank, int size, Engine engine) {
  const std::vector<Box> bricks = volfft::bricks(kShape, size);
  LocalArray a;
  a.box = bricks[static_cast<std::size_t>(rank)];
  return std::make_unique<Plan>(MPI_COMM_WORLD, kShape, Kind::c2c, Precision::float64, with_engine(engine), a, a);
}

std::vector<cd> input_of(const Plan& p) {
  std::vector<cd> a(static_cast<std::size_t>(std::max<Index>(p.input_count(), 1)));
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = cd(0.5 + static_cast<double>(k % 7), -static_cast<double>(k % 3));
  return a;
}

// Rank 0 unwinds from an exception with a split-phase transform pending; the other ranks meet
// it in a barrier and then unwind too. Destroying the request (and the plan) while unwinding
// must not communicate: before, ~Request ran wait(), whose output reshape waited for ranks that
// were in the barrier (a hang), though ~Plan itself was careful not to.
void request_destroyed_while_unwinding(int rank, int size) {
  for (Engine engine : tested_engines()) {
    bool caught = false;
    try {
      auto plan = brick_plan(rank, size, engine);
      std::vector<cd> a = input_of(*plan), b(static_cast<std::size_t>(std::max<Index>(plan->output_count(), 1)));
      Request r = plan->forward_start(a.data(), b.data());
      if (rank == 0) throw std::runtime_error("the user's own error");
      MPI_Barrier(MPI_COMM_WORLD);
      throw std::runtime_error("the others' error, after the barrier");
    } catch (const std::runtime_error&) {
      caught = true;
    }
    if (rank == 0) MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MSG(caught, to_string(engine) << ": unwound");
    // And the job goes on: a fresh plan of the same engine works on every rank.
    auto again = brick_plan(rank, size, engine);
    std::vector<cd> a = input_of(*again), b(static_cast<std::size_t>(std::max<Index>(again->output_count(), 1)));
    again->forward_start(a.data(), b.data()).wait();
    CHECK(true);
  }
  // A plan that outlives the abandoned request refuses further calls on every rank (its
  // transform never completed) and is destroyed later without communicating.
  auto plan = brick_plan(rank, size, Engine::alltoallv);
  std::vector<cd> a = input_of(*plan), b(static_cast<std::size_t>(std::max<Index>(plan->output_count(), 1)));
  try {
    Request r = plan->forward_start(a.data(), b.data());
    if (rank == 0) throw std::runtime_error("the user's own error");
    MPI_Barrier(MPI_COMM_WORLD);
    throw std::runtime_error("the others' error, after the barrier");
  } catch (const std::runtime_error&) {
  }
  if (rank == 0) MPI_Barrier(MPI_COMM_WORLD);
  expect_everywhere("a call after an abandoned request", error_of([&] { plan->forward(a.data(), b.data()); }),
                    "was abandoned");
  if (rank == size - 1) plan.reset();  // one rank alone: nothing to wait for
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

int main(int argc, char** argv) {
  return volfft_test::run_mpi_test(argc, argv, [&](int rank, int size) {
    request_destroyed_while_unwinding(rank, size);
  });
}
