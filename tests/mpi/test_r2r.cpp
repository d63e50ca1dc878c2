// Per-axis transform kinds (Options::kinds): every DCT and DST kind (FFTW's REDFT/RODFT
// conventions) on every axis position, mixed with dft, none and r2c axes, 2-D and 3-D, uneven
// and prime sizes, sizes that leave ranks empty, every grid, engines alltoallv, node and pipelined, both
// backends, in place and not, against a reference computed here from the kinds' defining sums
// (O(n^2) per line, independent of FFTW), and backward(forward(x)) == x with the scale 1/N of
// the logical sizes. r2r plans (Kind::r2r: real data throughout) the same way, with every engine,
// batches and single precision. Bad kinds and arrays of the wrong kind fail alike on every rank.
// Run at np 1-4, and --quick at 5 and 7.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "mpi/transform_check.hpp"
#include "support/kinds_reference.hpp"
#include "support/errors.hpp"
#include "support/mpi_main.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

void check_kinds(MPI_Comm comm, const std::vector<Index>& shape, const std::vector<AxisKind>& kinds,
                 Options options, const std::string& label) {
  options.kinds = kinds;
  const Kind kind = kinds.back() == AxisKind::r2c ? Kind::r2c : Kind::c2c;
  Plan plan(comm, shape, kind, Precision::float64, options);
  const int nd = static_cast<int>(shape.size());
  Index n_total = 1;
  for (Index e : shape) n_total *= e;
  const std::vector<cd> global = test_data(n_total, kind == Kind::r2c);
  const auto ref = reference(global, shape, kinds);
  std::vector<Index> out_shape = shape;
  if (kind == Kind::r2c) out_shape.back() = shape.back() / 2 + 1;
  auto flat = [&](const std::vector<Index>& s, const std::array<Index, 3>& x) {
    return nd == 3 ? (x[0] * s[1] + x[1]) * s[2] + x[2] : x[0] * s[1] + x[1];
  };
  auto for_box = [&](const Box& b, auto&& f) {
    for (Index x0 = b.lo[0]; x0 < b.hi[0]; ++x0)
      for (Index x1 = b.lo[1]; x1 < b.hi[1]; ++x1)
        for (Index x2 = b.lo[2]; x2 < (nd == 3 ? b.hi[2] : 1); ++x2) f(std::array<Index, 3>{x0, x1, x2});
  };
  // Input: C order over the input box (in place, r2c rows of 2(n/2 + 1) reals).
  const Box ib = plan.input_box();
  const Index last = ib.extent(nd - 1);
  const Index row = kind == Kind::r2c && options.in_place ? 2 * (shape.back() / 2 + 1) : last;
  auto in_offset = [&](const std::array<Index, 3>& x) {
    const Index lead = nd == 3 ? (x[0] - ib.lo[0]) * ib.extent(1) + (x[1] - ib.lo[1]) : x[0] - ib.lo[0];
    return lead * row + (x[nd - 1] - ib.lo[nd - 1]);
  };
  const std::size_t bytes = std::max<std::size_t>(
      {plan.in_place_bytes(), static_cast<std::size_t>(plan.input_count()) * 16, 16});
  std::vector<std::complex<double>> in(bytes / 16 + 1), out(std::max<Index>(plan.output_count(), 1));
  double* reals = reinterpret_cast<double*>(in.data());
  for_box(ib, [&](auto x) {
    const cd v = global[flat(shape, x)];
    if (kind == Kind::r2c)
      reals[in_offset(x)] = v.real();
    else
      in[in_offset(x)] = v;
  });
  const std::vector<std::complex<double>> original = in;
  std::complex<double>* result = options.in_place ? in.data() : out.data();
  if (kind == Kind::r2c)
    plan.forward(reals, result);
  else
    plan.forward(in.data(), result);
  const LocalLayout ol(plan.output_box(), plan.output_order(), nd);
  double s[2] = {0, 0}, t[2];
  for_box(ol.box, [&](auto x) {
    s[0] += std::norm(result[ol.offset(x)] - ref[flat(out_shape, x)]);
    s[1] += std::norm(ref[flat(out_shape, x)]);
  });
  MPI_Allreduce(s, t, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double tol = 1e-12;
  const double rel = std::sqrt(t[0] / std::max(t[1], 1e-300));
  CHECK_MSG(rel <= tol, label << ": forward relative L2 error " << rel);

  std::vector<std::complex<double>> back(in.size());
  std::complex<double>* back_data = options.in_place ? in.data() : back.data();
  if (kind == Kind::r2c)
    plan.backward(result, reinterpret_cast<double*>(back_data));
  else
    plan.backward(result, back_data);
  const double* back_reals = reinterpret_cast<const double*>(back_data);
  const double* original_reals = reinterpret_cast<const double*>(original.data());
  double r[2] = {0, 0}, rr[2];
  for_box(ib, [&](auto x) {
    const Index k = in_offset(x);
    const cd got = kind == Kind::r2c ? cd(back_reals[k], 0) : back_data[k];
    const cd want = kind == Kind::r2c ? cd(original_reals[k], 0) : original[k];
    r[0] += std::norm(got - want);
    r[1] += std::norm(want);
  });
  MPI_Allreduce(r, rr, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double round_trip = std::sqrt(rr[0] / std::max(rr[1], 1e-300));
  CHECK_MSG(round_trip <= tol, label << ": round trip relative error " << round_trip);
}

// An r2r plan (Kind::r2r): real arrays on both sides and in between, `options.batch` fields
// (fields outermost or interleaved), in precision Real; each field against the same reference
// (real data: the transform of real lines is real), then the round trip.
template <class Real>
void check_real(MPI_Comm comm, const std::vector<Index>& shape, const std::vector<AxisKind>& kinds, Options options,
                const std::string& label) {
  options.kinds = kinds;
  const Precision precision = std::is_same<Real, double>::value ? Precision::float64 : Precision::float32;
  Plan plan(comm, shape, Kind::r2r, precision, options);
  const int nd = static_cast<int>(shape.size());
  const Index fields = options.batch;
  const bool inner = options.batch_layout == BatchLayout::inner;
  Index n_total = 1;
  for (Index e : shape) n_total *= e;
  auto flat = [&](const std::array<Index, 3>& x) {
    return nd == 3 ? (x[0] * shape[1] + x[1]) * shape[2] + x[2] : x[0] * shape[1] + x[1];
  };
  auto for_box = [&](const Box& b, auto&& f) {
    for (Index x0 = b.lo[0]; x0 < b.hi[0]; ++x0)
      for (Index x1 = b.lo[1]; x1 < b.hi[1]; ++x1)
        for (Index x2 = b.lo[2]; x2 < (nd == 3 ? b.hi[2] : 1); ++x2) f(std::array<Index, 3>{x0, x1, x2});
  };
  const LocalLayout il(plan.input_box(), plan.input_order(), nd), ol(plan.output_box(), plan.output_order(), nd);
  CHECK_MSG(plan.input_count() == il.box.size() * fields && plan.output_count() == ol.box.size() * fields,
            label << ": counts " << plan.input_count() << ", " << plan.output_count());
  // Element k of field f in an array of `size` elements a field.
  auto at = [&](Index k, Index f, Index size) { return inner ? k * fields + f : f * size + k; };
  const std::size_t elements = std::max<std::size_t>(
      {plan.in_place_bytes() / sizeof(Real), static_cast<std::size_t>(plan.input_count()), 1});
  std::vector<Real> in(elements), out(std::max<Index>(plan.output_count(), 1));
  std::vector<std::vector<cd>> refs;
  for (Index f = 0; f < fields; ++f) {
    std::vector<cd> global(n_total);
    for (Index k = 0; k < n_total; ++k) global[k] = cd(Real(value_at(k, 1 + static_cast<int>(f))), 0);
    for_box(il.box, [&](auto x) { in[at(il.offset(x), f, il.box.size())] = Real(global[flat(x)].real()); });
    refs.push_back(reference(global, shape, kinds));
  }
  const std::vector<Real> original = in;
  Real* result = options.in_place ? in.data() : out.data();
  plan.forward(in.data(), result);
  double s[2] = {0, 0}, t[2];
  for (Index f = 0; f < fields; ++f)
    for_box(ol.box, [&](auto x) {
      const double want = refs[f][flat(x)].real();
      s[0] += std::pow(result[at(ol.offset(x), f, ol.box.size())] - want, 2);
      s[1] += want * want;
    });
  MPI_Allreduce(s, t, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double tol = std::is_same<Real, double>::value ? 1e-12 : 2e-5;
  const double rel = std::sqrt(t[0] / std::max(t[1], 1e-300));
  CHECK_MSG(rel <= tol, label << ": r2r forward relative L2 error " << rel);
  std::vector<Real> back(in.size());
  Real* back_data = options.in_place ? in.data() : back.data();
  plan.backward(result, back_data);
  double r[2] = {0, 0}, rr[2];
  for (Index f = 0; f < fields; ++f)
    for_box(il.box, [&](auto x) {
      const Index k = at(il.offset(x), f, il.box.size());
      r[0] += std::pow(back_data[k] - original[k], 2);
      r[1] += std::pow(original[k], 2);
    });
  MPI_Allreduce(r, rr, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double round_trip = std::sqrt(rr[0] / std::max(rr[1], 1e-300));
  CHECK_MSG(round_trip <= tol, label << ": r2r round trip relative error " << round_trip);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = has_flag(argc, argv, "--quick");
  return run_mpi_test(argc, argv, [quick](int rank, int size) {
    const std::vector<AxisKind> r2r = {AxisKind::dct1, AxisKind::dct2, AxisKind::dct3, AxisKind::dct4,
                                       AxisKind::dst1, AxisKind::dst2, AxisKind::dst3, AxisKind::dst4};
    const std::vector<std::array<int, 2>> grids = all_grids(size);
    std::vector<Backend> backends = {Backend::fftw};
    if (have_backend(Backend::ducc0)) backends.push_back(Backend::ducc0);
    int cases = 0;
    auto run = [&](const std::vector<Index>& shape, const std::vector<AxisKind>& kinds, const Options& o,
                   const std::string& what) {
      std::string label = what;
      for (std::size_t a = 0; a < shape.size(); ++a) label += (a ? "x" : " ") + std::to_string(shape[a]);
      check_kinds(MPI_COMM_WORLD, shape, kinds, o, label + " " + kinds_text(kinds));
      ++cases;
    };
    // Every r2r kind at every axis position of a 3-D c2c plan (dft elsewhere), every grid.
    const std::vector<Index> shape3 = quick ? std::vector<Index>{6, 5, 7} : std::vector<Index>{7, 6, 9};
    for (const auto& g : grids)
      for (AxisKind k : r2r)
        for (int a = 0; a < 3; ++a) {
          if (quick && a != (static_cast<int>(k) % 3)) continue;
          std::vector<AxisKind> kinds(3, AxisKind::dft);
          kinds[a] = k;
          Options o;
          o.grid = g, o.effort = Effort::estimate;
          run(shape3, kinds, o, "grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]));
        }
    // Axis 0 not transformed: no column exchange at all (slabs: nothing moves), on every grid.
    for (const auto& g : grids)
      for (const auto& kinds : std::vector<std::vector<AxisKind>>{{AxisKind::none, AxisKind::dft, AxisKind::dct2},
                                                                  {AxisKind::none, AxisKind::dst3, AxisKind::r2c}})
        for (Layout layout : {Layout::transposed, Layout::natural}) {
          Options o;
          o.grid = g, o.layout = layout, o.effort = Effort::estimate;
          run({6, 7, 5}, kinds, o, "grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]) + " " + to_string(layout));
          o.kinds = kinds;
          const auto d = describe(size, {6, 7, 5}, kinds.back() == AxisKind::r2c ? Kind::r2c : Kind::c2c,
                                  Precision::float64, o);
          CHECK_MSG(d.exchanges.size() == (g[1] > 1 ? 1u : 0u),
                    kinds_text(kinds) << " grid " << g[0] << "x" << g[1] << ": " << d.exchanges.size() << " exchanges");
          for (const auto& e : d.exchanges) CHECK(e.name == "row");
        }
    // Nothing transformed after the first stage: no exchange at all (3-D on every grid, 2-D).
    for (const auto& g : grids) {
      Options o;
      o.grid = g, o.effort = Effort::estimate;
      const std::vector<AxisKind> kinds{AxisKind::none, AxisKind::none, AxisKind::dct2};
      run({6, 7, 5}, kinds, o, "grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]));
      o.kinds = kinds;
      CHECK_MSG(describe(size, {6, 7, 5}, Kind::c2c, Precision::float64, o).exchanges.empty(),
                "(none,none,dct2) grid " << g[0] << "x" << g[1] << " exchanges");
    }
    {
      Options o;
      o.effort = Effort::estimate;
      run({9, 8}, {AxisKind::none, AxisKind::dft}, o, "2-D");
      o.kinds = {AxisKind::none, AxisKind::r2c};
      CHECK(describe(size, {9, 8}, Kind::r2c, Precision::float64, o).exchanges.empty());
      run({9, 8}, o.kinds, o, "2-D");
    }
    // All-r2r, mixed kinds and none axes; r2c with r2r axes (the channel-flow case); 2-D; each
    // backend, in place and not, engines alltoallv and node.
    const std::vector<std::vector<AxisKind>> mixes3 = {
        {AxisKind::dct2, AxisKind::dct2, AxisKind::dct2},
        {AxisKind::dst1, AxisKind::dct4, AxisKind::dst3},
        {AxisKind::none, AxisKind::dft, AxisKind::dft},
        {AxisKind::dft, AxisKind::none, AxisKind::dct1},
        {AxisKind::none, AxisKind::none, AxisKind::none},
        {AxisKind::dct2, AxisKind::dft, AxisKind::r2c},
        {AxisKind::dst2, AxisKind::none, AxisKind::r2c},
        {AxisKind::none, AxisKind::none, AxisKind::r2c},  // the backward's first step is the c2r
    };
    for (Backend b : backends)
      for (bool in_place : {false, true})
        for (Engine e : {Engine::alltoallv, Engine::node, Engine::pipelined})
          for (const auto& kinds : mixes3) {
            if (quick && (in_place || b != Backend::fftw)) continue;
            // pipelined: out of place here (in place on slabs is refused); its chunks once went out
            // untransformed when blocks started inside the source array ((dft, none, none) at np 3).
            if (e == Engine::pipelined && (in_place || b != Backend::fftw)) continue;
            Options o;
            o.backend = b, o.in_place = in_place, o.engine = e, o.effort = Effort::estimate;
            const std::string what = std::string(to_string(b)) + (in_place ? " in place " : " ") + to_string(e);
            run({5, 8, 6}, kinds, o, what);
            if (!quick) run({2, 3, 4}, kinds, o, what);  // ranks left empty at np >= 3
          }
    for (const auto& kinds : std::vector<std::vector<AxisKind>>{{AxisKind::dct3, AxisKind::dft},
                                                                {AxisKind::dft, AxisKind::dst4},
                                                                {AxisKind::dct1, AxisKind::r2c}}) {
      Options o;
      o.effort = Effort::estimate;
      run({9, 13}, kinds, o, "2-D");
    }

    // r2r plans: real data throughout. Every kind at every axis position on every grid; mixes
    // with none; every engine; in place; both backends; batches in both layouts; single
    // precision; 2-D; sizes that leave ranks empty.
    auto run_real = [&](const std::vector<Index>& shape, const std::vector<AxisKind>& kinds, const Options& o,
                        const std::string& what, bool single = false) {
      std::string label = "r2r " + what;
      for (std::size_t a = 0; a < shape.size(); ++a) label += (a ? "x" : " ") + std::to_string(shape[a]);
      label += " " + kinds_text(kinds);
      if (single)
        check_real<float>(MPI_COMM_WORLD, shape, kinds, o, label + " float");
      else
        check_real<double>(MPI_COMM_WORLD, shape, kinds, o, label);
      ++cases;
    };
    for (const auto& g : grids)
      for (AxisKind k : r2r)
        for (int a = 0; a < 3; ++a) {
          if (quick && a != (static_cast<int>(k) % 3)) continue;
          std::vector<AxisKind> kinds(3, AxisKind::dct2);
          kinds[a] = k;
          Options o;
          o.grid = g, o.effort = Effort::estimate;
          run_real(shape3, kinds, o, "grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]));
        }
    const std::vector<std::vector<AxisKind>> real_mixes = {
        {AxisKind::dct2, AxisKind::dct2, AxisKind::dct2},
        {AxisKind::dst1, AxisKind::dct4, AxisKind::dst3},
        {AxisKind::none, AxisKind::dct1, AxisKind::dst2},
        {AxisKind::dct3, AxisKind::none, AxisKind::none},
        {AxisKind::none, AxisKind::none, AxisKind::none},
    };
    int pencil_p0 = 1;  // a pencil grid's p0 (1: the rank count is prime, slabs only)
    for (int d = 2; d * d <= size; ++d)
      if (size % d == 0) pencil_p0 = d;
    for (Engine e : engines()) {
      if (e == Engine::automatic || (quick && e != Engine::alltoallv && e != Engine::node)) continue;
      if (e == Engine::persistent && !persistent_tested()) continue;
      for (bool in_place : {false, true})
        for (const auto& kinds : real_mixes) {
          Options o;
          o.engine = e, o.in_place = in_place, o.effort = Effort::estimate;
          // In place, pipelined runs on pencils only (on slabs its chunks would overwrite input not
          // yet read: refused, test_in_place checks that).
          if (e == Engine::pipelined && in_place && size > 1) {
            if (pencil_p0 == 1) continue;
            o.grid = {pencil_p0, size / pencil_p0};
            Options d = o;
            d.kinds = kinds;
            if (describe(size, {5, 8, 6}, Kind::r2r, Precision::float64, d).exchanges.size() < 2) continue;
          }
          const std::string what = std::string(to_string(e)) + (in_place ? " in place" : "");
          run_real({5, 8, 6}, kinds, o, what);
          if (!quick) run_real({2, 3, 4}, kinds, o, what);  // ranks left empty at np >= 3
        }
    }
    for (Backend b : backends)
      for (Index batch : {Index(1), Index(2), Index(3)})
        for (BatchLayout layout : {BatchLayout::outer, BatchLayout::inner}) {
          if ((batch == 1 && layout == BatchLayout::inner) || (quick && batch == 2)) continue;
          Options o;
          o.backend = b, o.batch = static_cast<int>(batch), o.batch_layout = layout, o.effort = Effort::estimate;
          const std::string what = std::string(to_string(b)) + " batch " + std::to_string(batch) + " " + to_string(layout);
          run_real({7, 5, 6}, {AxisKind::dst2, AxisKind::dct2, AxisKind::dct1}, o, what);
          run_real({7, 5, 6}, {AxisKind::dst2, AxisKind::dct2, AxisKind::dct1}, o, what, true);
        }
    for (Engine e : {Engine::alltoallv, Engine::node}) {
      Options o;  // interleaved fields in place (FFTW-MPI's in-place howmany)
      o.engine = e, o.batch = 2, o.batch_layout = BatchLayout::inner, o.in_place = true, o.effort = Effort::estimate;
      run_real({7, 5, 6}, {AxisKind::dct2, AxisKind::dst3, AxisKind::dct4}, o, std::string(to_string(e)) + " batch 2 inner in place");
    }
    {
      Options o;
      o.effort = Effort::estimate;
      run_real({9, 13}, {AxisKind::dct3, AxisKind::dst4}, o, "2-D");
      run_real({9, 13}, {AxisKind::none, AxisKind::dct2}, o, "2-D");
      o.in_place = true;
      run_real({11, 4}, {AxisKind::dct1, AxisKind::dst1}, o, "2-D in place", true);
    }
    // An r2r plan moves reals: half the bytes of the same kinds on complex data.
    {
      Options o;
      o.kinds = {AxisKind::dct2, AxisKind::dct2, AxisKind::dct2};
      const auto real = describe(size, {8, 6, 10}, Kind::r2r, Precision::float64, o);
      const auto complex = describe(size, {8, 6, 10}, Kind::c2c, Precision::float64, o);
      CHECK(real.element_bytes == 8 && complex.element_bytes == 16);
      for (std::size_t e = 0; e < real.exchanges.size(); ++e)
        for (std::size_t m = 0; m < real.exchanges[e].messages.size(); ++m)
          CHECK(2 * real.exchanges[e].messages[m].bytes == complex.exchanges[e].messages[m].bytes);
    }

    // A none axis with transformed axes after it goes first (core::none_axes_first): on slabs
    // (dft, none, dft) moves nothing, on pencils one exchange less (r2c: (dct3, none, r2c), its
    // first two axes swapped); the input keeps the user's C order, and so does a natural
    // layout's output. describe() says what the plan does.
    {
      using K = AxisKind;
      const std::vector<int> c_order{0, 1, 2};
      for (const auto& kinds : std::vector<std::vector<AxisKind>>{{K::dft, K::none, K::dft},
                                                                  {K::dct2, K::dft, K::none},
                                                                  {K::none, K::dst1, K::none},
                                                                  {K::dct3, K::none, K::r2c}})
        for (Kind kind : {Kind::c2c, Kind::r2r, Kind::r2c})
          for (Layout layout : {Layout::transposed, Layout::natural}) {
            // r2c: only with its r2c last axis (its first two axes may swap); c2c and r2r without.
            if ((kind == Kind::r2c) != (kinds[2] == K::r2c) || (kind == Kind::r2r && kinds[1] == K::dft)) continue;
            std::vector<AxisKind> ks = kinds;
            if (kind == Kind::r2r)
              for (auto& k : ks) k = k == K::dft ? K::dct2 : k;
            Options o;
            o.kinds = ks, o.layout = layout, o.effort = Effort::estimate;
            const std::vector<Index> shape{6, 7, 5};
            const auto d = describe(size, shape, kind, Precision::float64, o);
            const bool slab = d.grid[1] == 1, one_transformed = ks[0] == K::none && ks[2] == K::none;
            const std::size_t fewest = slab || one_transformed ? 0 : 1;
            const std::string label = std::string(to_string(kind)) + " " + kinds_text(ks) + " " + to_string(layout) +
                                      " grid " + std::to_string(d.grid[0]) + "x" + std::to_string(d.grid[1]);
            CHECK_MSG(d.exchanges.size() == fewest, label << ": " << d.exchanges.size() << " exchanges");
            CHECK_MSG(d.input_order == c_order, label << ": input order");
            Plan plan(MPI_COMM_WORLD, shape, kind, Precision::float64, o);
            CHECK_MSG(plan.description().exchanges.size() == fewest && plan.input_order() == c_order,
                      label << ": the plan differs from describe()");
            for (int r = 0; r < size; ++r)
              CHECK_MSG(plan.description().input_boxes[r] == d.input_boxes[r] &&
                            plan.description().output_boxes[r] == d.output_boxes[r],
                        label << ": boxes of rank " << r);
            if (layout == Layout::natural) CHECK_MSG(plan.output_order() == c_order, label << ": natural output order");
            if (kind == Kind::r2r)
              run_real(shape, ks, o, "relabelled " + std::string(to_string(layout)));
            else
              run(shape, ks, o, "relabelled " + std::string(to_string(layout)));
          }
    }
    // Bad kinds: the same message on every rank, no rank left waiting.
    auto refused = [&](const std::vector<Index>& shape, Kind kind, const std::vector<AxisKind>& kinds,
                       const std::string& fragment) {
      Options o;
      o.kinds = kinds;
      expect_everywhere(kinds_text(kinds), error_of([&] { Plan p(MPI_COMM_WORLD, shape, kind, Precision::float64, o); }),
                        fragment);
    };
    refused({8, 8, 8}, Kind::c2c, {AxisKind::dct2, AxisKind::dft}, "kinds must have one entry per axis (3); got 2");
    refused({8, 8, 8}, Kind::c2c, {AxisKind::dft, AxisKind::dft, AxisKind::r2c}, "but the plan's kind is c2c");
    refused({8, 8, 8}, Kind::r2c, {AxisKind::r2c, AxisKind::dft, AxisKind::r2c}, "only the last axis can be r2c");
    refused({8, 8, 8}, Kind::r2c, {AxisKind::dft, AxisKind::dft, AxisKind::dct2},
            "an r2c plan's last axis must be 'r2c'");
    refused({8, 1, 8}, Kind::c2c, {AxisKind::dft, AxisKind::dct1, AxisKind::dft}, "DCT-I needs at least 2 points");
    refused({8, 8, 8}, Kind::r2r, {}, "an r2r plan needs kinds");
    refused({8, 8, 8}, Kind::r2r, {AxisKind::dct2, AxisKind::dft, AxisKind::dct2}, "but an r2r plan's data is real");
    refused({8, 8, 8}, Kind::r2r, {AxisKind::dct2, AxisKind::dct2, AxisKind::r2c}, "but the plan's kind is r2r");
    {
      // Complex arrays on an r2r plan, real ones on a c2c plan: refused on every rank.
      Options o;
      o.kinds = {AxisKind::dct2, AxisKind::dct2, AxisKind::dct2};
      Plan real(MPI_COMM_WORLD, {6, 6, 6}, Kind::r2r, Precision::float64, o);
      std::vector<std::complex<double>> c(std::max<Index>(real.input_count(), 1));
      std::vector<double> x(std::max<Index>(real.input_count(), 1));
      expect_everywhere("complex input on r2r", error_of([&] { real.forward(x.data(), c.data()); }),
                        "forward of an r2r plan needs a real output array; got a complex one");
      expect_everywhere("float on double r2r",
                        error_of([&] { real.forward(reinterpret_cast<float*>(x.data()), reinterpret_cast<float*>(c.data())); }),
                        "the plan's precision is double");
      Plan complex(MPI_COMM_WORLD, {6, 6, 6}, Kind::c2c, Precision::float64, o);
      expect_everywhere("real arrays on c2c", error_of([&] { complex.backward(x.data(), x.data() + 1); }),
                        "backward of a c2c plan needs a complex input array; got a real one");
    }
    {
      Options o;
      o.kinds = {AxisKind::dct2, AxisKind::dft, AxisKind::dft};
      o.spectral_shape = {4, 4, 4};
      expect_everywhere("kinds with padding",
                        error_of([&] { Plan p(MPI_COMM_WORLD, {8, 8, 8}, Kind::c2c, Precision::float64, o); }),
                        "kinds does not combine with spectral_shape");
    }
    if (rank == 0) std::printf("%d kind cases at np %d\n", cases, size);
  });
}
