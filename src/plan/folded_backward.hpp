// The folded backward of a one-rank r2c plan that keeps its input (core/folded_backward.hpp says
// what it computes where, and why): its FFT batches, planned once, and the run.
#pragma once

#include <memory>
#include <vector>

#include "backend/fft_batch.hpp"
#include "core/folded_backward.hpp"

namespace volfft::plan {

class FoldedBackward {
 public:
  /// Plans the batches of one thread's share on the planning arrays (each at least the plan's
  /// buffer, which holds a line buffer; core::FoldedGeometry), one set for each of
  /// Options::threads.
  FoldedBackward(const core::Blueprint& bp, const Options& options, void* plan_in, void* plan_out);

  /// One field: `input` the spectrum (n0 x n1 x h complex values in C order), read only;
  /// `work` the plan's buffer (FoldedGeometry::workspace(threads) complex values, 64-byte
  /// aligned); `output` the real array (n0 x n1 x n2 in C order), which must not overlap `input`.
  void run(const void* input, void* work, void* output) const;

 private:
  template <class Real>
  void run_as(const void* input, void* work, void* output) const;
  core::FoldedGeometry g_;
  Precision precision_;
  int threads_ = 1;
  std::vector<std::unique_ptr<backend::FftBatch>> lines_;   // a block of lines along axis 0, in place
  std::vector<std::unique_ptr<backend::FftBatch>> planes_;  // one plane's c2r, scratch -> output
};

}  // namespace volfft::plan
