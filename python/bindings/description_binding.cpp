// PlanDescription -> Python dict, and the pure volfft::describe() (no MPI communicator).
// Per-rank tables (boxes, messages) become int64 numpy arrays: a 64x64 grid has ~10^5 messages.
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "volfft/description.hpp"

namespace volfft_python {

namespace {

using Int64Array = nb::ndarray<nb::numpy, std::int64_t>;

// Hands `values` to numpy without copying; the capsule frees it with the array.
Int64Array to_numpy(std::vector<std::int64_t>&& values, std::initializer_list<std::size_t> shape) {
  auto* owned = new std::vector<std::int64_t>(std::move(values));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<std::vector<std::int64_t>*>(p); });
  return Int64Array(owned->data(), shape, owner);
}

// (P, 2, 3): [rank][lo/hi][axis]
Int64Array boxes_to_numpy(const std::vector<volfft::Box>& boxes) {
  std::vector<std::int64_t> flat;
  flat.reserve(boxes.size() * 6);
  for (const auto& b : boxes) {
    flat.insert(flat.end(), b.lo.begin(), b.lo.end());
    flat.insert(flat.end(), b.hi.begin(), b.hi.end());
  }
  return to_numpy(std::move(flat), {boxes.size(), 2, 3});
}

// (M, 3): source, destination, bytes
Int64Array messages_to_numpy(const std::vector<volfft::Message>& messages) {
  std::vector<std::int64_t> flat;
  flat.reserve(messages.size() * 3);
  for (const auto& msg : messages) {
    flat.push_back(msg.source);
    flat.push_back(msg.destination);
    flat.push_back(msg.bytes);
  }
  return to_numpy(std::move(flat), {messages.size(), 3});
}

}  // namespace

nb::dict description_to_dict(const volfft::PlanDescription& d) {
  nb::dict r;
  r["ndim"] = d.ndim;
  r["shape"] = nb::cast(d.shape);
  r["kind"] = std::string(volfft::to_string(d.kind));
  r["precision"] = std::string(volfft::to_string(d.precision));
  r["grid"] = nb::cast(d.grid);
  r["engine"] = std::string(volfft::to_string(d.engine));
  r["layout"] = std::string(volfft::to_string(d.layout));
  r["element_bytes"] = d.element_bytes;
  r["fields"] = d.fields;
  r["padded"] = d.padded;
  r["input_boxes"] = boxes_to_numpy(d.input_boxes);
  r["output_boxes"] = boxes_to_numpy(d.output_boxes);
  r["input_order"] = nb::cast(d.input_order);
  r["output_order"] = nb::cast(d.output_order);
  nb::list stages;
  for (const auto& s : d.stages) {
    nb::dict stage;
    stage["axes"] = nb::cast(s.axes);
    stage["real"] = s.real;
    nb::list kinds;
    for (volfft::AxisKind k : s.kinds) kinds.append(std::string(volfft::to_string(k)));
    stage["kinds"] = kinds;
    stage["memory_order"] = nb::cast(s.memory_order);
    stages.append(stage);
  }
  r["stages"] = stages;
  auto exchange_list = [](const std::vector<volfft::ExchangeDescription>& list) {
    nb::list out;
    for (const auto& e : list) {
      nb::dict exchange;
      exchange["name"] = e.name;
      exchange["messages"] = messages_to_numpy(e.messages);
      out.append(exchange);
    }
    return out;
  };
  r["exchanges"] = exchange_list(d.exchanges);
  r["reshapes"] = exchange_list(d.reshapes);
  return r;
}

void bind_description(nb::module_& m) {
  m.def(
      "describe",
      [](int comm_size, const std::vector<std::int64_t>& shape, const std::string& kind,
         const std::string& precision, const nb::dict& given) {
        // spectral_shape among them: padded plans move less, and the model must know.
        const volfft::Options options = options_from(given);
        return description_to_dict(volfft::describe(comm_size, shape, volfft::parse_kind(kind),
                                                    volfft::parse_precision(precision), options));
      },
      nb::arg("comm_size"), nb::arg("shape"), nb::arg("kind"), nb::arg("precision"), nb::arg("options"),
      "The raw PlanDescription of the plan these arguments would build on comm_size ranks.");
}

}  // namespace volfft_python
