// Whether a one-rank 3-D stage runs as one FFTW plan of the whole array or split (axis 0, then
// the planes), and whether the planning times the two: a pure function of the blueprint, the
// options and the machine's last-level cache (core/cache.hpp), checked without MPI
// (tests/unit/test_plane_split.cpp). plan/stage_ops.cpp makes either; plan::Program times them.
#pragma once

#include <cstddef>

#include "core/blueprint.hpp"
#include "volfft/options.hpp"

namespace volfft::plan {

/// How make_stage_ops runs a stage that can run either way: by the rule (runs_by_planes), one 3-D
/// plan, or split. One 3-D plan of an r2c's backward that keeps its input is a copy of the input
/// into the plan's array, then the 3-D c2r from there (FFTW has no multi-dimensional c2r that
/// keeps its input).
enum class PlaneSplit { by_rule, whole, planes };

/// A stage that can run whole or by planes: the FFTW backend, one 3-D c2c or r2c op over a whole
/// array (one rank), not padded, no trailing axes.
bool splits_into_planes(const core::Blueprint& bp, const Options& options, const core::Stage& st);

/// The rule: an r2c runs by planes; a c2c by planes where one side's array (all fields) is more
/// than a quarter of the last-level cache.
bool runs_by_planes(const core::Blueprint& bp, const Options& options, const core::Stage& st);

/// How the planning chooses between stage s's two ways to run, where both are open.
/// plan::Program::whole_stage_ops says how each is timed.
enum class SplitTiming {
  by_rule,          ///< no timing: the rule decides (effort estimate, an r2c forward, arrays beyond 8x the cache, ...)
  probe,            ///< the arrays fit a quarter of the cache: the 3-D plan, checked against a cheap split
  /// both measured, the split kept unless the 3-D plan is clearly faster (above a quarter of the
  /// cache up to 8 times it; an r2c backward)
  measured_both,
};

/// The timing for stage s in one direction. Only where the FFTW backend measures on the planning
/// arrays (effort measure or patient); of an r2c plan only the out-of-place backward that keeps
/// its input (the rest by rule: planes, or the 3-D c2r from the input under destroy_input), and
/// that as measured_both. Beyond 8 times the last-level cache the rule's split is taken untimed:
/// FFTW's measurement of a 3-D plan that size costs more planning than it was seen to save.
SplitTiming plane_split_timing(const core::Blueprint& bp, const Options& options, std::size_t s, bool backward);

}  // namespace volfft::plan
