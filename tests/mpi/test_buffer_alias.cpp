// No all-to-all is given a send buffer that is its receive buffer. MPI forbids it, and Open MPI's
// non-blocking all-to-all takes sendbuf == recvbuf for MPI_IN_PLACE: another schedule, after which
// the group's next all-to-all never matched. The plan's buffers lie one after another, so engine
// pipelined's send pointer for a chunk after a rank's last send was the start of the receive
// area: shape (1, 5, 1), grid 2x2, batch 2 hung in backward() on rank 1 (its last axis has fewer
// points than p1, so that rank sends its whole array in the first chunks). The test counts
// aliased calls by interposing on MPI's (support/alias_watch.cpp, which passes MPI a distinct
// address, so a regression fails here instead of hanging), for every engine, in place and out;
// the results are checked against the default engine's.
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

#include "support/alias_watch.hpp"
#include "support/mpi_main.hpp"
#include "volfft/plan.hpp"

using volfft_test::aliased_all_to_alls;
using volfft_test::reset_aliased_all_to_alls;

int main(int argc, char** argv) {
  using namespace volfft;
  return volfft_test::run_mpi_test(argc, argv, [&](int rank, int size) {
    std::map<int, int> planned;  // plans made, by engine
    std::vector<std::array<int, 2>> grids;
    for (int p0 = 1; p0 <= size; ++p0)
      if (size % p0 == 0) grids.push_back({p0, size / p0});
    const std::vector<std::vector<std::int64_t>> shapes{{1, 5, 1}, {2, 5, 1}, {5, 1, 1}, {3, 5, 1}, {1, 1, 3}};
    // Engine persistent's MPI-4 form is set up once per plan (not interposed here: Open MPI's is
    // an MPIX_ extension); its results and the test's timeout check it.
    const Engine engines[] = {Engine::pipelined, Engine::alltoallv, Engine::alltoall, Engine::alltoallw,
                              Engine::p2p,       Engine::persistent, Engine::node};
    for (const auto& shape : shapes)
      for (const auto& grid : grids)
        for (int batch : {1, 2, 3})
          for (Engine engine : engines)
            for (int variant = 0; variant < 3; ++variant) {  // out of place, in place, pipelined p2p
            if (variant == 2 && engine != Engine::pipelined) continue;
            Options o;
            o.effort = Effort::estimate;
            o.grid = grid;
            o.batch = batch;
            Plan reference(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
            o.engine = engine;
            o.in_place = variant == 1;
            o.pipeline_p2p = variant == 2;
            std::unique_ptr<Plan> plan;
            try {
              plan = std::make_unique<Plan>(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
            } catch (const Error&) {
              continue;  // refused on every rank alike (engine pipelined in place with one exchange)
            }
            ++planned[static_cast<int>(engine)];
            std::vector<std::complex<double>> x(plan->input_count());
            for (std::size_t i = 0; i < x.size(); ++i) x[i] = {double((i * 7 + rank * 13) % 11), double(i % 5) - 2};
            std::vector<std::complex<double>> expected(reference.output_count());
            reference.forward(x.data(), expected.data());
            const std::size_t n = std::max(plan->input_count(), plan->output_count());
            std::vector<std::complex<double>> a(n), b(n);
            std::copy(x.begin(), x.end(), a.begin());
            reset_aliased_all_to_alls();
            std::complex<double>* y = o.in_place ? a.data() : b.data();
            plan->forward(a.data(), y);
            double error = 0, round_trip = 0;
            for (std::size_t i = 0; i < expected.size(); ++i) error = std::max(error, std::abs(y[i] - expected[i]));
            plan->backward(y, a.data());
            for (std::size_t i = 0; i < x.size(); ++i) round_trip = std::max(round_trip, std::abs(a[i] - x[i]));
            const auto label = [&] {
              char s[200];
              std::snprintf(s, sizeof s, "shape (%lld, %lld, %lld) grid %dx%d batch %d engine %s%s%s",
                            static_cast<long long>(shape[0]), static_cast<long long>(shape[1]),
                            static_cast<long long>(shape[2]), grid[0], grid[1], batch, to_string(engine),
                            o.in_place ? " in place" : "", o.pipeline_p2p ? " pipeline_p2p" : "");
              return std::string(s);
            };
            CHECK_MSG(plan->output_count() == expected.size() && error < 1e-9, label() << ": forward error " << error);
            CHECK_MSG(round_trip < 1e-9, label() << ": round trip error " << round_trip);
            CHECK_MSG(aliased_all_to_alls() == 0, label() << ": " << aliased_all_to_alls()
                                                  << " all-to-all calls had sendbuf == recvbuf on rank " << rank);
          }
    for (Engine engine : engines)
      CHECK_MSG(planned[static_cast<int>(engine)] > 0, "no plan of engine " << to_string(engine) << " was made");
  });
}
