// Names of the option values, for messages, the C API, the CLI and Python. The names of the
// enums that are plan options come from the option table (core/option_table.cpp).
#include "volfft/options.hpp"

#include "core/engines.hpp"
#include "core/option_table.hpp"
#include "volfft/error.hpp"

namespace volfft {
namespace {

const core::OptionSpec& spec(const char* name) { return *core::find_option(name); }

const char* name_of(const char* option, int value) {
  const auto& names = spec(option).names;
  if (value < 0 || value >= static_cast<int>(names.size())) return "(invalid)";
  return names[static_cast<std::size_t>(value)].c_str();
}

}  // namespace

const char* to_string(Kind v) { return v == Kind::r2c ? "r2c" : v == Kind::r2r ? "r2r" : "c2c"; }
const char* to_string(Precision v) { return v == Precision::float32 ? "float" : "double"; }
const char* to_string(Engine v) { return name_of("engine", static_cast<int>(v)); }
const char* to_string(Layout v) { return name_of("layout", static_cast<int>(v)); }
const char* to_string(Effort v) { return name_of("effort", static_cast<int>(v)); }
const char* to_string(Backend v) { return name_of("backend", static_cast<int>(v)); }
const char* to_string(AxisKind v) { return name_of("kinds", static_cast<int>(v)); }
const char* to_string(BatchLayout v) { return name_of("batch_layout", static_cast<int>(v)); }

std::vector<Engine> engines() {
  std::vector<Engine> all;
  for (const core::EngineInfo& e : core::engine_catalogue()) all.push_back(e.id);
  return all;
}
const char* summary(Engine v) { return core::engine_info(v).summary; }

Kind parse_kind(const std::string& s) {
  if (s == "c2c") return Kind::c2c;
  if (s == "r2c") return Kind::r2c;
  if (s == "r2r") return Kind::r2r;
  throw Error("volfft: kind must be one of 'c2c', 'r2c', 'r2r'; got '" + s + "'");
}
Precision parse_precision(const std::string& s) {
  if (s == "single" || s == "float32" || s == "float") return Precision::float32;
  if (s == "float64" || s == "double") return Precision::float64;
  throw Error("volfft: precision must be one of 'double', 'float'; got '" + s + "'");
}
Engine parse_engine(const std::string& s) { return static_cast<Engine>(core::name_index(spec("engine"), s)); }
Layout parse_layout(const std::string& s) { return static_cast<Layout>(core::name_index(spec("layout"), s)); }
Effort parse_effort(const std::string& s) { return static_cast<Effort>(core::name_index(spec("effort"), s)); }
Backend parse_backend(const std::string& s) { return static_cast<Backend>(core::name_index(spec("backend"), s)); }
AxisKind parse_axis_kind(const std::string& s) { return static_cast<AxisKind>(core::name_index(spec("kinds"), s)); }
BatchLayout parse_batch_layout(const std::string& s) {
  return static_cast<BatchLayout>(core::name_index(spec("batch_layout"), s));
}

}  // namespace volfft
