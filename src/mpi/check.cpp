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

void start_all(std::vector<MPI_Request>& r) {
  if (!r.empty()) check(MPI_Startall(static_cast<int>(r.size()), r.data()), "MPI_Startall");
}

void wait_all(std::vector<MPI_Request>& r) {
  if (!r.empty()) check(MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

bool test_all(std::vector<MPI_Request>& r) {
  int flag = 1;
  if (!r.empty()) check(MPI_Testall(static_cast<int>(r.size()), r.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
  return flag != 0;
}

std::string library_name() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  const std::string s(text, static_cast<std::size_t>(length));
  return s.substr(0, s.find_first_of(",\n"));
}

}  // namespace volfft::mpi
