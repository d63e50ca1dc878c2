// Every engine x {slab, pencil} x {c2c, r2c} x {double, float} x {2-D, 3-D}, on even, uneven,
// prime and degenerate shapes, against a serial FFTW transform of the whole array; then
// backward(forward(x)) == x. Run at np 1, 2, 3 and 4 by ctest.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "support/mpi_main.hpp"
#include "mpi/transform_check.hpp"
#include "support/reference.hpp"
#include "volfft/plan.hpp"

using namespace volfft;
using namespace volfft_test;

namespace {

template <class Real>
void run_case(MPI_Comm comm, const std::vector<Index>& shape, Kind kind, std::array<int, 2> grid,
              Engine engine, Layout layout, const std::string& label, Options opt = {},
              bool split_phase = false) {
  using C = std::complex<Real>;
  opt.grid = grid;
  opt.engine = engine;
  opt.layout = layout;
  opt.effort = Effort::estimate;
  const Precision prec = std::is_same<Real, double>::value ? Precision::float64 : Precision::float32;
  Plan plan(comm, shape, kind, prec, opt);
  const int nd = static_cast<int>(shape.size());
  const std::array<Index, 3> s3 = nd == 3 ? std::array<Index, 3>{shape[0], shape[1], shape[2]}
                                          : std::array<Index, 3>{shape[0], shape[1], 1};
  const Index n_total = s3[0] * s3[1] * s3[2];
  const Index nlast = shape[nd - 1];
  const Index nlast_c = kind == Kind::r2c ? nlast / 2 + 1 : nlast;

  // Global data and reference (every rank builds the whole thing: shapes are small).
  // A 2-D array is transformed as (n0, n1, 1) by the reference: same numbers.
  const auto pair = reference_pair(s3, kind == Kind::r2c);
  const std::vector<cd>& global = pair->data;
  const std::vector<cd>& ref = pair->transform;

  const LocalLayout in_arr(plan.input_box(), plan.input_order(), nd);
  const LocalLayout out_arr(plan.output_box(), plan.output_order(), nd);
  CHECK(in_arr.box.size() == plan.input_count());
  CHECK(out_arr.box.size() == plan.output_count());
  CHECK_MSG(in_arr.box.extent(nd - 1) == nlast || plan.input_count() == 0,
            label << ": input must hold the last axis whole");

  std::vector<Real> in_real;
  std::vector<C> in_c, out(std::max<Index>(plan.output_count(), 1)), back_c;
  std::vector<Real> back_r;
  const Box& ib = in_arr.box;
  auto flat = [&](const std::array<Index, 3>& x) {
    return nd == 3 ? (x[0] * s3[1] + x[1]) * s3[2] + x[2] : x[0] * s3[1] + x[1];
  };
  auto for_box = [&](const Box& b, auto&& f) {
    for (Index x0 = b.lo[0]; x0 < b.hi[0]; ++x0)
      for (Index x1 = b.lo[1]; x1 < b.hi[1]; ++x1)
        for (Index x2 = b.lo[2]; x2 < (nd == 3 ? b.hi[2] : 1); ++x2) f(std::array<Index, 3>{x0, x1, x2});
  };
  const void* in_ptr = nullptr;
  if (kind == Kind::r2c) {
    in_real.resize(std::max<Index>(plan.input_count(), 1));
    for_box(ib, [&](auto x) { in_real[in_arr.offset(x)] = static_cast<Real>(global[flat(x)].real()); });
    in_ptr = in_real.data();
  } else {
    in_c.resize(std::max<Index>(plan.input_count(), 1));
    for_box(ib, [&](auto x) { in_c[in_arr.offset(x)] = C(global[flat(x)]); });
    in_ptr = in_c.data();
  }
  // Under destroy_input the forward may overwrite its input (the round trip below is checked
  // against these copies); no other plan may.
  const std::vector<Real> in_real_kept = in_real;
  const std::vector<C> in_c_kept = in_c;
  if (split_phase) {
    Request r = plan.forward_start(in_ptr, out.data());
    for (int k = 0; k < 3 && !r.test(); ++k) {
    }
    r.wait();
    CHECK(!r.pending());
  } else {
    plan.forward_raw(in_ptr, out.data());
  }
  const bool input_kept = kind == Kind::r2c ? in_real == in_real_kept : in_c == in_c_kept;
  if (!opt.destroy_input) CHECK_MSG(input_kept, label << ": forward modified its input");
  // Compare this rank's output box with the reference.
  double err2 = 0, ref2 = 0;
  bool inside = true;
  for_box(out_arr.box, [&](auto x) {
    inside = inside && x[nd - 1] < nlast_c;
    const cd r = ref[flat(x)];
    const cd v(out[out_arr.offset(x)].real(), out[out_arr.offset(x)].imag());
    err2 += std::norm(v - r);
  });
  CHECK_MSG(inside, label << ": output box reaches past the last axis' " << nlast_c << " values");
  double sums[2] = {err2, 0}, total[2];
  // The output boxes partition the r2c half-spectrum, not the full one: weigh the reference by
  // the part that exists on output.
  double half2 = 0;
  for_box(out_arr.box, [&](auto x) { half2 += std::norm(ref[flat(x)]); });
  sums[1] = half2;
  MPI_Allreduce(sums, total, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double tol = transform_tolerance<Real>(n_total);
  const double rel = total[1] > 0 ? std::sqrt(total[0] / total[1]) : std::sqrt(total[0]);
  CHECK_MSG(rel <= tol, label << ": forward relative L2 error " << rel << " > " << tol);
  // Output boxes must tile the output space exactly.
  Index count = plan.output_count(), all = 0;
  MPI_Allreduce(&count, &all, 1, MPI_INT64_T, MPI_SUM, comm);
  CHECK_MSG(all == n_total / nlast * nlast_c, label << ": output boxes cover " << all);

  // Round trip, with the default 1/N scaling.
  const std::vector<C> out_copy = out;
  double rt2 = 0, in2 = 0;
  if (kind == Kind::r2c) {
    back_r.assign(in_real.size(), Real(0));
    if (split_phase) plan.backward_start(out.data(), back_r.data()).wait();
    else plan.backward(out.data(), back_r.data());
    for (std::size_t k = 0; k < static_cast<std::size_t>(plan.input_count()); ++k) {
      rt2 += std::pow(double(back_r[k]) - double(in_real_kept[k]), 2);
      in2 += std::pow(double(in_real_kept[k]), 2);
    }
  } else {
    back_c.assign(in_c.size(), C(0));
    if (split_phase) plan.backward_start(out.data(), back_c.data()).wait();
    else plan.backward(out.data(), back_c.data());
    for (std::size_t k = 0; k < static_cast<std::size_t>(plan.input_count()); ++k) {
      rt2 += std::norm(std::complex<double>(back_c[k]) - std::complex<double>(in_c_kept[k]));
      in2 += std::norm(std::complex<double>(in_c_kept[k]));
    }
  }
  // A backward under destroy_input may overwrite the spectrum; no other may.
  bool unchanged = std::memcmp(out.data(), out_copy.data(), out.size() * sizeof(C)) == 0;
  if (!opt.destroy_input) CHECK_MSG(unchanged, label << ": backward modified its input");
  // At one rank that plan's backward is one c2r plan reading the spectrum itself: ducc0's
  // multi-dimensional c2r transforms its other axes in place there, so the input must change.
  if (opt.destroy_input && kind == Kind::r2c && opt.backend == Backend::ducc0 && plan.grid() == std::array<int, 2>{1, 1} &&
      plan.input_count() > 0 && shape[nd - 1] > 2) {
    int changed = !unchanged, all_changed = 0;
    MPI_Allreduce(&changed, &all_changed, 1, MPI_INT, MPI_MIN, comm);
    CHECK_MSG(all_changed == 1, label << ": the backward did not read its input with one c2r plan");
  }
  double rts[2] = {rt2, in2}, rtt[2];
  MPI_Allreduce(rts, rtt, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double rt = std::sqrt(rtt[0] / std::max(rtt[1], 1e-300));
  CHECK_MSG(rt <= tol, label << ": round trip relative error " << rt << " > " << tol);
}

std::string name(const std::vector<Index>& shape, Kind k, std::array<int, 2> g, Engine e, Layout l,
                 const char* prec) {
  std::string s;
  for (auto n : shape) s += std::to_string(n) + (s.size() ? "" : "");
  std::string shp;
  for (std::size_t a = 0; a < shape.size(); ++a) shp += (a ? "x" : "") + std::to_string(shape[a]);
  return shp + " " + to_string(k) + " " + prec + " grid " + std::to_string(g[0]) + "x" +
         std::to_string(g[1]) + " " + to_string(e) + " " + to_string(l);
}

}  // namespace

int main(int argc, char** argv) {
  // --quick: a short selection (used across emulated hosts, where every message is TCP).
  const bool quick = has_flag(argc, argv, "--quick");
  return run_mpi_test(argc, argv, [quick](int rank, int size) {
    std::vector<std::vector<Index>> shapes3 = shared_shapes3();
    std::vector<std::vector<Index>> shapes2 = shared_shapes2();
    if (quick) shapes3 = {{8, 8, 8}, {7, 9, 11}, {3, 4, 2}}, shapes2 = {{7, 9}};
    std::vector<Engine> engines = {Engine::alltoallv, Engine::alltoall, Engine::alltoallw, Engine::p2p,
                                   Engine::pipelined};
    if (persistent_tested()) engines.push_back(Engine::persistent);
    std::vector<std::array<int, 2>> grids;
    for (int p0 = 1; p0 <= size; ++p0)
      if (size % p0 == 0) grids.push_back({p0, size / p0});
    int cases = 0;
    for (Kind kind : {Kind::c2c, Kind::r2c})
      for (Engine e : engines)
        for (Layout l : {Layout::transposed, Layout::natural}) {
          if (quick && l == Layout::natural) continue;
          for (const auto& shape : shapes3)
            for (auto g : grids) {
              run_case<double>(MPI_COMM_WORLD, shape, kind, g, e, l, name(shape, kind, g, e, l, "double"));
              if (!quick) run_case<float>(MPI_COMM_WORLD, shape, kind, g, e, l, name(shape, kind, g, e, l, "float"));
              cases += quick ? 1 : 2;
            }
          for (const auto& shape : shapes2) {
            const std::array<int, 2> g{size, 1};
            run_case<double>(MPI_COMM_WORLD, shape, kind, g, e, l, name(shape, kind, g, e, l, "double"));
            run_case<float>(MPI_COMM_WORLD, shape, kind, g, e, l, name(shape, kind, g, e, l, "float"));
            cases += 2;
          }
        }
    // The pipelined engine with planes that do not divide the chunked axis, one plane, the
    // Isend/Irecv transport and tight bounds on chunks in flight; planes = 0 is blocking.
    for (int planes : (quick ? std::vector<int>{3} : std::vector<int>{0, 1, 2, 3, 5}))
      for (bool p2p : {false, true})
        for (const auto& shape : std::vector<std::vector<Index>>{{7, 9, 11}, {8, 8, 8}, {3, 4, 2}, {13, 4}})
          for (auto g : grids) {
            if (shape.size() == 2 && g[1] != 1) continue;
            Options o;
            o.planes = planes;
            o.pipeline_p2p = p2p;
            o.max_in_flight = planes == 1 ? 1 : 3;
            for (Kind kind : {Kind::c2c, Kind::r2c}) {
              const std::string label = name(shape, kind, g, Engine::pipelined, Layout::transposed, "double") +
                                        " planes " + std::to_string(planes) + (p2p ? " p2p" : "");
              run_case<double>(MPI_COMM_WORLD, shape, kind, g, Engine::pipelined, Layout::transposed, label, o);
              run_case<float>(MPI_COMM_WORLD, shape, kind, g, Engine::pipelined, Layout::natural, label + " float", o);
              cases += 2;
            }
          }
    // Split-phase calls, with every engine.
    for (Engine e : engines)
      for (auto g : grids)
        for (Kind kind : {Kind::c2c, Kind::r2c}) {
          run_case<double>(MPI_COMM_WORLD, {9, 6, 7}, kind, g, e, Layout::transposed,
                           name({9, 6, 7}, kind, g, e, Layout::transposed, "double") + " split-phase", {}, true);
          ++cases;
        }
    // Options::destroy_input: forwards and backwards that may overwrite their input (FFTW plans
    // made with FFTW_DESTROY_INPUT; at one rank an r2c's backward is one c2r plan from the
    // spectrum) still give the right spectrum and the input back.
    for (Backend backend : {Backend::fftw, Backend::ducc0}) {
      if (!have_backend(backend)) continue;
      for (Kind kind : {Kind::c2c, Kind::r2c})
        for (const auto& shape : quick ? shapes3 : std::vector<std::vector<Index>>{{8, 8, 8}, {7, 9, 11}, {3, 4, 2}, {6, 5, 10}, {13, 4}})
          for (auto g : grids) {
            if (shape.size() == 2 && g[1] != 1) continue;
            Options o;
            o.destroy_input = true;
            o.backend = backend;
            const std::string label = name(shape, kind, g, Engine::alltoallv, Layout::transposed, "double") +
                                      " destroy_input backend " + to_string(backend);
            run_case<double>(MPI_COMM_WORLD, shape, kind, g, Engine::alltoallv, Layout::transposed, label, o);
            run_case<float>(MPI_COMM_WORLD, shape, kind, g, Engine::alltoallv, Layout::natural, label + " float", o);
            cases += 2;
          }
    }
    // Automatic grid and engine, and a measured plan.
    run_case<double>(MPI_COMM_WORLD, {12, 10, 9}, Kind::c2c, {0, 0}, Engine::automatic,
                     Layout::transposed, "auto grid/engine");
    if (rank == 0) std::printf("%d transform cases\n", cases + 1);
  });
}
