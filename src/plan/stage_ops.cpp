#include "plan/stage_ops.hpp"

#include <algorithm>

namespace volfft::plan {

using core::Index;

Box chunk_of(const Box& box, int axis, Index k, Index planes) {
  Box c = box;
  c.lo[axis] = std::min(box.hi[axis], box.lo[axis] + k * planes);
  c.hi[axis] = std::min(box.hi[axis], c.lo[axis] + planes);
  return c;
}

std::vector<OpRun> make_stage_ops(const core::Blueprint& bp, const Options& options, std::size_t s,
                                  bool backward, const Box& part, void* plan_in, void* plan_out,
                                  bool array_is_user) {
  const core::Stage& st = bp.stages[s];
  const bool first_stage = s == 0, last_stage = s + 1 == bp.stages.size();
  const auto strides = core::strides_of(st.box, st.order);
  const Index real_bytes = bp.complex_bytes / 2;
  // The real array (r2c input / c2r output) is the real box in C order; the part of it that
  // matches `part` is whole along axis 2, the transformed one.
  const auto rstrides = core::strides_of(bp.real_box, core::Order{0, 1, 2});
  Box real_part = part;
  real_part.lo[2] = bp.real_box.lo[2], real_part.hi[2] = bp.real_box.hi[2];
  const std::ptrdiff_t complex_off = core::offset_of(part, st.box, strides) * bp.complex_bytes;
  const std::ptrdiff_t real_off = core::offset_of(real_part, bp.real_box, rstrides) * real_bytes;
  auto at = [](void* p, std::ptrdiff_t off) { return static_cast<char*>(p) + off; };

  backend::BatchGeometry base;
  base.extent = {part.extent(0), part.extent(1), part.extent(2)};
  base.real_length = bp.shape[2];

  std::vector<OpRun> runs;
  if (!backward) {
    for (std::size_t o = 0; o < st.ops.size(); ++o) {
      const core::FftOp& op = st.ops[o];
      backend::BatchGeometry g = base;
      g.axes = op.axes;
      g.out_strides = strides;
      OpRun run;
      run.from_input = first_stage && o == 0;
      const bool real_input = run.from_input && op.real;
      g.in_strides = real_input ? rstrides : strides;
      g.transform = op.real ? backend::Transform::r2c : backend::Transform::c2c_forward;
      g.in_place = !run.from_input;
      run.in_offset = real_input ? real_off : complex_off;
      run.out_offset = complex_off;
      const bool user = run.from_input || array_is_user;
      run.batch = backend::make_batch(options, bp.precision, g, at(plan_in, run.in_offset),
                                      at(g.in_place ? plan_in : plan_out, run.out_offset), user);
      runs.push_back(std::move(run));
    }
    return runs;
  }
  bool first_complex = true;
  for (auto it = st.ops.rbegin(); it != st.ops.rend(); ++it) {
    const core::FftOp& op = *it;
    backend::BatchGeometry g = base;
    g.axes = op.axes;
    OpRun run;
    if (op.real) {
      g.in_strides = strides, g.out_strides = rstrides;
      g.transform = backend::Transform::c2r;
      g.in_place = false;
      run.to_output = true;
      run.in_offset = complex_off, run.out_offset = real_off;
    } else {
      g.in_strides = g.out_strides = strides;
      g.transform = backend::Transform::c2c_backward;
      run.from_input = last_stage && first_complex;
      g.in_place = !run.from_input;
      run.in_offset = run.out_offset = complex_off;
      first_complex = false;
    }
    const bool user = run.from_input || run.to_output || array_is_user;
    run.batch = backend::make_batch(options, bp.precision, g, at(plan_in, run.in_offset),
                                    at(g.in_place ? plan_in : plan_out, run.out_offset), user);
    runs.push_back(std::move(run));
  }
  (void)first_stage;
  return runs;
}

}  // namespace volfft::plan
