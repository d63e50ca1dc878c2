// Plans of 4 and 5 axes (core/trailing_axes.hpp: the plan of the first three axes with the
// trailing values as interleaved fields, then each rank's transform of the trailing axes): c2c
// with every axis a DFT and with mixed DFT, DCT/DST and none axes, r2r plans, against the
// kinds' defining sums over the whole array; backward(forward(x)) == x with the 1/N of every
// axis. Every grid, engines alltoallv, node, p2p and pipelined, both layouts, in place, fields
// (batch_layout inner), single precision, split phase, uneven and prime sizes, ranks left empty.
// The N-D arguments that are refused fail alike on every rank, also when ranks disagree about
// the trailing axes. Run at np 1-4, and --quick at 5 and 7.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "mpi/transform_check.hpp"
#include "support/errors.hpp"
#include "volfft/distribution.hpp"
#include "support/kinds_reference.hpp"
#include "support/mpi_main.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

// Offsets of global N-D indices in a rank's array: the leading plan's box (3 axes) in `order`
// (N entries, the trailing axes last) and the trailing axes whole; `fields` interleaved fastest.
struct NdArray {
  std::vector<Index> lo, extent, strides;
  Index fields = 1;
  NdArray(const Box& box, const std::vector<int>& order, const std::vector<Index>& shape, Index f) : fields(f) {
    const std::size_t nd = shape.size();
    lo.assign(nd, 0), extent = shape, strides.assign(nd, 0);
    for (int a = 0; a < 3; ++a) lo[a] = box.lo[a], extent[a] = box.extent(a);
    Index s = fields;
    for (std::size_t k = nd; k-- > 0;) {
      strides[order[k]] = s;
      s *= extent[order[k]];
    }
  }
  Index size() const {
    Index n = fields;
    for (Index e : extent) n *= e;
    return n;
  }
  // Calls f(global flat index in C order of `shape`, local offset) for every element.
  template <class F>
  void for_each(const std::vector<Index>& shape, F&& f) const {
    const std::size_t nd = shape.size();
    if (size() == 0) return;
    std::vector<Index> x(lo);
    while (true) {
      Index flat = 0, off = 0;
      for (std::size_t a = 0; a < nd; ++a) flat = flat * shape[a] + x[a], off += (x[a] - lo[a]) * strides[a];
      f(flat, off);
      std::size_t a = nd;
      while (a-- > 0) {
        if (++x[a] < lo[a] + extent[a]) break;
        x[a] = lo[a];
        if (a == 0) return;
      }
    }
  }
};

template <class Real>
void check_nd(const std::vector<Index>& shape, Kind kind, const std::vector<AxisKind>& kinds, Options o,
              const std::string& label, bool split_phase = false,
              const std::optional<LocalArray>& user_in = std::nullopt,
              const std::optional<LocalArray>& user_out = std::nullopt) {
  constexpr bool single = std::is_same<Real, float>::value;
  using C = std::complex<Real>;
  o.kinds = kinds;
  const Precision precision = single ? Precision::float32 : Precision::float64;
  Plan plan = user_in || user_out ? Plan(MPI_COMM_WORLD, shape, kind, precision, o, user_in, user_out)
                                  : Plan(MPI_COMM_WORLD, shape, kind, precision, o);
  const bool real = kind == Kind::r2r;
  const Index fields = std::max(o.batch, 1);
  CHECK_MSG(plan.ndim() == static_cast<int>(shape.size()), label << ": ndim " << plan.ndim());
  CHECK_MSG(plan.shape() == shape, label << ": shape");
  Index n_total = 1;
  for (Index e : shape) n_total *= e;
  std::vector<std::vector<cd>> globals, refs;
  for (Index f = 0; f < fields; ++f) {
    std::vector<cd> g(n_total);
    for (Index k = 0; k < n_total; ++k) g[k] = real ? cd(value_at(k, 1 + 3 * f), 0) : cd(value_at(k, 1 + 3 * f), value_at(k, 2 + 3 * f));
    refs.push_back(reference(g, shape, kinds.empty() ? std::vector<AxisKind>(shape.size(), AxisKind::dft) : kinds));
    globals.push_back(std::move(g));
  }
  const NdArray in_arr(plan.input_box(), plan.input_order(), shape, fields);
  const NdArray out_arr(plan.output_box(), plan.output_order(), shape, fields);
  CHECK_MSG(in_arr.size() == plan.input_count(), label << ": input_count " << plan.input_count() << " vs " << in_arr.size());
  CHECK_MSG(out_arr.size() == plan.output_count(), label << ": output_count " << plan.output_count() << " vs " << out_arr.size());
  const std::size_t value_bytes = real ? sizeof(Real) : sizeof(C);
  const std::size_t bytes = std::max<std::size_t>({plan.in_place_bytes(), static_cast<std::size_t>(plan.input_count()) * value_bytes,
                                                    static_cast<std::size_t>(plan.output_count()) * value_bytes, 16});
  std::vector<C> a(bytes / sizeof(C) + 1), b(bytes / sizeof(C) + 1), c(bytes / sizeof(C) + 1);
  auto put = [&](std::vector<C>& arr, Index off, cd v) {
    if (real) reinterpret_cast<Real*>(arr.data())[off] = static_cast<Real>(v.real());
    else arr[off] = C(static_cast<Real>(v.real()), static_cast<Real>(v.imag()));
  };
  auto get = [&](const std::vector<C>& arr, Index off) {
    if (real) return cd(reinterpret_cast<const Real*>(arr.data())[off], 0);
    return cd(arr[off].real(), arr[off].imag());
  };
  for (Index f = 0; f < fields; ++f)
    in_arr.for_each(shape, [&](Index flat, Index off) { put(a, off + f, globals[f][flat]); });
  std::vector<C> original = a;
  C* out = o.in_place ? a.data() : b.data();
  if (split_phase) {
    Request r = plan.forward_start(a.data(), out);
    r.wait();
  } else {
    plan.forward_raw(a.data(), out);
  }
  const std::vector<C>& spectrum = o.in_place ? a : b;
  double err = 0, norm = 0;
  for (Index f = 0; f < fields; ++f)
    out_arr.for_each(shape, [&](Index flat, Index off) {
      err += std::norm(get(spectrum, off + f) - refs[f][flat]);
      norm += std::norm(refs[f][flat]);
    });
  double sums[2] = {err, norm};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double tol = transform_tolerance<Real>(n_total) * (single ? 4 : 40);
  CHECK_MSG(std::sqrt(sums[0] / std::max(sums[1], 1e-300)) <= tol,
            label << ": forward error " << std::sqrt(sums[0] / std::max(sums[1], 1e-300)) << " > " << tol);
  C* back = o.in_place ? a.data() : c.data();
  plan.backward_raw(out, back);
  double rt = 0, rn = 0;
  for (Index f = 0; f < fields; ++f)
    in_arr.for_each(shape, [&](Index flat, Index off) {
      rt += std::norm(get(o.in_place ? a : c, off + f) - globals[f][flat]);
      rn += std::norm(globals[f][flat]);
    });
  double rs[2] = {rt, rn};
  MPI_Allreduce(MPI_IN_PLACE, rs, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK_MSG(std::sqrt(rs[0] / std::max(rs[1], 1e-300)) <= tol,
            label << ": round trip error " << std::sqrt(rs[0] / std::max(rs[1], 1e-300)));
  if (!o.in_place) CHECK_MSG(original == a, label << ": forward modified its input");
  // The trailing axes' own phase, where the plan's FFT batches do not take them, comes last.
  const auto t = plan.timings(Direction::forward);
  for (std::size_t k = 0; k + 1 < t.size(); ++k)
    CHECK_MSG(t[k].name != "fft_trailing", label << ": phase fft_trailing at " << k << " of " << t.size());
}

std::string grid_label(const std::array<int, 2>& g) { return std::to_string(g[0]) + "x" + std::to_string(g[1]); }

void check_errors(int rank, int size) {
  const std::vector<Index> shape{4, 3, 5, 2};
  auto plan_error = [&](std::vector<Index> s, Kind kind, Options o) {
    return error_of([&] { Plan p(MPI_COMM_WORLD, s, kind, Precision::float64, o); });
  };
  Options o;
  expect_everywhere("r2c 4-D", plan_error(shape, Kind::r2c, o), "r2c plans take 2 or 3 axes; got shape with 4");
  o.batch = 2;
  expect_everywhere("batch outer", plan_error(shape, Kind::c2c, o),
                    "batch with batch_layout 'outer' takes 2-D and 3-D plans");
  o = Options{};
  o.kinds = {AxisKind::dft, AxisKind::dft, AxisKind::dft};
  expect_everywhere("kinds length", plan_error(shape, Kind::c2c, o), "kinds must have one entry per axis (4); got 3");
  o.kinds = {AxisKind::dft, AxisKind::dft, AxisKind::dft, AxisKind::dct1};
  expect_everywhere("dct1 of 1", plan_error({4, 3, 5, 1}, Kind::c2c, o), "kinds[3] is 'dct1': DCT-I needs at least 2 points");
  o.kinds = {AxisKind::dct2, AxisKind::dct2, AxisKind::dct2, AxisKind::dft};
  expect_everywhere("r2r dft", plan_error(shape, Kind::r2r, o), "kinds[3] is 'dft', but an r2r plan's data is real");
  o = Options{};
  expect_everywhere("size 0", plan_error({4, 3, 5, 0}, Kind::c2c, o), "shape[3] must be a positive size; got 0");
  o.spectral_shape = {2, 2, 2, 2};
  expect_everywhere("padding", plan_error(shape, Kind::c2c, o), "spectral_shape (padding) takes 2-D and 3-D plans");
  // Ranks that disagree about the trailing axes, with the same number of values, fail together
  // instead of transforming different arrays.
  o = Options{};
  const std::vector<Index> mine = rank == 0 ? std::vector<Index>{4, 3, 5, 2, 3} : std::vector<Index>{4, 3, 5, 3, 2};
  if (size > 1)
    expect_everywhere("disagree", plan_error(mine, Kind::c2c, o),
                      "plan arguments differ across ranks: shape is (4, 3, 5, 2, 3) on rank 0 but (4, 3, 5, 3, 2) on rank 1");
  // A 3-D shape on one rank against a 4-D one on the others.
  const std::vector<Index> mixed = rank == 0 ? std::vector<Index>{4, 3, 5} : std::vector<Index>{4, 3, 5, 1};
  if (size > 1)
    expect_everywhere("3-D and 4-D", plan_error(mixed, Kind::c2c, o), "shape is (4, 3, 5) on rank 0 but (4, 3, 5, 1) on rank 1");
  // User arrays: no ghost layers (the trailing transforms would overwrite them), and an order of
  // all axes keeps the trailing ones last.
  LocalArray in;
  in.box = bricks({4, 3, 5}, size)[static_cast<std::size_t>(rank)];
  in.storage = in.box;
  in.storage.hi[0] += 1;
  expect_everywhere("user ghosts",
                    error_of([&] { Plan p(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, Options{}, in, std::nullopt); }),
                    "the input array of a plan of 4 axes takes no ghost layers or padding");
  in.storage = Box{};
  in.order = {0, 1, 3, 2};
  expect_everywhere("user order",
                    error_of([&] { Plan p(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, Options{}, in, std::nullopt); }),
                    "must hold its trailing axes (3 and up) last, in order");
  // Errors name the argument the same way through describe() (pure).
  CHECK_THROWS_WITH(describe(2, shape, Kind::r2c, Precision::float64, Options{}), "r2c plans take 2 or 3 axes");
}

}  // namespace

int main(int argc, char** argv) {
  return run_mpi_test(argc, argv, [&](int rank, int size) {
    const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
    using K = AxisKind;
    // Shapes: even, prime and uneven sizes, a first axis shorter than the ranks (empty ranks at 4+),
    // 4 and 5 axes.
    const std::vector<std::vector<Index>> shapes{{4, 6, 5, 3}, {7, 5, 3, 2}, {2, 3, 4, 5}, {3, 4, 5, 2, 3}};
    for (const auto& shape : shapes)
      for (const auto& g : all_grids(size)) {
        if (quick && g[1] != 1 && g[0] != 1 && shape.size() > 4) continue;
        Options o;
        o.grid = g;
        const std::string label = "c2c " + std::to_string(shape.size()) + "-D grid " + grid_label(g);
        check_nd<double>(shape, Kind::c2c, {}, o, label);
        std::vector<K> mixed(shape.size(), K::dft);
        mixed[1] = K::dct2, mixed[3] = K::dst1;
        if (shape.size() > 4) mixed[4] = K::none;
        check_nd<double>(shape, Kind::c2c, mixed, o, label + " mixed kinds");
        std::vector<K> real(shape.size(), K::dct2);
        real[0] = K::dst2, real[3] = K::dct4;
        if (shape.size() > 4) real[4] = K::dct1;
        check_nd<double>(shape, Kind::r2r, real, o, "r2r " + label);
      }
    // The automatic plan (its grid and engine by rule), the other engines, layouts, in place,
    // fields, float and split phase on one 4-D shape.
    const std::vector<Index> shape{5, 4, 6, 3};
    check_nd<double>(shape, Kind::c2c, {}, Options{}, "automatic");
    std::vector<Engine> engines{Engine::alltoallv, Engine::node, Engine::p2p, Engine::pipelined, Engine::alltoallw};
    for (Engine e : engines) {
      Options o;
      o.engine = e;
      check_nd<double>(shape, Kind::c2c, {}, o, std::string("engine ") + to_string(e));
      if (quick) continue;
      o.in_place = e != Engine::pipelined;  // pipelined on slabs refuses in place
      o.grid = {size, 1};
      if (o.in_place) check_nd<double>(shape, Kind::c2c, {}, o, std::string("in place, engine ") + to_string(e));
    }
    for (Layout layout : {Layout::natural, Layout::transposed}) {
      Options o;
      o.layout = layout;
      check_nd<double>(shape, Kind::c2c, {}, o, std::string("layout ") + to_string(layout));
      o.in_place = true;
      check_nd<double>(shape, Kind::r2r, {K::dct2, K::dct3, K::dst2, K::dct1}, o,
                       std::string("r2r in place, layout ") + to_string(layout));
      o.batch = 2, o.batch_layout = BatchLayout::inner;
      check_nd<double>(shape, Kind::c2c, {}, o, std::string("fields inner in place, layout ") + to_string(layout));
      o.in_place = false;
      check_nd<double>(shape, Kind::c2c, {K::dft, K::none, K::dft, K::dct2}, o,
                       std::string("fields inner, none axis, layout ") + to_string(layout));
    }
    {
      Options o;
      check_nd<float>(shape, Kind::c2c, {}, o, "float c2c");
      check_nd<float>(shape, Kind::r2r, {K::dct2, K::dct2, K::dct2, K::dst3}, o, "float r2r");
      check_nd<double>(shape, Kind::c2c, {}, o, "split phase", true);
      o.scale_forward = true, o.scale_backward = false;
      // forward scaled by 1/N: compare against the reference divided by N via the round trip.
      Plan p(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
      std::vector<std::complex<double>> x(std::max<Index>(p.input_count(), 1), {1.0, 0.0}), y(std::max<Index>(p.output_count(), 1));
      p.forward(x.data(), y.data());
      // The constant 1 transforms to N at frequency 0 unscaled, so 1 there when scaled by 1/N.
      const Box ob = p.output_box();
      const bool has_zero = p.output_count() > 0 && ob.lo[0] == 0 && ob.lo[1] == 0 && ob.lo[2] == 0;
      if (has_zero) CHECK_MSG(std::abs(y[0] - std::complex<double>(1, 0)) < 1e-12, "scale_forward: zero frequency " << y[0]);
    }
    // User arrays (the leading axes' boxes: bricks in, slabs of axis 1 out; orders of 3 or all
    // axes), as the FFTW-MPI drop-in makes its N-D plans.
    for (const auto& s : {std::vector<Index>{5, 4, 6, 3}, std::vector<Index>{2, 7, 3, 2, 3}}) {
      const std::vector<Index> lead(s.begin(), s.begin() + 3);
      LocalArray in, out;
      in.box = bricks(lead, size)[static_cast<std::size_t>(rank)];
      out.box = slabs(lead, size, 1)[static_cast<std::size_t>(rank)];
      out.order = {1, 0, 2};
      for (std::size_t a = 3; a < s.size(); ++a) out.order.push_back(static_cast<int>(a));
      check_nd<double>(s, Kind::c2c, {}, Options{}, "user arrays " + std::to_string(s.size()) + "-D", false, in, out);
      std::vector<K> real(s.size(), K::dct2);
      check_nd<double>(s, Kind::r2r, real, Options{}, "user arrays r2r " + std::to_string(s.size()) + "-D", false, in,
                       std::nullopt);
      Options ip;
      ip.in_place = true;
      check_nd<double>(s, Kind::c2c, {}, ip, "user arrays in place " + std::to_string(s.size()) + "-D", false, in, out);
    }
    check_errors(rank, size);
  });
}
