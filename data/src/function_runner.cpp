// Dataset functions, evaluated node by node in the body's order (inputs precede their
// consumers). Deadness follows TensorFlow's executor for the cond a body may hold: a
// Switch's untaken output is dead, a node with a dead input is dead, a Merge takes its live
// input. Loops and kernels that wait (queues, receives) are refused.
#include "function_runner.hpp"

#include <atomic>
#include <exception>
#include <unordered_map>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace af::data {

namespace {
std::atomic<FunctionInstantiator> g_instantiator{nullptr};
}  // namespace

void set_function_instantiator(FunctionInstantiator instantiate) {
  g_instantiator.store(instantiate);
}

namespace detail {

/// One node of an instantiated body.
struct FunctionNode {
  NodeDef def;
  std::vector<std::pair<int, int>> inputs;  // (node, output)
  std::vector<int> control_inputs;
  std::unique_ptr<OpKernel> kernel;  // null for an argument
  int arg = -1;                      // the argument it takes, for a Placeholder argument
  bool is_merge = false;
  int num_outputs = 0;
};

class FunctionGraph {
 public:
  std::vector<FunctionNode> nodes;
  std::vector<std::pair<int, int>> outputs;
  std::vector<DType> arg_types;
  std::vector<DType> output_types;
  bool stateful = false;  // a kernel keeps state (a random op): one instance for all callers
};

namespace {

std::pair<std::string, int> split_tensor_name(const std::string& name) {
  const auto colon = name.rfind(':');
  if (colon == std::string::npos) return {name, 0};
  return {name.substr(0, colon), std::stoi(name.substr(colon + 1))};
}

Status build(const FunctionBody& body, const std::string& where, FunctionGraph* out) {
  Graph g;
  try {
    g.import_graph_def(body.graph);
  } catch (const std::exception& e) {
    return invalid_argument(where + ": " + e.what());
  }
  std::unordered_map<const Node*, int> index;
  std::unordered_map<std::string, int> args;
  for (std::size_t i = 0; i < body.args.size(); ++i)
    args.emplace(body.args[i], static_cast<int>(i));
  for (const Node* n : g.nodes()) {
    const int id = static_cast<int>(out->nodes.size());
    index.emplace(n, id);
    FunctionNode fn;
    fn.def = n->def();
    fn.num_outputs = n->num_outputs();
    fn.is_merge = n->type() == "Merge";
    for (const Output& in : n->inputs()) fn.inputs.emplace_back(index.at(in.node()), in.index());
    for (const Node* c : n->control_inputs()) fn.control_inputs.push_back(index.at(c));
    const std::string& op = n->type();
    if (op == "Enter" || op == "Exit" || op == "NextIteration" || op == "LoopCond")
      return unimplemented(where + ": node '" + n->name() + "' (" + op +
                           "): loops in dataset functions are not supported by actorflow");
    if (auto it = args.find(n->name()); it != args.end()) {
      fn.arg = it->second;
    } else if (!fn.is_merge) {
      std::vector<DType> input_types;
      for (const Output& in : n->inputs()) input_types.push_back(in.dtype());
      OpKernelConstruction c{n->def(), input_types, n->output_types(), "CPU",
                             "/job:localhost/replica:0/task:0/device:CPU:0"};
      Status s = KernelRegistry::global().create(c, &fn.kernel);
      if (!s.ok()) return Status(s.code(), where + ": " + s.message());
      if (fn.kernel->is_async())
        return unimplemented(where + ": node '" + n->name() + "' (" + op +
                             ") waits, which a dataset function cannot");
      if (const OpDef* def = OpRegistry::global().find(op); def && def->stateful)
        out->stateful = true;
      // A node that runs a function of its own (a dataset op inside the body) builds it
      // with its kernel: copies of the body would repeat that function's state too.
      for (const auto& [attr_name, value] : fn.def.attrs)
        if (std::holds_alternative<FunctionAttr>(value)) out->stateful = true;
    }
    out->nodes.push_back(std::move(fn));
  }
  for (const auto& name : body.outputs) {
    auto [node, k] = split_tensor_name(name);
    const Node* n = g.contains(node) ? g.operation(node).node() : nullptr;
    if (!n || k >= n->num_outputs())
      return invalid_argument(where + ": the function's output " + name + " is not in its body");
    out->outputs.emplace_back(index.at(n), k);
  }
  out->arg_types = body.arg_types;
  out->output_types = body.output_types;
  return {};
}

Status evaluate(const FunctionGraph& fg, const IteratorEnv& env, const std::vector<Tensor>& args,
                std::vector<Tensor>* out, const std::string& where) {
  std::vector<std::vector<Tensor>> values(fg.nodes.size());
  std::vector<char> dead(fg.nodes.size(), 0);
  for (std::size_t i = 0; i < fg.nodes.size(); ++i) {
    const FunctionNode& n = fg.nodes[i];
    if (n.arg >= 0) {
      values[i] = {args[static_cast<std::size_t>(n.arg)]};
      continue;
    }
    std::vector<Tensor> inputs;
    inputs.reserve(n.inputs.size());
    bool any_dead = false, any_live = false;
    for (auto [src, k] : n.inputs) {
      const auto s = static_cast<std::size_t>(src);
      const Tensor& v = dead[s] ? Tensor::dead() : values[s][static_cast<std::size_t>(k)];
      const bool d = dead[s] || v.is_dead();
      any_dead |= d;
      any_live |= !d;
      inputs.push_back(d ? Tensor() : v);
    }
    for (int c : n.control_inputs) any_dead |= dead[static_cast<std::size_t>(c)] != 0;
    if (n.is_merge) {
      if (!any_live) {
        dead[i] = 1;
        continue;
      }
      for (std::size_t k = 0; k < inputs.size(); ++k)
        if (inputs[k].is_initialized()) {
          values[i] = {inputs[k], Tensor(static_cast<std::int32_t>(k))};
          break;
        }
      continue;
    }
    if (any_dead) {
      dead[i] = 1;
      continue;
    }
    OpKernelContext ctx(n.def, std::move(inputs));
    ctx.set_num_outputs(n.num_outputs);
    env.apply_to(ctx);
    n.kernel->compute(ctx);
    if (!ctx.ok()) {
      const Status& s = ctx.status();
      // OutOfRange from a body ends a sequence in TensorFlow too; other errors name the node.
      if (s.code() == Code::out_of_range) return s;
      return Status(s.code(), s.message() + "\n\t [[{{node " + n.def.name + "}}]] in " + where);
    }
    values[i] = std::move(ctx.outputs());
  }
  out->clear();
  for (auto [node, k] : fg.outputs) {
    const auto s = static_cast<std::size_t>(node);
    if (dead[s] || values[s][static_cast<std::size_t>(k)].is_dead())
      return invalid_argument(where + ": output " + std::to_string(out->size()) + " is dead");
    out->push_back(values[s][static_cast<std::size_t>(k)]);
  }
  return {};
}

}  // namespace

InstantiatedFunction::InstantiatedFunction(FunctionAttr f, std::string node)
    : f_(std::move(f)), where_("function " + f_.name + " of node '" + node + "'") {}

InstantiatedFunction::~InstantiatedFunction() = default;

Status InstantiatedFunction::instantiate() const {
  FunctionInstantiator make = g_instantiator.load();
  if (!make)
    return failed_precondition(where_ +
                               ": no function library is installed (read the graph with "
                               "af::import_graph_def, which installs TensorFlow's)");
  auto body = make(f_);
  if (!body.ok()) return body.status();
  auto graph = std::make_unique<FunctionGraph>();
  ACTORFLOW_RETURN_IF_ERROR(build(*body, where_, graph.get()));
  graph_ = std::move(graph);
  if (!graph_->stateful) body_ = std::make_unique<FunctionBody>(std::move(*body));
  return {};
}

std::unique_ptr<FunctionGraph> InstantiatedFunction::take_copy() const {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!pool_.empty()) {
      auto g = std::move(pool_.back());
      pool_.pop_back();
      return g;
    }
  }
  auto g = std::make_unique<FunctionGraph>();
  if (!build(*body_, where_, g.get()).ok()) return nullptr;
  return g;
}

Status InstantiatedFunction::run(const IteratorEnv& env, const std::vector<Tensor>& args,
                                 std::vector<Tensor>* out) const {
  std::call_once(once_, [this] { instantiated_ = instantiate(); });
  ACTORFLOW_RETURN_IF_ERROR(instantiated_);
  if (args.size() != graph_->arg_types.size())
    return invalid_argument(where_ + " takes " + std::to_string(graph_->arg_types.size()) +
                            " arguments, got " + std::to_string(args.size()));
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].dtype() != graph_->arg_types[i])
      return invalid_argument(where_ + ": argument " + std::to_string(i) + " has dtype " +
                              std::string(data_type_string(args[i].dtype())) +
                              ", the function takes " +
                              std::string(data_type_string(graph_->arg_types[i])));
  if (!body_) return evaluate(*graph_, env, args, out, where_);  // the only instance
  if (!graph_busy_.exchange(true, std::memory_order_acquire)) {
    struct Release {
      std::atomic<bool>& busy;
      ~Release() { busy.store(false, std::memory_order_release); }
    } release{graph_busy_};
    return evaluate(*graph_, env, args, out, where_);
  }
  // Called on several threads at once: each call a copy of its own, so the copies' constants
  // and kernels are not shared between threads (their reference counts were most of a
  // parallel map's time).
  auto copy = take_copy();
  if (!copy) return evaluate(*graph_, env, args, out, where_);
  Status s = evaluate(*copy, env, args, out, where_);
  std::lock_guard<std::mutex> lock(pool_mu_);
  pool_.push_back(std::move(copy));
  return s;
}

std::shared_ptr<const CapturedFunction> make_captured_function(
    const OpKernelContext& ctx, std::shared_ptr<const InstantiatedFunction> f, int first_captured,
    int end_captured) {
  std::vector<Tensor> captured;
  for (int i = first_captured; i < end_captured; ++i) captured.push_back(ctx.input(i));
  return std::make_shared<CapturedFunction>(std::move(f), std::move(captured));
}

}  // namespace detail
}  // namespace af::data
