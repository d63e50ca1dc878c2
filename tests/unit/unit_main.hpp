// main() helper for the MPI-free unit tests: runs the test functions, prints the tally and
// turns failed checks (or an unexpected exception) into a non-zero exit status for ctest.
#pragma once

#include <cstdio>
#include <exception>
#include <initializer_list>
#include <utility>

#include "support/check.hpp"

namespace volfft_test {

using UnitTest = std::pair<const char*, void (*)()>;

inline int run_unit_tests(const char* suite, std::initializer_list<UnitTest> tests) {
  for (const auto& t : tests) {
    const int before = failures();
    try {
      t.second();
    } catch (const std::exception& e) {
      ++failures();
      std::fprintf(stderr, "%s: unexpected exception: %s\n", t.first, e.what());
    }
    std::printf("%-40s %s\n", t.first, failures() == before ? "ok" : "FAILED");
  }
  std::printf("%s: %d checks passed, %d failed\n", suite, checks() - failures(), failures());
  return failures() == 0 ? 0 : 1;
}

}  // namespace volfft_test
