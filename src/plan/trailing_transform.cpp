// The trailing axes' transforms (trailing_transform.hpp).
#include "plan/trailing_transform.hpp"

#include "core/trailing_axes.hpp"

namespace volfft::plan {

TrailingTransform::TrailingTransform(const core::TrailingAxes& trailing, Kind kind, Precision precision,
                                     const Options& options, std::int64_t points, bool forward, void* plan_array) {
  if (points == 0) return;  // an empty rank holds nothing to transform
  const std::int64_t block = trailing.values * trailing.fields;  // one element's values
  // Each transformed axis one batch: its lines are every element times the axes before it, the
  // axes after it (and the fields) the stride.
  for (const core::TrailingDim& d : core::trailing_dims(trailing, block, forward)) {
    if (!d.transformed) continue;
    backend::BatchGeometry g;
    g.extent = {points * (block / (d.n * d.stride)), d.n, d.stride};
    g.axes = {1};
    g.in_strides = g.out_strides = {d.n * d.stride, d.stride, 1};
    g.real_values = kind == Kind::r2r;
    g.in_place = true;
    if (d.kind == AxisKind::dft) {
      g.transform = forward ? backend::Transform::c2c_forward : backend::Transform::c2c_backward;
    } else {
      g.transform = backend::Transform::r2r;
      g.r2r_kinds = {d.kind};
    }
    batches_.push_back(backend::make_batch(options, precision, g, plan_array, plan_array, true));
  }
}

void TrailingTransform::run(void* data) const {
  for (const auto& b : batches_) b->execute(data, data);
}

}  // namespace volfft::plan
