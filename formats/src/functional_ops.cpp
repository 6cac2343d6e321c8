// Functional control flow lowered into control flow v1 (see functional_ops.hpp). Works on
// TensorFlow's messages, before the nodes become actorflow's: the function attributes
// (`cond`, `body`, `then_branch`, `f`) have no actorflow form and are gone once lowered.
#include "functional_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "actorflow/formats/summary_ops.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/queues/queues.hpp"
#include "actorflow/tf/function.pb.h"

namespace af::tfproto {

namespace {

/// One output argument: its name and, for a list, the attr that sizes it (number_attr: an
/// int; type_list_attr: a list of types).
struct OutputArg {
  const char* name;
  const char* number_attr;
  const char* type_list_attr;
};

/// The output arguments of the multi-output ops (op_outputs.inc); any other op's outputs are
/// one argument, indexed directly.
const std::unordered_map<std::string, std::vector<OutputArg>>& op_outputs() {
  static const std::unordered_map<std::string, std::vector<OutputArg>> table = {
#include "op_outputs.inc"
  };
  return table;
}

/// How many tensors argument `a` of node `n` is (1 unless a list).
int arg_size(const tensorflow::NodeDef& n, const OutputArg& a) {
  if (*a.number_attr) {
    auto it = n.attr().find(a.number_attr);
    return it == n.attr().end() ? 0 : static_cast<int>(it->second.i());
  }
  if (*a.type_list_attr) {
    auto it = n.attr().find(a.type_list_attr);
    return it == n.attr().end() ? 0 : it->second.list().type_size();
  }
  return 1;
}

/// TensorFlow's functional ops by what they lower into.
enum class Kind { none, loop, branch, cases, call };

Kind kind_of(const std::string& op) {
  static const std::unordered_map<std::string, Kind> kinds = {
      {"While", Kind::loop},
      {"StatelessWhile", Kind::loop},
      {"If", Kind::branch},
      {"StatelessIf", Kind::branch},
      {"Case", Kind::cases},
      {"StatelessCase", Kind::cases},
      {"PartitionedCall", Kind::call},
      {"StatefulPartitionedCall", Kind::call}};
  auto it = kinds.find(op);
  return it == kinds.end() ? Kind::none : it->second;
}

/// The first attribute of `attrs` that is a placeholder (a generic function's), or null.
const std::string* placeholder_attr(
    const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs) {
  for (const auto& [key, value] : attrs)
    if (value.value_case() == tensorflow::AttrValue::kPlaceholder) return &key;
  return nullptr;
}

constexpr int kMaxDepth = 64;

struct LoweringError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& message) { throw LoweringError(message); }

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string tensor(const std::string& node, int index) {
  return index == 0 ? node : node + ":" + std::to_string(index);
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// A node's data inputs and control inputs (without the `^`).
struct Inputs {
  std::vector<std::string> data;
  std::vector<std::string> control;
};

Inputs split_inputs(const tensorflow::NodeDef& n) {
  Inputs in;
  for (const auto& s : n.input()) {
    if (!s.empty() && s[0] == '^')
      in.control.push_back(s.substr(1));
    else
      in.data.push_back(s);
  }
  return in;
}

class Lowering {
 public:
  explicit Lowering(const tensorflow::GraphDef& g) : graph_(g) {
    register_queue_ops();  // op types registered on first use, as import_graph_def does
    summary::register_summary_ops();
    std::size_t input_nodes = static_cast<std::size_t>(g.node_size());
    for (const auto& f : g.library().function()) {
      const std::string& name = f.signature().name();
      // As TensorFlow's FunctionLibraryDefinition: a function cannot take an op's name.
      if (OpRegistry::global().find(name) || kind_of(name) != Kind::none)
        fail("library function " + quoted(name) + " has the name of an op");
      if (!functions_.emplace(name, &f).second)
        fail("library function " + quoted(name) + " is defined twice");
      input_nodes += static_cast<std::size_t>(f.node_def_size());
    }
    for (const auto& n : g.node()) names_.insert(n.name());
    // What inlining may make of this input: calls nested many times over (f calls g twice,
    // g calls h twice, ...) would otherwise grow exponentially.
    max_nodes_ = 100'000 + 16 * input_nodes;
    max_name_bytes_ = (std::size_t{256} << 20) + 16 * static_cast<std::size_t>(g.ByteSizeLong());
  }

  bool is_functional(const std::string& op) const {
    return kind_of(op) != Kind::none || functions_.count(op);
  }

  tensorflow::GraphDef run() {
    tensorflow::GraphDef out = graph_;
    out.clear_node();
    for (const auto& n : graph_.node()) add(n, 0);
    while (!pending_.empty()) {
      auto [index, depth] = pending_.front();
      pending_.pop_front();
      const tensorflow::NodeDef node = nodes_[index];
      tensorflow::NodeDef lowered = lower(node, depth);  // appends to nodes_
      nodes_[index] = std::move(lowered);
    }
    for (auto& n : nodes_) *out.add_node() = std::move(n);
    return out;
  }

 private:
  /// Appends `n`, queueing it for lowering when it is functional.
  void add(tensorflow::NodeDef n, int depth) {
    if (nodes_.size() >= max_nodes_)
      fail(lowering_ + ": inlining makes more than " + std::to_string(max_nodes_) +
           " nodes (functions calling each other many times over?)");
    if (is_functional(n.op())) pending_.emplace_back(nodes_.size(), depth);
    nodes_.push_back(std::move(n));
  }

  /// A name no node has yet, `base` when free (TensorFlow's Graph::NewName adds `_k`).
  std::string fresh(const std::string& base) {
    name_bytes_ += base.size();
    if (name_bytes_ > max_name_bytes_)
      fail(lowering_ + ": inlining makes names of more than " + std::to_string(max_name_bytes_) +
           " bytes");
    if (names_.insert(base).second) return base;
    for (int& k = next_suffix_[base];;)  // continues where the last search for `base` ended
      if (std::string name = base + "_" + std::to_string(++k); names_.insert(name).second)
        return name;
  }

  /// Adds a node `op` named after `base`, on `device`, with `T` set when `type` is given.
  std::string make(const std::string& base, const std::string& op,
                   const std::vector<std::string>& data, const std::vector<std::string>& control,
                   const std::string& device, const tensorflow::AttrValue* type = nullptr) {
    tensorflow::NodeDef n;
    n.set_name(fresh(base));
    n.set_op(op);
    n.set_device(device);
    for (const auto& d : data) n.add_input(d);
    for (const auto& c : control) n.add_input("^" + c);
    if (type) (*n.mutable_attr())["T"] = *type;
    std::string name = n.name();
    add(std::move(n), 0);
    return name;
  }

  static tensorflow::AttrValue type_attr(int type) {
    tensorflow::AttrValue v;
    v.set_type(static_cast<tensorflow::DataType>(type));
    return v;
  }

  const tensorflow::FunctionDef& function(const tensorflow::NodeDef& n, const std::string& attr) {
    auto it = n.attr().find(attr);
    if (it == n.attr().end() || !it->second.has_func())
      fail("node " + quoted(n.name()) + " (" + n.op() + "): no function attribute " + quoted(attr));
    return lookup(n, it->second.func().name());
  }

  const tensorflow::FunctionDef& lookup(const tensorflow::NodeDef& n, const std::string& name) {
    auto f = functions_.find(name);
    if (f == functions_.end())
      fail("node " + quoted(n.name()) + " (" + n.op() + "): function " + quoted(name) +
           " is not in the graph's library");
    return *f->second;
  }

  /// The list of types in attribute `attr` of `n`.
  static std::vector<int> types(const tensorflow::NodeDef& n, const std::string& attr) {
    auto it = n.attr().find(attr);
    if (it == n.attr().end() || !it->second.has_list())
      fail("node " + quoted(n.name()) + " (" + n.op() + "): no type list attribute " +
           quoted(attr));
    return {it->second.list().type().begin(), it->second.list().type().end()};
  }

  static void expect(bool ok, const tensorflow::NodeDef& n, const std::string& what) {
    if (!ok) fail("node " + quoted(n.name()) + " (" + n.op() + "): " + what);
  }

  /// The node replacing functional node `n`: an IdentityN over `outputs` (a NoOp when there
  /// are none), completing after `control`.
  static tensorflow::NodeDef result(const tensorflow::NodeDef& n,
                                    const std::vector<std::string>& outputs,
                                    const std::vector<int>& output_types,
                                    const std::vector<std::string>& control) {
    tensorflow::NodeDef r;
    r.set_name(n.name());
    r.set_device(n.device());
    r.set_op(outputs.empty() ? "NoOp" : "IdentityN");
    for (const auto& o : outputs) r.add_input(o);
    for (const auto& c : control) r.add_input("^" + c);
    if (!outputs.empty()) {
      auto* list = (*r.mutable_attr())["T"].mutable_list();
      for (int t : output_types) list->add_type(static_cast<tensorflow::DataType>(t));
    }
    return r;
  }

  tensorflow::NodeDef lower(const tensorflow::NodeDef& n, int depth) {
    lowering_ = "node " + quoted(n.name()) + " (" + n.op() + ")";
    if (depth > kMaxDepth)
      fail("node " + quoted(n.name()) + " (" + n.op() + "): functions inlined more than " +
           std::to_string(kMaxDepth) + " levels deep (a function calling itself?)");
    switch (kind_of(n.op())) {
      case Kind::loop:
        return lower_while(n, depth);
      case Kind::branch:
        return lower_if(n, depth);
      case Kind::cases:
        return lower_case(n, depth);
      default:
        return lower_call(n, depth);
    }
  }

  tensorflow::NodeDef lower_while(const tensorflow::NodeDef& n, int depth) {
    const auto& cond = function(n, "cond");
    const auto& body = function(n, "body");
    const std::vector<int> t = types(n, "T");
    const Inputs in = split_inputs(n);
    expect(
        in.data.size() == t.size(), n,
        std::to_string(in.data.size()) + " inputs for " + std::to_string(t.size()) + " types in T");
    expect(!t.empty(), n, "a loop without loop variables");
    std::int64_t parallel = 10;
    if (auto it = n.attr().find("parallel_iterations"); it != n.attr().end())
      parallel = it->second.i();
    expect(parallel > 0 && parallel <= std::numeric_limits<std::int32_t>::max(), n,
           "parallel_iterations must be a positive int32, got " + std::to_string(parallel));
    const std::string& name = n.name();
    const std::string& device = n.device();
    std::vector<std::string> enter_control;
    if (!in.control.empty())
      enter_control.push_back(make(name + "/LoopControlInputs", "NoOp", {}, in.control, device));
    const std::size_t k = t.size();
    std::vector<std::string> merges(k), switches(k), exits(k);
    std::vector<std::size_t> merge_index(k);  // in nodes_, whose entries stay put
    for (std::size_t i = 0; i < k; ++i) {
      const auto ty = type_attr(t[i]);
      std::string enter = make(name + "/enter", "Enter", {in.data[i]}, enter_control, device, &ty);
      auto& e = nodes_.back();
      (*e.mutable_attr())["frame_name"].set_s(name);
      (*e.mutable_attr())["is_constant"].set_b(false);
      (*e.mutable_attr())["parallel_iterations"].set_i(parallel);
      merges[i] = make(name + "/merge", "Merge", {enter, enter}, {}, device, &ty);
      merge_index[i] = nodes_.size() - 1;
      (*nodes_.back().mutable_attr())["N"].set_i(2);
    }
    std::vector<std::string> cond_args;
    for (const auto& m : merges) cond_args.push_back(m);
    const auto cond_out = inline_function(cond, n, name + "/cond", cond_args, merges[0], depth);
    expect(cond_out.outputs.size() == 1, n,
           "cond function " + quoted(cond.signature().name()) + " has " +
               std::to_string(cond_out.outputs.size()) + " outputs, not 1");
    const std::string loop_cond =
        make(name + "/LoopCond", "LoopCond", {cond_out.outputs[0]}, cond_out.control, device);
    for (std::size_t i = 0; i < k; ++i) {
      const auto ty = type_attr(t[i]);
      switches[i] = make(name + "/switch", "Switch", {merges[i], loop_cond}, {}, device, &ty);
    }
    const auto t0 = type_attr(t[0]);
    const std::string pivot =
        make(name + "/loop_body_control", "Identity", {switches[0] + ":1"}, {}, device, &t0);
    std::vector<std::string> body_args;
    for (const auto& s : switches) body_args.push_back(s + ":1");
    const auto body_out = inline_function(body, n, name + "/body", body_args, pivot, depth);
    expect(body_out.outputs.size() == k, n,
           "body function " + quoted(body.signature().name()) + " has " +
               std::to_string(body_out.outputs.size()) + " outputs for " + std::to_string(k) +
               " loop variables");
    for (std::size_t i = 0; i < k; ++i) {
      const auto ty = type_attr(t[i]);
      exits[i] = make(name + "/exit", "Exit", {switches[i]}, {}, device, &ty);
      const std::string next = make(name + "/next_iteration", "NextIteration",
                                    {body_out.outputs[i]}, body_out.control, device, &ty);
      nodes_[merge_index[i]].set_input(1, next);
    }
    return result(n, exits, t, {});
  }

  /// What an inlined function gives its caller: its outputs, in signature order, and the
  /// nodes of its `control_ret`.
  struct Inlined {
    std::vector<std::string> outputs;
    std::vector<std::string> control;
  };

  /// A branch: the pivot its input-less nodes wait on and the function inlined.
  struct Branch {
    std::string pivot;
    Inlined out;
  };

  /// Switches on predicate `pred` for N's data inputs after the first (`pivots` on pred
  /// itself, named `N/pivot_f`, `N/pivot_t`; `inputs` on pred, named `N/input_switch`),
  /// waiting on N's control inputs. Returns the Switch names, the pivots' first.
  std::vector<std::string> switch_on(const tensorflow::NodeDef& n, const std::string& pred,
                                     const std::vector<int>& tin, bool both_pivots) {
    const Inputs in = split_inputs(n);
    const auto boolean = type_attr(tensorflow::DT_BOOL);
    const std::string switch_pred =
        make(n.name() + "/switch_pred", "Switch", {pred, pred}, in.control, n.device(), &boolean);
    std::vector<std::string> out = {switch_pred};
    if (both_pivots)
      out.push_back(
          make(n.name() + "/pivot_f", "Identity", {switch_pred}, {}, n.device(), &boolean));
    out.push_back(
        make(n.name() + "/pivot_t", "Identity", {switch_pred + ":1"}, {}, n.device(), &boolean));
    for (std::size_t i = 0; i < tin.size(); ++i) {
      const auto ty = type_attr(tin[i]);
      out.push_back(make(n.name() + "/input_switch", "Switch", {in.data[i + 1], pred}, in.control,
                         n.device(), &ty));
    }
    return out;
  }

  /// Output `side` (":1" for true, "" for false) of the input Switches, `switches` from
  /// index `first` on (after the predicate's Switch and pivots).
  static std::vector<std::string> sides(const std::vector<std::string>& switches, std::size_t first,
                                        const std::string& side) {
    std::vector<std::string> args;
    for (std::size_t i = first; i < switches.size(); ++i) args.push_back(switches[i] + side);
    return args;
  }

  /// Inlines branch `f` on `args` under `prefix`, its input-less nodes waiting on `pivot`.
  Branch branch(const tensorflow::FunctionDef& f, const tensorflow::NodeDef& n,
                const std::string& prefix, const std::vector<std::string>& args,
                const std::string& pivot, std::size_t outputs, int depth) {
    Branch b{pivot, inline_function(f, n, prefix, args, pivot, depth)};
    expect(b.out.outputs.size() == outputs, n,
           "branch " + quoted(f.signature().name()) + " has " +
               std::to_string(b.out.outputs.size()) + " outputs for " + std::to_string(outputs) +
               " types in Tout");
    return b;
  }

  /// The end of an If or a Case: a Merge per output over the branches, and N completing when
  /// the branch taken (its control_ret nodes included) has run.
  tensorflow::NodeDef merge_branches(const tensorflow::NodeDef& n, const std::vector<Branch>& bs,
                                     const std::vector<int>& tout) {
    const std::string& name = n.name();
    const int count = static_cast<int>(bs.size());
    std::vector<std::string> merges;
    for (std::size_t j = 0; j < tout.size(); ++j) {
      const auto ty = type_attr(tout[j]);
      std::vector<std::string> ins;
      for (const auto& b : bs) ins.push_back(b.out.outputs[j]);
      merges.push_back(make(name + "/output", "Merge", ins, {}, n.device(), &ty));
      (*nodes_.back().mutable_attr())["N"].set_i(count);
    }
    std::vector<std::string> control;
    const bool stateful =
        std::any_of(bs.begin(), bs.end(), [](const Branch& b) { return !b.out.control.empty(); });
    if (tout.empty() || stateful) {
      const auto boolean = type_attr(tensorflow::DT_BOOL);
      std::vector<std::string> done;
      for (const auto& b : bs)
        done.push_back(make(name + "/branch_done", "Identity", {b.pivot}, b.out.control, n.device(),
                            &boolean));
      control.push_back(make(name + "/branch_executed", "Merge", done, {}, n.device(), &boolean));
      (*nodes_.back().mutable_attr())["N"].set_i(count);
    }
    return result(n, merges, tout, control);
  }

  /// If: one Switch on the predicate for each input; the else branch on output 0, the then
  /// branch on output 1.
  tensorflow::NodeDef lower_if(const tensorflow::NodeDef& n, int depth) {
    const auto& then_f = function(n, "then_branch");
    const auto& else_f = function(n, "else_branch");
    const std::vector<int> tin = types(n, "Tin");
    const std::vector<int> tout = types(n, "Tout");
    const Inputs in = split_inputs(n);
    expect(in.data.size() == tin.size() + 1, n,
           std::to_string(in.data.size()) + " inputs for a predicate and " +
               std::to_string(tin.size()) + " types in Tin");
    const auto sw = switch_on(n, in.data[0], tin, true);  // switch_pred, pivot_f, pivot_t, ...
    std::vector<Branch> bs;
    bs.push_back(
        branch(else_f, n, n.name() + "/else", sides(sw, 3, ""), sw[1], tout.size(), depth));
    bs.push_back(
        branch(then_f, n, n.name() + "/then", sides(sw, 3, ":1"), sw[2], tout.size(), depth));
    return merge_branches(n, bs, tout);
  }

  /// Case: branch i runs when the index is i, the last branch for any index out of range
  /// (TensorFlow's Case); branch i's inputs are Switches on `index == i`.
  tensorflow::NodeDef lower_case(const tensorflow::NodeDef& n, int depth) {
    auto it = n.attr().find("branches");
    expect(it != n.attr().end() && it->second.list().func_size() > 0, n,
           "no functions in attribute 'branches'");
    const auto& funcs = it->second.list().func();
    const std::vector<int> tin = types(n, "Tin");
    const std::vector<int> tout = types(n, "Tout");
    const Inputs in = split_inputs(n);
    expect(in.data.size() == tin.size() + 1, n,
           std::to_string(in.data.size()) + " inputs for a branch index and " +
               std::to_string(tin.size()) + " types in Tin");
    const std::string& name = n.name();
    const std::string& index = in.data[0];
    const auto int32 = type_attr(tensorflow::DT_INT32);
    if (funcs.size() == 1) {
      // The only branch always runs, on the inputs as they are, after N's control inputs.
      const auto& f = lookup(n, funcs[0].name());
      const std::string start =
          make(name + "/branch_start", "Identity", {index}, in.control, n.device(), &int32);
      const std::vector<std::string> args(in.data.begin() + 1, in.data.end());
      return merge_branches(
          n, {branch(f, n, name + "/branch0", gated(n, f, args, start), start, tout.size(), depth)},
          tout);
    }
    // Predicates index == i, and for the last branch none of them. The Consts wait on the
    // index's node, so they are in its frame (and dead with it).
    const std::string index_node = index.substr(0, index.find(':'));
    std::vector<std::string> preds;
    std::string any;
    for (int i = 0; i + 1 < funcs.size(); ++i) {
      const std::string k = make(name + "/branch_index", "Const", {}, {index_node}, n.device());
      auto& attrs = *nodes_.back().mutable_attr();
      attrs["dtype"].set_type(tensorflow::DT_INT32);
      auto* value = attrs["value"].mutable_tensor();
      value->set_dtype(tensorflow::DT_INT32);
      value->mutable_tensor_shape();
      value->add_int_val(i);
      preds.push_back(make(name + "/is_branch", "Equal", {index, k}, {}, n.device(), &int32));
      any = any.empty()
                ? preds.back()
                : make(name + "/any_branch", "LogicalOr", {any, preds.back()}, {}, n.device());
    }
    preds.push_back(make(name + "/default_branch", "LogicalNot", {any}, {}, n.device()));
    std::vector<Branch> bs;
    for (int i = 0; i < funcs.size(); ++i) {
      const auto& f = lookup(n, funcs[i].name());
      const auto sw = switch_on(n, preds[static_cast<std::size_t>(i)], tin, false);
      bs.push_back(branch(f, n, name + "/branch" + std::to_string(i), sides(sw, 2, ":1"), sw[1],
                          tout.size(), depth));
    }
    return merge_branches(n, bs, tout);
  }

  tensorflow::NodeDef lower_call(const tensorflow::NodeDef& n, int depth) {
    const bool partitioned = kind_of(n.op()) == Kind::call;
    const auto& f = partitioned ? function(n, "f") : lookup(n, n.op());
    const Inputs in = split_inputs(n);
    const std::string& name = n.name();
    std::vector<std::string> args = in.data;
    std::string control_source;
    if (!in.control.empty()) {
      // Every node of the body waits on the call's control inputs, through its inputs.
      control_source = make(name + "/input_control_node", "NoOp", {}, in.control, n.device());
      args = gated(n, f, args, control_source);
    }
    const auto out = inline_function(f, n, name, args, control_source, depth);
    std::vector<int> out_types;
    for (const auto& a : f.signature().output_arg()) out_types.push_back(a.type());
    std::vector<std::string> control = out.control;
    if (out.outputs.empty() && control.empty()) control = in.control;
    return result(n, out.outputs, out_types, control);
  }

  /// `args` through Identities named `N/input` that wait on `gate`, so a function's body runs
  /// after it; InvalidArgument when `f` is generic or takes another number of arguments.
  std::vector<std::string> gated(const tensorflow::NodeDef& n, const tensorflow::FunctionDef& f,
                                 std::vector<std::string> args, const std::string& gate) {
    const auto& sig = f.signature();
    check_concrete(f, lowering_ + ": function " + quoted(sig.name()));
    expect(args.size() == static_cast<std::size_t>(sig.input_arg_size()), n,
           "function " + quoted(sig.name()) + " takes " + std::to_string(sig.input_arg_size()) +
               " arguments, given " + std::to_string(args.size()));
    for (std::size_t i = 0; i < args.size(); ++i) {
      const auto ty = type_attr(sig.input_arg(static_cast<int>(i)).type());
      args[i] = make(n.name() + "/input", "Identity", {args[i]}, {gate}, n.device(), &ty);
    }
    return args;
  }

  /// InvalidArgument unless `f` is concrete: every argument and result one tensor of a fixed
  /// type, no attributes in its signature (TensorFlow instantiates those per call).
  static void check_concrete(const tensorflow::FunctionDef& f, const std::string& where) {
    const auto& sig = f.signature();
    if (sig.attr_size() > 0)
      fail(where + ": attribute " + quoted(sig.attr(0).name()) +
           " of its signature makes it generic; actorflow inlines concrete functions only");
    for (const auto* args : {&sig.input_arg(), &sig.output_arg()})
      for (const auto& a : *args)
        if (!a.number_attr().empty() || !a.type_list_attr().empty() || !a.type_attr().empty() ||
            a.type() == tensorflow::DT_INVALID)
          fail(where + ": argument " + quoted(a.name()) +
               " is a list or of a type attribute; actorflow inlines concrete functions only");
    if (const std::string* key = placeholder_attr(f.attr()))
      fail(where + ": attribute " + quoted(*key) + " is a placeholder (a generic function)");
  }

  /// Inlines `f` for `caller` under `prefix`: `args` feed its input arguments, and its nodes
  /// without inputs wait on `control_source` (none when empty), as do the calls in it.
  Inlined inline_function(const tensorflow::FunctionDef& f, const tensorflow::NodeDef& caller,
                          const std::string& prefix, const std::vector<std::string>& args,
                          const std::string& control_source, int depth) {
    const auto& sig = f.signature();
    const std::string where =
        "node " + quoted(caller.name()) + " (" + caller.op() + "): function " + quoted(sig.name());
    if (sig.input_arg_size() != static_cast<int>(args.size()))
      fail(where + " takes " + std::to_string(sig.input_arg_size()) + " arguments, given " +
           std::to_string(args.size()));
    check_concrete(f, where);
    std::unordered_map<std::string, std::string> arg_tensor;
    std::unordered_map<std::string, int> arg_type;
    for (int i = 0; i < sig.input_arg_size(); ++i) {
      arg_tensor[sig.input_arg(i).name()] = args[static_cast<std::size_t>(i)];
      arg_type[sig.input_arg(i).name()] = sig.input_arg(i).type();
    }
    // `^arg`: an Identity of the argument, made once, dead where the argument is (a Switch's
    // control edge would be live on both sides).
    std::unordered_map<std::string, std::string> arg_control;
    auto control_of_arg = [&](const std::string& arg) {
      auto [it, inserted] = arg_control.emplace(arg, std::string());
      if (inserted) {
        const auto ty = type_attr(arg_type[arg]);
        it->second = make(prefix + "/" + arg + "/control", "Identity", {arg_tensor[arg]}, {},
                          caller.device(), &ty);
      }
      return it->second;
    };
    std::unordered_map<std::string, const tensorflow::NodeDef*> body;
    std::unordered_map<std::string, std::string> renamed;
    for (const auto& b : f.node_def()) {
      if (!body.emplace(b.name(), &b).second)
        fail(where + ": node " + quoted(b.name()) + " is not unique");
      renamed[b.name()] = fresh(prefix + "/" + b.name());
    }
    auto translate = [&](const std::string& ref, const std::string& at) -> std::string {
      std::vector<std::string> parts;
      for (std::size_t start = 0;;) {
        const auto colon = ref.find(':', start);
        parts.push_back(ref.substr(start, colon - start));
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
      if (parts.size() == 1) {
        if (auto a = arg_tensor.find(ref); a != arg_tensor.end()) return a->second;
        if (body.count(ref)) return renamed[ref];
        fail(where + ", " + at + ": input " + quoted(ref) + " names no argument or node");
      }
      auto b = body.find(parts[0]);
      if (b == body.end() || parts.size() > 3)
        fail(where + ", " + at + ": input " + quoted(ref) + " names no node of the function");
      const std::string& index = parts.back();
      if (parts.size() == 2 && all_digits(index))
        return tensor(renamed[parts[0]], std::stoi(index));
      if (parts.size() == 3 && !all_digits(index))
        fail(where + ", " + at + ": input " + quoted(ref) + " has no output index");
      const int k = parts.size() == 3 ? std::stoi(index) : 0;
      return tensor(renamed[parts[0]], output_index(*b->second, parts[1], k, where + ", " + at));
    };
    for (const auto& b : f.node_def()) {
      const std::string at = "node " + quoted(b.name());
      if (const std::string* key = placeholder_attr(b.attr()))
        fail(where + ", " + at + ": attribute " + quoted(*key) +
             " is a placeholder (a generic function)");
      tensorflow::NodeDef copy = b;
      copy.set_name(renamed[b.name()]);
      if (copy.device().empty()) copy.set_device(caller.device());
      // Colocation (`_class: loc:@x`) with a body node follows its new name; with a node
      // outside the function (a gradient function names the forward graph's) it is dropped.
      if (auto cls = copy.mutable_attr()->find("_class"); cls != copy.mutable_attr()->end()) {
        auto* entries = cls->second.mutable_list()->mutable_s();
        std::vector<std::string> kept;
        for (const auto& e : *entries)
          if (e.rfind("loc:@", 0) != 0 || body.count(e.substr(5)))
            kept.push_back(e.rfind("loc:@", 0) == 0 ? "loc:@" + renamed[e.substr(5)] : e);
        entries->Clear();
        for (auto& e : kept) *entries->Add() = std::move(e);
        if (kept.empty()) copy.mutable_attr()->erase("_class");
      }
      copy.clear_input();
      bool has_input = false, has_control = false;
      for (const auto& ref : b.input()) {
        has_input = true;
        if (!ref.empty() && ref[0] == '^') {
          has_control = true;
          const std::string target = ref.substr(1);
          if (body.count(target)) {
            copy.add_input("^" + renamed[target]);
          } else if (arg_tensor.count(target)) {
            copy.add_input("^" + control_of_arg(target));
          } else {
            fail(where + ", " + at + ": control input " + quoted(ref) + " names nothing");
          }
        } else {
          copy.add_input(translate(ref, at));
        }
      }
      // Input-less nodes, and calls (whose bodies may hold some), wait on the control source
      // so they run in the caller's frame and branch (TensorFlow's InlineFunctionBody).
      if (!control_source.empty() && (!has_input || (is_functional(b.op()) && !has_control)))
        copy.add_input("^" + control_source);
      add(std::move(copy), depth + 1);
    }
    Inlined out;
    for (const auto& a : sig.output_arg()) {
      auto r = f.ret().find(a.name());
      if (r == f.ret().end()) fail(where + ": output " + quoted(a.name()) + " has no ret entry");
      out.outputs.push_back(translate(r->second, "output " + quoted(a.name())));
    }
    for (const auto& a : sig.control_output()) {
      auto r = f.control_ret().find(a);
      if (r == f.control_ret().end() || !body.count(r->second))
        fail(where + ": control output " + quoted(a) + " names no node of the function");
      out.control.push_back(renamed[r->second]);
    }
    return out;
  }

  /// The flat output index of output argument `arg`, element `k`, of body node `b`.
  int output_index(const tensorflow::NodeDef& b, const std::string& arg, int k,
                   const std::string& where) {
    const std::string missing =
        where + ": " + b.op() + " has no output " + quoted(arg + ":" + std::to_string(k));
    if (auto f = functions_.find(b.op()); f != functions_.end()) {
      const auto& args = f->second->signature().output_arg();
      for (int i = 0; i < args.size(); ++i)
        if (args[i].name() == arg && k == 0) return i;
      fail(missing);
    }
    auto t = op_outputs().find(b.op());
    if (t == op_outputs().end()) return k;  // one output argument (a list for Split, ...)
    int first = 0;
    for (const OutputArg& a : t->second) {
      const int size = arg_size(b, a);
      if (arg == a.name) {
        if (k < 0 || k >= size) fail(missing);
        return first + k;
      }
      first += size;
    }
    fail(missing);
  }

  const tensorflow::GraphDef& graph_;
  std::string lowering_ = "GraphDef";  // the functional node being lowered, for errors
  std::size_t max_nodes_ = 0;
  std::size_t max_name_bytes_ = 0;
  std::size_t name_bytes_ = 0;
  std::unordered_map<std::string, int> next_suffix_;
  std::unordered_map<std::string, const tensorflow::FunctionDef*> functions_;
  std::unordered_set<std::string> names_;
  std::vector<tensorflow::NodeDef> nodes_;
  std::deque<std::pair<std::size_t, int>> pending_;  // (index in nodes_, inlining depth)
};

}  // namespace

bool has_functional_ops(const tensorflow::GraphDef& g) {
  std::unordered_set<std::string> functions;
  for (const auto& f : g.library().function()) functions.insert(f.signature().name());
  return std::any_of(g.node().begin(), g.node().end(), [&](const tensorflow::NodeDef& n) {
    return kind_of(n.op()) != Kind::none || functions.count(n.op());
  });
}

StatusOr<tensorflow::GraphDef> lower_functional_ops(const tensorflow::GraphDef& g) {
  try {
    return Lowering(g).run();
  } catch (const LoweringError& e) {
    return invalid_argument(std::string("GraphDef: ") + e.what());
  }
}

}  // namespace af::tfproto
