// The work of one stage, planned once for a part of the stage's array (the whole array for
// engines that do not overlap, one chunk (exchange::Chunking) for those that do): FFT batches and, for padded
// plans, the truncation of each transformed axis (forward) or its zero padding (backward).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "backend/fft_batch.hpp"
#include "core/blueprint.hpp"
#include "plan/plane_split.hpp"
#include "volfft/options.hpp"

namespace volfft::plan {

/// One planned step and where it reads and writes.
struct OpRun {
  std::unique_ptr<backend::FftBatch> batch;
  /// A data-movement step instead of a batch: (input, array, output).
  std::function<void(const void*, void*, void*)> action;
  bool from_input = false;  ///< reads the user's input (first forward op, first backward op)
  bool all_fields = false;  ///< the batch covers every field (StageOps::run calls it once)
  bool fuses_trailing = false;  ///< the batch transforms an N-D plan's trailing axes too
  bool to_output = false;   ///< writes the user's output (c2r, or a padded plan's truncation)
  std::ptrdiff_t in_offset = 0, out_offset = 0;  ///< bytes from the base pointers

  /// `array`: the stage's complex array; `input`/`output`: the user's arrays.
  void run(const void* input, void* array, void* output) const {
    if (action) {
      action(input, array, output);
      return;
    }
    const void* in = static_cast<const char*>(from_input ? input : array) + in_offset;
    void* base = to_output ? output : array;
    batch->execute(in, static_cast<char*>(base) + out_offset);
  }
};

/// A stage's steps for every field of a batch (Options::batch): planned for one field and run
/// field by field, each field's FFTs and copies while its data is in cache (the whole batch
/// through one step at a time ran 1.2-1.7x slower than k one-field calls at one rank); the
/// exchanges carry every field at once. Field f of the input, the stage's array and the output
/// starts f times the stride in bytes after field 0. Except the FFTs that read or write the
/// user's interleaved fields (BatchLayout::inner): field by field they would stride over the
/// whole array k times, so each is one batch over every field (OpRun::all_fields), run once in
/// its place in the order of the steps (the fields are independent).
struct StageOps {
  std::vector<OpRun> ops;
  core::Index fields = 1;
  std::ptrdiff_t input_field_bytes = 0, array_field_bytes = 0, output_field_bytes = 0;

  bool fuses_trailing() const {
    for (const OpRun& op : ops)
      if (op.fuses_trailing) return true;
    return false;
  }

  void run(const void* input, void* array, void* output) const {
    std::size_t first = 0;
    while (first < ops.size()) {
      if (ops[first].all_fields) {
        ops[first++].run(input, array, output);
        continue;
      }
      std::size_t end = first;  // the steps up to the next all-fields one run field by field
      while (end < ops.size() && !ops[end].all_fields) ++end;
      for (core::Index f = 0; f < fields; ++f) {
        const void* in = input ? static_cast<const char*>(input) + f * input_field_bytes : nullptr;
        void* arr = array ? static_cast<char*>(array) + f * array_field_bytes : nullptr;
        void* out = output ? static_cast<char*>(output) + f * output_field_bytes : nullptr;
        for (std::size_t k = first; k < end; ++k) ops[k].run(in, arr, out);
      }
      first = end;
    }
  }
};

/// Forward: stage s's ops in order, the first op of stage 0 reading the input; a padded plan's
/// last stage ends by truncating into the output. Backward: the ops reversed as inverse
/// transforms (a padded plan's first backward stage starts by padding the input into the
/// array), the c2r op last, writing the output. `part` is a sub-box of the stage's storage
/// (box_in), whole along every transformed axis. `plan_in`/`plan_out` are scratch arrays of the
/// largest array size for FFTW to plan on. `array_is_user`: the stage's array is the user's
/// output (so an unaligned fallback plan is made too). `array_place`, when given: the part's
/// values go to (and are read back from) that box's place in the stage's array instead of the
/// part's own, a box of the same extents but along one untransformed axis, where it may hold
/// more planes (exchange::Chunking::source_in_first); the user's arrays are read and written at
/// the part's own place.
/// `split`: how a one-rank 3-D stage runs (plane_split.hpp); by_rule unless the caller timed both.

StageOps make_stage_ops(const core::Blueprint& bp, const Options& options, std::size_t s, bool backward,
                        const Box& part, void* plan_in, void* plan_out, bool array_is_user,
                        const Box* array_place = nullptr, PlaneSplit split = PlaneSplit::by_rule);

}  // namespace volfft::plan
