// The C API of Reshape and of the named distributions: thin shims over volfft::Reshape and
// volfft/distribution.hpp, errors as in volfft_c.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "capi/guarded.hpp"
#include "capi/local_array_c.hpp"
#include "capi/options_c.hpp"
#include "mpi/agreement.hpp"
#include "mpi/check.hpp"
#include "volfft/distribution.hpp"
#include "volfft/reshape.hpp"
#include "volfft/volfft.h"

struct volfft_reshape_s {
  volfft::Reshape reshape;
};

namespace {

using volfft::capi::guarded;

std::vector<std::int64_t> shape_of(int ndim, const int64_t* shape) {
  if (ndim < 0) throw volfft::Error("volfft: ndim must be 2 or 3; got " + std::to_string(ndim));
  if (!shape && ndim > 0) throw volfft::Error("volfft: shape is NULL");
  return std::vector<std::int64_t>(shape, shape + ndim);
}

// The library checks shape, ranks and axis (pure, so every rank fails alike when they agree).
template <class F>
volfft_status distribution(int ndim, const int64_t* shape, volfft_box* boxes, F&& f) {
  return guarded([&] {
    const auto s = shape_of(ndim, shape);
    if (!boxes) throw volfft::Error("volfft: boxes is NULL (expected an array of `ranks` volfft_box)");
    const std::vector<volfft::Box> result = f(s);
    for (std::size_t r = 0; r < result.size(); ++r) boxes[r] = volfft::capi::to_c(result[r]);
  });
}

void require_reshape(volfft_reshape r) {
  if (!r) throw volfft::Error("volfft: reshape is NULL");
}

}  // namespace

extern "C" {

volfft_status volfft_slabs(int ndim, const int64_t* shape, int ranks, int axis, volfft_box* boxes) {
  return distribution(ndim, shape, boxes, [&](const auto& s) { return volfft::slabs(s, ranks, axis); });
}

volfft_status volfft_pencils(int ndim, const int64_t* shape, int ranks, int axis, volfft_box* boxes) {
  return distribution(ndim, shape, boxes, [&](const auto& s) { return volfft::pencils(s, ranks, axis); });
}

volfft_status volfft_bricks(int ndim, const int64_t* shape, int ranks, volfft_box* boxes) {
  return distribution(ndim, shape, boxes, [&](const auto& s) { return volfft::bricks(s, ranks); });
}

volfft_status volfft_fftw_blocks(int ndim, const int64_t* shape, int ranks, int axis, int64_t block,
                                 volfft_box* boxes) {
  return distribution(ndim, shape, boxes,
                      [&](const auto& s) { return volfft::fftw_blocks(s, ranks, axis, block); });
}

volfft_status volfft_reshape_create(MPI_Comm comm, int ndim, const int64_t* shape,
                                    const volfft_local_array* in, const volfft_local_array* out,
                                    int precision, int values, const volfft_options* options,
                                    volfft_reshape* reshape) {
  return guarded([&] {
    if (reshape) *reshape = nullptr;
    volfft::mpi::require_communicator(comm, "volfft_reshape_create");
    // Checked on every rank together, as volfft_plan_create does: one rank's NULL must not leave
    // the others inside the Reshape's collectives.
    std::vector<std::int64_t> s;
    volfft::LocalArray in_array, out_array;
    volfft::Options o;
    std::string problem;
    try {
      if (!reshape) throw volfft::Error("volfft: reshape (the output pointer) is NULL");
      s = shape_of(ndim, shape);
      if (!in) throw volfft::Error("volfft: in is NULL (expected this rank's input volfft_local_array)");
      if (!out) throw volfft::Error("volfft: out is NULL (expected this rank's output volfft_local_array)");
      in_array = volfft::capi::from_c(*in, "in");
      out_array = volfft::capi::from_c(*out, "out");
      if (precision != VOLFFT_DOUBLE && precision != VOLFFT_FLOAT)
        throw volfft::Error("volfft: precision must be VOLFFT_DOUBLE or VOLFFT_FLOAT; got " +
                            std::to_string(precision));
      if (values != VOLFFT_VALUES_COMPLEX && values != VOLFFT_VALUES_REAL)
        throw volfft::Error("volfft: values must be VOLFFT_VALUES_COMPLEX or VOLFFT_VALUES_REAL; got " +
                            std::to_string(values));
      std::vector<int> no_kinds;
      o = volfft::capi::from_c(options ? *options : volfft::capi::to_c(volfft::Options{}, no_kinds));
    } catch (const volfft::Error& e) {
      problem = e.what();
    }
    volfft::mpi::agree_or_throw(comm, problem);
    const auto p = precision == VOLFFT_FLOAT ? volfft::Precision::float32 : volfft::Precision::float64;
    const auto v = values == VOLFFT_VALUES_REAL ? volfft::Values::real : volfft::Values::complex;
    *reshape = new volfft_reshape_s{volfft::Reshape(comm, s, in_array, out_array, p, v, o)};
  });
}

volfft_status volfft_reshape_destroy(volfft_reshape reshape) {
  return guarded([&] { delete reshape; });
}

volfft_status volfft_reshape_execute(volfft_reshape reshape, const void* in, void* out) {
  return guarded([&] {
    require_reshape(reshape);
    reshape->reshape.execute(in, out);
  });
}

volfft_status volfft_reshape_reverse(volfft_reshape reshape, const void* out, void* in) {
  return guarded([&] {
    require_reshape(reshape);
    reshape->reshape.reverse(out, in);
  });
}

volfft_status volfft_reshape_start(volfft_reshape reshape, const void* in, void* out, int reversed) {
  return guarded([&] {
    require_reshape(reshape);
    reshape->reshape.start(in, out, reversed != 0);
  });
}

volfft_status volfft_reshape_test(volfft_reshape reshape, int* done) {
  return guarded([&] {
    require_reshape(reshape);
    const bool d = reshape->reshape.test();
    if (done) *done = d ? 1 : 0;
  });
}

volfft_status volfft_reshape_finish(volfft_reshape reshape) {
  return guarded([&] {
    require_reshape(reshape);
    reshape->reshape.finish();
  });
}

volfft_status volfft_reshape_counts(volfft_reshape reshape, int64_t* input_count, int64_t* output_count) {
  return guarded([&] {
    require_reshape(reshape);
    if (input_count) *input_count = reshape->reshape.input_count();
    if (output_count) *output_count = reshape->reshape.output_count();
  });
}

volfft_status volfft_reshape_workspace_bytes(volfft_reshape reshape, size_t* bytes) {
  return guarded([&] {
    require_reshape(reshape);
    if (!bytes) throw volfft::Error("volfft: bytes is NULL");
    *bytes = reshape->reshape.workspace_bytes();
  });
}

volfft_status volfft_reshape_engine(volfft_reshape reshape, int* engine) {
  return guarded([&] {
    require_reshape(reshape);
    if (!engine) throw volfft::Error("volfft: engine is NULL");
    *engine = static_cast<int>(reshape->reshape.engine());
  });
}

}  // extern "C"
