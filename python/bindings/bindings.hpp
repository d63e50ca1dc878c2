// Shared declarations of the nanobind module volfft._volfft. The module converts types between
// Python and volfft's C++ API; every decision stays in the C++ library or in volfft/plan.py.
#pragma once

#include <mpi.h>
#include <nanobind/nanobind.h>

#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "volfft/box.hpp"
#include "volfft/description.hpp"
#include "volfft/options.hpp"

namespace volfft_python {

namespace nb = nanobind;

/// The MPI_Comm inside an mpi4py communicator (mpi4py's C API). Raises TypeError for other
/// objects.
MPI_Comm to_mpi_comm(nb::handle comm);

/// volfft::Options from a dict {option name: Python value}, converted and checked through the
/// library's option table: TypeError for a wrong type or an unknown name, VolfftError (the
/// library's message) for a value out of range.
volfft::Options options_from(const nb::dict& options);

/// The option table as a list of dicts (name, type, doc, agreed, default, names): the Python
/// keyword list is derived from it.
nb::list option_specs();

/// A PlanDescription as a dict of Python scalars, lists and int64 numpy arrays.
nb::dict description_to_dict(const volfft::PlanDescription& d);

/// A LocalArray as it crosses to Python: (box lo, box hi, order, storage lo, storage hi), the
/// boxes with 3 entries (a 2-D array's third axis [0, 1)); storage all zero = the box.
using LocalArrayTuple = std::tuple<std::vector<std::int64_t>, std::vector<std::int64_t>, std::vector<int>,
                                   std::vector<std::int64_t>, std::vector<std::int64_t>>;
volfft::LocalArray local_array_from(const LocalArrayTuple& t);
LocalArrayTuple local_array_to(const volfft::LocalArray& a);

void bind_plan(nb::module_& m);
void bind_reshape(nb::module_& m);
void bind_description(nb::module_& m);

}  // namespace volfft_python
