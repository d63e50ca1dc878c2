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

}  // namespace

template <class T>
void truncate_lines(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
                    std::array<Index, 3> extent, const LineSpec& l) {
  const Index c = l.half ? l.kept : (l.kept + 1) / 2, f = l.half ? 0 : l.kept / 2;
  move_planes(src, ss, dst, ds, extent, l.axis, 0, 0, c, true);
  move_planes(src, ss, dst, ds, extent, l.axis, l.n - f, c, f, true);  // down: ascending is safe
}

template <class T>
void pad_lines(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
               std::array<Index, 3> extent, const LineSpec& l) {
  const Index c = l.half ? l.kept : (l.kept + 1) / 2, f = l.half ? 0 : l.kept / 2;
  move_planes(src, ss, dst, ds, extent, l.axis, c, l.n - f, f, false);  // up: descending is safe
  move_planes(src, ss, dst, ds, extent, l.axis, 0, 0, c, true);
  zero_planes(dst, ds, extent, l.axis, c, l.n - f - c);
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
