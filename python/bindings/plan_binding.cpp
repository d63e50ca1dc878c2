// volfft::Plan for Python: construction from mpi4py communicators and option names, queries,
// and forward/backward on numpy arrays used in place (no copies, GIL released).
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "volfft/plan.hpp"

namespace volfft_python {

namespace {

// Arrays are passed through with .noconvert(): a converted copy would silently lose output.
using InputArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using OutputArray = nb::ndarray<nb::c_contig, nb::device::cpu>;

std::int64_t real_bytes(volfft::Precision p) { return p == volfft::Precision::float64 ? 8 : 4; }

// A Plan whose collective destruction can happen at a chosen point (close()), and which is
// never destroyed after MPI_Finalize (the interpreter may collect it after mpi4py finalised
// MPI; freeing communicators then would abort, so the plan is abandoned instead).
class PlanHandle {
 public:
  PlanHandle(nb::handle comm, const std::vector<std::int64_t>& shape, const std::string& kind,
             const std::string& precision, const nb::dict& given, const std::optional<LocalArrayTuple>& in,
             const std::optional<LocalArrayTuple>& out) {
    MPI_Comm c = to_mpi_comm(comm);
    const volfft::Options options = options_from(given);
    const volfft::Kind k = volfft::parse_kind(kind);
    const volfft::Precision p = volfft::parse_precision(precision);
    // Planning is collective and may measure for a while: let other Python threads run.
    std::optional<volfft::LocalArray> in_array, out_array;
    if (in) in_array = local_array_from(*in);
    if (out) out_array = local_array_from(*out);
    nb::gil_scoped_release release;
    if (in_array || out_array)
      plan_ = std::make_unique<volfft::Plan>(c, shape, k, p, options, in_array, out_array);
    else
      plan_ = std::make_unique<volfft::Plan>(c, shape, k, p, options);
  }
  ~PlanHandle() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) (void)plan_.release();
  }

  void close() { plan_.reset(); }
  // close() for a rank leaving a `with` block by an exception: the plan is destroyed as C++
  // destroys one while unwinding (inside a destructor run by a throw), so that a split-phase
  // transform still pending is abandoned, not completed: completing it runs collectives (the
  // later exchanges, the output reshape) that the other ranks may never join, and the rank hung
  // there instead of carrying its exception on (to python -m mpi4py's abort). Without a pending
  // transform this is close(): destroying a plan never communicates.
  void close_unwinding() {
    struct Unwinding {};
    struct Reset {
      std::unique_ptr<volfft::Plan>& plan;
      ~Reset() { plan.reset(); }
    };
    try {
      Reset reset{plan_};
      throw Unwinding{};
    } catch (const Unwinding&) {
    }
  }
  bool closed() const { return !plan_; }

  volfft::Plan& plan() const {
    if (!plan_) throw volfft::Error("plan: the plan is closed; create a new Plan");
    return *plan_;
  }

  void forward(const InputArray& a, OutputArray& out) {
    check_forward(a, out);
    nb::gil_scoped_release release;
    plan().forward_raw(a.data(), out.data());
  }

  void backward(const InputArray& b, OutputArray& out) {
    check_backward(b, out);
    nb::gil_scoped_release release;
    plan().backward_raw(b.data(), out.data());
  }

  // Split phase: the returned request keeps this handle alive (keep_alive in the binding).
  volfft::Request* forward_start(const InputArray& a, OutputArray& out) {
    check_forward(a, out);
    nb::gil_scoped_release release;
    return new volfft::Request(plan().forward_start(a.data(), out.data()));
  }

  volfft::Request* backward_start(const InputArray& b, OutputArray& out) {
    check_backward(b, out);
    nb::gil_scoped_release release;
    return new volfft::Request(plan().backward_start(b.data(), out.data()));
  }

  // In-place plans: one byte buffer of at least in_place_bytes() is both in and out.
  void in_place(bool forward, OutputArray& buffer) {
    check_in_place(buffer);
    nb::gil_scoped_release release;
    if (forward)
      plan().forward_raw(buffer.data(), buffer.data());
    else
      plan().backward_raw(buffer.data(), buffer.data());
  }

  volfft::Request* in_place_start(bool forward, OutputArray& buffer) {
    check_in_place(buffer);
    nb::gil_scoped_release release;
    return new volfft::Request(forward ? plan().forward_start(buffer.data(), buffer.data())
                                       : plan().backward_start(buffer.data(), buffer.data()));
  }

  std::string tuning_report() const { return plan().tuning_report(); }

  std::vector<std::pair<std::string, double>> timings(const std::string& direction,
                                                      bool max_over_ranks) const {
    volfft::Direction d;
    if (direction == "forward") {
      d = volfft::Direction::forward;
    } else if (direction == "backward") {
      d = volfft::Direction::backward;
    } else {
      throw volfft::Error("direction: expected 'forward' or 'backward', got '" + direction + "'");
    }
    std::vector<std::pair<std::string, double>> result;
    std::vector<volfft::Phase> measured;
    if (max_over_ranks) {
      nb::gil_scoped_release release;  // collective
      measured = plan().timings_max(d);
    } else {
      measured = plan().timings(d);
    }
    result.reserve(measured.size());
    for (const auto& ph : measured) result.emplace_back(ph.name, ph.seconds);
    return result;
  }

 private:
  // Last line of defence against buffer overruns when _volfft is called directly;
  // volfft.Plan checks shape and dtype first and gives the user-facing message.
  static void check_bytes(const char* name, std::size_t got, std::int64_t expected) {
    if (static_cast<std::int64_t>(got) != expected) {
      throw volfft::Error(std::string(name) + ": expected " + std::to_string(expected) +
                          " bytes, got " + std::to_string(got));
    }
  }

  void check_in_place(const OutputArray& buffer) const {
    const volfft::Plan& p = plan();
    if (!p.in_place()) throw volfft::Error("plan: not an in-place plan (make it with in_place=True)");
    if (buffer.nbytes() < p.in_place_bytes())
      throw volfft::Error("a: expected an array of at least " + std::to_string(p.in_place_bytes()) +
                          " bytes (plan.in_place_bytes), got " + std::to_string(buffer.nbytes()));
  }

  // Bytes of one element of the forward input and of the spectrum: reals on the real sides
  // (r2c's input, both of r2r's), complex values on the others.
  std::int64_t input_element() const {
    const volfft::Plan& p = plan();
    return (p.kind() == volfft::Kind::c2c ? 2 : 1) * real_bytes(p.precision());
  }
  std::int64_t spectrum_element() const {
    const volfft::Plan& p = plan();
    return (p.kind() == volfft::Kind::r2r ? 1 : 2) * real_bytes(p.precision());
  }
  void check_forward(const InputArray& a, const OutputArray& out) const {
    check_bytes("a", a.nbytes(), plan().input_count() * input_element());
    check_bytes("out", out.nbytes(), plan().output_count() * spectrum_element());
  }
  void check_backward(const InputArray& b, const OutputArray& out) const {
    check_bytes("b", b.nbytes(), plan().output_count() * spectrum_element());
    check_bytes("out", out.nbytes(), plan().input_count() * input_element());
  }

  std::unique_ptr<volfft::Plan> plan_;
};

std::pair<std::array<std::int64_t, 3>, std::array<std::int64_t, 3>> box_pair(
    const volfft::Box& b) {
  return {b.lo, b.hi};
}

}  // namespace

void bind_plan(nb::module_& m) {
  m.def("option_specs", &option_specs, "The plan options as the library describes them (name, type, default, ...).");
  m.def(
      "check_options", [](const nb::dict& options) { (void)options_from(options); },
      "Raises TypeError/VolfftError for an option of the wrong type or value; local, no MPI.");
  nb::class_<volfft::Request>(m, "Request", "A split-phase transform; use volfft.Plan.forward_start.")
      .def("test", [](volfft::Request& r) {
        nb::gil_scoped_release release;
        return r.test();
      })
      .def("wait", [](volfft::Request& r) {
        nb::gil_scoped_release release;
        r.wait();
      })
      .def_prop_ro("pending", &volfft::Request::pending);
  nb::class_<PlanHandle>(m, "Plan", "Native plan; use volfft.Plan.")
      .def(nb::init<nb::handle, const std::vector<std::int64_t>&, const std::string&, const std::string&,
                    const nb::dict&, const std::optional<LocalArrayTuple>&, const std::optional<LocalArrayTuple>&>(),
           nb::arg("comm"), nb::arg("shape"), nb::arg("kind"), nb::arg("precision"), nb::arg("options"),
           nb::arg("in_array").none() = nb::none(), nb::arg("out_array").none() = nb::none())
      .def("close", &PlanHandle::close)
      .def("close_unwinding", &PlanHandle::close_unwinding)
      .def("forward_start", &PlanHandle::forward_start, nb::arg("a").noconvert(),
           nb::arg("out").noconvert(), nb::rv_policy::take_ownership, nb::keep_alive<0, 1>())
      .def("backward_start", &PlanHandle::backward_start, nb::arg("b").noconvert(),
           nb::arg("out").noconvert(), nb::rv_policy::take_ownership, nb::keep_alive<0, 1>())
      .def("in_place", &PlanHandle::in_place, nb::arg("forward"), nb::arg("buffer").noconvert())
      .def("in_place_start", &PlanHandle::in_place_start, nb::arg("forward"), nb::arg("buffer").noconvert(),
           nb::rv_policy::take_ownership, nb::keep_alive<0, 1>())
      .def("in_place_bytes", [](const PlanHandle& h) { return h.plan().in_place_bytes(); })
      .def("tuning_report", &PlanHandle::tuning_report)
      .def("agree_on_problem", [](PlanHandle& h, const std::string& problem) {
        nb::gil_scoped_release release;  // collective
        h.plan().agree_on_problem(problem);
      })
      .def_prop_ro("closed", &PlanHandle::closed)
      .def("forward", &PlanHandle::forward, nb::arg("a").noconvert(),
           nb::arg("out").noconvert())
      .def("backward", &PlanHandle::backward, nb::arg("b").noconvert(),
           nb::arg("out").noconvert())
      .def("timings", &PlanHandle::timings, nb::arg("direction"), nb::arg("max_over_ranks"))
      .def("ndim", [](const PlanHandle& h) { return h.plan().ndim(); })
      .def("shape", [](const PlanHandle& h) { return h.plan().shape(); })
      .def("kind", [](const PlanHandle& h) { return std::string(volfft::to_string(h.plan().kind())); })
      .def("precision",
           [](const PlanHandle& h) { return std::string(volfft::to_string(h.plan().precision())); })
      .def("grid", [](const PlanHandle& h) { return h.plan().grid(); })
      .def("engine",
           [](const PlanHandle& h) { return std::string(volfft::to_string(h.plan().engine())); })
      .def("layout",
           [](const PlanHandle& h) { return std::string(volfft::to_string(h.plan().layout())); })
      .def("backend",
           [](const PlanHandle& h) { return std::string(volfft::to_string(h.plan().backend())); })
      .def("grid_position", [](const PlanHandle& h) { return h.plan().grid_position(); })
      .def("input_box", [](const PlanHandle& h) { return box_pair(h.plan().input_box()); })
      .def("output_box", [](const PlanHandle& h) { return box_pair(h.plan().output_box()); })
      .def("input_array", [](const PlanHandle& h) { return local_array_to(h.plan().input_array()); })
      .def("output_array", [](const PlanHandle& h) { return local_array_to(h.plan().output_array()); })
      .def("reshapes", [](const PlanHandle& h) {
        return std::pair<bool, bool>(h.plan().reshapes_input(), h.plan().reshapes_output());
      })
      .def("input_order", [](const PlanHandle& h) { return h.plan().input_order(); })
      .def("output_order", [](const PlanHandle& h) { return h.plan().output_order(); })
      .def("input_count", [](const PlanHandle& h) { return h.plan().input_count(); })
      .def("output_count", [](const PlanHandle& h) { return h.plan().output_count(); })
      .def("workspace_bytes", [](const PlanHandle& h) { return h.plan().workspace_bytes(); })
      .def("description",
           [](const PlanHandle& h) { return description_to_dict(h.plan().description()); });
}

}  // namespace volfft_python
