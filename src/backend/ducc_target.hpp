// The instruction sets the ducc0 sources were compiled for, against those of the CPU a rank runs
// on. cmake/ducc0.cmake compiles them with -march=native by default (ducc0 vectorises across
// transforms with the SIMD width it is compiled for), so a library built on a login node with
// AVX-512 and run on compute nodes without it would stop with SIGILL inside ducc0. Plans check
// first (backend::backend_problem): backend auto then takes FFTW, backend ducc0 is refused by
// name.
#pragma once

#include <string>

namespace volfft::backend {

/// The x86 extensions checked: X(name, macro) with the name GCC's and Clang's
/// __builtin_cpu_supports take and the compiler's predefined macro (one list for the table of
/// ducc_target.cpp and the CPU's check in select.cpp, which needs the names as literals).
#define VOLFFT_X86_INSTRUCTION_SETS(X)                                                                     \
  X("sse3", __SSE3__) X("ssse3", __SSSE3__) X("sse4.1", __SSE4_1__) X("sse4.2", __SSE4_2__)                \
  X("sse4a", __SSE4A__) X("popcnt", __POPCNT__) X("aes", __AES__) X("pclmul", __PCLMUL__) X("avx", __AVX__) \
  X("avx2", __AVX2__) X("fma", __FMA__) X("bmi", __BMI__) X("bmi2", __BMI2__) X("gfni", __GFNI__)          \
  X("vpclmulqdq", __VPCLMULQDQ__) X("avx512f", __AVX512F__) X("avx512vl", __AVX512VL__)                    \
  X("avx512bw", __AVX512BW__) X("avx512dq", __AVX512DQ__) X("avx512cd", __AVX512CD__)                      \
  X("avx512vbmi", __AVX512VBMI__) X("avx512vbmi2", __AVX512VBMI2__) X("avx512ifma", __AVX512IFMA__)        \
  X("avx512vnni", __AVX512VNNI__) X("avx512bitalg", __AVX512BITALG__)                                      \
  X("avx512vpopcntdq", __AVX512VPOPCNTDQ__) X("avx512bf16", __AVX512BF16__)

/// An x86 extension (its __builtin_cpu_supports name), and whether the ducc0 sources were
/// compiled for it.
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
