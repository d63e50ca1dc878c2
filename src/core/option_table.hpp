// Every plan option described once: name, type, default (that of volfft::Options), bounds,
// whether it must agree across ranks, and how to read and write it. Validation, the argument
// agreement, the C API defaults, the Python bindings and the Python keyword list are derived
// from this table (src/core/option_table.cpp). Pure: no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "volfft/options.hpp"

namespace volfft::core {

enum class OptionType {
  integer,   ///< a whole number in [lowest, highest]
  boolean,
  name,      ///< one of `names` (an enum); the value's integer is the index
  text,      ///< a string (a path)
  integers,  ///< a list of whole numbers, each in [lowest, highest]; `length` entries if > 0
  names,     ///< a list of `names` (enums); each value's integer is its index
};

/// A value of any option type: integer/boolean/name use `integer` (name: its index), text uses
/// `text`, integers and names use `integers` (names: their indices).
struct OptionValue {
  std::int64_t integer = 0;
  std::string text;
  std::vector<std::int64_t> integers;
};

struct OptionSpec {
  const char* name;
  OptionType type;
  const char* doc;
  bool agreed;  ///< must be equal on every rank (part of Plan's argument agreement)
  std::int64_t lowest, highest;
  int length;   ///< integers: fixed number of entries (0 = any)
  std::vector<std::string> names;
  OptionValue (*get)(const Options&);
  void (*set)(Options&, const OptionValue&);
};

/// The options, in the order of volfft::Options. Options::workspace/workspace_bytes (a pointer,
/// C++ and C only) are not in the table: they are per rank and checked by Plan itself.
const std::vector<OptionSpec>& option_table();
/// nullptr when there is no option of that name.
const OptionSpec* find_option(const std::string& name);
/// All option names, comma-separated (for "unknown option" messages).
std::string option_names();

/// The value as a user would write it: 4, true, 'node', [2, 2].
std::string value_text(const OptionSpec& spec, const OptionValue& value);
/// Throws volfft::Error naming the option and what it accepts when `value` is out of range.
void check_option(const OptionSpec& spec, const OptionValue& value);
/// The index of `text` among a name option's names; throws volfft::Error listing them.
std::int64_t name_index(const OptionSpec& spec, const std::string& text);
/// check_option, then stores the value.
void set_option(Options& options, const OptionSpec& spec, const OptionValue& value);
/// A hash of the option's value (agreement across ranks compares these).
std::uint64_t option_hash(const OptionSpec& spec, const Options& options);

}  // namespace volfft::core
