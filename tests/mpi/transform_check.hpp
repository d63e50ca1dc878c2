// One distributed transform checked against the serial reference: forward output against a
// serial FFTW transform of the whole array, then backward(forward(x)) against x. Shared by
// test_node.cpp and test_threads.cpp, which vary the options rather than the shapes.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "support/check.hpp"
#include "support/reference.hpp"
#include "volfft/plan.hpp"

namespace volfft_test {

/// Relative L2 tolerance for an N-point transform in precision Real.
template <class Real>
double transform_tolerance(Index n_total) {
  const double eps = std::is_same<Real, double>::value ? 2.22e-16 : 1.19e-7;
  return 8 * eps * std::max(1.0, std::log2(static_cast<double>(n_total)));
}

/// Offset of a global index inside a rank's array holding `box` in memory order `order`.
struct LocalLayout {
  volfft::Box box;
  std::array<Index, 3> strides{};
  int ndim;
  LocalLayout(const volfft::Box& b, const std::vector<int>& order, int nd) : box(b), ndim(nd) {
    Index s = 1;
    for (int k = nd - 1; k >= 0; --k) {
      strides[order[k]] = s;
      s *= box.extent(order[k]);
    }
  }
  Index offset(const std::array<Index, 3>& x) const {
    Index off = 0;
    for (int a = 0; a < ndim; ++a) off += (x[a] - box.lo[a]) * strides[a];
    return off;
  }
};

/// Runs forward and backward with `options` on `shape` and checks both. Returns this rank's
/// forward output (in the plan's output layout) so callers can compare option sets.
template <class Real>
std::vector<std::complex<Real>> check_transform(MPI_Comm comm, const std::vector<Index>& shape,
                                                volfft::Kind kind, const volfft::Options& options,
                                                const std::string& label) {
  using C = std::complex<Real>;
  using volfft::Kind;
  const auto precision =
      std::is_same<Real, double>::value ? volfft::Precision::float64 : volfft::Precision::float32;
  volfft::Plan plan(comm, shape, kind, precision, options);
  const int nd = static_cast<int>(shape.size());
  const std::array<Index, 3> s3 = nd == 3 ? std::array<Index, 3>{shape[0], shape[1], shape[2]}
                                          : std::array<Index, 3>{shape[0], shape[1], 1};
  const Index n_total = s3[0] * s3[1] * s3[2];
  const Index nlast = shape[nd - 1], nlast_c = kind == Kind::r2c ? nlast / 2 + 1 : nlast;

  const auto pair = reference_pair(s3, kind == Kind::r2c);
  const std::vector<cd>& global = pair->data;
  const std::vector<cd>& ref = pair->transform;
  const LocalLayout in_arr(plan.input_box(), plan.input_order(), nd);
  const LocalLayout out_arr(plan.output_box(), plan.output_order(), nd);
  auto flat = [&](const std::array<Index, 3>& x) {
    return nd == 3 ? (x[0] * s3[1] + x[1]) * s3[2] + x[2] : x[0] * s3[1] + x[1];
  };
  auto for_box = [&](const volfft::Box& b, auto&& f) {
    for (Index x0 = b.lo[0]; x0 < b.hi[0]; ++x0)
      for (Index x1 = b.lo[1]; x1 < b.hi[1]; ++x1)
        for (Index x2 = b.lo[2]; x2 < (nd == 3 ? b.hi[2] : 1); ++x2)
          f(std::array<Index, 3>{x0, x1, x2});
  };

  std::vector<Real> in_real, back_real;
  std::vector<C> in_c, back_c, out(std::max<Index>(plan.output_count(), 1));
  if (kind == Kind::r2c) {
    in_real.resize(std::max<Index>(plan.input_count(), 1));
    for_box(in_arr.box, [&](auto x) { in_real[in_arr.offset(x)] = Real(global[flat(x)].real()); });
    plan.forward(in_real.data(), out.data());
  } else {
    in_c.resize(std::max<Index>(plan.input_count(), 1));
    for_box(in_arr.box, [&](auto x) { in_c[in_arr.offset(x)] = C(global[flat(x)]); });
    plan.forward(in_c.data(), out.data());
  }
  double sums[2] = {0, 0}, total[2];
  for_box(out_arr.box, [&](auto x) {
    const cd r = ref[flat(x)];
    const C v = out[out_arr.offset(x)];
    sums[0] += std::norm(cd(v.real(), v.imag()) - r);
    sums[1] += std::norm(r);
  });
  MPI_Allreduce(sums, total, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double tol = transform_tolerance<Real>(n_total);
  const double rel = total[1] > 0 ? std::sqrt(total[0] / total[1]) : std::sqrt(total[0]);
  CHECK_MSG(rel <= tol, label << ": forward relative L2 error " << rel << " > " << tol);
  Index count = plan.output_count(), all = 0;
  MPI_Allreduce(&count, &all, 1, MPI_INT64_T, MPI_SUM, comm);
  CHECK_MSG(all == n_total / nlast * nlast_c, label << ": output boxes cover " << all);

  const std::vector<C> forward_out = out;
  double rt[2] = {0, 0}, rtt[2];
  if (kind == Kind::r2c) {
    back_real.assign(in_real.size(), Real(0));
    plan.backward(out.data(), back_real.data());
    for (Index k = 0; k < plan.input_count(); ++k) {
      rt[0] += std::pow(double(back_real[k]) - double(in_real[k]), 2);
      rt[1] += std::pow(double(in_real[k]), 2);
    }
  } else {
    back_c.assign(in_c.size(), C(0));
    plan.backward(out.data(), back_c.data());
    for (Index k = 0; k < plan.input_count(); ++k) {
      rt[0] += std::norm(std::complex<double>(back_c[k]) - std::complex<double>(in_c[k]));
      rt[1] += std::norm(std::complex<double>(in_c[k]));
    }
  }
  MPI_Allreduce(rt, rtt, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double round_trip = std::sqrt(rtt[0] / std::max(rtt[1], 1e-300));
  CHECK_MSG(round_trip <= tol, label << ": round trip relative error " << round_trip << " > " << tol);
  // A second forward call must give the same numbers: nothing left over from the first.
  std::vector<C> again(out.size());
  if (kind == Kind::r2c) {
    plan.forward(in_real.data(), again.data());
  } else {
    plan.forward(in_c.data(), again.data());
  }
  int same = std::memcmp(again.data(), forward_out.data(), again.size() * sizeof(C)) == 0, all_same = 0;
  MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, comm);
  CHECK_MSG(all_same == 1, label << ": a second forward call gave different numbers");
  return forward_out;
}

/// "7x9x11 c2c double"
inline std::string shape_text(const std::vector<Index>& shape, volfft::Kind kind, const char* precision) {
  std::string s;
  for (std::size_t a = 0; a < shape.size(); ++a) s += (a ? "x" : "") + std::to_string(shape[a]);
  return s + " " + volfft::to_string(kind) + " " + precision;
}

/// Whether `flag` (e.g. "--quick": a short selection, for oversubscribed or TCP runs) is among
/// the program's arguments.
inline bool has_flag(int argc, char** argv, const char* flag) {
  for (int k = 1; k < argc; ++k)
    if (std::string(argv[k]) == flag) return true;
  return false;
}

/// Every process grid p0 x p1 of `size` ranks, slabs (size x 1) first.
inline std::vector<std::array<int, 2>> all_grids(int size) {
  std::vector<std::array<int, 2>> grids;
  for (int p0 = size; p0 >= 1; --p0)
    if (size % p0 == 0) grids.push_back({p0, size / p0});
  return grids;
}

/// Whether engine persistent is tested: VOLFFT_TEST_PERSISTENT=0 leaves it out (an MPI whose
/// persistent collectives are missing or broken).
inline bool persistent_tested() {
  const char* v = std::getenv("VOLFFT_TEST_PERSISTENT");
  return v == nullptr || std::string(v) != "0";
}

/// The shapes the transform suites share: powers of two, primes, uneven sizes, axes of 1, and
/// axes shorter than the process count.
inline std::vector<std::vector<Index>> shared_shapes3() {
  return {{8, 8, 8}, {7, 9, 11}, {1, 5, 6}, {5, 1, 3}, {3, 4, 2}, {64, 64, 64}, {2, 3, 1}};
}
inline std::vector<std::vector<Index>> shared_shapes2() {
  return {{8, 8}, {7, 9}, {1, 5}, {5, 1}, {3, 2}, {64, 64}, {13, 4}};
}

}  // namespace volfft_test
