// Relabelling a plan's axes to fit the user's arrays. A c2c DFT is the same transform whatever
// order its axes are taken in, so a plan on user arrays may run on the array with its axes
// relabelled (internal axis a = the user's axis axes[a]) when that puts the user's own boxes where
// the plan's first stage wants them: heFFTe's bricks split along axis 2 are then the plan's input
// slabs and need no reshape. The plan computes in internal axes; everything it reports (boxes,
// orders, arrays, description, phase names) is mapped back to the user's axes.
#pragma once

#include <mpi.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "volfft/box.hpp"
#include "volfft/description.hpp"
#include "volfft/options.hpp"

namespace volfft::plan {

using Axes = std::array<int, 3>;
constexpr Axes kSameAxes{0, 1, 2};

/// Collective over `comm`: the relabelling that keeps the most of the user's elements where the
/// plan's first stage (input side) and last stage (output side) hold them, summed over the
/// ranks; kSameAxes on ties, and whenever relabelling does not apply (not c2c with every axis a
/// dft, 2-D, padded, in place, a grid, rank order or map file given) or any rank's arguments are
/// invalid (the plan then reports them). Every rank returns the same.
Axes choose_axes(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                 const Options& options, const std::optional<LocalArray>& in, const std::optional<LocalArray>& out);

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

}  // namespace volfft::plan
