// Batched fields (Options::batch, batch_layout): a plan of k fields gives, field by field, what
// the single-field plan with the same options gives (that one is checked against the serial
// reference by the other tests), forward and backward, in both layouts (fields outer: k arrays
// one after another; inner: interleaved), for every engine and grid, c2c and r2c, uneven sizes
// and empty ranks, padded (the 3/2 rule of a turbulence code), r2r kinds, in place, single
// precision; its counts are k times the single plan's, and each exchange sends one message per
// partner holding every field (the description's bytes are k times). Bad batches fail alike on
// every rank. Run at np 1-4, and --quick at 5 and 7.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "mpi/transform_check.hpp"
#include "support/errors.hpp"
#include "support/mpi_main.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

template <class Real>
double relative(MPI_Comm comm, const std::vector<std::complex<Real>>& got, const std::vector<std::complex<Real>>& want) {
  double s[2] = {0, 0}, t[2];
  for (std::size_t k = 0; k < got.size(); ++k) {
    s[0] += std::norm(std::complex<double>(got[k]) - std::complex<double>(want[k]));
    s[1] += std::norm(std::complex<double>(want[k]));
  }
  MPI_Allreduce(s, t, 2, MPI_DOUBLE, MPI_SUM, comm);
  return std::sqrt(t[0] / std::max(t[1], 1e-300));
}

template <class Real>
void check_batch(MPI_Comm comm, const std::vector<Index>& shape, Kind kind, const Options& options,
                 const std::string& label) {
  using C = std::complex<Real>;
  const auto precision = std::is_same<Real, double>::value ? Precision::float64 : Precision::float32;
  const Index k = options.batch;
  const bool inner = options.batch_layout == BatchLayout::inner;
  Options single = options;
  single.batch = 1, single.batch_layout = BatchLayout::outer;
  Plan one(comm, shape, kind, precision, single);
  Plan many(comm, shape, kind, precision, options);
  CHECK_MSG(many.input_count() == k * one.input_count() && many.output_count() == k * one.output_count(),
            label << ": counts " << many.input_count() << "/" << many.output_count() << ", single "
                  << one.input_count() << "/" << one.output_count());
  CHECK_MSG(many.in_place_bytes() == static_cast<std::size_t>(k) * one.in_place_bytes(), label << ": in_place_bytes");
  const auto& dm = many.description().exchanges;
  const auto& d1 = one.description().exchanges;
  CHECK_MSG(dm.size() == d1.size(), label << ": exchanges differ");
  for (std::size_t e = 0; e < std::min(dm.size(), d1.size()); ++e) {
    CHECK_MSG(dm[e].messages.size() == d1[e].messages.size(), label << ": one message per partner");
    for (std::size_t m = 0; m < std::min(dm[e].messages.size(), d1[e].messages.size()); ++m)
      CHECK(dm[e].messages[m].bytes == k * d1[e].messages[m].bytes);
  }

  // Input values as Real units: r2c inputs are reals, c2c complexes (2 reals).
  const Index unit_in = kind == Kind::r2c ? 1 : 2;
  const Index in1 = one.input_count(), out1 = one.output_count();
  const std::size_t complex_slots = std::max<std::size_t>(
      {many.in_place_bytes() / sizeof(C), static_cast<std::size_t>(many.input_count() * unit_in / 2 + 1), 1});
  std::vector<C> in_many(complex_slots + 1), out_many(std::max<Index>(many.output_count(), 1));
  Real* in_reals = reinterpret_cast<Real*>(in_many.data());
  std::vector<std::vector<C>> singles(static_cast<std::size_t>(k));
  // Where element e (in Real units for the input, complex for the output) of field f lies.
  auto in_at = [&](Index f, Index e) {
    const Index element = e / unit_in, part = e % unit_in;
    return (inner ? element * k + f : f * in1 + element) * unit_in + part;
  };
  auto out_at = [&](Index f, Index e) { return inner ? e * k + f : f * out1 + e; };
  const std::size_t single_slots = std::max<std::size_t>(one.in_place_bytes() / sizeof(C) + 1,
                                                          static_cast<std::size_t>(in1 * unit_in / 2 + 1));
  std::vector<std::vector<C>> single_in(static_cast<std::size_t>(k), std::vector<C>(single_slots));
  for (Index f = 0; f < k; ++f) {
    Real* r = reinterpret_cast<Real*>(single_in[f].data());
    for (Index e = 0; e < in1 * unit_in; ++e) {
      r[e] = static_cast<Real>(value_at(e, static_cast<int>(f) + 7));
      in_reals[in_at(f, e)] = r[e];
    }
  }
  // The single-field plan, field by field.
  for (Index f = 0; f < k; ++f) {
    singles[f].assign(std::max<Index>(out1, 1), C(0));
    C* out = options.in_place ? single_in[f].data() : singles[f].data();
    if (kind == Kind::r2c)
      one.forward(reinterpret_cast<Real*>(single_in[f].data()), out);
    else
      one.forward(single_in[f].data(), out);
    if (options.in_place) std::copy(out, out + out1, singles[f].begin());
  }
  C* out = options.in_place ? in_many.data() : out_many.data();
  if (kind == Kind::r2c)
    many.forward(in_reals, out);
  else
    many.forward(in_many.data(), out);
  Index n_total = 1;
  for (Index e : shape) n_total *= e;
  const double tol = transform_tolerance<Real>(n_total);
  for (Index f = 0; f < k; ++f) {
    std::vector<C> field(static_cast<std::size_t>(std::max<Index>(out1, 1)));
    for (Index e = 0; e < out1; ++e) field[e] = out[out_at(f, e)];
    const double d = relative(comm, field, singles[f]);
    CHECK_MSG(d <= tol, label << ": forward field " << f << " differs from the single plan by " << d);
  }
  // Backward of the batched spectrum: each field what the single plan's backward gives for that
  // field's spectrum (its input again, unless padding dropped modes).
  std::vector<std::vector<C>> single_back(static_cast<std::size_t>(k));
  for (Index f = 0; f < k; ++f) {
    single_back[f].assign(single_slots, C(0));
    C* into = options.in_place ? single_in[f].data() : single_back[f].data();
    if (kind == Kind::r2c)
      one.backward(options.in_place ? into : singles[f].data(), reinterpret_cast<Real*>(into));
    else
      one.backward(options.in_place ? into : singles[f].data(), into);
    if (options.in_place) single_back[f] = single_in[f];
  }
  std::vector<C> back(in_many.size());
  C* back_data = options.in_place ? in_many.data() : back.data();
  if (kind == Kind::r2c)
    many.backward(out, reinterpret_cast<Real*>(back_data));
  else
    many.backward(out, back_data);
  const Real* back_reals = reinterpret_cast<const Real*>(back_data);
  // In-place r2c rows end in padding (not data): compare the data only.
  const Index row = kind == Kind::r2c && options.in_place ? 2 * (shape.back() / 2 + 1) : 0;
  double s[2] = {0, 0}, t[2];
  for (Index f = 0; f < k; ++f) {
    const Real* want = reinterpret_cast<const Real*>(single_back[f].data());
    for (Index e = 0; e < in1 * unit_in; ++e) {
      if (row && e % row >= shape.back()) continue;
      const double g = back_reals[in_at(f, e)], w = want[e];
      s[0] += (g - w) * (g - w), s[1] += w * w;
    }
  }
  MPI_Allreduce(s, t, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double round_trip = std::sqrt(t[0] / std::max(t[1], 1e-300));
  CHECK_MSG(round_trip <= tol, label << ": backward differs from the single plan's by " << round_trip);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = has_flag(argc, argv, "--quick");
  return run_mpi_test(argc, argv, [quick](int rank, int size) {
    const std::vector<std::array<int, 2>> grids = all_grids(size);
    std::vector<Engine> engines_ = {Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p,
                                    Engine::pipelined, Engine::node};
    if (persistent_tested()) engines_.push_back(Engine::persistent);
    int cases = 0;
    auto run = [&](const std::vector<Index>& shape, Kind kind, Options o, const std::string& what) {
      std::string label = what + " batch " + std::to_string(o.batch) + " " + to_string(o.batch_layout) + " " +
                          to_string(kind);
      for (std::size_t a = 0; a < shape.size(); ++a) label += (a ? "x" : " ") + std::to_string(shape[a]);
      o.effort = Effort::estimate;
      check_batch<double>(MPI_COMM_WORLD, shape, kind, o, label);
      ++cases;
    };
    for (Engine e : engines_)
      for (const auto& g : grids)
        for (BatchLayout layout : {BatchLayout::outer, BatchLayout::inner})
          for (Kind kind : {Kind::c2c, Kind::r2c}) {
            if (quick && (kind == Kind::c2c) != (layout == BatchLayout::outer)) continue;
            Options o;
            o.engine = e, o.grid = g, o.batch = 3, o.batch_layout = layout;
            const std::string what = std::string(to_string(e)) + " grid " + std::to_string(g[0]) + "x" + std::to_string(g[1]);
            run({7, 6, 9}, kind, o, what);
            if (!quick && e == Engine::alltoallv) {
              run({2, 3, 4}, kind, o, what);  // ranks left empty at np >= 3
              o.layout = Layout::natural;
              run({7, 6, 9}, kind, o, what + " natural");
            }
          }
    // What a turbulence code runs: three padded (3/2 rule) fields; r2r kinds; in place; 2-D;
    // threads; single precision; a batch of 1 in the inner layout (the same as outer).
    for (BatchLayout layout : {BatchLayout::outer, BatchLayout::inner}) {
      Options o;
      o.batch = 3, o.batch_layout = layout, o.spectral_shape = {6, 6, 6};
      run({9, 9, 9}, Kind::r2c, o, "padded 6->9");
      o.spectral_shape.clear();
      o.kinds = {AxisKind::dct2, AxisKind::none, AxisKind::dft};
      run({6, 5, 8}, Kind::c2c, o, "kinds (dct2,none,dft)");
      o.kinds.clear();
      o.threads = 2;
      run({12, 10, 8}, Kind::c2c, o, "threads 2");
      run({9, 13}, Kind::r2c, o, "2-D");
    }
    for (Kind kind : {Kind::c2c, Kind::r2c})
      for (BatchLayout layout : {BatchLayout::outer, BatchLayout::inner}) {
        if (kind == Kind::r2c && layout == BatchLayout::inner) continue;  // refused: checked below
        Options o;
        o.batch = 2, o.in_place = true, o.batch_layout = layout;
        run({7, 6, 9}, kind, o, "in place");
        o.engine = Engine::node;
        run({5, 4, 6}, kind, o, "in place node");
        o.engine = Engine::alltoallw;
        run({2, 3, 4}, kind, o, "in place alltoallw");  // ranks left empty at np >= 3
      }
    {
      Options o;
      o.batch = 1, o.batch_layout = BatchLayout::inner;
      run({7, 6, 9}, Kind::r2c, o, "one field");
      o.batch = 4;
      check_batch<float>(MPI_COMM_WORLD, {16, 12, 10}, Kind::c2c, o, "float batch 4 inner");
      ++cases;
      // Two interleaved fields of rows of 2 reals, whose complex rows are 2 long too: in the
      // forced runs (VOLFFT_TEST_COPY_IN_PLACE) the fields' loop must not pass for the row.
      o.batch = 2;
      run({4, 6, 2}, Kind::r2c, o, "rows of 2");
    }
    // Measured r2c: at one rank its backward is timed whole (the fields copied into the plan's
    // array, then the 3-D c2r) against split (plan/plane_split.hpp), and the forced runs of this
    // test (tests/CMakeLists.txt, VOLFFT_TEST_TIMED_SPLIT) keep each way.
    for (BatchLayout layout : {BatchLayout::outer, BatchLayout::inner}) {
      Options o;
      o.batch = 3, o.batch_layout = layout;
      check_batch<double>(MPI_COMM_WORLD, {7, 6, 9}, Kind::r2c, o,
                          std::string("measured batch 3 ") + to_string(layout) + " r2c 7x6x9");
      ++cases;
    }

    // Bad batches: the same message on every rank.
    {
      Options o;
      o.batch = 0;
      expect_everywhere("batch 0", error_of([&] { Plan p(MPI_COMM_WORLD, {8, 8, 8}, Kind::c2c, Precision::float64, o); }),
                        "batch must be an integer >= 1; got 0");
      o.batch = 2, o.batch_layout = BatchLayout::inner, o.in_place = true;
      expect_everywhere("r2c inner in place",
                        error_of([&] { Plan p(MPI_COMM_WORLD, {8, 8, 8}, Kind::r2c, Precision::float64, o); }),
                        "in_place with batch_layout 'inner' takes c2c and r2r plans, not r2c");
    }
    if (rank == 0) std::printf("%d batch cases at np %d\n", cases, size);
  });
}
