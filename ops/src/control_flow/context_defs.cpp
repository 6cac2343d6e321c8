// Control-flow contexts to and from TensorFlow's WhileContextDef and CondContextDef
// (control_flow_ops.py's to_proto, from_proto and _init_values_from_proto): a context's
// names, its values sorted, its external values (a tensor from outside -> what stands for
// it inside) and its nested contexts. Reading one gives every op of its values that is not
// an external value the context; nested contexts are read after their outer one, so an
// op of an inner branch, which is in the outer contexts' values too, ends in the inner one.
#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <unordered_set>

#include "actorflow/ops/control_flow_defs.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/tf/control_flow.pb.h"
#include "context_access.hpp"

namespace af {

namespace detail {

std::vector<std::shared_ptr<ControlFlowContext>> ControlFlowAccess::contexts_in_order(
    const Graph& g) {
  std::vector<std::shared_ptr<ControlFlowContext>> out;
  std::unordered_set<const ControlFlowContext*> seen;
  std::shared_lock<std::shared_mutex> lock(g.mu_);
  for (Node* n : g.nodes_locked()) {
    auto it = g.context_of_.find(n);
    if (it == g.context_of_.end()) continue;
    // Outer contexts first: a nested context's first op may come before its outer one's.
    std::vector<std::shared_ptr<ControlFlowContext>> chain;
    for (auto c = it->second; c && !seen.count(c.get()); c = c->outer) chain.push_back(c);
    for (auto c = chain.rbegin(); c != chain.rend(); ++c) {
      seen.insert(c->get());
      out.push_back(*c);
    }
  }
  return out;
}

void ControlFlowAccess::set_context(Graph& g, Node* op,
                                    const std::shared_ptr<ControlFlowContext>& context) {
  std::unique_lock<std::shared_mutex> lock(g.mu_);
  g.context_of_[op] = context;
}

void ControlFlowAccess::set_frame_name(Graph& g, Node* op, const std::string& frame_name) {
  std::unique_lock<std::shared_mutex> lock(g.mu_);
  op->def_.attrs["frame_name"] = frame_name;
  ++g.version_;
}

}  // namespace detail

namespace {

using detail::ControlFlowAccess;

// -- writing ------------------------------------------------------------------------------------

void write_values(const ControlFlowContext& c, tensorflow::ValuesDef* out) {
  for (const auto& v : c.values) out->add_values(v);  // a std::set: sorted
  auto& external = *out->mutable_external_values();
  for (const auto& [name, inside] : c.external) external[name] = inside.name();
}

using Nesting =
    std::unordered_map<const ControlFlowContext*, std::vector<std::shared_ptr<ControlFlowContext>>>;

void write_while(const Nesting& nested, const WhileContext& loop, tensorflow::WhileContextDef* out);
void write_cond(const Nesting& nested, const CondBranch& branch, tensorflow::CondContextDef* out);

void write_nested(const Nesting& nested, const ControlFlowContext& outer,
                  google::protobuf::RepeatedPtrField<tensorflow::ControlFlowContextDef>* out) {
  auto it = nested.find(&outer);
  if (it == nested.end()) return;
  for (const auto& c : it->second) {
    if (const auto* loop = dynamic_cast<const WhileContext*>(c.get()))
      write_while(nested, *loop, out->Add()->mutable_while_ctxt());
    else if (const auto* branch = dynamic_cast<const CondBranch*>(c.get()))
      write_cond(nested, *branch, out->Add()->mutable_cond_ctxt());
  }
}

void write_while(const Nesting& nested, const WhileContext& loop,
                 tensorflow::WhileContextDef* out) {
  out->set_context_name(loop.frame_name);
  out->set_parallel_iterations(loop.parallel_iterations);
  if (loop.maximum_iterations.valid())
    out->set_maximum_iterations_name(loop.maximum_iterations.name());
  out->set_back_prop(loop.back_prop);
  out->set_swap_memory(false);
  if (loop.pivot_for_pred.valid()) out->set_pivot_for_pred_name(loop.pivot_for_pred.name());
  if (loop.pivot_for_body.valid()) out->set_pivot_for_body_name(loop.pivot_for_body.name());
  if (loop.pivot.valid()) out->set_pivot_name(loop.pivot.name());
  for (const auto& e : loop.loop_exits) out->add_loop_exit_names(e.name());
  for (const auto& e : loop.loop_enters) out->add_loop_enter_names(e.name());
  write_values(loop, out->mutable_values_def());
  write_nested(nested, loop, out->mutable_nested_contexts());
}

void write_cond(const Nesting& nested, const CondBranch& branch, tensorflow::CondContextDef* out) {
  out->set_context_name(cond_context_name(branch));
  out->set_pred_name(branch.pred.name());
  out->set_pivot_name(branch.pivot.name());
  out->set_branch(branch.branch);
  write_values(branch, out->mutable_values_def());
  write_nested(nested, branch, out->mutable_nested_contexts());
}

std::string serialized(const google::protobuf::MessageLite& m) {
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

// -- reading ------------------------------------------------------------------------------------

/// What reading one collection entry needs: the graph, the scope and the place to name.
struct Reader {
  Graph& g;
  const std::string& scope;
  const std::string& where;

  std::string scoped(const std::string& name) const {
    return scope.empty() ? name : scope + "/" + name;
  }

  /// The op of the tensor `full_name` (scoped already); NotFound naming the tensor.
  Node* op_of(const std::string& full_name) const {
    const std::string op = full_name.substr(0, full_name.find(':'));
    if (!g.contains(op))
      throw NotFoundError(not_found(where + ": no tensor '" + full_name + "' in the graph"));
    return g.operation(op).node();
  }

  Output tensor(const std::string& name) const {
    const std::string full = scoped(name);
    op_of(full);
    return g.output(full);
  }

  /// Values and external values; puts the ops among the values that are not external
  /// values in `context` and returns them.
  std::unordered_set<Node*> read_values(const tensorflow::ValuesDef& def,
                                        const std::shared_ptr<ControlFlowContext>& context) const {
    for (const auto& v : def.values()) context->values.insert(scoped(v));
    for (const auto& [k, v] : def.external_values())
      context->external.emplace(scoped(k), tensor(v));
    std::unordered_set<Node*> inside;
    for (const auto& v : context->values) {
      if (context->external.count(v)) continue;
      Node* op = op_of(v);
      if (inside.insert(op).second) ControlFlowAccess::set_context(g, op, context);
    }
    return inside;
  }

  std::shared_ptr<ControlFlowContext> read_nested(
      const tensorflow::ControlFlowContextDef& def,
      const std::shared_ptr<ControlFlowContext>& outer) const {
    if (def.has_while_ctxt()) return read_while(def.while_ctxt(), outer);
    if (def.has_cond_ctxt()) return read_cond(def.cond_ctxt(), outer);
    throw InvalidArgumentError(
        invalid_argument(where + ": a nested ControlFlowContextDef holds no context"));
  }

  std::shared_ptr<WhileContext> read_while(const tensorflow::WhileContextDef& def,
                                           const std::shared_ptr<ControlFlowContext>& outer) const {
    auto loop = std::make_shared<WhileContext>();
    loop->outer = outer;
    loop->frame_name = scoped(def.context_name());
    if (!def.maximum_iterations_name().empty())
      loop->maximum_iterations = tensor(def.maximum_iterations_name());
    loop->parallel_iterations = def.parallel_iterations();
    loop->back_prop = def.back_prop();
    loop->pivot_for_pred = tensor(def.pivot_for_pred_name());
    loop->pivot_for_body = tensor(def.pivot_for_body_name());
    loop->pivot = tensor(def.pivot_name());
    for (const auto& name : def.loop_exit_names()) loop->loop_exits.push_back(tensor(name));
    for (const auto& name : def.loop_enter_names()) loop->loop_enters.push_back(tensor(name));
    const std::unordered_set<Node*> inside = read_values(def.values_def(), loop);
    // The import scope changed the loop's name: its Enters name the frame anew.
    if (!scope.empty())
      for (Node* op : inside)
        if (detail::is_enter(op)) ControlFlowAccess::set_frame_name(g, op, loop->frame_name);
    for (const auto& nested : def.nested_contexts()) read_nested(nested, loop);
    return loop;
  }

  std::shared_ptr<CondBranch> read_cond(const tensorflow::CondContextDef& def,
                                        const std::shared_ptr<ControlFlowContext>& outer) const {
    auto branch = std::make_shared<CondBranch>();
    branch->outer = outer;
    branch->pred = tensor(def.pred_name());
    branch->pivot = tensor(def.pivot_name());
    branch->branch = def.branch();
    read_values(def.values_def(), branch);
    for (const auto& nested : def.nested_contexts()) read_nested(nested, branch);
    return branch;
  }
};

}  // namespace

std::string cond_context_name(const CondBranch& branch) {
  const std::string pivot = branch.pivot.valid() ? branch.pivot.node()->name() : std::string();
  const auto slash = pivot.rfind('/');
  const std::string scope = slash == std::string::npos ? std::string() : pivot.substr(0, slash + 1);
  return scope + (branch.branch == 1 ? "cond_text" : "cond_text_1");
}

ControlFlowContextWriter::ControlFlowContextWriter(const Graph& g) {
  for (auto& c : ControlFlowAccess::contexts_in_order(g)) nested_[c->outer.get()].push_back(c);
}

std::string ControlFlowContextWriter::while_context(const WhileContext& loop) const {
  tensorflow::WhileContextDef def;
  write_while(nested_, loop, &def);
  return serialized(def);
}

std::string ControlFlowContextWriter::cond_context(const CondBranch& branch) const {
  tensorflow::CondContextDef def;
  write_cond(nested_, branch, &def);
  return serialized(def);
}

std::shared_ptr<const WhileContext> import_while_context(Graph& g, const std::string& bytes,
                                                         const std::string& import_scope,
                                                         const std::string& where) {
  tensorflow::WhileContextDef def;
  if (!def.ParseFromString(bytes))
    throw InvalidArgumentError(invalid_argument(where + ": not a binary WhileContextDef"));
  return Reader{g, import_scope, where}.read_while(def, nullptr);
}

std::shared_ptr<const CondBranch> import_cond_context(Graph& g, const std::string& bytes,
                                                      const std::string& import_scope,
                                                      const std::string& where) {
  tensorflow::CondContextDef def;
  if (!def.ParseFromString(bytes))
    throw InvalidArgumentError(invalid_argument(where + ": not a binary CondContextDef"));
  return Reader{g, import_scope, where}.read_cond(def, nullptr);
}

}  // namespace af
