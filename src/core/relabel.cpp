#include "core/relabel.hpp"

#include <algorithm>
#include <cstdint>

#include "volfft/error.hpp"

namespace volfft::core {

Axes none_axes_first(const std::vector<std::int64_t>& shape, Kind kind, const Options& options) {
  const bool automatic_grid = options.grid[0] == 0 && options.grid[1] == 0;  // a given grid names axes
  if (shape.size() != 3 || options.kinds.size() != 3 || !automatic_grid || options.in_place) return kSameAxes;
  try {
    validate(1, shape, options, kind);  // an invalid problem is reported in the user's axes
  } catch (const Error&) {
    return kSameAxes;
  }
  Axes axes{};
  int next = 0;
  for (int pass = 0; pass < 2; ++pass)  // none axes first, then the others
    for (int a = 0; a < 3; ++a)
      if ((options.kinds[static_cast<std::size_t>(a)] == AxisKind::none) == (pass == 0)) axes[next++] = a;
  // An r2c plan's real rows stay last and whole: only its first two axes may swap.
  if (kind == Kind::r2c && axes[2] != 2) return kSameAxes;
  return axes;
}

void keep_user_c_order(Blueprint& bp, const Order& c_order) {
  take_input_order(bp, c_order);
  if (bp.layout == Layout::natural) take_output_order(bp, c_order);
}

Options to_internal(const Options& options, const Axes& axes) {
  Options o = options;
  if (axes == kSameAxes || options.kinds.size() != 3) return o;
  for (int a = 0; a < 3; ++a) o.kinds[static_cast<std::size_t>(a)] = options.kinds[static_cast<std::size_t>(axes[a])];
  return o;
}

Order user_c_order(const Axes& axes) {
  const std::vector<int> o = to_internal_order({}, axes);
  return Order{o[0], o[1], o[2]};
}

std::vector<std::int64_t> to_internal(const std::vector<std::int64_t>& shape, const Axes& axes) {
  if (shape.size() != 3) return shape;
  return {shape[static_cast<std::size_t>(axes[0])], shape[static_cast<std::size_t>(axes[1])],
          shape[static_cast<std::size_t>(axes[2])]};
}

Box to_internal(const Box& b, const Axes& axes) {
  Box r;
  for (int a = 0; a < 3; ++a) r.lo[a] = b.lo[axes[a]], r.hi[a] = b.hi[axes[a]];
  return r;
}

Box to_user(const Box& b, const Axes& axes) {
  Box r;
  for (int a = 0; a < 3; ++a) r.lo[axes[a]] = b.lo[a], r.hi[axes[a]] = b.hi[a];
  return r;
}

std::vector<int> to_internal_order(const std::vector<int>& order, const Axes& axes) {
  if (axes == kSameAxes) return order;
  std::vector<int> user = order;
  if (user.empty()) user = {0, 1, 2};  // C order of the user's axes is not C order inside
  Axes inverse{};
  for (int a = 0; a < 3; ++a) inverse[axes[a]] = a;
  std::vector<int> r;
  for (int u : user) r.push_back(u >= 0 && u < 3 ? inverse[u] : u);  // invalid entries: the plan says so
  return r;
}

std::vector<int> to_user_order(const std::vector<int>& order, const Axes& axes) {
  if (axes == kSameAxes) return order;
  std::vector<int> r;
  for (int a : order) r.push_back(a >= 0 && a < 3 ? axes[a] : a);
  return r;
}

std::optional<LocalArray> to_internal(const std::optional<LocalArray>& a, const Axes& axes) {
  if (!a || axes == kSameAxes) return a;
  LocalArray r;
  r.box = to_internal(a->box, axes);
  r.storage = to_internal(a->storage, axes);
  r.order = to_internal_order(a->order, axes);
  return r;
}

LocalArray to_user(const LocalArray& a, const Axes& axes) {
  if (axes == kSameAxes) return a;
  LocalArray r;
  r.box = to_user(a.box, axes);
  r.storage = to_user(a.storage, axes);
  r.order = to_user_order(a.order.empty() ? std::vector<int>{0, 1, 2} : a.order, axes);
  return r;
}

void to_user(PlanDescription& d, const Axes& axes) {
  if (axes == kSameAxes) return;
  std::vector<std::int64_t> shape(3);
  for (int a = 0; a < 3; ++a) shape[static_cast<std::size_t>(axes[a])] = d.shape[static_cast<std::size_t>(a)];
  d.shape = shape;
  for (Box& b : d.input_boxes) b = to_user(b, axes);
  for (Box& b : d.output_boxes) b = to_user(b, axes);
  d.input_order = to_user_order(d.input_order, axes);
  d.output_order = to_user_order(d.output_order, axes);
  for (StageDescription& s : d.stages) {
    s.axes = to_user_order(s.axes, axes);
    s.memory_order = to_user_order(s.memory_order, axes);
  }
}

std::string phase_to_user(const std::string& name, const Axes& axes) {
  if (axes == kSameAxes || name.compare(0, 3, "fft") != 0) return name;
  std::string r = name;
  for (std::size_t k = 3; k < r.size(); ++k)
    if (r[k] >= '0' && r[k] <= '2') r[k] = static_cast<char>('0' + axes[static_cast<std::size_t>(r[k] - '0')]);
  return r;
}

}  // namespace volfft::core
