// The formats module's FunctionInstantiator for the data module: a FunctionAttr's body, read
// from the TensorFlow FunctionDefLibrary the attribute carries, as a graph actorflow runs. The
// function is called by name from a graph of one Placeholder per argument and lowered
// (functional_ops.cpp inlines it and any If, While or call inside), then put in dependency
// order.
#include "function_instantiation.hpp"

#include <deque>
#include <map>

#include "actorflow/data/dataset.hpp"
#include "actorflow/formats/graph_def.hpp"
#include "functional_ops.hpp"
#include "tf_proto.hpp"

namespace af::tfproto {

namespace {

constexpr const char* kCallNode = "_f";

std::string node_of(const std::string& input) {
  std::string name = input[0] == '^' ? input.substr(1) : input;
  const auto colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(0, colon);
}

/// `g`'s nodes with every node after its inputs (Kahn's algorithm, stable).
Status topological_order(GraphDef* g, const std::string& where) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < g->nodes.size(); ++i) index.emplace(g->nodes[i].name, i);
  std::vector<int> pending(g->nodes.size(), 0);
  std::vector<std::vector<std::size_t>> consumers(g->nodes.size());
  for (std::size_t i = 0; i < g->nodes.size(); ++i)
    for (const auto& in : g->nodes[i].inputs) {
      auto it = index.find(node_of(in));
      if (it == index.end())
        return invalid_argument(where + ": node '" + g->nodes[i].name + "' has input '" + in +
                                "', which is not in the function's body");
      ++pending[i];
      consumers[it->second].push_back(i);
    }
  std::deque<std::size_t> ready;
  for (std::size_t i = 0; i < pending.size(); ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::vector<NodeDef> ordered;
  ordered.reserve(g->nodes.size());
  while (!ready.empty()) {
    const std::size_t i = ready.front();
    ready.pop_front();
    for (std::size_t c : consumers[i])
      if (--pending[c] == 0) ready.push_back(c);
    ordered.push_back(std::move(g->nodes[i]));
  }
  if (ordered.size() != g->nodes.size())
    return invalid_argument(where + ": the body has a cycle outside a loop");
  g->nodes = std::move(ordered);
  return {};
}

}  // namespace

StatusOr<data::FunctionBody> instantiate_function(const FunctionAttr& f) {
  const std::string where = "function " + f.name;
  tensorflow::GraphDef g;
  if (!g.mutable_library()->ParseFromString(f.library))
    return invalid_argument(where + ": its function library does not parse");
  const tensorflow::FunctionDef* def = nullptr;
  for (const auto& fn : g.library().function())
    if (fn.signature().name() == f.name) def = &fn;
  if (!def) return invalid_argument(where + " is not in the graph's function library");
  data::FunctionBody body;
  tensorflow::NodeDef call;
  call.set_name(kCallNode);
  call.set_op(f.name);
  for (int i = 0; i < def->signature().input_arg_size(); ++i) {
    const auto& arg = def->signature().input_arg(i);
    if (arg.type() == tensorflow::DT_INVALID)
      return invalid_argument(where + ": argument " + arg.name() +
                              " has no fixed type (a generic function)");
    auto type = from_proto(arg.type(), where);
    if (!type.ok()) return type.status();
    tensorflow::NodeDef* n = g.add_node();
    n->set_name("_arg" + std::to_string(i));
    n->set_op("Placeholder");
    (*n->mutable_attr())["dtype"].set_type(arg.type());
    call.add_input(n->name());
    body.args.push_back(n->name());
    body.arg_types.push_back(*type);
  }
  for (int i = 0; i < def->signature().output_arg_size(); ++i) {
    auto type = from_proto(def->signature().output_arg(i).type(), where);
    if (!type.ok()) return type.status();
    body.outputs.push_back(std::string(kCallNode) + ":" + std::to_string(i));
    body.output_types.push_back(*type);
  }
  *g.add_node() = std::move(call);
  auto graph = from_proto(g);
  if (!graph.ok()) return Status(graph.status().code(), where + ": " + graph.status().message());
  body.graph = std::move(*graph);
  ACTORFLOW_RETURN_IF_ERROR(topological_order(&body.graph, where));
  return body;
}

void install_function_instantiator() {
  data::register_dataset_ops();
  data::set_function_instantiator(&instantiate_function);
}

}  // namespace af::tfproto

namespace af {

void register_dataset_functions() { tfproto::install_function_instantiator(); }

}  // namespace af
