#include "plan/stage_ops.hpp"

#include <algorithm>
#include <complex>

#include "kernels/copy_box.hpp"
#include "kernels/spectral_lines.hpp"

namespace volfft::plan {

using core::Index;

namespace {

// A truncation or padding step as an action on (input, array, output).
template <class T>
std::function<void(const void*, void*, void*)> line_action(bool pad, kernels::LineSpec line, std::array<Index, 3> extent,
                                                           std::array<Index, 3> src_strides, std::ptrdiff_t src_off,
                                                           std::array<Index, 3> dst_strides, std::ptrdiff_t dst_off,
                                                           int src_is /*0 input, 1 array*/, int dst_is /*1 array, 2 output*/) {
  return [=](const void* input, void* array, void* output) {
    const char* s = src_is == 0 ? static_cast<const char*>(input) : static_cast<const char*>(array);
    char* d = dst_is == 2 ? static_cast<char*>(output) : static_cast<char*>(array);
    const T* src = reinterpret_cast<const T*>(s + src_off);
    T* dst = reinterpret_cast<T*>(d + dst_off);
    if (pad)
      kernels::pad_lines(src, src_strides, dst, dst_strides, extent, line);
    else
      kernels::truncate_lines(src, src_strides, dst, dst_strides, extent, line);
  };
}

std::function<void(const void*, void*, void*)> make_line_action(Precision p, bool pad, kernels::LineSpec line,
                                                                std::array<Index, 3> extent, std::array<Index, 3> ss,
                                                                std::ptrdiff_t so, std::array<Index, 3> ds,
                                                                std::ptrdiff_t dof, int src_is, int dst_is) {
  if (p == Precision::float64)
    return line_action<std::complex<double>>(pad, line, extent, ss, so, ds, dof, src_is, dst_is);
  return line_action<std::complex<float>>(pad, line, extent, ss, so, ds, dof, src_is, dst_is);
}

}  // namespace

std::vector<OpRun> make_stage_ops(const core::Blueprint& bp, const Options& options, std::size_t s,
                                  bool backward, const Box& part, void* plan_in, void* plan_out,
                                  bool array_is_user) {
  const core::Stage& st = bp.stages[s];
  const bool first_stage = s == 0, last_stage = s + 1 == bp.stages.size();
  const auto strides = core::strides_of(st.box_in, st.order);  // the stage's array
  const Index real_bytes = bp.complex_bytes / 2;
  const Index cb = bp.complex_bytes;
  // The real array (r2c input / c2r output) is the real box in C order; the part of it that
  // matches `part` is whole along axis 2, the transformed one.
  const auto rstrides = core::strides_of(bp.real_storage, core::Order{0, 1, 2});
  Box real_part = part;
  real_part.lo[2] = bp.real_storage.lo[2], real_part.hi[2] = bp.real_storage.hi[2];
  const std::ptrdiff_t real_off = core::offset_of(real_part, bp.real_storage, rstrides) * real_bytes;
  // In place, a stage whose array is the user's output reads the input from that same array:
  // its ops then run in place (FFTW forbids an out-of-place plan on one array) and the backward
  // keeps a fused r2c fused (its multi-dimensional c2r may destroy its input, the user's array).
  const bool in_user_array = bp.in_place && core::array_of(bp, !backward, s).user_output;
  const std::ptrdiff_t array_off = core::offset_of(part, st.box_in, strides) * cb;
  // The compact data box (user input/output of a padded plan's outer stage).
  const auto data_strides = core::strides_of(st.box, st.order);
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
  auto batch = [&](backend::BatchGeometry g, const OpRun& run) {
    const bool user = run.from_input || run.to_output || array_is_user;
    return backend::make_batch(options, bp.precision, g, at(plan_in, run.in_offset),
                               at(g.in_place ? plan_in : plan_out, run.out_offset), user);
  };

  // A stage without ops (every axis it holds is `none`) still has to take the caller's input
  // into its array when it is the first it runs: one copy (nothing when that array is the input).
  const int threads = options.threads;
  auto input_copy = [&](bool reads_real) {
    OpRun c;
    c.from_input = true;
    const std::array<Index, 3> extent{part.extent(0), part.extent(1), part.extent(2)};
    const auto src_strides = reads_real ? rstrides : strides;
    const std::ptrdiff_t src_off = array_off, dst_off = array_off;
    c.action = [=, p = bp.precision](const void* input, void* array, void*) {
      if (input == array) return;
      if (p == Precision::float64)
        kernels::copy_box(reinterpret_cast<const std::complex<double>*>(static_cast<const char*>(input) + src_off),
                          src_strides, reinterpret_cast<std::complex<double>*>(static_cast<char*>(array) + dst_off),
                          strides, extent, 1.0, threads);
      else
        kernels::copy_box(reinterpret_cast<const std::complex<float>*>(static_cast<const char*>(input) + src_off),
                          src_strides, reinterpret_cast<std::complex<float>*>(static_cast<char*>(array) + dst_off),
                          strides, extent, 1.0f, threads);
    };
    return c;
  };

  std::vector<OpRun> runs;
  if (!backward) {
    if (first_stage && st.ops.empty()) runs.push_back(input_copy(false));
    std::vector<int> done;  // axes transformed (and truncated) so far in this stage
    for (std::size_t o = 0; o < st.ops.size(); ++o) {
      const core::FftOp& op = st.ops[o];
      backend::BatchGeometry g;
      g.extent = extents_with(done);
      g.real_length = bp.shape[2];
      g.axes = op.axes;
      g.out_strides = strides;
      OpRun run;
      const bool reads_input = first_stage && o == 0;
      run.from_input = reads_input && !in_user_array;
      const bool real_input = reads_input && op.real;
      g.in_strides = real_input ? rstrides : strides;
      g.transform = op.real ? backend::Transform::r2c : op.r2r() ? backend::Transform::r2r : backend::Transform::c2c_forward;
      g.r2r_kinds = op.kinds;
      g.in_place = !run.from_input;
      run.in_offset = real_input ? real_off : array_off;
      run.out_offset = array_off;
      run.batch = batch(g, run);
      runs.push_back(std::move(run));
      done.insert(done.end(), op.axes.begin(), op.axes.end());
      if (!bp.padded) continue;
      // Keep the m-box: in place, or into the output after the last stage's last op.
      for (int a : op.axes) {
        const bool into_output = last_stage && o + 1 == st.ops.size() && a == op.axes.back();
        std::vector<int> others = done;
        others.erase(std::find(others.begin(), others.end(), a));
        OpRun t;
        t.to_output = into_output;
        t.action = make_line_action(bp.precision, false, line_of(a), extents_with(others), strides, array_off,
                                    into_output ? data_strides : strides, into_output ? data_off : array_off, 1,
                                    into_output ? 2 : 1);
        runs.push_back(std::move(t));
      }
    }
    return runs;
  }
  // Backward: undo the ops in reverse order. A fused r2c (axis 2 with others, merge_ops) is
  // undone as c2c over the others, then c2r over axis 2: a multi-dimensional c2r destroys its
  // input (FFTW has no input-preserving one), and the first step reads the caller's input.
  std::vector<core::FftOp> ops;
  for (const core::FftOp& op : st.ops)
    for (const core::FftOp& part : in_user_array ? std::vector<core::FftOp>{op} : core::unfused(op))
      ops.push_back(part);
  std::vector<int> pending = stage_axes;  // axes still holding their kept values
  bool first_step = true;
  if (last_stage && ops.empty()) {
    runs.push_back(input_copy(false));
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
        p.action = make_line_action(bp.precision, true, line_of(a), extents_with(pending),
                                    from_input ? data_strides : strides, from_input ? data_off : array_off, strides,
                                    array_off, from_input ? 0 : 1, 1);
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
      g.in_strides = strides, g.out_strides = rstrides;
      g.transform = backend::Transform::c2r;
      g.in_place = in_user_array;  // the array is the output
      run.to_output = true;
      run.in_offset = array_off, run.out_offset = real_off;
    } else {
      g.in_strides = g.out_strides = strides;
      g.transform = op.r2r() ? backend::Transform::r2r : backend::Transform::c2c_backward;
      for (AxisKind k : op.kinds) g.r2r_kinds.push_back(core::inverse_kind(k));
      run.from_input = reads_input && !bp.padded && !in_user_array;  // padded: the padding step read the input
      g.in_place = !run.from_input;
      run.in_offset = run.out_offset = array_off;
    }
    run.batch = batch(g, run);
    runs.push_back(std::move(run));
    first_step = false;
  }
  return runs;
}

}  // namespace volfft::plan
