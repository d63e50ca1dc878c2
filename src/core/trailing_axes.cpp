// The split of an N-D plan into a leading 3-D plan and trailing axes (trailing_axes.hpp).
#include "core/trailing_axes.hpp"

#include <climits>
#include <string>

#include "core/blueprint.hpp"
#include "volfft/error.hpp"

namespace volfft::core {

std::vector<TrailingDim> trailing_dims(const TrailingAxes& trailing, std::int64_t values, bool forward) {
  std::vector<TrailingDim> dims;
  std::int64_t stride = values;
  for (std::size_t j = 0; j < trailing.shape.size(); ++j) {
    TrailingDim d;
    d.n = trailing.shape[j];
    stride /= d.n;
    d.stride = stride;
    const AxisKind k = trailing.kinds[j];
    d.kind = forward ? k : inverse_kind(k);
    d.transformed = k != AxisKind::none && !(k == AxisKind::dft && d.n == 1);
    dims.push_back(d);
  }
  return dims;
}

LeadingPlan split_trailing_axes(const std::vector<std::int64_t>& shape, Kind kind, const Options& options) {
  LeadingPlan split{shape, options, {}};
  if (shape.size() <= 3) return split;
  const std::string n = std::to_string(shape.size());
  if (kind == Kind::r2c)
    throw Error("volfft: r2c plans take 2 or 3 axes; got shape with " + n +
                " (for more axes make a c2c plan of the real data as complex values, or an r2r plan)");
  if (!options.spectral_shape.empty())
    throw Error("volfft: spectral_shape (padding) takes 2-D and 3-D plans; got shape with " + n + " axes");
  if (options.batch > 1 && options.batch_layout == BatchLayout::outer)
    throw Error("volfft: batch with batch_layout 'outer' takes 2-D and 3-D plans; a plan of " + n +
                " axes takes its fields interleaved (batch_layout 'inner')");
  // The product bound of validate(), over every axis and the fields.
  const std::int64_t limit = (static_cast<std::int64_t>(1) << 62) / 16;
  std::int64_t elements = std::max(options.batch, 1);
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (shape[a] < 1)
      throw Error("volfft: shape[" + std::to_string(a) + "] must be a positive size; got " + std::to_string(shape[a]));
    if (shape[a] > limit / elements)
      throw Error("volfft: shape has too many elements (the product of the sizes and the batch must stay below "
                  "2^58 so that byte counts fit in 64 bits); shape[" + std::to_string(a) + "] = " +
                  std::to_string(shape[a]) + " is too large");
    elements *= shape[a];
  }
  if (kind == Kind::r2r && options.kinds.empty())
    throw Error("volfft: an r2r plan needs kinds, one real-to-real kind (dct1..dct4, dst1..dst4) or 'none' per axis; "
                "got none");
  if (!options.kinds.empty() && options.kinds.size() != shape.size())
    throw Error("volfft: kinds must have one entry per axis (" + n + "); got " + std::to_string(options.kinds.size()));
  TrailingAxes& t = split.trailing;
  for (std::size_t a = 3; a < shape.size(); ++a) {
    const AxisKind k = options.kinds.empty() ? AxisKind::dft : options.kinds[a];
    const std::string which = "volfft: kinds[" + std::to_string(a) + "] is '" + to_string(k) + "'";
    if (k == AxisKind::r2c)
      throw Error(which + ", but only r2c plans have an r2c axis, and they take 2 or 3 axes");
    if (kind == Kind::r2r && k == AxisKind::dft)
      throw Error(which + ", but an r2r plan's data is real: each axis must be a real-to-real kind (dct1..dct4, "
                  "dst1..dst4) or 'none' (a complex DFT along an axis needs a c2c plan)");
    if (k == AxisKind::dct1 && shape[a] < 2)
      throw Error(which + ": DCT-I needs at least 2 points; shape[" + std::to_string(a) + "] is " +
                  std::to_string(shape[a]));
    t.shape.push_back(shape[a]);
    t.kinds.push_back(k);
    t.values *= shape[a];
    t.logical *= static_cast<double>(logical_size(k, shape[a]));
  }
  t.fields = std::max(options.batch, 1);
  if (t.values > INT_MAX / t.fields)
    throw Error("volfft: the trailing axes of shape (axes 3 to " + std::to_string(shape.size() - 1) + ") hold " +
                std::to_string(t.values) + " values per element of the first three axes" +
                (t.fields > 1 ? " times " + std::to_string(t.fields) + " fields" : std::string()) +
                "; at most " + std::to_string(INT_MAX) + " are supported (put more axes among the first three)");
  split.shape.assign(shape.begin(), shape.begin() + 3);
  if (!options.kinds.empty()) split.options.kinds.assign(options.kinds.begin(), options.kinds.begin() + 3);
  split.options.batch = static_cast<int>(t.values) * t.fields;
  split.options.batch_layout = BatchLayout::inner;
  return split;
}

}  // namespace volfft::core
