// Python values -> volfft::Options, one option at a time through the library's option table
// (src/core/option_table.hpp): the binding converts types only; names, bounds and messages
// are the library's.
#include <nanobind/stl/string.h>

#include "bindings.hpp"
#include "core/option_table.hpp"
#include "volfft/error.hpp"

namespace volfft_python {
namespace {

using volfft::core::OptionSpec;
using volfft::core::OptionType;
using volfft::core::OptionValue;

[[noreturn]] void wrong_type(const OptionSpec& spec, const char* expected, nb::handle value) {
  throw nb::type_error((std::string(spec.name) + ": expected " + expected + ", got " +
                        nb::cast<std::string>(nb::repr(value)))
                           .c_str());
}

std::int64_t integer_of(const OptionSpec& spec, nb::handle v, const char* expected) {
  // bool is an int in Python; an option that wants a number does not take True.
  if (nb::isinstance<nb::bool_>(v) || !nb::isinstance<nb::int_>(v)) wrong_type(spec, expected, v);
  try {
    return nb::cast<std::int64_t>(v);
  } catch (const nb::cast_error&) {
    throw volfft::Error(std::string("volfft: ") + spec.name + " is out of range; got " +
                        nb::cast<std::string>(nb::repr(v)));
  }
}

OptionValue value_of(const OptionSpec& spec, nb::handle v) {
  OptionValue o;
  switch (spec.type) {
    case OptionType::integer: o.integer = integer_of(spec, v, "an int"); break;
    case OptionType::boolean:
      if (!nb::isinstance<nb::bool_>(v)) wrong_type(spec, "True or False", v);
      o.integer = nb::cast<bool>(v) ? 1 : 0;
      break;
    case OptionType::name:
      if (!nb::isinstance<nb::str>(v)) wrong_type(spec, "a string", v);
      o.integer = volfft::core::name_index(spec, nb::cast<std::string>(v));
      break;
    case OptionType::text:
      if (!nb::isinstance<nb::str>(v)) wrong_type(spec, "a string", v);
      o.text = nb::cast<std::string>(v);
      break;
    case OptionType::integers:
      if (nb::isinstance<nb::str>(v) || !nb::isinstance<nb::sequence>(v)) wrong_type(spec, "a sequence of ints", v);
      for (nb::handle item : nb::borrow<nb::sequence>(v))
        o.integers.push_back(integer_of(spec, item, "a sequence of ints"));
      break;
    case OptionType::names:
      if (nb::isinstance<nb::str>(v) || !nb::isinstance<nb::sequence>(v)) wrong_type(spec, "a sequence of strings", v);
      for (nb::handle item : nb::borrow<nb::sequence>(v)) {
        if (!nb::isinstance<nb::str>(item)) wrong_type(spec, "a sequence of strings", v);
        o.integers.push_back(volfft::core::name_index(spec, nb::cast<std::string>(item)));
      }
      break;
  }
  return o;
}

}  // namespace

volfft::Options options_from(const nb::dict& given) {
  volfft::Options options;
  for (auto [key, value] : given) {
    const std::string name = nb::cast<std::string>(key);
    const OptionSpec* spec = volfft::core::find_option(name);
    if (!spec)
      throw nb::type_error(("unexpected option '" + name + "'; the options are: " + volfft::core::option_names())
                               .c_str());
    volfft::core::set_option(options, *spec, value_of(*spec, value));
  }
  return options;
}

nb::list option_specs() {
  const volfft::Options defaults;
  nb::list specs;
  for (const OptionSpec& s : volfft::core::option_table()) {
    static const char* const types[] = {"integer", "boolean", "name", "text", "integers", "names"};
    nb::dict d;
    d["name"] = s.name;
    d["type"] = types[static_cast<int>(s.type)];
    d["doc"] = s.doc;
    d["agreed"] = s.agreed;
    d["default"] = volfft::core::value_text(s, s.get(defaults));
    nb::list names;
    for (const auto& n : s.names) names.append(n);
    d["names"] = names;
    specs.append(d);
  }
  return specs;
}

}  // namespace volfft_python
