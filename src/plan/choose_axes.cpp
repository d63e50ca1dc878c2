#include "plan/choose_axes.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/blueprint.hpp"
#include "core/cover.hpp"

namespace volfft::plan {

using core::Axes;
using core::kSameAxes;
using core::to_internal;
using core::to_user;

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
  // Boxes that do not cover the array exactly once (a gap, an overlap, a box outside it) keep
  // the user's axes, so that the error the plan reports later names them as the user gave
  // them, not relabelled. Every rank gathers every box, whether relabelling applies on it or not.
  std::int64_t mine[14] = {};
  for (int side = 0; side < 2; ++side)
    if (const auto& a = side == 0 ? in : out) {
      mine[7 * side] = 1;
      for (int k = 0; k < 3; ++k) mine[7 * side + 1 + k] = a->box.lo[k], mine[7 * side + 4 + k] = a->box.hi[k];
    }
  std::vector<std::int64_t> all(static_cast<std::size_t>(size) * 14);
  MPI_Allgather(mine, 14, MPI_INT64_T, all.data(), 14, MPI_INT64_T, comm);
  bool covered = shape.size() == 3;
  for (int side = 0; covered && side < 2; ++side) {
    std::vector<Box> boxes;
    for (int r = 0; r < size; ++r) {
      const std::int64_t* b = all.data() + static_cast<std::size_t>(r) * 14 + 7 * side;
      if (!b[0]) break;
      Box box;
      for (int k = 0; k < 3; ++k) box.lo[k] = b[1 + k], box.hi[k] = b[4 + k];
      boxes.push_back(box);
    }
    if (boxes.size() == static_cast<std::size_t>(size))
      covered = core::check_cover({shape[0], shape[1], shape[2]}, boxes, 3, "boxes").empty();
  }
  static const Axes candidates[6] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  // kept[c]: this rank's elements already where candidate c's plan holds them; kept[6]: 1 when
  // relabelling does not apply here or something failed (then nobody relabels).
  std::int64_t kept[7] = {0, 0, 0, 0, 0, 0, applies && covered ? 0 : 1};
  if (applies && covered) {
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
