#include "plan/folded_backward.hpp"

#include <algorithm>
#include <complex>
#include <cstring>

#include "core/line_buffer.hpp"
#include "kernels/copy_box.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/prefetch.hpp"

namespace volfft::plan {

using core::Index;

FoldedBackward::FoldedBackward(const core::Blueprint& bp, const Options& options, void* plan_in, void* plan_out)
    : g_(core::folded_geometry(bp)), precision_(bp.precision), threads_(kernels::team_size(options.threads)) {
  // FftBatch promises no concurrent execute of one batch: each thread runs batches of its own,
  // planned for one thread.
  Options one = options;
  one.threads = 1;
  // The block's lines side by side in the buffer's rows (point r of line x at r * pitch + x).
  backend::BatchGeometry lines;
  lines.extent = {1, g_.n0, g_.block};
  lines.axes = {1};
  lines.in_strides = lines.out_strides = {0, g_.pitch, 1};
  lines.transform = backend::Transform::c2c_backward;
  lines.in_place = true;
  lines.in_cache = true;
  backend::BatchGeometry plane;
  plane.extent = {1, g_.n1, g_.h};
  plane.real_length = g_.n2;
  plane.axes = {1, 2};
  plane.in_strides = {0, g_.h, 1};
  plane.out_strides = {0, g_.n2, 1};
  plane.transform = backend::Transform::c2r;
  plane.destroys_input = true;  // the scratch plane
  for (int t = 0; t < threads_; ++t) {
    // The line buffers are 64-byte aligned in the workspace, as the planning array; the planes of
    // the output lie at whatever alignment the caller's array and the plane's size give them.
    lines_.push_back(backend::make_batch(one, bp.precision, lines, plan_in, plan_in, false));
    planes_.push_back(backend::make_batch(one, bp.precision, plane, plan_in, plan_out, true));
  }
}

template <class Real>
void FoldedBackward::run_as(const void* input, void* work, void* output) const {
  using Value = std::complex<Real>;
  const core::FoldedGeometry& g = g_;
  const Value* spectrum = static_cast<const Value*>(input);
  Real* real = static_cast<Real*>(output);
  Value* aside = static_cast<Value*>(work);
  const Index plane = g.n1 * g.h, real_plane = g.n1 * g.n2, pitch = g.pitch;
  // Thread t's line buffer; its scratch plane follows it.
  auto slot = [&](int t) { return aside + g.aside + t * g.slot; };
  // Row (i, j)'s first w values, folded into its real row (2w <= n2 reals): complex values at
  // the alignment of a real, which is a complex value's.
  auto fold = [&](Index i, Index j) { return reinterpret_cast<Value*>(real + (i * g.n1 + j) * g.n2); };
  // Axis 0, block by block through the buffer: blocks of folded lines (`rows` rows from row j0,
  // `cols` lines from line k0 of each; buffer line jj * cols + x, point r of it in the buffer's
  // row r), then blocks of lines aside.
  const Index folded_blocks = g.folded_blocks();
  // Lines [from, to) of the buffer that a short block leaves unused: zeros, so that the FFTs of
  // every line read no stale or never-written values (the workspace comes uninitialised).
  auto clear = [&](Value* buffer, Index from, Index to) {
    if (from < to)
      for (Index r = 0; r < g.n0; ++r) std::fill(buffer + r * pitch + from, buffer + r * pitch + to, Value(0));
  };
  kernels::parallel_for(folded_blocks + g.aside_blocks(), threads_, [&](Index b, int t) {
    Value* buffer = slot(t);
    if (b < folded_blocks) {
      const Index j0 = b / g.chunks * g.rows, k0 = b % g.chunks * g.cols;
      const Index rows = std::min(g.rows, g.n1 - j0), cols = std::min(g.cols, g.w - k0);
      const std::size_t span = sizeof(Value) * static_cast<std::size_t>((rows - 1) * g.h + cols);
      for (Index r = 0; r < g.n0; ++r) {
        if (r + core::kPrefetchRows < g.n0)
          kernels::prefetch(spectrum + (r + core::kPrefetchRows) * plane + j0 * g.h + k0, span);
        for (Index jj = 0; jj < rows; ++jj)
          std::memcpy(static_cast<void*>(buffer + r * pitch + jj * g.cols), spectrum + r * plane + (j0 + jj) * g.h + k0,
                      sizeof(Value) * static_cast<std::size_t>(cols));
      }
      for (Index jj = 0; jj < rows && cols < g.cols; ++jj) clear(buffer, jj * g.cols + cols, (jj + 1) * g.cols);
      clear(buffer, rows * g.cols, g.block);
      lines_[static_cast<std::size_t>(t)]->execute(buffer, buffer);
      // The output is not read again before the planes' pass, by when a large one has left the
      // cache: its whole lines streamed (r2c double 256^3, the axis-0 pass: 37 ms with ordinary
      // stores and no prefetch, 31 with either, 24 with both; a scratch program on the bench's
      // loop, not in the repository, with the buffer's lines contiguous as before 2026-12-08).
      for (Index r = 0; r < g.n0; ++r)
        for (Index jj = 0; jj < rows; ++jj)
          kernels::stream_row(buffer + r * pitch + jj * g.cols, 1, fold(r, j0 + jj) + k0, cols);
      kernels::stream_fence();  // this thread's streamed lines reach memory before the planes read them
      return;
    }
    const Index j0 = (b - folded_blocks) * g.block, count = std::min(g.block, g.n1 - j0);
    for (Index r = 0; r < g.n0; ++r) {
      if (r + core::kPrefetchRows < g.n0)
        for (Index x = 0; x < count; ++x)
          kernels::prefetch(spectrum + (r + core::kPrefetchRows) * plane + (j0 + x) * g.h + g.w, 1);
      const Value* from = spectrum + r * plane + j0 * g.h + g.w;
      for (Index x = 0; x < count; ++x) buffer[r * pitch + x] = from[x * g.h];
    }
    clear(buffer, count, g.block);
    lines_[static_cast<std::size_t>(t)]->execute(buffer, buffer);
    for (Index r = 0; r < g.n0; ++r)
      std::memcpy(static_cast<void*>(aside + r * g.n1 + j0), buffer + r * pitch,
                  sizeof(Value) * static_cast<std::size_t>(count));
  });
  // The planes: plane i's rows and values aside into the scratch plane (FFTW's rows of h), then
  // its c2r into real plane i, which held nothing but plane i's folds.
  kernels::parallel_for(g.n0, threads_, [&](Index i, int t) {
    Value* scratch = slot(t) + g.line_buffer();
    for (Index j = 0; j < g.n1; ++j) {
      std::memcpy(static_cast<void*>(scratch + j * g.h), fold(i, j), sizeof(Value) * static_cast<std::size_t>(g.w));
      scratch[j * g.h + g.w] = aside[i * g.n1 + j];
    }
    planes_[static_cast<std::size_t>(t)]->execute(scratch, real + i * real_plane);
  });
}

void FoldedBackward::run(const void* input, void* work, void* output) const {
  if (precision_ == Precision::float64)
    run_as<double>(input, work, output);
  else
    run_as<float>(input, work, output);
}

}  // namespace volfft::plan
