// A ducc0 backend compiled for instruction sets the CPU lacks (a library built with the default
// -march=native on another machine) must never run: backend ducc0 is refused on every rank by
// name, backend auto takes FFTW on every rank (no rank may skip the timing's reductions the
// others enter), backend fftw is untouched. The missing sets are pretended on the last rank only
// (VOLFFT_TEST_DUCC0_MISSING, read by the library when a plan is made), as on a cluster whose
// nodes differ. Without the pretence, this machine's own check must find nothing missing: the
// build runs where it was built.
#include <cstdlib>
#include <complex>
#include <string>
#include <vector>

#include "support/errors.hpp"
#include "support/mpi_main.hpp"
#include "volfft/plan.hpp"

using namespace volfft;
using volfft_test::error_of;
using volfft_test::expect_everywhere;

namespace {

const std::vector<std::int64_t> kShape{12, 10, 9};

Options with_backend(Backend b) {
  Options o;
  o.backend = b;
  o.effort = Effort::measure;  // auto times the backends
  return o;
}

// forward() of a plan against a plan with backend fftw: the same numbers.
void check_transform(Plan& plan, const std::string& label) {
  Plan reference(MPI_COMM_WORLD, kShape, Kind::c2c, Precision::float64, with_backend(Backend::fftw));
  std::vector<std::complex<double>> x(plan.input_count()), y(plan.output_count()), z(reference.output_count());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = {double(i % 7), double(i % 3) - 1};
  plan.forward(x.data(), y.data());
  reference.forward(x.data(), z.data());
  double error = 0;
  for (std::size_t i = 0; i < y.size(); ++i) error = std::max(error, std::abs(y[i] - z[i]));
  CHECK_MSG(y.size() == z.size() && error < 1e-9, label << ": error " << error);
}

}  // namespace

int main(int argc, char** argv) {
  return volfft_test::run_mpi_test(argc, argv, [&](int rank, int size) {
    // This machine runs what it built: nothing missing, so ducc0 is there where it was built.
    const bool built_with_ducc0 = have_backend(Backend::ducc0);
    {
      Plan automatic(MPI_COMM_WORLD, kShape, Kind::c2c, Precision::float64, with_backend(Backend::automatic));
      CHECK(automatic.backend() == Backend::fftw || (built_with_ducc0 && automatic.backend() == Backend::ducc0));
      check_transform(automatic, "auto, nothing missing");
    }

    // The last rank's CPU lacks two of ducc0's instruction sets.
    const int lacking = size - 1;
    if (rank == lacking) setenv("VOLFFT_TEST_DUCC0_MISSING", "avx512f,avx2", 1);
    CHECK(have_backend(Backend::ducc0) == (built_with_ducc0 && rank != lacking));
    expect_everywhere("backend ducc0 on a CPU without its instruction sets",
                      error_of([&] {
                        Plan p(MPI_COMM_WORLD, kShape, Kind::c2c, Precision::float64, with_backend(Backend::ducc0));
                      }),
                      // (Not built, or not runnable here at all: the library's reason, whichever.)
                      built_with_ducc0 ? "was compiled for instruction sets this CPU lacks (avx512f,avx2)"
                                       : "volfft: backend 'ducc0' ");
    {
      Plan automatic(MPI_COMM_WORLD, kShape, Kind::c2c, Precision::float64, with_backend(Backend::automatic));
      CHECK_MSG(automatic.backend() == Backend::fftw, "backend auto took " << to_string(automatic.backend())
                                                                           << " with ducc0 unusable on rank " << lacking);
      check_transform(automatic, "auto, ducc0 unusable on one rank");
      Plan fftw(MPI_COMM_WORLD, kShape, Kind::c2c, Precision::float64, with_backend(Backend::fftw));
      CHECK(fftw.backend() == Backend::fftw);
    }
    if (rank == lacking) unsetenv("VOLFFT_TEST_DUCC0_MISSING");
  });
}
