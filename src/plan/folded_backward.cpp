#include "plan/folded_backward.hpp"

#include <algorithm>
#include <complex>
#include <cstring>

#if defined(VOLFFT_HAVE_OPENMP)
#include <omp.h>
#endif

namespace volfft::plan {

using core::Index;

FoldedBackward::FoldedBackward(const core::Blueprint& bp, const Options& options, void* plan_in, void* plan_out)
    : g_(core::folded_geometry(bp)), precision_(bp.precision), threads_(std::max(options.threads, 1)) {
#if !defined(VOLFFT_HAVE_OPENMP)
  threads_ = 1;  // without OpenMP every batch runs on the calling thread
#endif
  // Each thread runs whole batches of its own: one thread each.
  Options one = options;
  one.threads = 1;
  backend::BatchGeometry lines;
  lines.extent = {1, g_.block, g_.n0};
  lines.axes = {2};
  lines.in_strides = lines.out_strides = {0, g_.line_stride, 1};
  lines.transform = backend::Transform::c2c_backward;
  lines.in_place = true;
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

template <class Body>
void FoldedBackward::each(Index count, const Body& body) const {
#if defined(VOLFFT_HAVE_OPENMP)
  // Not a parallel region for one thread: libgomp allocates a team even for an untaken `if`
  // (tests/mpi/test_no_allocation.cpp).
  if (threads_ > 1) {
#pragma omp parallel for schedule(static) num_threads(threads_)
    for (Index k = 0; k < count; ++k) body(k, omp_get_thread_num());
    return;
  }
#endif
  for (Index k = 0; k < count; ++k) body(k, 0);
}

template <class Real>
void FoldedBackward::run_as(const void* input, void* work, void* output) const {
  using Value = std::complex<Real>;
  const core::FoldedGeometry& g = g_;
  const Value* spectrum = static_cast<const Value*>(input);
  Real* real = static_cast<Real*>(output);
  Value* aside = static_cast<Value*>(work);
  const Index plane = g.n1 * g.h, real_plane = g.n1 * g.n2;
  // Thread t's line buffer; its scratch plane follows it.
  auto slot = [&](int t) { return aside + g.aside + t * g.slot; };
  // Row (i, j)'s first w values, folded into its real row (2w <= n2 reals): complex values at
  // the alignment of a real, which is a complex value's.
  auto fold = [&](Index i, Index j) { return reinterpret_cast<Value*>(real + (i * g.n1 + j) * g.n2); };
  // Axis 0: block b of the n1 * h lines (line j * h + k; side by side in the input) through the
  // buffer, then each line's values to their rows' folds, or aside for the last one of a row.
  each((g.lines + g.block - 1) / g.block, [&](Index b, int t) {
    Value* buffer = slot(t);
    const Index first = b * g.block, count = std::min(g.block, g.lines - first);
    for (Index r = 0; r < g.n0; ++r) {
      const Value* from = spectrum + r * plane + first;
      for (Index q = 0; q < count; ++q) buffer[q * g.line_stride + r] = from[q];
    }
    lines_[static_cast<std::size_t>(t)]->execute(buffer, buffer);  // a short last block: the rest unread
    for (Index q = 0; q < count;) {
      const Index j = (first + q) / g.h, k = (first + q) % g.h;
      if (k == g.w) {
        for (Index r = 0; r < g.n0; ++r) aside[r * g.n1 + j] = buffer[q * g.line_stride + r];
        ++q;
        continue;
      }
      const Index run = std::min(count - q, g.w - k);  // lines of row j, folded side by side
      for (Index r = 0; r < g.n0; ++r) {
        Value* to = fold(r, j) + k;
        for (Index x = 0; x < run; ++x) to[x] = buffer[(q + x) * g.line_stride + r];
      }
      q += run;
    }
  });
  // The planes: plane i's rows and values aside into the scratch plane (FFTW's rows of h), then
  // its c2r into real plane i, which held nothing but plane i's folds.
  each(g.n0, [&](Index i, int t) {
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
