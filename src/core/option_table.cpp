#include "core/option_table.hpp"

#include <climits>

#include "core/engines.hpp"
#include "core/hash.hpp"
#include "volfft/error.hpp"

namespace volfft::core {
namespace {

OptionValue integer(std::int64_t v) {
  OptionValue o;
  o.integer = v;
  return o;
}
OptionValue text(const std::string& s) {
  OptionValue o;
  o.text = s;
  return o;
}
template <class C>
OptionValue integers(const C& c) {
  OptionValue o;
  o.integers.assign(c.begin(), c.end());
  return o;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const EngineInfo& e : engine_catalogue()) names.push_back(e.name);
  return names;
}

constexpr std::int64_t kMaxInt = INT_MAX;

}  // namespace

const std::vector<OptionSpec>& option_table() {
  // One entry an option; the defaults are those of a default-constructed volfft::Options.
  static const std::vector<OptionSpec> table = {
      {"grid", OptionType::integers, "process grid p0 x p1; [0, 0] = automatic", true, INT_MIN, kMaxInt, 2, {},
       [](const Options& o) { return integers(o.grid); },
       [](Options& o, const OptionValue& v) { o.grid = {int(v.integers[0]), int(v.integers[1])}; }},
      {"engine", OptionType::name, "exchange engine", true, 0, 0, 0, engine_names(),
       [](const Options& o) { return integer(static_cast<int>(o.engine)); },
       [](Options& o, const OptionValue& v) { o.engine = static_cast<Engine>(v.integer); }},
      {"planes", OptionType::integer, "pipelined engine: planes per chunk (-1 = about eight chunks, 0 = no pipelining)",
       true, -1, kMaxInt, 0, {},
       [](const Options& o) { return integer(o.planes); },
       [](Options& o, const OptionValue& v) { o.planes = int(v.integer); }},
      {"max_in_flight", OptionType::integer, "pipelined engine: chunks in flight at most", true, 1, kMaxInt, 0, {},
       [](const Options& o) { return integer(o.max_in_flight); },
       [](Options& o, const OptionValue& v) { o.max_in_flight = int(v.integer); }},
      {"pipeline_p2p", OptionType::boolean, "pipelined engine: Isend/Irecv per chunk instead of MPI_Ialltoallv", true,
       0, 1, 0, {},
       [](const Options& o) { return integer(o.pipeline_p2p); },
       [](Options& o, const OptionValue& v) { o.pipeline_p2p = v.integer != 0; }},
      {"layout", OptionType::name, "memory order of the forward output", true, 0, 0, 0, {"transposed", "natural"},
       [](const Options& o) { return integer(static_cast<int>(o.layout)); },
       [](Options& o, const OptionValue& v) { o.layout = static_cast<Layout>(v.integer); }},
      {"effort", OptionType::name, "planner effort (measure/patient also time the grid and engine candidates)", true,
       0, 0, 0, {"estimate", "measure", "patient"},
       [](const Options& o) { return integer(static_cast<int>(o.effort)); },
       [](Options& o, const OptionValue& v) { o.effort = static_cast<Effort>(v.integer); }},
      {"backend", OptionType::name, "1-D FFT library (auto: timed once per plan)", true, 0, 0, 0,
       {"auto", "fftw", "ducc0"},
       [](const Options& o) { return integer(static_cast<int>(o.backend)); },
       [](Options& o, const OptionValue& v) { o.backend = static_cast<Backend>(v.integer); }},
      {"threads", OptionType::integer, "threads per rank for the FFT batches and copies", true, 1, 1024, 0, {},
       [](const Options& o) { return integer(o.threads); },
       [](Options& o, const OptionValue& v) { o.threads = int(v.integer); }},
      {"ranks_per_node", OptionType::integer, "engine node: pretend nodes of this many ranks (0 = real nodes)", true,
       0, kMaxInt, 0, {},
       [](const Options& o) { return integer(o.ranks_per_node); },
       [](Options& o, const OptionValue& v) { o.ranks_per_node = int(v.integer); }},
      {"spectral_shape", OptionType::integers, "zero-padded transforms: the kept spectral box (empty = no padding)",
       true, 1, LLONG_MAX, 0, {},
       [](const Options& o) { return integers(o.spectral_shape); },
       [](Options& o, const OptionValue& v) { o.spectral_shape = v.integers; }},
      {"batch", OptionType::integer, "fields transformed together in one call (k >= 1)", true, 1, kMaxInt, 0, {},
       [](const Options& o) { return integer(o.batch); },
       [](Options& o, const OptionValue& v) { o.batch = int(v.integer); }},
      {"batch_layout", OptionType::name, "where the batch's fields lie: outer (k arrays) or inner (interleaved)", true,
       0, 0, 0, {"outer", "inner"},
       [](const Options& o) { return integer(static_cast<int>(o.batch_layout)); },
       [](Options& o, const OptionValue& v) { o.batch_layout = static_cast<BatchLayout>(v.integer); }},
      {"kinds", OptionType::names,
       "per-axis transforms: dft, r2c (the r2c plan's last axis), dct1-4, dst1-4 (FFTW's r2r), none; empty = dft",
       true, 0, 0, 0, {"dft", "r2c", "dct1", "dct2", "dct3", "dct4", "dst1", "dst2", "dst3", "dst4", "none"},
       [](const Options& o) {
         OptionValue v;
         for (AxisKind k : o.kinds) v.integers.push_back(static_cast<int>(k));
         return v;
       },
       [](Options& o, const OptionValue& v) {
         o.kinds.clear();
         for (auto k : v.integers) o.kinds.push_back(static_cast<AxisKind>(k));
       }},
      {"scale_backward", OptionType::boolean, "backward multiplies by 1/N", true, 0, 1, 0, {},
       [](const Options& o) { return integer(o.scale_backward); },
       [](Options& o, const OptionValue& v) { o.scale_backward = v.integer != 0; }},
      {"scale_forward", OptionType::boolean, "forward multiplies by 1/N (numpy's norm=\"forward\" with scale_backward off)",
       true, 0, 1, 0, {},
       [](const Options& o) { return integer(o.scale_forward); },
       [](Options& o, const OptionValue& v) { o.scale_forward = v.integer != 0; }},
      {"in_place", OptionType::boolean, "forward(a, a)/backward(a, a) on one array (r2c: rows padded to 2(n/2+1) reals)",
       true, 0, 1, 0, {},
       [](const Options& o) { return integer(o.in_place); },
       [](Options& o, const OptionValue& v) { o.in_place = v.integer != 0; }},
      {"min_memory", OptionType::boolean,
       "hold the buffers only: engine auto -> alltoallw, FFTs planned without arrays (FFTW: estimated)", true, 0, 1, 0,
       {},
       [](const Options& o) { return integer(o.min_memory); },
       [](Options& o, const OptionValue& v) { o.min_memory = v.integer != 0; }},
      {"destroy_input", OptionType::boolean,
       "an out-of-place call may overwrite its input (FFTW_DESTROY_INPUT; at one rank an r2c backward is one c2r plan)", true, 0, 1,
       0, {},
       [](const Options& o) { return integer(o.destroy_input); },
       [](Options& o, const OptionValue& v) { o.destroy_input = v.integer != 0; }},
      {"rank_order", OptionType::integers, "placement: rank taking virtual grid position g (empty = identity)", true,
       INT_MIN, kMaxInt, 0, {},
       [](const Options& o) { return integers(o.rank_order); },
       [](Options& o, const OptionValue& v) { o.rank_order.assign(v.integers.begin(), v.integers.end()); }},
      {"map_file", OptionType::text, "placement from a map file (with coordinate)", true, 0, 0, 0, {},
       [](const Options& o) { return text(o.map_file); },
       [](Options& o, const OptionValue& v) { o.map_file = v.text; }},
      {"coordinate", OptionType::integers, "this rank's physical coordinate (with map_file; differs per rank)", false,
       INT_MIN, kMaxInt, 0, {},
       [](const Options& o) { return integers(o.coordinate); },
       [](Options& o, const OptionValue& v) { o.coordinate.assign(v.integers.begin(), v.integers.end()); }},
      {"tune", OptionType::integer,
       "seconds the planner may spend timing candidate grids and engines (0 = choose by rule)", true, 0, 86400, 0,
       {},
       [](const Options& o) { return integer(o.tune); },
       [](Options& o, const OptionValue& v) { o.tune = int(v.integer); }},
      {"wisdom_file", OptionType::text, "file of earlier tuning choices (also VOLFFT_WISDOM)", true, 0, 0, 0, {},
       [](const Options& o) { return text(o.wisdom_file); },
       [](Options& o, const OptionValue& v) { o.wisdom_file = v.text; }},
      {"verbose", OptionType::boolean, "print the tuning table on rank 0", false, 0, 1, 0, {},
       [](const Options& o) { return integer(o.verbose); },
       [](Options& o, const OptionValue& v) { o.verbose = v.integer != 0; }},
  };
  return table;
}

const OptionSpec* find_option(const std::string& name) {
  for (const OptionSpec& s : option_table())
    if (name == s.name) return &s;
  return nullptr;
}

std::string option_names() {
  std::string all;
  for (const OptionSpec& s : option_table()) all += (all.empty() ? "" : ", ") + std::string(s.name);
  return all;
}

std::string value_text(const OptionSpec& spec, const OptionValue& v) {
  switch (spec.type) {
    case OptionType::integer: return std::to_string(v.integer);
    case OptionType::boolean: return v.integer ? "true" : "false";
    case OptionType::name:
      if (v.integer >= 0 && v.integer < static_cast<std::int64_t>(spec.names.size()))
        return "'" + spec.names[static_cast<std::size_t>(v.integer)] + "'";
      return "(enum value " + std::to_string(v.integer) + ")";
    case OptionType::text: return "'" + v.text + "'";
    case OptionType::integers: {
      std::string s = "[";
      for (std::size_t k = 0; k < v.integers.size(); ++k) s += (k ? ", " : "") + std::to_string(v.integers[k]);
      return s + "]";
    }
    case OptionType::names: {
      std::string s = "[";
      for (std::size_t k = 0; k < v.integers.size(); ++k) {
        const auto i = v.integers[k];
        s += (k ? ", " : "") + (i >= 0 && i < static_cast<std::int64_t>(spec.names.size())
                                    ? "'" + spec.names[static_cast<std::size_t>(i)] + "'"
                                    : "(enum value " + std::to_string(i) + ")");
      }
      return s + "]";
    }
  }
  return "?";
}

void check_option(const OptionSpec& spec, const OptionValue& v) {
  const std::string name = std::string("volfft: ") + spec.name;
  auto bounds = [&] {
    if (spec.lowest == INT_MIN || spec.lowest == LLONG_MIN) return "<= " + std::to_string(spec.highest);
    if (spec.highest == kMaxInt || spec.highest == LLONG_MAX) return ">= " + std::to_string(spec.lowest);
    return "between " + std::to_string(spec.lowest) + " and " + std::to_string(spec.highest);
  };
  switch (spec.type) {
    case OptionType::integer:
    case OptionType::boolean:
      if (v.integer < spec.lowest || v.integer > spec.highest)
        throw Error(name + " must be an integer " + bounds() + "; got " + std::to_string(v.integer));
      return;
    case OptionType::name:
      if (v.integer < 0 || v.integer >= static_cast<std::int64_t>(spec.names.size())) {
        std::string accepted;
        for (std::size_t k = 0; k < spec.names.size(); ++k) accepted += (k ? ", '" : "'") + spec.names[k] + "'";
        throw Error(name + " must be one of " + accepted + "; got " + value_text(spec, v));
      }
      return;
    case OptionType::text: return;
    case OptionType::integers:
      if (spec.length > 0 && static_cast<int>(v.integers.size()) != spec.length)
        throw Error(name + " must have " + std::to_string(spec.length) + " entries; got " + value_text(spec, v));
      for (std::size_t k = 0; k < v.integers.size(); ++k)
        if (v.integers[k] < spec.lowest || v.integers[k] > spec.highest)
          throw Error(name + "[" + std::to_string(k) + "] must be " + bounds() + "; got " +
                      std::to_string(v.integers[k]));
      return;
    case OptionType::names:
      for (std::size_t k = 0; k < v.integers.size(); ++k)
        if (v.integers[k] < 0 || v.integers[k] >= static_cast<std::int64_t>(spec.names.size())) {
          std::string accepted;
          for (std::size_t q = 0; q < spec.names.size(); ++q) accepted += (q ? ", '" : "'") + spec.names[q] + "'";
          throw Error(name + "[" + std::to_string(k) + "] must be one of " + accepted + "; got enum value " +
                      std::to_string(v.integers[k]));
        }
      return;
  }
}

std::int64_t name_index(const OptionSpec& spec, const std::string& text) {
  for (std::size_t k = 0; k < spec.names.size(); ++k)
    if (spec.names[k] == text) return static_cast<std::int64_t>(k);
  std::string accepted;
  for (std::size_t k = 0; k < spec.names.size(); ++k) accepted += (k ? ", '" : "'") + spec.names[k] + "'";
  throw Error(std::string("volfft: ") + spec.name + " must be one of " + accepted + "; got '" + text + "'");
}

void set_option(Options& options, const OptionSpec& spec, const OptionValue& value) {
  check_option(spec, value);
  spec.set(options, value);
}

std::uint64_t option_hash(const OptionSpec& spec, const Options& options) {
  const OptionValue v = spec.get(options);
  Fnv1a h;
  h.mix(static_cast<std::uint64_t>(v.integer));
  for (unsigned char c : v.text) h.mix(c);
  h.mix(v.integers.size());
  for (auto x : v.integers) h.mix(static_cast<std::uint64_t>(x));
  return h.value;
}

}  // namespace volfft::core
