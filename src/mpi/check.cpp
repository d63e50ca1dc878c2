#include "mpi/check.hpp"

#include <string>

#include "volfft/error.hpp"

namespace volfft::mpi {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw MpiError(std::string("volfft: ") + call + " failed: " + std::string(text, length));
}

}  // namespace volfft::mpi
