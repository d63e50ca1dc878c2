// The folded backward of a one-rank r2c plan (core/folded_backward.hpp, plan/folded_backward.cpp),
// without MPI: where the blueprint folds (a stand-in cache, VOLFFT_TEST_CACHE_BYTES, so that no
// answer depends on the machine), the workspace it then asks for, and the run against the
// transform's definition: the r2c of random reals by FFTW's serial 3-D plan, folded back, must
// give N times those reals; the input stays as it was, and nothing is written past the output
// or the workspace. Shapes with odd, even, prime and tiny last axes (n2 = 1: every value aside;
// n2 = 2: one folded), rows longer and shorter than a block of lines, double and single
// precision, one thread and three (sharing the blocks and the planes).
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/fftw_api.hpp"
#include "core/blueprint.hpp"
#include "core/folded_backward.hpp"
#include "plan/folded_backward.hpp"
#include "unit/unit_main.hpp"

using namespace volfft;
using core::Index;

namespace {

core::Blueprint one_rank(const Options& o, std::vector<Index> shape = {8, 8, 8}, int ranks = 1,
                         Precision p = Precision::float64) {
  return core::make_blueprint(ranks, 0, shape, Kind::r2c, p, o);
}

void cache(long bytes) { setenv("VOLFFT_TEST_CACHE_BYTES", std::to_string(bytes).c_str(), 1); }

// r2c double 8^3: a spectrum of 8 x 8 x 5 values, 5 KiB. Folded where it is more than a third of
// the cache, out of place and keeping its input, at one rank, 3-D, fields outermost.
void where_it_folds() {
  unsetenv("VOLFFT_TEST_FOLDED");
  const Options o;
  cache(1 << 20);
  CHECK(!one_rank(o).folded_backward);  // 1/200 of the cache: the split's three arrays fit
  cache(15360);                         // exactly a third: not more
  CHECK(!one_rank(o).folded_backward);
  cache(15359);
  CHECK(one_rank(o).folded_backward);
  cache(4096);
  CHECK(one_rank(o).folded_backward);
  Options in_place = o, destroy = o, padded = o, inner = o, outer = o;
  in_place.in_place = true;
  destroy.destroy_input = true;
  padded.spectral_shape = {6, 6, 6};
  inner.batch = 2, inner.batch_layout = BatchLayout::inner;
  outer.batch = 2;
  CHECK(!one_rank(in_place).folded_backward);
  CHECK(!one_rank(destroy).folded_backward);
  CHECK(!one_rank(padded).folded_backward);
  CHECK(!one_rank(inner).folded_backward);
  CHECK(one_rank(outer).folded_backward);
  CHECK(!one_rank(o, {8, 8}).folded_backward);     // 2-D
  CHECK(!one_rank(o, {1, 8, 8}).folded_backward);  // axis 0 of one point
  CHECK(!one_rank(o, {8, 8, 8}, 2).folded_backward);  // two ranks
  Options c2c = o;
  CHECK(!core::make_blueprint(1, 0, {8, 8, 8}, Kind::c2c, Precision::float64, c2c).folded_backward);
  setenv("VOLFFT_TEST_FOLDED", "0", 1);
  CHECK(!one_rank(o).folded_backward);
  cache(1 << 20);
  setenv("VOLFFT_TEST_FOLDED", "1", 1);
  CHECK(one_rank(o).folded_backward);
  CHECK(!one_rank(in_place).folded_backward);  // forced only where the rest allows
  unsetenv("VOLFFT_TEST_FOLDED");
  unsetenv("VOLFFT_TEST_CACHE_BYTES");
}

// The plan's one buffer is the folded backward's workspace: the values aside and a line buffer
// and a scratch plane per thread, far below the spectrum the split holds.
void its_workspace() {
  setenv("VOLFFT_TEST_FOLDED", "1", 1);
  Options o;
  const core::Blueprint bp = one_rank(o, {64, 32, 30});
  const core::FoldedGeometry g = core::folded_geometry(bp);
  // Rows of 15 folded lines: four whole rows a block of 60 lines (at most 64), 8 blocks, and
  // one block of the 32 lines aside.
  CHECK(g.h == 16 && g.w == 15 && g.cols == 15 && g.rows == 4 && g.chunks == 1 && g.block == 60);
  // The buffer's rows: 60 lines and a cache line (4 complex doubles), 64 of them.
  CHECK(g.pitch == 64 && g.folded_blocks() == 8 && g.aside_blocks() == 1);
  CHECK(g.aside == 64 * 32 && g.slot == 64 * 64 + 32 * 16);
  CHECK(bp.buffer_count == 1);
  CHECK(bp.buffer_elements == g.workspace(1));
  o.threads = 3;
  const core::Blueprint threaded = one_rank(o, {64, 32, 30});
  CHECK(threaded.buffer_elements == g.workspace(3));
  CHECK(g.workspace(3) == g.aside + 3 * g.slot);
  setenv("VOLFFT_TEST_FOLDED", "0", 1);
  const core::Blueprint split = one_rank(Options{}, {64, 32, 30});
  CHECK_MSG(split.buffer_elements == 64 * 32 * 16, "the split's buffer: " << split.buffer_elements);
  CHECK(bp.workspace_bytes() < split.workspace_bytes() / 4);
  // Rows of odd, tiny and long lines round every part up to 8 values (64-byte starts).
  setenv("VOLFFT_TEST_FOLDED", "1", 1);
  const core::FoldedGeometry odd = core::folded_geometry(one_rank(Options{}, {3, 5, 7}));
  CHECK(odd.aside == 16 && odd.rows == 5 && odd.block == 15 && odd.pitch == 19);
  CHECK(odd.slot % 8 == 0 && odd.line_buffer() % 8 == 0);
  // Rows longer than a block: 130 folded lines in three blocks of at most 44 (whole cache lines:
  // 4 complex doubles), one row each; 100 in blocks of 52 and 48.
  const core::FoldedGeometry chunked = core::folded_geometry(one_rank(Options{}, {4, 3, 200}));
  CHECK(chunked.w == 100 && chunked.chunks == 2 && chunked.cols == 52 && chunked.block == 52);
  const core::FoldedGeometry long_rows = core::folded_geometry(one_rank(Options{}, {5, 3, 260}));
  CHECK(long_rows.w == 130 && long_rows.chunks == 3 && long_rows.cols == 44 && long_rows.rows == 1);
  CHECK(long_rows.block == 44 && long_rows.folded_blocks() == 9 && long_rows.aside_blocks() == 1);
  // n2 = 1: every value aside.
  const core::FoldedGeometry all_aside = core::folded_geometry(one_rank(Options{}, {4, 70, 1}));
  CHECK(all_aside.w == 0 && all_aside.folded_blocks() == 0 && all_aside.block == 64 && all_aside.aside_blocks() == 2);
  unsetenv("VOLFFT_TEST_FOLDED");
}

// The r2c of a whole n0 x n1 x n2 array by FFTW's serial plan, through the FFTW API of the
// library's backend (backend/fftw_api.hpp) of Real's precision.
template <class Real>
void fftw_r2c(Index n0, Index n1, Index n2, Real* in, std::complex<Real>* out) {
  using Api = std::conditional_t<sizeof(Real) == 8, backend::DoubleApi, backend::FloatApi>;
  const fftw_iodim64 dims[3] = {{n0, n1 * n2, n1 * (n2 / 2 + 1)}, {n1, n2, n2 / 2 + 1}, {n2, 1, 1}};
  const typename Api::plan p = Api::r2c(3, dims, 0, nullptr, in, out, FFTW_ESTIMATE);
  Api::exec_r2c(p, in, out);
  Api::destroy(p);
}

// One shape, one precision, one thread count: folded back from FFTW's r2c of random reals.
// `offset`: the output starts that many reals after a 64-byte boundary (0: whole cache lines, the
// streamed stores; 1: the ordinary ones, and the planes' unaligned FFTW plans).
template <class Real>
void check_run(std::vector<Index> shape, int threads, Index offset) {
  using Value = std::complex<Real>;
  const Precision precision = sizeof(Real) == 8 ? Precision::float64 : Precision::float32;
  setenv("VOLFFT_TEST_FOLDED", "1", 1);
  Options o;
  o.effort = Effort::estimate;  // plans on no array
  o.backend = Backend::fftw;
  o.threads = threads;
  const core::Blueprint bp = one_rank(o, shape, 1, precision);
  unsetenv("VOLFFT_TEST_FOLDED");
  CHECK(bp.folded_backward);
  const Index n0 = shape[0], n1 = shape[1], n2 = shape[2], h = n2 / 2 + 1;
  const Index reals = n0 * n1 * n2, values = n0 * n1 * h;
  std::mt19937 random(static_cast<unsigned>(n0 * 10007 + n1 * 101 + n2 + threads));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Real> x(static_cast<std::size_t>(reals));
  for (Real& v : x) v = static_cast<Real>(uniform(random));
  std::vector<Real> x_copy = x;  // x stays the reference whatever the r2c does with its input
  std::vector<Value> spectrum(static_cast<std::size_t>(values));
  fftw_r2c(n0, n1, n2, x_copy.data(), spectrum.data());
  const std::vector<Value> kept = spectrum;
  // Guards: 64 values past the output and past the workspace must stay as written.
  const Index guard = 64, work = bp.buffer_elements;
  const std::size_t output_bytes = (sizeof(Real) * std::size_t(offset + reals + guard) + 63) / 64 * 64;
  Real* output_base = static_cast<Real*>(std::aligned_alloc(64, output_bytes));
  Real* output = output_base + offset;
  std::fill(output, output + reals + guard, Real(7));
  Value* workspace = static_cast<Value*>(fftw_malloc(sizeof(Value) * std::size_t(work + guard)));
  for (Index k = 0; k < work + guard; ++k) workspace[k] = Value(Real(5), Real(-5));
  // Planning arrays as the plan's (64-byte aligned, at least its buffer and either side); an
  // estimated plan reads and writes neither.
  const std::size_t planning = sizeof(Value) * std::size_t(std::max(work, values));
  void* plan_in = fftw_malloc(planning);
  void* plan_out = fftw_malloc(planning);
  const plan::FoldedBackward folded(bp, o, plan_in, plan_out);
  folded.run(spectrum.data(), workspace, output);
  const std::string what = std::to_string(n0) + "x" + std::to_string(n1) + "x" + std::to_string(n2) +
                           (sizeof(Real) == 8 ? " double" : " float") + ", " + std::to_string(threads) + " thread(s), output at +" +
                           std::to_string(offset);
  double largest = 0;
  for (Index k = 0; k < reals; ++k)
    largest = std::max(largest, std::abs(double(output[std::size_t(k)]) / double(reals) - double(x[std::size_t(k)])));
  const double tolerance = sizeof(Real) == 8 ? 1e-12 : 2e-5;
  CHECK_MSG(largest < tolerance, what << ": largest error " << largest);
  bool input_kept = std::memcmp(kept.data(), spectrum.data(), sizeof(Value) * kept.size()) == 0;
  CHECK_MSG(input_kept, what << ": the input changed");
  bool output_guard = true, work_guard = true;
  for (Index k = reals; k < reals + guard; ++k) output_guard = output_guard && output[std::size_t(k)] == Real(7);
  for (Index k = work; k < work + guard; ++k) work_guard = work_guard && workspace[k] == Value(Real(5), Real(-5));
  CHECK_MSG(output_guard, what << ": written past the output");
  CHECK_MSG(work_guard, what << ": written past the workspace");
  // A second run on the same arrays (the workspace as the first left it) gives the same.
  std::vector<Real> first(output, output + reals);
  folded.run(spectrum.data(), workspace, output);
  CHECK_MSG(std::memcmp(first.data(), output, sizeof(Real) * first.size()) == 0, what << ": a second run differs");
  std::free(output_base);
  fftw_free(workspace);
  fftw_free(plan_in);
  fftw_free(plan_out);
}

void runs_as_the_transform() {
  const std::vector<std::vector<Index>> shapes = {{2, 1, 1},  {2, 3, 2},   {3, 5, 7},  {5, 4, 9},   {7, 6, 10},
                                                  {2, 2, 2},  {11, 13, 17}, {16, 8, 33}, {6, 130, 4}, {4, 3, 200},
                                                  {9, 70, 128}, {5, 3, 260}, {4, 70, 1}, {3, 33, 16}};
  for (int threads : {1, 3})
    for (Index offset : {0, 1})
      for (const auto& shape : shapes) {
        check_run<double>(shape, threads, offset);
        check_run<float>(shape, threads, offset);
      }
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests("test_unit_folded_backward", {{"where_it_folds", where_it_folds},
                                                                   {"its_workspace", its_workspace},
                                                                   {"runs_as_the_transform", runs_as_the_transform}});
}
