// A small JSON value with a strict parser and a writer: enough for wisdom files, no more.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace volfft::tune {

struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;

  static Json of(double v) { Json j; j.type = Type::number; j.number = v; return j; }
  static Json of(const std::string& v) { Json j; j.type = Type::string; j.string = v; return j; }
  static Json list() { Json j; j.type = Type::array; return j; }
  static Json dict() { Json j; j.type = Type::object; return j; }

  /// Member lookup: nullptr when this is not an object or has no such member.
  const Json* get(const std::string& key) const;
  std::string dump(int indent = 0) const;
};

/// Throws std::runtime_error with the position of the first syntax error.
Json parse_json(const std::string& text);

}  // namespace volfft::tune
