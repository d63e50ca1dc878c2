// Reshape: random covers of random shapes (irregular boxes, empty ranks, different memory orders
// in and out, ghost layers), 2-D and 3-D, complex and real values in both precisions, batched
// fields in both layouts, every engine that applies and the tuned choice, blocking and split
// phase. Every element of every output box must hold the value of its global index (each value
// encodes its index, so a misplaced element cannot pass), and the ghost layers must stay as
// they were. Bad covers and bad calls fail with the same message on every rank. np 1-7.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <random>

#include "support/covers.hpp"
#include "support/errors.hpp"
#include "support/mpi_main.hpp"
#include "volfft/distribution.hpp"
#include "volfft/error.hpp"
#include "volfft/reshape.hpp"

using namespace volfft;
using namespace volfft_test;
using Index = std::int64_t;

namespace {

constexpr double kGhost = -12345.0;  // what ghost cells hold before and after

// The array of `a` with its box's values (field f of index x: encode(f, x)) and kGhost elsewhere.
template <class T>
struct Field {
  static T encode(Index f, Index linear) {
    if constexpr (std::is_same<T, std::complex<double>>::value || std::is_same<T, std::complex<float>>::value)
      return T(static_cast<typename T::value_type>(linear), static_cast<typename T::value_type>(-1 - f));
    else
      return static_cast<T>(linear * 4 + f);  // exact in float for the sizes used here
  }
  static T ghost() { return T(static_cast<float>(kGhost)); }
};

// Visits every element of `a`'s box: f(offset in the array (one field), global linear index).
template <class F>
void each(const LocalArray& a, int ndim, const std::array<Index, 3>& n, F f) {
  const ArrayLayout layout(a, ndim);
  for (Index i = a.box.lo[0]; i < a.box.hi[0]; ++i)
    for (Index j = a.box.lo[1]; j < a.box.hi[1]; ++j)
      for (Index k = a.box.lo[2]; k < a.box.hi[2]; ++k) f(layout.offset(i, j, k), (i * n[1] + j) * n[2] + k);
}

struct Case {
  std::string label;
  std::vector<Index> shape;
  LocalArray in, out;
  int batch = 1;
  BatchLayout layout = BatchLayout::outer;
};

// Field f's element at offset `o` of an array of `size` elements per field.
Index at(const Case& c, Index size, Index f, Index o) {
  return c.layout == BatchLayout::inner ? o * c.batch + f : f * size + o;
}

template <class T>
void check_case(MPI_Comm comm, const Case& c, Precision precision, Values values, Engine engine, int tune, bool split) {
  const int ndim = static_cast<int>(c.shape.size());
  const std::array<Index, 3> n{c.shape[0], c.shape[1], ndim == 3 ? c.shape[2] : 1};
  Options o;
  o.engine = engine, o.tune = tune, o.batch = c.batch, o.batch_layout = c.layout;
  Reshape r(comm, c.shape, c.in, c.out, precision, values, o);
  const std::string label = c.label + " engine " + to_string(r.engine()) + (split ? " split" : "");
  const Index in_size = r.input().storage.size(), out_size = r.output().storage.size();
  CHECK_MSG(r.input_count() == in_size * c.batch && r.output_count() == out_size * c.batch, label << ": counts");
  std::vector<T> in(static_cast<std::size_t>(r.input_count()), Field<T>::ghost());
  std::vector<T> out(static_cast<std::size_t>(r.output_count()), Field<T>::ghost());
  for (Index f = 0; f < c.batch; ++f)
    each(r.input(), ndim, n, [&](Index o_, Index x) { in[static_cast<std::size_t>(at(c, in_size, f, o_))] = Field<T>::encode(f, x); });
  const std::vector<T> before = in;
  if (split) {
    r.start(in.data(), out.data());
    r.test();
    r.finish();
  } else {
    r.execute(in.data(), out.data());
  }
  // The box holds the encoded values; everything else (ghosts) is untouched.
  std::vector<T> want(out.size(), Field<T>::ghost());
  for (Index f = 0; f < c.batch; ++f)
    each(r.output(), ndim, n, [&](Index o_, Index x) { want[static_cast<std::size_t>(at(c, out_size, f, o_))] = Field<T>::encode(f, x); });
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < out.size(); ++k) wrong += !(out[k] == want[k]);
  CHECK_MSG(wrong == 0, label << ": " << wrong << " of " << out.size() << " output elements wrong");
  CHECK_MSG(in == before, label << ": the input changed");
  // A second call gives the same (no state left behind).
  std::fill(out.begin(), out.end(), Field<T>::ghost());
  r.execute(in.data(), out.data());
  CHECK_MSG(out == want, label << ": a second call differs");
  // And back: reverse() fills the input boxes again, ghosts untouched.
  std::vector<T> back(in.size(), Field<T>::ghost());
  r.reverse(out.data(), back.data());
  CHECK_MSG(back == before, label << ": reverse() does not give the input back");
}

// The arrays of rank `rank` from the covers; ghost layers of 0-2 per side when `ghosts`.
Case make_case(std::mt19937& g, const std::vector<Index>& shape, int size, int rank, bool ghosts, const std::string& label) {
  const int ndim = static_cast<int>(shape.size());
  const std::array<Index, 3> n{shape[0], shape[1], ndim == 3 ? shape[2] : 1};
  Case c;
  c.label = label;
  c.shape = shape;
  const auto ins = random_cover(g, n, size), outs = random_cover(g, n, size);
  c.in.box = ins[static_cast<std::size_t>(rank)], c.out.box = outs[static_cast<std::size_t>(rank)];
  c.in.order = random_order(g, ndim), c.out.order = random_order(g, ndim);
  for (LocalArray* a : {&c.in, &c.out}) {
    if (ndim == 2) a->box.lo[2] = 0, a->box.hi[2] = 1;
    if (ghosts) a->storage = with_ghosts(a->box, ndim, rank);
  }
  return c;
}

void random_covers(MPI_Comm comm, int rank, int size, bool quick) {
  std::mt19937 g(20261124u + static_cast<unsigned>(size));
  const std::vector<std::vector<Index>> shapes{{7, 5, 3}, {1, 13, 4}, {16, 16, 16}, {11, 9}, {5, 1}, {3, 17, 2}};
  std::vector<Engine> engines{Engine::alltoallv, Engine::alltoallw, Engine::p2p, Engine::alltoall};
  const int trials = quick ? 2 : 4;
  for (std::size_t s = 0; s < shapes.size(); ++s)
    for (int t = 0; t < trials; ++t) {
      const bool ghosts = t % 2 == 1;
      Case c = make_case(g, shapes[s], size, rank, ghosts,
                         "shape " + std::to_string(s) + " trial " + std::to_string(t) + (ghosts ? " ghosts" : ""));
      const Engine e = engines[static_cast<std::size_t>(t + static_cast<int>(s)) % engines.size()];
      check_case<std::complex<double>>(comm, c, Precision::float64, Values::complex, e, 0, t == 2);
      check_case<float>(comm, c, Precision::float32, Values::real, e, 0, false);
      if (!quick) {
        check_case<std::complex<float>>(comm, c, Precision::float32, Values::complex, e, 0, false);
        check_case<double>(comm, c, Precision::float64, Values::real, e, 0, t == 3);
      }
      c.batch = 3;
      c.layout = t % 2 ? BatchLayout::inner : BatchLayout::outer;
      c.label += c.layout == BatchLayout::inner ? " batch 3 inner" : " batch 3 outer";
      check_case<std::complex<double>>(comm, c, Precision::float64, Values::complex, e, 0, false);
      check_case<double>(comm, c, Precision::float64, Values::real, e, 0, false);
    }
}

// Every engine on one irregular case, the persistent one where MPI has it, and the tuned choice.
void every_engine(MPI_Comm comm, int rank, int size) {
  std::mt19937 g(7u + static_cast<unsigned>(size));
  Case c = make_case(g, {9, 6, 5}, size, rank, true, "every engine");
  for (Engine e : {Engine::automatic, Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p})
    check_case<std::complex<double>>(comm, c, Precision::float64, Values::complex, e, 0, false);
  const std::string persistent = error_of([&] {
    check_case<std::complex<double>>(comm, c, Precision::float64, Values::complex, Engine::persistent, 0, true);
  });
  CHECK_MSG(persistent.empty() || persistent.find("persistent collectives") != std::string::npos, persistent);
  check_case<std::complex<double>>(comm, c, Precision::float64, Values::complex, Engine::automatic, 1, false);
  // Tuned, with the last rank short of memory for one candidate: that candidate is left out on
  // every rank (it failed the whole reshape), the others timed; without even alltoallv's areas
  // the reshape fails everywhere, as untuned.
  if (rank == size - 1) setenv("VOLFFT_TEST_RESHAPE_NO_MEMORY", "p2p", 1);
  Options tuned;
  tuned.tune = 1;
  {
    Reshape r(comm, c.shape, c.in, c.out, Precision::float64, Values::complex, tuned);
    CHECK_MSG(r.engine() != Engine::p2p, "the candidate without memory was chosen");
    if (rank == 0)
      CHECK_MSG(r.tuning_report().find("p2p left out: volfft::Reshape: cannot allocate") != std::string::npos,
                r.tuning_report());
  }
  check_case<std::complex<double>>(comm, c, Precision::float64, Values::complex, Engine::automatic, 1, false);
  if (rank == size - 1) setenv("VOLFFT_TEST_RESHAPE_NO_MEMORY", "alltoallv", 1);
  expect_everywhere("tuned reshape without alltoallv's areas", error_of([&] {
                      Reshape r(comm, c.shape, c.in, c.out, Precision::float64, Values::complex, tuned);
                    }),
                    "cannot allocate the workspace");
  if (rank == size - 1) unsetenv("VOLFFT_TEST_RESHAPE_NO_MEMORY");
}

// The named distributions through a reshape: bricks to pencils and FFTW's blocks to slabs.
void named(MPI_Comm comm, int rank, int size) {
  const std::vector<Index> shape{12, 10, 7};
  Case c;
  c.shape = shape;
  c.label = "bricks to z-pencils";
  c.in.box = bricks(shape, size)[static_cast<std::size_t>(rank)];
  c.out.box = pencils(shape, size, 2)[static_cast<std::size_t>(rank)];
  check_case<std::complex<double>>(comm, c, Precision::float64, Values::complex, Engine::automatic, 0, false);
  c.label = "fftw blocks to transposed fftw blocks";
  c.in.box = fftw_blocks(shape, size, 0)[static_cast<std::size_t>(rank)];
  c.out.box = fftw_blocks(shape, size, 1)[static_cast<std::size_t>(rank)];
  c.out.order = {1, 0, 2};
  check_case<double>(comm, c, Precision::float64, Values::real, Engine::automatic, 0, false);
}

// Workspace: two areas as large as the larger of the blocks sent and received through MPI
// (both directions share them), nothing for alltoallw; a reshape onto the same
// boxes moves nothing through MPI.
void workspace(MPI_Comm comm, int rank, int size) {
  const std::vector<Index> shape{8, 6, 4};
  LocalArray a, b;
  a.box = slabs(shape, size, 0)[static_cast<std::size_t>(rank)];
  b.box = slabs(shape, size, 1)[static_cast<std::size_t>(rank)];
  Options o;
  o.engine = Engine::alltoallv;
  Reshape r(comm, shape, a, b, Precision::float64, Values::complex, o);
  CHECK(r.workspace_bytes() == static_cast<std::size_t>(2 * std::max(r.sent_count(), r.received_count()) * 16));
  Index own = a.box.intersect(b.box).size();
  CHECK(r.sent_count() == a.box.size() - own && r.received_count() == b.box.size() - own);
  o.engine = Engine::alltoallw;
  CHECK(Reshape(comm, shape, a, b, Precision::float64, Values::complex, o).workspace_bytes() == 0);
  Reshape same(comm, shape, a, a, Precision::float32, Values::real);
  CHECK(same.sent_count() == 0 && same.received_count() == 0 && same.workspace_bytes() == 0);
}

// Bad covers and bad calls: the same message on every rank, no hang.
void errors(MPI_Comm comm, int rank, int size) {
  const std::vector<Index> shape{6, 4, 4};
  auto boxes = slabs(shape, size, 0);
  LocalArray in, out;
  in.box = out.box = boxes[static_cast<std::size_t>(rank)];
  auto attempt = [&](const std::vector<Index>& s, const LocalArray& i, const LocalArray& o, const Options& opt = {}) {
    return error_of([&] { Reshape r(comm, s, i, o, Precision::float64, Values::complex, opt); });
  };
  // A gap: rank 0's box given up.
  LocalArray gap = in;
  if (rank == 0) gap.box.hi[0] = gap.box.lo[0];
  expect_everywhere("gap", attempt(shape, gap, out), "volfft::Reshape: the in boxes: the boxes leave a gap");
  if (size > 1) {
    LocalArray overlap = out;
    if (rank == 1) overlap.box.lo[0] -= 1;
    expect_everywhere("overlap", attempt(shape, in, overlap), "volfft::Reshape: the out boxes: the boxes of ranks 0");
  }
  LocalArray outside = in;
  if (rank == 0) outside.box.hi[1] = 5;
  expect_everywhere("outside", attempt(shape, outside, out), "rank 0's box [0, ");
  std::vector<Index> other = shape;
  if (rank == size - 1) other[2] = 5;
  if (size > 1)
    expect_everywhere("shapes differ", attempt(other, in, out),
                      "every rank must pass the same shape; rank " + std::to_string(size - 1) + "'s differs");
  LocalArray order = in;
  order.order = {0, 0, 1};
  expect_everywhere("order", attempt(shape, order, out), "order must be a permutation of the axes 0..2");
  if (size > 1) {
    LocalArray mixed = in;
    if (rank == 1) mixed.order = {2, 1, 0};
    expect_everywhere("orders differ", attempt(shape, mixed, out),
                      "the in arrays' order must be the same on every rank; rank 1's differs");
  }
  LocalArray small = in;
  small.storage = in.box;
  small.storage.hi[2] -= 1;
  expect_everywhere("storage", attempt(shape, small, out), "storage [");
  // A storage whose element count does not fit in 64 bits (the counts wrapped once).
  LocalArray huge = in;
  huge.storage = in.box;
  huge.storage.lo[0] = -(Index{1} << 40), huge.storage.hi[1] = Index{1} << 40;
  expect_everywhere("storage beyond the bound", attempt(shape, huge, out),
                    "holds too many elements (they must stay below 2^58");
  Options node;
  node.engine = Engine::node;
  expect_everywhere("node", attempt(shape, in, out, node), "options.engine 'node' does not apply to a reshape");
  expect_everywhere("1-D", attempt({6}, in, out), "shape must have 2 or 3 axes; got 1");

  // Calls: null arrays where a rank holds elements, in == out, mismatched calls.
  Reshape r(comm, shape, in, out);
  std::vector<std::complex<double>> a(static_cast<std::size_t>(r.input_count()) + 1), b(a.size());
  expect_everywhere("null", error_of([&] { r.execute(rank == 0 ? nullptr : a.data(), b.data()); }),
                    "volfft::Reshape::execute: the arrays must be non-null where they hold elements");
  expect_everywhere("overlap call", error_of([&] { r.execute(a.data(), rank == 0 ? a.data() : b.data()); }),
                    "volfft::Reshape::execute: the arrays overlap");
  // The split-phase start names itself (it named execute/reverse, which it shares the checks with).
  expect_everywhere("overlap start", error_of([&] { r.start(a.data(), rank == 0 ? a.data() : b.data(), true); }),
                    "volfft::Reshape::start (reversed): the arrays overlap");
  expect_everywhere("null reverse", error_of([&] { r.reverse(rank == 0 ? nullptr : b.data(), a.data()); }),
                    "volfft::Reshape::reverse: the arrays must be non-null");
  expect_everywhere("mixed calls", error_of([&] {
                      if (rank == 0) r.execute(a.data(), b.data()); else r.reverse(b.data(), a.data());
                    }),
                    size > 1 ? "ranks made different calls on one reshape" : "");
  r.start(a.data(), b.data());
  expect_everywhere("pending", error_of([&] { r.start(a.data(), b.data()); }), "a split-phase reshape is in progress");
  r.finish();
  r.execute(a.data(), b.data());  // still usable
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  return run_mpi_test(argc, argv, [&](int rank, int size) {
    random_covers(MPI_COMM_WORLD, rank, size, quick);
    every_engine(MPI_COMM_WORLD, rank, size);
    named(MPI_COMM_WORLD, rank, size);
    workspace(MPI_COMM_WORLD, rank, size);
    errors(MPI_COMM_WORLD, rank, size);
  });
}
