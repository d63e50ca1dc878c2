#include "mpi/check.hpp"

#include <cctype>
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

void require_communicator(MPI_Comm comm, const char* who) {
  if (comm == MPI_COMM_NULL)
    throw Error(std::string(who) + ": comm is MPI_COMM_NULL; expected a communicator this rank belongs to (a rank "
                "outside it takes no part)");
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

bool finalized() {
  int done = 0;
  MPI_Finalized(&done);
  return done != 0;
}

const void* unaliased_send(const void* send, const void* receive, const std::vector<int>& send_counts) {
  static const char nothing[16] = {};
  if (send != receive || send == MPI_IN_PLACE) return send;
  for (int c : send_counts)
    if (c != 0) return send;  // never so (the areas are disjoint); MPI's own check then applies
  return nothing;
}

std::string library_name() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  const std::string s(text, static_cast<std::size_t>(length));
  // The first line up to a comma ("Open MPI v4.1.4", "MPICH Version:\t4.0.2"), its white space
  // made single spaces: it goes into one-line reports and JSON strings.
  std::string name;
  for (char c : s.substr(0, s.find_first_of(",\n"))) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!name.empty() && name.back() != ' ') name += ' ';
    } else {
      name += c;
    }
  }
  while (!name.empty() && name.back() == ' ') name.pop_back();
  return name;
}

}  // namespace volfft::mpi
