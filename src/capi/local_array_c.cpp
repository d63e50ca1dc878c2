#include "capi/local_array_c.hpp"

#include <algorithm>
#include <string>

#include "volfft/error.hpp"

namespace volfft::capi {

volfft_box to_c(const Box& b) {
  volfft_box c{};
  for (int a = 0; a < 3; ++a) c.lo[a] = b.lo[a], c.hi[a] = b.hi[a];
  return c;
}

Box from_c(const volfft_box& c) {
  Box b;
  for (int a = 0; a < 3; ++a) b.lo[a] = c.lo[a], b.hi[a] = c.hi[a];
  return b;
}

volfft_local_array to_c(const LocalArray& a) {
  volfft_local_array c{};
  c.box = to_c(a.box);
  c.storage = to_c(a.storage);
  // An N-D plan's order has its trailing axes last, in C order: the struct keeps the first three.
  c.order_length = static_cast<int>(std::min<std::size_t>(a.order.size(), 3));
  for (std::size_t k = 0; k < a.order.size() && k < 3; ++k) c.order[k] = a.order[k];
  return c;
}

LocalArray from_c(const volfft_local_array& c, const char* what) {
  // The struct holds three entries: an N-D plan's order is that of its first three axes (the
  // trailing ones follow them, in C order).
  if (c.order_length < 0 || c.order_length > 3)
    throw Error(std::string("volfft: ") + what + ".order_length must be 0 (C order) or the number of "
                "dimensions, at most 3 (an N-D plan's first three axes); got " + std::to_string(c.order_length));
  LocalArray a;
  a.box = from_c(c.box);
  a.storage = from_c(c.storage);
  a.order.assign(c.order, c.order + c.order_length);
  return a;
}

}  // namespace volfft::capi
