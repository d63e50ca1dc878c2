// Normalisation options: Options::scale_forward multiplies forward() by 1/N, scale_backward
// backward(). A plan with scale_forward and without scale_backward (numpy's norm="forward") must
// give the default plan's forward divided by N, and backward(forward(x)) == x; N is the product
// of the logical sizes (2n for a DCT-II). c2c, r2c and r2r; one and two fields; in place; every
// engine on every grid; shapes that leave ranks empty. Where the first exchange scales on its
// copies (every engine but alltoallw, whose datatypes copy nothing of volfft's) the forward has
// no "scale" phase: the factor costs no pass over the output. Run at np 1-4, --quick at 5 and 7.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mpi/transform_check.hpp"
#include "support/check.hpp"
#include "support/mpi_main.hpp"
#include "support/reference.hpp"
#include "volfft/plan.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

double max_over_ranks(double x) {
  double m = x;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

void check_norm(const std::vector<Index>& shape, Kind kind, Options o, const std::string& label) {
  o.effort = Effort::estimate;
  if (kind == Kind::r2r) o.kinds.assign(shape.size(), AxisKind::dct2);
  Plan reference_plan(MPI_COMM_WORLD, shape, kind, Precision::float64, o);
  Options forward_norm = o;
  forward_norm.scale_forward = true, forward_norm.scale_backward = false;
  Plan plan(MPI_COMM_WORLD, shape, kind, Precision::float64, forward_norm);
  // Reals per element on each side: r2c's input and both of r2r's sides are real.
  const Index in_reals = kind == Kind::c2c ? 2 : 1, out_reals = kind == Kind::r2r ? 1 : 2;
  const std::size_t in_size = static_cast<std::size_t>(plan.input_count() * in_reals);
  const std::size_t out_size = static_cast<std::size_t>(plan.output_count() * out_reals);
  const std::size_t one = std::max<std::size_t>({plan.in_place_bytes() / 8, in_size, out_size, std::size_t(1)});
  std::vector<double> x(one), back(one);
  for (std::size_t k = 0; k < in_size; ++k) x[k] = value_at(static_cast<Index>(k) + 7919, 3);
  std::vector<double> fa(one), fb(one);  // the two plans' forward outputs
  if (o.in_place) {
    fa = x, fb = x;  // each array starts as the input
    reference_plan.forward_raw(fa.data(), fa.data());
    plan.forward_raw(fb.data(), fb.data());
  } else {
    reference_plan.forward_raw(x.data(), fa.data());
    plan.forward_raw(x.data(), fb.data());
  }
  Index n = 1;
  for (Index e : shape) n *= (kind == Kind::r2r ? 2 * e : e);
  double err = 0, size = 0;
  for (std::size_t k = 0; k < out_size; ++k) {
    err = std::max(err, std::abs(fb[k] * static_cast<double>(n) - fa[k]));
    size = std::max(size, std::abs(fa[k]));
  }
  err = max_over_ranks(err), size = max_over_ranks(size);
  CHECK_MSG(err <= 1e-13 * size, label << ": forward with scale_forward * N differs from the unscaled forward by " << err
                                       << " (largest value " << size << ")");
  bool scale_phase = false;
  for (const Phase& p : plan.timings(Direction::forward)) scale_phase = scale_phase || p.name == "scale";
  const bool exchanges = !plan.description().exchanges.empty();
  if (exchanges && plan.engine() != Engine::alltoallw)
    CHECK_MSG(!scale_phase, label << ": the forward scale took a pass of its own instead of riding on the exchange");
  // Unscaled backward of the 1/N forward: the input again.
  if (o.in_place) {
    plan.backward_raw(fb.data(), fb.data());
    back = fb;
  } else {
    plan.backward_raw(fb.data(), back.data());
  }
  // An in-place r2c input's rows are padded to 2(n/2 + 1) reals: the padding holds nothing.
  const Index n_last = shape.back(), row = kind == Kind::r2c && o.in_place ? 2 * (n_last / 2 + 1) : n_last;
  double rt = 0, xs = 0;
  for (std::size_t k = 0; k < in_size; ++k)
    if (static_cast<Index>(k) % row < n_last) rt = std::max(rt, std::abs(back[k] - x[k])), xs = std::max(xs, std::abs(x[k]));
  rt = max_over_ranks(rt), xs = max_over_ranks(xs);
  CHECK_MSG(rt <= 1e-13 * std::max(xs, 1.0), label << ": round trip (forward 1/N, backward unscaled) off by " << rt);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = has_flag(argc, argv, "--quick");
  return run_mpi_test(argc, argv, [quick](int rank, int size) {
    const std::vector<std::array<int, 2>> grids = all_grids(size);
    int cases = 0;
    for (Kind kind : {Kind::c2c, Kind::r2c, Kind::r2r})
      for (const auto& g : grids)
        for (Engine e : engines()) {
          if (e == Engine::automatic || (e == Engine::persistent && !persistent_tested()) ||
              (quick && e != Engine::alltoallv && e != Engine::node))
            continue;
          for (bool in_place : {false, true})
            for (int batch : {1, 2}) {
              if (in_place && e == Engine::pipelined) continue;  // refused on slabs; test_in_place covers pencils
              if (quick && batch == 2) continue;
              Options o;
              o.grid = g, o.engine = e, o.in_place = in_place, o.batch = batch;
              const std::string label = std::string(to_string(kind)) + " grid " + std::to_string(g[0]) + "x" +
                                        std::to_string(g[1]) + " " + to_string(e) + (in_place ? " in place" : "") +
                                        " batch " + std::to_string(batch);
              check_norm({6, 5, 8}, kind, o, label);
              if (!quick) check_norm({2, 3, 4}, kind, o, label + " (ranks left empty)");
              cases += 2;
            }
        }
    if (rank == 0) std::printf("%d normalisation cases at np %d\n", cases, size);
  });
}
