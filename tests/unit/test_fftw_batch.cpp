// The FFTW backend's batches split over threads (src/backend/fftw_batch.cpp): a batch run as one
// single-threaded plan per share of its longest loop (a multi-dimensional batch: shares of its
// outermost loop, run element by element where its strides allow) gives what the batch run as
// one plan gives,
// for every transform (c2c both ways, r2c and c2r out of place and in place on FFTW's padded
// rows, r2r of real and of complex data), double and single precision, with shares of unequal
// length (a loop of 10 over 3 threads) and a loop too short to split. Out-of-place c2c and r2c
// leave their input as it was. VOLFFT_TEST_SPLIT_BATCHES (1: split wherever a loop allows, 0:
// never) decides each batch; without OpenMP nothing is split and both runs are one plan.
// A batch on one thread, run transform by transform, matches a direct DFT (below); so do its
// other ways (columns, copied blocks, padded planes) against FFTW's plan of it.
// With OpenMP, a batch planned with 2 threads runs in 2 threads even where OpenMP's default team
// is larger (src/backend/omp_team.hpp), and the application's default is left as it was.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <complex>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#if defined(VOLFFT_HAVE_OPENMP)
#include <dirent.h>
#include <omp.h>
#endif

#include "backend/fft_batch.hpp"
#include "core/line_buffer.hpp"
#include "unit/unit_main.hpp"

using namespace volfft;
using namespace volfft::backend;
using namespace volfft_test;

namespace {

struct Case {
  const char* name;
  Transform transform;
  std::vector<int> axes;
  bool in_place;
  bool real_values;  // r2r of an r2r plan's reals
};

template <class Real>
void check(const Case& c, std::array<Index, 3> extent, int threads) {
  const Precision precision = sizeof(Real) == 8 ? Precision::float64 : Precision::float32;
  const bool half = c.transform == Transform::r2c || c.transform == Transform::c2r;
  const Index real_length = extent[2];
  std::array<Index, 3> complex_extent = extent;
  if (half) complex_extent[2] = extent[2] / 2 + 1;
  // Strides in elements of each side: complex C order; the real side of r2c/c2r C order over
  // real_length, or FFTW's padded rows of 2(n/2+1) reals in place.
  auto c_order = [](std::array<Index, 3> e) { return std::array<Index, 3>{e[1] * e[2], e[2], 1}; };
  const std::array<Index, 3> complex_strides = c_order(complex_extent);
  std::array<Index, 3> real_strides = c_order({extent[0], extent[1], real_length});
  if (half && c.in_place) real_strides = {extent[1] * 2 * complex_extent[2], 2 * complex_extent[2], 1};
  BatchGeometry g;
  g.extent = complex_extent;
  g.real_length = real_length;
  g.axes = c.axes;
  g.transform = c.transform;
  g.in_place = c.in_place;
  g.real_values = c.real_values;
  const bool real_in = c.transform == Transform::r2c || c.real_values;
  const bool real_out = c.transform == Transform::c2r || c.real_values;
  g.in_strides = real_in && half ? real_strides : complex_strides;
  g.out_strides = real_out && half ? real_strides : complex_strides;
  if (c.transform == Transform::r2r)
    for (std::size_t k = 0; k < c.axes.size(); ++k) g.r2r_kinds.push_back(k % 2 ? AxisKind::dst3 : AxisKind::dct2);
  // Element counts of both sides (in reals), and arrays large enough for either.
  const Index values = complex_extent[0] * complex_extent[1] * complex_extent[2];
  const Index reals = std::max<Index>(2 * values, extent[0] * extent[1] * 2 * complex_extent[2]) + 8;
  auto fill = [&](std::vector<Real>& v) {
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = Real(std::sin(0.37 * double(k)) + 0.1 * double(k % 5));
  };

  auto run = [&](const char* split, std::vector<Real>& in, std::vector<Real>& out) {
    setenv("VOLFFT_TEST_SPLIT_BATCHES", split, 1);
    setenv("VOLFFT_TEST_COLUMNS", "0", 1);  // FFTW's plans (columns_match_fftw tests those)
    std::vector<Real> plan_in(reals), plan_out(reals);
    auto batch = make_fftw_batch(precision, g, Effort::estimate, threads, plan_in.data(), plan_out.data(), false);
    unsetenv("VOLFFT_TEST_SPLIT_BATCHES");
    unsetenv("VOLFFT_TEST_COLUMNS");
    batch->execute(in.data(), c.in_place ? in.data() : out.data());
    if (c.in_place) out = in;
  };
  std::vector<Real> in(reals), out_one(reals, Real(0)), out_split(reals, Real(0));
  fill(in);
  const std::vector<Real> original = in;
  std::vector<Real> in_one = in, in_split = in;
  run("0", in_one, out_one);
  run("1", in_split, out_split);
  double diff = 0, norm = 0;
  for (Index k = 0; k < reals; ++k) {
    diff = std::max(diff, double(std::abs(out_one[k] - out_split[k])));
    norm = std::max(norm, double(std::abs(out_one[k])));
  }
  const double tol = (sizeof(Real) == 8 ? 1e-13 : 1e-5) * std::max(norm, 1.0);
  CHECK_MSG(diff <= tol, c.name << " " << sizeof(Real) * 8 << "-bit extent " << extent[0] << "x" << extent[1] << "x"
                                << extent[2] << " threads " << threads << ": split differs by " << diff);
  CHECK_MSG(norm > 0, c.name << ": the batch wrote nothing");
  if (!c.in_place && c.transform != Transform::c2r)  // FFTW's c2r may destroy its input
    CHECK_MSG(in_split == original && in_one == original, c.name << ": an out-of-place batch changed its input");
}

}  // namespace

void split_batches_match_one_plan() {
  const std::vector<Case> cases = {
      {"c2c forward, one axis", Transform::c2c_forward, {2}, false, false},
      {"c2c backward, two axes", Transform::c2c_backward, {1, 2}, false, false},
      {"c2c forward, axis 0, in place", Transform::c2c_forward, {0}, true, false},
      {"r2c, two axes", Transform::r2c, {1, 2}, false, false},
      {"r2c, in place", Transform::r2c, {2}, true, false},
      {"c2r, one axis", Transform::c2r, {2}, false, false},
      {"c2r, two axes, in place", Transform::c2r, {1, 2}, true, false},
      {"r2r of reals", Transform::r2r, {0, 2}, false, true},
      {"r2r of complex values", Transform::r2r, {1}, false, false},
  };
  for (const Case& c : cases)
    for (int threads : {2, 3}) {
      check<double>(c, {4, 10, 12}, threads);  // loops of 4 and 10: shares of 3, 3 and 4
      check<float>(c, {5, 10, 9}, threads);
      check<double>(c, {1, 2, 6}, threads);  // 3 threads: no loop long enough, one plan
    }
}

// A multi-dimensional batch on one thread runs transform by transform where its outermost loop
// allows (src/backend/fftw_batch.cpp; c2c and c2r read each transform's input through first):
// r2c, c2r and c2c both ways, out of place and in place, double and single, with plane sizes
// whose byte strides do and do not keep every transform at the first one's alignment, and with
// the loop between the transformed axes or no loop (not run that way): each against a direct
// DFT. c2r takes the direct DFT of real data and must give that data times the transform's size.
namespace {

using Complex = std::complex<double>;

// A direct DFT of a C-order array of extents `e` along each of `axes` (sign -1 forward).
std::vector<Complex> direct_dft(std::vector<Complex> v, std::array<Index, 3> e, const std::vector<int>& axes,
                                int sign) {
  const std::array<Index, 3> st{e[1] * e[2], e[2], 1};
  for (int axis : axes) {
    std::vector<Complex> next(v.size());
    for (Index a = 0; a < e[0]; ++a)
      for (Index b = 0; b < e[1]; ++b)
        for (Index c = 0; c < e[2]; ++c) {
          const std::array<Index, 3> x{a, b, c};
          Complex sum = 0;
          for (Index j = 0; j < e[axis]; ++j) {
            std::array<Index, 3> y = x;
            y[axis] = j;
            const double angle = sign * 2 * M_PI * double(j * x[axis]) / double(e[axis]);
            sum += v[static_cast<std::size_t>(y[0] * st[0] + y[1] * st[1] + y[2])] * Complex(std::cos(angle), std::sin(angle));
          }
          next[static_cast<std::size_t>(a * st[0] + b * st[1] + c)] = sum;
        }
    v.swap(next);
  }
  return v;
}

double value_at(Index a, Index b, Index c) {
  return std::sin(0.37 * double(a * 31 + b * 7 + c)) + 0.1 * double((a + b + c) % 5);
}

template <class Real>
void check_against_dft(Transform transform, std::array<Index, 3> extent, std::vector<int> axes, bool in_place) {
  const Precision precision = sizeof(Real) == 8 ? Precision::float64 : Precision::float32;
  const bool half = transform == Transform::r2c || transform == Transform::c2r;
  const Index n2 = extent[2], h = half ? n2 / 2 + 1 : n2;
  const std::array<Index, 3> cx{extent[0], extent[1], h};
  const std::array<Index, 3> complex_strides{extent[1] * h, h, 1};
  const Index row = half && in_place ? 2 * h : n2;  // FFTW's padded rows in place
  const std::array<Index, 3> real_strides{extent[1] * row, row, 1};
  BatchGeometry g;
  g.extent = cx;
  g.real_length = n2;
  g.axes = axes;
  g.transform = transform;
  g.in_place = in_place;
  g.in_strides = transform == Transform::r2c ? real_strides : complex_strides;
  g.out_strides = transform == Transform::c2r ? real_strides : complex_strides;
  const Index reals = extent[0] * extent[1] * 2 * h + 8;
  std::vector<Real> in(reals), out(reals), plan_in(reals), plan_out(reals);
  const std::array<Index, 3> full{extent[0], extent[1], n2};
  const std::size_t count = static_cast<std::size_t>(full[0] * full[1] * full[2]);
  std::vector<Complex> data(count);
  for (Index a = 0; a < full[0]; ++a)
    for (Index b = 0; b < full[1]; ++b)
      for (Index c = 0; c < full[2]; ++c)
        data[static_cast<std::size_t>((a * full[1] + b) * n2 + c)] =
            half ? Complex(value_at(a, b, c), 0) : Complex(value_at(a, b, c), value_at(c, a, b));
  // What goes in, and what must come out (C order over `full`; the complex side of r2c/c2r
  // holds the first h values of each row).
  std::vector<Complex> want;
  auto put_complex = [&](const std::vector<Complex>& v) {
    for (Index a = 0; a < cx[0]; ++a)
      for (Index b = 0; b < cx[1]; ++b)
        for (Index c = 0; c < h; ++c) {
          const Index k = 2 * (a * complex_strides[0] + b * complex_strides[1] + c);
          const Complex z = v[static_cast<std::size_t>((a * full[1] + b) * n2 + c)];
          in[static_cast<std::size_t>(k)] = Real(z.real()), in[static_cast<std::size_t>(k + 1)] = Real(z.imag());
        }
  };
  double size = 1;
  for (int axis : axes) size *= double(full[axis]);
  if (transform == Transform::r2c) {
    for (Index a = 0; a < full[0]; ++a)
      for (Index b = 0; b < full[1]; ++b)
        for (Index c = 0; c < n2; ++c)
          in[static_cast<std::size_t>(a * real_strides[0] + b * real_strides[1] + c)] =
              Real(data[static_cast<std::size_t>((a * full[1] + b) * n2 + c)].real());
    want = direct_dft(data, full, axes, -1);
  } else if (transform == Transform::c2r) {
    put_complex(direct_dft(data, full, axes, -1));
    want = data;
    for (Complex& z : want) z *= size;
  } else {
    put_complex(data);
    want = direct_dft(data, full, axes, transform == Transform::c2c_forward ? -1 : 1);
  }
  auto batch = make_fftw_batch(precision, g, Effort::estimate, 1, plan_in.data(), plan_out.data(), false);
  Real* result = in_place ? in.data() : out.data();
  batch->execute(in.data(), result);
  double diff = 0, norm = 0;
  for (Index a = 0; a < full[0]; ++a)
    for (Index b = 0; b < full[1]; ++b)
      for (Index c = 0; c < (transform == Transform::c2r ? n2 : h); ++c) {
        const Complex w = want[static_cast<std::size_t>((a * full[1] + b) * n2 + c)];
        Complex got;
        if (transform == Transform::c2r) {
          got = result[static_cast<std::size_t>(a * real_strides[0] + b * real_strides[1] + c)];
        } else {
          const Index k = 2 * (a * complex_strides[0] + b * complex_strides[1] + c);
          got = Complex(result[static_cast<std::size_t>(k)], result[static_cast<std::size_t>(k + 1)]);
        }
        diff = std::max(diff, std::abs(got - w));
        norm = std::max(norm, std::abs(w));
      }
  const double tol = (sizeof(Real) == 8 ? 1e-12 : 2e-5) * std::max(norm, 1.0);
  const char* names[] = {"c2c forward", "c2c backward", "r2c", "c2r", "r2r"};
  CHECK_MSG(diff <= tol, names[static_cast<int>(transform)]
                             << " " << sizeof(Real) * 8 << "-bit extent " << extent[0] << "x" << extent[1] << "x"
                             << extent[2] << (in_place ? " in place" : "") << " over " << axes.size()
                             << " axes: differs from the direct DFT by " << diff);
  CHECK_MSG(norm > 0, "the reference is empty");
}

}  // namespace

void batches_match_a_direct_dft() {
  for (Transform t : {Transform::r2c, Transform::c2r, Transform::c2c_forward, Transform::c2c_backward})
    for (bool in_place : {false, true}) {
      check_against_dft<double>(t, {4, 6, 10}, {1, 2}, in_place);  // planes of 16-byte multiples
      check_against_dft<float>(t, {5, 6, 8}, {1, 2}, in_place);
      check_against_dft<float>(t, {3, 5, 7}, {1, 2}, in_place);  // r2c out of place: 140-byte planes, one plan
      check_against_dft<double>(t, {3, 1, 6}, {1, 2}, in_place);
      check_against_dft<double>(t, {4, 3, 6}, {0, 2}, in_place);     // the loop inside: one plan
      check_against_dft<double>(t, {3, 4, 8}, {0, 1, 2}, in_place);  // no loop
    }
}

namespace {

// A c2c batch along one strided axis run as columns (VOLFFT_TEST_COLUMNS=1) against FFTW's plan
// of the same batch (=0): `strides` of both sides in elements (rows padded where wider than the
// extents), `axis` transformed, at `threads`; also where the arrays start at an offset FFTW's
// SIMD plans would not take. The columns must be taken (a buffer held) and give FFTW's values;
// out of place the input stays as it was.
template <class Real>
void check_columns(Transform transform, std::array<Index, 3> extent, std::array<Index, 3> strides, int axis,
                   bool in_place, int threads, std::size_t offset) {
  const Precision precision = sizeof(Real) == 8 ? Precision::float64 : Precision::float32;
  using Value = std::complex<Real>;
  BatchGeometry g;
  g.extent = extent;
  g.axes = {axis};
  g.transform = transform;
  g.in_place = in_place;
  g.in_strides = g.out_strides = strides;
  const std::size_t values = static_cast<std::size_t>(extent[0] * strides[0]);
  std::vector<Value> original(values);
  for (std::size_t k = 0; k < values; ++k) original[k] = Value(Real(std::sin(0.37 * double(k))), Real(0.1 * double(k % 7)));
  // The batch as FFTW's plan (columns 0) or as columns (1).
  auto make = [&](int columns) {
    setenv("VOLFFT_TEST_COLUMNS", columns ? "1" : "0", 1);
    std::vector<Value> plan_in(values), plan_out(values);
    auto batch = make_fftw_batch(precision, g, Effort::estimate, threads, plan_in.data(), plan_out.data(), false);
    unsetenv("VOLFFT_TEST_COLUMNS");
    return batch;
  };
  std::vector<Value> results[2];
  for (int columns : {0, 1}) {
    auto batch = make(columns);
    CHECK_MSG((batch->buffer_bytes() > 0) == (columns == 1),
              "axis " << axis << " extent " << extent[0] << "x" << extent[1] << "x" << extent[2] << ": columns "
                      << (columns ? "not taken" : "taken against VOLFFT_TEST_COLUMNS=0") << " (buffer "
                      << batch->buffer_bytes() << " bytes)");
    // FFTW's plan needs its planning alignment; the columns take any: the same values `at`
    // elements further on.
    const std::size_t at = columns ? offset : 0;
    std::vector<Value> in(values + offset, Value(3)), out(values + offset, Value(-7));
    std::copy(original.begin(), original.end(), in.begin() + std::ptrdiff_t(at));
    const std::vector<Value> given = in;
    batch->execute(in.data() + at, in_place ? in.data() + at : out.data() + at);
    if (!in_place) CHECK_MSG(in == given, "an out-of-place batch of columns changed its input");
    std::vector<Value>& got = in_place ? in : out;
    results[columns].assign(got.begin() + std::ptrdiff_t(at), got.begin() + std::ptrdiff_t(at + values));
  }
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < results[0].size(); ++k) {
    diff = std::max(diff, double(std::abs(results[0][k] - results[1][k])));
    norm = std::max(norm, double(std::abs(results[0][k])));
  }
  const double tol = (sizeof(Real) == 8 ? 1e-12 : 2e-5) * std::max(norm, 1.0);
  CHECK_MSG(diff <= tol, "columns " << sizeof(Real) * 8 << "-bit " << (transform == Transform::c2c_forward ? "forward" : "backward")
                                    << " axis " << axis << " extent " << extent[0] << "x" << extent[1] << "x" << extent[2]
                                    << (in_place ? " in place" : "") << " threads " << threads << " offset " << offset
                                    << ": differ from FFTW's plan by " << diff);
  CHECK_MSG(norm > 0, "the batch wrote nothing");
  // The columns carry a scale as they copy out (Program hands them a plan's 1/N); FFTW's plan
  // of the batch does not take one. Checked on dense arrays (padded rows keep what they held).
  const bool dense = strides[2] == 1 && strides[1] == extent[2] && strides[0] == extent[1] * extent[2];
  for (int columns : {0, 1}) {
    if (!dense) break;
    auto batch = make(columns);
    const bool scales = batch->scale_output(0.25);
    CHECK_MSG(scales == (columns == 1), "scale_output: " << scales << " with VOLFFT_TEST_COLUMNS=" << columns);
    if (!scales) continue;
    std::vector<Value> in = original, out(values, Value(-7));
    batch->execute(in.data(), in_place ? in.data() : out.data());
    const std::vector<Value>& got = in_place ? in : out;
    double scaled_diff = 0;
    for (std::size_t k = 0; k < values; ++k)
      scaled_diff = std::max(scaled_diff, double(std::abs(got[k] - results[0][k] * Real(0.25))));
    CHECK_MSG(scaled_diff <= tol, "columns scaled by 0.25 differ from FFTW's plan x 0.25 by " << scaled_diff);
  }
}

}  // namespace

// Blocks of lines that do not divide the lines (130 = 64 + 64 + 2 at 64 a block), transforms of
// odd and prime length, lines of padded rows (the outer loops cannot merge), the axis in the
// middle, threads sharing the blocks, both directions and precisions; a transform too long for
// the buffer is not taken.
void columns_match_fftw() {
  for (Transform t : {Transform::c2c_forward, Transform::c2c_backward})
    for (bool in_place : {false, true})
      for (int threads : {1, 2, 3}) {
        check_columns<double>(t, {8, 10, 13}, {130, 13, 1}, 0, in_place, threads, 0);
        check_columns<float>(t, {7, 10, 13}, {130, 13, 1}, 0, in_place, threads, 0);
        check_columns<double>(t, {5, 4, 20}, {100, 25, 1}, 0, in_place, threads, 0);  // rows of 20 in 25
        check_columns<double>(t, {3, 11, 17}, {187, 17, 1}, 1, in_place, threads, 0); // axis 1, planes outside
        check_columns<float>(t, {2, 16, 64}, {1024, 64, 1}, 0, in_place, threads, 8);  // unaligned for FFTW
      }
  // The buffer's blocks (core/line_buffer.hpp): 64 lines where they fit, rows padded by a cache
  // line past whole 16 bytes, 8 lines at the longest taken.
  CHECK(core::lines_per_row_block(128, 16) == 64 && core::lines_per_row_block(256, 16) == 64);
  CHECK(core::lines_per_row_block(1024, 16) == 24 && core::lines_per_row_block(2730, 16) == 8);
  CHECK(core::lines_per_row_block(2731, 16) == 0 && core::lines_per_row_block(4096, 8) == 8);
  CHECK(core::lines_per_row_block(4097, 8) == 0);
  CHECK(core::row_pitch(64, 16) == 68 && core::row_pitch(64, 8) == 72 && core::row_pitch(13, 8) == 22);
  CHECK(core::row_pitch(13, 16) == 17);
  // A transform too long for 8 lines in the buffer's 512 KiB is left to FFTW, even when told.
  BatchGeometry g;
  g.extent = {5000, 1, 16};
  g.axes = {0};
  g.in_strides = g.out_strides = {16, 16, 1};
  std::vector<std::complex<double>> in(5000 * 16), out(in.size());
  setenv("VOLFFT_TEST_COLUMNS", "1", 1);
  auto batch = make_fftw_batch(Precision::float64, g, Effort::estimate, 1, in.data(), out.data(), false);
  unsetenv("VOLFFT_TEST_COLUMNS");
  CHECK_MSG(batch->buffer_bytes() == 0, "5000-point columns took a buffer of " << batch->buffer_bytes() << " bytes");
  // A batch whose arrays are a buffer in cache (the folded backward's rows) is FFTW's plan, even
  // where its lines would run as columns and the columns are forced.
  BatchGeometry rows;
  rows.extent = {1, 64, 60};
  rows.axes = {1};
  rows.in_strides = rows.out_strides = {0, 64, 1};
  rows.transform = Transform::c2c_backward;
  rows.in_place = true;
  rows.in_cache = true;
  std::vector<std::complex<double>> buffer(64 * 64);
  setenv("VOLFFT_TEST_COLUMNS", "1", 1);
  auto in_cache = make_fftw_batch(Precision::float64, rows, Effort::estimate, 1, buffer.data(), buffer.data(), false);
  rows.in_cache = false;
  auto elsewhere = make_fftw_batch(Precision::float64, rows, Effort::estimate, 1, buffer.data(), buffer.data(), false);
  unsetenv("VOLFFT_TEST_COLUMNS");
  CHECK_MSG(std::string(in_cache->way()) == "fftw", "a batch in cache runs as " << in_cache->way());
  CHECK_MSG(std::string(elsewhere->way()) == "columns", "the same batch out of cache runs as " << elsewhere->way());
}

namespace {

// A batch of geometry `g` (`in_reals` and `out_reals` reals on its two sides) run as blocks
// copied into the output (VOLFFT_TEST_COPY_IN_PLACE=1) against FFTW's plan of it (=0): where
// `taken`, the copied way must be the one run (way()), give FFTW's values and leave the input as it
// was; where not (a layout it cannot copy), FFTW's plan runs even when told.
template <class Real>
void compare_copied(const BatchGeometry& g, std::size_t in_reals, std::size_t out_reals, bool taken, int threads,
                    const std::string& layout) {
  const Precision precision = sizeof(Real) == 8 ? Precision::float64 : Precision::float32;
  using Value = std::complex<Real>;
  std::vector<Real> original(in_reals);
  for (std::size_t k = 0; k < in_reals; ++k) original[k] = Real(std::sin(0.37 * double(k)) + 0.1 * double(k % 7));
  std::vector<Real> results[2];
  std::ostringstream what;
  const char* names[] = {"c2c forward", "c2c backward", "r2c", "c2r", "r2r"};
  what << names[static_cast<int>(g.transform)] << " " << sizeof(Real) * 8 << "-bit " << layout << " at " << threads
       << " thread(s)";
  for (int copied : {0, 1}) {
    setenv("VOLFFT_TEST_COPY_IN_PLACE", copied ? "1" : "0", 1);
    setenv("VOLFFT_TEST_COLUMNS", "0", 1);
    std::vector<Value> plan_in(in_reals / 2 + 1), plan_out(out_reals / 2);
    auto batch = make_fftw_batch(precision, g, Effort::estimate, threads, plan_in.data(), plan_out.data(), false);
    unsetenv("VOLFFT_TEST_COPY_IN_PLACE");
    unsetenv("VOLFFT_TEST_COLUMNS");
    const std::string expected = copied && taken ? "copied" : "fftw";
    CHECK_MSG(batch->way() == expected, what.str() << ": runs as " << batch->way() << ", expected " << expected);
    std::vector<Real> in = original, out(out_reals, Real(-7));
    batch->execute(in.data(), out.data());
    CHECK_MSG(in == original, what.str() << ": an out-of-place batch changed its input");
    results[copied] = out;
  }
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < out_reals; ++k) {
    diff = std::max(diff, double(std::abs(results[0][k] - results[1][k])));
    norm = std::max(norm, double(std::abs(results[0][k])));
  }
  const double tol = (sizeof(Real) == 8 ? 1e-12 : 2e-5) * std::max(norm, 1.0);
  CHECK_MSG(diff <= tol, what.str() << ": copied blocks differ from FFTW's plan by " << diff);
  CHECK_MSG(norm > 0, what.str() << ": the batch wrote nothing");
}

// compare_copied on C-order arrays of `extent` (r2c: the real extent; its output's rows n / 2 + 1),
// the output's strides `strides` (complex values; default C order), `axes` transformed.
template <class Real>
void check_copied(Transform transform, std::array<Index, 3> extent, std::vector<int> axes, bool taken,
                  std::array<Index, 3> strides = {0, 0, 0}, int threads = 1) {
  const bool r2c = transform == Transform::r2c;
  std::array<Index, 3> complex_extent = extent;
  if (r2c) complex_extent[2] = extent[2] / 2 + 1;
  if (strides[2] == 0) strides = {complex_extent[1] * complex_extent[2], complex_extent[2], 1};
  BatchGeometry g;
  g.extent = complex_extent;
  g.real_length = extent[2];
  g.axes = axes;
  g.transform = transform;
  g.in_strides = r2c ? std::array<Index, 3>{extent[1] * extent[2], extent[2], 1} : strides;
  g.out_strides = strides;
  // Input and output, in reals.
  const std::size_t in_reals = static_cast<std::size_t>(r2c ? extent[0] * extent[1] * extent[2] : 2 * extent[0] * strides[0]);
  const std::size_t out_reals = static_cast<std::size_t>(2 * complex_extent[0] * strides[0]);
  std::ostringstream what;
  what << "extent " << extent[0] << "x" << extent[1] << "x" << extent[2] << " over " << axes.size() << " axes";
  compare_copied<Real>(g, in_reals, out_reals, taken, threads, what.str());
}

// compare_copied on `fields` fields interleaved in C-order arrays of `extent` (r2c: the real
// extent), as a batch over the user's interleaved fields has them (BatchLayout::inner): field f's
// values at f, every axis' stride `fields` times its own.
template <class Real>
void check_copied_fields(Transform transform, std::array<Index, 3> extent, std::vector<int> axes, Index fields,
                         bool taken) {
  const bool r2c = transform == Transform::r2c;
  std::array<Index, 3> complex_extent = extent;
  if (r2c) complex_extent[2] = extent[2] / 2 + 1;
  BatchGeometry g;
  g.extent = complex_extent;
  g.real_length = extent[2];
  g.axes = axes;
  g.transform = transform;
  const std::array<Index, 3> in_extent = r2c ? extent : complex_extent;
  g.in_strides = {fields * in_extent[1] * in_extent[2], fields * in_extent[2], fields};
  g.out_strides = {fields * complex_extent[1] * complex_extent[2], fields * complex_extent[2], fields};
  g.fields = fields, g.field_in_stride = 1, g.field_out_stride = 1;
  const std::size_t in_reals =
      static_cast<std::size_t>((r2c ? 1 : 2) * fields * in_extent[0] * in_extent[1] * in_extent[2]);
  const std::size_t out_reals =
      static_cast<std::size_t>(2 * fields * complex_extent[0] * complex_extent[1] * complex_extent[2]);
  std::ostringstream what;
  what << fields << " interleaved fields of " << extent[0] << "x" << extent[1] << "x" << extent[2] << " over "
       << axes.size() << " axes";
  compare_copied<Real>(g, in_reals, out_reals, taken, 1, what.str());
}

}  // namespace

// Lines along the contiguous axis (one block, and many with a shorter last block: 64 KiB planes
// of 64^2 at two a block over 5), 2-D planes, odd and prime lengths, both directions and
// precisions, and r2c (real rows into the output's padded rows). Not taken: lines along a strided
// axis (the block would not hold whole transforms), rows padded in their array (a gap between
// rows: a block's copy would write it), float lines of odd length (a block of 40 bytes would not
// keep FFTW's 16-byte alignment), a single unit (nothing to block).
void copied_blocks_match_fftw() {
  for (Transform t : {Transform::c2c_forward, Transform::c2c_backward}) {
    check_copied<double>(t, {7, 5, 6}, {2}, true);
    check_copied<float>(t, {3, 11, 16}, {2}, true);
    check_copied<double>(t, {5, 64, 64}, {1, 2}, true);
    check_copied<double>(t, {3, 17, 13}, {1, 2}, true);
    check_copied<float>(t, {600, 2, 128}, {2}, true);  // 1200 lines of 1 KiB: blocks of 128, rest 48
    check_copied<double>(t, {2, 3, 5}, {0, 2}, false);  // axis 0 and 2: the loop between them
    check_copied<double>(t, {4, 6, 8}, {0}, false);
    check_copied<double>(t, {4, 6, 8}, {2}, false, {60, 10, 1});  // rows of 8 in 10
    check_copied<float>(t, {4, 6, 5}, {2}, false);
    check_copied<double>(t, {1, 6, 8}, {1, 2}, false);
  }
  const Transform r2c = Transform::r2c;
  check_copied<double>(r2c, {7, 5, 6}, {2}, true);
  check_copied<double>(r2c, {3, 5, 7}, {2}, true);  // odd rows: 7 reals into rows of 4 complex
  check_copied<double>(r2c, {5, 64, 64}, {1, 2}, true);  // 33 KiB planes: blocks of 3, rest 2
  check_copied<double>(r2c, {3, 17, 13}, {1, 2}, true);
  check_copied<float>(r2c, {600, 2, 126}, {2}, true);  // 1200 rows of 64 complex: blocks of 256, rest 176
  check_copied<float>(r2c, {4, 6, 5}, {2}, false);  // rows of 3 complex floats: 24 bytes
  check_copied<double>(r2c, {4, 6, 8}, {2}, false, {60, 10, 1});  // rows of 5 in 10
  check_copied<double>(r2c, {2, 3, 6}, {0, 2}, false);
  // Interleaved fields: a c2c's fields are a loop inside each unit. An r2c's stride-1 entry is then
  // the fields' loop, not the real row: with as many fields as reals in a row (2 of 2, where the
  // complex row is as long as the real one) the layout looks dense with the fields as the row, and
  // a copy would put each field's values where FFTW's in-place plan reads the other's.
  check_copied_fields<double>(Transform::c2c_forward, {3, 4, 8}, {2}, 2, true);
  check_copied_fields<float>(Transform::c2c_backward, {3, 4, 8}, {1, 2}, 2, true);
  check_copied_fields<double>(r2c, {3, 4, 2}, {2}, 2, false);
  check_copied_fields<double>(r2c, {3, 4, 2}, {1, 2}, 2, false);
  check_copied_fields<double>(r2c, {3, 4, 8}, {2}, 8, false);
  // With threads each takes a share of the blocks (without OpenMP they run on one): blocks and a
  // shorter last one shared by 2 and 3 threads, fewer blocks than threads.
  for (int threads : {2, 3}) {
    check_copied<double>(Transform::c2c_forward, {5, 64, 64}, {1, 2}, true, {0, 0, 0}, threads);
    check_copied<float>(Transform::c2c_backward, {600, 2, 128}, {2}, true, {0, 0, 0}, threads);
    check_copied<double>(r2c, {5, 64, 64}, {1, 2}, true, {0, 0, 0}, threads);
    check_copied<float>(r2c, {600, 2, 126}, {2}, true, {0, 0, 0}, threads);
    check_copied<double>(Transform::c2c_forward, {7, 5, 6}, {2}, true, {0, 0, 0}, threads);  // one block
  }
}

namespace {

// A c2c batch of 2-D planes (axes 1 and 2, planes along axis 0) of `extent`, rows `in_row` /
// `out_row` values apart on each side (a gap past each row where more than extent[2]), run
// through padded scratch planes (VOLFFT_TEST_PADDED_PLANES=1) against FFTW's plan of it (=0):
// where `taken` the padded way must be the one run, hold one scratch plane a thread (rows one
// 64-byte line longer) and give FFTW's values, leaving an out-of-place input as it was and the
// gaps between the output's rows untouched.
template <class Real>
void check_padded(Transform transform, std::array<Index, 3> extent, bool in_place, bool taken, int threads = 1,
                  Index in_row = 0, Index out_row = 0, Index fields = 1, bool interleaved = false) {
  const Precision precision = sizeof(Real) == 8 ? Precision::float64 : Precision::float32;
  using Value = std::complex<Real>;
  in_row = in_row ? in_row : extent[2], out_row = in_place ? in_row : out_row ? out_row : extent[2];
  BatchGeometry g;
  g.extent = extent;
  g.axes = {1, 2};
  g.transform = transform;
  g.in_place = in_place;
  // Fields: whole arrays one after the other (a batch's fields outermost), or interleaved (every
  // stride `fields` times its own, field f at f).
  const Index unit = interleaved ? fields : 1;
  g.in_strides = {unit * extent[1] * in_row, unit * in_row, unit};
  g.out_strides = {unit * extent[1] * out_row, unit * out_row, unit};
  g.fields = fields;
  g.field_in_stride = interleaved ? 1 : extent[0] * extent[1] * in_row;
  g.field_out_stride = interleaved ? 1 : extent[0] * extent[1] * out_row;
  const std::size_t in_size = static_cast<std::size_t>(fields * extent[0] * extent[1] * in_row);
  const std::size_t out_size = static_cast<std::size_t>(fields * extent[0] * extent[1] * out_row);
  std::vector<Value> original(in_size);
  for (std::size_t k = 0; k < in_size; ++k) original[k] = Value(Real(std::sin(0.37 * double(k))), Real(0.1 * double(k % 7)));
  std::ostringstream what;
  what << (transform == Transform::c2c_forward ? "forward " : "backward ") << sizeof(Real) * 8 << "-bit planes "
       << extent[0] << "x" << extent[1] << "x" << extent[2] << " (rows " << in_row << " / " << out_row << " apart, "
       << fields << (interleaved ? " interleaved" : "") << " field(s)) "
       << (in_place ? "in place" : "out of place") << " at " << threads << " thread(s)";
  std::vector<Value> results[2];
  for (int padded : {0, 1}) {
    setenv("VOLFFT_TEST_PADDED_PLANES", padded ? "1" : "0", 1);
    setenv("VOLFFT_TEST_COPY_IN_PLACE", "0", 1);
    std::vector<Value> plan_in(in_size), plan_out(in_place ? 0 : out_size);
    auto batch = make_fftw_batch(precision, g, Effort::estimate, threads, plan_in.data(),
                                 in_place ? plan_in.data() : plan_out.data(), false);
    unsetenv("VOLFFT_TEST_PADDED_PLANES");
    unsetenv("VOLFFT_TEST_COPY_IN_PLACE");
    const std::string expected = padded && taken ? "padded" : "fftw";
    CHECK_MSG(batch->way() == expected, what.str() << ": runs as " << batch->way() << ", expected " << expected);
    if (padded && taken) {
#if defined(VOLFFT_HAVE_OPENMP)
      const std::size_t scratch_planes = static_cast<std::size_t>(std::max(threads, 1));
#else
      const std::size_t scratch_planes = 1;
#endif
      // A plane's rows one 64-byte line longer, the plane rounded up to whole lines.
      const Index line = Index(64 / sizeof(Value)), plane = extent[1] * (extent[2] + line);
      const std::size_t expected_bytes =
          scratch_planes * static_cast<std::size_t>((plane + line - 1) / line * line) * sizeof(Value);
      CHECK_MSG(batch->buffer_bytes() == expected_bytes,
                what.str() << ": holds " << batch->buffer_bytes() << " bytes of scratch, expected " << expected_bytes);
    }
    std::vector<Value> in = original, out(in_place ? 0 : out_size, Value(-7, 3));
    Value* target = in_place ? in.data() : out.data();
    batch->execute(in.data(), target);
    if (!in_place) CHECK_MSG(in == original, what.str() << ": an out-of-place batch changed its input");
    results[padded] = in_place ? in : out;
  }
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < results[0].size(); ++k) {
    diff = std::max(diff, double(std::abs(results[0][k] - results[1][k])));
    norm = std::max(norm, double(std::abs(results[0][k])));
  }
  const double tol = (sizeof(Real) == 8 ? 1e-12 : 2e-5) * std::max(norm, 1.0);
  CHECK_MSG(diff <= tol, what.str() << ": padded planes differ from FFTW's plan by " << diff);
  CHECK_MSG(norm > 0, what.str() << ": the batch wrote nothing");
  if (!in_place && out_row > extent[2] && !interleaved)  // the gaps: as the caller left them (-7 + 3i)
    for (std::size_t k = 0; k < results[1].size(); ++k)
      if (Index(k) % out_row >= extent[2] && results[1][k] != Value(-7, 3)) {
        CHECK_MSG(false, what.str() << ": wrote into the gap after a row, at " << k);
        break;
      }
}

}  // namespace

// Planes of powers of two (where the padding is meant to help) and of odd and prime sizes, both
// directions and precisions, in place and out, rows with gaps on either side, shared by 2 and 3
// threads (5 planes: unequal shares; each thread's scratch plane on a line of its own), batched
// fields outermost (a second loop). Not taken: a single plane (no loop to run plane by plane),
// planes not 16 bytes apart, planes whose rows are not contiguous (here: axes 0 and 1), a 1-D
// batch, planes beyond 8 MiB of scratch, and interleaved fields.
void padded_planes_match_fftw() {
  for (Transform t : {Transform::c2c_forward, Transform::c2c_backward})
    for (bool in_place : {false, true}) {
      check_padded<double>(t, {3, 64, 64}, in_place, true);
      check_padded<float>(t, {4, 32, 128}, in_place, true);
      check_padded<double>(t, {5, 17, 13}, in_place, true);
      check_padded<float>(t, {2, 7, 10}, in_place, true);
      check_padded<float>(t, {2, 7, 9}, in_place, false);  // planes 504 bytes apart: not FFTW's 16-byte alignment
      check_padded<double>(t, {3, 12, 10}, in_place, true, 1, 14, 11);
      check_padded<double>(t, {1, 16, 16}, in_place, false);  // one plane: no loop
      for (int threads : {2, 3}) {
        check_padded<double>(t, {5, 32, 32}, in_place, true, threads);
        check_padded<float>(t, {5, 7, 10}, in_place, true, threads);  // scratch planes of 7 x 18 rounded to 128
      }
    }
  check_padded<double>(Transform::c2c_forward, {2, 728, 720}, false, false);  // 728 x 724 x 16 bytes > 8 MiB
  // Batched fields outermost: a second loop over whole planes (3 fields of 4 planes; one plane a
  // field, the fields alone the loop), threads sharing all of them. Interleaved fields: a
  // plane's values are not whole between two fields.
  for (bool in_place : {false, true}) {
    check_padded<double>(Transform::c2c_forward, {4, 16, 32}, in_place, true, 1, 0, 0, 3);
    check_padded<float>(Transform::c2c_backward, {4, 16, 32}, in_place, true, 3, 0, 0, 3);
    check_padded<double>(Transform::c2c_backward, {1, 16, 16}, in_place, true, 1, 0, 0, 2);
    check_padded<double>(Transform::c2c_forward, {3, 12, 10}, in_place, true, 2, 14, 11, 2);
    check_padded<double>(Transform::c2c_forward, {4, 16, 32}, in_place, false, 1, 0, 0, 3, true);
  }
  // Axes 0 and 1 of C-order arrays: the rows (axis 1) are not contiguous.
  BatchGeometry g;
  g.extent = {8, 8, 4};
  g.axes = {0, 1};
  g.transform = Transform::c2c_forward;
  g.in_strides = g.out_strides = {32, 4, 1};
  std::vector<std::complex<double>> in(256), out(256);
  setenv("VOLFFT_TEST_PADDED_PLANES", "1", 1);
  auto batch = make_fftw_batch(Precision::float64, g, Effort::estimate, 1, in.data(), out.data(), false);
  g.axes = {2};
  auto lines = make_fftw_batch(Precision::float64, g, Effort::estimate, 1, in.data(), out.data(), false);
  unsetenv("VOLFFT_TEST_PADDED_PLANES");
  CHECK_MSG(std::string(batch->way()) != "padded", "planes along axes 0 and 1 ran as padded planes");
  CHECK_MSG(std::string(lines->way()) != "padded", "a 1-D batch ran as padded planes");
}

// A batch whose own buffer is refused (VOLFFT_TEST_REFUSE_BUFFERS=1, as an allocation that fails
// on one rank) runs FFTW's plan instead, holds no buffer and gives FFTW's values: the columns
// taken by rule (effort estimate, VOLFFT_TEST_COLUMNS=1) and by timing (measure), and the padded
// planes (VOLFFT_TEST_PADDED_PLANES=1). Nothing is thrown: ranks plan their batches apart.
void refused_buffers_leave_fftw() {
  using C = std::complex<double>;
  // `knob` (when given) forces the way that holds the buffer.
  auto run = [](const BatchGeometry& g, std::size_t values, Effort effort, const char* knob, bool refuse) {
    if (knob) setenv(knob, "1", 1);
    if (refuse) setenv("VOLFFT_TEST_REFUSE_BUFFERS", "1", 1);
    std::vector<C> plan_in(values), plan_out(values);
    auto batch = make_fftw_batch(Precision::float64, g, effort, 1, plan_in.data(), plan_out.data(), false);
    if (knob) unsetenv(knob);
    unsetenv("VOLFFT_TEST_REFUSE_BUFFERS");
    std::vector<C> in(values), out(values);
    for (std::size_t k = 0; k < values; ++k) in[k] = C(std::sin(0.37 * double(k)), 0.1 * double(k % 7));
    batch->execute(in.data(), out.data());
    return std::make_pair(std::string(batch->way()) + " " + std::to_string(batch->buffer_bytes()), out);
  };
  BatchGeometry columns;  // axis 0 of 16 x 8 x 12: lines 96 values apart
  columns.extent = {16, 8, 12};
  columns.axes = {0};
  columns.transform = Transform::c2c_forward;
  columns.in_strides = columns.out_strides = {96, 12, 1};
  BatchGeometry planes;  // axes 1 and 2 of 4 planes of 16 x 16
  planes.extent = {4, 16, 16};
  planes.axes = {1, 2};
  planes.transform = Transform::c2c_backward;
  planes.in_strides = planes.out_strides = {256, 16, 1};
  struct Case {
    const char* what;
    const BatchGeometry* g;
    std::size_t values;
    Effort effort;
    const char* knob;
  };
  for (const Case& c : {Case{"columns by rule", &columns, 16 * 96, Effort::estimate, "VOLFFT_TEST_COLUMNS"},
                        Case{"columns timed", &columns, 16 * 96, Effort::measure, nullptr},
                        Case{"padded planes", &planes, 4 * 256, Effort::estimate, "VOLFFT_TEST_PADDED_PLANES"}}) {
    const auto given = run(*c.g, c.values, c.effort, c.knob, false);
    const auto refused = run(*c.g, c.values, c.effort, c.knob, true);
    if (std::string(c.what) != "columns timed")  // the timing may keep FFTW's plan anyway
      CHECK_MSG(given.first.rfind("fftw", 0) != 0, c.what << ": runs as " << given.first << " without the refusal");
    CHECK_MSG(refused.first == "fftw 0", c.what << ": runs as " << refused.first << " with its buffer refused");
    double diff = 0, norm = 0;
    for (std::size_t k = 0; k < c.values; ++k) {
      diff = std::max(diff, std::abs(given.second[k] - refused.second[k]));
      norm = std::max(norm, std::abs(given.second[k]));
    }
    CHECK_MSG(norm > 0 && diff <= 1e-12 * std::max(norm, 1.0), c.what << ": differs by " << diff << " when refused");
  }
}

#if defined(VOLFFT_HAVE_OPENMP)
namespace {
int threads_of_this_process() {
  int n = 0;
  if (DIR* dir = opendir("/proc/self/task")) {
    while (dirent* entry = readdir(dir))
      if (entry->d_name[0] != '.') ++n;
    closedir(dir);
  }
  return n;
}
}  // namespace

// Runs first: OpenMP's threads, once started, stay, so the count reads the largest team yet.
// FFTW's OpenMP library runs a threaded plan in a team of OpenMP's default size, not of the
// plan's threads: without OmpTeam a 2-thread batch ran on 1 thread where the default was 1 (as
// many HPC sites set OMP_NUM_THREADS=1), and in 6 threads, 4 of them spinning idle, where it was 6.
void threaded_batch_runs_in_its_threads() {
  const int before = threads_of_this_process();
  CHECK_MSG(before == 1, "the test expects a process of one thread at its start; it has " << before);
  BatchGeometry g;
  g.extent = {64, 64, 64};
  g.real_length = 64;
  g.axes = {0, 1, 2};
  g.transform = Transform::c2c_forward;
  g.in_strides = g.out_strides = {64 * 64, 64, 1};
  std::vector<std::complex<double>> in(64 * 64 * 64), out(in.size());
  auto run_batch = [&] {
    setenv("VOLFFT_TEST_SPLIT_BATCHES", "0", 1);  // FFTW's own threads, not a split
    auto batch = make_fftw_batch(Precision::float64, g, Effort::estimate, 2, in.data(), out.data(), false);
    unsetenv("VOLFFT_TEST_SPLIT_BATCHES");
    std::fill(in.begin(), in.end(), std::complex<double>{1.0, 0.5});
    for (int k = 0; k < 3; ++k) batch->execute(in.data(), out.data());
    CHECK_MSG(std::abs(out[0] - std::complex<double>(64.0 * 64 * 64, 0.5 * 64 * 64 * 64)) < 1e-6,
              "the threaded batch's DC term is " << out[0]);
  };
  for (int team : {1, 6}) {  // the application's default team, e.g. OMP_NUM_THREADS
    omp_set_num_threads(team);
    run_batch();
    const int after = threads_of_this_process();
    if (team == 1)
      CHECK_MSG(after == 2, "under a default team of 1, a batch of 2 threads ran in " << after << " thread(s)");
    else
      CHECK_MSG(after <= 2, "under a default team of " << team << ", a batch of 2 threads left the process with "
                                                         << after << " threads");
    CHECK_MSG(omp_get_max_threads() == team, "OpenMP's default team is " << omp_get_max_threads() << ", was " << team);
  }
}
#endif

// The timing that chooses between two ways to run a batch alternates its candidates' runs, so a
// change of the machine's pace reaches both: warm-ups first, then first-second, second-first, ...
// It returns each candidate's shortest run.
void alternating_timing_interleaves() {
  std::string order;
  int second_runs = 0;
  const auto [first, second] = best_seconds_alternating(
      1, 3, [&] { order += 'a'; },
      [&] {
        order += 'b';
        // The second candidate's first timed run is slow (a pause of the machine); its best is not.
        if (++second_runs == 2) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      });
  CHECK_MSG(order == "ab" "ab" "ba" "ab", "the runs went " << order);
  CHECK_MSG(first >= 0 && first < 0.05, "the first candidate's best run took " << first << " s");
  CHECK_MSG(second >= 0 && second < 0.05, "the second candidate's best run took " << second << " s: not the shortest");
}

int main() {
  return run_unit_tests("fftw_batch", {
#if defined(VOLFFT_HAVE_OPENMP)
                                          {"threaded batch runs in its threads", threaded_batch_runs_in_its_threads},
#endif
                                          {"split batches match one plan", split_batches_match_one_plan},
                                          {"batches match a direct DFT", batches_match_a_direct_dft},
                                          {"columns match FFTW's plan", columns_match_fftw},
                                          {"copied blocks match FFTW's plan", copied_blocks_match_fftw},
                                          {"padded planes match FFTW's plan", padded_planes_match_fftw},
                                          {"refused buffers leave FFTW's plan", refused_buffers_leave_fftw},
                                          {"alternating timing interleaves", alternating_timing_interleaves}});
}
