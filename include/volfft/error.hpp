// The exceptions volfft throws.
#pragma once

#include <stdexcept>

namespace volfft {

/// Invalid argument. Plan construction throws it on every rank of the communicator alike, with
/// the same message; the message names the argument and what was expected.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An MPI call failed; the message names the call and gives MPI's error string. Collective
/// calls that fail on one rank may leave other ranks waiting: MPI failures are not agreed.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace volfft
