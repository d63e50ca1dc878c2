// plan/plane_split.hpp: which one-rank 3-D stages may run whole or split, the rule, and which the
// planning times, by kind, direction, options and the array's size against a stand-in cache
// (VOLFFT_TEST_CACHE_BYTES), so that no answer depends on the machine.
#include <cstdlib>
#include <string>

#include "core/blueprint.hpp"
#include "plan/plane_split.hpp"
#include "support/check.hpp"
#include "unit/unit_main.hpp"

using namespace volfft;
using plan::SplitTiming;

namespace {

const char* name(SplitTiming t) {
  return t == SplitTiming::by_rule ? "by_rule" : t == SplitTiming::probe ? "probe" : "measured_both";
}

// Options that time where anything is timed: FFTW, measured.
Options measured() {
  Options o;
  o.backend = Backend::fftw;
  o.effort = Effort::measure;
  return o;
}

core::Blueprint one_rank(Kind kind, const Options& o, std::vector<core::Index> shape = {8, 8, 8}) {
  return core::make_blueprint(1, 0, shape, kind, Precision::float64, o);
}

void cache(long bytes) { setenv("VOLFFT_TEST_CACHE_BYTES", std::to_string(bytes).c_str(), 1); }

#define EXPECT_TIMING(bp, o, backward, expected)                                                            \
  do {                                                                                                      \
    const SplitTiming got = plan::plane_split_timing(bp, o, 0, backward);                                   \
    CHECK_MSG(got == expected, #bp << (backward ? " backward" : " forward") << ": " << name(got) << ", expected " \
                                   << name(expected));                                                      \
  } while (0)

// c2c double 8^3: 8 KiB an array. Within a quarter of the cache the 3-D plan is probed against a
// cheap split; up to 8 caches both are measured; beyond, the rule splits untimed. Both directions
// alike.
void c2c_by_the_array_in_caches() {
  const Options o = measured();
  const core::Blueprint bp = one_rank(Kind::c2c, o);
  for (bool backward : {false, true}) {
    cache(1 << 20);  // 1/128 of a cache
    EXPECT_TIMING(bp, o, backward, SplitTiming::probe);
    CHECK(!plan::runs_by_planes(bp, o, bp.stages[0]));
    cache(32 << 10);  // a quarter of a cache, the last probed
    EXPECT_TIMING(bp, o, backward, SplitTiming::probe);
    CHECK(!plan::runs_by_planes(bp, o, bp.stages[0]));
    cache(16 << 10);  // half a cache
    EXPECT_TIMING(bp, o, backward, SplitTiming::measured_both);
    CHECK(plan::runs_by_planes(bp, o, bp.stages[0]));
    cache(4096);  // 2 caches
    EXPECT_TIMING(bp, o, backward, SplitTiming::measured_both);
    CHECK(plan::runs_by_planes(bp, o, bp.stages[0]));
    cache(512);  // 16 caches
    EXPECT_TIMING(bp, o, backward, SplitTiming::by_rule);
  }
  unsetenv("VOLFFT_TEST_CACHE_BYTES");
}

// r2c double 8^3 (the spectrum 8x8x5: 5 KiB): the rule runs planes; only the out-of-place
// backward that keeps its input is timed, and up to 8 caches only, where it does not run folded
// (core/folded_backward.hpp: then neither way is timed).
void r2c_only_the_backward_that_keeps_its_input() {
  const Options o = measured();
  setenv("VOLFFT_TEST_FOLDED", "1", 1);
  const core::Blueprint folded = one_rank(Kind::r2c, o);
  CHECK(folded.folded_backward);
  EXPECT_TIMING(folded, o, true, SplitTiming::by_rule);
  setenv("VOLFFT_TEST_FOLDED", "0", 1);
  const core::Blueprint bp = one_rank(Kind::r2c, o);
  unsetenv("VOLFFT_TEST_FOLDED");
  cache(1 << 20);
  CHECK(plan::runs_by_planes(bp, o, bp.stages[0]));
  EXPECT_TIMING(bp, o, false, SplitTiming::by_rule);
  EXPECT_TIMING(bp, o, true, SplitTiming::measured_both);
  cache(1024);  // 5 caches
  EXPECT_TIMING(bp, o, true, SplitTiming::measured_both);
  cache(512);  // 10 caches
  EXPECT_TIMING(bp, o, true, SplitTiming::by_rule);
  cache(1 << 20);
  Options in_place = o;
  in_place.in_place = true;
  const core::Blueprint bp_in_place = one_rank(Kind::r2c, in_place);
  EXPECT_TIMING(bp_in_place, in_place, true, SplitTiming::by_rule);
  Options destroy = o;
  destroy.destroy_input = true;  // the 3-D c2r reads the input itself, by rule
  const core::Blueprint bp_destroy = one_rank(Kind::r2c, destroy);
  EXPECT_TIMING(bp_destroy, destroy, true, SplitTiming::by_rule);
  unsetenv("VOLFFT_TEST_CACHE_BYTES");
}

// Nothing is timed where nothing is measured, where the backend is not FFTW, where the stage
// is not one 3-D op over the whole array (two ranks: each stage transforms fewer axes; a 2-D
// plan) or where the 3-D plan cannot take the stage (padded).
void nothing_timed_elsewhere() {
  cache(1 << 20);
  for (Kind kind : {Kind::c2c, Kind::r2c}) {
    Options estimate = measured();
    estimate.effort = Effort::estimate;
    const core::Blueprint bp = one_rank(kind, estimate);
    EXPECT_TIMING(bp, estimate, true, SplitTiming::by_rule);
    Options ducc = measured();
    ducc.backend = Backend::ducc0;
    const core::Blueprint bp_ducc = one_rank(kind, ducc);
    EXPECT_TIMING(bp_ducc, ducc, true, SplitTiming::by_rule);
    CHECK(!plan::splits_into_planes(bp_ducc, ducc, bp_ducc.stages[0]));
    const Options o = measured();
    const core::Blueprint two_ranks = core::make_blueprint(2, 0, {8, 8, 8}, kind, Precision::float64, o);
    for (std::size_t s = 0; s < two_ranks.stages.size(); ++s)
      CHECK_MSG(plan::plane_split_timing(two_ranks, o, s, true) == SplitTiming::by_rule,
                "two ranks, stage " << s << ": " << name(plan::plane_split_timing(two_ranks, o, s, true)));
    const core::Blueprint flat = one_rank(kind, o, {8, 8});
    EXPECT_TIMING(flat, o, true, SplitTiming::by_rule);
  }
  Options padded = measured();
  padded.spectral_shape = {6, 6, 6};
  const core::Blueprint bp_padded = one_rank(Kind::c2c, padded);
  EXPECT_TIMING(bp_padded, padded, true, SplitTiming::by_rule);
  unsetenv("VOLFFT_TEST_CACHE_BYTES");
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests(
      "test_unit_plane_split", {{"c2c_by_the_array_in_caches", c2c_by_the_array_in_caches},
                                {"r2c_only_the_backward_that_keeps_its_input", r2c_only_the_backward_that_keeps_its_input},
                                {"nothing_timed_elsewhere", nothing_timed_elsewhere}});
}
