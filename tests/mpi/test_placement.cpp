// Options::rank_order (placement): rank rank_order[g] takes virtual grid position g = i*p1 + j.
// With a non-trivial permutation every rank must sit where the order says, hold the boxes of its
// virtual position, and the distributed FFT must equal the one without a placement (and the
// serial reference). Run at np 1, 2, 3 and 4.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <string>
#include <vector>

#include "support/mpi_main.hpp"
#include "support/reference.hpp"
#include "volfft/plan.hpp"
#include "volfft/volfft.h"

using namespace volfft;
using volfft_test::cd;
using volfft_test::Index;
using volfft_test::value_at;

namespace {

struct Placement {
  std::string name;
  std::vector<int> order;  // order[g] = communicator rank at virtual position g
};

// Placements to try on P ranks and grid p0 x p1 (identity excluded: it is the baseline).
std::vector<Placement> placements(int P, std::array<int, 2> grid) {
  std::vector<Placement> out;
  if (P < 2) return out;
  Placement reversed{"reversed", {}}, rotated{"rotated by one", {}};
  for (int g = 0; g < P; ++g) {
    reversed.order.push_back(P - 1 - g);
    rotated.order.push_back((g + 1) % P);
  }
  out.push_back(reversed);
  if (P > 2) out.push_back(rotated);
  // Column-major: the ranks of a virtual row are spread over the grid's columns (rows of the
  // virtual grid become columns of consecutive ranks).
  if (grid[0] > 1 && grid[1] > 1) {
    Placement column_major{"column-major", std::vector<int>(P)};
    for (int i = 0; i < grid[0]; ++i)
      for (int j = 0; j < grid[1]; ++j) column_major.order[i * grid[1] + j] = j * grid[0] + i;
    out.push_back(column_major);
    // Tilted: row i shifted by i positions (Rubik's tilt of a 2-D box).
    Placement tilted{"tilted", std::vector<int>(P)};
    for (int i = 0; i < grid[0]; ++i)
      for (int j = 0; j < grid[1]; ++j) tilted.order[i * grid[1] + j] = i * grid[1] + (j + i) % grid[1];
    out.push_back(tilted);
  }
  return out;
}

std::vector<int> gather_ints(const std::vector<int>& mine) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> all(mine.size() * size);
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(),
                static_cast<int>(mine.size()), MPI_INT, MPI_COMM_WORLD);
  return all;
}

std::vector<int> box_ints(const Plan& p) {
  const Box in = p.input_box(), out = p.output_box();
  std::vector<int> v;
  for (const Box& b : {in, out})
    for (int a = 0; a < 3; ++a) v.push_back(static_cast<int>(b.lo[a])), v.push_back(static_cast<int>(b.hi[a]));
  for (int a : p.output_order()) v.push_back(a);
  while (v.size() < 15) v.push_back(-1);
  return v;
}

// Offset of global index x in a local array holding `box` in memory order `order` (user axes).
Index local_offset(const Box& box, const std::vector<int>& order, const std::array<Index, 3>& x) {
  Index off = 0, stride = 1;
  for (int k = static_cast<int>(order.size()) - 1; k >= 0; --k) {
    off += (x[order[k]] - box.lo[order[k]]) * stride;
    stride *= box.extent(order[k]);
  }
  return off;
}

template <class F>
void for_each_index(const Box& b, int ndim, F&& f) {
  for (Index x0 = b.lo[0]; x0 < b.hi[0]; ++x0)
    for (Index x1 = b.lo[1]; x1 < b.hi[1]; ++x1)
      for (Index x2 = b.lo[2]; x2 < (ndim == 3 ? b.hi[2] : b.lo[2] + 1); ++x2)
        f(std::array<Index, 3>{x0, x1, x2});
}

// The whole spectrum, assembled on every rank from each rank's output box; and the round-trip
// error of backward().
struct Result {
  std::vector<cd> spectrum;
  double round_trip = 0;
};

Result transform(Plan& plan, const std::vector<Index>& shape, Kind kind) {
  const int nd = plan.ndim();
  const std::array<Index, 3> n{shape[0], shape[1], nd == 3 ? shape[2] : 1};
  const Index nc_last = kind == Kind::r2c ? shape[nd - 1] / 2 + 1 : shape[nd - 1];
  auto flat = [&](const std::array<Index, 3>& x) { return (x[0] * n[1] + x[1]) * n[2] + x[2]; };
  const Box ib = plan.input_box(), ob = plan.output_box();
  const std::vector<int> io = plan.input_order(), oo = plan.output_order();
  std::vector<std::complex<double>> out(std::max<Index>(plan.output_count(), 1));
  Result r;
  double err = 0;
  if (kind == Kind::r2c) {
    std::vector<double> in(std::max<Index>(plan.input_count(), 1)), back(in.size());
    for_each_index(ib, nd, [&](auto x) { in[local_offset(ib, io, x)] = value_at(flat(x), 7); });
    plan.forward(in.data(), out.data());
    plan.backward(out.data(), back.data());
    for (Index k = 0; k < plan.input_count(); ++k) err = std::max(err, std::abs(back[k] - in[k]));
  } else {
    std::vector<std::complex<double>> in(std::max<Index>(plan.input_count(), 1)), back(in.size());
    for_each_index(ib, nd, [&](auto x) {
      in[local_offset(ib, io, x)] = cd(value_at(flat(x), 8), value_at(flat(x), 9));
    });
    plan.forward(in.data(), out.data());
    plan.backward(out.data(), back.data());
    for (Index k = 0; k < plan.input_count(); ++k) err = std::max(err, std::abs(back[k] - in[k]));
  }
  // Spectrum in C order over (n0, n1, nc_last) [2-D: (n0, nc_last)].
  const Index ncomplex = nd == 3 ? n[0] * n[1] * nc_last : n[0] * nc_last;
  std::vector<double> parts(2 * ncomplex, 0.0), sum(2 * ncomplex);
  for_each_index(ob, nd, [&](auto x) {
    const Index g = nd == 3 ? (x[0] * n[1] + x[1]) * nc_last + x[2] : x[0] * nc_last + x[1];
    const cd v = out[local_offset(ob, oo, x)];
    parts[2 * g] += v.real();
    parts[2 * g + 1] += v.imag();
  });
  MPI_Allreduce(parts.data(), sum.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  r.spectrum.resize(ncomplex);
  for (Index g = 0; g < ncomplex; ++g) r.spectrum[g] = cd(sum[2 * g], sum[2 * g + 1]);
  MPI_Allreduce(&err, &r.round_trip, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return r;
}

// The serial reference spectrum in the same layout as transform() assembles.
std::vector<cd> reference(const std::vector<Index>& shape, Kind kind) {
  const int nd = static_cast<int>(shape.size());
  const std::array<Index, 3> n{shape[0], shape[1], nd == 3 ? shape[2] : 1};
  std::vector<cd> data(n[0] * n[1] * n[2]);
  for (Index k = 0; k < static_cast<Index>(data.size()); ++k)
    data[k] = kind == Kind::r2c ? cd(value_at(k, 7), 0) : cd(value_at(k, 8), value_at(k, 9));
  const std::vector<cd> full = volfft_test::reference_fft(data, n);
  const Index last = shape[nd - 1], kept = kind == Kind::r2c ? last / 2 + 1 : last;
  std::vector<cd> out;
  for (Index k = 0; k < static_cast<Index>(full.size()); ++k)
    if (nd == 3 ? (k % n[2]) < kept : (k / n[2]) % n[1] < kept) out.push_back(full[k]);
  return out;
}

double max_abs_difference(const std::vector<cd>& a, const std::vector<cd>& b) {
  double d = a.size() == b.size() ? 0.0 : INFINITY;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

void check_placement(int rank, int size, const std::vector<Index>& shape, Kind kind,
                     std::array<int, 2> grid, Engine engine, const Placement& placement) {
  const int nd = static_cast<int>(shape.size());
  std::string label = placement.name + " grid " + std::to_string(grid[0]) + "x" +
                      std::to_string(grid[1]) + " " + to_string(kind) + " " + to_string(engine) +
                      (nd == 2 ? " 2-D" : " 3-D");
  Options base;
  base.grid = grid;
  base.engine = engine;
  base.effort = Effort::estimate;
  Options placed = base;
  placed.rank_order = placement.order;
  Plan plain(MPI_COMM_WORLD, shape, kind, Precision::float64, base);
  Plan moved(MPI_COMM_WORLD, shape, kind, Precision::float64, placed);
  CHECK_MSG(moved.grid() == plain.grid(), label);
  const int p1 = grid[1];

  // Where each rank sits: rank order[g] at virtual position g = (g / p1, g % p1); without a
  // placement rank g sits at g. 2-D plans are slabs at (g, 0).
  auto position_of = [&](int g) {
    return nd == 3 ? std::array<int, 2>{g / p1, g % p1} : std::array<int, 2>{g, 0};
  };
  const auto pos_moved = gather_ints({moved.grid_position()[0], moved.grid_position()[1]});
  const auto pos_plain = gather_ints({plain.grid_position()[0], plain.grid_position()[1]});
  for (int g = 0; g < size; ++g) {
    const int r = placement.order[g];
    const std::array<int, 2> want = position_of(g);
    CHECK_MSG(pos_moved[2 * r] == want[0] && pos_moved[2 * r + 1] == want[1],
              label << ": rank " << r << " at (" << pos_moved[2 * r] << "," << pos_moved[2 * r + 1]
                    << "), the order puts it at (" << want[0] << "," << want[1] << ")");
    CHECK_MSG(pos_plain[2 * g] == want[0] && pos_plain[2 * g + 1] == want[1],
              label << ": without a placement rank " << g << " is not at its own position");
  }
  // The rank at position g holds the boxes that position holds without a placement.
  const auto boxes_moved = gather_ints(box_ints(moved)), boxes_plain = gather_ints(box_ints(plain));
  const std::size_t per = boxes_moved.size() / size;
  for (int g = 0; g < size; ++g) {
    const int r = placement.order[g];
    CHECK_MSG(std::equal(boxes_moved.begin() + r * per, boxes_moved.begin() + (r + 1) * per,
                         boxes_plain.begin() + g * per),
              label << ": rank " << r << " does not hold the boxes of virtual position " << g);
  }
  // The description is about virtual positions, so it does not change.
  CHECK_MSG(moved.description().input_boxes == plain.description().input_boxes &&
                moved.description().output_boxes == plain.description().output_boxes,
            label << ": description changed");
  // The workspace query knows the placement.
  CHECK_MSG(Plan::required_workspace_bytes(size, rank, shape, kind, Precision::float64, placed) ==
                moved.workspace_bytes(),
            label << ": required_workspace_bytes disagrees with the placed plan on rank " << rank);

  // Same transform.
  const Result a = transform(plain, shape, kind), b = transform(moved, shape, kind);
  const std::vector<cd> ref = reference(shape, kind);
  double scale = 0;
  for (const cd& v : ref) scale = std::max(scale, std::abs(v));
  const double tol = 1e-13 * std::max(scale, 1.0);
  CHECK_MSG(max_abs_difference(a.spectrum, b.spectrum) <= tol,
            label << ": spectrum differs from the unplaced plan's by "
                  << max_abs_difference(a.spectrum, b.spectrum));
  CHECK_MSG(max_abs_difference(b.spectrum, ref) <= tol,
            label << ": spectrum differs from the serial reference by " << max_abs_difference(b.spectrum, ref));
  CHECK_MSG(b.round_trip <= 1e-13, label << ": round trip error " << b.round_trip);
}

// The C API passes the placement through: the same boxes as the C++ plan.
void c_api_placement(int rank, int size) {
  if (size < 2) return;
  std::vector<int> order(size);
  for (int g = 0; g < size; ++g) order[g] = size - 1 - g;
  volfft_options o;
  volfft_options_default(&o);
  o.effort = VOLFFT_ESTIMATE;
  o.rank_order = order.data();
  o.rank_order_length = size;
  const int64_t shape[3] = {6, 5, 4};
  volfft_plan plan = nullptr;
  const volfft_status st = volfft_plan_create(MPI_COMM_WORLD, 3, shape, VOLFFT_C2C, VOLFFT_DOUBLE, &o, &plan);
  CHECK_MSG(st == VOLFFT_OK, "C API placement: " << volfft_last_error());
  if (st != VOLFFT_OK) return;
  Options cpp;
  cpp.effort = Effort::estimate;
  cpp.rank_order = order;
  Plan same(MPI_COMM_WORLD, {6, 5, 4}, Kind::c2c, Precision::float64, cpp);
  int64_t lo[3], hi[3];
  CHECK(volfft_input_box(plan, lo, hi) == VOLFFT_OK);
  const Box b = same.input_box();
  CHECK_MSG(std::equal(lo, lo + 3, b.lo.begin()) && std::equal(hi, hi + 3, b.hi.begin()),
            "C API placement: rank " << rank << " input box differs from the C++ plan's");
  CHECK(volfft_plan_destroy(plan) == VOLFFT_OK);
}

}  // namespace

int main(int argc, char** argv) {
  return volfft_test::run_mpi_test(argc, argv, [](int rank, int size) {
    if (size == 1) {
      // One rank has only the identity; check that it is accepted and changes nothing.
      Options o;
      o.effort = Effort::estimate;
      o.rank_order = {0};
      Plan p(MPI_COMM_WORLD, {4, 3, 2}, Kind::c2c, Precision::float64, o);
      CHECK(p.grid_position() == (std::array<int, 2>{0, 0}));
      check_placement(rank, size, {5, 4, 3}, Kind::r2c, {1, 1}, Engine::alltoallv, {"identity", {0}});
      std::printf("np 1: only the identity placement exists; checked that it is accepted\n");
      return;
    }
    int cases = 0;
    const Engine engines[] = {Engine::alltoallv, Engine::alltoallw, Engine::p2p, Engine::alltoall};
    for (int p0 = 1; p0 <= size; ++p0) {
      if (size % p0) continue;
      const std::array<int, 2> grid{p0, size / p0};
      for (const Placement& pl : placements(size, grid)) {
        const Engine e = engines[cases % 4];
        check_placement(rank, size, {6, 5, 4}, Kind::c2c, grid, e, pl);
        check_placement(rank, size, {5, 7, 6}, Kind::r2c, grid, e, pl);
        cases += 2;
      }
    }
    for (const Placement& pl : placements(size, {size, 1})) {
      check_placement(rank, size, {7, 6}, Kind::r2c, {size, 1}, Engine::alltoallv, pl);
      ++cases;
    }
    c_api_placement(rank, size);
    if (rank == 0) std::printf("np %d: %d placement cases\n", size, cases);
  });
}
