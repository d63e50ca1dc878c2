#include "comm/spectral_lines.hpp"

#include "comm/copy_box.hpp"

namespace volfft::comm {
namespace {

// Planes [from, from + count) along `axis` of src to [to, to + count) of dst, one plane at a
// time in the given direction, so that overlapping in-place moves are safe.
template <class T>
void move_planes(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
                 std::array<Index, 3> extent, int axis, Index from, Index to, Index count, bool ascending) {
  if (count <= 0) return;
  if (src != dst) {  // disjoint arrays: one copy
    extent[axis] = count;
    copy_box(src + from * ss[axis], ss, dst + to * ds[axis], ds, extent, typename T::value_type(1));
    return;
  }
  extent[axis] = 1;
  for (Index k = 0; k < count; ++k) {
    const Index q = ascending ? k : count - 1 - k;
    if (from + q == to + q) continue;
    copy_box(src + (from + q) * ss[axis], ss, dst + (to + q) * ds[axis], ds, extent, typename T::value_type(1));
  }
}

template <class T>
void zero_planes(T* dst, const std::array<Index, 3>& ds, std::array<Index, 3> extent, int axis, Index from, Index count) {
  if (count <= 0) return;
  extent[axis] = count;
  T* base = dst + from * ds[axis];
  for (Index x0 = 0; x0 < extent[0]; ++x0)
    for (Index x1 = 0; x1 < extent[1]; ++x1)
      for (Index x2 = 0; x2 < extent[2]; ++x2) base[x0 * ds[0] + x1 * ds[1] + x2 * ds[2]] = T(0);
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

}  // namespace volfft::comm
