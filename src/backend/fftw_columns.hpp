// Columns: a c2c batch of 1-D FFTs along a strided axis over lines that lie side by side in
// memory (the FFTs along axis 0 of a C-order array, the points of a line one plane apart), run
// block by block through a small buffer: a block of B adjacent lines is copied into the buffer,
// each line contiguous there, FFTW transforms the B lines in the buffer, and the block is copied
// back in place or into the output.
//
// Why not FFTW's own plan for the batch: FFTW_MEASURE times its candidates on arrays that, for
// the sizes that matter here, sit in the cache while it measures, and from one planning to the
// next it picks either a plan that buffers lines (dft-directbuf, dft-buffered) or one that runs
// every line alone straight on the strided data (dft-vrank>=1 of dft-direct), 1.5-2.3x slower
// when the data comes from memory, as it does inside a transform. Measured on this project's
// 2-core VM (`volfft-fftw-passes columns N`: FFTW 3.3.10, three plannings, one process, cache
// flushed between calls, medians of 25; ms, forward / backward): 128^3 in place FFTW measured
// 17.8 / 12.3-18.1, columns 12.3 / 12.2; out of place 14.3-14.5 / 32.5-32.6, columns 16.4 /
// 16.3; 256^3 (a slower hour) in place 182-281 / 146-214, columns 213 / 130; out of place
// 382-404 / 224-233, columns 216 / 164; FFTW's estimated plans 1.1-2.9x the columns. Here the
// plan FFTW measures is for B lines in a buffer that stays in cache, where its measurement is the
// truth, so it comes out the same each time. FftwBatch times these against FFTW's plan of
// the whole batch and keeps the faster (src/backend/fftw_batch.cpp).
#pragma once

#include <fftw3.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/line_buffer.hpp"
#include "kernels/parallel_for.hpp"

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

  /// Whether 8 lines of the geometry's length fit the buffer's 512 KiB a thread (a double
  /// transform of up to 4094 points, single of 8190); longer ones are left to FFTW's plan.
  static bool takes(const ColumnGeometry& g) {
    return 8 * core::line_stride(g.n) * Index(sizeof(Value)) <= core::kLineBufferBytes;
  }

  FftwColumns(const ColumnGeometry& g, int sign, unsigned flags, int threads)
      : g_(g), threads_(kernels::team_size(threads)) {
    // Blocks of lines `ld` values apart in the buffer (core/line_buffer.hpp says how many and why;
    // takes() leaves lines longer than 8 of them fit to FFTW).
    ld_ = core::line_stride(g.n);
    block_ = std::min(core::lines_per_block(g.n, Index(sizeof(Value))), g.lines);
    blocks_ = (g.lines + block_ - 1) / block_;
    outer_count_ = 1;
    for (const fftw_iodim64& d : g.outer) outer_count_ *= d.n;
    buffer_ = static_cast<Value*>(fftw_malloc(sizeof(Value) * std::size_t(block_ * ld_ * threads_)));
    if (!buffer_) throw std::bad_alloc();
    std::fill(buffer_, buffer_ + block_ * ld_ * threads_, Value(0));
    const fftw_iodim64 dim{g.n, 1, 1}, line{block_, ld_, ld_};
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

  /// The buffer this batch holds (bytes).
  std::size_t buffer_bytes() const { return sizeof(Value) * std::size_t(block_ * ld_ * threads_); }

  void execute(const void* in, void* out) const {
    const Value* source = static_cast<const Value*>(in);
    Value* target = static_cast<Value*>(out);
    kernels::parallel_for(outer_count_ * blocks_, threads_, [&](Index t, int thread) {
      run_task(source, target, t, buffer_ + std::ptrdiff_t(thread) * block_ * ld_);
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

  // `count` adjacent lines from `in` through the buffer to `out` (which may be `in`). A short
  // last block leaves the buffer's other lines as they were: the plan transforms them too, and
  // nothing reads them.
  void run_block(const Value* in, Value* out, Index count, Value* buffer) const {
    for (Index r = 0; r < g_.n; ++r) {
      const Value* row = in + r * g_.in_stride;
      for (Index j = 0; j < count; ++j) buffer[j * ld_ + r] = row[j];
    }
    Api::exec_dft(plan_, buffer, buffer);
    for (Index r = 0; r < g_.n; ++r) {
      Value* row = out + r * g_.out_stride;
      for (Index j = 0; j < count; ++j) row[j] = buffer[j * ld_ + r];
    }
  }

  ColumnGeometry g_;
  int threads_;
  Index ld_ = 0, block_ = 0, blocks_ = 0, outer_count_ = 1;
  Value* buffer_ = nullptr;
  typename Api::plan plan_ = nullptr;
};

}  // namespace volfft::backend
