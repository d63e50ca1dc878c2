// The C API: a thin shim over volfft::Plan. Every exception stops here and becomes a status
// code plus a message for volfft_last_error().
#include "volfft/volfft.h"

#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "capi/guarded.hpp"
#include "capi/local_array_c.hpp"
#include "capi/options_c.hpp"
#include "mpi/agreement.hpp"
#include "mpi/check.hpp"
#include "volfft/plan.hpp"

struct volfft_request_s {
  volfft::Request request;
};

struct volfft_plan_s {
  volfft::Plan plan;
  std::vector<volfft::Phase> phases;  // keeps the names handed out by volfft_timings alive
};

std::string& volfft::capi::last_error() {
  thread_local std::string message;
  return message;
}

namespace {

using volfft::capi::guarded;

void require_plan(volfft_plan p) {
  if (!p) throw volfft::Error("volfft: plan is NULL");
}

// The C kind and precision constants, checked.
std::pair<volfft::Kind, volfft::Precision> kind_and_precision(int kind, int precision) {
  if (kind != VOLFFT_C2C && kind != VOLFFT_R2C && kind != VOLFFT_R2R)
    throw volfft::Error("volfft: kind must be VOLFFT_C2C, VOLFFT_R2C or VOLFFT_R2R; got " + std::to_string(kind));
  if (precision != VOLFFT_DOUBLE && precision != VOLFFT_FLOAT)
    throw volfft::Error("volfft: precision must be VOLFFT_DOUBLE or VOLFFT_FLOAT; got " + std::to_string(precision));
  return {static_cast<volfft::Kind>(kind),
          precision == VOLFFT_FLOAT ? volfft::Precision::float32 : volfft::Precision::float64};
}

// A plan's shape: ndim (>= 2) sizes.
std::vector<std::int64_t> plan_shape(int ndim, const int64_t* shape) {
  if (ndim < 2) throw volfft::Error("volfft: ndim must be >= 2 (the number of entries of shape); got " +
                                    std::to_string(ndim));
  if (!shape) throw volfft::Error("volfft: shape is NULL");
  return std::vector<std::int64_t>(shape, shape + ndim);
}

// The getters' output pointers: a NULL one is the caller's error, not a crash.
void require_output(const void* p, const char* name) {
  if (!p) throw volfft::Error(std::string("volfft: ") + name + " (the output pointer) is NULL");
}

// A split-phase start: the request pointer is checked on every rank together (one small
// collective, as the blocking calls' own argument checks), so that a NULL one on one rank fails
// the call everywhere instead of leaving the others inside the transform.
// *request is NULL until the start succeeds (as volfft_plan_create's *plan on failure).
template <class Start>
void start(volfft_plan plan, volfft_request* request, const Start& begin) {
  if (request) *request = nullptr;
  require_plan(plan);
  plan->plan.agree_on_problem(request ? "" : "volfft: request (the output pointer) is NULL");
  *request = new volfft_request_s{begin()};
}

// The C enums are the C++ enums' values.
static_assert(VOLFFT_R2C == static_cast<int>(volfft::Kind::r2c) && VOLFFT_R2R == static_cast<int>(volfft::Kind::r2r),
              "volfft.h kind constants");
static_assert(VOLFFT_ENGINE_NODE == static_cast<int>(volfft::Engine::node) &&
                  VOLFFT_ENGINE_PERSISTENT == static_cast<int>(volfft::Engine::persistent) &&
                  VOLFFT_ENGINE_PIPELINED == static_cast<int>(volfft::Engine::pipelined),
              "volfft.h engine constants");
static_assert(VOLFFT_BACKEND_DUCC0 == static_cast<int>(volfft::Backend::ducc0) &&
                  VOLFFT_LAYOUT_NATURAL == static_cast<int>(volfft::Layout::natural) &&
                  VOLFFT_PATIENT == static_cast<int>(volfft::Effort::patient),
              "volfft.h option constants");

}  // namespace

extern "C" {

void volfft_options_default(volfft_options* o) {
  std::vector<int> no_kinds;  // the defaults have none: nothing points into it
  if (o) *o = volfft::capi::to_c(volfft::Options{}, no_kinds);
}

}  // extern "C"

namespace {

// volfft_plan_create and volfft_plan_create_on_arrays: everything checked here is checked on
// every rank together (one collective), so that an argument wrong on one rank fails all of them
// instead of leaving the others in a collective.
volfft_status create_plan(MPI_Comm comm, int ndim, const int64_t* shape, int kind, int precision,
                          const volfft_options* options, const volfft_local_array* in,
                          const volfft_local_array* out, volfft_plan* plan, bool on_arrays) {
  return guarded([&] {
    if (plan) *plan = nullptr;
    volfft::mpi::require_communicator(comm, on_arrays ? "volfft_plan_create_on_arrays" : "volfft_plan_create");
    volfft::Options o;
    std::vector<std::int64_t> s;
    volfft::Kind k = volfft::Kind::c2c;
    volfft::Precision p = volfft::Precision::float64;
    std::optional<volfft::LocalArray> in_array, out_array;
    std::string problem;
    try {
      if (!plan) throw volfft::Error("volfft: plan (the output pointer) is NULL");
      s = plan_shape(ndim, shape);
      std::vector<int> no_kinds;
      o = volfft::capi::from_c(options ? *options : volfft::capi::to_c(volfft::Options{}, no_kinds));
      std::tie(k, p) = kind_and_precision(kind, precision);
      if (in) in_array = volfft::capi::from_c(*in, "in");
      if (out) out_array = volfft::capi::from_c(*out, "out");
    } catch (const volfft::Error& e) {
      problem = e.what();
    }
    volfft::mpi::agree_or_throw(comm, problem);
    if (on_arrays)
      *plan = new volfft_plan_s{volfft::Plan(comm, s, k, p, o, in_array, out_array), {}};
    else
      *plan = new volfft_plan_s{volfft::Plan(comm, s, k, p, o), {}};
  });
}

}  // namespace

extern "C" {

volfft_status volfft_plan_create(MPI_Comm comm, int ndim, const int64_t* shape, int kind,
                                 int precision, const volfft_options* options,
                                 volfft_plan* plan) {
  return create_plan(comm, ndim, shape, kind, precision, options, nullptr, nullptr, plan, false);
}

volfft_status volfft_plan_create_on_arrays(MPI_Comm comm, int ndim, const int64_t* shape, int kind,
                                           int precision, const volfft_options* options,
                                           const volfft_local_array* in, const volfft_local_array* out,
                                           volfft_plan* plan) {
  return create_plan(comm, ndim, shape, kind, precision, options, in, out, plan, true);
}

volfft_status volfft_plan_destroy(volfft_plan plan) {
  return guarded([&] { delete plan; });
}

volfft_status volfft_forward(volfft_plan plan, const void* in, void* out) {
  return guarded([&] {
    require_plan(plan);
    plan->plan.forward_raw(in, out);
  });
}

volfft_status volfft_backward(volfft_plan plan, const void* in, void* out) {
  return guarded([&] {
    require_plan(plan);
    plan->plan.backward_raw(in, out);
  });
}

volfft_status volfft_forward_start(volfft_plan plan, const void* in, void* out,
                                   volfft_request* request) {
  return guarded([&] { start(plan, request, [&] { return plan->plan.forward_start(in, out); }); });
}

volfft_status volfft_backward_start(volfft_plan plan, const void* in, void* out,
                                    volfft_request* request) {
  return guarded([&] { start(plan, request, [&] { return plan->plan.backward_start(in, out); }); });
}

volfft_status volfft_request_test(volfft_request request, int* done) {
  return guarded([&] {
    if (!request) throw volfft::Error("volfft: request is NULL");
    const bool d = request->request.test();
    if (done) *done = d ? 1 : 0;
  });
}

volfft_status volfft_request_wait(volfft_request request) {
  return guarded([&] {
    if (!request) throw volfft::Error("volfft: request is NULL");
    std::unique_ptr<volfft_request_s> owned(request);
    owned->request.wait();
  });
}

static void copy_box(const volfft::Box& b, int64_t lo[3], int64_t hi[3]) {
  for (int a = 0; a < 3; ++a) lo[a] = b.lo[a], hi[a] = b.hi[a];
}

volfft_status volfft_input_box(volfft_plan plan, int64_t lo[3], int64_t hi[3]) {
  return guarded([&] {
    require_plan(plan);
    require_output(lo, "lo"), require_output(hi, "hi");
    copy_box(plan->plan.input_box(), lo, hi);
  });
}

volfft_status volfft_output_box(volfft_plan plan, int64_t lo[3], int64_t hi[3]) {
  return guarded([&] {
    require_plan(plan);
    require_output(lo, "lo"), require_output(hi, "hi");
    copy_box(plan->plan.output_box(), lo, hi);
  });
}

volfft_status volfft_input_order(volfft_plan plan, int* order) {
  return guarded([&] {
    require_plan(plan);
    require_output(order, "order");
    const auto o = plan->plan.input_order();
    for (std::size_t k = 0; k < o.size(); ++k) order[k] = o[k];
  });
}

volfft_status volfft_output_order(volfft_plan plan, int* order) {
  return guarded([&] {
    require_plan(plan);
    require_output(order, "order");
    const auto o = plan->plan.output_order();
    for (std::size_t k = 0; k < o.size(); ++k) order[k] = o[k];
  });
}

volfft_status volfft_input_array(volfft_plan plan, volfft_local_array* array) {
  return guarded([&] {
    require_plan(plan);
    require_output(array, "array");
    *array = volfft::capi::to_c(plan->plan.input_array());
  });
}

volfft_status volfft_output_array(volfft_plan plan, volfft_local_array* array) {
  return guarded([&] {
    require_plan(plan);
    require_output(array, "array");
    *array = volfft::capi::to_c(plan->plan.output_array());
  });
}

volfft_status volfft_counts(volfft_plan plan, int64_t* input_count, int64_t* output_count) {
  return guarded([&] {
    require_plan(plan);
    if (input_count) *input_count = plan->plan.input_count();
    if (output_count) *output_count = plan->plan.output_count();
  });
}

volfft_status volfft_workspace_bytes(volfft_plan plan, size_t* bytes) {
  return guarded([&] {
    require_plan(plan);
    require_output(bytes, "bytes");
    *bytes = plan->plan.workspace_bytes();
  });
}

volfft_status volfft_required_workspace_bytes(int comm_size, int rank, int ndim, const int64_t* shape, int kind,
                                              int precision, const volfft_options* options, size_t* bytes) {
  return guarded([&] {
    require_output(bytes, "bytes");
    const std::vector<std::int64_t> s = plan_shape(ndim, shape);
    const auto [k, p] = kind_and_precision(kind, precision);
    std::vector<int> no_kinds;
    const volfft::Options o = volfft::capi::from_c(options ? *options : volfft::capi::to_c(volfft::Options{}, no_kinds));
    *bytes = volfft::Plan::required_workspace_bytes(comm_size, rank, s, k, p, o);
  });
}

volfft_status volfft_in_place_bytes(volfft_plan plan, size_t* bytes) {
  return guarded([&] {
    require_plan(plan);
    require_output(bytes, "bytes");
    *bytes = plan->plan.in_place_bytes();
  });
}

volfft_status volfft_grid(volfft_plan plan, int grid[2]) {
  return guarded([&] {
    require_plan(plan);
    require_output(grid, "grid");
    const auto g = plan->plan.grid();
    grid[0] = g[0], grid[1] = g[1];
  });
}

volfft_status volfft_plan_engine(volfft_plan plan, int* engine) {
  return guarded([&] {
    require_plan(plan);
    require_output(engine, "engine");
    *engine = static_cast<int>(plan->plan.engine());
  });
}

volfft_status volfft_plan_backend(volfft_plan plan, int* backend) {
  return guarded([&] {
    require_plan(plan);
    require_output(backend, "backend");
    *backend = static_cast<int>(plan->plan.backend());
  });
}

volfft_status volfft_timings(volfft_plan plan, int direction, int max_over_ranks, int* count,
                             const char** names, double* seconds) {
  return guarded([&] {
    require_plan(plan);
    std::string problem;
    if (!count) problem = "volfft: count is NULL";
    else if (direction != VOLFFT_FORWARD && direction != VOLFFT_BACKWARD)
      problem = "volfft: direction must be VOLFFT_FORWARD or VOLFFT_BACKWARD; got " + std::to_string(direction);
    // max_over_ranks makes the call collective: its problems are agreed, so that one rank's
    // NULL count does not leave the others in the maximum over ranks.
    if (max_over_ranks) plan->plan.agree_on_problem(problem);
    else if (!problem.empty()) throw volfft::Error(problem);
    const auto d = direction == VOLFFT_BACKWARD ? volfft::Direction::backward : volfft::Direction::forward;
    plan->phases = max_over_ranks ? plan->plan.timings_max(d) : plan->plan.timings(d);
    const int n = static_cast<int>(plan->phases.size());
    for (int k = 0; k < n && k < *count; ++k) {
      if (names) names[k] = plan->phases[k].name.c_str();
      if (seconds) seconds[k] = plan->phases[k].seconds;
    }
    *count = n;
  });
}

const char* volfft_last_error(void) { return volfft::capi::last_error().c_str(); }

const char* volfft_version(void) {
  static const std::string v = volfft::version_string();
  return v.c_str();
}

}  // extern "C"
