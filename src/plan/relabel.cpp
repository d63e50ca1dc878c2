#include "plan/relabel.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>

#include "core/blueprint.hpp"

namespace volfft::plan {

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

Axes choose_axes(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                 const Options& options, const std::optional<LocalArray>& in, const std::optional<LocalArray>& out) {
  // The same test on every rank (the arguments must agree; if they do not, the plan says so).
  const bool all_dft = std::all_of(options.kinds.begin(), options.kinds.end(), [](AxisKind k) { return k == AxisKind::dft; });
  const bool automatic_grid = options.grid[0] == 0 && options.grid[1] == 0;  // a given grid names axes
  const bool applies = shape.size() == 3 && kind == Kind::c2c && all_dft && options.spectral_shape.empty() &&
                       !options.in_place && options.rank_order.empty() && options.map_file.empty() &&
                       automatic_grid && (in || out);
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  static const Axes candidates[6] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  // kept[c]: this rank's elements already where candidate c's plan holds them; kept[6]: 1 when
  // relabelling does not apply here or something failed (then nobody relabels).
  std::int64_t kept[7] = {0, 0, 0, 0, 0, 0, applies ? 0 : 1};
  if (applies) {
    try {
      for (int c = 0; c < 6; ++c) {
        const Axes& axes = candidates[c];
        const core::Blueprint bp = core::make_blueprint(size, rank, to_internal(shape, axes), kind, precision, options, false);
        if (in) kept[c] += in->box.intersect(to_user(bp.real_box, axes)).size();
        if (out) kept[c] += out->box.intersect(to_user(bp.stages.back().box, axes)).size();
      }
    } catch (...) {
      kept[6] = 1;
    }
  }
  std::int64_t total[7];
  MPI_Allreduce(kept, total, 7, MPI_INT64_T, MPI_SUM, comm);
  if (total[6] > 0) return kSameAxes;
  int best = 0;
  for (int c = 1; c < 6; ++c)
    if (total[c] > total[best]) best = c;
  return candidates[best];
}

}  // namespace volfft::plan
