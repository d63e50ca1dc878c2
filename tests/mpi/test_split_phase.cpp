// Split-phase lifetimes (Plan::forward_start/backward_start and Request, Reshape::start/finish):
// a request destroyed while its rank unwinds from an exception, requests dropped or moved before
// wait(), plans and reshapes destroyed with a call pending, test() on some ranks only, and calls
// made while one is pending. Each case must end in the same error on every rank or in correct
// results, never in a hang (ctest's timeout) or a crash. Every engine; plans on user arrays
// (bricks), so that wait() runs a reshape after the transform.
#include <algorithm>
#include <cmath>
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
#include "volfft/volfft.h"

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

// Every rank's largest difference from `want`, the maximum over ranks.
double max_difference(const std::vector<cd>& got, const std::vector<cd>& want) {
  double d = 0;
  for (std::size_t k = 0; k < got.size(); ++k) d = std::max(d, std::abs(got[k] - want[k]));
  double all = 0;
  MPI_Allreduce(&d, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

// Requests dropped, moved, tested on some ranks only, waited twice; calls made while one is
// pending; plans moved or destroyed with a transform pending. Results against blocking calls.
void request_lifetimes(int rank, int size) {
  for (Engine engine : tested_engines()) {
    const std::string e = to_string(engine);
    auto plan = brick_plan(rank, size, engine);
    const std::vector<cd> a = input_of(*plan);
    const std::size_t n_out = static_cast<std::size_t>(std::max<Index>(plan->output_count(), 1));
    std::vector<cd> want(n_out), b(n_out), back(a.size()), want_back(a.size());
    plan->forward(a.data(), want.data());
    plan->backward(want.data(), want_back.data());

    // Dropped before wait(): destruction completes it.
    { Request r = plan->forward_start(a.data(), b.data()); }
    CHECK_MSG(max_difference(b, want) == 0, e << ": a dropped request completes its transform");

    // test() on rank 0 only (many times), wait() twice, a moved-from request.
    std::fill(b.begin(), b.end(), cd(0));
    Request r = plan->forward_start(a.data(), b.data());
    if (rank == 0)
      for (int k = 0; k < 50 && !r.test(); ++k) {
      }
    Request moved(std::move(r));
    CHECK_MSG(!r.pending() && r.test(), e << ": a moved-from request is done");
    r.wait();  // nothing: moved from
    CHECK_MSG(moved.pending(), e << ": the moved-to request is pending");
    // Calls while one is pending: the same error on every rank, and the transform goes on.
    std::vector<cd> other(n_out);
    expect_everywhere(e + ": forward_start while pending",
                      error_of([&] { plan->forward_start(a.data(), other.data()); }), "in progress");
    expect_everywhere(e + ": backward_start while pending",
                      error_of([&] { plan->backward_start(want.data(), back.data()); }), "in progress");
    expect_everywhere(e + ": forward while pending", error_of([&] { plan->forward(a.data(), other.data()); }),
                      "in progress");
    moved.wait();
    moved.wait();
    CHECK_MSG(!moved.pending(), e << ": waited");
    CHECK_MSG(max_difference(b, want) == 0, e << ": split phase after refused calls");

    // Backward split phase, the request assigned over (assignment waits for the old one).
    Request q = plan->backward_start(want.data(), back.data());
    q = Request();
    CHECK_MSG(max_difference(back, want_back) == 0, e << ": a request assigned over completes its transform");

    // The plan moved while a transform is pending: the request follows it.
    std::fill(b.begin(), b.end(), cd(0));
    Request m = plan->forward_start(a.data(), b.data());
    Plan moved_plan(std::move(*plan));
    m.wait();
    CHECK_MSG(max_difference(b, want) == 0, e << ": the plan moved while pending");

    // The plan destroyed while pending: its destruction completes the transform, and the
    // request says so on every rank.
    std::fill(b.begin(), b.end(), cd(0));
    Request d = moved_plan.forward_start(a.data(), b.data());
    { Plan gone(std::move(moved_plan)); }
    CHECK_MSG(max_difference(b, want) == 0, e << ": destroying the plan completes its transform");
    CHECK_MSG(d.pending() && d.test(), e << ": a request of a destroyed plan");
    expect_everywhere(e + ": wait after the plan is gone", error_of([&] { d.wait(); }), "was destroyed");
  }
}

// Reshape's split phase: test() on rank 0 only, finish() twice, calls while pending, and a
// reshape destroyed with one pending.
void reshape_split_phase(int rank, int size) {
  const std::vector<Box> from = volfft::bricks(kShape, size), to = volfft::slabs(kShape, size, 1);
  LocalArray in, out;
  in.box = from[static_cast<std::size_t>(rank)];
  out.box = to[static_cast<std::size_t>(rank)];
  for (Engine engine : {Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p}) {
    const std::string e = to_string(engine);
    auto r = std::make_unique<Reshape>(MPI_COMM_WORLD, kShape, in, out, Precision::float64, Values::complex,
                                       with_engine(engine));
    std::vector<cd> a(static_cast<std::size_t>(std::max<Index>(r->input_count(), 1)));
    for (std::size_t k = 0; k < a.size(); ++k) a[k] = cd(static_cast<double>(k), rank);
    std::vector<cd> want(static_cast<std::size_t>(std::max<Index>(r->output_count(), 1))), b(want.size());
    std::vector<cd> back(a.size());
    r->execute(a.data(), want.data());
    r->finish();  // nothing pending: nothing to do
    r->start(a.data(), b.data());
    if (rank == 0)
      for (int k = 0; k < 50 && !r->test(); ++k) {
      }
    expect_everywhere(e + ": Reshape::start while pending", error_of([&] { r->start(a.data(), b.data()); }),
                      "in progress");
    expect_everywhere(e + ": Reshape::reverse while pending", error_of([&] { r->reverse(want.data(), back.data()); }),
                      "in progress");
    r->finish();
    r->finish();
    CHECK_MSG(max_difference(b, want) == 0, e << ": Reshape split phase");
    std::fill(b.begin(), b.end(), cd(0));
    r->start(a.data(), b.data());
    r.reset();  // destroying it completes the pending exchange
    CHECK_MSG(max_difference(b, want) == 0, e << ": a Reshape destroyed while pending completes it");
    // Assigned over while pending: the same (before, the old one's exchange was dropped with
    // its areas freed under MPI and `b` never unpacked).
    std::fill(b.begin(), b.end(), cd(0));
    Reshape first(MPI_COMM_WORLD, kShape, in, out, Precision::float64, Values::complex, with_engine(engine));
    first.start(a.data(), b.data());
    first = Reshape(MPI_COMM_WORLD, kShape, in, out, Precision::float64, Values::complex, with_engine(engine));
    CHECK_MSG(max_difference(b, want) == 0, e << ": a Reshape assigned over while pending completes it");
    std::vector<cd> c(b.size());
    first.execute(a.data(), c.data());
    CHECK_MSG(max_difference(c, want) == 0, e << ": the Reshape assigned in works");
    // Destroyed while rank 0 unwinds, the others in a barrier: its one exchange, started by
    // every rank, completes as the others progress in MPI (nothing after it communicates).
    try {
      Reshape u(MPI_COMM_WORLD, kShape, in, out, Precision::float64, Values::complex, with_engine(engine));
      u.start(a.data(), b.data());
      if (rank == 0) throw std::runtime_error("the user's own error");
      MPI_Barrier(MPI_COMM_WORLD);
    } catch (const std::runtime_error&) {
      MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK(true);
  }
}

// The C API: a plan destroyed with a request pending completes the transform; the request's
// wait then fails alike on every rank and frees it; test() on one rank only.
void c_requests(int rank) {
  volfft_options o;
  volfft_options_default(&o);
  o.effort = VOLFFT_ESTIMATE;
  const int64_t shape[3] = {12, 10, 9};
  volfft_plan plan = nullptr;
  CHECK(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan) == VOLFFT_OK);
  int64_t n_in = 0, n_out = 0;
  CHECK(volfft_counts(plan, &n_in, &n_out) == VOLFFT_OK);
  std::vector<cd> a(static_cast<std::size_t>(std::max<int64_t>(n_in, 1)), cd(1, 2));
  std::vector<cd> want(static_cast<std::size_t>(std::max<int64_t>(n_out, 1))), b(want.size());
  CHECK(volfft_forward(plan, a.data(), want.data()) == VOLFFT_OK);
  volfft_request r = nullptr;
  CHECK(volfft_forward_start(plan, a.data(), b.data(), &r) == VOLFFT_OK && r != nullptr);
  int done = 0;
  if (rank == 0)
    for (int k = 0; k < 20 && !done; ++k) CHECK(volfft_request_test(r, &done) == VOLFFT_OK);
  volfft_request second = nullptr;
  CHECK(volfft_forward_start(plan, a.data(), b.data(), &second) != VOLFFT_OK && second == nullptr);
  expect_everywhere("C: a second start while pending", volfft_last_error(), "in progress");
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK);
  CHECK_MSG(max_difference(b, want) == 0, "C: destroying the plan completes its transform");
  CHECK(volfft_request_test(r, &done) == VOLFFT_OK && done == 1);
  CHECK(volfft_request_wait(r) != VOLFFT_OK);  // and frees r
  expect_everywhere("C: wait after the plan is destroyed", volfft_last_error(), "was destroyed");
}

}  // namespace

// --unwinding runs the abandoned requests alone (their own ctest entries): an abandoned plan
// keeps its memory on purpose (MPI may still hold its buffers), which the sanitizer build's leak
// check would report for everything else in the run too.
int main(int argc, char** argv) {
  const bool unwinding = argc > 1 && std::string(argv[1]) == "--unwinding";
  return volfft_test::run_mpi_test(argc, argv, [&](int rank, int size) {
    if (unwinding) {
      request_destroyed_while_unwinding(rank, size);
      return;
    }
    request_lifetimes(rank, size);
    reshape_split_phase(rank, size);
    c_requests(rank);
  });
}
