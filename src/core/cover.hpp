// Whether the boxes of all ranks cover a global array exactly once: the check behind Reshape
// and a Plan's user boxes. Pure, so every rank, given the same gathered boxes, reaches the same
// verdict and the same message without further communication.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "core/blueprint.hpp"

namespace volfft::core {

/// "[lo0, hi0) x [lo1, hi1)[ x [lo2, hi2)]": a box in the user's `ndim` axes.
std::string format_box(const Box& b, int ndim);

/// "" when `boxes` (boxes[r]: rank r's) lie inside the array of `shape` (3-D; 2-D arrays have
/// shape[2] == 1) and cover it exactly once; else a message starting "<what>: " that names the
/// first problem (`what` is the whole head, the caller's name with it, e.g. "volfft::Reshape: the
/// in boxes"): a box not inside the array (its rank and box), two ranks whose
/// boxes overlap (both ranks and boxes), or a gap (an index no box holds, and how many elements
/// are covered of how many).
std::string check_cover(const std::array<Index, 3>& shape, const std::vector<Box>& boxes, int ndim,
                        const std::string& what);

}  // namespace volfft::core
