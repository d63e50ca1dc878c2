// The trailing axes' transforms (trailing_transform.hpp).
#include "plan/trailing_transform.hpp"

#include "core/blueprint.hpp"

namespace volfft::plan {

TrailingTransform::TrailingTransform(const core::TrailingAxes& trailing, Kind kind, Precision precision,
                                     const Options& options, std::int64_t points, bool forward, void* plan_array) {
  if (points == 0) return;  // an empty rank holds nothing to transform
  std::int64_t before = points;  // lines of the axis: every element, times the axes before it
  for (std::size_t j = 0; j < trailing.shape.size(); ++j) {
    const std::int64_t n = trailing.shape[j];
    std::int64_t after = trailing.fields;  // the axes after it, and the fields
    for (std::size_t k = j + 1; k < trailing.shape.size(); ++k) after *= trailing.shape[k];
    const AxisKind k = trailing.kinds[j];
    // A DFT of one point is the identity; an r2r kind of one point still scales (DCT-II by 2).
    if (k != AxisKind::none && !(k == AxisKind::dft && n == 1)) {
      backend::BatchGeometry g;
      g.extent = {before, n, after};
      g.axes = {1};
      g.in_strides = g.out_strides = {n * after, after, 1};
      g.real_values = kind == Kind::r2r;
      g.in_place = true;
      if (k == AxisKind::dft) {
        g.transform = forward ? backend::Transform::c2c_forward : backend::Transform::c2c_backward;
      } else {
        g.transform = backend::Transform::r2r;
        g.r2r_kinds = {forward ? k : core::inverse_kind(k)};
      }
      batches_.push_back(backend::make_batch(options, precision, g, plan_array, plan_array, true));
    }
    before *= n;
  }
}

void TrailingTransform::run(void* data) const {
  for (const auto& b : batches_) b->execute(data, data);
}

}  // namespace volfft::plan
