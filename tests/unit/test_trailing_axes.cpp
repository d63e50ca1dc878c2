// core::split_trailing_axes (pure): an N-D plan as the 3-D plan of its first three axes with the
// trailing values as interleaved fields, and its refusals naming the argument.
#include <string>

#include "core/trailing_axes.hpp"
#include "support/check.hpp"
#include "unit/unit_main.hpp"
#include "volfft/description.hpp"
#include "volfft/error.hpp"

using namespace volfft;
using core::split_trailing_axes;

namespace {

std::string error_of(const std::vector<std::int64_t>& shape, Kind kind, const Options& o) {
  try {
    split_trailing_axes(shape, kind, o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void three_axes_are_unchanged() {
  Options o;
  o.batch = 3;
  const auto s = split_trailing_axes({4, 5, 6}, Kind::r2c, o);
  CHECK(s.trailing.empty());
  CHECK((s.shape == std::vector<std::int64_t>{4, 5, 6}));
  CHECK(s.options.batch == 3 && s.options.batch_layout == BatchLayout::outer);
}

void trailing_values_become_inner_fields() {
  Options o;
  o.kinds = {AxisKind::dft, AxisKind::none, AxisKind::dct2, AxisKind::dst1, AxisKind::none};
  o.batch = 2, o.batch_layout = BatchLayout::inner;
  const auto s = split_trailing_axes({4, 5, 6, 7, 3}, Kind::c2c, o);
  CHECK((s.shape == std::vector<std::int64_t>{4, 5, 6}));
  CHECK((s.options.kinds == std::vector<AxisKind>{AxisKind::dft, AxisKind::none, AxisKind::dct2}));
  CHECK(s.options.batch == 7 * 3 * 2 && s.options.batch_layout == BatchLayout::inner);
  CHECK((s.trailing.shape == std::vector<std::int64_t>{7, 3}));
  CHECK((s.trailing.kinds == std::vector<AxisKind>{AxisKind::dst1, AxisKind::none}));
  CHECK(s.trailing.values == 21 && s.trailing.fields == 2);
  CHECK(s.trailing.logical == 2.0 * (7 + 1));  // DST-I of 7 points: 2(n + 1); none: 1
  // Without kinds every trailing axis is a DFT.
  const auto d = split_trailing_axes({2, 2, 2, 5}, Kind::c2c, Options{});
  CHECK(d.options.kinds.empty() && d.trailing.kinds == std::vector<AxisKind>{AxisKind::dft});
  CHECK(d.trailing.logical == 5);
}

void trailing_dims_give_strides_and_transforms() {
  Options o;
  o.kinds = {AxisKind::dft, AxisKind::dft, AxisKind::dft, AxisKind::dct2, AxisKind::none, AxisKind::dft};
  o.batch = 2, o.batch_layout = BatchLayout::inner;
  const auto s = split_trailing_axes({4, 4, 4, 3, 5, 1}, Kind::c2c, o);
  const auto f = core::trailing_dims(s.trailing, s.options.batch, true);
  CHECK(f.size() == 3);
  CHECK(f[0].n == 3 && f[0].stride == 5 * 1 * 2 && f[0].kind == AxisKind::dct2 && f[0].transformed);
  CHECK(f[1].n == 5 && f[1].stride == 2 && !f[1].transformed);
  CHECK(f[2].n == 1 && f[2].stride == 2 && !f[2].transformed);  // a DFT of one point: the identity
  const auto b = core::trailing_dims(s.trailing, s.options.batch, false);
  CHECK(b[0].kind == AxisKind::dct3);  // the backward applies the inverse kind
  // An r2r kind of one point still scales, so it is transformed.
  o.kinds = {AxisKind::dct2, AxisKind::dct2, AxisKind::dct2, AxisKind::dct2};
  o.batch = 1;
  const auto r = split_trailing_axes({2, 2, 2, 1}, Kind::r2r, o);
  CHECK(core::trailing_dims(r.trailing, 1, true)[0].transformed);
}

void refusals_name_the_argument() {
  Options o;
  CHECK(error_of({2, 2, 2, 2}, Kind::r2c, o).find("r2c plans take 2 or 3 axes; got shape with 4") != std::string::npos);
  o.batch = 2;
  CHECK(error_of({2, 2, 2, 2}, Kind::c2c, o).find("batch with batch_layout 'outer'") != std::string::npos);
  o = Options{};
  CHECK(error_of({2, 2, 2, -1}, Kind::c2c, o).find("shape[3] must be a positive size; got -1") != std::string::npos);
  CHECK(error_of({2, 2, 2, 1LL << 40, 1LL << 30}, Kind::c2c, o).find("shape[4] = 1073741824 is too large") !=
        std::string::npos);
  CHECK(error_of({2, 2, 2, 1LL << 20, 1LL << 12}, Kind::c2c, o).find("values per element of the first three axes") !=
        std::string::npos);
  CHECK(error_of({2, 2, 2, 2}, Kind::r2r, o).find("an r2r plan needs kinds") != std::string::npos);
  o.kinds = {AxisKind::dct2, AxisKind::dct2, AxisKind::dct2, AxisKind::dft};
  CHECK(error_of({2, 2, 2, 2}, Kind::r2r, o).find("kinds[3] is 'dft', but an r2r plan's data is real") !=
        std::string::npos);
  o.kinds = {AxisKind::dft, AxisKind::dft, AxisKind::dft, AxisKind::r2c};
  CHECK(error_of({2, 2, 2, 2}, Kind::c2c, o).find("kinds[3] is 'r2c'") != std::string::npos);
  o.kinds = {AxisKind::dft, AxisKind::dft, AxisKind::dft, AxisKind::dct1};
  CHECK(error_of({2, 2, 2, 1}, Kind::c2c, o).find("DCT-I needs at least 2 points; shape[3] is 1") !=
        std::string::npos);
  o.kinds.pop_back();
  CHECK(error_of({2, 2, 2, 1}, Kind::c2c, o).find("kinds must have one entry per axis (4); got 3") !=
        std::string::npos);
}

void describe_gives_the_leading_plan() {
  const PlanDescription d = describe(2, {8, 6, 4, 5}, Kind::c2c, Precision::float64, Options{});
  CHECK(d.ndim == 3 && d.fields == 5);
  CHECK((d.shape == std::vector<std::int64_t>{8, 6, 4}));
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests("trailing_axes", {{"three_axes_are_unchanged", three_axes_are_unchanged},
                                                       {"trailing_values_become_inner_fields", trailing_values_become_inner_fields},
                                                       {"trailing_dims_give_strides_and_transforms", trailing_dims_give_strides_and_transforms},
                                                       {"refusals_name_the_argument", refusals_name_the_argument},
                                                       {"describe_gives_the_leading_plan", describe_gives_the_leading_plan}});
}
