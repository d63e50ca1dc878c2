// Minimal test support: CHECK macros that count failures. MPI test mains use run_mpi_test(),
// which turns an exception or a failed check on any rank into MPI_Abort, so a failing rank
// stops the job instead of leaving the others waiting in a collective.
#pragma once

#include <cstdio>
#include <exception>
#include <sstream>
#include <string>

namespace volfft_test {

inline int& failures() {
  static int n = 0;
  return n;
}
inline int& checks() {
  static int n = 0;
  return n;
}

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    ++volfft_test::checks();                                                            \
    if (!(cond)) {                                                                      \
      ++volfft_test::failures();                                                        \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
    }                                                                                   \
  } while (0)

#define CHECK_MSG(cond, msg)                                                              \
  do {                                                                                    \
    ++volfft_test::checks();                                                              \
    if (!(cond)) {                                                                        \
      ++volfft_test::failures();                                                          \
      std::ostringstream os_;                                                             \
      os_ << msg;                                                                         \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s (%s)\n", __FILE__, __LINE__, #cond,   \
                   os_.str().c_str());                                                    \
    }                                                                                     \
  } while (0)

/// Expect `expr` to throw an exception whose what() contains `fragment`.
#define CHECK_THROWS_WITH(expr, fragment)                                                    \
  do {                                                                                       \
    ++volfft_test::checks();                                                                 \
    std::string what_;                                                                       \
    try {                                                                                    \
      expr;                                                                                  \
    } catch (const std::exception& e_) {                                                     \
      what_ = e_.what();                                                                     \
    }                                                                                        \
    if (what_.find(fragment) == std::string::npos) {                                         \
      ++volfft_test::failures();                                                             \
      std::fprintf(stderr, "%s:%d: expected an error containing '%s' from %s; got '%s'\n",   \
                   __FILE__, __LINE__, std::string(fragment).c_str(), #expr, what_.c_str()); \
    }                                                                                        \
  } while (0)

}  // namespace volfft_test
