// describe() in internal axes: what Plan and volfft::describe() build their descriptions from.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/blueprint.hpp"
#include "volfft/description.hpp"

namespace volfft::core {

/// volfft::describe() of a problem in internal axes whose arrays keep `c_order` (when given: a
/// plan relabelled by none_axes_first keeps the user's C order, core/relabel.hpp).
PlanDescription describe_internal(int comm_size, const std::vector<std::int64_t>& shape, Kind kind,
                                  Precision precision, const Options& options, const std::optional<Order>& c_order);

}  // namespace volfft::core
