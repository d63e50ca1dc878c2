// Plans on the user's own distribution (Plan's constructor with LocalArrays): random covers of
// random shapes in and out (irregular boxes, empty ranks, memory orders, ghost layers), c2c and
// r2c, 2-D and 3-D, double and single, engines and grids, batched fields, in place and split
// phase. Forward against the serial FFTW reference of the gathered array; backward back to the
// input; ghost cells untouched. A plan given its own arrays reshapes nothing. Bad covers and
// mismatched arguments fail alike on every rank. np 1-4, --quick at 5 and 7.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <complex>
#include <random>

#include "mpi/transform_check.hpp"
#include "support/covers.hpp"
#include "support/errors.hpp"
#include "support/mpi_main.hpp"
#include "volfft/distribution.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

constexpr float kGhost = -777.0f;

struct Setup {
  std::vector<Index> shape;
  Kind kind = Kind::c2c;
  Options options;
  std::optional<LocalArray> in, out;
  std::string label;
};

// The forward input's value at global flat index `flat` of field f (real for r2c).
cd input_value(Kind kind, Index flat, Index f) {
  return kind == Kind::r2c ? cd(value_at(flat, 1 + 2 * static_cast<int>(f)), 0)
                           : cd(value_at(flat, 1 + 2 * static_cast<int>(f)), value_at(flat, 2 + 2 * static_cast<int>(f)));
}

template <class Real>
void check_plan(MPI_Comm comm, const Setup& s) {
  using C = std::complex<Real>;
  const auto precision = std::is_same<Real, double>::value ? Precision::float64 : Precision::float32;
  const int nd = static_cast<int>(s.shape.size());
  const std::array<Index, 3> n{s.shape[0], s.shape[1], nd == 3 ? s.shape[2] : 1};
  const Index total = n[0] * n[1] * n[2];
  Plan plan(comm, s.shape, s.kind, precision, s.options, s.in, s.out);
  const Index k = s.options.batch;
  const bool inner = s.options.batch_layout == BatchLayout::inner;
  const LocalArray ia = plan.input_array(), oa = plan.output_array();
  const ArrayLayout il(ia, nd), ol(oa, nd);
  CHECK_MSG(plan.input_count() == il.size() * k && plan.output_count() == ol.size() * k, s.label << ": counts");
  auto same_box = [](const Box& a, const Box& b) { return a == b || (a.empty() && b.empty()); };
  if (s.in) CHECK_MSG(same_box(ia.box, s.in->box), s.label << ": input_array() is the user's");
  if (s.out) CHECK_MSG(same_box(oa.box, s.out->box), s.label << ": output_array() is the user's");
  auto at = [&](Index size, Index f, Index offset) { return inner ? offset * k + f : f * size + offset; };
  auto each = [&](const Box& b, auto&& f) {
    for (Index i = b.lo[0]; i < b.hi[0]; ++i)
      for (Index j = b.lo[1]; j < b.hi[1]; ++j)
        for (Index l = b.lo[2]; l < b.hi[2]; ++l) f(i, j, l);
  };
  // Flat index in the n-shaped array (the spectrum's r2c half is the reference's first n/2 + 1).
  auto flat_n = [&](Index i, Index j, Index l) { return (i * n[1] + j) * n[2] + l; };

  // Input: field f's values in the user's box, ghosts elsewhere. One array in place.
  const bool real = s.kind == Kind::r2c;
  const std::size_t in_place_reals = plan.in_place_bytes() / sizeof(Real);
  std::vector<Real> in(s.options.in_place ? in_place_reals : static_cast<std::size_t>(plan.input_count()) * (real ? 1 : 2), kGhost);
  std::vector<C> out(s.options.in_place ? 0 : static_cast<std::size_t>(plan.output_count()), C(kGhost, kGhost));
  for (Index f = 0; f < k; ++f)
    each(ia.box, [&](Index i, Index j, Index l) {
      const cd v = input_value(s.kind, flat_n(i, j, l), f);
      const Index o = at(il.size(), f, il.offset(i, j, l));
      if (real) {
        in[static_cast<std::size_t>(o)] = Real(v.real());
      } else {
        in[static_cast<std::size_t>(2 * o)] = Real(v.real()), in[static_cast<std::size_t>(2 * o + 1)] = Real(v.imag());
      }
    });
  const std::vector<Real> given = in;
  C* out_data = s.options.in_place ? reinterpret_cast<C*>(in.data()) : out.data();
  const bool split = s.label.find("split") != std::string::npos;
  auto forward = [&] {
    if (split) {
      Request r = plan.forward_start(in.data(), out_data);
      r.wait();
    } else {
      plan.forward_raw(in.data(), out_data);
    }
  };
  forward();

  // Forward output against the serial reference of each field's whole array.
  double sums[2] = {0, 0}, all[2];
  Index ghosts_touched = 0;
  for (Index f = 0; f < k; ++f) {
    std::vector<cd> global(static_cast<std::size_t>(total));
    for (Index x = 0; x < total; ++x) global[static_cast<std::size_t>(x)] = input_value(s.kind, x, f);
    const auto ref = reference_fft(global, n);
    each(oa.box, [&](Index i, Index j, Index l) {
      const C v = out_data[at(ol.size(), f, ol.offset(i, j, l))];
      const cd r = ref[static_cast<std::size_t>(flat_n(i, j, l))];
      sums[0] += std::norm(cd(v.real(), v.imag()) - r), sums[1] += std::norm(r);
    });
  }
  if (!s.options.in_place && oa.storage != Box{} && oa.storage != oa.box) {
    // Ghost cells of the output array: everything outside the box keeps its fill.
    std::vector<bool> inside(static_cast<std::size_t>(ol.size()), false);
    each(oa.box, [&](Index i, Index j, Index l) { inside[static_cast<std::size_t>(ol.offset(i, j, l))] = true; });
    for (Index f = 0; f < k; ++f)
      for (Index o = 0; o < ol.size(); ++o)
        if (!inside[static_cast<std::size_t>(o)]) ghosts_touched += out[static_cast<std::size_t>(at(ol.size(), f, o))] != C(kGhost, kGhost);
  }
  MPI_Allreduce(sums, all, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double tol = transform_tolerance<Real>(total);
  const double rel = std::sqrt(all[0] / std::max(all[1], 1e-300));
  CHECK_MSG(rel <= tol, s.label << ": forward relative L2 error " << rel << " > " << tol);
  CHECK_MSG(ghosts_touched == 0, s.label << ": " << ghosts_touched << " ghost cells of the output changed");
  if (!s.options.in_place) CHECK_MSG(in == given, s.label << ": forward changed its input");

  // Backward: the input again in the user's box, its ghosts as they were.
  std::vector<Real> back(s.options.in_place ? 0 : in.size(), kGhost);
  Real* back_data = s.options.in_place ? in.data() : back.data();
  if (split) {
    Request r = plan.backward_start(out_data, back_data);
    r.wait();
  } else {
    plan.backward_raw(out_data, back_data);
  }
  double rt[2] = {0, 0}, rtt[2];
  Index wrong_ghosts = 0;
  std::vector<bool> inside(static_cast<std::size_t>(il.size()), false);
  each(ia.box, [&](Index i, Index j, Index l) { inside[static_cast<std::size_t>(il.offset(i, j, l))] = true; });
  const Index width = real ? 1 : 2;
  for (Index f = 0; f < k; ++f)
    for (Index o = 0; o < il.size(); ++o)
      for (Index c = 0; c < width; ++c) {
        const std::size_t e = static_cast<std::size_t>(width * at(il.size(), f, o) + c);
        if (inside[static_cast<std::size_t>(o)]) {
          rt[0] += std::pow(double(back_data[e]) - double(given[e]), 2), rt[1] += std::pow(double(given[e]), 2);
        } else if (!s.options.in_place) {
          wrong_ghosts += back_data[e] != kGhost;
        }
      }
  MPI_Allreduce(rt, rtt, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double round_trip = std::sqrt(rtt[0] / std::max(rtt[1], 1e-300));
  CHECK_MSG(round_trip <= tol, s.label << ": round trip relative error " << round_trip << " > " << tol);
  CHECK_MSG(wrong_ghosts == 0, s.label << ": " << wrong_ghosts << " ghost cells of the input array written");

  // The description lists the reshapes' messages: what this rank sends in them is what its
  // user box holds minus what stays with it.
  // (No rank order is given here, so virtual rank = rank.)
  const PlanDescription& desc = plan.description();
  CHECK_MSG(desc.reshapes.size() == static_cast<std::size_t>(plan.reshapes_input()) + plan.reshapes_output(),
            s.label << ": " << desc.reshapes.size() << " reshapes described");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (const auto& d : desc.reshapes) {
    const bool in_side = d.name == "reshape_in";
    const Box mine = in_side ? ia.box : desc.output_boxes[static_cast<std::size_t>(rank)];
    const Box kept = in_side ? desc.input_boxes[static_cast<std::size_t>(rank)] : oa.box;
    const Index element = (in_side && s.kind == Kind::r2c ? 1 : 2) * static_cast<Index>(sizeof(Real));
    Index sent = 0;
    for (const auto& msg : d.messages) {
      CHECK(msg.source != msg.destination && msg.bytes > 0);
      if (msg.source == rank) sent += msg.bytes;
    }
    CHECK_MSG(sent == (mine.size() - mine.intersect(kept).size()) * element * k,
              s.label << ": " << d.name << " describes " << sent << " bytes sent by rank " << rank);
  }

  // Timings name the reshapes, first and last.
  const auto t = plan.timings(Direction::forward);
  if (plan.reshapes_input()) CHECK_MSG(t.front().name == "reshape_in", s.label << ": first phase " << t.front().name);
  if (plan.reshapes_output()) CHECK_MSG(t.back().name == "reshape_out", s.label << ": last phase " << t.back().name);
}

Setup random_setup(std::mt19937& g, const std::vector<Index>& shape, Kind kind, int rank, int size, bool ghosts,
                   const std::string& label) {
  const int nd = static_cast<int>(shape.size());
  Setup s;
  s.shape = shape, s.kind = kind, s.label = label;
  std::array<Index, 3> n{shape[0], shape[1], nd == 3 ? shape[2] : 1};
  std::array<Index, 3> m = n;
  if (kind == Kind::r2c) m[nd - 1] = n[nd - 1] / 2 + 1;
  LocalArray in, out;
  in.box = random_cover(g, n, size)[static_cast<std::size_t>(rank)];
  out.box = random_cover(g, m, size)[static_cast<std::size_t>(rank)];
  in.order = random_order(g, nd), out.order = random_order(g, nd);
  if (ghosts) in.storage = with_ghosts(in.box, nd, rank), out.storage = with_ghosts(out.box, nd, rank + 1);
  // One side sometimes the plan's own.
  const unsigned sides = g() % 4;
  if (sides != 1) s.in = in;
  if (sides != 2) s.out = out;
  return s;
}

void random_plans(MPI_Comm comm, int rank, int size, bool quick) {
  std::mt19937 g(99u + static_cast<unsigned>(size));
  const std::vector<std::vector<Index>> shapes{{7, 5, 3}, {8, 6, 4}, {5, 9}, {4, 1, 6}, {3, 7, 10}, {11, 2}};
  const Engine engines[] = {Engine::automatic, Engine::alltoallw, Engine::p2p, Engine::alltoallv};
  for (std::size_t i = 0; i < shapes.size(); ++i)
    for (int t = 0; t < (quick ? 2 : 4); ++t) {
      const Kind kind = t % 2 ? Kind::r2c : Kind::c2c;
      Setup s = random_setup(g, shapes[i], kind, rank, size, t >= 2,
                             "shape " + std::to_string(i) + " trial " + std::to_string(t) + (t == 3 ? " split" : ""));
      s.options.engine = engines[(i + static_cast<std::size_t>(t)) % 4];
      if (t == 2 && shapes[i].size() == 3 && size <= shapes[i][0]) s.options.grid = {size, 1};
      check_plan<double>(comm, s);
      if (!quick && t == 1) check_plan<float>(comm, s);
      if (t == 0) {
        s.options.batch = 2, s.options.batch_layout = i % 2 ? BatchLayout::inner : BatchLayout::outer;
        s.label += " batch 2";
        check_plan<double>(comm, s);
      }
    }
}

// In place: one array holds the user's input box, then its output box, and back.
void in_place(MPI_Comm comm, int rank, int size) {
  std::mt19937 g(5u + static_cast<unsigned>(size));
  for (Kind kind : {Kind::c2c, Kind::r2c}) {
    Setup s = random_setup(g, {6, 5, 4}, kind, rank, size, false, std::string("in place ") + to_string(kind));
    s.options.in_place = true;
    check_plan<double>(comm, s);
  }
}

// The named distributions: bricks in and out (heFFTe's benchmark layout), FFTW's blocks.
void named(MPI_Comm comm, int rank, int size) {
  Setup s;
  s.shape = {12, 10, 8};
  s.label = "bricks in and out";
  LocalArray in, out;
  in.box = bricks(s.shape, size)[static_cast<std::size_t>(rank)];
  out.box = bricks(s.shape, size)[static_cast<std::size_t>(rank)];
  s.in = in, s.out = out;
  check_plan<double>(comm, s);
  // A cube's bricks at 2 ranks split axis 2 (heFFTe's choice on ties): the plan relabels its axes
  // so that they are its own slabs on one side (one reshape, not two around its transpose), and
  // reports everything in the user's axes.
  Setup cube;
  cube.shape = {8, 8, 8};
  cube.label = "bricks of a cube, axes relabelled";
  LocalArray cb;
  cb.box = bricks(cube.shape, size)[static_cast<std::size_t>(rank)];
  cube.in = cb, cube.out = cb;
  check_plan<double>(comm, cube);
  cube.options.batch = 2, cube.options.batch_layout = BatchLayout::inner;
  cube.label = "bricks of a cube, axes relabelled, 2 interleaved fields";
  check_plan<double>(comm, cube);
  if (size == 2) {
    Plan relabelled(comm, cube.shape, Kind::c2c, Precision::float64, {}, cube.in, cube.out);
    CHECK_MSG(!(relabelled.reshapes_input() && relabelled.reshapes_output()),
              "the cube's bricks at np 2 are reshaped on both sides");
    CHECK(relabelled.input_box() == cb.box && relabelled.output_box() == cb.box);
    CHECK(relabelled.input_order() == (std::vector<int>{0, 1, 2}));
    CHECK(relabelled.shape() == (std::vector<Index>{8, 8, 8}));
    // The phases name the user's axes: the FFTs cover each of 0, 1, 2 once.
    relabelled.forward_raw(std::vector<std::complex<double>>(static_cast<std::size_t>(relabelled.input_count())).data(),
                           std::vector<std::complex<double>>(static_cast<std::size_t>(relabelled.output_count())).data());
    std::string axes_named;
    for (const Phase& ph : relabelled.timings(Direction::forward))
      if (ph.name.rfind("fft", 0) == 0) axes_named += ph.name.substr(3);
    std::sort(axes_named.begin(), axes_named.end());
    CHECK_MSG(axes_named == "012", "the FFT phases name axes " << axes_named);
    const PlanDescription& d = relabelled.description();
    CHECK(d.shape == (std::vector<std::int64_t>{8, 8, 8}) && d.input_boxes.size() == 2);
  }
  // The plan's own c2c input boxes in another memory order: its first stage takes that order, no
  // reshape (one stage at np 1 has nothing to fit).
  Setup own_order;
  own_order.shape = {9, 7, 5};
  own_order.label = "own c2c input boxes, memory order (2, 0, 1)";
  LocalArray reordered = Plan(comm, own_order.shape).input_array();
  reordered.order = {2, 0, 1};
  own_order.in = reordered;
  check_plan<double>(comm, own_order);
  if (size > 1) {
    Plan fitted(comm, own_order.shape, Kind::c2c, Precision::float64, {}, own_order.in, std::nullopt);
    CHECK_MSG(!fitted.reshapes_input(), "the plan's own c2c boxes in another order are reshaped");
    CHECK(fitted.input_order() == (std::vector<int>{2, 0, 1}));
  }
  s.kind = Kind::r2c;
  s.label = "fftw blocks r2c, padded rows";
  in.box = fftw_blocks(s.shape, size, 0)[static_cast<std::size_t>(rank)];
  in.storage = in.box, in.storage.hi[2] = 2 * (8 / 2 + 1);  // FFTW's padded r2c rows
  out.box = fftw_blocks({12, 10, 5}, size, 1)[static_cast<std::size_t>(rank)];
  out.order = {1, 0, 2};  // FFTW_MPI_TRANSPOSED_OUT
  s.in = in, s.out = out;
  check_plan<double>(comm, s);
  // At 2 ranks FFTW's blocks are the plan's own slabs: the padded rows are read in place and the
  // transposed order is the last stage's own, so nothing is reshaped (a pass over the data each).
  if (size == 2) {
    Plan fitted(comm, s.shape, Kind::r2c, Precision::float64, {}, s.in, s.out);
    CHECK_MSG(!fitted.reshapes_input() && !fitted.reshapes_output(), "FFTW's layout at np 2 is reshaped");
    CHECK(fitted.output_order() == (std::vector<int>{1, 0, 2}));
    // The plan's own r2c input box with a ghost layer on every side is not padded rows: it is
    // reshaped (the r2c reads whole rows from their start), and still right.
    Setup g = s;
    g.label = "fftw blocks r2c, ghost layers around the plan's own box";
    LocalArray ghosted = *s.in;
    ghosted.storage = ghosted.box;
    for (int a = 0; a < 3; ++a) ghosted.storage.lo[a] -= 1, ghosted.storage.hi[a] += 1;
    g.in = ghosted;
    check_plan<double>(comm, g);
  }
}

// The autotuner times each candidate with the plan's reshapes (bricks in and out), and its
// wisdom entry is the user's arrays' own: a plan on its own arrays does not take it.
void tuned(MPI_Comm comm, int rank, int size) {
  if (size == 1) return;  // one rank has nothing to tune
  Setup s;
  s.shape = {10, 9, 8};
  s.label = "bricks in and out, tuned";
  LocalArray in, out;
  in.box = out.box = bricks(s.shape, size)[static_cast<std::size_t>(rank)];
  s.in = in, s.out = out;
  s.options.tune = 1;
  check_plan<double>(comm, s);
  std::string path = "test_user_arrays_wisdom_np" + std::to_string(size) + ".json";
  if (rank == 0) std::remove(path.c_str());
  MPI_Barrier(comm);
  s.options.wisdom_file = path;
  const std::string from_file = "from wisdom file";
  Plan measured(comm, s.shape, Kind::c2c, Precision::float64, s.options, s.in, s.out);
  CHECK_MSG(measured.tuning_report().find("candidates timed") != std::string::npos, measured.tuning_report());
  Plan remembered(comm, s.shape, Kind::c2c, Precision::float64, s.options, s.in, s.out);
  CHECK_MSG(remembered.tuning_report().find(from_file) != std::string::npos, remembered.tuning_report());
  Plan own(comm, s.shape, Kind::c2c, Precision::float64, s.options);
  CHECK_MSG(own.tuning_report().find(from_file) == std::string::npos,
            "a plan on its own arrays took the user arrays' wisdom: " << own.tuning_report());
  MPI_Barrier(comm);
  if (rank == 0) std::remove(path.c_str());
}

// A plan given its own arrays reshapes nothing and has the plain plan's workspace.
void own_arrays(MPI_Comm comm) {
  Plan plain(comm, {9, 7, 5}, Kind::r2c);
  Plan same(comm, {9, 7, 5}, Kind::r2c, Precision::float64, {}, plain.input_array(), plain.output_array());
  CHECK(!same.reshapes_input() && !same.reshapes_output());
  CHECK(same.workspace_bytes() == plain.workspace_bytes());
  Options o;
  o.in_place = true;
  Plan plain_ip(comm, {9, 7, 5}, Kind::r2c, Precision::float64, o);
  Plan same_ip(comm, {9, 7, 5}, Kind::r2c, Precision::float64, o, plain_ip.input_array(), std::nullopt);
  CHECK(!same_ip.reshapes_input() && same_ip.in_place_bytes() == plain_ip.in_place_bytes());
}

void errors(MPI_Comm comm, int rank, int size) {
  const std::vector<Index> shape{6, 4, 4};
  LocalArray in;
  in.box = slabs(shape, size, 0)[static_cast<std::size_t>(rank)];
  LocalArray gap = in;
  if (rank == 0) gap.box.hi[0] = gap.box.lo[0];
  // The reshape that checks the arrays is the plan's own: the message names the Plan.
  expect_everywhere("gap", error_of([&] { Plan p(comm, shape, Kind::c2c, Precision::float64, {}, gap); }),
                    "volfft::Plan: the in boxes: the boxes leave a gap");
  LocalArray bad_order = in;
  bad_order.order = {0, 0, 1};
  expect_everywhere("order",
                    error_of([&] { Plan p(comm, shape, Kind::c2c, Precision::float64, {}, std::nullopt, bad_order); }),
                    "volfft::Plan: rank 0's out array: order must be a permutation of the axes 0..2");
  // r2c: the out array covers the spectrum (n/2 + 1 on the last axis), not the real grid.
  LocalArray real_out;
  real_out.box = slabs(shape, size, 0)[static_cast<std::size_t>(rank)];
  expect_everywhere("r2c out", error_of([&] {
                      Plan p(comm, shape, Kind::r2c, Precision::float64, {}, std::nullopt, real_out);
                    }),
                    "is not inside the array [0, 6) x [0, 4) x [0, 3)");
  if (size > 1)
    expect_everywhere("given on some", error_of([&] {
                        std::optional<LocalArray> mine;
                        if (rank == 0) mine = in;
                        Plan p(comm, shape, Kind::c2c, Precision::float64, {}, mine);
                      }),
                      "the in array is given on some ranks but not on others");
  if (size == 2) {
    // Bricks of a cube at 2 ranks split axis 2, which a plan relabels when the boxes are right;
    // the error of wrong ones names the boxes as given (it printed them relabelled, and an
    // index of the gap in the other axes).
    LocalArray brick;
    brick.box = bricks({8, 8, 8}, size)[static_cast<std::size_t>(rank)];
    if (rank == 1) brick.box.lo[2] += 1;
    expect_everywhere("gap in relabelled axes",
                      error_of([&] { Plan p(comm, {8, 8, 8}, Kind::c2c, Precision::float64, {}, brick, brick); }),
                      "they hold 448 of the array's 512 elements (index (0, 0, 4) belongs to no rank's box)");
    if (rank == 1) brick.box.lo[2] -= 2;
    expect_everywhere("overlap in relabelled axes",
                      error_of([&] { Plan p(comm, {8, 8, 8}, Kind::c2c, Precision::float64, {}, brick, brick); }),
                      "the boxes of ranks 0 [0, 8) x [0, 8) x [0, 4) and 1 [0, 8) x [0, 8) x [3, 8) overlap");
  }
  std::vector<unsigned char> space(1 << 20);
  Options o;
  o.workspace = space.data(), o.workspace_bytes = space.size();
  LocalArray other = in;
  other.order = {2, 1, 0};
  expect_everywhere("workspace", error_of([&] { Plan p(comm, shape, Kind::c2c, Precision::float64, o, other); }),
                    "Options::workspace does not combine with user arrays");
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = has_flag(argc, argv, "--quick");
  return run_mpi_test(argc, argv, [&](int rank, int size) {
    random_plans(MPI_COMM_WORLD, rank, size, quick);
    in_place(MPI_COMM_WORLD, rank, size);
    named(MPI_COMM_WORLD, rank, size);
    own_arrays(MPI_COMM_WORLD);
    tuned(MPI_COMM_WORLD, rank, size);
    errors(MPI_COMM_WORLD, rank, size);
  });
}
