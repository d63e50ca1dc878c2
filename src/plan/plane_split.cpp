#include "plan/plane_split.hpp"

#include "core/cache.hpp"

namespace volfft::plan {

namespace {

// One side's array of the stage (all fields) in units of the last-level cache.
double caches_of_array(const core::Blueprint& bp, const core::Stage& st) {
  const double bytes = double(st.box_in.size()) * double(bp.element_bytes) * double(bp.fields);
  return bytes / double(core::last_level_cache_bytes());
}

}  // namespace

bool splits_into_planes(const core::Blueprint& bp, const Options& options, const core::Stage& st) {
  if (options.backend != Backend::fftw) return false;
  if (bp.padded || !bp.trailing.empty() || bp.ndim != 3 || bp.shape[0] < 2) return false;
  return st.ops.size() == 1 && !st.ops[0].r2r() && st.ops[0].axes.size() == 3;
}

// The r2c of a whole 3-D array (one stage: a plan on one rank) runs as the r2c over planes
// (axes 1 and 2) and the c2c along axis 0 in place in the output; the backward as the c2c along
// axis 0 (from the input into the array, or in place) and the c2r over planes from there to the
// output. FFTW's 3-D r2c/c2r plans take the whole array per pass; a plane (128^2 reals: 128 KiB)
// stays in cache through both of its passes, and the FFTW backend runs a batch of planes plane by
// plane (src/backend/fftw_batch.cpp). FFTW-MPI's transposed plans at one rank also run the
// planes first (then a local transpose and axis 0). Measured on this project's 2-core VM
// (`volfft-fftw-passes one-rank-r2c N`: one process, FFTW 3.3.10 measure, cache flushed between
// calls, medians of 25; FFTW's 3-D plan -> planes), 128^3 / 256^3: forward out of place 17.4 ->
// 14.7 / 176.0 -> 158.5 ms, in place 15.4 -> 12.8 / 170.7 -> 148.6; backward with the input kept
// 27.4 -> 23.8 / 253.5 -> 216.4 (against the previous split: c2c over axes 0-1 from the input, then
// c2r along axis 2), in place 19.0 -> 17.4 / 246.4 -> 210.9. With threads too: each thread takes
// its share of the planes one by one and of axis 0's lines where the planning's timing finds that
// faster than FFTW's threads (src/backend/fftw_batch.cpp). In the bench at 2 threads, in place,
// against FFTW's threaded 3-D plan in the same iterations (volfft / FFTW, forward + backward; the
// 3-D plan -> split, two jobs): r2c 128^3 1.06 -> 0.85-0.93, 256^3 1.01 -> 0.81-0.83; c2c 128^3
// 1.03 -> 0.96-1.00, 256^3 1.08 -> 0.93-1.00. Not measured beyond 2 threads (each batch's own
// choice is timed at planning), nor with ducc0, which keeps the 3-D transform. A padded plan or one
// with trailing axes keeps its own ops. On a Zen 5 VM (2026-12-07, 32 MiB shared L3) the backward
// that keeps its input ran faster the other way at 256^3: a copy of the input into the plan's
// array, then FFTW's 3-D c2r from there (it may destroy that copy), 61-65 ms a call in the bench
// against the split's 68-75; at 128^3 the split stayed ahead (6.2-6.5 against 6.6-7.6). So where
// the effort measures, that backward is timed both ways (plane_split_timing), where it does not
// run folded in the caller's two arrays (core/folded_backward.hpp: a spectrum over a third of the
// cache), which is faster than either (15-25% at powers of two) and needs no buffer of the
// spectrum.
//
// The c2c of a whole 3-D array runs the same two batches the other way round: axis 0 first
// (from the input into the output, or in place), where the FFTW backend runs it as columns
// through a buffer of its own when that is faster (src/backend/fftw_columns.hpp), then the planes
// in place, one at a time. FFTW's 3-D c2c plan makes the same two passes, but its measurement
// picks the plan for axis 0 from runs in cache and takes a slow one in about half the plannings
// (that is the 26.0 against 32.5 ms of docs/performance.md), and out of place it runs the planes
// from the input into the output, where a 256^2 plane (1 MiB) and its destination no longer fit a
// core's cache. Measured (`volfft-fftw-passes one-rank N`: FFTW alone, one process, cache flushed
// between calls, medians of 25; forward, FFTW's 3-D plan out of place / in place -> axis 0 as
// columns, then planes): 128^3 48.0 / 45.1 -> 42.1 ms, 256^3 432.9 / 402.6 -> 350.4. Where the
// arrays stay in the cache, FFTW's 3-D plan is the faster: c2c float 128^3 (16 MiB an array) took
// 1.14-1.18x FFTW's in-place 3-D plan split, 1.10x whole (FFTW's out-of-place 3-D plan), while c2c
// double 128^3 (32 MiB, this VM's last-level cache 35.8 MiB) ran 1.23 -> 1.03x FFTW-MPI's fastest
// mode split. So a c2c split where one side's array (all fields) was more than half the
// last-level cache (a quarter since 2026-12-08, below). Below that the 3-D plan is the faster when
// FFTW's measurement draws well, but it does not always: c2c float 128^3 at one rank
// (`volfft-bench --compare fftw-mpi,fftw-serial`, 2026-11-29), in one of 26 plannings the forward
// ran 31.6 ms against 22-26 ms for every FFTW plan measured in the same job, its backward at their
// speed. So where the effort measures, the planning times the 3-D plan against the split
// (plane_split_timing; plan::Program::whole_stage_ops says how). Above half the cache the split is not always the
// faster either: on a Zen 5 VM (2026-12-07, 32 MiB shared L3) FFTW's out-of-place 3-D plan ran c2c
// double 256^3 in 117-124 ms a direction against the split's 125-136, where the Intel VM above
// read 432.9 against 350.4; so up to 8 times the cache both are measured and timed too.
//
// Since 2026-12-08 the columns run axis 0 in rows (src/backend/fftw_columns.hpp: 1.2-1.7x faster
// than before), and the split overtook the 3-D plan at half the cache. Measured on the Zen
// 3 VM (32 MiB L3): c2c 128^3 at one rank, volfft / FFTW-MPI's fastest mode in the same job,
// forward + backward, unscaled, the 3-D plan forced (VOLFFT_TEST_TIMED_SPLIT=0) -> the split forced
// (=1), three pairs of jobs: single precision (16 MiB, half the cache) 1.23 -> 0.92, 1.29 -> 1.09,
// 1.12 -> 1.01; double (32 MiB) 1.11 -> 0.93, 1.07 -> 0.91, 1.06 -> 0.95. So the rule splits above
// a quarter of the cache (kSplitCaches) and times the two up to 8 caches, where the 3-D plan is
// kept only where it is faster by more than the timing's noise (plan::Program::whole_stage_ops).
// At c2c 64^3 (2-4 MiB) neither way was ahead in four pairs of jobs, and the 3-D plan is probed.
constexpr double kSplitCaches = 0.25;

bool runs_by_planes(const core::Blueprint& bp, const Options& options, const core::Stage& st) {
  if (!splits_into_planes(bp, options, st)) return false;
  return st.ops[0].real || caches_of_array(bp, st) > kSplitCaches;
}

SplitTiming plane_split_timing(const core::Blueprint& bp, const Options& options, std::size_t s, bool backward) {
  const core::Stage& st = bp.stages[s];
  if (options.effort == Effort::estimate || !splits_into_planes(bp, options, st)) return SplitTiming::by_rule;
  const double caches = caches_of_array(bp, st);
  if (st.ops[0].real) {
    // Only the out-of-place backward that keeps its input is timed: its 3-D c2r runs on a copy of
    // the input in the plan's array (make_stage_ops). The forward's planes beat FFTW's 3-D r2c on
    // both machines measured, in place and out (the comment above runs_by_planes; Zen 5, 128^3 /
    // 256^3: 5.4 / 56.9 against 6.7 / 66.1 ms out of place), and in place the two backwards ran
    // alike (5.0 / 59.2 against 5.3 / 58.8); with Options::destroy_input the 3-D c2r reads the
    // input itself by rule.
    // A backward that runs folded (core/folded_backward.hpp) is neither.
    if (!backward || bp.in_place || options.destroy_input || bp.folded_backward) return SplitTiming::by_rule;
    return caches <= 8.0 ? SplitTiming::measured_both : SplitTiming::by_rule;
  }
  if (caches <= kSplitCaches) return SplitTiming::probe;  // the rule's 3-D plan
  return caches <= 8.0 ? SplitTiming::measured_both : SplitTiming::by_rule;
}

}  // namespace volfft::plan
