// Truncating FFT-length-n spectra to the m values of numpy's frequency order, and padding them
// back with zeros, along one axis of a strided 3-D array: the data movement of padded
// ("pruned") transforms. Kept values: indices [0, c) and [n - f, n) of the length-n spectrum,
// c = ceil(m/2), f = floor(m/2), stored compactly as [0, m); on the half-spectrum (r2c) axis
// simply [0, m). With an even m < n on a full axis, kept index m/2 (numpy's -m/2) stands for both
// -m/2 and +m/2 of the n-grid: padding puts half of it on each, truncation adds them (so that
// truncation undoes padding, and the padded spectrum of a real field stays Hermitian).
#pragma once

#include <array>
#include <complex>
#include <cstdint>

namespace volfft::kernels {

using Index = std::int64_t;

struct LineSpec {
  int axis = 0;
  Index n = 0;        ///< FFT length along the axis
  Index kept = 0;     ///< m: values kept
  bool half = false;  ///< the r2c axis: keep [0, kept)
};

/// From the n-long lines of `src` (strides `ss`) to the kept values in `dst` (strides `ds`);
/// `extent` gives the other two axes (extent[axis] is ignored). src == dst works in place.
template <class T>
void truncate_lines(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
                    std::array<Index, 3> extent, const LineSpec& line);

/// From the kept values in `src` to n-long zero-padded lines in `dst`; src == dst in place.
template <class T>
void pad_lines(const T* src, const std::array<Index, 3>& ss, T* dst, const std::array<Index, 3>& ds,
               std::array<Index, 3> extent, const LineSpec& line);

}  // namespace volfft::kernels
