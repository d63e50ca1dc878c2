// kernels::copy_fields against an element-by-element copy: fields outer on both sides, the
// fields interleaved on either side or both, with and without a transpose between the two sides'
// fastest axes, odd extents that leave partial tiles, a scale, and one field. kernels::copy_box
// alone for every element type, with and without a scale, on one thread and on three (boxes
// above the threading threshold), with extents that leave partial cache-line strips, into
// contiguous and strided destination rows, starting at several offsets into a cache line; the
// same with every box written with streaming stores (--stream-bytes 1).
#include <complex>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/copy_box.hpp"
#include "support/check.hpp"
#include "unit/unit_main.hpp"

using namespace volfft::kernels;
using C = std::complex<double>;

namespace {

// Strides of an array of extents `e` in memory order `order` (slowest first), each times `unit`.
std::array<Index, 3> strides(const std::array<Index, 3>& e, const std::array<int, 3>& order, Index unit) {
  std::array<Index, 3> s{};
  Index step = unit;
  for (int k = 2; k >= 0; --k) {
    s[order[k]] = step;
    step *= e[order[k]];
  }
  return s;
}

void check_layouts(const std::array<Index, 3>& e, Index fields) {
  const Index n = e[0] * e[1] * e[2];
  const std::array<std::array<int, 3>, 3> orders{{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}};
  for (const auto& so : orders)
    for (const auto& dord : orders)
      for (int src_inner = 0; src_inner < 2; ++src_inner)
        for (int dst_inner = 0; dst_inner < 2; ++dst_inner) {
          const auto ss = strides(e, so, src_inner ? fields : 1), ds = strides(e, dord, dst_inner ? fields : 1);
          const Index sf = src_inner ? 1 : n, df = dst_inner ? 1 : n;
          std::vector<C> src(n * fields), dst(n * fields, C(-7, -7)), want(n * fields, C(-7, -7));
          for (Index k = 0; k < n * fields; ++k) src[k] = C(static_cast<double>(k), 0.5 * static_cast<double>(k));
          for (Index f = 0; f < fields; ++f)
            for (Index x0 = 0; x0 < e[0]; ++x0)
              for (Index x1 = 0; x1 < e[1]; ++x1)
                for (Index x2 = 0; x2 < e[2]; ++x2)
                  want[f * df + x0 * ds[0] + x1 * ds[1] + x2 * ds[2]] = 2.0 * src[f * sf + x0 * ss[0] + x1 * ss[1] + x2 * ss[2]];
          copy_fields(src.data(), ss, sf, dst.data(), ds, df, e, fields, 2.0, 1);
          CHECK_MSG(dst == want, "extents " << e[0] << "x" << e[1] << "x" << e[2] << " fields " << fields << " src "
                                            << (src_inner ? "inner" : "outer") << " order " << so[0] << so[1] << so[2]
                                            << " dst " << (dst_inner ? "inner" : "outer") << " order " << dord[0]
                                            << dord[1] << dord[2]);
        }
}

void every_layout_pair() {
  check_layouts({3, 5, 7}, 4);
  check_layouts({17, 2, 33}, 3);  // partial tiles
  check_layouts({4, 4, 4}, 1);
  check_layouts({1, 40, 19}, 21);  // more fields than a tile's edge
}

// `offset`: the destination starts that many elements into its vector (16-byte aligned), so that
// its rows start at other offsets into a cache line (the streamed copies' head strips).
template <class T>
void check_copy_box(const std::array<Index, 3>& e, Scalar<T> scale, int threads, Index offset = 0) {
  const Index n = e[0] * e[1] * e[2];
  const std::array<std::array<int, 3>, 3> orders{{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}};
  for (const auto& so : orders)
    for (const auto& dord : orders)
      for (Index dst_unit : {1, 2}) {  // 2: every other element (a strided destination row)
        const auto ss = strides(e, so, 1), ds = strides(e, dord, dst_unit);
        std::vector<T> src(n), dst(offset + n * dst_unit, T(-7)), want(offset + n * dst_unit, T(-7));
        for (Index k = 0; k < n; ++k) src[k] = T(static_cast<Scalar<T>>(k % 1009)) + T(1) / T(4);
        for (Index x0 = 0; x0 < e[0]; ++x0)
          for (Index x1 = 0; x1 < e[1]; ++x1)
            for (Index x2 = 0; x2 < e[2]; ++x2)
              want[offset + x0 * ds[0] + x1 * ds[1] + x2 * ds[2]] = src[x0 * ss[0] + x1 * ss[1] + x2 * ss[2]] * scale;
        copy_box(src.data(), ss, dst.data() + offset, ds, e, scale, threads);
        CHECK_MSG(dst == want, sizeof(T) << "-byte elements, extents " << e[0] << "x" << e[1] << "x" << e[2] << " scale "
                                         << scale << " threads " << threads << " src order " << so[0] << so[1] << so[2]
                                         << " dst order " << dord[0] << dord[1] << dord[2] << " dst stride " << dst_unit
                                         << " offset " << offset);
      }
}

template <class T>
void check_copy_box_all(Scalar<T> scale) {
  for (int threads : {1, 3}) {
    check_copy_box<T>({5, 3, 7}, scale, threads);
    check_copy_box<T>({17, 2, 33}, scale, threads);     // strips of a partial line
    check_copy_box<T>({64, 9, 70}, scale, threads);     // above the threading threshold
    // Rows a whole number of cache lines long for every element size (16 and 32 elements), so
    // that a streamed transpose (--stream-bytes) applies; offsets put the rows mid-line.
    for (Index offset : {0, 1, 3}) {
      check_copy_box<T>({32, 5, 16}, scale, threads, offset);
      check_copy_box<T>({16, 3, 64}, scale, threads, offset);
      // Rows of odd length (5, 9 elements) whose planes are whole lines (80, 288 elements): a
      // strip's rows share their offset in the line, the next plane's rows another (r2c's
      // 129-element rows).
      check_copy_box<T>({9, 16, 5}, scale, threads, offset);
      check_copy_box<T>({5, 32, 9}, scale, threads, offset);
    }
  }
}

void copy_box_every_type_and_scale() {
  for (int scaled = 0; scaled < 2; ++scaled) {
    check_copy_box_all<std::complex<double>>(scaled ? 0.5 : 1.0);
    check_copy_box_all<std::complex<float>>(scaled ? 0.5f : 1.0f);
    check_copy_box_all<double>(scaled ? 0.5 : 1.0);
    check_copy_box_all<float>(scaled ? 0.5f : 1.0f);
  }
}

void empty_boxes_copy_nothing() {
  std::vector<C> src(8, C(1, 1)), dst(8, C(0, 0));
  copy_fields(src.data(), {4, 2, 1}, 1, dst.data(), {4, 2, 1}, 1, {0, 2, 2}, 2, 1.0, 1);
  copy_fields(src.data(), {4, 2, 1}, 1, dst.data(), {4, 2, 1}, 1, {2, 2, 2}, 0, 1.0, 1);
  CHECK(dst == std::vector<C>(8, C(0, 0)));
}

}  // namespace

int main(int argc, char** argv) {
  // --stream-bytes B: every box of B bytes or more is written with streaming stores, as only
  // boxes of megabytes are otherwise (read once, on the first copy).
  for (int k = 1; k + 1 < argc; ++k)
    if (std::string(argv[k]) == "--stream-bytes") setenv("VOLFFT_TEST_STREAM_BYTES", argv[k + 1], 1);
  return volfft_test::run_unit_tests("copy_fields", {{"every_layout_pair", every_layout_pair},
                                                     {"copy_box_every_type_and_scale", copy_box_every_type_and_scale},
                                                     {"empty_boxes_copy_nothing", empty_boxes_copy_nothing}});
}
