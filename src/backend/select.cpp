// The one owner of backend choice: which 1-D FFT library plans a batch. The options name one;
// Backend::automatic is decided once per plan (choose_backend), never per batch, so every rank
// and every batch of a plan use the same backend.
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "backend/ducc_target.hpp"
#include "backend/fft_batch.hpp"
#include "mpi/check.hpp"
#include "volfft/error.hpp"

namespace volfft {

bool have_backend(Backend b) { return backend::backend_problem(b).empty(); }

namespace backend {
namespace {

#if defined(VOLFFT_HAVE_DUCC0) && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
// __builtin_cpu_supports takes string literals only: the list's names as literals, one test each.
bool cpu_supports(const std::string& name) {
#define VOLFFT_CPU(literal, macro) \
  if (name == literal) return __builtin_cpu_supports(literal) != 0;
  VOLFFT_X86_INSTRUCTION_SETS(VOLFFT_CPU)
#undef VOLFFT_CPU
  return true;
}
#define VOLFFT_CHECK_CPU 1
#endif

}  // namespace

std::string ducc0_missing_instruction_sets() {
  std::string missing;
  auto add = [&](const std::string& name) { missing += (missing.empty() ? "" : ",") + name; };
#if defined(VOLFFT_CHECK_CPU)
  __builtin_cpu_init();
  int count = 0;
  const InstructionSet* sets = ducc0_instruction_sets(count);
  for (int k = 0; k < count; ++k)
    if (sets[k].compiled && !cpu_supports(sets[k].name)) add(sets[k].name);
#endif
  if (const char* pretend = std::getenv("VOLFFT_TEST_DUCC0_MISSING")) {
    std::istringstream names(pretend);
    for (std::string name; std::getline(names, name, ',');)
      if (!name.empty()) add(name);
  }
  return missing;
}

std::string backend_problem(Backend b) {
  if (b != Backend::ducc0) return "";
#if !defined(VOLFFT_HAVE_DUCC0)
  return "volfft: backend 'ducc0' is not part of this build (configure with VOLFFT_DUCC0=ON and the vendored "
         "headers in third_party/ducc0); use 'fftw' or 'auto'";
#else
  const std::string missing = ducc0_missing_instruction_sets();
  if (missing.empty()) return "";
  return "volfft: backend 'ducc0' was compiled for instruction sets this CPU lacks (" + missing +
         "): the library was built on another machine with -DVOLFFT_DUCC0_ARCH=native (the default); rebuild "
         "with -DVOLFFT_DUCC0_ARCH set to what every machine it runs on has (e.g. x86-64-v2, or empty for the "
         "compiler's default), or use backend 'fftw' or 'auto' (which then takes FFTW)";
#endif
}

std::unique_ptr<FftBatch> make_batch(const Options& options, Precision precision,
                                     const BatchGeometry& geometry, void* plan_in, void* plan_out,
                                     bool unaligned_fallback) {
  const std::string problem = backend_problem(options.backend);
  if (!problem.empty()) throw Error(problem);
  switch (options.backend) {
    case Backend::fftw:
      return make_fftw_batch(precision, geometry, options.effort, options.threads, plan_in, plan_out,
                             unaligned_fallback);
    case Backend::ducc0:
#if defined(VOLFFT_HAVE_DUCC0)
      return make_ducc_batch(precision, geometry, options.threads);
#else
      break;
#endif
    case Backend::automatic: break;
  }
  throw std::logic_error("volfft: make_batch needs a concrete backend (choose_backend decides 'auto')");
}

Backend choose_backend(MPI_Comm comm, const std::function<double(Backend)>& seconds_with) {
  // Agreed first: a rank that cannot run ducc0 (another CPU) must not skip the timing's
  // reductions the others enter.
  int usable = have_backend(Backend::ducc0) ? 1 : 0;
  mpi::check(MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (!usable) return Backend::fftw;
  const Backend candidates[2] = {Backend::fftw, Backend::ducc0};
  double seconds[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const double mine = seconds_with(candidates[k]);
    mpi::check(MPI_Allreduce(&mine, &seconds[k], 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  }
  return seconds[1] < seconds[0] ? Backend::ducc0 : Backend::fftw;
}

}  // namespace backend
}  // namespace volfft
