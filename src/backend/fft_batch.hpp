// Batched 1-D / multi-dimensional FFTs on strided 3-D arrays: the backend interface. Backends:
// FFTW (fftw_batch.cpp, the one file that plans with it; fftw_kinds.hpp maps the r2r kinds) and, when built with it, ducc0
// (ducc_batch.cpp, compiled once per precision, the one file that includes ducc0's headers).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "volfft/options.hpp"

namespace volfft::backend {

using Index = std::int64_t;

/// r2r: real-to-real transforms (kinds per axis) of real data (BatchGeometry::real_values) or of
/// the real and imaginary parts of complex data.
enum class Transform { c2c_forward, c2c_backward, r2c, c2r, r2r };

/// What to transform: a 3-D array of `extent` (complex extents; on the r2c axis 2 the real
/// length is `real_length`), along `axes`, reading and writing with per-axis element strides.
struct BatchGeometry {
  std::array<Index, 3> extent{1, 1, 1};
  Index real_length = 0;
  std::vector<int> axes;
  std::array<Index, 3> in_strides{0, 0, 0}, out_strides{0, 0, 0};
  Transform transform = Transform::c2c_forward;
  std::vector<AxisKind> r2r_kinds;  ///< r2r: the kind along each of `axes`, in that order
  /// r2r: the arrays hold reals (an r2r plan), and extents and strides count reals; otherwise
  /// they hold complex values, whose two parts are transformed alike.
  bool real_values = false;
  bool in_place = false;
  /// The arrays are a small buffer that stays in cache (the folded backward's block of lines,
  /// plan/folded_backward.cpp): FFTW's plan as it is, never through a buffer of the batch's own.
  bool in_cache = false;
  /// Out of place, the batch may overwrite its input (FFTW_DESTROY_INPUT: FFTW may then run its
  /// passes in the input and only the last into the output, Options::destroy_input). ducc0's
  /// batches keep their input but for the multi-dimensional c2r, which cannot.
  bool destroys_input = false;
  /// Fields transformed in the one batch (an interleaved batch's steps on the user's arrays,
  /// plan/stage_ops.cpp): field f of the input starts f * field_in_stride elements after field
  /// 0, of the output f * field_out_stride; 1 = the array alone.
  Index fields = 1, field_in_stride = 0, field_out_stride = 0;
  /// More dimensions of the batch beyond the three (instead of `fields`): an N-D plan's trailing
  /// axes fused into its first forward and last backward batch. `transformed` ones are transformed
  /// with `axes` (an r2r batch: by `kind`), the others are loops; element strides.
  struct Extra {
    Index n = 1, in_stride = 0, out_stride = 0;
    bool transformed = false;
    AxisKind kind = AxisKind::dft;
  };
  std::vector<Extra> extra;
};

/// One planned batch. execute() may be given arrays other than those used for planning; when
/// their alignment differs from the planning arrays' a fallback plan made for unaligned data runs.
class FftBatch {
 public:
  virtual ~FftBatch() = default;
  virtual void execute(const void* in, void* out) const = 0;
  /// Bytes of buffer the batch holds besides its backend's plans (the FFTW backend's columns,
  /// fftw_columns.hpp); 0 for most.
  virtual std::size_t buffer_bytes() const { return 0; }
  /// How the batch runs, for tests and diagnostics: the FFTW backend says "fftw" (its plan, as
  /// FFTW runs it, transform by transform or split over threads), "columns" (fftw_columns.hpp) or
  /// "copied" (blocks copied from the input into the output, transformed there in place); other
  /// backends "".
  virtual const char* way() const { return ""; }
  /// From now on, multiply everything the batch writes by `factor`, where it can at no extra
  /// pass over the data (the FFTW backend's columns, as they copy rows out of their buffer);
  /// returns whether it will. A plan's FFT steps are linear, so one batch of a chain may carry a
  /// plan's scale for the whole chain (plan::Program). Called while planning, not during execute().
  virtual bool scale_output(double factor) {
    (void)factor;
    return false;
  }
};

/// Plan a batch with the backend options.backend names (fftw or ducc0; Backend::automatic
/// must have been decided by choose_backend first). The plan calls only this.
std::unique_ptr<FftBatch> make_batch(const Options& options, Precision precision,
                                     const BatchGeometry& geometry, void* plan_in, void* plan_out,
                                     bool unaligned_fallback);

/// Why backend `b` cannot run on this rank ("" where it can): not part of the build, or (ducc0)
/// compiled for instruction sets this CPU lacks (ducc_target.hpp). Rank-local: callers agree.
std::string backend_problem(Backend b);

/// Backend::automatic, decided once per plan: `seconds_with(b)` times the plan's first stage
/// planned with backend b on this rank; each time is reduced to the maximum over `comm`'s
/// ranks before they are compared, so every rank chooses alike. Collective. FFTW where ducc0 is
/// not part of the build or cannot run on some rank (backend_problem).
Backend choose_backend(MPI_Comm comm, const std::function<double(Backend)>& seconds_with);

/// Seconds one run of `body` takes (steady clock).
template <class Body>
double seconds_of(Body&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The shortest of `runs` timed runs of `body` (seconds), after `warmups` untimed ones: how
/// planning times one candidate on its arrays (a backend, choose_backend).
template <class Body>
double best_seconds(int warmups, int runs, Body&& body) {
  for (int r = 0; r < warmups; ++r) body();
  double best = 1e300;
  for (int r = 0; r < runs; ++r) best = std::min(best, seconds_of(body));
  return best;
}

/// The shortest of `runs` timed runs of each of two candidates (seconds, steady clock), after
/// `warmups` untimed runs of each: how a batch chooses between two ways to run (FFTW's plan or
/// the columns, FFTW's threads or a split). The runs alternate, first-second, then
/// second-first, and so on: a shared machine's pace moves (by up to 1.5x between minutes and
/// within jobs on the project's 2-core VM, docs/performance.md), and two blocks of runs one after
/// the other would hand a change of pace to one candidate alone, and the choice with it.
/// `before`, when given, runs untimed before every run of either (a plan's timing writes the input
/// there, as a transform's input is written just before it in use: plan::Program).
template <class First, class Second, class Before>
std::pair<double, double> best_seconds_alternating(int warmups, int runs, First&& first, Second&& second,
                                                   Before&& before) {
  auto time = [&](auto& body) {
    before();
    return seconds_of(body);
  };
  for (int r = 0; r < warmups; ++r) before(), first(), before(), second();
  double best_first = 1e300, best_second = 1e300;
  for (int r = 0; r < runs; ++r) {
    if (r % 2 == 0) {
      best_first = std::min(best_first, time(first));
      best_second = std::min(best_second, time(second));
    } else {
      best_second = std::min(best_second, time(second));
      best_first = std::min(best_first, time(first));
    }
  }
  return {best_first, best_second};
}

template <class First, class Second>
std::pair<double, double> best_seconds_alternating(int warmups, int runs, First&& first, Second&& second) {
  return best_seconds_alternating(warmups, runs, first, second, [] {});
}

/// Plan a batch with FFTW, its planner using `threads` threads. `plan_in`/`plan_out` are arrays
/// of the right size used (and overwritten) while planning; `unaligned_fallback` adds the
/// second plan for user arrays.
std::unique_ptr<FftBatch> make_fftw_batch(Precision precision, const BatchGeometry& geometry,
                                          Effort effort, int threads, void* plan_in,
                                          void* plan_out, bool unaligned_fallback);

/// Plan a batch with ducc0 (only in builds with VOLFFT_HAVE_DUCC0; ducc0 needs no planning
/// arrays and no alignment).
std::unique_ptr<FftBatch> make_ducc_batch(Precision precision, const BatchGeometry& geometry,
                                          int threads);

/// "FFTW 3.3.10"
const char* fftw_version();

}  // namespace volfft::backend
