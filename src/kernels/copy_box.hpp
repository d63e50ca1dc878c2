// Copy a 3-D box of elements between two strided arrays: the one kernel behind pack, unpack,
// local transposes and the self block of every exchange.
#pragma once

#include <array>
#include <complex>
#include <cstdint>

namespace volfft::kernels {

using Index = std::int64_t;

/// The real type of an element: R for std::complex<R> and for R itself. The kernels and the
/// engines move complex values (the transforms' data) and reals (a Reshape of real arrays).
template <class T>
struct scalar_of {
  using type = T;
};
template <class R>
struct scalar_of<std::complex<R>> {
  using type = R;
};
template <class T>
using Scalar = typename scalar_of<T>::type;

/// dst[x] = scale * src[x] for every index x of a box of extents `extent`, where element x sits
/// at sum_a x_a * stride[a] in each array. When the fastest axes of source and destination
/// differ the copy is a tiled transpose (tiles stay in L1), otherwise rows are streamed.
/// The arrays must not overlap. `threads` > 1 splits the outer loop over that many threads
/// (OpenMP, when volfft was built with it) once the box is large enough to pay for them.
/// A box of 4 MiB or more whose destination rows are contiguous is written with streaming
/// (non-temporal) stores where the CPU has them (x86-64; a transpose only where the rows it
/// walks lie whole cache lines apart): it is then in memory, not in cache, and fenced before
/// copy_box returns, so another rank may read it after the caller's own synchronisation.
template <class T>
void copy_box(const T* src, const std::array<Index, 3>& src_strides, T* dst,
              const std::array<Index, 3>& dst_strides, const std::array<Index, 3>& extent,
              Scalar<T> scale, int threads = 1);

/// copy_box for `fields` fields together: field f starts f * src_field_stride elements after field
/// 0 in the source, f * dst_field_stride in the destination. Where one side interleaves the
/// fields (its field stride 1: a batch's user arrays with BatchLayout::inner) the fields are the
/// innermost loop, in that side's memory order, so that side is streamed once instead of once per
/// field (k passes, each touching every cache line); otherwise it is one copy_box per field.
template <class T>
void copy_fields(const T* src, const std::array<Index, 3>& src_strides, Index src_field_stride, T* dst,
                 const std::array<Index, 3>& dst_strides, Index dst_field_stride, const std::array<Index, 3>& extent,
                 Index fields, Scalar<T> scale, int threads = 1);

/// dst[k] = src[k * src_stride] for k in [0, n), dst contiguous: the whole cache lines of dst
/// written with streaming (non-temporal) stores where the CPU has them (x86-64), the partial lines
/// at either end with ordinary ones; for a destination not read again before it has left the
/// cache (an ordinary store first reads the line it writes). Streamed stores are weakly ordered:
/// the calling thread calls stream_fence() before the values are read by another thread or rank.
template <class T>
void stream_row(const T* src, Index src_stride, T* dst, Index n);
void stream_fence();

/// p[x] *= factor for x in [0, n): the backward scale where no copy carries it (no exchange, as
/// at one rank). `threads` as for copy_box: the pass is memory-bound, and one thread does not
/// draw the node's bandwidth.
template <class Real>
void scale_array(Real* p, Index n, Real factor, int threads = 1);

extern template void stream_row<std::complex<double>>(const std::complex<double>*, Index, std::complex<double>*, Index);
extern template void stream_row<std::complex<float>>(const std::complex<float>*, Index, std::complex<float>*, Index);
extern template void scale_array<double>(double*, Index, double, int);
extern template void scale_array<float>(float*, Index, float, int);

#define VOLFFT_COPY_FIELDS(T)                                                                         \
  extern template void copy_fields<T>(const T*, const std::array<Index, 3>&, Index, T*, const std::array<Index, 3>&, \
                                      Index, const std::array<Index, 3>&, Index, Scalar<T>, int);
VOLFFT_COPY_FIELDS(std::complex<double>)
VOLFFT_COPY_FIELDS(std::complex<float>)
VOLFFT_COPY_FIELDS(double)
VOLFFT_COPY_FIELDS(float)
#undef VOLFFT_COPY_FIELDS

extern template void copy_box<std::complex<double>>(const std::complex<double>*,
                                                    const std::array<Index, 3>&,
                                                    std::complex<double>*,
                                                    const std::array<Index, 3>&,
                                                    const std::array<Index, 3>&, double, int);
extern template void copy_box<std::complex<float>>(const std::complex<float>*,
                                                   const std::array<Index, 3>&,
                                                   std::complex<float>*,
                                                   const std::array<Index, 3>&,
                                                   const std::array<Index, 3>&, float, int);
extern template void copy_box<double>(const double*, const std::array<Index, 3>&, double*,
                                      const std::array<Index, 3>&, const std::array<Index, 3>&, double, int);
extern template void copy_box<float>(const float*, const std::array<Index, 3>&, float*,
                                     const std::array<Index, 3>&, const std::array<Index, 3>&, float, int);

}  // namespace volfft::kernels
