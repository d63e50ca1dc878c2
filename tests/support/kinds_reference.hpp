// Reference transforms of any number of axes from the kinds' defining sums (FFTW's r2r
// conventions, unnormalised; O(n^2) per line, independent of FFTW), for small test arrays.
#pragma once

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "support/reference.hpp"
#include "volfft/options.hpp"

namespace volfft_test {

using volfft::AxisKind;

// One line of the transform of kind k (FFTW's definitions, unnormalised).
inline std::vector<cd> transform_line(const std::vector<cd>& x, AxisKind k) {
  const Index n = static_cast<Index>(x.size());
  std::vector<cd> y(x.size());
  const double pi = std::acos(-1.0);
  for (Index q = 0; q < n; ++q) {
    cd sum = 0;
    for (Index j = 0; j < n; ++j) {
      const double jd = static_cast<double>(j), qd = static_cast<double>(q), nd = static_cast<double>(n);
      switch (k) {
        case AxisKind::dft: sum += x[j] * std::polar(1.0, -2 * pi * jd * qd / nd); break;
        case AxisKind::dct1:
          sum += (j == 0 || j == n - 1 ? 1.0 : 2.0) * x[j] * std::cos(pi * jd * qd / (nd - 1));
          break;
        case AxisKind::dct2: sum += 2.0 * x[j] * std::cos(pi * (2 * jd + 1) * qd / (2 * nd)); break;
        case AxisKind::dct3: sum += (j == 0 ? 1.0 : 2.0) * x[j] * std::cos(pi * jd * (2 * qd + 1) / (2 * nd)); break;
        case AxisKind::dct4: sum += 2.0 * x[j] * std::cos(pi * (2 * jd + 1) * (2 * qd + 1) / (4 * nd)); break;
        case AxisKind::dst1: sum += 2.0 * x[j] * std::sin(pi * (jd + 1) * (qd + 1) / (nd + 1)); break;
        case AxisKind::dst2: sum += 2.0 * x[j] * std::sin(pi * (2 * jd + 1) * (qd + 1) / (2 * nd)); break;
        case AxisKind::dst3:
          sum += (j == n - 1 ? 1.0 : 2.0) * x[j] * std::sin(pi * (jd + 1) * (2 * qd + 1) / (2 * nd));
          break;
        case AxisKind::dst4: sum += 2.0 * x[j] * std::sin(pi * (2 * jd + 1) * (2 * qd + 1) / (4 * nd)); break;
        default: sum = x[q]; j = n; break;  // none
      }
    }
    y[q] = sum;
  }
  return y;
}

// The whole array's transform, axis by axis (they commute), in C order of `shape`; r2c keeps
// the n/2 + 1 first values of the last axis.
inline std::vector<cd> reference(std::vector<cd> data, std::vector<Index> shape, const std::vector<AxisKind>& kinds) {
  const int nd = static_cast<int>(shape.size());
  for (int a = 0; a < nd; ++a) {
    const AxisKind k = kinds[a] == AxisKind::r2c ? AxisKind::dft : kinds[a];
    Index inner = 1, outer = 1;
    for (int b = a + 1; b < nd; ++b) inner *= shape[b];
    for (int b = 0; b < a; ++b) outer *= shape[b];
    const Index n = shape[a];
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < inner; ++i) {
        std::vector<cd> line(n);
        for (Index j = 0; j < n; ++j) line[j] = data[(o * n + j) * inner + i];
        line = transform_line(line, k);
        for (Index j = 0; j < n; ++j) data[(o * n + j) * inner + i] = line[j];
      }
  }
  if (kinds.back() != AxisKind::r2c) return data;
  const Index n = shape.back(), nc = n / 2 + 1, rows = static_cast<Index>(data.size()) / n;
  std::vector<cd> half(rows * nc);
  for (Index r = 0; r < rows; ++r)
    for (Index q = 0; q < nc; ++q) half[r * nc + q] = data[r * n + q];
  return half;
}

inline std::string kinds_text(const std::vector<AxisKind>& kinds) {
  std::string s = "(";
  for (std::size_t a = 0; a < kinds.size(); ++a) s += (a ? "," : "") + std::string(to_string(kinds[a]));
  return s + ")";
}

}  // namespace volfft_test
