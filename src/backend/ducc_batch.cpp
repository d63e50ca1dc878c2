// The ducc0 backend: ducc0's C++ FFTs (third_party/ducc0, used under BSD-3-Clause, see its
// README) on the same strided 3-D batches as FFTW. ducc0 needs no planning step worth keeping
// (its twiddle tables are cached by length) and takes any strides, in place or not; it runs
// several 1-D transforms at once in SIMD registers, which is where it beats FFTW builds made
// without AVX-512 codelets.
#include <complex>
#include <utility>
#include <vector>

#include "backend/fft_batch.hpp"
#include "ducc0/fft/fftnd_impl.h"
#include "ducc0/infra/threading.h"

#if defined(VOLFFT_HAVE_OPENMP)
#include <omp.h>
#endif

namespace volfft::backend {
namespace {

#if defined(VOLFFT_HAVE_OPENMP)
// ducc0's threads from OpenMP: one pool for every phase of a rank, as FFTW's (fftw3_omp). With
// ducc0's own pool beside OpenMP's copies and scale pass, OpenMP's threads, spinning a while
// after each parallel region, held the cores ducc0's threads needed next: np 1 x 2 threads, c2c
// 128^3, the forward after a scaled backward took 20.2 ms, after an unscaled one 12.1-12.3 ms.
class OpenMpPool final : public ducc0::detail_threading::thread_pool {
 public:
  std::size_t nthreads() const override { return static_cast<std::size_t>(omp_get_num_procs()); }
  std::size_t adjust_nthreads(std::size_t n) const override {
    return n == 0 ? static_cast<std::size_t>(omp_get_max_threads()) : n;
  }
  // ducc0 hands work out through parallel_for only (its Distribution::thread_map); a single
  // submitted task runs where it is submitted.
  void submit(std::function<void()> work) override { work(); }
  void parallel_for(std::size_t n, std::function<void(std::size_t)> work) override {
    // ducc0 catches its workers' exceptions inside `work`, so none leaves the region.
#pragma omp parallel for schedule(static, 1) num_threads(static_cast<int>(n))
    for (long i = 0; i < static_cast<long>(n); ++i) work(static_cast<std::size_t>(i));
  }
};

OpenMpPool& openmp_pool() {
  static OpenMpPool pool;
  return pool;
}
#endif

template <class Real>
class DuccBatch final : public FftBatch {
 public:
  using Complex = std::complex<Real>;

  DuccBatch(const BatchGeometry& g, int threads)
      : g_(g), threads_(static_cast<std::size_t>(threads < 1 ? 1 : threads)) {
    empty_ = g.extent[0] * g.extent[1] * g.extent[2] == 0;
    const bool real = g.transform == Transform::r2c || g.transform == Transform::c2r;
    // ducc0 wants the halved (r2c/c2r) axis last among the transformed axes.
    for (int a : g.axes)
      if (!(real && a == 2)) axes_.push_back(static_cast<std::size_t>(a));
    if (real) axes_.push_back(2);
    complex_shape_ = {static_cast<std::size_t>(g.extent[0]), static_cast<std::size_t>(g.extent[1]),
                      static_cast<std::size_t>(g.extent[2])};
    real_shape_ = complex_shape_;
    real_shape_[2] = static_cast<std::size_t>(g.real_length);
    for (int a = 0; a < 3; ++a) {
      in_strides_.push_back(static_cast<std::ptrdiff_t>(g.in_strides[a]));
      out_strides_.push_back(static_cast<std::ptrdiff_t>(g.out_strides[a]));
    }
    // Fields of the batch: one more (untransformed) axis after the three; fused trailing axes
    // more axes, the transformed ones among the transform's.
    auto more = [&](Index n, Index is, Index os) {
      complex_shape_.push_back(static_cast<std::size_t>(n));
      real_shape_.push_back(static_cast<std::size_t>(n));
      in_strides_.push_back(static_cast<std::ptrdiff_t>(is));
      out_strides_.push_back(static_cast<std::ptrdiff_t>(os));
    };
    if (g.fields > 1) more(g.fields, g.field_in_stride, g.field_out_stride);
    for (std::size_t k = 0; k < g.axes.size() && g.transform == Transform::r2r; ++k)
      r2r_axes_.emplace_back(static_cast<std::size_t>(g.axes[k]), g.r2r_kinds[k]);
    for (const BatchGeometry::Extra& x : g.extra) {
      if (x.transformed) {
        axes_.push_back(complex_shape_.size());
        r2r_axes_.emplace_back(complex_shape_.size(), x.kind);
      }
      more(x.n, x.in_stride, x.out_stride);
    }
    // r2r of complex data: the complex array as a real one with a fourth axis (real, imaginary
    // part). Real data (an r2r plan) is the array as it is.
    r2r_shape_ = complex_shape_;
    const std::ptrdiff_t unit = g.real_values ? 1 : 2;
    for (std::size_t a = 0; a < in_strides_.size(); ++a) {
      r2r_in_strides_.push_back(unit * in_strides_[a]);
      r2r_out_strides_.push_back(unit * out_strides_[a]);
    }
    if (!g.real_values) {
      r2r_shape_.push_back(2);
      r2r_in_strides_.push_back(1);
      r2r_out_strides_.push_back(1);
    }
  }

  void execute(const void* in, void* out) const override {
    if (empty_) return;
#if defined(VOLFFT_HAVE_OPENMP)
    ducc0::detail_threading::ScopedUseThreadPool pool(openmp_pool());
#endif
    void* o = g_.in_place ? const_cast<void*>(in) : out;
    switch (g_.transform) {
      case Transform::c2c_forward:
      case Transform::c2c_backward: {
        ducc0::cfmav<Complex> a(static_cast<const Complex*>(in), complex_shape_, in_strides_);
        ducc0::vfmav<Complex> b(static_cast<Complex*>(o), complex_shape_, out_strides_);
        ducc0::c2c(a, b, axes_, g_.transform == Transform::c2c_forward, Real(1), threads_);
        break;
      }
      case Transform::r2c: {
        ducc0::cfmav<Real> a(static_cast<const Real*>(in), real_shape_, in_strides_);
        ducc0::vfmav<Complex> b(static_cast<Complex*>(o), complex_shape_, out_strides_);
        ducc0::r2c(a, b, axes_, true, Real(1), threads_);
        break;
      }
      case Transform::c2r: {
        // A c2r batch may overwrite its input, as FFTW's c2r does (the plan's array, or the
        // caller's spectrum under Options::destroy_input): ducc0's c2r_mut transforms the other
        // axes in place there, where its c2r would allocate a scratch array on every call.
        ducc0::vfmav<Complex> a(static_cast<Complex*>(const_cast<void*>(in)), complex_shape_, in_strides_);
        ducc0::vfmav<Real> b(static_cast<Real*>(o), real_shape_, out_strides_);
        ducc0::c2r_mut(a, b, axes_, false, Real(1), threads_);
        break;
      }
      case Transform::r2r: {
        // One axis at a time (each may be of another kind): the first from `in`, the rest in
        // place in `o`. ducc0's unnormalised DCT/DST (fct 1, not orthonormal) are FFTW's.
        for (std::size_t k = 0; k < r2r_axes_.size(); ++k) {
          const bool first = k == 0;
          ducc0::cfmav<Real> a(static_cast<const Real*>(first ? in : o), r2r_shape_,
                               first ? r2r_in_strides_ : r2r_out_strides_);
          ducc0::vfmav<Real> b(static_cast<Real*>(o), r2r_shape_, r2r_out_strides_);
          const AxisKind kind = r2r_axes_[k].second;
          const int type = kind_type(kind);
          const ducc0::fmav_info::shape_t axis{r2r_axes_[k].first};
          if (kind >= AxisKind::dct1 && kind <= AxisKind::dct4)
            ducc0::dct(a, b, axis, type, Real(1), false, threads_);
          else
            ducc0::dst(a, b, axis, type, Real(1), false, threads_);
        }
        break;
      }
    }
  }

 private:
  static int kind_type(AxisKind k) {
    switch (k) {
      case AxisKind::dct1: case AxisKind::dst1: return 1;
      case AxisKind::dct2: case AxisKind::dst2: return 2;
      case AxisKind::dct3: case AxisKind::dst3: return 3;
      default: return 4;
    }
  }

  BatchGeometry g_;
  std::size_t threads_;
  bool empty_ = false;
  ducc0::fmav_info::shape_t axes_, complex_shape_, real_shape_;
  ducc0::fmav_info::stride_t in_strides_, out_strides_;
  ducc0::fmav_info::shape_t r2r_shape_;
  ducc0::fmav_info::stride_t r2r_in_strides_, r2r_out_strides_;
  std::vector<std::pair<std::size_t, AxisKind>> r2r_axes_;  // r2r: each transformed axis and its kind
};

}  // namespace

// ducc0's templates for one precision take longer to compile than the rest of the library, so
// this file is compiled twice: as itself for double, and through ducc_batch_float.cpp (which
// defines VOLFFT_DUCC_FLOAT_HALF) for float. A parallel build then compiles the two at once.
#if defined(VOLFFT_DUCC_FLOAT_HALF)
std::unique_ptr<FftBatch> make_ducc_batch_float(const BatchGeometry& geometry, int threads) {
  return std::make_unique<DuccBatch<float>>(geometry, threads);
}
#else
std::unique_ptr<FftBatch> make_ducc_batch_float(const BatchGeometry& geometry, int threads);

std::unique_ptr<FftBatch> make_ducc_batch(Precision precision, const BatchGeometry& geometry,
                                          int threads) {
  if (precision == Precision::float64) return std::make_unique<DuccBatch<double>>(geometry, threads);
  return make_ducc_batch_float(geometry, threads);
}
#endif

}  // namespace volfft::backend
