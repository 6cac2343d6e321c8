#include "partition_codec.hpp"

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph_json.hpp"
#include "wire.hpp"

namespace af::net {

namespace {

void write_types(WireWriter& out, const std::vector<DType>& types) {
  out.u64(types.size());
  for (auto t : types) out.u8(static_cast<std::uint8_t>(t));
}

bool read_types(WireReader& in, std::vector<DType>* types) {
  std::uint64_t n = 0;
  if (!in.count(&n, 1)) return false;
  types->resize(n);
  for (auto& t : *types) {
    std::uint8_t v = 0;
    if (!in.u8(&v)) return false;
    if (v > kLastDTypeCode) return in.fail("unknown dtype code " + std::to_string(v));
    t = static_cast<DType>(v);
  }
  return true;
}

bool read_index(WireReader& in, std::int64_t bound, int* out) {
  std::int64_t v = 0;
  if (!in.i64(&v)) return false;
  if (v < -1 || v >= bound) return in.fail("index " + std::to_string(v) + " out of range");
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

std::string encode_partition(const PartitionPlan& plan) {
  GraphDef defs;
  for (const auto& n : plan.nodes) defs.nodes.push_back(n.def);
  WireWriter out;
  out.str(plan.device);
  out.str(graph_def_to_json(defs, -1));
  out.u64(plan.nodes.size());
  for (const auto& n : plan.nodes) {
    out.u64(n.inputs.size());
    for (auto [src, slot] : n.inputs) {
      out.i64(src);
      out.i64(slot);
    }
    out.u64(n.control_inputs.size());
    for (int c : n.control_inputs) out.i64(c);
    write_types(out, n.input_types);
    write_types(out, n.output_types);
    out.u64(n.input_is_ref.size());
    for (bool r : n.input_is_ref) out.u8(r ? 1 : 0);
    out.i64(n.feed_index);
  }
  out.u64(plan.fetches.size());
  for (const auto& f : plan.fetches) {
    out.i64(f.fetch_index);
    out.i64(f.node);
    out.i64(f.output);
  }
  return out.take();
}

Status decode_partition(std::string_view bytes, PartitionPlan* plan) {
  WireReader in(bytes, "partition plan");
  std::string json;
  std::uint64_t n = 0;
  if (!in.str(&plan->device) || !in.str(&json)) return in.status();
  GraphDef defs;
  try {
    defs = graph_def_from_json(json);
  } catch (...) {
    return status_from_exception(std::current_exception());
  }
  if (!in.count(&n, 40)) return in.status();
  if (n != defs.nodes.size())
    return data_loss("malformed partition plan: " + std::to_string(n) + " nodes for " +
                     std::to_string(defs.nodes.size()) + " node defs");
  const auto size = static_cast<std::int64_t>(n);
  plan->nodes.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    auto& node = plan->nodes[i];
    node.def = std::move(defs.nodes[i]);
    std::uint64_t k = 0;
    if (!in.count(&k, 16)) return in.status();
    node.inputs.resize(k);
    for (auto& [src, slot] : node.inputs) {
      std::int64_t s = 0;
      if (!read_index(in, static_cast<std::int64_t>(i), &src) || !in.i64(&s)) return in.status();
      if (src < 0 || s < 0 || s > 1'000'000)
        return data_loss("malformed partition plan: bad input edge of node " + node.def.name);
      slot = static_cast<int>(s);
    }
    if (!in.count(&k, 8)) return in.status();
    node.control_inputs.resize(k);
    for (auto& c : node.control_inputs)
      if (!read_index(in, static_cast<std::int64_t>(i), &c) || c < 0)
        return in.status().ok() ? data_loss("malformed partition plan: bad control edge of node " +
                                            node.def.name)
                                : in.status();
    if (!read_types(in, &node.input_types) || !read_types(in, &node.output_types))
      return in.status();
    if (!in.count(&k, 1)) return in.status();
    node.input_is_ref.resize(k);
    for (std::uint64_t j = 0; j < k; ++j) {
      std::uint8_t r = 0;
      if (!in.u8(&r)) return in.status();
      node.input_is_ref[j] = r != 0;
    }
    std::int64_t feed = 0;
    if (!in.i64(&feed)) return in.status();
    node.feed_index = static_cast<int>(feed);
    if (node.input_types.size() != node.inputs.size() ||
        node.input_is_ref.size() != node.inputs.size())
      return data_loss("malformed partition plan: node " + node.def.name +
                       " has mismatched input tables");
  }
  if (!in.count(&n, 24)) return in.status();
  plan->fetches.resize(n);
  for (auto& f : plan->fetches) {
    std::int64_t index = 0, output = 0;
    if (!in.i64(&index) || !read_index(in, size, &f.node) || !in.i64(&output)) return in.status();
    if (index < 0 || f.node < 0 || output < 0 ||
        output >= static_cast<std::int64_t>(
                      plan->nodes[static_cast<std::size_t>(f.node)].output_types.size()))
      return data_loss("malformed partition plan: bad fetch");
    f.fetch_index = static_cast<int>(index);
    f.output = static_cast<int>(output);
  }
  // Input slots must name real outputs of their producers.
  for (auto& node : plan->nodes)
    for (auto [src, slot] : node.inputs)
      if (slot >= static_cast<int>(plan->nodes[static_cast<std::size_t>(src)].output_types.size()))
        return data_loss("malformed partition plan: node " + node.def.name +
                         " reads a missing output");
  if (!in.at_end()) return data_loss("malformed partition plan: trailing bytes");
  return {};
}

std::string encode_indexed_tensors(const std::vector<std::pair<int, Tensor>>& values) {
  WireWriter out;
  out.u64(values.size());
  for (const auto& [index, t] : values) {
    out.i64(index);
    out.tensor(t);
  }
  return out.take();
}

Status decode_indexed_tensors(std::string_view bytes, const std::string& what,
                              std::vector<std::pair<int, Tensor>>* values) {
  WireReader in(bytes, what);
  std::uint64_t n = 0;
  if (!in.count(&n, 10)) return in.status();
  values->resize(n);
  for (auto& [index, t] : *values) {
    std::int64_t i = 0;
    if (!in.i64(&i) || !in.tensor(&t)) return in.status();
    if (i < 0 || i > 1'000'000)
      return data_loss("malformed " + what + ": index " + std::to_string(i));
    index = static_cast<int>(i);
  }
  if (!in.at_end()) return data_loss("malformed " + what + ": trailing bytes");
  return {};
}

}  // namespace af::net
