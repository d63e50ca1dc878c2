// Threads per rank (Options::threads) and the FFT backends: plans at 1, 2 and 3 threads give
// the serial reference's numbers and the unthreaded plan's numbers, with every backend of this
// build and with engines that pack (alltoallv, pipelined) and that copy through shared memory
// (node; at np 1, where no engine runs, one of them), and every other engine on one shape.
// Shapes are large enough that the copies and FFTs really run threaded. Bad thread counts and
// unavailable backends are refused with a message.
// Run at np 1-4, and with --quick (half-size shapes) at np 5.
#include <cstdio>

#include "mpi/transform_check.hpp"
#include "support/mpi_main.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

template <class C>
double relative_difference(MPI_Comm comm, const std::vector<C>& a, const std::vector<C>& b) {
  double s[2] = {0, 0}, t[2];
  for (std::size_t k = 0; k < a.size(); ++k) {
    s[0] += std::norm(std::complex<double>(a[k]) - std::complex<double>(b[k]));
    s[1] += std::norm(std::complex<double>(b[k]));
  }
  MPI_Allreduce(s, t, 2, MPI_DOUBLE, MPI_SUM, comm);
  return t[1] > 0 ? std::sqrt(t[0] / t[1]) : std::sqrt(t[0]);
}

}  // namespace

int main(int argc, char** argv) {
  // --quick: half-size shapes (the odd process counts run oversubscribed, threads included).
  const bool quick = has_flag(argc, argv, "--quick");
  return run_mpi_test(argc, argv, [quick](int rank, int size) {
    (void)rank;
    std::vector<Backend> backends = {Backend::fftw, Backend::automatic};
    if (have_backend(Backend::ducc0)) {
      backends.push_back(Backend::ducc0);
    } else if (rank == 0) {
      std::printf("ducc0 backend not in this build: testing fftw and auto only\n");
    }
    struct Shape {
      std::vector<Index> n;
      Kind kind;
    };
    std::vector<Shape> shapes = {{{128, 64, 64}, Kind::c2c}, {{96, 40, 70}, Kind::r2c},
                                 {{512, 384}, Kind::c2c}, {{7, 9, 11}, Kind::r2c}};
    if (quick)
      shapes = {{{64, 32, 32}, Kind::c2c}, {{48, 20, 35}, Kind::r2c}, {{256, 192}, Kind::c2c}, {{7, 9, 11}, Kind::r2c}};
    // Slabs, and the most nearly square pencil grid p0 x p1 = size (p0 the largest divisor of
    // size with p0 * p0 <= size): 2x2 at np 4, 2x3 at np 6, 1 x size at a prime count.
    int p0 = 1;
    for (int d = 1; d * d <= size; ++d)
      if (size % d == 0) p0 = d;
    const std::array<int, 2> pencils{p0, size / p0};
    std::vector<std::array<int, 2>> grids = {{size, 1}};
    if (pencils != grids.front()) grids.push_back(pencils);  // np 1: one grid
    int cases = 0;
    for (Engine engine : {Engine::alltoallv, Engine::node, Engine::pipelined}) {
      // One rank: the plan has one stage and no exchange (core/blueprint.cpp merges them), so
      // no engine runs and the three would repeat the same transforms (two thirds of this
      // test's time at np 1).
      if (size == 1 && engine != Engine::alltoallv) continue;
      for (Backend backend : backends)
        for (const Shape& s : shapes)
          for (auto g : grids) {
            const bool pencil = g != grids.front();
            if (s.n.size() == 2 && pencil) continue;  // 2-D: slabs only
            if (engine == Engine::pipelined && pencil) continue;  // keep the run short
            Options o;
            o.engine = engine;
            o.backend = backend;
            o.effort = Effort::estimate;
            o.grid = g;
            const std::string base = shape_text(s.n, s.kind, "double") + " grid " + std::to_string(g[0]) + "x" +
                                     std::to_string(g[1]) + " " + to_string(engine) + " backend " +
                                     to_string(backend);
            o.threads = 1;
            const auto serial = check_transform<double>(MPI_COMM_WORLD, s.n, s.kind, o, base + " threads 1");
            ++cases;
            for (int threads : {2, 3}) {
              o.threads = threads;
              const std::string label = base + " threads " + std::to_string(threads);
              const auto threaded = check_transform<double>(MPI_COMM_WORLD, s.n, s.kind, o, label);
              Index n = 1;
              for (Index e : s.n) n *= e;
              // Threads split the same transforms differently: rounding may differ, no more.
              const double d = relative_difference(MPI_COMM_WORLD, threaded, serial);
              CHECK_MSG(d <= transform_tolerance<double>(n), label << ": differs from 1 thread by " << d);
              ++cases;
            }
          }
    }
    // Every other engine of the library's catalogue, threads 2 against 1 on one shape (the
    // packing engines share their copy kernels; this checks each one's own path with threads).
    for (Engine engine : engines()) {
      if (engine == Engine::automatic || engine == Engine::alltoallv || engine == Engine::node ||
          engine == Engine::pipelined)
        continue;
      for (auto g : grids) {
        Options o;
        o.engine = engine;
        o.effort = Effort::estimate;
        o.grid = g;
        const std::vector<Index> n = quick ? std::vector<Index>{32, 24, 20} : std::vector<Index>{64, 48, 40};
        const std::string base = shape_text(n, Kind::c2c, "double") + " grid " + std::to_string(g[0]) + "x" +
                                 std::to_string(g[1]) + " " + to_string(engine);
        o.threads = 1;
        const auto serial = check_transform<double>(MPI_COMM_WORLD, n, Kind::c2c, o, base + " threads 1");
        o.threads = 2;
        const auto threaded = check_transform<double>(MPI_COMM_WORLD, n, Kind::c2c, o, base + " threads 2");
        const double d = relative_difference(MPI_COMM_WORLD, threaded, serial);
        CHECK_MSG(d <= transform_tolerance<double>(n[0] * n[1] * n[2]), base << " threads 2: differs from 1 thread by " << d);
        cases += 2;
      }
    }

    // Single precision, threaded, with each backend.
    for (Backend backend : backends) {
      Options o;
      o.engine = Engine::node;
      o.backend = backend;
      o.effort = Effort::estimate;
      o.threads = 2;
      o.grid = {size, 1};
      check_transform<float>(MPI_COMM_WORLD, {64, 48, 50}, Kind::r2c, o,
                             std::string("64x48x50 r2c float node threads 2 backend ") + to_string(backend));
      ++cases;
    }

    // Refusals, alike on every rank.
    Options bad;
    bad.grid = {size, 1};
    bad.threads = 0;
    CHECK_THROWS_WITH(Plan(MPI_COMM_WORLD, {8, 8, 8}, Kind::c2c, Precision::float64, bad),
                      "threads must be an integer between 1 and 1024; got 0");
    if (!have_backend(Backend::ducc0)) {
      Options no_ducc;
      no_ducc.grid = {size, 1};
      no_ducc.backend = Backend::ducc0;
      CHECK_THROWS_WITH(Plan(MPI_COMM_WORLD, {8, 8, 8}, Kind::c2c, Precision::float64, no_ducc),
                        "backend 'ducc0' is not part of this build");
    }
    CHECK(parse_backend("ducc0") == Backend::ducc0);
    CHECK(std::string(to_string(Backend::automatic)) == "auto");
    CHECK_THROWS_WITH(parse_backend("mkl"), "backend must be one of 'auto', 'fftw', 'ducc0'; got 'mkl'");
    if (rank == 0) std::printf("%d threaded cases\n", cases);
  });
}
