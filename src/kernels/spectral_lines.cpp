#include "kernels/spectral_lines.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/copy_box.hpp"

namespace volfft::kernels {
namespace {

// The two axes other than `axis`, outer first (larger stride first), for cache-friendly loops.
std::array<int, 2> other_axes(int axis, const std::array<Index, 3>& strides) {
  std::array<int, 2> o{axis == 0 ? 1 : 0, axis == 2 ? 1 : 2};
  if (strides[o[0]] < strides[o[1]]) std::swap(o[0], o[1]);
  return o;
}

// Planes [from, from + count) along `axis` of src to [to, to + count) of dst, one plane at a
// time in the given direction, so that overlapping in-place moves are safe.
template <class T>
void move_planes(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
                 std::array<Index, 3> extent, int axis, Index from, Index to, Index count, bool ascending) {
  if (count <= 0) return;
  if (src != dst) {  // disjoint arrays: one copy
    extent[axis] = count;
    copy_box(src + from * ss[axis], ss, dst + to * ds[axis], ds, extent, Scalar<T>(1));
    return;
  }
  if (ss[axis] == 1 && ds[axis] == 1) {
    // The axis is contiguous: one memmove per line (a plane along it would touch one element
    // per cache line).
    const auto o = other_axes(axis, ds);
    for (Index a = 0; a < extent[o[0]]; ++a)
      for (Index b = 0; b < extent[o[1]]; ++b) {
        T* line = dst + a * ds[o[0]] + b * ds[o[1]];
        std::memmove(static_cast<void*>(line + to), static_cast<const void*>(line + from), sizeof(T) * count);
      }
    return;
  }
  extent[axis] = 1;
  for (Index k = 0; k < count; ++k) {
    const Index q = ascending ? k : count - 1 - k;
    if (from + q == to + q) continue;
    copy_box(src + (from + q) * ss[axis], ss, dst + (to + q) * ds[axis], ds, extent, Scalar<T>(1));
  }
}

template <class T>
void zero_planes(T* dst, const std::array<Index, 3>& ds, std::array<Index, 3> extent, int axis, Index from, Index count) {
  if (count <= 0) return;
  extent[axis] = count;
  T* base = dst + from * ds[axis];
  // Loop with the smallest stride innermost.
  std::array<int, 3> ax{0, 1, 2};
  std::sort(ax.begin(), ax.end(), [&](int x, int y) { return ds[x] > ds[y]; });
  for (Index a = 0; a < extent[ax[0]]; ++a)
    for (Index b = 0; b < extent[ax[1]]; ++b) {
      T* row = base + a * ds[ax[0]] + b * ds[ax[1]];
      const Index step = ds[ax[2]];
      for (Index c = 0; c < extent[ax[2]]; ++c) row[c * step] = T(0);
    }
}

// Plane `from` of src along `axis`, times `factor`, into plane `to` of dst (added to it when
// `add`). The planes may lie in one array, or be one plane (scaled in place): element by
// element, each read before it is written.
template <class T>
void combine_plane(const T* src, const std::array<Index, 3>& ss, Index from, T* dst, const std::array<Index, 3>& ds,
                   Index to, std::array<Index, 3> extent, int axis, Scalar<T> factor, bool add) {
  const auto o = other_axes(axis, ds);
  const T* s = src + from * ss[axis];
  T* d = dst + to * ds[axis];
  for (Index a = 0; a < extent[o[0]]; ++a)
    for (Index b = 0; b < extent[o[1]]; ++b) {
      const T v = factor * s[a * ss[o[0]] + b * ss[o[1]]];
      T& w = d[a * ds[o[0]] + b * ds[o[1]]];
      w = add ? w + v : v;
    }
}

// An even kept size m < n on a full (not half) axis: the kept index m/2 is numpy's -m/2, the one
// frequency of the m-grid that the n-grid tells apart from +m/2 (an m-point signal cannot). The
// m-box's value there stands for both: padding puts half of it at -m/2 and half at +m/2, and
// truncation adds the two back. So forward(backward(X)) == X, and a Hermitian X (the spectrum of a
// real field, whose planes where the half axis is 0 a c2r reads as Hermitian) stays Hermitian
// once padded: with the whole value at -m/2 alone a c2r kept half of it.
bool splits_nyquist(const LineSpec& l) { return !l.half && l.kept % 2 == 0 && l.kept > 0 && l.kept < l.n; }

}  // namespace

template <class T>
void truncate_lines(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
                    std::array<Index, 3> extent, const LineSpec& l) {
  const Index c = l.half ? l.kept : (l.kept + 1) / 2, f = l.half ? 0 : l.kept / 2;
  const bool nyquist = splits_nyquist(l);  // then c == f == m/2: +m/2 is added into -m/2
  if (nyquist && src == dst) combine_plane(dst, ds, c, dst, ds, l.n - f, extent, l.axis, Scalar<T>(1), true);
  move_planes(src, ss, dst, ds, extent, l.axis, 0, 0, c, true);
  move_planes(src, ss, dst, ds, extent, l.axis, l.n - f, c, f, true);  // down: ascending is safe
  if (nyquist && src != dst) combine_plane(src, ss, c, dst, ds, c, extent, l.axis, Scalar<T>(1), true);
}

template <class T>
void pad_lines(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
               std::array<Index, 3> extent, const LineSpec& l) {
  const Index c = l.half ? l.kept : (l.kept + 1) / 2, f = l.half ? 0 : l.kept / 2;
  move_planes(src, ss, dst, ds, extent, l.axis, c, l.n - f, f, false);  // up: descending is safe
  move_planes(src, ss, dst, ds, extent, l.axis, 0, 0, c, true);
  zero_planes(dst, ds, extent, l.axis, c, l.n - f - c);
  if (splits_nyquist(l)) {  // half of -m/2 (now at n - f) to +m/2 (at c == m/2)
    combine_plane(dst, ds, l.n - f, dst, ds, l.n - f, extent, l.axis, Scalar<T>(0.5), false);
    combine_plane(dst, ds, l.n - f, dst, ds, c, extent, l.axis, Scalar<T>(1), false);
  }
}

#define VOLFFT_LINES(T)                                                                                     \
  template void truncate_lines<T>(const T*, const std::array<Index, 3>&, T*, const std::array<Index, 3>&, \
                                  std::array<Index, 3>, const LineSpec&);                                  \
  template void pad_lines<T>(const T*, const std::array<Index, 3>&, T*, const std::array<Index, 3>&,      \
                             std::array<Index, 3>, const LineSpec&);
VOLFFT_LINES(std::complex<double>)
VOLFFT_LINES(std::complex<float>)
#undef VOLFFT_LINES

}  // namespace volfft::kernels
