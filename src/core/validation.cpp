// The argument check: every plan argument is validated here, before anything is planned. Pure:
// no MPI (Plan agrees on the outcome across ranks).
#include <string>
#include <vector>

#include "core/blueprint.hpp"
#include "core/option_table.hpp"
#include "volfft/error.hpp"

namespace volfft::core {
namespace {

std::string grid_text(const std::array<int, 2>& g) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]);
}

std::string shape_text(const std::vector<Index>& shape) {
  std::string s = "(";
  for (std::size_t a = 0; a < shape.size(); ++a) s += (a ? ", " : "") + std::to_string(shape[a]);
  return s + ")";
}

}  // namespace

Index logical_size(AxisKind k, Index n) {
  switch (k) {
    case AxisKind::dft:
    case AxisKind::r2c: return n;
    case AxisKind::dct1: return 2 * (n - 1);
    case AxisKind::dst1: return 2 * (n + 1);
    case AxisKind::none: return 1;
    default: return 2 * n;
  }
}

AxisKind inverse_kind(AxisKind k) {
  switch (k) {
    case AxisKind::dct2: return AxisKind::dct3;
    case AxisKind::dct3: return AxisKind::dct2;
    case AxisKind::dst2: return AxisKind::dst3;
    case AxisKind::dst3: return AxisKind::dst2;
    default: return k;
  }
}

std::array<AxisKind, 3> axis_kinds(const std::vector<Index>& shape, Kind kind, const Options& options) {
  std::array<AxisKind, 3> k{AxisKind::dft, AxisKind::dft, kind == Kind::r2c ? AxisKind::r2c : AxisKind::dft};
  const std::size_t offset = 3 - shape.size();  // a 2-D plan's internal axis 0 is not an axis
  if (offset) k[0] = AxisKind::none;
  for (std::size_t a = 0; a < options.kinds.size() && a + offset < 3; ++a) k[a + offset] = options.kinds[a];
  return k;
}

void validate(int comm_size, const std::vector<Index>& shape, const Options& options, Kind kind) {
  if (comm_size < 1) throw Error("volfft: the communicator must have at least one rank");
  if (shape.size() < 2)
    throw Error("volfft: shape must have at least 2 entries (a 2-D or larger array); got " +
                std::to_string(shape.size()));
  // Plans of more axes reach this as the plan of their first three (core/trailing_axes.hpp).
  if (shape.size() > 3)
    throw Error("volfft: shape has " + std::to_string(shape.size()) +
                " entries; plans of more than 3 axes are made by Plan (their first three axes planned here)");
  for (std::size_t a = 0; a < shape.size(); ++a)
    if (shape[a] < 1)
      throw Error("volfft: shape[" + std::to_string(a) + "] must be a positive size; got " +
                  std::to_string(shape[a]));
  // Byte counts of whole arrays must fit in 64 bits (16-byte complex values, and the
  // workspace's several buffers): no product of sizes may wrap.
  const Index limit = (static_cast<Index>(1) << 62) / 16;
  Index elements = 1;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (shape[a] > limit / elements)
      throw Error("volfft: shape " + shape_text(shape) + " has too many elements (the product of the sizes must stay "
                  "below 2^58 so that byte counts fit in 64 bits); shape[" + std::to_string(a) + "] = " +
                  std::to_string(shape[a]) + " is too large");
    elements *= shape[a];
  }
  // The fields too: every array holds batch of them (an N-D plan's trailing values are in batch
  // by now, bounded with the axes in core/trailing_axes.cpp).
  if (options.batch > 1 && options.batch > limit / elements)
    throw Error("volfft: batch " + std::to_string(options.batch) + " of shape " + shape_text(shape) +
                " has too many values (the product of the sizes and batch must stay below 2^58 so that byte counts "
                "fit in 64 bits)");
  // Each option on its own (bounds, names, lengths), from the option table.
  for (const OptionSpec& spec : option_table()) check_option(spec, spec.get(options));
  const auto& g = options.grid;
  const bool automatic = g[0] == 0 && g[1] == 0;
  if (!automatic) {
    if (g[0] < 1 || g[1] < 1)
      throw Error("volfft: grid must be p0 x p1 with p0, p1 >= 1 (or 0x0 for automatic); got " +
                  grid_text(g));
    if (static_cast<long long>(g[0]) * g[1] != comm_size)
      throw Error("volfft: grid " + grid_text(g) + " has " + std::to_string(static_cast<long long>(g[0]) * g[1]) +
                  " ranks but the communicator has " + std::to_string(comm_size) +
                  " (p0*p1 must equal the communicator size)");
    if (shape.size() == 2 && g[1] != 1)
      throw Error("volfft: 2-D arrays are decomposed in slabs only: grid must be " +
                  std::to_string(comm_size) + "x1; got " + grid_text(g));
  }
  if (!options.rank_order.empty()) {
    if (static_cast<int>(options.rank_order.size()) != comm_size)
      throw Error("volfft: rank_order must have one entry per rank (" +
                  std::to_string(comm_size) + "); got " +
                  std::to_string(options.rank_order.size()));
    std::vector<char> seen(comm_size, 0);
    for (int r : options.rank_order) {
      if (r < 0 || r >= comm_size || seen[r])
        throw Error("volfft: rank_order must be a permutation of 0.." +
                    std::to_string(comm_size - 1) + "; entry " + std::to_string(r) +
                    (r < 0 || r >= comm_size ? " is out of range" : " repeats"));
      seen[r] = 1;
    }
  }
  if (!options.spectral_shape.empty()) {
    if (options.spectral_shape.size() != shape.size())
      throw Error("volfft: spectral_shape must have one entry per axis (" + std::to_string(shape.size()) +
                  "); got " + std::to_string(options.spectral_shape.size()));
    for (std::size_t a = 0; a < shape.size(); ++a)
      if (options.spectral_shape[a] < 1 || options.spectral_shape[a] > shape[a])
        throw Error("volfft: spectral_shape[" + std::to_string(a) + "] must be between 1 and shape[" +
                    std::to_string(a) + "] = " + std::to_string(shape[a]) + "; got " +
                    std::to_string(options.spectral_shape[a]));
  }
  if (kind == Kind::r2r && options.kinds.empty())
    throw Error("volfft: an r2r plan needs kinds, one real-to-real kind (dct1..dct4, dst1..dst4) or 'none' per axis; "
                "got none");
  if (!options.kinds.empty()) {
    if (options.kinds.size() != shape.size())
      throw Error("volfft: kinds must have one entry per axis (" + std::to_string(shape.size()) + "); got " +
                  std::to_string(options.kinds.size()));
    const std::size_t last = shape.size() - 1;
    for (std::size_t a = 0; a < shape.size(); ++a) {
      const AxisKind k = options.kinds[a];
      const std::string which = "volfft: kinds[" + std::to_string(a) + "] is '" + to_string(k) + "'";
      if (k == AxisKind::r2c && kind != Kind::r2c)
        throw Error(which + ", but the plan's kind is " + to_string(kind) +
                    ": make an r2c plan (its last axis is the r2c one)");
      if (kind == Kind::r2r && k == AxisKind::dft)
        throw Error(which + ", but an r2r plan's data is real: each axis must be a real-to-real kind (dct1..dct4, "
                    "dst1..dst4) or 'none' (a complex DFT along an axis needs a c2c plan)");
      if (k == AxisKind::r2c && a != last)
        throw Error(which + ": only the last axis can be r2c (kinds[" + std::to_string(last) + "])");
      if (kind == Kind::r2c && a == last && k != AxisKind::r2c)
        throw Error(which + ", but an r2c plan's last axis must be 'r2c'");
      if (k == AxisKind::dct1 && shape[a] < 2)
        throw Error(which + ": DCT-I needs at least 2 points; shape[" + std::to_string(a) + "] is " +
                    std::to_string(shape[a]));
    }
    if (!options.spectral_shape.empty())
      throw Error("volfft: kinds does not combine with spectral_shape (padding keeps the low DFT frequencies of "
                  "every axis); leave kinds empty for a padded transform");
  }
  if (options.in_place && options.batch > 1 && options.batch_layout == BatchLayout::inner && kind == Kind::r2c)
    throw Error("volfft: in_place with batch_layout 'inner' takes c2c and r2r plans, not r2c: interleaved fields' "
                "complex rows would overwrite the other fields' real rows (transform field by field); use "
                "batch_layout 'outer', or two arrays");
  if (options.in_place && !options.spectral_shape.empty())
    throw Error("volfft: in_place does not combine with spectral_shape (a padded transform's two sides differ in "
                "size and order, so one array cannot hold both while it is transformed); use two arrays");
  if (options.min_memory && options.backend == Backend::automatic)
    throw Error("volfft: min_memory does not combine with backend 'auto' (choosing by timing needs arrays to time "
                "on); use 'fftw' or 'ducc0'");
  if (options.min_memory && options.tune > 0)
    throw Error("volfft: min_memory does not combine with tune > 0 (timing candidates needs arrays of their own); "
                "give the grid and engine, or tune 0");
  if (options.workspace == nullptr && options.workspace_bytes != 0)
    throw Error("volfft: workspace_bytes is set but workspace is null");
}

}  // namespace volfft::core
