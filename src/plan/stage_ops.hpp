// The FFT batches of one stage, planned once for a part of the stage's array (the whole array
// for blocking engines, one chunk of planes for the pipelined engine).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "backend/fft_batch.hpp"
#include "core/blueprint.hpp"
#include "volfft/options.hpp"

namespace volfft::plan {

/// One planned batch and where it reads and writes.
struct OpRun {
  std::unique_ptr<backend::FftBatch> batch;
  bool from_input = false;  ///< reads the user's input (first forward op, first backward op)
  bool to_output = false;   ///< writes the user's (real) output: the c2r op
  std::ptrdiff_t in_offset = 0, out_offset = 0;  ///< bytes from the base pointers

  /// `array`: the stage's complex array; `input`/`output`: the user's arrays.
  void run(const void* input, void* array, void* output) const {
    const void* in = static_cast<const char*>(from_input ? input : array) + in_offset;
    void* base = to_output ? output : array;
    batch->execute(in, static_cast<char*>(base) + out_offset);
  }
};

/// Forward: stage s's ops in order, the first op of stage 0 reading the input. Backward: the
/// ops reversed as inverse transforms, complex ones first (the first backward stage reading
/// the input), the c2r op last writing the output. `part` is a sub-box of the stage's box that
/// is whole along every transformed axis. `plan_in`/`plan_out` are scratch arrays of the
/// largest array size for FFTW to plan on. `array_is_user`: the stage's array is the user's
/// output (so an unaligned fallback plan is made too).
std::vector<OpRun> make_stage_ops(const core::Blueprint& bp, const Options& options, std::size_t s,
                                  bool backward, const Box& part, void* plan_in, void* plan_out,
                                  bool array_is_user);

/// `box` cut to planes [box.lo[axis] + k*planes, ...) along `axis` (empty past the end).
Box chunk_of(const Box& box, int axis, core::Index k, core::Index planes);

}  // namespace volfft::plan
