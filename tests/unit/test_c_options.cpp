// The C API's options struct carries every option of the option table: each option, set to a
// value other than its default, survives volfft::Options -> volfft_options -> volfft::Options.
// An option added to the table (and so to C++ and Python) but not to volfft.h fails here, by
// name. The C defaults are the C++ ones.
#include <string>

#include "capi/options_c.hpp"
#include "core/option_table.hpp"
#include "unit/unit_main.hpp"

using namespace volfft;
using core::OptionSpec;
using core::OptionType;
using core::OptionValue;

namespace {

// A valid value of `spec` that differs from its default.
OptionValue another_value(const OptionSpec& spec) {
  OptionValue v = spec.get(Options{});
  switch (spec.type) {
    case OptionType::integer:
      v.integer = v.integer < spec.highest ? v.integer + 1 : v.integer - 1;
      break;
    case OptionType::boolean:
      v.integer = v.integer ? 0 : 1;
      break;
    case OptionType::name:
      v.integer = (v.integer + 1) % static_cast<std::int64_t>(spec.names.size());
      break;
    case OptionType::text:
      v.text = v.text + "volfft-test-path";
      break;
    case OptionType::integers: {
      const std::size_t n = spec.length > 0 ? static_cast<std::size_t>(spec.length) : 3;
      v.integers.assign(n, 0);
      for (std::size_t k = 0; k < n; ++k)
        v.integers[k] = std::max<std::int64_t>(spec.lowest, 1) + static_cast<std::int64_t>(k);
      break;
    }
    case OptionType::names:
      v.integers = {2, 0, static_cast<std::int64_t>(spec.names.size()) - 1};  // three different names
      break;
  }
  return v;
}

void every_option_survives_the_c_struct() {
  for (const OptionSpec& spec : core::option_table()) {
    Options given;
    core::set_option(given, spec, another_value(spec));
    CHECK_MSG(core::option_hash(spec, given) != core::option_hash(spec, Options{}),
              spec.name << ": the test's value equals the default");
    std::vector<int> kinds;
    const Options back = capi::from_c(capi::to_c(given, kinds));
    CHECK_MSG(core::option_hash(spec, back) == core::option_hash(spec, given),
              "option '" << spec.name << "' is lost on its way through volfft_options (volfft.h): it reads "
                         << core::value_text(spec, spec.get(back)) << " instead of "
                         << core::value_text(spec, spec.get(given)));
  }
}

void c_defaults_are_the_cpp_defaults() {
  volfft_options c;
  volfft_options_default(&c);
  const Options back = capi::from_c(c);
  for (const OptionSpec& spec : core::option_table())
    CHECK_MSG(core::option_hash(spec, back) == core::option_hash(spec, Options{}),
              "volfft_options_default: option '" << spec.name << "' differs from volfft::Options'");
  CHECK(c.workspace == nullptr && c.workspace_bytes == 0);
}

}  // namespace

int main() {
  return volfft_test::run_unit_tests("test_unit_c_options",
                                     {{"every_option_survives_the_c_struct", every_option_survives_the_c_struct},
                                      {"c_defaults_are_the_cpp_defaults", c_defaults_are_the_cpp_defaults}});
}
