// Errors raised on every rank alike: what a test needs to check the message and its agreement.
#pragma once

#include <mpi.h>

#include <exception>
#include <string>
#include <vector>

#include "check.hpp"
#include "volfft/error.hpp"

namespace volfft_test {

// Every rank's string, on every rank.
inline std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(size), offsets(size, 0);
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::vector<char> all(static_cast<std::size_t>(offsets[size - 1] + lengths[size - 1]) + 1);
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                 MPI_CHAR, comm);
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r) out.emplace_back(all.data() + offsets[r], lengths[r]);
  return out;
}

// The message of the volfft::Error that `f` throws; "" when it throws nothing, a note when it
// throws something else.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const volfft::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a volfft::Error: ") + e.what() + ">";
  }
  return "";
}

// The error must contain `fragment` here and be the same text on every rank.
inline void expect_everywhere(const std::string& label, const std::string& message,
                       const std::string& fragment) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK_MSG(message.find(fragment) != std::string::npos,
            label << ": rank " << rank << " expected an error containing '" << fragment
                  << "'; got '" << message << "'");
  const auto all = gather_strings(MPI_COMM_WORLD, message);
  for (std::size_t r = 1; r < all.size(); ++r)
    CHECK_MSG(all[r] == all[0], label << ": rank 0 says '" << all[0] << "' but rank " << r
                                      << " says '" << all[r] << "'");
}

}  // namespace volfft_test
