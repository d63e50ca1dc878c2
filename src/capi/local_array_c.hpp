// volfft_box / volfft_local_array (the C API's structs) <-> volfft::Box / volfft::LocalArray.
#pragma once

#include "volfft/box.hpp"
#include "volfft/volfft.h"

namespace volfft::capi {

volfft_box to_c(const Box& b);
Box from_c(const volfft_box& b);
volfft_local_array to_c(const LocalArray& a);
/// Throws volfft::Error naming `what` when order_length is neither 0 nor 1..3 (the library
/// checks the order's entries against the array's dimensions, collectively).
LocalArray from_c(const volfft_local_array& a, const char* what);

}  // namespace volfft::capi
