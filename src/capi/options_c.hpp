// volfft_options (the C API's struct) <-> volfft::Options. The struct is written by hand in
// volfft.h, as C needs; its defaults come from volfft::Options, and a test round-trips every
// option of the option table (core/option_table.hpp) through it, so an option added to the
// table but not to the struct fails the tests by name (tests/unit/test_c_options.cpp).
#pragma once

#include "volfft/options.hpp"
#include "volfft/volfft.h"

namespace volfft::capi {

/// The C form of `o`. Its pointers (rank_order, spectral_shape, map_file, coordinate,
/// workspace) point into `o`, which must outlive the result; NULL where `o`'s are empty.
volfft_options to_c(const Options& o);
/// The C++ form of `c`; the lists are copied. Enum values are not checked here (validation
/// does it, collectively, with every other option).
Options from_c(const volfft_options& c);

}  // namespace volfft::capi
