// The trailing axes of an N-D plan (core/trailing_axes.hpp), transformed by each rank alone on
// the elements it holds, where the plan's FFT batches do not take them (plan/stage_ops.hpp):
// after the leading plan's forward, and after its backward (the axes are separable, so their
// transforms commute with the leading ones), in place on the output.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/fft_batch.hpp"
#include "core/trailing_axes.hpp"
#include "volfft/options.hpp"

namespace volfft::plan {

class TrailingTransform {
 public:
  /// Plans the transforms of `trailing`'s axes (backward: their inverse kinds) for `points`
  /// leading elements, each of them trailing.values * trailing.fields values of the plan's
  /// element (a real for Kind::r2r, else a complex) in C order, the fields fastest, one element
  /// after the other: the leading plan's output array, in any of its memory orders, since the
  /// trailing values ride fastest in every one. `plan_array` holds that many values and is
  /// overwritten by planning. One batch a transformed axis, with the plan's backend and threads.
  TrailingTransform(const core::TrailingAxes& trailing, Kind kind, Precision precision, const Options& options,
                    std::int64_t points, bool forward, void* plan_array);
  /// Transforms `data` (laid out as described above) in place.
  void run(void* data) const;

 private:
  std::vector<std::unique_ptr<backend::FftBatch>> batches_;
};

}  // namespace volfft::plan
