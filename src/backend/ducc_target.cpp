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
#define VOLFFT_ENTRY(name, macro) {name, VOLFFT_SET(macro)},
constexpr InstructionSet kCompiled[] = {VOLFFT_X86_INSTRUCTION_SETS(VOLFFT_ENTRY)};
#undef VOLFFT_ENTRY
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
