// Batched 1-D / multi-dimensional FFTs on strided 3-D arrays: the backend interface. The only
// backend so far is FFTW (fftw_batch.cpp, the one file that includes fftw3.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "volfft/options.hpp"

namespace volfft::backend {

using Index = std::int64_t;

enum class Transform { c2c_forward, c2c_backward, r2c, c2r };

/// What to transform: a 3-D array of `extent` (complex extents; on the r2c axis 2 the real
/// length is `real_length`), along `axes`, reading and writing with per-axis element strides.
struct BatchGeometry {
  std::array<Index, 3> extent{1, 1, 1};
  Index real_length = 0;
  std::vector<int> axes;
  std::array<Index, 3> in_strides{0, 0, 0}, out_strides{0, 0, 0};
  Transform transform = Transform::c2c_forward;
  bool in_place = false;
};

/// One planned batch. execute() may be given arrays other than those used for planning; when
/// their alignment differs from the planning arrays' a fallback plan made for unaligned data runs.
class FftBatch {
 public:
  virtual ~FftBatch() = default;
  virtual void execute(const void* in, void* out) const = 0;
};

/// Plan a batch with the backend the options select (backend/select.cpp). The executor calls
/// only this.
std::unique_ptr<FftBatch> make_batch(const Options& options, Precision precision,
                                     const BatchGeometry& geometry, void* plan_in, void* plan_out,
                                     bool unaligned_fallback);

/// Plan a batch with FFTW. `plan_in`/`plan_out` are arrays of the right size used (and
/// overwritten) while planning; `unaligned_fallback` adds the second plan for user arrays.
std::unique_ptr<FftBatch> make_fftw_batch(Precision precision, const BatchGeometry& geometry,
                                          Effort effort, void* plan_in, void* plan_out,
                                          bool unaligned_fallback);

/// "FFTW 3.3.10"
const char* fftw_version();

}  // namespace volfft::backend
