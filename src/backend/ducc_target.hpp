// The instruction sets the ducc0 sources were compiled for, against those of the CPU a rank runs
// on. cmake/ducc0.cmake compiles them with -march=native by default (ducc0 vectorises across
// transforms with the SIMD width it is compiled for), so a library built on a login node with
// AVX-512 and run on compute nodes without it would stop with SIGILL inside ducc0. Plans check
// first (backend::backend_problem): backend auto then takes FFTW, backend ducc0 is refused by
// name.
#pragma once

#include <string>

namespace volfft::backend {

/// An x86 extension by the name GCC's and Clang's __builtin_cpu_supports take, and whether the
/// ducc0 sources were compiled for it.
struct InstructionSet {
  const char* name;
  bool compiled;
};

/// The extensions checked (`count` of them; none on other architectures). Compiled with ducc0's
/// own flags (cmake/ducc0.cmake), the table a constant: callable on any CPU of the architecture.
const InstructionSet* ducc0_instruction_sets(int& count);

/// The instruction sets ducc0 was compiled for that this CPU lacks, comma-separated; "" when it
/// has them all (or nothing is checked: not x86, no ducc0). VOLFFT_TEST_DUCC0_MISSING=a,b (tests
/// only) adds a and b, as if the build used them and the CPU lacked them.
std::string ducc0_missing_instruction_sets();

}  // namespace volfft::backend
