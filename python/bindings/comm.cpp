// mpi4py communicator -> MPI_Comm. mpi4py's C API lives in static per-file tables, so it is
// loaded and used in this one translation unit.
#include <mpi4py/mpi4py.h>

#include "bindings.hpp"

namespace volfft_python {

MPI_Comm to_mpi_comm(nb::handle comm) {
  // Loaded on first use rather than at import: importing mpi4py.MPI initialises MPI, and the
  // pure volfft.describe() must work without it.
  static bool loaded = false;
  if (!loaded) {
    if (import_mpi4py() < 0) throw nb::python_error();
    loaded = true;
  }
  if (!PyObject_TypeCheck(comm.ptr(), &PyMPIComm_Type)) {
    throw nb::type_error("comm: expected an mpi4py.MPI.Comm");
  }
  MPI_Comm* handle = PyMPIComm_Get(comm.ptr());
  if (handle == nullptr) throw nb::python_error();
  return *handle;
}

}  // namespace volfft_python
