// Names of the option values, for messages, the C API, the CLI and Python.
#include "volfft/options.hpp"

#include "volfft/error.hpp"

namespace volfft {
namespace {

template <class E, std::size_t N>
E parse_name(const std::string& text, const char* argument, const char* const (&names)[N],
             const E (&values)[N]) {
  std::string accepted;
  for (std::size_t k = 0; k < N; ++k) {
    if (text == names[k]) return values[k];
    accepted += (k ? ", " : "") + std::string("'") + names[k] + "'";
  }
  throw Error(std::string("volfft: ") + argument + " must be one of " + accepted +
                              "; got '" + text + "'");
}

const char* const kKindNames[] = {"c2c", "r2c"};
const Kind kKinds[] = {Kind::c2c, Kind::r2c};
const char* const kPrecisionNames[] = {"double", "float"};
const Precision kPrecisions[] = {Precision::float64, Precision::float32};
const char* const kEngineNames[] = {"auto", "alltoallv", "alltoall", "alltoallw", "p2p",
                                   "pipelined", "persistent", "node"};
const Engine kEngines[] = {Engine::automatic, Engine::alltoallv, Engine::alltoall,
                           Engine::alltoallw, Engine::p2p, Engine::pipelined, Engine::persistent,
                           Engine::node};
const char* const kLayoutNames[] = {"transposed", "natural"};
const Layout kLayouts[] = {Layout::transposed, Layout::natural};
const char* const kEffortNames[] = {"estimate", "measure", "patient"};
const Effort kEfforts[] = {Effort::estimate, Effort::measure, Effort::patient};
const char* const kBackendNames[] = {"auto", "fftw", "ducc0"};
const Backend kBackends[] = {Backend::automatic, Backend::fftw, Backend::ducc0};

}  // namespace

const char* to_string(Kind v) { return kKindNames[static_cast<int>(v)]; }
const char* to_string(Precision v) { return kPrecisionNames[static_cast<int>(v)]; }
const char* to_string(Engine v) { return kEngineNames[static_cast<int>(v)]; }
const char* to_string(Layout v) { return kLayoutNames[static_cast<int>(v)]; }
const char* to_string(Effort v) { return kEffortNames[static_cast<int>(v)]; }
const char* to_string(Backend v) { return kBackendNames[static_cast<int>(v)]; }

Kind parse_kind(const std::string& s) { return parse_name(s, "kind", kKindNames, kKinds); }
Precision parse_precision(const std::string& s) {
  if (s == "single" || s == "float32") return Precision::float32;
  if (s == "float64") return Precision::float64;
  return parse_name(s, "precision", kPrecisionNames, kPrecisions);
}
Engine parse_engine(const std::string& s) {
  return parse_name(s, "engine", kEngineNames, kEngines);
}
Layout parse_layout(const std::string& s) {
  return parse_name(s, "layout", kLayoutNames, kLayouts);
}
Effort parse_effort(const std::string& s) {
  return parse_name(s, "effort", kEffortNames, kEfforts);
}
Backend parse_backend(const std::string& s) {
  return parse_name(s, "backend", kBackendNames, kBackends);
}

}  // namespace volfft
