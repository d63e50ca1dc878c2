#include "reference.hpp"

#include <fftw3.h>

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

}  // namespace volfft_test
