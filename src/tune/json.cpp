#include "tune/json.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace volfft::tune {
namespace {

struct Parser {
  const std::string& s;
  std::size_t i = 0;

  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string(what) + " at offset " + std::to_string(i));
  }
  void space() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool eat(char c) {
    space();
    if (i < s.size() && s[i] == c) return ++i, true;
    return false;
  }
  Json value(int depth) {
    if (depth > 64) fail("nesting too deep");
    space();
    if (i >= s.size()) fail("unexpected end");
    const char c = s[i];
    if (c == '{') {
      ++i;
      Json j = Json::dict();
      if (eat('}')) return j;
      do {
        space();
        if (i >= s.size() || s[i] != '"') fail("expected a string key");
        std::string key = str();
        if (!eat(':')) fail("expected ':'");
        j.object[key] = value(depth + 1);
      } while (eat(','));
      if (!eat('}')) fail("expected '}'");
      return j;
    }
    if (c == '[') {
      ++i;
      Json j = Json::list();
      if (eat(']')) return j;
      do j.array.push_back(value(depth + 1));
      while (eat(','));
      if (!eat(']')) fail("expected ']'");
      return j;
    }
    if (c == '"') return Json::of(str());
    if (s.compare(i, 4, "true") == 0) { i += 4; Json j; j.type = Json::Type::boolean; j.boolean = true; return j; }
    if (s.compare(i, 5, "false") == 0) { i += 5; Json j; j.type = Json::Type::boolean; return j; }
    if (s.compare(i, 4, "null") == 0) { i += 4; return Json(); }
    const char* start = s.c_str() + i;
    char* end = nullptr;
    const double v = std::strtod(start, &end);
    if (end == start) fail("unexpected character");
    i += static_cast<std::size_t>(end - start);
    return Json::of(v);
  }
  std::string str() {
    ++i;  // opening quote
    std::string out;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        if (++i >= s.size()) fail("bad escape");
        const char e = s[i];
        if (e == 'u') {  // \u00XX: the control characters quote() writes so; nothing wider
          const bool four_hex = i + 4 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
                                std::isxdigit(static_cast<unsigned char>(s[i + 2])) &&
                                std::isxdigit(static_cast<unsigned char>(s[i + 3])) &&
                                std::isxdigit(static_cast<unsigned char>(s[i + 4]));
          const unsigned long code = four_hex ? std::strtoul(s.substr(i + 1, 4).c_str(), nullptr, 16) : 0x80;
          if (code >= 0x80) fail("unsupported \\u escape (only \\u0000-\\u007f)");
          out += static_cast<char>(code);
          i += 5;
          continue;
        }
        // JSON's named escapes; any other letter is not JSON (it was once read as itself, so a
        // \r from another writer became an 'r').
        static const std::string named = "\"\\/bfnrt", meaning = "\"\\/\b\f\n\r\t";
        const std::size_t k = named.find(e);
        if (k == std::string::npos) fail("bad escape (JSON's are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        out += meaning[k];
      } else {
        out += s[i];
      }
      ++i;
    }
    if (i >= s.size()) fail("unterminated string");
    ++i;
    return out;
  }
};

// Control characters as JSON requires them escaped (\n and \t by name, the others \u00XX), so
// that strict readers (Python's json) take the text too: FFTW's plan texts in volfft-bench's JSON
// hold newlines.
std::string quote(const std::string& v) {
  std::string o = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') { o += "\\n"; continue; }
    if (c == '\t') { o += "\\t"; continue; }
    if (static_cast<unsigned char>(c) < 0x20) {
      char u[8];
      std::snprintf(u, sizeof u, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      o += u;
      continue;
    }
    o += c;
  }
  return o + "\"";
}

}  // namespace

const Json* Json::get(const std::string& key) const {
  if (type != Type::object) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

std::string Json::dump(int indent) const {
  const std::string pad(indent + 2, ' '), end(indent, ' ');
  switch (type) {
    case Type::null: return "null";
    case Type::boolean: return boolean ? "true" : "false";
    case Type::number: {
      char b[32];
      std::snprintf(b, sizeof b, "%.10g", number);
      return b;
    }
    case Type::string: return quote(string);
    case Type::array: {
      std::string o = "[";
      for (std::size_t k = 0; k < array.size(); ++k) o += (k ? ", " : "") + array[k].dump(indent + 2);
      return o + "]";
    }
    case Type::object: {
      std::string o = "{";
      bool first = true;
      for (const auto& [k, v] : object) {
        o += (first ? "\n" : ",\n") + pad + quote(k) + ": " + v.dump(indent + 2);
        first = false;
      }
      return o + (first ? "}" : "\n" + end + "}");
    }
  }
  return "null";
}

Json parse_json(const std::string& text) {
  Parser p{text};
  Json j = p.value(0);
  p.space();
  if (p.i != text.size()) p.fail("trailing characters");
  return j;
}

}  // namespace volfft::tune
