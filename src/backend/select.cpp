// Which 1-D FFT backend plans a batch. FFTW is the only one so far.
#include "backend/fft_batch.hpp"

namespace volfft::backend {

std::unique_ptr<FftBatch> make_batch(const Options& options, Precision precision,
                                     const BatchGeometry& geometry, void* plan_in, void* plan_out,
                                     bool unaligned_fallback) {
  return make_fftw_batch(precision, geometry, options.effort, plan_in, plan_out, unaligned_fallback);
}

}  // namespace volfft::backend
