// The extension module volfft._volfft: registration, exception mapping, version.
#include <nanobind/stl/string.h>

#include <stdexcept>

#include "bindings.hpp"
#include "volfft/plan.hpp"

namespace nb = nanobind;

NB_MODULE(_volfft, m) {
  m.doc() = "volfft's compiled core (type conversion only); use volfft.Plan instead.";

  // Invalid arguments (volfft::Error and the std::invalid_argument of describe()/parse_*)
  // become VolfftError, a ValueError, with the library's message unchanged.
  static nb::exception<volfft::Error> volfft_error(m, "VolfftError", PyExc_ValueError);
  // A failed MPI call (volfft::MpiError) becomes MpiError, a RuntimeError: not the caller's
  // arguments, and, unlike VolfftError, not necessarily raised on every rank.
  static nb::exception<volfft::MpiError> mpi_error(m, "MpiError", PyExc_RuntimeError);
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void*) {
        try {
          std::rethrow_exception(p);
        } catch (const std::invalid_argument& e) {
          PyErr_SetString(volfft_error.ptr(), e.what());
        }
      });

  m.def("version_string", &volfft::version_string,
        "Library, FFTW and MPI versions, e.g. 'volfft 0.1.0 (FFTW 3.3.10, Open MPI v4.1.4)'.");

  volfft_python::bind_plan(m);
  volfft_python::bind_description(m);
  volfft_python::bind_reshape(m);
}
