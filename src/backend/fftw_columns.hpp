// Columns: a c2c batch of 1-D FFTs along a strided axis over lines that lie side by side in
// memory (the FFTs along axis 0 of a C-order array, the points of a line one plane apart), run
// block by block through a small buffer: the rows of a block of B adjacent lines (point r of each
// of the B lines, contiguous in the array) are copied into the buffer one under another, FFTW
// transforms the B lines there along the buffer's rows (B transforms side by side, vectorized
// across the lines), and the rows are copied back in place or into the output. Both copies move
// whole runs of B values; the transform runs in cache. This is the order FFTW-MPI's transposed
// plans leave the data in for their last axis (the middle axis of each plane after the
// transpose), without the transpose: the block is that layout in small.
//
// Why not FFTW's own plan for the batch: FFTW_MEASURE times its candidates on arrays that, for
// the sizes that matter here, sit in the cache while it measures, and from one planning to the
// next it picks either a plan that buffers lines (dft-directbuf, dft-buffered) or one that runs
// every line alone straight on the strided data (dft-vrank>=1 of dft-direct), 1.5-2.3x slower
// when the data comes from memory, as it does inside a transform. Measured on the project's Intel
// VM with the columns' earlier line layout (`volfft-fftw-passes columns N`: FFTW 3.3.10, three
// plannings, one process, cache flushed between calls, medians of 25; ms, forward / backward):
// 128^3 in place FFTW measured 17.8 / 12.3-18.1, columns 12.3 / 12.2; out of place 14.3-14.5 /
// 32.5-32.6, columns 16.4 / 16.3; 256^3 (a slower hour) in place 182-281 / 146-214, columns 213 /
// 130; out of place 382-404 / 224-233, columns 216 / 164; FFTW's estimated plans 1.1-2.9x the
// columns. Here the plan FFTW measures is for B lines in a buffer that stays in cache, where its
// measurement is the truth, so it comes out the same each time. FftwBatch times these against
// FFTW's plan of the whole batch and keeps the faster (src/backend/fftw_batch.cpp).
//
// Why rows and not lines in the buffer (each line contiguous there, as in these columns and the
// folded backward's axis 0, core/folded_backward.hpp, until 2026-12-08): the copies into a
// line layout transpose value by value, and FFTW's transforms of contiguous lines vectorize within
// a line. Measured on the Zen 3 VM (2026-12-08, `volfft-fftw-passes columns N double|single`, which
// runs both; medians of 25, ms, lines -> rows; in place / out of place; forward, then backward):
//   128^3 double  18.3 -> 13.6 / 23.5 -> 16.3;  18.6 -> 12.3 / 20.2 -> 15.6
//   128^3 single  11.9 ->  7.0 / 13.6 ->  8.0;  12.1 ->  7.0 / 14.4 -> 10.0
//   256^3 double   139 ->  115 /  150 ->  116;   138 ->  123 /  193 ->  152
//   256^3 single    95 ->   89 /  111 ->   94;   104 ->   87 /  112 ->  103
// FFTW's best of three measured plans, the same way: 128^3 double 14.8 / 18.6; 13.1 / 25.7, single
// 8.7 / 12.9; 9.9 / 19.0; 256^3 double 128 / 169; 120 / 207 (the one case ahead of the rows, by
// 3%), single 92 / 141; 100 / 165. Blocks of 64 lines with rows a cache line longer than the lines
// (core/line_buffer.hpp) were the best or within noise of it in a scratch sweep of 16, 32 and 64
// lines with and without that cache line; 16 and 32 lines read up to 1.5x slower at 256^3.
//
// The copy into the buffer prefetches the run of the row kPrefetchRows ahead (core/line_buffer.hpp):
// a block reads a run from each of n rows a plane apart. `volfft-fftw-passes columns N` times
// both (2026-12-08, Zen 3 VM; ms, prefetched / not; in place, then out of place, forward and
// backward): 128^3 single 4.6 / 5.0, 4.8 / 6.4, 6.6 / 7.8, 6.8 / 7.4 in place and 6.8 / 6.8,
// 7.1 / 6.9, 9.4 / 10.8, 9.3 / 10.3 out of place (two runs); double 8.7 / 9.3, 10.8 / 11.1,
// 12.6 / 12.4, 11.7 / 12.0 and 15.9 / 15.5, 16.5 / 16.1, 14.4 / 14.3, 15.7 / 15.6; 256^3 single
// 55 / 55, 57 / 65 and 59 / 67, 91 / 97; double 88 / 109, 100 / 99 and 111 / 114, 138 / 141.
// Faster by up to 26% in place and 19% at 256^3, within 3% the other way out of place at 128^3.
#pragma once

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/line_buffer.hpp"
#include "kernels/copy_box.hpp"
#include "kernels/parallel_for.hpp"
#include "kernels/prefetch.hpp"

namespace volfft::backend {

using Index = std::int64_t;  // as fft_batch.hpp declares it; this header stands without MPI

/// Where a batch's 1-D FFTs and their lines lie, in elements: `n` points `in_stride` /
/// `out_stride` apart; `lines` lines side by side (consecutive elements on both sides); the
/// batch's other loops (`outer`) repeat that.
struct ColumnGeometry {
  Index n = 0;
  std::ptrdiff_t in_stride = 0, out_stride = 0;
  Index lines = 0;
  std::vector<fftw_iodim64> outer;
};

/// Whether a c2c batch of one transformed dimension (`dims`, FFTW's iodims in elements) over
/// `loops` runs as columns: its points are strided on both sides and its loops hold a run of at
/// least 16 adjacent lines (loops that continue one another are merged first), and a line's
/// next point lies beyond that run.
inline bool column_geometry(const std::vector<fftw_iodim64>& dims, std::vector<fftw_iodim64> loops,
                            ColumnGeometry& geometry) {
  if (dims.size() != 1 || dims[0].n < 2 || dims[0].is <= 1 || dims[0].os <= 1 || loops.empty()) return false;
  std::sort(loops.begin(), loops.end(), [](const fftw_iodim64& x, const fftw_iodim64& y) { return x.is > y.is; });
  // Merge a loop into the one inside it where it steps over exactly that loop's run.
  for (std::size_t k = loops.size() - 1; k > 0; --k) {
    fftw_iodim64& outer = loops[k - 1];
    const fftw_iodim64& inner = loops[k];
    if (outer.is == inner.n * inner.is && outer.os == inner.n * inner.os) {
      outer.n *= inner.n;
      outer.is = inner.is, outer.os = inner.os;
      loops.erase(loops.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  const fftw_iodim64& run = loops.back();
  if (run.is != 1 || run.os != 1 || run.n < 16) return false;
  if (dims[0].is < run.n || dims[0].os < run.n) return false;  // a line's points lie beyond the run
  geometry.n = dims[0].n;
  geometry.in_stride = dims[0].is, geometry.out_stride = dims[0].os;
  geometry.lines = run.n;
  geometry.outer.assign(loops.begin(), loops.end() - 1);
  return true;
}

/// `Api`: the FFTW API of one precision (fftw_api.hpp's DoubleApi / FloatApi). Plans one FFTW
/// plan (B contiguous transforms in place in the buffer) and a buffer of B lines for each of
/// `threads` threads; execute() shares the blocks among them.
template <class Api>
class FftwColumns {
 public:
  using Real = typename Api::real;
  using Value = std::complex<Real>;

  /// Whether a block of 8 lines of the geometry's length fits the buffer's 512 KiB a thread, rows'
  /// padding included (a double transform of up to 2730 points, single of 4096); longer ones are
  /// left to FFTW's plan.
  static bool takes(const ColumnGeometry& g) { return core::lines_per_row_block(g.n, Index(sizeof(Value))) > 0; }

  /// `prefetch_rows`: rows ahead of the one copied into the buffer whose run is prefetched (0:
  /// none; volfft-fftw-passes times both).
  FftwColumns(const ColumnGeometry& g, int sign, unsigned flags, int threads,
              Index prefetch_rows = core::kPrefetchRows)
      : g_(g), threads_(kernels::team_size(threads)), prefetch_rows_(prefetch_rows) {
    block_ = std::min(core::lines_per_row_block(g.n, Index(sizeof(Value))), g.lines);
    if (block_ < 1) throw std::logic_error("volfft: columns too long for their buffer (check takes())");
    pitch_ = core::row_pitch(block_, Index(sizeof(Value)));
    blocks_ = (g.lines + block_ - 1) / block_;
    outer_count_ = 1;
    for (const fftw_iodim64& d : g.outer) outer_count_ *= d.n;
    buffer_ = static_cast<Value*>(fftw_malloc(buffer_bytes()));
    if (!buffer_) throw std::bad_alloc();
    std::fill(buffer_, buffer_ + g.n * pitch_ * threads_, Value(0));
    // The block's lines side by side: point r of line j at r * pitch + j.
    const fftw_iodim64 dim{g.n, pitch_, pitch_}, line{block_, 1, 1};
    plan_ = Api::dft(1, &dim, 1, &line, buffer_, buffer_, sign, flags & ~unsigned(FFTW_DESTROY_INPUT));
    if (!plan_) {
      fftw_free(buffer_);
      throw std::runtime_error("volfft: FFTW could not plan a block of columns");
    }
  }
  ~FftwColumns() {
    Api::destroy(plan_);
    fftw_free(buffer_);
  }
  FftwColumns(const FftwColumns&) = delete;
  FftwColumns& operator=(const FftwColumns&) = delete;

  /// Multiply what execute() writes by `factor` (as the rows are copied out: no pass of its own).
  void set_scale(double factor) { scale_ = Real(factor); }

  /// The buffer this batch holds (bytes).
  std::size_t buffer_bytes() const { return sizeof(Value) * std::size_t(g_.n * pitch_ * threads_); }

  void execute(const void* in, void* out) const {
    const Value* source = static_cast<const Value*>(in);
    Value* target = static_cast<Value*>(out);
    kernels::parallel_for(outer_count_ * blocks_, threads_, [&](Index t, int thread) {
      run_task(source, target, t, buffer_ + std::ptrdiff_t(thread) * g_.n * pitch_);
    });
  }

 private:

  // Task t: block t % blocks_ of the lines, at element t / blocks_ of the outer loops.
  void run_task(const Value* in, Value* out, Index t, Value* buffer) const {
    std::ptrdiff_t in_at = 0, out_at = 0;
    Index o = t / blocks_;
    for (std::size_t d = g_.outer.size(); d-- > 0;) {
      const Index i = o % g_.outer[d].n;
      o /= g_.outer[d].n;
      in_at += i * g_.outer[d].is, out_at += i * g_.outer[d].os;
    }
    const Index first = (t % blocks_) * block_;
    run_block(in + in_at + first, out + out_at + first, std::min(block_, g_.lines - first), buffer);
  }

  // `count` adjacent lines from `in` through the buffer to `out` (which may be `in`), row by row.
  // A short last block zeroes the buffer's other lines: the plan transforms them too, nothing
  // reads them, and left as they were they would grow by up to n a call towards overflow.
  void run_block(const Value* in, Value* out, Index count, Value* buffer) const {
    const std::size_t bytes = std::size_t(count) * sizeof(Value);
    for (Index r = 0; r < g_.n; ++r) {
      if (prefetch_rows_ > 0 && r + prefetch_rows_ < g_.n)
        kernels::prefetch(in + (r + prefetch_rows_) * g_.in_stride, bytes);
      std::memcpy(buffer + r * pitch_, in + r * g_.in_stride, bytes);
      if (count < block_) std::fill(buffer + r * pitch_ + count, buffer + r * pitch_ + block_, Value(0));
    }
    Api::exec_dft(plan_, buffer, buffer);
    // Rows of `count` values out (a block under the copy kernel's 4 MiB: ordinary stores, the
    // output is read next), times the scale.
    kernels::copy_box(buffer, {0, pitch_, 1}, out, {0, Index(g_.out_stride), 1}, {1, g_.n, count}, scale_);
  }

  ColumnGeometry g_;
  int threads_;
  Index prefetch_rows_;
  Index pitch_ = 0, block_ = 0, blocks_ = 0, outer_count_ = 1;
  Real scale_ = 1;
  Value* buffer_ = nullptr;
  typename Api::plan plan_ = nullptr;
};

}  // namespace volfft::backend
