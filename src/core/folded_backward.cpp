#include "core/folded_backward.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/cache.hpp"
#include "core/line_buffer.hpp"

namespace volfft::core {

bool folds_backward(const Blueprint& bp, const Options& options) {
  const char* forced = std::getenv("VOLFFT_TEST_FOLDED");
  if (forced && std::strcmp(forced, "0") == 0) return false;
  if (bp.kind != Kind::r2c || bp.in_place || options.destroy_input || bp.padded || bp.ndim != 3) return false;
  if (!bp.trailing.empty() || bp.fields_inner || bp.stages.size() != 1 || bp.shape[0] < 2) return false;
  const Stage& st = bp.stages[0];
  // One op over the three axes in C order: the input's lines along axis 0 lie side by side.
  if (st.ops.size() != 1 || !st.ops[0].real || st.ops[0].axes.size() != 3 || st.order != Order{0, 1, 2} ||
      bp.input_order != Order{0, 1, 2})
    return false;
  if (forced && std::strcmp(forced, "1") == 0) return true;
  // Where the spectrum, the output and a buffer of the spectrum fit the cache together, the
  // buffer costs no memory traffic and the copies through the line buffer and scratch planes do:
  // r2c double 64^3 took 0.60-0.88 ms a backward folded against 0.42-0.45 by the timed split,
  // float 128^3 (25 MB of three arrays in a 32 MiB cache) alike. Beyond, folded is faster or as
  // fast (double 128^3 5.0-5.5 against 6.6-7.9 ms, 256^3 53-57 against 66-68, float 256^3 34-37
  // against 42-49, double 200^3 alike; the bench, Zen 5 VM, 2026-12-07), and the buffer of the
  // spectrum is memory the plan need not hold.
  const double spectrum = double(bp.shape[0]) * double(bp.shape[1]) * double(bp.shape[2] / 2 + 1) *
                          double(bp.element_bytes);
  return 3 * spectrum > double(last_level_cache_bytes());
}

FoldedGeometry folded_geometry(const Blueprint& bp) {
  FoldedGeometry g;
  g.n0 = bp.shape[0], g.n1 = bp.shape[1], g.n2 = bp.shape[2];
  g.h = g.n2 / 2 + 1;
  g.w = g.h - 1;
  // Lines through the buffer in rows, as the columns of backend/fftw_columns.hpp
  // (core/line_buffer.hpp); where not 8 lines fit its 512 KiB, 8 in a larger buffer.
  const Index fit = lines_per_row_block(g.n0, bp.element_bytes);
  const Index most = fit > 0 ? fit : 8;
  if (g.w == 0) {
    g.block = std::min(most, g.n1);  // every line aside (n2 = 1)
  } else {
    // A row's w lines in blocks of about equal size (65 lines: 36 and 29, not 64 and 1, since
    // the buffer's FFTs run on every line it holds), each but the last whole cache lines of the
    // fold (the run_as's streamed stores), or several whole rows in a block.
    const Index line = std::max<Index>(1, 64 / bp.element_bytes);
    g.chunks = (g.w + most - 1) / most;
    g.cols = (g.w + g.chunks - 1) / g.chunks;
    if (g.chunks > 1) g.cols = (g.cols + line - 1) / line * line;
    g.rows = g.chunks == 1 ? std::max<Index>(1, std::min(g.n1, most / g.w)) : 1;
    g.block = g.rows * g.cols;
  }
  g.pitch = row_pitch(g.block, bp.element_bytes);
  g.aside = FoldedGeometry::round_up(g.n0 * g.n1);
  g.slot = g.line_buffer() + FoldedGeometry::round_up(g.n1 * g.h);
  return g;
}

}  // namespace volfft::core
