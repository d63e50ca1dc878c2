// Which 1-D FFT backend plans a batch: the one the options name, or for Backend::automatic the
// faster one measured on the planning arrays.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "backend/fft_batch.hpp"
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
#if defined(VOLFFT_HAVE_DUCC0)
namespace {

// Bytes from the first to one past the last element an array of this geometry touches.
std::size_t span_bytes(const BatchGeometry& g, Precision precision,
                       const std::array<Index, 3>& strides, bool real) {
  const std::size_t complex_bytes = precision == Precision::float64 ? 16 : 8;
  const std::size_t element = real ? complex_bytes / 2 : complex_bytes;
  Index last = 0;
  for (int a = 0; a < 3; ++a) {
    const Index n = (real && a == 2) ? g.real_length : g.extent[a];
    last += (n - 1) * strides[a];
  }
  return static_cast<std::size_t>(last + 1) * element;
}

// Best of three runs after one warm-up, in seconds.
double seconds_per_run(const FftBatch& batch, void* in, void* out) {
  batch.execute(in, out);
  double best = 1e300;
  for (int k = 0; k < 3; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    batch.execute(in, out);
    const std::chrono::duration<double> t = std::chrono::steady_clock::now() - t0;
    best = std::min(best, t.count());
  }
  return best;
}

}  // namespace
#endif

std::unique_ptr<FftBatch> make_batch(const Options& options, Precision precision,
                                     const BatchGeometry& geometry, void* plan_in, void* plan_out,
                                     bool unaligned_fallback, MPI_Comm agree) {
  if (options.threads < 1)
    throw Error("volfft: threads must be at least 1; got " + std::to_string(options.threads));
  if (!have_backend(options.backend))
    throw Error(std::string("volfft: backend '") + to_string(options.backend) +
                "' is not part of this build (configure with VOLFFT_DUCC0=ON and the vendored "
                "headers in third_party/ducc0); use 'fftw' or 'auto'");
  auto fftw = [&] {
    return make_fftw_batch(precision, geometry, options.effort, options.threads, plan_in,
                           plan_out, unaligned_fallback);
  };
  if (options.backend == Backend::fftw) return fftw();
#if !defined(VOLFFT_HAVE_DUCC0)
  (void)agree;
  return fftw();  // automatic with FFTW alone
#else
  if (options.backend == Backend::ducc0) return make_ducc_batch(precision, geometry, options.threads);

  // Automatic: plan both, time both on the planning arrays (zeroed first: whatever FFTW's
  // planner left there could hold denormals, which are slow), keep the faster.
  std::unique_ptr<FftBatch> candidates[2] = {fftw(),
                                             make_ducc_batch(precision, geometry, options.threads)};
  const bool real_in = geometry.transform == Transform::r2c;
  const bool real_out = geometry.transform == Transform::c2r;
  const bool empty = geometry.extent[0] * geometry.extent[1] * geometry.extent[2] == 0;
  void* out = geometry.in_place ? plan_in : plan_out;
  double seconds[2] = {0, 0};
  if (!empty) {
    std::memset(plan_in, 0, span_bytes(geometry, precision, geometry.in_strides, real_in));
    std::memset(out, 0, span_bytes(geometry, precision, geometry.out_strides, real_out));
    for (int c = 0; c < 2; ++c) seconds[c] = seconds_per_run(*candidates[c], plan_in, out);
  }
  if (agree != MPI_COMM_NULL) {
    double summed[2];
    MPI_Allreduce(seconds, summed, 2, MPI_DOUBLE, MPI_SUM, agree);
    seconds[0] = summed[0], seconds[1] = summed[1];
  }
  return std::move(candidates[seconds[1] < seconds[0] ? 1 : 0]);
#endif
}

}  // namespace backend
}  // namespace volfft
