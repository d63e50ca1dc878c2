// The measured planner: with the grid and/or the engine left automatic and a measuring effort,
// time the candidate configurations and keep the fastest. Every timing is reduced with the
// maximum over ranks before it is compared, so every rank takes the same choice. Choices are
// remembered in a wisdom file (JSON) keyed by problem, process count, MPI library and hosts.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "volfft/box.hpp"
#include "volfft/options.hpp"

namespace volfft::tune {

/// Whether Plan construction tunes for these options.
bool wants_tuning(int comm_size, const Options& options);

/// Returns `options` with grid, engine and planes fixed to the chosen candidate, and a report.
/// Collective. Invalid arguments throw the same volfft::Error as Plan would, on every rank.
/// A plan on the user's arrays passes them (`in`, `out`): each candidate is then timed with its
/// reshapes, which decide as much as the transform which grid is fastest.
Options tune(MPI_Comm comm, const std::vector<std::int64_t>& shape, Kind kind, Precision precision,
             const Options& options, std::string& report, const std::optional<LocalArray>& in = std::nullopt,
             const std::optional<LocalArray>& out = std::nullopt);

}  // namespace volfft::tune
