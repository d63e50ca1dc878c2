// Shared declarations of the nanobind module volfft._volfft. The module converts types between
// Python and volfft's C++ API; every decision stays in the C++ library or in volfft/plan.py.
#pragma once

#include <mpi.h>
#include <nanobind/nanobind.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "volfft/description.hpp"
#include "volfft/options.hpp"

namespace volfft_python {

namespace nb = nanobind;

/// The MPI_Comm inside an mpi4py communicator (mpi4py's C API). Raises TypeError for other
/// objects.
MPI_Comm to_mpi_comm(nb::handle comm);

/// volfft::Options from the Python-side keyword values; the names are parsed by volfft's own
/// parse_* functions, whose errors name the argument.
/// The options that are plain values (no name to parse), as Python passes them.
struct ExtraOptions {
  int planes = -1, max_in_flight = 4;
  bool pipeline_p2p = false;
  int threads = 1;
  std::string backend = "fftw";
  int ranks_per_node = 0;
  std::vector<std::int64_t> spectral_shape;
  std::string wisdom_file;
  bool verbose = false;
};

volfft::Options make_options(const std::array<int, 2>& grid, const std::string& engine,
                             const std::string& layout, const std::string& effort,
                             bool scale_backward, const std::vector<int>& rank_order,
                             const ExtraOptions& extra);

/// A PlanDescription as a dict of Python scalars, lists and int64 numpy arrays.
nb::dict description_to_dict(const volfft::PlanDescription& d);

void bind_plan(nb::module_& m);
void bind_description(nb::module_& m);

}  // namespace volfft_python
