// The exception volfft throws for invalid arguments.
#pragma once

#include <stdexcept>

namespace volfft {

/// Invalid argument. Plan construction throws it on every rank of the communicator alike, with
/// the same message; the message names the argument and what was expected.
class Error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace volfft
