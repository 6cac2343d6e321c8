// Graphs to and from GraphDefs: export_graph_def, and tf.import_graph_def
// (tensorflow/python/framework/importer.py over
// tensorflow/core/common_runtime/graph_constructor.cc): the GraphDef is checked whole before
// a node is added, then its nodes are added in dependency order under the prefix.
#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>

#include "actorflow/formats/graph_def.hpp"
#include "actorflow/formats/summary_ops.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/queues/queues.hpp"
#include "op_defaults.hpp"

namespace af {

namespace {

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

[[noreturn]] void fail(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

/// One input string of a NodeDef: `^name`, `name` or `name:k`.
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
};

bool parse_ref(std::string_view s, InputRef* out) {
  InputRef r;
  if (!s.empty() && s[0] == '^') {
    r.control = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  if (auto colon = s.rfind(':'); colon != std::string_view::npos && !r.control) {
    const std::string_view digits = s.substr(colon + 1);
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    r.index = std::stoi(std::string(digits));
    s = s.substr(0, colon);
  }
  r.node = std::string(s);
  *out = std::move(r);
  return true;
}

std::string tensor_key(const std::string& node, int index) {
  return node + ":" + std::to_string(index);
}

/// The colocation targets of a `_class` attribute (`loc:@name` entries).
std::vector<std::string> colocations(const NodeDef& n) {
  std::vector<std::string> out;
  if (auto cls = n.attr<std::vector<std::string>>("_class"))
    for (const auto& entry : *cls)
      if (entry.rfind("loc:@", 0) == 0) out.push_back(entry.substr(5));
  return out;
}

}  // namespace

GraphDef export_graph_def(const Graph& g, bool add_shapes) {
  GraphDef def;
  def.version = kGraphDefProducer;
  for (const Node* n : g.nodes()) {
    NodeDef node = n->def();
    if (add_shapes) node.attrs["_output_shapes"] = n->output_shapes();
    def.nodes.push_back(std::move(node));
  }
  return def;
}

void strip_default_attrs(GraphDef& def) {
  for (auto& n : def.nodes)
    for (const auto& [name, value] : detail::op_attr_defaults(n.op))
      if (auto it = n.attrs.find(name); it != n.attrs.end() && it->second == value)
        n.attrs.erase(it);
}

std::vector<GraphElement> import_graph_def(Graph& g, const GraphDef& def,
                                           const ImportGraphDefOptions& options) {
  // Op types registered on first use elsewhere (queues and readers, summaries).
  register_queue_ops();
  summary::register_summary_ops();
  register_dataset_functions();  // the dataset ops and the functions they run
  const std::size_t count = def.nodes.size();
  // -- the GraphDef on its own: names, op types, inputs, colocations ----------------------
  std::unordered_map<std::string, std::size_t> index;
  index.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    if (!index.emplace(def.nodes[i].name, i).second)
      fail("Node " + quoted(def.nodes[i].name) + " is not unique");
  std::map<std::string, std::string> unknown_types;  // op type -> its first node
  for (const auto& n : def.nodes)
    if (!OpRegistry::global().find(n.op)) unknown_types.emplace(n.op, n.name);
  if (!unknown_types.empty()) {
    std::string message = "Op type not registered in actorflow: ";
    bool first = true;
    for (const auto& [type, node] : unknown_types) {
      message += (first ? "" : ", ") + quoted(type) + " (node " + quoted(node) + ")";
      first = false;
    }
    fail(message);
  }
  std::vector<std::vector<InputRef>> refs(count);
  for (std::size_t i = 0; i < count; ++i) {
    const NodeDef& n = def.nodes[i];
    bool seen_control = false;
    for (const auto& in : n.inputs) {
      InputRef r;
      if (!parse_ref(in, &r)) fail("Node " + quoted(n.name) + ": malformed input " + quoted(in));
      if (r.control)
        seen_control = true;
      else if (seen_control)
        fail("Node " + quoted(n.name) +
             ": Control dependencies must come after regular dependencies: got " + quoted(in) +
             " after a control input");
      if (!index.count(r.node))
        fail("Node " + quoted(n.name) + ": Unknown input node " + quoted(in));
      refs[i].push_back(std::move(r));
    }
    for (const auto& target : colocations(n))
      if (!index.count(target))
        fail("Node " + quoted(n.name) + " expects to be colocated with unknown node " +
             quoted(target));
  }
  // -- input_map and return_elements name nodes of the GraphDef ---------------------------
  std::map<std::string, GraphElement> mapped;  // normalised key ("x:0", "^x") -> value
  std::vector<std::string> missing;
  for (const auto& [key, value] : options.input_map) {
    InputRef r;
    if (!parse_ref(key, &r)) fail("input_map: malformed key " + quoted(key));
    const bool is_op = std::holds_alternative<Operation>(value);
    if (r.control != is_op)
      fail("input_map: " + quoted(key) +
           (r.control ? " is a control input and must map to an Operation"
                      : " is a tensor and must map to an Output"));
    if (!index.count(r.node)) missing.push_back(key);
    mapped.emplace(r.control ? "^" + r.node : tensor_key(r.node, r.index), value);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& k : missing) list += (list.empty() ? "" : ", ") + k;
    fail("Attempted to map inputs that were not found in graph_def: [" + list + "]");
  }
  for (const auto& name : options.return_elements) {
    InputRef r;
    if (!parse_ref(name, &r) || r.control) fail("return_elements: malformed name " + quoted(name));
    if (!index.count(r.node))
      fail(name.find(':') != std::string::npos
               ? "Requested return tensor " + quoted(name) + " not found in graph def"
               : "Requested return node " + quoted(name) + " not found in graph def");
  }
  // -- dependency order (Kahn); what is left over lies on a cycle -------------------------
  // A while loop's back edge (NextIteration -> Merge, as TensorFlow's importer finds them)
  // does not order: the Merge comes first and takes the edge once its source exists.
  auto is_back_edge = [&](std::size_t i, const InputRef& r) {
    const std::string& op = def.nodes[i].op;
    const std::string& src = def.nodes[index.at(r.node)].op;
    return !r.control && (op == "Merge" || op == "RefMerge") &&
           (src == "NextIteration" || src == "RefNextIteration");
  };
  std::vector<int> pending(count, 0);
  std::vector<std::vector<std::size_t>> users(count);
  for (std::size_t i = 0; i < count; ++i)
    for (const auto& r : refs[i]) {
      if (is_back_edge(i, r)) continue;
      ++pending[i];
      users[index.at(r.node)].push_back(i);
    }
  std::vector<std::size_t> order;
  order.reserve(count);
  std::deque<std::size_t> ready;
  for (std::size_t i = 0; i < count; ++i)
    if (pending[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    const std::size_t i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (std::size_t u : users[i])
      if (--pending[u] == 0) ready.push_back(u);
  }
  if (order.size() != count) {
    std::string names;
    int listed = 0;
    for (std::size_t i = 0; i < count && listed < 5; ++i)
      if (pending[i] > 0) {
        names += (listed++ ? ", " : "") + quoted(def.nodes[i].name);
      }
    fail(std::to_string(count - order.size()) + " nodes in a cycle or after one (" + names +
         (count - order.size() > 5 ? ", ..." : "") +
         "); a cycle must be a while loop's, closed by a NextIteration into a Merge");
  }
  // -- names in the graph ----------------------------------------------------------------
  std::string prefix;
  if (!options.name)
    prefix = g.unique_name("import") + "/";
  else if (!options.name->empty())
    prefix = g.unique_name(*options.name) + "/";
  std::unordered_map<std::string, std::string> renamed;
  if (prefix.empty()) {
    std::set<std::string> taken;
    for (const auto& n : def.nodes) {
      if (!g.contains(n.name)) continue;
      for (int k = 1;; ++k) {
        std::string candidate = n.name + "_" + std::to_string(k);
        if (!g.contains(candidate) && !index.count(candidate) && taken.insert(candidate).second) {
          renamed.emplace(n.name, std::move(candidate));
          break;
        }
      }
    }
  }
  auto new_name = [&](const std::string& name) {
    if (!prefix.empty()) return prefix + name;
    auto it = renamed.find(name);
    return it == renamed.end() ? name : it->second;
  };
  // As importer.py's _ProcessNewOps: a colocated node's own device is cleared, and it takes
  // the device of the first colocated op that has one (followed through chains of
  // colocations; a node on a colocation cycle keeps its own device).
  std::vector<std::optional<std::string>> devices(count);
  std::vector<bool> visiting(count, false);
  std::function<std::string(std::size_t)> device_of = [&](std::size_t i) -> std::string {
    if (devices[i]) return *devices[i];
    std::string device = def.nodes[i].device;
    auto targets = colocations(def.nodes[i]);
    if (!targets.empty() && !visiting[i]) {
      visiting[i] = true;
      device.clear();
      for (const auto& t : targets)
        if (std::string d = device_of(index.at(t)); !d.empty()) {
          device = d;
          break;
        }
      visiting[i] = false;
    }
    devices[i] = device;
    return device;
  };
  // -- the nodes --------------------------------------------------------------------------
  struct BackEdge {
    std::string merge;
    int input;
    std::string source;
  };
  std::vector<BackEdge> back_edges;
  for (std::size_t i : order) {
    NodeDef n = def.nodes[i];
    n.name = new_name(n.name);
    n.attrs.erase("_output_shapes");
    for (const auto& [attr, value] : detail::op_attr_defaults(n.op)) n.attrs.emplace(attr, value);
    std::vector<std::string> inputs;
    inputs.reserve(refs[i].size());
    for (const auto& r : refs[i]) {
      if (r.control) {
        auto it = mapped.find("^" + r.node);
        inputs.push_back(
            "^" + (it != mapped.end() ? std::get<Operation>(it->second).name() : new_name(r.node)));
        continue;
      }
      auto it = mapped.find(tensor_key(r.node, r.index));
      const std::string own =
          r.index == 0 ? new_name(r.node) : tensor_key(new_name(r.node), r.index);
      if (it == mapped.end() && is_back_edge(i, r)) {
        // Stands in for the NextIteration until it exists, as TensorFlow's Python builds a
        // loop's Merge from its Enter twice.
        back_edges.push_back({n.name, static_cast<int>(inputs.size()), own});
        inputs.emplace_back();
        continue;
      }
      if (it == mapped.end()) {
        inputs.push_back(own);
        continue;
      }
      const Output& value = std::get<Output>(it->second);
      const Output original = g.output(own);
      if (value.dtype() != original.dtype())
        fail("Input " + std::to_string(inputs.size()) + " of node " + n.name + " was passed " +
             std::string(data_type_string(value.dtype())) + " from " + value.name() +
             " incompatible with expected " + std::string(data_type_string(original.dtype())) +
             ".");
      inputs.push_back(value.name());
    }
    for (auto& in : inputs)
      if (in.empty()) {
        // The first input that is not a back edge stands in.
        for (const auto& other : inputs)
          if (!other.empty() && other[0] != '^') {
            in = other;
            break;
          }
        if (in.empty()) fail("Merge " + quoted(n.name) + " has only back edges as inputs");
      }
    n.inputs = std::move(inputs);
    if (auto targets = colocations(def.nodes[i]); !targets.empty()) {
      std::vector<std::string> cls;
      for (const auto& t : targets) cls.push_back("loc:@" + new_name(t));
      n.attrs["_class"] = cls;
      n.device = device_of(i);
    }
    g.add_node_def(n);
  }
  for (const auto& b : back_edges)
    g.update_input(g.operation(b.merge), b.input, g.output(b.source));
  // -- what the caller asked for -----------------------------------------------------------
  std::vector<GraphElement> out;
  out.reserve(options.return_elements.size());
  for (const auto& name : options.return_elements) {
    InputRef r;
    parse_ref(name, &r);
    if (name.find(':') != std::string::npos)
      out.emplace_back(g.output(tensor_key(new_name(r.node), r.index)));
    else
      out.emplace_back(g.operation(new_name(r.node)));
  }
  return out;
}

}  // namespace af
