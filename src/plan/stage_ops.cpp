#include "plan/stage_ops.hpp"

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>

#include "kernels/copy_box.hpp"
#include "kernels/spectral_lines.hpp"
#include "plan/folded_backward.hpp"

namespace volfft::plan {

using core::Index;

namespace {

// One side of a copy: the input, the stage's array or the output, where the part starts (bytes)
// and how its elements lie.
struct Side {
  int is = 1;  // 0 input, 1 array, 2 output
  std::ptrdiff_t offset = 0;
  std::array<Index, 3> strides{};
};

const char* base_of(const Side& s, const void* input, const void* array, const void* output) {
  return static_cast<const char*>(s.is == 0 ? input : s.is == 1 ? array : output);
}

// A truncation or padding step as an action on (input, array, output).
template <class T>
std::function<void(const void*, void*, void*)> line_action(bool pad, kernels::LineSpec line, std::array<Index, 3> extent,
                                                           Side from, Side to) {
  return [=](const void* input, void* array, void* output) {
    const T* src = reinterpret_cast<const T*>(base_of(from, input, array, output) + from.offset);
    T* dst = reinterpret_cast<T*>(const_cast<char*>(base_of(to, input, array, output)) + to.offset);
    if (pad)
      kernels::pad_lines(src, from.strides, dst, to.strides, extent, line);
    else
      kernels::truncate_lines(src, from.strides, dst, to.strides, extent, line);
  };
}

// Padded plans are complex (kinds, and so r2r plans, do not combine with spectral_shape).
std::function<void(const void*, void*, void*)> make_line_action(Precision p, bool pad, kernels::LineSpec line,
                                                                std::array<Index, 3> extent, Side from, Side to) {
  if (p == Precision::float64) return line_action<std::complex<double>>(pad, line, extent, from, to);
  return line_action<std::complex<float>>(pad, line, extent, from, to);
}

// `make` called with a value of the element type of the plan's arrays: complex values, or
// reals in an r2r plan (Kind::r2r).
template <class Make>
auto with_element(const core::Blueprint& bp, Make make) {
  if (bp.real_values()) return bp.precision == Precision::float64 ? make(double{}) : make(float{});
  return bp.precision == Precision::float64 ? make(std::complex<double>{}) : make(std::complex<float>{});
}

// A copy of the part from `from` to `to`, for a first step that cannot read the input itself.
template <class T>
std::function<void(const void*, void*, void*)> copy_action(std::array<Index, 3> extent, Side from, Side to,
                                                           int threads) {
  return [=](const void* input, void* array, void* output) {
    const char* s = base_of(from, input, array, output) + from.offset;
    char* d = const_cast<char*>(base_of(to, input, array, output)) + to.offset;
    if (s == d) return;  // in place: the data is there already
    kernels::copy_box(reinterpret_cast<const T*>(s), from.strides, reinterpret_cast<T*>(d), to.strides, extent,
                      kernels::Scalar<T>(1), threads);
  };
}

// That stage's ops as the stage lists them (the forward runs them in this order, the backward
// in reverse): r2c: the r2c over planes, then the c2c along axis 0; c2c: so that axis 0 runs
// first in either direction (the order of a c2c's axes is free).
std::vector<core::FftOp> planes_and_axis0(const core::FftOp& op, bool backward) {
  core::FftOp planes{{}, op.real, {}};
  for (int a : op.axes)
    if (a != 0) planes.axes.push_back(a);
  const core::FftOp axis0{{0}, false, {}};
  if (op.real || backward) return {planes, axis0};
  return {axis0, planes};
}

}  // namespace

StageOps make_stage_ops(const core::Blueprint& bp, const Options& options, std::size_t s, bool backward,
                        const Box& part, void* plan_in, void* plan_out, bool array_is_user, const Box* array_place,
                        PlaneSplit split) {
  // VOLFFT_TEST_FAIL_STAGE_PLAN=1 (=last: only the stage a direction runs last) makes this rank's
  // planning fail as FFTW's may on one rank alone (tests/mpi/test_errors.cpp sets it on one rank:
  // every rank must then throw, none wait).
  if (const char* env = std::getenv("VOLFFT_TEST_FAIL_STAGE_PLAN")) {
    const bool runs_last = backward ? s == 0 : s + 1 == bp.stages.size();
    if (std::strcmp(env, "1") == 0 || (std::strcmp(env, "last") == 0 && runs_last))
      throw std::runtime_error(std::string("volfft: FFTW could not plan a stage's FFTs (VOLFFT_TEST_FAIL_STAGE_PLAN=") +
                               env + ")");
  }
  const core::Stage& st = bp.stages[s];
  const bool first_stage = s == 0, last_stage = s + 1 == bp.stages.size();
  const Index cb = bp.element_bytes;
  const Index input_bytes = bp.input_element_bytes();  // a real for r2c, else cb
  // Fields of a batched plan: the stage's array (a buffer: fields outermost; the user's output:
  // Options::batch_layout) and the user's arrays on both sides.
  const core::FieldLayout array_fields = core::field_layout(bp, st.box_in, array_is_user);
  const core::FieldLayout input_fields = core::field_layout(bp, bp.real_storage, true);
  const core::FieldLayout spectral_fields = core::field_layout(bp, st.box_in, true);
  // Every step is planned for one field (the field layouts give strides and field offsets);
  // StageOps::run steps through the fields.
  const auto strides = core::strides_of(st.box_in, st.order, array_fields.unit);  // the stage's array
  // The input side (forward input / backward output) is the real box in bp.input_order (C order
  // but for a c2c plan fitted to the user's array; c2c: the complex box); for r2c the part of it that matches `part` is whole along axis 2, the
  // transformed one.
  const bool real_kind = bp.kind == Kind::r2c;
  const auto rstrides = core::strides_of(bp.real_storage, bp.input_order, input_fields.unit);
  Box real_part = part;
  if (real_kind) real_part.lo[2] = bp.real_storage.lo[2], real_part.hi[2] = bp.real_storage.hi[2];
  const std::ptrdiff_t real_off =
      core::offset_of(real_part, bp.real_storage, rstrides) * input_bytes;
  // The spectral side as the user holds it (backward input: the last stage's box).
  const auto user_strides = core::strides_of(st.box_in, st.order, spectral_fields.unit);
  const std::ptrdiff_t user_off = core::offset_of(part, st.box_in, user_strides) * cb;
  // In place, a stage whose array is the user's output reads the input from that same array:
  // its ops then run in place (FFTW forbids an out-of-place plan on one array) and the backward
  // keeps a fused r2c fused (its multi-dimensional c2r may destroy its input, the user's array).
  const bool in_user_array = bp.in_place && core::array_of(bp, !backward, s).user_output;
  const std::ptrdiff_t array_off = core::offset_of(array_place ? *array_place : part, st.box_in, strides) * cb;
  // The compact data box (user input/output of a padded plan's outer stage).
  const core::FieldLayout data_fields = core::field_layout(bp, st.box, true);
  const auto data_strides = core::strides_of(st.box, st.order, data_fields.unit);
  Box data_part = part;
  std::vector<int> stage_axes;
  for (const auto& op : st.ops) stage_axes.insert(stage_axes.end(), op.axes.begin(), op.axes.end());
  for (int a : stage_axes) data_part.lo[a] = st.box.lo[a], data_part.hi[a] = st.box.hi[a];
  const std::ptrdiff_t data_off = core::offset_of(data_part, st.box, data_strides) * cb;
  auto at = [](void* p, std::ptrdiff_t off) { return static_cast<char*>(p) + off; };

  // Extents of the part while axes in `kept` hold their kept values (the others their stored
  // length).
  auto extents_with = [&](const std::vector<int>& kept) {
    std::array<Index, 3> e{part.extent(0), part.extent(1), part.extent(2)};
    for (int a : kept) e[a] = bp.kept_length(a);
    return e;
  };
  auto line_of = [&](int a) {
    kernels::LineSpec l;
    l.axis = a, l.n = bp.fft_length(a), l.kept = bp.kept_length(a), l.half = a == 2 && bp.kind == Kind::r2c;
    return l;
  };
  // An N-D plan's trailing axes go into the batch that takes every field at once, where its
  // transform can take them: DFTs into a c2c batch, r2r kinds into an r2r plan's batch.
  auto takes_trailing = [&](const backend::BatchGeometry& g) {
    if (bp.trailing.empty()) return false;
    const bool c2c = g.transform == backend::Transform::c2c_forward || g.transform == backend::Transform::c2c_backward;
    for (AxisKind k : bp.trailing.kinds)
      if (k != AxisKind::none && (k == AxisKind::dft ? !c2c : g.transform != backend::Transform::r2r || !g.real_values))
        return false;
    return true;
  };
  // `in_fields`/`out_fields`: the field layouts of the sides the batch reads and writes; `fuse`:
  // the batch may take the trailing axes (the first forward / last backward one of stage 0).
  auto batch = [&](backend::BatchGeometry g, OpRun& run, const core::FieldLayout& in_fields,
                   const core::FieldLayout& out_fields, bool fuse) {
    // Fields after the first may sit at another alignment than the planning arrays (single
    // precision, an odd field size, interleaved fields): they need the unaligned plan too.
    const bool user = run.from_input || run.to_output || array_is_user || bp.fields > 1;
    g.real_values = bp.real_values();
    // A side holding the user's interleaved fields: one batch over every field (StageOps). Not
    // where the other side is a buffer that holds one field at a time (stride 0).
    // (An empty part takes every field too, of nothing: so whether the trailing axes are fused
    // depends on no rank's boxes, and every rank decides alike.)
    const bool interleaved = in_fields.unit > 1 || out_fields.unit > 1;
    const bool empty = g.extent[0] * g.extent[1] * g.extent[2] == 0;
    if (bp.fields > 1 && interleaved && ((in_fields.stride > 0 && out_fields.stride > 0) || empty)) {
      run.all_fields = true;
      g.fields = bp.fields, g.field_in_stride = in_fields.stride, g.field_out_stride = out_fields.stride;
      if (fuse && takes_trailing(g)) {
        // The fields as the array they are: the trailing axes in C order, then the user's batch.
        run.fuses_trailing = true;
        g.fields = 1;
        for (const core::TrailingDim& d : core::trailing_dims(bp.trailing, bp.fields, !backward))
          g.extra.push_back({d.n, d.stride * in_fields.stride, d.stride * out_fields.stride, d.transformed, d.kind});
        const Index batch = bp.trailing.fields;
        if (batch > 1) g.extra.push_back({batch, in_fields.stride, out_fields.stride, false, AxisKind::none});
      }
    }
    return backend::make_batch(options, bp.precision, g, at(plan_in, run.in_offset),
                               at(g.in_place ? plan_in : plan_out, run.out_offset), user);
  };

  // The caller's input copied into the stage's array, for a first step that cannot read it
  // itself (nothing when the array is the input): forward_input (a c2c plan's first stage with
  // every axis `none`; an r2c plan's always holds the r2c axis) or the spectral side (backward).
  auto input_copy = [&](bool forward_input) {
    OpRun c;
    c.from_input = true;
    const std::array<Index, 3> extent{part.extent(0), part.extent(1), part.extent(2)};
    const Side from = forward_input ? Side{0, real_off, rstrides}
                                    : Side{0, user_off, user_strides};
    const Side to{1, array_off, strides};
    c.action = with_element(bp, [&](auto e) { return copy_action<decltype(e)>(extent, from, to, options.threads); });
    return c;
  };

  StageOps result;
  result.fields = bp.fields;
  const Index input_side = input_bytes * input_fields.stride;  // forward input, backward output
  const Index spectral_side = cb * data_fields.stride;                         // forward output, backward input
  result.input_field_bytes = backward ? spectral_side : input_side;
  result.output_field_bytes = backward ? input_side : spectral_side;
  result.array_field_bytes = cb * array_fields.stride;
  std::vector<OpRun>& runs = result.ops;
  const bool by_planes = split == PlaneSplit::by_rule ? runs_by_planes(bp, options, st)
                                                     : split == PlaneSplit::planes && splits_into_planes(bp, options, st);
  if (!backward) {
    if (first_stage && st.ops.empty()) runs.push_back(input_copy(true));
    const std::vector<core::FftOp> stage_ops = by_planes ? planes_and_axis0(st.ops[0], false) : st.ops;
    std::vector<int> done;  // axes transformed (and truncated) so far in this stage
    for (std::size_t o = 0; o < stage_ops.size(); ++o) {
      const core::FftOp& op = stage_ops[o];
      backend::BatchGeometry g;
      g.extent = extents_with(done);
      g.real_length = bp.shape[2];
      g.axes = op.axes;
      g.out_strides = strides;
      OpRun run;
      const bool reads_input = first_stage && o == 0;
      run.from_input = reads_input && !in_user_array;
      // The user's input layout: read from the input, or (in place) the real view of the array.
      const bool input_layout = run.from_input || (reads_input && op.real);
      g.in_strides = input_layout ? rstrides : strides;
      g.transform = op.real ? backend::Transform::r2c : op.r2r() ? backend::Transform::r2r : backend::Transform::c2c_forward;
      g.r2r_kinds = op.kinds;
      g.in_place = !run.from_input;
      g.destroys_input = run.from_input && options.destroy_input;  // read by this batch alone
      run.in_offset = input_layout ? real_off : array_off;
      run.out_offset = array_off;
      run.batch = batch(g, run, input_layout ? input_fields : array_fields, array_fields, first_stage && o == 0);
      runs.push_back(std::move(run));
      done.insert(done.end(), op.axes.begin(), op.axes.end());
      if (!bp.padded) continue;
      // Keep the m-box: in place, or into the output after the last stage's last op.
      for (int a : op.axes) {
        const bool into_output = last_stage && o + 1 == stage_ops.size() && a == op.axes.back();
        std::vector<int> others = done;
        others.erase(std::find(others.begin(), others.end(), a));
        OpRun t;
        t.to_output = into_output;
        const Side to = into_output ? Side{2, data_off, data_strides}
                                    : Side{1, array_off, strides};
        t.action = make_line_action(bp.precision, false, line_of(a), extents_with(others),
                                    Side{1, array_off, strides}, to);
        runs.push_back(std::move(t));
      }
    }
    return result;
  }
  if (bp.folded_backward) {
    // One rank's r2c backward that keeps its input, in the caller's two arrays; the stage's
    // buffer is its small workspace (core/folded_backward.hpp).
    auto folded = std::make_shared<const FoldedBackward>(bp, options, plan_in, plan_out);
    OpRun run;
    run.action = [folded](const void* input, void* work, void* output) { folded->run(input, work, output); };
    runs.push_back(std::move(run));
    return result;
  }
  // Backward: undo the ops in reverse order. A fused r2c (axis 2 with others, merge_ops) is
  // undone as c2c over the others, then c2r over axis 2 (by_planes: c2c along axis 0, then c2r
  // over planes; a c2c by planes runs axis 0, then the planes), where the stage's first step
  // reads the caller's input: a multi-dimensional c2r destroys its input (FFTW has no input-preserving one). Unless the caller lets it
  // (Options::destroy_input): the c2r, fused or alone, then reads the caller's input itself, as
  // FFTW's own c2r plans do. A stage that reads the plan's own array (not the direction's first,
  // not padded) keeps it fused: one multi-dimensional c2r from that array, which the FFTW backend
  // runs transform by transform while each is in cache (src/backend/fftw_batch.cpp), where the
  // two batches made two passes over the whole array.
  const bool may_destroy_input = last_stage && options.destroy_input && !bp.padded;
  // Except an r2c's where the input may be destroyed: FFTW's 3-D c2r then reads it itself, where
  // by planes the c2c along axis 0 would write the array (`volfft-fftw-passes one-rank-r2c 128`:
  // 19.4 against 23.1 ms; in place in the input, a step OpRun does not have, 18.0).
  const bool planes = by_planes && !(may_destroy_input && st.ops[0].real);
  // The caller asked for one 3-D plan (PlaneSplit::whole, timed against the planes): an r2c's
  // backward then copies the input into the array (below) for a 3-D c2r from there.
  const bool whole_r2c = split == PlaneSplit::whole && splits_into_planes(bp, options, st) && st.ops[0].real;
  const bool keep_fused =
      !planes && (in_user_array || may_destroy_input || whole_r2c || (!last_stage && !bp.padded));
  std::vector<core::FftOp> ops;
  for (const core::FftOp& op : st.ops)
    for (const core::FftOp& part : planes       ? planes_and_axis0(op, true)
                                   : keep_fused ? std::vector<core::FftOp>{op}
                                                : core::unfused(op))
      ops.push_back(part);
  std::vector<int> pending = stage_axes;  // axes still holding their kept values
  bool first_step = true;
  // The first step must take the caller's input into the array when it cannot read it itself:
  // a stage with nothing to transform, or one whose first step is the c2r (the r2c axis alone;
  // it would destroy the input).
  if (last_stage && !in_user_array && !bp.padded &&
      (ops.empty() || (ops.back().real && !may_destroy_input))) {
    runs.push_back(input_copy(false));  // the spectral side, as the user holds it
    first_step = false;
  }
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    const core::FftOp& op = *it;
    const bool reads_input = last_stage && first_step;
    if (bp.padded) {
      for (int a : op.axes) {
        pending.erase(std::find(pending.begin(), pending.end(), a));
        const bool from_input = reads_input && a == op.axes.front();
        OpRun p;
        p.from_input = from_input;
        const Side from = from_input ? Side{0, data_off, data_strides}
                                     : Side{1, array_off, strides};
        p.action = make_line_action(bp.precision, true, line_of(a), extents_with(pending), from,
                                    Side{1, array_off, strides});
        runs.push_back(std::move(p));
      }
    } else {
      for (int a : op.axes) pending.erase(std::find(pending.begin(), pending.end(), a));
    }
    backend::BatchGeometry g;
    g.extent = extents_with(pending);
    g.real_length = bp.shape[2];
    g.axes = op.axes;
    OpRun run;
    if (op.real) {
      // From the array, or (may_destroy_input) straight from the caller's input.
      run.from_input = reads_input && may_destroy_input;
      g.destroys_input = run.from_input;
      g.in_strides = run.from_input ? user_strides : strides, g.out_strides = rstrides;
      g.transform = backend::Transform::c2r;
      g.in_place = in_user_array;  // the array is the output
      run.to_output = true;
      run.in_offset = run.from_input ? user_off : array_off, run.out_offset = real_off;
    } else {
      g.transform = op.r2r() ? backend::Transform::r2r : backend::Transform::c2c_backward;
      for (AxisKind k : op.kinds) g.r2r_kinds.push_back(core::inverse_kind(k));
      run.from_input = reads_input && !bp.padded && !in_user_array;  // padded: the padding step read the input
      g.in_place = !run.from_input;
      g.destroys_input = run.from_input && options.destroy_input;
      // From the user's input (the spectral side in the user's layout) into the array.
      g.in_strides = run.from_input ? user_strides : strides, g.out_strides = strides;
      run.in_offset = run.from_input ? user_off : array_off, run.out_offset = array_off;
    }
    const core::FieldLayout& in_fields = run.from_input ? spectral_fields : array_fields;
    run.batch = batch(g, run, in_fields, op.real ? input_fields : array_fields,
                      first_stage && std::next(it) == ops.rend());
    runs.push_back(std::move(run));
    first_step = false;
  }
  return result;
}

}  // namespace volfft::plan
