// volfft_options (the C API's struct) <-> volfft::Options. The struct is written by hand in
// volfft.h, as C needs; its defaults come from volfft::Options, and a test round-trips every
// option of the option table (core/option_table.hpp) through it, so an option added to the
// table but not to the struct fails the tests by name (tests/unit/test_c_options.cpp).
#pragma once

#include <vector>

#include "volfft/options.hpp"
#include "volfft/volfft.h"

namespace volfft::capi {

/// The C form of `o`. Its pointers (rank_order, spectral_shape, map_file, coordinate,
/// workspace) point into `o`, and `kinds` into the vector given for them (filled here with
/// the AxisKind values as ints), which must outlive the result; NULL where they are empty.
volfft_options to_c(const Options& o, std::vector<int>& kinds);
/// The C++ form of `c`; the lists are copied. Enum values are not checked here (validation
/// does it, collectively, with every other option).
Options from_c(const volfft_options& c);

}  // namespace volfft::capi
