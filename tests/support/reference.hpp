// Serial reference transforms (FFTW on the whole global array, in double) and the test data.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace volfft_test {

using Index = std::int64_t;
using cd = std::complex<double>;

/// Deterministic pseudo-random value of a global index, so every rank can make its own part.
inline double value_at(Index flat, int salt) {
  std::uint64_t x = static_cast<std::uint64_t>(flat) * 0x9E3779B97F4A7C15ull + salt * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return static_cast<double>(x >> 11) / static_cast<double>(1ull << 53) - 0.5;
}

/// Full forward c2c FFT (unscaled) of a C-order array of `shape` (3 entries), in double.
std::vector<cd> reference_fft(const std::vector<cd>& data, const std::array<Index, 3>& shape);

/// The transform suites' test data at flat indices [0, n): value_at(k, 1) + i value_at(k, 2), or
/// value_at(k, 1) alone for real input.
std::vector<cd> test_data(Index n, bool real_input);

/// The transform suites' test data over a C-order array of `shape` (3 entries; a 2-D array as
/// (n0, n1, 1)): value_at(k, 1) + i value_at(k, 2) at flat index k, or value_at(k, 1) alone for
/// real input; and its reference_fft.
struct ReferencePair {
  std::vector<cd> data;
  std::vector<cd> transform;
};

/// The pair of `shape`, made once per process: the suites check many option sets on the same few
/// shapes, and every rank builds the whole array, so making it on every check cost a tenth of
/// test_threads' time. Pairs are kept up to 4 Mi elements in all, the oldest dropped first; the
/// one returned stays valid while its pointer is held.
std::shared_ptr<const ReferencePair> reference_pair(const std::array<Index, 3>& shape, bool real_input);

}  // namespace volfft_test
