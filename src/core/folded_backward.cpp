#include "core/folded_backward.hpp"

#include <cstdlib>
#include <cstring>

#include "core/cache.hpp"

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
  // buffer costs no memory traffic and the folded way's copies through its line buffer and
  // scratch planes are slower: r2c float 128^3 (8.5 MB a spectrum, a 32 MiB cache) took 3.8-4.1
  // ms a backward folded against 3.3 by the timed split. Beyond, they ran alike (r2c double 128^3
  // 6.1-6.3 against 6.0-6.8 ms, 256^3 65-69 against 65-68; the bench, Zen 5 VM, 2026-12-07), and
  // the buffer of the spectrum is memory the plan need not hold.
  const double spectrum = double(bp.shape[0]) * double(bp.shape[1]) * double(bp.shape[2] / 2 + 1) *
                          double(bp.element_bytes);
  return 3 * spectrum > double(last_level_cache_bytes());
}

FoldedGeometry folded_geometry(const Blueprint& bp) {
  FoldedGeometry g;
  g.n0 = bp.shape[0], g.n1 = bp.shape[1], g.n2 = bp.shape[2];
  g.h = g.n2 / 2 + 1;
  g.w = g.h - 1;
  g.lines = g.n1 * g.h;
  // As backend/fftw_columns.hpp: lines n0 rounded up to even plus 2 apart (each starts 16-byte
  // aligned, and no two a power of two apart), at most 64 of them and 512 KiB, at least 8.
  g.line_stride = (g.n0 + 1) / 2 * 2 + 2;
  const Index fit = (Index{512} << 10) / (g.line_stride * bp.element_bytes);
  g.block = std::min<Index>(64, std::max<Index>(8, fit / 8 * 8));
  g.block = std::min(g.block, g.lines);
  g.aside = FoldedGeometry::round_up(g.n0 * g.n1);
  g.slot = g.line_buffer() + FoldedGeometry::round_up(g.n1 * g.h);
  return g;
}

}  // namespace volfft::core
