// Bad input through the real Plan and the C API: each error is a volfft::Error (C API:
// VOLFFT_ERROR_ARGUMENT) raised on EVERY rank with the SAME message, and nothing hangs (ctest's
// timeout catches a hang). Also: a user workspace of exactly required_workspace_bytes works and
// gives the results of a plan-owned one; arrays of the wrong type are refused.
//
// Usage: test_errors                 every case that involves all ranks alike
//        test_errors --case NAME     one case where a single rank errs locally (see main)
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/errors.hpp"
#include "support/mpi_main.hpp"
#include "support/reference.hpp"
#include "volfft/plan.hpp"
#include "volfft/volfft.h"

using namespace volfft;
using volfft_test::Index;
using volfft_test::value_at;
using volfft_test::error_of;
using volfft_test::expect_everywhere;
using volfft_test::gather_strings;

namespace {

Options with_grid(int p0, int p1) {
  Options o;
  o.grid = {p0, p1};
  o.effort = Effort::estimate;
  return o;
}

Options quick() {
  Options o;
  o.effort = Effort::estimate;
  return o;
}

// --- invalid arguments, the same on every rank ---------------------------------------------

void wrong_grid_product(int size) {
  const std::string has = "but the communicator has " + std::to_string(size) +
                          " (p0*p1 must equal the communicator size)";
  expect_everywhere("grid (P+1)x1",
                    error_of([&] { Plan(MPI_COMM_WORLD, {8, 8, 8}, Kind::c2c, Precision::float64,
                                        with_grid(size + 1, 1)); }),
                    "grid " + std::to_string(size + 1) + "x1 has " + std::to_string(size + 1) +
                        " ranks " + has);
  expect_everywhere("grid Px2",
                    error_of([&] { Plan(MPI_COMM_WORLD, {8, 8, 8}, Kind::r2c, Precision::float32,
                                        with_grid(size, 2)); }),
                    "grid " + std::to_string(size) + "x2 has " + std::to_string(2 * size) +
                        " ranks " + has);
  expect_everywhere("2-D grid 1xP",
                    error_of([&] { Plan(MPI_COMM_WORLD, {8, 8}, Kind::c2c, Precision::float64,
                                        with_grid(1, size)); }),
                    size == 1 ? "" : "2-D arrays are decomposed in slabs only");
}

void non_positive_sizes(int size) {
  expect_everywhere("shape (8,0,8)",
                    error_of([] { Plan(MPI_COMM_WORLD, {8, 0, 8}, Kind::c2c, Precision::float64,
                                       quick()); }),
                    "shape[1] must be a positive size; got 0");
  expect_everywhere("shape (-2,4)",
                    error_of([] { Plan(MPI_COMM_WORLD, {-2, 4}, Kind::r2c, Precision::float64,
                                       quick()); }),
                    "shape[0] must be a positive size; got -2");
  expect_everywhere("shape of 1 entry",
                    error_of([] { Plan(MPI_COMM_WORLD, {8}, Kind::c2c, Precision::float64, quick()); }),
                    "shape must have at least 2 entries (a 2-D or larger array); got 1");
  expect_everywhere("r2c of 4 axes",
                    error_of([] { Plan(MPI_COMM_WORLD, {2, 2, 2, 2}, Kind::r2c, Precision::float64,
                                       quick()); }),
                    "r2c plans take 2 or 3 axes; got shape with 4");
  // The batch counts in the bound on values (it was left out: 2^54 points x 1024 fields made a
  // plan whose counts had wrapped to 0, and forward(NULL, NULL) then passed the null check).
  Options fields = quick();
  fields.batch = 1024;
  const Index big = Index{1} << 18;
  expect_everywhere("batch beyond the bound",
                    error_of([&] { Plan(MPI_COMM_WORLD, {big, big, big}, Kind::c2c, Precision::float64, fields); }),
                    "batch 1024 of shape (262144, 262144, 262144) has too many values");
  Options both = quick();
  both.map_file = "/nonexistent-volfft.map";
  for (int g = 0; g < size; ++g) both.rank_order.push_back(g);
  expect_everywhere("rank_order and map_file",
                    error_of([&] { Plan(MPI_COMM_WORLD, {4, 4, 4}, Kind::c2c, Precision::float64, both); }),
                    "give either rank_order or map_file, not both");
  Options o = quick();
  o.rank_order = {0, 0};
  expect_everywhere("rank_order not a permutation",
                    error_of([&] { Plan(MPI_COMM_WORLD, {4, 4, 4}, Kind::c2c, Precision::float64,
                                        o); }),
                    "rank_order must");
}

// --- arguments that differ between ranks ------------------------------------------------------

void arguments_differ_across_ranks(int rank, int size) {
  if (size < 2) {
    if (rank == 0) std::printf("np 1: mismatched-argument cases skipped: they need two ranks\n");
    return;
  }
  const int odd = size - 1;  // the rank that passes something else
  const std::string on_odd = " on rank " + std::to_string(odd) + " (every rank must pass the same)";
  const std::vector<Index> shape = {8, 8, 8};

  expect_everywhere("one rank's shape",
                    error_of([&] {
                      std::vector<Index> s = shape;
                      if (rank == odd) s[2] = 9;
                      Plan(MPI_COMM_WORLD, s, Kind::c2c, Precision::float64, quick());
                    }),
                    "plan arguments differ across ranks: shape is (8, 8, 8) on rank 0 but (8, 8, 9)" + on_odd);
  expect_everywhere("one rank's ndim",
                    error_of([&] {
                      const std::vector<Index> s = rank == odd ? std::vector<Index>{8, 8} : shape;
                      Plan(MPI_COMM_WORLD, s, Kind::c2c, Precision::float64, quick());
                    }),
                    "shape is (8, 8, 8) on rank 0 but (8, 8)" + on_odd);
  expect_everywhere("one rank's engine",
                    error_of([&] {
                      Options o = quick();
                      o.engine = rank == odd ? Engine::p2p : Engine::alltoallv;
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "engine is 'alltoallv' on rank 0 but 'p2p'" + on_odd);
  expect_everywhere("one rank's kind",
                    error_of([&] {
                      Plan(MPI_COMM_WORLD, shape, rank == odd ? Kind::r2c : Kind::c2c,
                           Precision::float64, quick());
                    }),
                    "kind is c2c on rank 0 but r2c" + on_odd);
  expect_everywhere("one rank's precision",
                    error_of([&] {
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c,
                           rank == odd ? Precision::float32 : Precision::float64, quick());
                    }),
                    "precision is double on rank 0 but float" + on_odd);
  expect_everywhere("one rank's grid",
                    error_of([&] {
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64,
                           rank == odd ? with_grid(1, size) : with_grid(size, 1));
                    }),
                    "grid is [" + std::to_string(size) + ", 1] on rank 0 but [1, " + std::to_string(size) + "]" + on_odd);
  expect_everywhere("one rank's layout",
                    error_of([&] {
                      Options o = quick();
                      if (rank == odd) o.layout = Layout::natural;
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "layout is 'transposed' on rank 0 but 'natural'" + on_odd);
  expect_everywhere("one rank's rank_order",
                    error_of([&] {
                      Options o = quick();
                      for (int g = 0; g < size; ++g) o.rank_order.push_back(rank == odd ? size - 1 - g : g);
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "rank_order is");
  // Options without a field of their own once shared one hash; each now names itself and both
  // values (issue: "(different values)" on rank 0 blamed nobody).
  expect_everywhere("one rank's effort",
                    error_of([&] {
                      Options o = quick();
                      if (rank == odd) o.effort = Effort::measure;
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "effort is 'estimate' on rank 0 but 'measure'" + on_odd);
  expect_everywhere("one rank's threads",
                    error_of([&] {
                      Options o = quick();
                      if (rank == odd) o.threads = 2;
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "threads is 1 on rank 0 but 2" + on_odd);
  // The wisdom file is read by the tuner: agreed before anything collective (a rank without
  // it once waited in MPI_Comm_dup while rank 0 waited in the tuner's Allgather).
  expect_everywhere("one rank's wisdom_file",
                    error_of([&] {
                      Options o;
                      o.effort = Effort::measure;
                      if (rank == odd) o.wisdom_file = "/tmp/volfft-test-wisdom-one-rank.json";
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "wisdom_file is '' on rank 0 but '/tmp/volfft-test-wisdom-one-rank.json'" + on_odd);
  expect_everywhere("VOLFFT_WISDOM on one rank",
                    error_of([&] {
                      Options o;
                      o.effort = Effort::measure;
                      if (rank == odd) setenv("VOLFFT_WISDOM", "/tmp/volfft-test-wisdom-env.json", 1);
                      try {
                        Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                      } catch (...) {
                        unsetenv("VOLFFT_WISDOM");
                        throw;
                      }
                      unsetenv("VOLFFT_WISDOM");
                    }),
                    "wisdom_file is '' on rank 0 but '/tmp/volfft-test-wisdom-env.json' (from VOLFFT_WISDOM)" + on_odd);
  // A map file on some ranks only: they would read it and the others not (a collective).
  expect_everywhere("one rank's map_file",
                    error_of([&] {
                      Options o = quick();
                      if (rank == odd) o.map_file = "/nonexistent-volfft.map";
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "map_file is '' on rank 0 but '/nonexistent-volfft.map'" + on_odd);
  // ranks_per_node parts the ranks at the node split (MPI_Comm_split), before the plan's other
  // checks: a rank with 0 once skipped that split and the job hung.
  expect_everywhere("one rank's ranks_per_node",
                    error_of([&] {
                      Options o = quick();
                      o.ranks_per_node = rank == odd ? 1 : 0;
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64, o);
                    }),
                    "ranks_per_node is 0 on rank 0 but 1" + on_odd);
  // Axes of kind 'none' are relabelled first (core/relabel.hpp); the comparison names what the
  // ranks passed, not the relabelled shape (it once said "shape is (6, 8, 10) on rank 0").
  expect_everywhere("one rank's kinds, relabelled",
                    error_of([&] {
                      Options o = quick();
                      o.kinds = {AxisKind::dft, rank == odd ? AxisKind::none : AxisKind::dft, AxisKind::dft};
                      Plan(MPI_COMM_WORLD, {8, 6, 10}, Kind::c2c, Precision::float64, o);
                    }),
                    "kinds is ['dft', 'dft', 'dft'] on rank 0 but ['dft', 'none', 'dft']" + on_odd);
  expect_everywhere("one rank's grid, relabelled",
                    error_of([&] {
                      Options o = rank == odd ? with_grid(1, size) : with_grid(size, 1);
                      o.kinds = {AxisKind::dft, AxisKind::none, AxisKind::dft};
                      Plan(MPI_COMM_WORLD, {8, 6, 10}, Kind::c2c, Precision::float64, o);
                    }),
                    "grid is [" + std::to_string(size) + ", 1] on rank 0 but [1, " + std::to_string(size) + "]" + on_odd);
  // One rank's arguments are invalid by themselves: the others must not wait for it.
  expect_everywhere("one rank's invalid shape",
                    error_of([&] {
                      std::vector<Index> s = shape;
                      if (rank == odd) s[1] = -1;
                      Plan(MPI_COMM_WORLD, s, Kind::c2c, Precision::float64, quick());
                    }),
                    "plan arguments differ across ranks: shape is (8, 8, 8) on rank 0 but (8, -1, 8)" + on_odd);
  expect_everywhere("one rank's invalid grid",
                    error_of([&] {
                      Plan(MPI_COMM_WORLD, shape, Kind::c2c, Precision::float64,
                           rank == odd ? with_grid(size, 2) : with_grid(size, 1));
                    }),
                    "grid is [" + std::to_string(size) + ", 1] on rank 0 but [" + std::to_string(size) + ", 2]" + on_odd);
}

// --- workspaces -------------------------------------------------------------------------------

void workspace_too_small_on_one_rank(int rank, int size) {
  // r2c needs a workspace even on one rank (the complex array before the c2r transform).
  const std::vector<Index> shape = {6, 8, 10};
  const Options o = quick();
  const int bad = size - 1;
  const std::size_t needed = Plan::required_workspace_bytes(size, rank, shape, Kind::r2c,
                                                            Precision::float64, o);
  const std::size_t bad_needs = Plan::required_workspace_bytes(size, bad, shape, Kind::r2c,
                                                               Precision::float64, o);
  CHECK_MSG(bad_needs > 0, "rank " << bad << " needs no workspace; the case tests nothing");
  // A rank outside the communicator is an argument error (it sized a position beyond the grid).
  CHECK_THROWS_WITH(Plan::required_workspace_bytes(size, size, shape, Kind::r2c, Precision::float64, o),
                    "rank must be in [0, comm_size)");
  CHECK_THROWS_WITH(Plan::required_workspace_bytes(size, -1, shape, Kind::r2c, Precision::float64, o),
                    "got -1");
  CHECK_THROWS_WITH(Plan::required_workspace_bytes(0, 0, shape, Kind::r2c, Precision::float64, o),
                    "comm_size must be >= 1");
  std::vector<unsigned char> space(needed + 1);
  Options mine = o;
  mine.workspace = space.data();
  mine.workspace_bytes = rank == bad ? needed - 1 : needed;
  expect_everywhere("workspace one byte short on rank " + std::to_string(bad),
                    error_of([&] { Plan(MPI_COMM_WORLD, shape, Kind::r2c, Precision::float64, mine); }),
                    "workspace on rank " + std::to_string(bad) + " has " +
                        std::to_string(bad_needs - 1) + " bytes but the plan needs " +
                        std::to_string(bad_needs));
}

template <class T>
double max_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0;
  for (std::size_t k = 0; k < a.size(); ++k) d = std::max(d, double(std::abs(a[k] - b[k])));
  return d;
}

// A plan over a user workspace of exactly required_workspace_bytes (which is its
// workspace_bytes()), handed over at an odd
// address and surrounded by guard bytes, computes what a plan-owned one does and writes nothing
// outside its workspace. Rank 0 keeps a plan-owned workspace in the second plan (mixing is
// allowed).
template <class Real>
void exact_user_workspace(int rank, const std::vector<Index>& shape, Kind kind, Options o,
                          const std::string& label) {
  using C = std::complex<Real>;
  const Precision prec = std::is_same<Real, double>::value ? Precision::float64 : Precision::float32;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  o.effort = Effort::estimate;
  const std::size_t needed = Plan::required_workspace_bytes(size, rank, shape, kind, prec, o);
  // A plan of its own may take an engine that needs less (the node engine on one node has no
  // send area); never more.
  Plan owned(MPI_COMM_WORLD, shape, kind, prec, o);
  CHECK_MSG(owned.workspace_bytes() <= needed,
            label << ": workspace_bytes() " << owned.workspace_bytes() << " but required "
                  << needed);

  const std::size_t guard = 64, skew = 1;
  const unsigned char guard_byte = 0xA5;
  std::vector<unsigned char> raw(guard + skew + needed + guard, guard_byte);
  unsigned char* space = raw.data() + guard + skew;
  std::memset(space, 0xFF, needed);  // NaNs: the plan must not read what it did not write
  Options user = o;
  const bool give = !(rank == 0 && size > 1);
  if (give) user.workspace = space, user.workspace_bytes = needed;
  Plan mine(MPI_COMM_WORLD, shape, kind, prec, user);
  // Where any rank gives one, every rank's plan takes the engine a given workspace was sized for.
  CHECK_MSG(mine.workspace_bytes() == needed,
            label << ": with a given workspace, workspace_bytes() " << mine.workspace_bytes() << " but required "
                  << needed);
  CHECK(mine.input_box() == owned.input_box() && mine.output_box() == owned.output_box());
  CHECK(mine.output_order() == owned.output_order());

  const Index nin = std::max<Index>(owned.input_count(), 1), nout = std::max<Index>(owned.output_count(), 1);
  std::vector<C> out_a(nout), out_b(nout);
  if (kind == Kind::r2c) {
    std::vector<Real> in(nin), back_a(nin), back_b(nin);
    for (Index k = 0; k < owned.input_count(); ++k) in[k] = Real(value_at(k + 1000 * rank, 3));
    owned.forward(in.data(), out_a.data());
    mine.forward(in.data(), out_b.data());
    owned.backward(out_a.data(), back_a.data());
    mine.backward(out_b.data(), back_b.data());
    CHECK_MSG(max_difference(out_a, out_b) == 0, label << ": forward differs by " << max_difference(out_a, out_b));
    CHECK_MSG(max_difference(back_a, back_b) == 0, label << ": backward differs by " << max_difference(back_a, back_b));
    CHECK_MSG(max_difference(back_b, in) < 1e-4, label << ": round trip off by " << max_difference(back_b, in));
  } else {
    std::vector<C> in(nin), back_a(nin), back_b(nin);
    for (Index k = 0; k < owned.input_count(); ++k)
      in[k] = C(Real(value_at(k + 1000 * rank, 4)), Real(value_at(k + 1000 * rank, 5)));
    owned.forward(in.data(), out_a.data());
    mine.forward(in.data(), out_b.data());
    owned.backward(out_a.data(), back_a.data());
    mine.backward(out_b.data(), back_b.data());
    CHECK_MSG(max_difference(out_a, out_b) == 0, label << ": forward differs by " << max_difference(out_a, out_b));
    CHECK_MSG(max_difference(back_a, back_b) == 0, label << ": backward differs by " << max_difference(back_a, back_b));
    CHECK_MSG(max_difference(back_b, in) < 1e-4, label << ": round trip off by " << max_difference(back_b, in));
  }
  bool guards_intact = true;
  for (std::size_t k = 0; k < guard + skew; ++k) guards_intact &= raw[k] == guard_byte;
  for (std::size_t k = guard + skew + needed; k < raw.size(); ++k) guards_intact &= raw[k] == guard_byte;
  CHECK_MSG(guards_intact, label << ": rank " << rank << " wrote outside its " << needed
                                 << "-byte workspace");
}

// --- arrays of the wrong type -----------------------------------------------------------------

void wrong_array_types(int rank, int size) {
  Plan c2c(MPI_COMM_WORLD, {4, 6, 5}, Kind::c2c, Precision::float64, quick());
  Plan r2c(MPI_COMM_WORLD, {4, 6, 5}, Kind::r2c, Precision::float64, quick());
  // Large enough for any interpretation, so a missing check cannot overrun memory.
  const std::size_t n = 4 * 6 * 5 * 2 + 8;
  std::vector<double> real(n);
  std::vector<std::complex<double>> a(n), b(n);
  expect_everywhere("real input to a c2c plan", error_of([&] { c2c.forward(real.data(), b.data()); }),
                    "forward of a c2c plan needs a complex input array; got a real one");
  expect_everywhere("real output from a c2c plan", error_of([&] { c2c.backward(a.data(), real.data()); }),
                    "backward of a c2c plan needs a complex output array; got a real one");
  expect_everywhere("complex input to an r2c plan", error_of([&] { r2c.forward(a.data(), b.data()); }),
                    "forward of an r2c plan needs a real input array; got a complex one");
  expect_everywhere("complex output from a c2r backward", error_of([&] { r2c.backward(a.data(), b.data()); }),
                    "needs a real output array");
  // Single-precision arrays to a double plan are the wrong kind of array as well.
  std::vector<std::complex<float>> fa(2 * n), fb(2 * n);
  std::vector<float> fr(2 * n);
  expect_everywhere("float arrays to a double c2c plan",
                    error_of([&] { c2c.forward(fa.data(), fb.data()); }), "precision");
  expect_everywhere("float arrays to a double r2c plan",
                    error_of([&] { r2c.forward(fr.data(), fb.data()); }), "precision");
  expect_everywhere("in == out", error_of([&] { c2c.forward(a.data(), a.data()); }),
                    "forward of this plan is out-of-place: in and out must differ");
  // Arrays that share bytes without being one array: refused on every rank (they were accepted,
  // and at one rank the forward read values it had already overwritten).
  expect_everywhere("overlapping in and out", error_of([&] { c2c.forward(a.data(), a.data() + 1); }),
                    "forward: in and out overlap");
  expect_everywhere("overlapping c2r arrays", error_of([&] { r2c.backward(a.data(), reinterpret_cast<double*>(a.data()) + 3); }),
                    "backward: in and out overlap");
  // On one rank only (rank 0: it holds data at every size here): the others fail with it.
  expect_everywhere("overlapping arrays on one rank",
                    error_of([&] { c2c.backward(a.data(), rank == 0 ? a.data() + 2 : b.data()); }),
                    "backward: in and out overlap");
  if (size > 1)
    expect_everywhere("overlapping arrays on one rank, named",
                      error_of([&] { c2c.forward(a.data(), rank == 0 ? a.data() + 2 : b.data()); }), "(on rank 0)");
  // Side by side is not overlapping.
  const Index count = c2c.input_count();
  CHECK_MSG(error_of([&] { c2c.forward(a.data(), a.data() + count); }).empty(), "adjacent arrays refused");
  (void)size;
}

// --- the C API --------------------------------------------------------------------------------

void c_api_errors(int rank, int size) {
  volfft_options o;
  volfft_options_default(&o);
  o.effort = VOLFFT_ESTIMATE;
  const int64_t shape[3] = {8, 8, 8};
  volfft_plan plan = reinterpret_cast<volfft_plan>(&o);  // must be reset to NULL on failure

  o.grid[0] = size + 1, o.grid[1] = 1;
  volfft_status st = volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan);
  CHECK_MSG(st == VOLFFT_ERROR_ARGUMENT, "C API wrong grid: status " << st);
  CHECK(plan == nullptr);
  expect_everywhere("C API wrong grid", volfft_last_error(), "p0*p1 must equal the communicator size");
  o.grid[0] = o.grid[1] = 0;

  const int64_t zero[3] = {8, 8, 0};
  st = volfft_plan_create(MPI_COMM_WORLD, 3, zero, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan);
  CHECK_MSG(st == VOLFFT_ERROR_ARGUMENT, "C API zero size: status " << st);
  expect_everywhere("C API zero size", volfft_last_error(), "shape[2] must be a positive size; got 0");

  // An invalid enum on every rank.
  st = volfft_plan_create(MPI_COMM_WORLD, 3, shape, 7, VOLFFT_DOUBLE, &o, &plan);
  CHECK_MSG(st == VOLFFT_ERROR_ARGUMENT, "C API kind 7: status " << st);
  expect_everywhere("C API kind 7", volfft_last_error(), "kind");

  if (size > 1) {
    const int kind = rank == size - 1 ? VOLFFT_R2C : VOLFFT_C2C;
    st = volfft_plan_create(MPI_COMM_WORLD, 3, shape, kind, VOLFFT_DOUBLE, &o, &plan);
    CHECK_MSG(st == VOLFFT_ERROR_ARGUMENT, "C API one rank's kind: status " << st);
    expect_everywhere("C API one rank's kind", volfft_last_error(), "kind is c2c on rank 0 but r2c");
  }

  // A valid plan; then a call with a NULL plan, and the error is cleared by a good call.
  st = volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan);
  CHECK_MSG(st == VOLFFT_OK && plan != nullptr, "C API valid plan: " << volfft_last_error());
  CHECK(std::string(volfft_last_error()).empty());
  int64_t nin = 0, nout = 0;
  CHECK(volfft_counts(plan, &nin, &nout) == VOLFFT_OK);
  std::vector<std::complex<double>> in(std::max<int64_t>(nin, 1)), out(std::max<int64_t>(nout, 1));
  CHECK(volfft_forward(nullptr, in.data(), out.data()) == VOLFFT_ERROR_ARGUMENT);
  CHECK(std::string(volfft_last_error()).find("plan is NULL") != std::string::npos);
  CHECK(volfft_forward(plan, in.data(), out.data()) == VOLFFT_OK);
  CHECK(volfft_forward(plan, in.data(), in.data()) == VOLFFT_ERROR_ARGUMENT);
  CHECK(std::string(volfft_last_error()).find("out-of-place") != std::string::npos);
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK);
  {
    // In place through the C API: the option, the one array's size, and the calls on it.
    volfft_options o;
    volfft_options_default(&o);
    CHECK(o.in_place == 0);
    o.in_place = 1;
    volfft_plan ip = nullptr;
    CHECK(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &ip) == VOLFFT_OK);
    size_t bytes = 0;
    CHECK(volfft_in_place_bytes(ip, &bytes) == VOLFFT_OK);
    int64_t ipin = 0, ipout = 0;
    CHECK(volfft_counts(ip, &ipin, &ipout) == VOLFFT_OK);
    CHECK(bytes == 16 * static_cast<size_t>(std::max(ipin, ipout)));
    std::vector<std::complex<double>> one(bytes / 16 + 1, std::complex<double>(1, 0));
    CHECK(volfft_forward(ip, one.data(), one.data()) == VOLFFT_OK);
    CHECK(volfft_backward(ip, one.data(), one.data()) == VOLFFT_OK);
    CHECK(std::abs(one[0] - std::complex<double>(1, 0)) < 1e-12 || ipin == 0);
    CHECK(volfft_forward(ip, in.data(), out.data()) == VOLFFT_ERROR_ARGUMENT);
    CHECK(std::string(volfft_last_error()).find("needs in == out") != std::string::npos);
    CHECK(volfft_plan_destroy(ip) == VOLFFT_OK);
  }
  CHECK(volfft_plan_destroy(nullptr) == VOLFFT_OK);
  CHECK(volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, nullptr) ==
        VOLFFT_ERROR_ARGUMENT);
}

// One rank passes an out-of-range C enum, the others valid values. The issue asks for the same
// error on every rank instead of a deadlock; the C API must not return early on one rank while
// the others wait in plan creation's collective.
void c_api_enum_on_one_rank(int rank, int size) {
  volfft_options o;
  volfft_options_default(&o);
  o.effort = VOLFFT_ESTIMATE;
  const int64_t shape[3] = {8, 8, 8};
  volfft_plan plan = nullptr;
  const int kind = rank == size - 1 ? 7 : VOLFFT_C2C;
  const volfft_status st = volfft_plan_create(MPI_COMM_WORLD, 3, shape, kind, VOLFFT_DOUBLE, &o, &plan);
  CHECK_MSG(st == VOLFFT_ERROR_ARGUMENT, "status " << st);
  expect_everywhere("C API kind 7 on one rank", volfft_last_error(), "kind");
  o.engine = rank == 0 ? 42 : VOLFFT_ENGINE_ALLTOALLV;
  const volfft_status se = volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan);
  CHECK_MSG(se == VOLFFT_ERROR_ARGUMENT, "status " << se);
  expect_everywhere("C API engine 42 on rank 0", volfft_last_error(), "engine");
}

// One rank sets workspace_bytes but no workspace: a local validation error on that rank only.
// Every rank must fail with the same message rather than wait for it in a collective.
void null_workspace_on_one_rank(int rank, int size) {
  Options o = quick();
  if (rank == size - 1) o.workspace_bytes = 64;
  expect_everywhere("workspace_bytes without a workspace on one rank",
                    error_of([&] { Plan(MPI_COMM_WORLD, {6, 8, 10}, Kind::r2c, Precision::float64, o); }),
                    "workspace_bytes is set but workspace is null");
}

// FFTW fails to plan a stage's FFTs on one rank alone (VOLFFT_TEST_FAIL_STAGE_PLAN=1 on the last
// rank). Planning goes on to collective steps after the FFT batches (the next exchange's set-up,
// a timing's reduction), so the others once waited there for a rank that had left. Now every rank
// throws that rank's message, wherever the batches are made: an exchange's stage (engines node
// and alltoallv), the pipelined engine's chunks and their arrival, the backend chosen by timing,
// and (=last) only the stage each direction runs last, after the exchanges, which ranks whose
// stage an exchange transforms on arrival do not plan apart. A plan made afterwards works.
void fft_plan_fails_on_one_rank(int rank, int size) {
  const int bad = size - 1;
  const std::vector<Index> shape = {12, 10, 9};
  Options alltoallv = quick(), pipelined = quick(), backend_timed = quick();
  alltoallv.engine = Engine::alltoallv;
  pipelined.engine = Engine::pipelined;
  backend_timed.backend = Backend::automatic;
  struct Try {
    const char* label;
    Kind kind;
    Options options;
  };
  const std::vector<Try> tries = {{"c2c, engine auto", Kind::c2c, quick()},
                                  {"r2c, engine alltoallv", Kind::r2c, alltoallv},
                                  {"c2c, engine pipelined", Kind::c2c, pipelined},
                                  {"r2c, backend auto", Kind::r2c, backend_timed}};
  for (const char* which : {"1", "last"}) {
    if (rank == bad) setenv("VOLFFT_TEST_FAIL_STAGE_PLAN", which, 1);
    for (const Try& t : tries)
      expect_everywhere(std::string(t.label) + ", FFTW failing on rank " + std::to_string(bad) + " (" + which + ")",
                        error_of([&] { Plan(MPI_COMM_WORLD, shape, t.kind, Precision::float64, t.options); }),
                        "FFTW could not plan a stage's FFTs");
  }
  if (rank == bad) unsetenv("VOLFFT_TEST_FAIL_STAGE_PLAN");
  for (const Try& t : tries) {
    const std::string error = error_of([&] { Plan(MPI_COMM_WORLD, shape, t.kind, Precision::float64, t.options); });
    CHECK_MSG(error.empty(), t.label << " after the failure: " << error);
  }
}

}  // namespace

// Ranks making different calls on one plan once exchanged garbage (blocking engines) or hung
// (node, pipelined): the per-call agreement now carries the call. And a split-phase request
// that outlives its plan is a clear error, not a use-after-free.
void calls_and_requests(int rank, int size) {
  for (Engine engine : {Engine::alltoallv, Engine::node, Engine::pipelined}) {
    Options o = quick();
    o.engine = engine;
    Plan p(MPI_COMM_WORLD, {8, 6, 5}, Kind::c2c, Precision::float64, o);
    const std::size_t n = static_cast<std::size_t>(std::max(p.input_count(), p.output_count()));
    std::vector<std::complex<double>> a(n + 1), b(n + 1);
    if (size > 1)
      expect_everywhere(std::string("different directions, ") + to_string(engine),
                        error_of([&] {
                          if (rank == size - 1) {
                            p.backward(a.data(), b.data());
                          } else {
                            p.forward(a.data(), b.data());
                          }
                        }),
                        "ranks made different calls on one plan");
    p.forward(a.data(), b.data());  // the plan still works
    Request r;
    {
      Plan q(MPI_COMM_WORLD, {8, 6, 5}, Kind::c2c, Precision::float64, o);
      r = q.forward_start(a.data(), b.data());
    }  // destroying q completes its transform
    CHECK(r.pending());
    CHECK(r.test());
    CHECK_THROWS_WITH(r.wait(), "the plan of this request was destroyed");
    CHECK(!r.pending());
  }
}

int main(int argc, char** argv) {
  // "--case NAME" runs one of the cases where a single rank errs locally (registered apart, with
  // a short timeout, because the failure they guard against is a hang).
  const std::string one_case = argc > 2 && std::string(argv[1]) == "--case" ? argv[2] : "";
  return volfft_test::run_mpi_test(argc, argv, [&](int rank, int size) {
    if (one_case == "capi-enum-on-one-rank") return c_api_enum_on_one_rank(rank, size);
    if (one_case == "null-workspace-on-one-rank") return null_workspace_on_one_rank(rank, size);
    if (one_case == "fft-plan-fails-on-one-rank") return fft_plan_fails_on_one_rank(rank, size);
    if (!one_case.empty()) throw std::invalid_argument("unknown --case " + one_case);
    wrong_grid_product(size);
    non_positive_sizes(size);
    arguments_differ_across_ranks(rank, size);
    workspace_too_small_on_one_rank(rank, size);
    Options pencil;
    if (size == 4) pencil.grid = {2, 2};
    exact_user_workspace<double>(rank, {9, 8, 7}, Kind::c2c, pencil, "c2c double auto/2x2");
    exact_user_workspace<double>(rank, {8, 6, 10}, Kind::r2c, with_grid(size, 1), "r2c double slab");
    Options padded = with_grid(1, size);
    padded.engine = Engine::alltoall;
    exact_user_workspace<float>(rank, {5, 7, 9}, Kind::r2c, padded, "r2c float 1xP alltoall");
    Options natural;
    natural.layout = Layout::natural;
    natural.engine = Engine::alltoallw;
    exact_user_workspace<float>(rank, {3, 4, 2}, Kind::c2c, natural, "c2c float natural alltoallw");
    exact_user_workspace<double>(rank, {7, 5}, Kind::r2c, Options{}, "2-D r2c double");
    wrong_array_types(rank, size);
    c_api_errors(rank, size);
    calls_and_requests(rank, size);
  });
}
