// The library's JSON writer and reader (src/tune/json.cpp; wisdom files, volfft-bench's JSON):
// every control character in a string is written escaped, as strict readers require (FFTW's plan
// texts in volfft-bench's JSON hold newlines; tests/python/test_plan_bench_cli.py reads them with
// Python's json), and reads back as it was; a \u escape beyond ASCII is refused with its reason.
#include <string>

#include "tune/json.hpp"
#include "unit/unit_main.hpp"

using volfft::tune::Json;
using volfft::tune::parse_json;
using namespace volfft_test;

namespace {

void control_characters_round_trip() {
  std::string text = "(dft-rank>=2/1\n\t(\"n1fv_128_avx\" \\ x)";
  for (char c = 1; c < 0x20; ++c) text += c;
  const std::string written = Json::of(text).dump();
  bool raw_control = false;
  for (char c : written) raw_control = raw_control || static_cast<unsigned char>(c) < 0x20;
  CHECK_MSG(!raw_control, "a control character was written raw: " << written);
  CHECK_MSG(written.find("\\n") != std::string::npos && written.find("\\t") != std::string::npos &&
                written.find("\\u0001") != std::string::npos && written.find("\\u001f") != std::string::npos,
            "not escaped as JSON names them: " << written);
  CHECK_MSG(parse_json(written).string == text, "read back as '" << parse_json(written).string << "'");
}

// JSON's named escapes as another writer (Python's json) uses them; a letter JSON does not name
// is refused (\r was once read as an 'r').
void named_escapes() {
  const std::string read = parse_json("\"a\\rb\\fc\\bd\\/e\\\"f\\\\g\\nh\\ti\"").string;
  CHECK_MSG(read == "a\rb\fc\bd/e\"f\\g\nh\ti", "named escapes read as '" << read << "'");
  CHECK_THROWS_WITH(parse_json("\"\\x\""), "bad escape");
}

void wide_unicode_escape_refused() {
  CHECK_THROWS_WITH(parse_json("\"\\u00e9\""), "only \\u0000-\\u007f");
  CHECK_THROWS_WITH(parse_json("\"\\u7\""), "only \\u0000-\\u007f");
}

}  // namespace

int main() {
  return run_unit_tests("json", {{"control characters round trip", control_characters_round_trip},
                                 {"named escapes", named_escapes},
                                 {"wide unicode escape refused", wide_unicode_escape_refused}});
}
