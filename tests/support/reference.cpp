#include "reference.hpp"

#include <fftw3.h>

#include <deque>
#include <utility>

namespace volfft_test {

std::vector<cd> reference_fft(const std::vector<cd>& data, const std::array<Index, 3>& shape) {
  std::vector<cd> out(data.size());
  std::vector<cd> in = data;
  const int n[3] = {static_cast<int>(shape[0]), static_cast<int>(shape[1]), static_cast<int>(shape[2])};
  fftw_plan p = fftw_plan_dft(3, n, reinterpret_cast<fftw_complex*>(in.data()),
                              reinterpret_cast<fftw_complex*>(out.data()), FFTW_FORWARD, FFTW_ESTIMATE);
  fftw_execute(p);
  fftw_destroy_plan(p);
  return out;
}

std::vector<cd> test_data(Index n, bool real_input) {
  std::vector<cd> data(static_cast<std::size_t>(n));
  for (Index k = 0; k < n; ++k) data[k] = real_input ? cd(value_at(k, 1), 0) : cd(value_at(k, 1), value_at(k, 2));
  return data;
}

std::shared_ptr<const ReferencePair> reference_pair(const std::array<Index, 3>& shape, bool real_input) {
  using Key = std::pair<std::array<Index, 3>, bool>;
  static std::deque<std::pair<Key, std::shared_ptr<const ReferencePair>>> kept;
  const Key key{shape, real_input};
  for (const auto& entry : kept)
    if (entry.first == key) return entry.second;
  auto pair = std::make_shared<ReferencePair>();
  pair->data = test_data(shape[0] * shape[1] * shape[2], real_input);
  pair->transform = reference_fft(pair->data, shape);
  kept.emplace_back(key, pair);
  const Index bound = Index(1) << 22;
  Index total = 0;
  for (const auto& entry : kept) total += static_cast<Index>(entry.second->data.size());
  while (kept.size() > 1 && total > bound) {
    total -= static_cast<Index>(kept.front().second->data.size());
    kept.pop_front();
  }
  return pair;
}

}  // namespace volfft_test
