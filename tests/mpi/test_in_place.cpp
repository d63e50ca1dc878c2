// In-place plans (Options::in_place): forward(a, a) and backward(a, a) on one array of
// in_place_bytes(), against the serial reference, for c2c and r2c (FFTW's padded rows), 2-D
// and 3-D, uneven and prime sizes, shapes that leave ranks empty, slab and pencil grids, every
// engine that applies, both layouts, both backends, single and double precision. The array is
// filled with garbage past the input first, so a plan that read beyond its input or counted
// padding as data would fail. The misuses (two arrays on an in-place plan, one array on an
// out-of-place plan, in_place with spectral_shape, pipelined on slabs) fail alike on every rank.
// Options::min_memory: its engine, workspace and transforms, and what it refuses.
// Run at np 1-4, and with --quick at np 5 and 7.
#include <cstdio>
#include <cstdlib>

#include "mpi/transform_check.hpp"
#include "support/errors.hpp"
#include "support/mpi_main.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

template <class Real>
void check_in_place(MPI_Comm comm, const std::vector<Index>& shape, Kind kind, const Options& given,
                    const std::string& label) {
  using C = std::complex<Real>;
  Options options = given;
  options.in_place = true;
  const auto precision = std::is_same<Real, double>::value ? Precision::float64 : Precision::float32;
  Plan plan(comm, shape, kind, precision, options);
  CHECK_MSG(plan.in_place(), label << ": in_place() is false");
  const int nd = static_cast<int>(shape.size());
  const std::array<Index, 3> s3 = nd == 3 ? std::array<Index, 3>{shape[0], shape[1], shape[2]}
                                          : std::array<Index, 3>{shape[0], shape[1], 1};
  const Index n_total = s3[0] * s3[1] * s3[2];
  const auto pair = reference_pair(s3, kind == Kind::r2c);
  const std::vector<cd>& global = pair->data;
  const std::vector<cd>& ref = pair->transform;
  auto flat = [&](const std::array<Index, 3>& x) {
    return nd == 3 ? (x[0] * s3[1] + x[1]) * s3[2] + x[2] : x[0] * s3[1] + x[1];
  };
  auto for_box = [&](const Box& b, auto&& f) {
    for (Index x0 = b.lo[0]; x0 < b.hi[0]; ++x0)
      for (Index x1 = b.lo[1]; x1 < b.hi[1]; ++x1)
        for (Index x2 = b.lo[2]; x2 < (nd == 3 ? b.hi[2] : 1); ++x2) f(std::array<Index, 3>{x0, x1, x2});
  };

  // The one array: in_place_bytes() exactly, and holding both sides' counts.
  const std::size_t bytes = plan.in_place_bytes();
  const std::size_t in_element = kind == Kind::r2c ? sizeof(Real) : sizeof(C);
  CHECK_MSG(bytes == std::max<std::size_t>(plan.input_count() * in_element, plan.output_count() * sizeof(C)),
            label << ": in_place_bytes " << bytes << " is not the larger side");
  std::vector<C> array(std::max<std::size_t>(bytes / sizeof(C), 1) + 1);  // + 1: room to misalign nothing
  Real* reals = reinterpret_cast<Real*>(array.data());
  // Garbage everywhere first: padding and the room past the input must not leak into results.
  for (std::size_t k = 0; k < array.size(); ++k) array[k] = C(Real(1e3 + k % 7), Real(-5e2));
  // The input layout: C order over the input box, r2c rows of 2(n/2 + 1) reals.
  const Box in_box = plan.input_box();
  const Index last = nd == 3 ? in_box.extent(2) : in_box.extent(1);
  const Index row = kind == Kind::r2c ? 2 * (shape[nd - 1] / 2 + 1) : last;
  CHECK_MSG(kind == Kind::c2c || plan.input_count() == (last ? in_box.size() / last * row : 0),
            label << ": r2c input_count " << plan.input_count() << " does not count padded rows");
  auto in_offset = [&](const std::array<Index, 3>& x) {
    const Index lead = nd == 3 ? (x[0] - in_box.lo[0]) * in_box.extent(1) + (x[1] - in_box.lo[1]) : x[0] - in_box.lo[0];
    const Index along = nd == 3 ? x[2] - in_box.lo[2] : x[1] - in_box.lo[1];
    return lead * row + along;
  };
  for_box(in_box, [&](auto x) {
    const cd v = global[flat(x)];
    if (kind == Kind::r2c)
      reals[in_offset(x)] = Real(v.real());
    else
      array[in_offset(x)] = C(Real(v.real()), Real(v.imag()));
  });

  if (kind == Kind::r2c)
    plan.forward(reals, array.data());
  else
    plan.forward(array.data(), array.data());
  const LocalLayout out_arr(plan.output_box(), plan.output_order(), nd);
  double sums[2] = {0, 0}, total[2];
  for_box(out_arr.box, [&](auto x) {
    const C v = array[out_arr.offset(x)];
    sums[0] += std::norm(cd(v.real(), v.imag()) - ref[flat(x)]);
    sums[1] += std::norm(ref[flat(x)]);
  });
  MPI_Allreduce(sums, total, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double tol = transform_tolerance<Real>(n_total);
  const double rel = total[1] > 0 ? std::sqrt(total[0] / total[1]) : std::sqrt(total[0]);
  CHECK_MSG(rel <= tol, label << ": in-place forward relative L2 error " << rel << " > " << tol);

  if (kind == Kind::r2c)
    plan.backward(array.data(), reals);
  else
    plan.backward(array.data(), array.data());
  double rt[2] = {0, 0}, rtt[2];
  for_box(in_box, [&](auto x) {
    const cd want = global[flat(x)];
    const cd got = kind == Kind::r2c ? cd(reals[in_offset(x)], 0)
                                     : cd(array[in_offset(x)].real(), array[in_offset(x)].imag());
    rt[0] += std::norm(got - want);
    rt[1] += std::norm(want);
  });
  MPI_Allreduce(rt, rtt, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double round_trip = std::sqrt(rtt[0] / std::max(rtt[1], 1e-300));
  CHECK_MSG(round_trip <= tol, label << ": in-place round trip relative error " << round_trip << " > " << tol);
}

std::string grid_label(const std::array<int, 2>& g) { return std::to_string(g[0]) + "x" + std::to_string(g[1]); }

}  // namespace

int main(int argc, char** argv) {
  const bool quick = has_flag(argc, argv, "--quick");
  return run_mpi_test(argc, argv, [quick](int rank, int size) {
    struct Shape {
      std::vector<Index> n;
      Kind kind;
    };
    // Uneven and prime sizes, odd and even r2c lengths, and (at np >= 3) shapes smaller than
    // the rank count, which leave ranks without data.
    std::vector<Shape> shapes = {{{12, 10, 9}, Kind::c2c}, {{11, 7, 13}, Kind::r2c}, {{10, 9, 8}, Kind::r2c},
                                 {{17, 6}, Kind::c2c},     {{9, 13}, Kind::r2c},     {{2, 3, 5}, Kind::r2c},
                                 {{3, 2, 4}, Kind::c2c}};
    if (quick) shapes = {{{11, 7, 13}, Kind::r2c}, {{12, 10, 9}, Kind::c2c}, {{2, 3, 5}, Kind::r2c}};
    int p0 = 1;
    for (int d = 1; d * d <= size; ++d)
      if (size % d == 0) p0 = d;
    std::vector<std::array<int, 2>> grids = {{size, 1}};
    if (p0 > 1) grids.push_back({p0, size / p0});
    if (size > 1) grids.push_back({1, size});
    std::vector<Backend> backends = {Backend::fftw};
    if (have_backend(Backend::ducc0)) backends.push_back(Backend::ducc0);
    int cases = 0;
    for (const Shape& s : shapes)
      for (const auto& g : grids) {
        if (s.n.size() == 2 && g[1] != 1) continue;  // 2-D: slabs only
        for (Engine engine : engines()) {
          if (engine == Engine::automatic) continue;
          if (engine == Engine::persistent && !persistent_tested()) continue;
          const bool slab_exchange = size > 1 && (g[0] == 1 || g[1] == 1);
          if (engine == Engine::pipelined && slab_exchange) continue;  // refused: checked below
          for (Backend backend : backends)
            for (Layout layout : {Layout::transposed, Layout::natural}) {
              if (quick && (backend != Backend::fftw || layout != Layout::transposed)) continue;
              if (engine != Engine::alltoallv && (backend != Backend::fftw || layout != Layout::transposed)) continue;
              Options o;
              o.grid = g, o.engine = engine, o.backend = backend, o.layout = layout, o.effort = Effort::estimate;
              const std::string label = shape_text(s.n, s.kind, "double") + " grid " + grid_label(g) + " " +
                                        to_string(engine) + " " + to_string(backend) + " " + to_string(layout);
              check_in_place<double>(MPI_COMM_WORLD, s.n, s.kind, o, label);
              ++cases;
            }
        }
      }
    // Single precision, and engine auto (node here) with FFTW's measured plans and threads.
    for (const Shape& s : shapes) {
      Options o;
      o.effort = Effort::measure;
      o.threads = 2;
      check_in_place<float>(MPI_COMM_WORLD, s.n, s.kind, o, shape_text(s.n, s.kind, "float") + " auto threads 2");
      ++cases;
    }

    // Minimum memory (Options::min_memory): engine auto becomes alltoallw (one buffer, no send
    // area), FFTW's plans are estimated; the transform is the same, with both backends; it does
    // not combine with timing (backend auto, tune) on any rank.
    for (const Shape& s : shapes)
      for (Backend backend : backends) {
        Options o;
        o.min_memory = true, o.backend = backend;
        check_in_place<double>(MPI_COMM_WORLD, s.n, s.kind, o,
                               shape_text(s.n, s.kind, "double") + " min_memory " + to_string(backend));
        o.in_place = true;
        Plan plan(MPI_COMM_WORLD, s.n, s.kind, Precision::float64, o);
        CHECK_MSG(plan.engine() == Engine::alltoallw, "min_memory: engine " << to_string(plan.engine()));
        Options w = o;
        w.engine = Engine::alltoallw, w.min_memory = false;
        CHECK_MSG(plan.workspace_bytes() ==
                      Plan::required_workspace_bytes(size, rank, s.n, s.kind, Precision::float64, w),
                  "min_memory: workspace " << plan.workspace_bytes() << " is not alltoallw's");
        CHECK_MSG(plan.workspace_bytes() ==
                      Plan::required_workspace_bytes(size, rank, s.n, s.kind, Precision::float64, o),
                  "min_memory: required_workspace_bytes disagrees with the plan");
        ++cases;
      }
    {
      Options o;
      o.min_memory = true, o.backend = Backend::automatic;
      expect_everywhere("min_memory with backend auto",
                        error_of([&] { Plan p(MPI_COMM_WORLD, {8, 6, 5}, Kind::c2c, Precision::float64, o); }),
                        "min_memory does not combine with backend 'auto'");
      o.backend = Backend::fftw, o.tune = 1;
      expect_everywhere("min_memory with tune",
                        error_of([&] { Plan p(MPI_COMM_WORLD, {8, 6, 5}, Kind::c2c, Precision::float64, o); }),
                        "min_memory does not combine with tune > 0");
    }

    // Misuse: the same error on every rank, and no rank left waiting.
    {
      Options o;
      o.in_place = true;
      Plan plan(MPI_COMM_WORLD, {8, 6, 5}, Kind::c2c, Precision::float64, o);
      std::vector<std::complex<double>> a(plan.in_place_bytes() / 16 + 1), b(a.size());
      expect_everywhere("two arrays on an in-place plan", error_of([&] { plan.forward(a.data(), b.data()); }),
                        "forward of an in-place plan (Options::in_place) needs in == out");
      expect_everywhere("two arrays on an in-place plan, backward",
                        error_of([&] { plan.backward(a.data(), b.data()); }), "needs in == out");
      plan.forward(a.data(), a.data());  // the plan still works after a refused call
    }
    {
      Plan plan(MPI_COMM_WORLD, {8, 6, 5}, Kind::c2c, Precision::float64, Options{});
      std::vector<std::complex<double>> a(plan.in_place_bytes() / 16 + 1);
      expect_everywhere("one array on an out-of-place plan", error_of([&] { plan.forward(a.data(), a.data()); }),
                        "make the plan with Options::in_place");
    }
    {
      Options o;
      o.in_place = true;
      o.spectral_shape = {4, 4, 4};
      expect_everywhere("in_place with spectral_shape",
                        error_of([&] { Plan p(MPI_COMM_WORLD, {8, 8, 8}, Kind::c2c, Precision::float64, o); }),
                        "in_place does not combine with spectral_shape");
    }
    if (size > 1) {
      Options o;
      o.in_place = true;
      o.engine = Engine::pipelined;
      o.grid = {size, 1};
      expect_everywhere("pipelined slabs in place",
                        error_of([&] { Plan p(MPI_COMM_WORLD, {16, 12, 10}, Kind::r2c, Precision::float64, o); }),
                        "engine 'pipelined' does not apply to an in-place plan with one exchange");
    }
    if (rank == 0) std::printf("%d in-place cases at np %d\n", cases, size);
  });
}
