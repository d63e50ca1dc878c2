// Engine pipelined keeps at most Options::max_in_flight chunks in flight (its contract): the
// test counts the MPI_Ialltoallv requests the engine has started and not yet completed by
// interposing on MPI's calls in this executable (the library's calls resolve to these, which
// forward to PMPI_*). Before 2026-12-07 the engine started a chunk before completing the oldest,
// so max_in_flight + 1 were in flight. The results are checked too (a bound that lost chunks
// would show there), against a plan with the default engine.
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <vector>

#include "support/mpi_main.hpp"
#include "volfft/plan.hpp"

namespace {

long in_flight = 0, most_in_flight = 0;

long live(int n, const MPI_Request* r) { return std::count_if(r, r + n, [](MPI_Request q) { return q != MPI_REQUEST_NULL; }); }

}  // namespace

extern "C" {
int MPI_Ialltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[],
                   const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* request) {
  most_in_flight = std::max(most_in_flight, ++in_flight);
  return PMPI_Ialltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, request);
}
int MPI_Wait(MPI_Request* r, MPI_Status* s) {
  const long before = live(1, r);
  const int e = PMPI_Wait(r, s);
  in_flight -= before - live(1, r);
  return e;
}
int MPI_Waitall(int n, MPI_Request* r, MPI_Status* s) {
  const long before = live(n, r);
  const int e = PMPI_Waitall(n, r, s);
  in_flight -= before - live(n, r);
  return e;
}
int MPI_Testall(int n, MPI_Request* r, int* flag, MPI_Status* s) {
  const long before = live(n, r);
  const int e = PMPI_Testall(n, r, flag, s);
  in_flight -= before - live(n, r);
  return e;
}
int MPI_Test(MPI_Request* r, int* flag, MPI_Status* s) {
  const long before = live(1, r);
  const int e = PMPI_Test(r, flag, s);
  in_flight -= before - live(1, r);
  return e;
}
}

int main(int argc, char** argv) {
  using namespace volfft;
  return volfft_test::run_mpi_test(argc, argv, [&](int rank, int size) {
    const std::vector<std::int64_t> shape{16, 12, 10};
    Options reference_options;
    reference_options.effort = Effort::estimate;
    Plan reference(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, reference_options);
    std::vector<std::complex<double>> x(reference.input_count());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = {double((i * 7 + rank * 13) % 11), double(i % 5) - 2};
    std::vector<std::complex<double>> expected(reference.output_count());
    reference.forward(x.data(), expected.data());
    for (int bound : {1, 2, 4}) {
      for (Direction direction : {Direction::forward, Direction::backward}) {
        Options o = reference_options;
        o.engine = Engine::pipelined;
        o.planes = 1;  // one plane a chunk: many more chunks than the bound
        o.max_in_flight = bound;
        Plan plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
        std::vector<std::complex<double>> y(plan.output_count()), back(plan.input_count());
        in_flight = most_in_flight = 0;
        if (direction == Direction::forward) {
          plan.forward(x.data(), y.data());
          double error = 0;
          for (std::size_t i = 0; i < y.size(); ++i) error = std::max(error, std::abs(y[i] - expected[i]));
          CHECK_MSG(y.size() == expected.size() && error < 1e-9, "forward, max_in_flight " << bound << ": error " << error);
        } else {
          plan.backward(expected.data(), back.data());
          double error = 0;
          for (std::size_t i = 0; i < back.size(); ++i) error = std::max(error, std::abs(back[i] - x[i]));  // 1/N scaled
          CHECK_MSG(error < 1e-9, "backward, max_in_flight " << bound << ": error " << error);
        }
        const char* name = direction == Direction::forward ? "forward" : "backward";
        CHECK_MSG(most_in_flight <= bound, name << ", max_in_flight " << bound << ": "
                                                                << most_in_flight << " chunks were in flight at once");
        CHECK_MSG(size == 1 || most_in_flight >= 1, "no chunk was started through MPI_Ialltoallv");
        CHECK_MSG(in_flight == 0, in_flight << " chunks left in flight after the call");
      }
    }
  });
}
