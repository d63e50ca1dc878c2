// Arrays of four or more axes. An N-D transform is separable: it is a 3-D transform over the
// first three axes, whose "elements" are the values of the trailing axes, followed by the
// transforms of the trailing axes. So an N-D plan is a 3-D plan over the leading axes with the
// trailing values as interleaved fields (Options::batch with BatchLayout::inner: a user array in
// C order holds them fastest), which no exchange ever splits, and each rank transforms the
// trailing axes of the elements it holds by itself: in its first forward and last backward FFT
// batch where those take every field (plan/stage_ops.hpp), else after the leading plan
// (plan/trailing_transform.hpp). The leading
// plan's grids, engines and layouts apply unchanged; the trailing axes stay whole on every rank,
// fastest in memory. Pure: no MPI.
#pragma once

#include <cstdint>
#include <vector>

#include "volfft/options.hpp"

namespace volfft::core {

/// Axes 3..N-1 of an N-D plan.
struct TrailingAxes {
  std::vector<std::int64_t> shape;  ///< their sizes
  std::vector<AxisKind> kinds;      ///< their transforms (dft, an r2r kind, or none)
  std::int64_t values = 1;          ///< values of one leading element: the product of `shape`
  double logical = 1;               ///< product of their logical sizes (the 1/N of scaling)
  int fields = 1;                   ///< the user's batch (BatchLayout::inner), fastest of all
  bool empty() const { return shape.empty(); }
};

/// One trailing axis inside an element's block of values (C order, the user's fields fastest):
/// its size, its stride in values, and the transform a direction applies (backward: the inverse
/// kind), `transformed` false where it is the identity (none, or a DFT of one point; an r2r kind
/// of one point still scales, DCT-II by 2).
struct TrailingDim {
  std::int64_t n = 1, stride = 1;
  AxisKind kind = AxisKind::none;
  bool transformed = false;
};
/// The trailing axes of blocks of `values` values each (the leading plan's fields: the trailing
/// values times the user's batch), in order. The FFT batches that take them (plan/stage_ops.cpp)
/// and the plan's own transforms of them (plan/trailing_transform.cpp) read both this.
std::vector<TrailingDim> trailing_dims(const TrailingAxes& trailing, std::int64_t values, bool forward);

/// The 3-D plan over the leading axes and the trailing axes of a plan of `shape`.
struct LeadingPlan {
  std::vector<std::int64_t> shape;  ///< the first three axes (or the whole shape when 2-D/3-D)
  Options options;                  ///< kinds of those axes; batch = values * fields, inner
  TrailingAxes trailing;            ///< empty for 2-D and 3-D plans
};

/// Splits a plan of N >= 4 axes, after checking what only N-D plans can get wrong (the message
/// names the argument and what was expected): every size positive and their product bounded,
/// kinds one per axis (a c2c plan's trailing axes dft, r2r kinds or none; an r2r plan's r2r
/// kinds or none; DCT-I on at least 2 points), and what N-D plans do not take: Kind::r2c,
/// spectral_shape, batch with BatchLayout::outer, values per leading element beyond INT_MAX.
/// Plans of 2 or 3 axes come back unchanged (`trailing` empty) and are checked by validate().
LeadingPlan split_trailing_axes(const std::vector<std::int64_t>& shape, Kind kind, const Options& options);

}  // namespace volfft::core
