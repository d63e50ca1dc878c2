// Compiled with the ducc0 sources' flags (cmake/ducc0.cmake): the compiler's predefined macros
// here are those of ducc0's -march. The table is a constant (no code runs to make it), so that
// reading it is safe on a CPU that lacks what the flags allow, which is what the caller checks.
#include "backend/ducc_target.hpp"

namespace volfft::backend {
namespace {

// Whether a feature macro is set: GCC and Clang define each as 1; an undefined one stays its own
// name, whose text is not "1".
#define VOLFFT_SET(macro) VOLFFT_SET_TEXT(macro)
#define VOLFFT_SET_TEXT(value) (#value[0] == '1' && #value[1] == '\0')

#if defined(__x86_64__) || defined(__i386__)
constexpr InstructionSet kCompiled[] = {
    {"sse3", VOLFFT_SET(__SSE3__)},
    {"ssse3", VOLFFT_SET(__SSSE3__)},
    {"sse4.1", VOLFFT_SET(__SSE4_1__)},
    {"sse4.2", VOLFFT_SET(__SSE4_2__)},
    {"sse4a", VOLFFT_SET(__SSE4A__)},
    {"popcnt", VOLFFT_SET(__POPCNT__)},
    {"aes", VOLFFT_SET(__AES__)},
    {"pclmul", VOLFFT_SET(__PCLMUL__)},
    {"avx", VOLFFT_SET(__AVX__)},
    {"avx2", VOLFFT_SET(__AVX2__)},
    {"fma", VOLFFT_SET(__FMA__)},
    {"bmi", VOLFFT_SET(__BMI__)},
    {"bmi2", VOLFFT_SET(__BMI2__)},
    {"gfni", VOLFFT_SET(__GFNI__)},
    {"vpclmulqdq", VOLFFT_SET(__VPCLMULQDQ__)},
    {"avx512f", VOLFFT_SET(__AVX512F__)},
    {"avx512vl", VOLFFT_SET(__AVX512VL__)},
    {"avx512bw", VOLFFT_SET(__AVX512BW__)},
    {"avx512dq", VOLFFT_SET(__AVX512DQ__)},
    {"avx512cd", VOLFFT_SET(__AVX512CD__)},
    {"avx512vbmi", VOLFFT_SET(__AVX512VBMI__)},
    {"avx512vbmi2", VOLFFT_SET(__AVX512VBMI2__)},
    {"avx512ifma", VOLFFT_SET(__AVX512IFMA__)},
    {"avx512vnni", VOLFFT_SET(__AVX512VNNI__)},
    {"avx512bitalg", VOLFFT_SET(__AVX512BITALG__)},
    {"avx512vpopcntdq", VOLFFT_SET(__AVX512VPOPCNTDQ__)},
    {"avx512bf16", VOLFFT_SET(__AVX512BF16__)},
};
constexpr int kCount = sizeof kCompiled / sizeof kCompiled[0];
#else
constexpr InstructionSet* kCompiled = nullptr;
constexpr int kCount = 0;
#endif
#if defined(__x86_64__)
static_assert(VOLFFT_SET(__SSE2__) && !VOLFFT_SET(VOLFFT_NO_SUCH_FEATURE), "VOLFFT_SET reads the macros as intended");
#endif

#undef VOLFFT_SET
#undef VOLFFT_SET_TEXT

}  // namespace

const InstructionSet* ducc0_instruction_sets(int& count) {
  count = kCount;
  return kCompiled;
}

}  // namespace volfft::backend
