// Relabelling a plan's axes (internal axis a = the user's axis axes[a]). A transform does not
// depend on the order its axes are taken in, so a plan may run with its axes relabelled where
// that moves less data: a plan on user arrays to keep the user's boxes where its first stage
// wants them (plan/choose_axes.hpp: heFFTe's bricks split along axis 2 are then the plan's input
// slabs), and a plan whose kinds leave axes untransformed to put those first (none_axes_first),
// where the trailing-none rule drops the exchanges they would need. The plan computes in internal
// axes; everything it reports (boxes, orders, arrays, description, phase names) is mapped back to
// the user's axes. Pure: no MPI.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/blueprint.hpp"
#include "volfft/box.hpp"
#include "volfft/description.hpp"
#include "volfft/options.hpp"

namespace volfft::core {

using Axes = std::array<int, 3>;
constexpr Axes kSameAxes{0, 1, 2};

/// The relabelling of a plan on its own arrays whose kinds leave some axes untransformed
/// (`none`), so that those come first (stable, the others after them in the user's order): a
/// `(dft, none, dft)` transform on slabs then moves nothing, on pencils one exchange less. Applies
/// to 3-D plans with kinds, an automatic grid, not in place and valid arguments (an r2c plan only
/// where its last axis stays last); otherwise (and when the none axes come first already)
/// kSameAxes. The plan keeps the user's C-order input (and, with Layout::natural, output):
/// user_c_order() gives that order in internal axes.
Axes none_axes_first(const std::vector<std::int64_t>& shape, Kind kind, const Options& options);
/// A plan relabelled by none_axes_first keeps the user's C order (`c_order`, user_c_order()) for
/// its input and, with Layout::natural, for its output.
void keep_user_c_order(Blueprint& bp, const Order& c_order);
/// The options in internal axes (Options::kinds permuted).
Options to_internal(const Options& options, const Axes& axes);
/// The user's C order in internal axes: the memory order of the plan's arrays that the user sees
/// as C order.
Order user_c_order(const Axes& axes);

std::vector<std::int64_t> to_internal(const std::vector<std::int64_t>& shape, const Axes& axes);
Box to_internal(const Box& box, const Axes& axes);
Box to_user(const Box& box, const Axes& axes);
/// Memory orders: lists of axes slowest first (empty = C order in the user's axes).
std::vector<int> to_internal_order(const std::vector<int>& order, const Axes& axes);
std::vector<int> to_user_order(const std::vector<int>& order, const Axes& axes);
std::optional<LocalArray> to_internal(const std::optional<LocalArray>& a, const Axes& axes);
LocalArray to_user(const LocalArray& a, const Axes& axes);
/// The description's shape, boxes, orders and stage axes in the user's axes (messages stay).
void to_user(PlanDescription& d, const Axes& axes);
/// A phase name in the user's axes: "fft21" of internal axes 2 and 1 names the user's axes.
std::string phase_to_user(const std::string& name, const Axes& axes);

}  // namespace volfft::core
