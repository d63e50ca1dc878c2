// The relabelling that fits a plan to the user's arrays (core/relabel.hpp says what relabelling
// is): collective, since it weighs every rank's boxes.
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "core/relabel.hpp"
#include "volfft/box.hpp"
#include "volfft/options.hpp"

namespace volfft::plan {

/// Collective over `comm`: the relabelling that keeps the most of the user's elements where the
/// plan's first stage (input side) and last stage (output side) hold them, summed over the
/// ranks; kSameAxes on ties, and whenever relabelling does not apply (not c2c with every axis a
/// dft, 2-D, padded, in place, a grid, rank order or map file given) or any rank's arguments are
/// invalid (the plan then reports them). Every rank returns the same.
core::Axes choose_axes(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
                       const Options& options, const std::optional<LocalArray>& in,
                       const std::optional<LocalArray>& out);

}  // namespace volfft::plan
