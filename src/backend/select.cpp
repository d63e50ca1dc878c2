// The one owner of backend choice: which 1-D FFT library plans a batch. The options name one;
// Backend::automatic is decided once per plan (choose_backend), never per batch, so every rank
// and every batch of a plan use the same backend.
#include <stdexcept>
#include <string>

#include "backend/fft_batch.hpp"
#include "mpi/check.hpp"
#include "volfft/error.hpp"

namespace volfft {

bool have_backend(Backend b) {
#if defined(VOLFFT_HAVE_DUCC0)
  (void)b;
  return true;
#else
  return b != Backend::ducc0;
#endif
}

namespace backend {

std::unique_ptr<FftBatch> make_batch(const Options& options, Precision precision,
                                     const BatchGeometry& geometry, void* plan_in, void* plan_out,
                                     bool unaligned_fallback) {
  if (!have_backend(options.backend))
    throw Error(std::string("volfft: backend '") + to_string(options.backend) +
                "' is not part of this build (configure with VOLFFT_DUCC0=ON and the vendored "
                "headers in third_party/ducc0); use 'fftw' or 'auto'");
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
  if (!have_backend(Backend::ducc0)) return Backend::fftw;
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
