#include "plan/folded_backward.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

namespace {

// Rows of the input ahead of the one a block's gather copies whose values it prefetches: the
// block reads a run from each of n0 rows a plane apart, more streams than the hardware's
// prefetcher follows. 4-16 rows ahead timed alike (r2c double 256^3, a scratch program).
constexpr Index kPrefetchRows = 8;

inline void prefetch(const void* p, std::size_t bytes) {
#if defined(__SSE2__)
  const char* c = static_cast<const char*>(p);
  for (std::size_t b = 0; b < bytes; b += 64) _mm_prefetch(c + b, _MM_HINT_T0);
#else
  (void)p, (void)bytes;
#endif
}

// `count` values, from[x * stride] for x < count, to to[x]: the whole cache lines among them with
// streaming stores, the partial ones at either end ordinary (as kernels/copy_box.cpp's rows). The
// output is not read again before the planes' pass, by when a large one has left the cache, and
// an ordinary store first reads the line it writes (r2c double 256^3, the axis-0 pass: 37 ms with
// ordinary stores and no prefetch, 31 with either, 24 with both; a scratch program, the bench's
// loop). Returns whether it streamed (the caller fences).
template <class Value>
bool store_run(Value* to, const Value* from, Index stride, Index count) {
#if defined(__SSE2__)
  constexpr Index line = 64 / static_cast<Index>(sizeof(Value));
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(to);
  // Values at their own alignment (not a complex double 8 bytes off, in a row of odd length)
  // line up with cache lines.
  const Index head = address % sizeof(Value) != 0
                         ? count
                         : std::min(count, static_cast<Index>((64 - address % 64) % 64 / sizeof(Value)));
  const Index whole = (count - head) / line * line;
  if (whole > 0) {
    for (Index x = 0; x < head; ++x) to[x] = from[x * stride];
    for (Index x = head; x < head + whole; x += line)
      for (Index k = x; k < x + line; k += 16 / static_cast<Index>(sizeof(Value))) {
        if constexpr (sizeof(Value) == 16) {
          _mm_stream_pd(reinterpret_cast<double*>(to + k), _mm_loadu_pd(reinterpret_cast<const double*>(from + k * stride)));
        } else {
          static_assert(sizeof(Value) == 8, "complex float or double");
          __m128 v = _mm_setzero_ps();  // two values a store
          v = _mm_loadl_pi(v, reinterpret_cast<const __m64*>(from + k * stride));
          v = _mm_loadh_pi(v, reinterpret_cast<const __m64*>(from + (k + 1) * stride));
          _mm_stream_ps(reinterpret_cast<float*>(to + k), v);
        }
      }
    for (Index x = head + whole; x < count; ++x) to[x] = from[x * stride];
    return true;
  }
#endif
  for (Index x = 0; x < count; ++x) to[x] = from[x * stride];
  return false;
}

}  // namespace

template <class Real>
void FoldedBackward::run_as(const void* input, void* work, void* output) const {
  using Value = std::complex<Real>;
  const core::FoldedGeometry& g = g_;
  const Value* spectrum = static_cast<const Value*>(input);
  Real* real = static_cast<Real*>(output);
  Value* aside = static_cast<Value*>(work);
  const Index plane = g.n1 * g.h, real_plane = g.n1 * g.n2, ld = g.line_stride;
  // Thread t's line buffer; its scratch plane follows it.
  auto slot = [&](int t) { return aside + g.aside + t * g.slot; };
  // Row (i, j)'s first w values, folded into its real row (2w <= n2 reals): complex values at
  // the alignment of a real, which is a complex value's.
  auto fold = [&](Index i, Index j) { return reinterpret_cast<Value*>(real + (i * g.n1 + j) * g.n2); };
  // Axis 0, block by block through the buffer: blocks of folded lines (`rows` rows from row j0,
  // `cols` lines from line k0 of each; buffer line jj * cols + x), then blocks of lines aside.
  const Index folded_blocks = g.folded_blocks();
  // Lines [from, to) of the buffer that a short block leaves unused: zeros, so that the FFTs of
  // every line read no stale or never-written values (the workspace comes uninitialised).
  auto clear = [&](Value* buffer, Index from, Index to) {
    for (Index l = from; l < to; ++l) std::fill(buffer + l * ld, buffer + l * ld + g.n0, Value(0));
  };
  each(folded_blocks + g.aside_blocks(), [&](Index b, int t) {
    Value* buffer = slot(t);
    if (b < folded_blocks) {
      const Index j0 = b / g.chunks * g.rows, k0 = b % g.chunks * g.cols;
      const Index rows = std::min(g.rows, g.n1 - j0), cols = std::min(g.cols, g.w - k0);
      const std::size_t span = sizeof(Value) * static_cast<std::size_t>((rows - 1) * g.h + cols);
      for (Index r = 0; r < g.n0; ++r) {
        if (r + kPrefetchRows < g.n0) prefetch(spectrum + (r + kPrefetchRows) * plane + j0 * g.h + k0, span);
        for (Index jj = 0; jj < rows; ++jj) {
          const Value* from = spectrum + r * plane + (j0 + jj) * g.h + k0;
          Value* to = buffer + jj * g.cols * ld + r;
          for (Index x = 0; x < cols; ++x) to[x * ld] = from[x];
        }
      }
      for (Index jj = 0; jj < rows && cols < g.cols; ++jj) clear(buffer, jj * g.cols + cols, (jj + 1) * g.cols);
      clear(buffer, rows * g.cols, g.block);
      lines_[static_cast<std::size_t>(t)]->execute(buffer, buffer);
      bool streamed = false;
      for (Index r = 0; r < g.n0; ++r)
        for (Index jj = 0; jj < rows; ++jj)
          streamed |= store_run(fold(r, j0 + jj) + k0, buffer + jj * g.cols * ld + r, ld, cols);
#if defined(__SSE2__)
      if (streamed) _mm_sfence();  // this thread's streamed lines reach memory before the planes read them
#endif
      (void)streamed;
      return;
    }
    const Index j0 = (b - folded_blocks) * g.block, count = std::min(g.block, g.n1 - j0);
    for (Index r = 0; r < g.n0; ++r) {
      if (r + kPrefetchRows < g.n0)
        for (Index x = 0; x < count; ++x) prefetch(spectrum + (r + kPrefetchRows) * plane + (j0 + x) * g.h + g.w, 1);
      const Value* from = spectrum + r * plane + j0 * g.h + g.w;
      for (Index x = 0; x < count; ++x) buffer[x * ld + r] = from[x * g.h];
    }
    clear(buffer, count, g.block);
    lines_[static_cast<std::size_t>(t)]->execute(buffer, buffer);
    for (Index r = 0; r < g.n0; ++r)
      for (Index x = 0; x < count; ++x) aside[r * g.n1 + j0 + x] = buffer[x * ld + r];
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
