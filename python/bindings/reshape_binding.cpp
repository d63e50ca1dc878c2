// volfft::Reshape and the named distributions for Python (volfft/reshape.py does the checking
// and the numpy views); LocalArrays cross as tuples (lo, hi, order, storage_lo, storage_hi).
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "volfft/error.hpp"
#include "volfft/distribution.hpp"
#include "volfft/reshape.hpp"

namespace volfft_python {

namespace {

std::array<std::int64_t, 3> three(const std::vector<std::int64_t>& v, const char* what) {
  if (v.size() != 3) throw volfft::Error(std::string(what) + ": expected 3 entries");
  return {v[0], v[1], v[2]};
}

}  // namespace

volfft::LocalArray local_array_from(const LocalArrayTuple& t) {
  volfft::LocalArray a;
  a.box.lo = three(std::get<0>(t), "box lo");
  a.box.hi = three(std::get<1>(t), "box hi");
  a.order = std::get<2>(t);
  a.storage.lo = three(std::get<3>(t), "storage lo");
  a.storage.hi = three(std::get<4>(t), "storage hi");
  return a;
}

LocalArrayTuple local_array_to(const volfft::LocalArray& a) {
  return {std::vector<std::int64_t>(a.box.lo.begin(), a.box.lo.end()),
          std::vector<std::int64_t>(a.box.hi.begin(), a.box.hi.end()), a.order,
          std::vector<std::int64_t>(a.storage.lo.begin(), a.storage.lo.end()),
          std::vector<std::int64_t>(a.storage.hi.begin(), a.storage.hi.end())};
}

namespace {

using InputArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using OutputArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

// A Reshape destroyed at a chosen point (close()), and abandoned rather than destroyed after
// MPI_Finalize (as PlanHandle).
class ReshapeHandle {
 public:
  ReshapeHandle(nb::handle comm, const std::vector<std::int64_t>& shape, const LocalArrayTuple& in,
                const LocalArrayTuple& out, const std::string& precision, const std::string& values,
                const nb::dict& given) {
    MPI_Comm c = to_mpi_comm(comm);
    const volfft::Options options = options_from(given);
    const volfft::Precision p = volfft::parse_precision(precision);
    if (values != "complex" && values != "real")
      throw volfft::Error("values: expected 'complex' or 'real', got '" + values + "'");
    const volfft::Values v = values == "real" ? volfft::Values::real : volfft::Values::complex;
    element_bytes_ = (p == volfft::Precision::float64 ? 8 : 4) * (v == volfft::Values::complex ? 2 : 1);
    const volfft::LocalArray a = local_array_from(in), b = local_array_from(out);
    nb::gil_scoped_release release;  // collective
    reshape_ = std::make_unique<volfft::Reshape>(c, shape, a, b, p, v, options);
  }
  ~ReshapeHandle() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) (void)reshape_.release();
  }

  void close() { reshape_.reset(); }
  bool closed() const { return !reshape_; }
  volfft::Reshape& reshape() const {
    if (!reshape_) throw volfft::Error("reshape: the reshape is closed; create a new Reshape");
    return *reshape_;
  }

  // Sizes are checked again here (the last line of defence when _volfft is called directly;
  // volfft.Reshape checks shapes and dtypes first, with the user-facing message).
  void start(const InputArray& src, OutputArray& dst, bool reversed) {
    volfft::Reshape& r = reshape();
    const std::size_t element = element_bytes_;
    const std::int64_t src_count = reversed ? r.output_count() : r.input_count();
    const std::int64_t dst_count = reversed ? r.input_count() : r.output_count();
    check_bytes("source", src.nbytes(), src_count * element);
    check_bytes("destination", dst.nbytes(), dst_count * element);
    nb::gil_scoped_release release;
    r.start(src.data(), dst.data(), reversed);
  }

 private:
  static void check_bytes(const char* name, std::size_t got, std::int64_t expected) {
    if (static_cast<std::int64_t>(got) != expected)
      throw volfft::Error(std::string(name) + ": expected " + std::to_string(expected) + " bytes, got " +
                          std::to_string(got));
  }

  std::unique_ptr<volfft::Reshape> reshape_;
  std::size_t element_bytes_ = 0;
};

std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> boxes_to(
    const std::vector<volfft::Box>& boxes) {
  std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> result;
  result.reserve(boxes.size());
  for (const auto& b : boxes)
    result.emplace_back(std::vector<std::int64_t>(b.lo.begin(), b.lo.end()),
                        std::vector<std::int64_t>(b.hi.begin(), b.hi.end()));
  return result;
}

}  // namespace

void bind_reshape(nb::module_& m) {
  m.def(
      "distribution",
      [](const std::string& name, const std::vector<std::int64_t>& shape, int ranks, int axis,
         std::int64_t block) {
        if (name == "slabs") return boxes_to(volfft::slabs(shape, ranks, axis));
        if (name == "pencils") return boxes_to(volfft::pencils(shape, ranks, axis));
        if (name == "bricks") return boxes_to(volfft::bricks(shape, ranks));
        if (name == "fftw_blocks") return boxes_to(volfft::fftw_blocks(shape, ranks, axis, block));
        throw volfft::Error("distribution: expected slabs, pencils, bricks or fftw_blocks, got '" + name + "'");
      },
      nb::arg("name"), nb::arg("shape"), nb::arg("ranks"), nb::arg("axis"), nb::arg("block"),
      "Every rank's box (lo[3], hi[3]) of a named distribution (volfft/distribution.hpp).");
  nb::class_<ReshapeHandle>(m, "Reshape", "Native reshape; use volfft.Reshape.")
      .def(nb::init<nb::handle, const std::vector<std::int64_t>&, const LocalArrayTuple&, const LocalArrayTuple&,
                    const std::string&, const std::string&, const nb::dict&>(),
           nb::arg("comm"), nb::arg("shape"), nb::arg("in_array"), nb::arg("out_array"), nb::arg("precision"),
           nb::arg("values"), nb::arg("options"))
      .def("close", &ReshapeHandle::close)
      .def_prop_ro("closed", &ReshapeHandle::closed)
      .def("start", &ReshapeHandle::start, nb::arg("source").noconvert(), nb::arg("destination").noconvert(),
           nb::arg("reversed"))
      .def("test",
           [](ReshapeHandle& h) {
             // A request of a closed reshape is done (close() finished it), as a Plan's request
             // whose plan is gone: test() says so, wait() raises. It raised here too.
             if (h.closed()) return true;
             nb::gil_scoped_release release;
             return h.reshape().test();
           })
      .def("wait",  // finish(), under the name volfft.Request calls
           [](ReshapeHandle& h) {
             nb::gil_scoped_release release;
             h.reshape().finish();
           })
      .def("agree_on_problem",
           [](ReshapeHandle& h, const std::string& problem) {
             nb::gil_scoped_release release;  // collective
             h.reshape().agree_on_problem(problem);
           })
      .def("input_array", [](const ReshapeHandle& h) { return local_array_to(h.reshape().input()); })
      .def("output_array", [](const ReshapeHandle& h) { return local_array_to(h.reshape().output()); })
      .def("engine", [](const ReshapeHandle& h) { return std::string(volfft::to_string(h.reshape().engine())); })
      .def("input_count", [](const ReshapeHandle& h) { return h.reshape().input_count(); })
      .def("output_count", [](const ReshapeHandle& h) { return h.reshape().output_count(); })
      .def("workspace_bytes", [](const ReshapeHandle& h) { return h.reshape().workspace_bytes(); })
      .def("sent_count", [](const ReshapeHandle& h) { return h.reshape().sent_count(); })
      .def("received_count", [](const ReshapeHandle& h) { return h.reshape().received_count(); })
      .def("tuning_report", [](const ReshapeHandle& h) { return h.reshape().tuning_report(); });
}

}  // namespace volfft_python
