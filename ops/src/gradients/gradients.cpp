// TensorFlow 1.x's reverse-mode walk (`_GradientsHelper` in gradients_util.py), its gradient
// registry, and the building blocks the gradient functions share.
//
// The walk, in TensorFlow's order so the backward graph gets TensorFlow's names:
//   1. ys with consumers get an Identity when there are several ys; default grad_ys are
//      Fills `grad_ys_<i>` of ones of y's shape, given ones pass through Identity `grad_ys_<i>`.
//   2. reached = ops reachable from the xs' ops through backpropagatable (float) tensors;
//      between = reached ops that the ys reach backwards through data inputs; each between
//      op's pending count is the number of between consumers' input edges.
//   3. stop ops = xs' ops with no between input, plus the ops of `stop_gradients`.
//   4. A FIFO queue starts with the ys' ops of pending count 0. For each op: aggregate each
//      output's gradients (AddN per device, then across devices), give float outputs
//      without a gradient ZerosLike, call the op's gradient function under
//      `<op>_grad/`, optionally gate the results through `tuple()`, hand each input its
//      gradient and enqueue producers whose pending count reaches 0.
// A while loop between them (one built by `while_loop`) gets a gradient loop
// (control_flow/grad_loop_state.hpp, TensorFlow's _ControlFlowState): the gradient ops of
// the loop's ops are built in it, a loop's Exits wait for each other, and a loop Switch is
// visited twice (from its Exit, then from its body).
#include "actorflow/ops/gradients.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "../control_flow/grad_loop_state.hpp"
#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af {

// -- registry ---------------------------------------------------------------------------------

GradientRegistry& GradientRegistry::global() {
  static GradientRegistry* registry = [] {
    auto* r = new GradientRegistry;  // never destroyed: registrations outlive static destructors
    register_standard_gradients(*r);
    return r;
  }();
  return *registry;
}

void GradientRegistry::add(const std::string& type, GradientFunction fn) {
  std::lock_guard<std::mutex> guard(mu_);
  sparse_functions_.erase(type);
  functions_[type] = std::make_shared<GradientFunction>(std::move(fn));
}

void GradientRegistry::add_sparse(const std::string& type, SparseGradientFunction fn) {
  std::lock_guard<std::mutex> guard(mu_);
  functions_.erase(type);
  sparse_functions_[type] = std::make_shared<SparseGradientFunction>(std::move(fn));
}

const SparseGradientFunction* GradientRegistry::find_sparse(const std::string& type) const {
  std::lock_guard<std::mutex> guard(mu_);
  auto it = sparse_functions_.find(type);
  return it == sparse_functions_.end() ? nullptr : it->second.get();
}

void GradientRegistry::add_not_differentiable(const std::string& type) {
  std::lock_guard<std::mutex> guard(mu_);
  sparse_functions_.erase(type);
  functions_[type] = nullptr;
}

bool GradientRegistry::contains(const std::string& type) const {
  std::lock_guard<std::mutex> guard(mu_);
  return functions_.count(type) > 0 || sparse_functions_.count(type) > 0;
}

const GradientFunction* GradientRegistry::find(const std::string& type) const {
  std::lock_guard<std::mutex> guard(mu_);
  auto it = functions_.find(type);
  return it == functions_.end() ? nullptr : it->second.get();
}

std::vector<std::string> GradientRegistry::types() const {
  std::lock_guard<std::mutex> guard(mu_);
  std::vector<std::string> out;
  for (auto& [type, fn] : functions_) out.push_back(type);
  for (auto& [type, fn] : sparse_functions_) out.push_back(type);
  std::sort(out.begin(), out.end());
  return out;
}

void register_standard_gradients(GradientRegistry& r) {
  detail::register_math_gradients(r);
  detail::register_cwise_gradients(r);
  detail::register_complex_gradients(r);
  detail::register_nn_gradients(r);
  detail::register_array_gradients(r);
  detail::register_control_flow_gradients(r);
  detail::register_tensor_array_gradients(r);
  detail::register_gather_nd_gradients(r);
  detail::register_segment_gradients(r);
  detail::register_image_gradients(r);
  detail::register_space_batch_gradients(r);
  detail::register_linalg_gradients(r);
  detail::register_misc_math_gradients(r);
  detail::register_string_gradients(r);
  detail::register_image_proc_gradients(r);
  detail::register_lookup_gradients(r);
  detail::register_patches_pool_gradients(r);
  detail::register_random_more_gradients(r);
  detail::register_misc_array_gradients(r);
  detail::register_linalg_decomp_gradients(r);
  detail::register_einsum_gradients(r);
  detail::register_conv3d_gradients(r);
  detail::register_scatter_nd_variable_gradients(r);
  detail::register_image_color_gradients(r);
  detail::register_sparse_tensor_gradients(r);
  detail::register_rnn_block_gradients(r);
  detail::register_sets_sparse_gradients(r);
  detail::register_math_special_gradients(r);
  detail::register_seq_ctc_gradients(r);
  detail::register_serialize_io_gradients(r);
  detail::register_array_more_gradients(r);
  detail::register_image_more_gradients(r);
  detail::register_nn_legacy_gradients(r);
}

// -- building blocks ----------------------------------------------------------------------------

namespace detail {

std::optional<std::vector<std::int64_t>> constant_ints(const Output& x) {
  if (!x.valid() || x.node()->type() != "Const") return std::nullopt;
  const Tensor* t = x.node()->def().attr<Tensor>("value");
  if (!t) return std::nullopt;
  std::vector<std::int64_t> out;
  if (t->dtype() == DType::int32) {
    for (auto v : t->flat<std::int32_t>()) out.push_back(v);
  } else if (t->dtype() == DType::int64) {
    for (auto v : t->flat<std::int64_t>()) out.push_back(v);
  } else {
    return std::nullopt;
  }
  return out;
}

Output int_constant(Graph& g, const std::vector<std::int64_t>& values, std::string_view name) {
  std::vector<std::int32_t> v(values.begin(), values.end());
  return g.constant(Tensor::from_vector(v), name);
}

Output shape_of(const Output& x, std::string_view name) {
  if (x.shape().fully_defined()) return int_constant(x.graph(), x.shape().dims(), name);
  return dynamic_shape(x, name);
}

Output dynamic_shape(const Output& x, std::string_view name) {
  return x.graph()
      .create_op("Shape", {x}, {{"T", x.dtype()}, {"out_type", DType::int32}}, name)
      .output(0);
}

Output zeros_of_shape(const Output& shape, DType dtype) {
  Graph& g = shape.graph();
  const std::string name = g.unique_name("zeros");
  Output zero;
  {
    auto scope = g.name_scope(name + "/");
    zero = g.constant(Tensor(dtype, Shape{}), "Const");
  }
  return g
      .create_op("Fill", {shape, zero}, {{"T", dtype}, {"index_type", DType::int32}}, name + "/")
      .output(0);
}

Output reshape_op(const Output& x, const Output& shape, std::string_view name) {
  return x.graph()
      .create_op("Reshape", {x, shape}, {{"T", x.dtype()}, {"Tshape", shape.dtype()}}, name)
      .output(0);
}

Output sum_op(const Output& x, const Output& axes, bool keep_dims, std::string_view name) {
  return x.graph()
      .create_op("Sum", {x, axes},
                 {{"keep_dims", keep_dims}, {"T", x.dtype()}, {"Tidx", axes.dtype()}}, name)
      .output(0);
}

Output tile_op(const Output& x, const Output& multiples, std::string_view name) {
  return x.graph()
      .create_op("Tile", {x, multiples}, {{"T", x.dtype()}, {"Tmultiples", multiples.dtype()}},
                 name)
      .output(0);
}

Output zeros_like_op(const Output& x, std::string_view name) {
  return x.graph().create_op("ZerosLike", {x}, {{"T", x.dtype()}}, name).output(0);
}

Output add_n_op(const std::vector<Output>& inputs, std::string_view name) {
  if (inputs.size() == 1) return inputs[0];
  return inputs[0]
      .graph()
      .create_op("AddN", inputs,
                 {{"N", static_cast<std::int64_t>(inputs.size())}, {"T", inputs[0].dtype()}}, name)
      .output(0);
}

Output unary(const char* type, const Output& x, std::string_view name) {
  return x.graph().create_op(type, {x}, {{"T", x.dtype()}}, name.empty() ? type : name).output(0);
}

Output binary(const char* type, const Output& x, const Output& y, std::string_view name) {
  return x.graph()
      .create_op(type, {x, y}, {{"T", x.dtype()}}, name.empty() ? type : name)
      .output(0);
}

std::pair<Output, Output> reduce_broadcast(const Operation& op, const Output& full_x,
                                           const Output& full_y) {
  const Output x = op.node()->inputs()[0];
  const Output y = op.node()->inputs()[1];
  Graph& g = op.graph();
  const PartialShape& px = x.shape();
  const PartialShape& py = y.shape();
  if (px.fully_defined() && py.fully_defined()) {
    // Both shapes are known while building: reduce only where broadcasting happened.
    std::vector<std::int64_t> rx, ry;
    throw_if_error(broadcast_reduction_axes(px.dims(), py.dims(), &rx, &ry));
    auto reduce = [&](const Output& full, const std::vector<std::int64_t>& axes,
                      const PartialShape& target, const char* sum_name,
                      const char* reshape_name) -> Output {
      if (!full.valid()) return {};
      if (axes.empty() && full.shape() == target) return full;
      Output summed =
          axes.empty() ? full : sum_op(full, int_constant(g, axes, "Const"), false, sum_name);
      if (summed.shape() == target) return summed;
      return reshape_op(summed, int_constant(g, target.dims(), "Const"), reshape_name);
    };
    return {reduce(full_x, rx, px, "Sum", "Reshape"), reduce(full_y, ry, py, "Sum_1", "Reshape_1")};
  }
  Output sx = shape_of(x, "Shape");
  Output sy = shape_of(y, "Shape_1");
  Operation args = g.create_op("BroadcastGradientArgs", {sx, sy}, {{"T", DType::int32}},
                               "BroadcastGradientArgs");
  Output gx, gy;
  if (full_x.valid()) gx = reshape_op(sum_op(full_x, args.output(0), false, "Sum"), sx, "Reshape");
  if (full_y.valid())
    gy = reshape_op(sum_op(full_y, args.output(1), false, "Sum_1"), sy, "Reshape_1");
  return {gx, gy};
}

}  // namespace detail

// -- the walk -------------------------------------------------------------------------------------

namespace {

// Tensors the walk follows (`_IsBackpropagatable`) and that get zeros when they have no
// gradient (`_IsTrainable`): floating point, complex and resources.
bool is_backpropagatable(DType t) {
  return is_floating(t) || is_complex(t) || t == DType::resource;
}

struct OutputGrads {
  std::vector<std::vector<Gradient>> per_output;  // gradients received by each output
  std::vector<Gradient> aggregated;               // after aggregation
};

class GradientWalk {
 public:
  GradientWalk(Graph& g, const GradientsOptions& options) : g_(g), options_(options) {}

  std::vector<Gradient> run(std::vector<Output> ys, const std::vector<Output>& xs,
                            std::vector<Output> grad_ys) {
    if (ys.size() > 1) {
      // Several ys: one that other ops consume gets an Identity, so the ys' gradients are
      // not mixed with those flowing in from the consumers.
      std::set<const Node*> consumed;
      for (Node* n : g_.nodes())
        for (auto& in : n->inputs()) consumed.insert(in.node());
      for (auto& y : ys)
        if (consumed.count(y.node())) y = detail::unary("Identity", y, "Identity");
    }
    grad_ys = default_grad_ys(ys, grad_ys);
    collect_consumers();
    std::vector<Node*>& from_ops = from_ops_;
    for (auto& x : xs) from_ops.push_back(x.node());
    std::vector<Node*> to_ops;
    for (auto& y : ys) to_ops.push_back(y.node());
    mark_between(from_ops, to_ops);
    refuse_loops_without_context();
    loop_state_ = detail::ControlFlowState::create(g_, between_list_, between_);
    for (Node* op : between_list_)
      for (auto& in : op->inputs())
        if (between_.count(in.node())) ++pending_[in.node()];

    for (std::size_t i = 0; i < ys.size(); ++i) set_grad(ys[i], grad_ys[i]);
    std::deque<Node*> queue;
    std::unordered_set<const Node*> queued;
    for (Node* op : to_ops)
      if (pending_[op] == 0 && !queued.count(op) && reachable_to_.count(op)) {
        queued.insert(op);
        queue.push_back(op);
      }
    if (loop_state_) {
      for (const Output& y : loop_state_->process_unused_loop_exits(pending_, queued)) {
        if (!is_backpropagatable(y.dtype())) continue;
        set_grad(y, loop_state_->zeros_like_for_exit(y));
        queue.push_back(y.node());
      }
    }
    std::unordered_set<const Node*> stop_ops;
    for (Node* op : from_ops) {
      bool stop = true;
      for (auto& in : op->inputs())
        if (pending_[in.node()] > 0) stop = false;
      if (stop) stop_ops.insert(op);
    }
    for (auto& s : options_.stop_gradients) stop_ops.insert(s.node());
    while (!queue.empty()) {
      Node* op = queue.front();
      queue.pop_front();
      process(op, stop_ops.count(op) > 0);
      update_pending_and_enqueue(op, queue);
    }
    if (loop_state_) loop_state_->post_processing();

    std::vector<Gradient> result;
    for (auto& x : xs) {
      Gradient grad;
      if (auto it = grads_.find(x.node()); it != grads_.end()) {
        OutputGrads& og = it->second;
        const auto k = static_cast<std::size_t>(x.index());
        if (og.aggregated.size() > k && og.aggregated[k].valid())
          grad = og.aggregated[k];
        else if (!og.per_output[k].empty())
          grad = aggregate(og.per_output[k]);
      }
      if (!grad.valid() && options_.unconnected_zero) grad = detail::zeros_like_op(x, "zeros_like");
      result.push_back(grad);
    }
    return result;
  }

 private:
  std::vector<Output> default_grad_ys(const std::vector<Output>& ys,
                                      const std::vector<Output>& given) {
    std::vector<Output> out;
    for (std::size_t i = 0; i < ys.size(); ++i) {
      const Output& y = ys[i];
      const std::string name = "grad_ys_" + std::to_string(i);
      std::optional<ScopeGuard> colocate;
      if (options_.colocate_gradients_with_ops) colocate.emplace(g_.colocate_with(y.op()));
      if (i < given.size() && given[i].valid()) {
        if (given[i].dtype() != y.dtype())
          throw InvalidArgumentError(
              invalid_argument("Gradient type " + std::string(data_type_string(given[i].dtype())) +
                               " generated for " + y.name() + " with type " +
                               std::string(data_type_string(y.dtype())) + " does not match"));
        out.push_back(detail::unary("Identity", given[i], name));
        continue;
      }
      if (!is_floating(y.dtype()) && !is_integer(y.dtype()))
        throw InvalidArgumentError(invalid_argument("Gradients of " + y.name() + " of type " +
                                                    std::string(data_type_string(y.dtype())) +
                                                    " need an explicit grad_ys"));
      // As TensorFlow 2.x's tf.compat.v1 builds it: `ones(shape(y), name="grad_ys_<i>")`,
      // a Fill named after the scope with its scalar "grad_ys_<i>/Const".
      Output shape = detail::shape_of(y, "Shape");
      const std::string scope_name = g_.unique_name(name);
      Output one;
      {
        auto scope = g_.name_scope(scope_name + "/");
        one = g_.constant(ones_scalar(y.dtype()), "Const");
      }
      out.push_back(g_.create_op("Fill", {shape, one},
                                 {{"T", y.dtype()}, {"index_type", DType::int32}}, scope_name + "/")
                        .output(0));
    }
    return out;
  }

  static Tensor ones_scalar(DType t) {
    Tensor one(t, Shape{});
    visit_numeric_dtype(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>)
        one.data<bool>()[0] = true;
      else if constexpr (is_half_like_v<T>)
        one.data<T>()[0] = T(1.0f);
      else
        one.data<T>()[0] = T(1);
    });
    return one;
  }

  // Every node's consumers (one entry per input edge), laid out by node id in one array: a
  // gradients call on a large graph visits each of its edges once, without a map of vectors.
  void collect_consumers() {
    const std::vector<Node*> nodes = g_.nodes();
    int ids = 0;
    for (const Node* n : nodes) ids = std::max(ids, n->id() + 1);
    consumer_begin_.assign(static_cast<std::size_t>(ids) + 1, 0);
    for (const Node* n : nodes)
      for (auto& in : n->inputs()) ++consumer_begin_[static_cast<std::size_t>(in.node()->id()) + 1];
    for (std::size_t i = 1; i < consumer_begin_.size(); ++i)
      consumer_begin_[i] += consumer_begin_[i - 1];
    consumer_list_.resize(static_cast<std::size_t>(consumer_begin_.back()));
    std::vector<int> next(consumer_begin_.begin(), consumer_begin_.end() - 1);
    for (Node* n : nodes)
      for (auto& in : n->inputs())
        consumer_list_[static_cast<std::size_t>(
            next[static_cast<std::size_t>(in.node()->id())]++)] = n;
  }

  // The consumers collect_consumers saw of `op` (none for a node made after it).
  std::span<Node* const> consumers_of(const Node* op) const {
    const auto id = static_cast<std::size_t>(op->id());
    if (id + 1 >= consumer_begin_.size()) return {};
    return {consumer_list_.data() + consumer_begin_[id],
            static_cast<std::size_t>(consumer_begin_[id + 1] - consumer_begin_[id])};
  }

  // `_PendingCount`: the between ops and their pending counts.
  void mark_between(const std::vector<Node*>& from_ops, const std::vector<Node*>& to_ops) {
    std::unordered_set<const Node*> reached;
    std::deque<Node*> queue(from_ops.begin(), from_ops.end());
    while (!queue.empty()) {
      Node* op = queue.front();
      queue.pop_front();
      if (!reached.insert(op).second) continue;
      bool follows = false;
      for (int i = 0; i < op->num_outputs(); ++i)
        if (is_backpropagatable(op->output_types()[static_cast<std::size_t>(i)])) follows = true;
      if (!follows) continue;
      for (Node* c : consumers_of(op)) {
        // Only edges carrying a backpropagatable output count.
        for (auto& in : c->inputs())
          if (in.node() == op && is_backpropagatable(in.dtype())) {
            queue.push_back(c);
            break;
          }
      }
    }
    for (Node* op : to_ops)
      if (reached.count(op)) reachable_to_.insert(op);
    queue.assign(to_ops.begin(), to_ops.end());
    while (!queue.empty()) {
      Node* op = queue.front();
      queue.pop_front();
      if (!reached.erase(op)) continue;
      between_.insert(op);
      between_list_.push_back(op);
      for (auto& in : op->inputs()) queue.push_back(in.node());
    }
  }

  // A while loop between the xs and the ys that was not built here (an imported graph's):
  // without its WhileContext there is no gradient loop to build, and the loop's cycle would
  // leave the walk short, the gradient silently missing.
  void refuse_loops_without_context() const {
    for (const Node* op : between_) {
      const std::string& t = op->type();
      const bool loop_op = detail::is_enter(op) || detail::is_exit(op) || t == "NextIteration" ||
                           t == "RefNextIteration";
      if (loop_op && !g_.control_flow_context_of(op))
        throw UnimplementedError(unimplemented(
            "gradients: the gradient of a while loop not built by while_loop (an imported one) "
            "is not supported yet (op '" +
            op->name() + "' of type " + t + " lies between the ys and the xs)"));
    }
  }

  // TensorFlow's _RaiseNoGradWrtInitialLoopValError: a loop's own Switch met while building
  // in that loop (gradients asked inside a loop body with respect to a loop variable's
  // initial value, or through it).
  void refuse_gradient_through_initial_value(const Node* op) const {
    if (op->type() != "Switch" && op->type() != "RefSwitch") return;
    const auto context = g_.control_flow_context_of(op);
    if (!context || !dynamic_cast<const WhileContext*>(context.get()) ||
        context != g_.current_control_flow_context())
      return;
    std::deque<const Node*> queue = {op};
    std::unordered_set<const Node*> visited;
    const Node* target = op;
    while (!queue.empty()) {
      const Node* n = queue.front();
      queue.pop_front();
      if (!visited.insert(n).second) continue;
      if (std::find(from_ops_.begin(), from_ops_.end(), n) != from_ops_.end()) {
        target = n;
        break;
      }
      for (const auto& in : n->inputs()) queue.push_back(in.node());
    }
    throw InvalidArgumentError(invalid_argument(
        "Cannot compute gradient inside while loop with respect to op '" + target->name() +
        "'. We do not support taking the gradient wrt or through the initial value of a loop "
        "variable. Gradients can be computed through loop invariants or wrt the input "
        "parameters to the loop body."));
  }

  // Whether `op` has received a gradient (TensorFlow's _HasAnyNotNoneGrads).
  bool has_any_grad(const Node* op) const {
    auto it = grads_.find(op);
    if (it == grads_.end()) return false;
    for (const auto& list : it->second.per_output)
      if (!list.empty()) return true;
    for (const auto& t : it->second.aggregated)
      if (t.valid()) return true;
    return false;
  }

  // `_UpdatePendingAndEnqueueReady`: a producer is ready when its pending count reaches 0;
  // a loop Switch whenever one of its consumers is done; a loop's Exits only all together.
  void update_pending_and_enqueue(Node* op, std::deque<Node*>& queue) {
    for (auto& in : op->inputs()) {
      Node* x = in.node();
      const int left = --pending_[x];
      bool ready = left == 0;
      if (loop_state_ && !ready) ready = left > 0 && detail::is_loop_switch(x);
      if (!ready) continue;
      detail::GradLoopState* state =
          loop_state_ && detail::is_exit(x) ? loop_state_->grad_state(x, false) : nullptr;
      if (!state) {
        queue.push_back(x);
        continue;
      }
      state->deferred_exits.push_back(in);
      if (--state->pending_exits_count != 0) continue;
      bool has_real = false;
      for (const Output& y : state->deferred_exits) {
        if (has_any_grad(y.node())) {
          has_real = true;
          queue.push_back(y.node());
        } else {
          state->unused_exits.push_back(y);
        }
      }
      for (const Output& y : state->unused_exits) {
        if (has_real && is_backpropagatable(y.dtype()))
          set_grad(y, loop_state_->zeros_like_for_exit(y));
        queue.push_back(y.node());
      }
    }
  }

  OutputGrads& grads_of(Node* op) {
    OutputGrads& og = grads_[op];
    if (og.per_output.empty()) og.per_output.resize(static_cast<std::size_t>(op->num_outputs()));
    return og;
  }

  void set_grad(const Output& t, const Gradient& grad) {
    OutputGrads& og = grads_of(t.node());
    const auto k = static_cast<std::size_t>(t.index());
    if (og.aggregated.size() > k && og.aggregated[k].valid())
      og.aggregated[k] = grad;  // a loop Switch's second visit: the body's gradient
    else
      og.per_output[k].push_back(grad);
  }

  // `_AggregatedGrads`: one gradient as it is; dense ones by `_MultiDeviceAddN` (one AddN per
  // device, colocated with its first gradient, then one over the partial sums); with
  // IndexedSlices among them, by concatenation.
  Gradient aggregate(const std::vector<Gradient>& list) {
    if (list.size() == 1) return list[0];
    if (std::any_of(list.begin(), list.end(), [](const Gradient& t) { return t.is_slices(); }))
      return aggregate_slices(list);
    std::map<std::string, std::vector<Output>> by_device;
    for (auto& t : list) by_device[t.op().device()].push_back(t.dense());
    std::vector<Output> summands;
    for (auto& [device, tensors] : by_device) {
      auto colocate = g_.colocate_with(tensors[0].op());
      summands.push_back(detail::add_n_op(tensors, "AddN"));
    }
    return detail::add_n_op(summands, "AddN");
  }

  // `_AggregateIndexedSlicesGradients` as TensorFlow 2's tf.compat.v1 runs it: with a dense
  // gradient among them, everything densified and summed by AddN (TensorFlow 1.x made the
  // dense ones slices of all their rows instead; the sum is the same); otherwise the slices'
  // values and indices concatenated, int32 indices cast to int64 when others are int64.
  // Duplicates are kept; the dense shape is the first one's.
  Gradient aggregate_slices(const std::vector<Gradient>& list) {
    if (std::any_of(list.begin(), list.end(), [](const Gradient& t) { return !t.is_slices(); })) {
      std::vector<Output> dense;
      for (const Gradient& t : list) dense.push_back(t.to_dense());
      return detail::add_n_op(dense, "AddN");
    }
    const bool any_int64 = std::any_of(list.begin(), list.end(), [](const Gradient& t) {
      return t.slices().indices.dtype() == DType::int64;
    });
    std::vector<Output> values, indices;
    for (const Gradient& t : list) {
      const IndexedSlices& p = t.slices();
      values.push_back(p.values);
      indices.push_back(any_int64 && p.indices.dtype() != DType::int64
                            ? cast(p.indices, DType::int64, "Cast")
                            : p.indices);
    }
    return IndexedSlices{concat(values, 0, "concat"), concat(indices, 0, "concat_1"),
                         list[0].slices().dense_shape};
  }

  void process(Node* op, bool is_stop) {
    Operation operation(op);
    std::optional<ScopeGuard> colocate;
    if (options_.colocate_gradients_with_ops) colocate.emplace(g_.colocate_with(operation));
    OutputGrads& og = grads_of(op);
    og.aggregated.resize(og.per_output.size());
    bool has_grads = false;
    {
      std::optional<ScopeGuard> in_loop;
      if (loop_state_) in_loop.emplace(loop_state_->enter_grad_context(op, true));
      for (std::size_t i = 0; i < og.per_output.size(); ++i) {
        // A loop Switch visited again keeps what it had (TensorFlow's aggregated tensor).
        if (!og.aggregated[i].valid() && !og.per_output[i].empty()) {
          og.aggregated[i] = aggregate(og.per_output[i]);
          og.per_output[i].clear();
        }
        if (og.aggregated[i].valid()) has_grads = true;
      }
    }
    std::optional<ScopeGuard> in_loop;
    if (loop_state_) in_loop.emplace(loop_state_->enter_grad_context(op, false));
    refuse_gradient_through_initial_value(op);
    std::vector<Gradient> in_grads(op->inputs().size());
    const GradientFunction* fn = nullptr;
    const SparseGradientFunction* sparse_fn = nullptr;
    if (has_grads && !is_stop) {
      auto& registry = GradientRegistry::global();
      if (!registry.contains(op->type()))
        throw NotFoundError(not_found("No gradient defined for operation '" + op->name() +
                                      "' (op type: " + op->type() + ")"));
      sparse_fn = registry.find_sparse(op->type());
      if (!sparse_fn) fn = registry.find(op->type());
    }
    if ((fn || sparse_fn) && has_grads) {
      std::vector<Gradient> out_grads = og.aggregated;
      for (std::size_t i = 0; i < out_grads.size(); ++i)
        if (!out_grads[i].valid() && is_backpropagatable(op->output_types()[i]) &&
            op->output_types()[i] != DType::resource)
          out_grads[i] = loop_state_
                             ? loop_state_->zeros_like(operation, static_cast<int>(i))
                             : detail::zeros_for_missing_gradient(operation, static_cast<int>(i));
      auto scope = g_.name_scope(op->name() + "_grad");
      if (sparse_fn) {
        in_grads = (*sparse_fn)(operation, out_grads);
      } else {
        // Any other gradient function takes its gradients dense (TensorFlow converts
        // IndexedSlices where a gradient function uses them as a tensor).
        std::vector<Output> dense(out_grads.size());
        for (std::size_t i = 0; i < out_grads.size(); ++i) dense[i] = out_grads[i].to_dense();
        std::vector<Output> computed = (*fn)(operation, dense);
        in_grads.assign(computed.begin(), computed.end());
      }
      if (in_grads.size() != op->inputs().size())
        throw InvalidArgumentError(invalid_argument(
            "Num gradients " + std::to_string(in_grads.size()) + " generated for op " + op->name() +
            " do not match num inputs " + std::to_string(op->inputs().size())));
      // Inputs the walk never reaches backward (placeholders, constants, ops not between xs
      // and ys) cannot contribute to a requested gradient: theirs are dropped, and gating
      // waits only for the others, so a step never computes them (TensorFlow's eager tape
      // skips them the same way with skip_input_indices). The backward graph keeps
      // TensorFlow's nodes and names; the values of the returned gradients are unchanged.
      // A loop variable's Enter keeps its gradient, as TensorFlow walks every loop's Enters
      // (ProcessUnusedLoopExits): its gradient leaves the gradient loop through an Exit.
      std::vector<bool> needed(in_grads.size());
      for (std::size_t i = 0; i < in_grads.size(); ++i) {
        const Node* in = op->inputs()[i].node();
        needed[i] = in_grads[i].valid() &&
                    (between_.count(in) > 0 ||
                     (loop_state_ && detail::is_enter(in) && !detail::is_loop_constant_enter(in)));
      }
      if (options_.gate_gradients) gate(in_grads, needed);
      for (std::size_t i = 0; i < in_grads.size(); ++i)
        if (!needed[i]) in_grads[i] = Gradient();
    }
    for (std::size_t i = 0; i < in_grads.size(); ++i) {
      if (!in_grads[i].valid()) continue;
      const Output& input = op->inputs()[i];
      // A dense gradient has its input's shape (TensorFlow's `in_grad.set_shape`).
      if (!in_grads[i].is_slices() && input.dtype() != DType::resource) {
        const Output& grad = in_grads[i].dense();
        if (!grad.shape().is_compatible_with(input.shape()))
          throw InvalidArgumentError(invalid_argument(
              "Incompatible shapes between op input and calculated input gradient. Forward "
              "operation: " +
              op->name() + ". Input index: " + std::to_string(i) +
              ". Original input shape: " + input.shape().to_string() +
              ". Calculated input gradient shape: " + grad.shape().to_string()));
        if (!(grad.shape() == input.shape())) g_.set_shape(grad, input.shape());
      }
      // Gradients are recorded against the tensor the op consumed.
      set_grad(input, in_grads[i]);
    }
  }

  // `control_flow_ops.tuple`: each gradient leaves through an Identity that waits for all
  // the needed ones.
  void gate(std::vector<Gradient>& in_grads, const std::vector<bool>& needed) {
    std::vector<Operation> gating;
    for (std::size_t i = 0; i < in_grads.size(); ++i) {
      const Gradient& t = in_grads[i];
      if (t.valid() && needed[i] && std::find(gating.begin(), gating.end(), t.op()) == gating.end())
        gating.push_back(t.op());
    }
    if (gating.empty()) return;
    if (std::count_if(in_grads.begin(), in_grads.end(),
                      [](const Gradient& t) { return t.valid(); }) < 2)
      return;
    in_grads = tuple_after(g_, std::move(in_grads), std::move(gating));
  }

  Graph& g_;
  const GradientsOptions& options_;
  std::vector<int> consumer_begin_;  // consumers of node id i: [begin[i], begin[i + 1])
  std::vector<Node*> consumer_list_;
  std::unordered_set<const Node*> between_;
  std::vector<Node*> between_list_;
  std::vector<Node*> from_ops_;
  std::unordered_set<const Node*> reachable_to_;
  std::unique_ptr<detail::ControlFlowState> loop_state_;
  std::unordered_map<const Node*, int> pending_;
  std::unordered_map<const Node*, OutputGrads> grads_;
};

}  // namespace

namespace {

// The walk inside the options' name scope; with `densify`, IndexedSlices results are made
// dense there too (`tf.convert_to_tensor` of each, as a caller of tf.gradients would).
std::vector<Gradient> walk_gradients(const std::vector<Output>& ys, const std::vector<Output>& xs,
                                     const std::vector<Output>& grad_ys,
                                     const GradientsOptions& options, bool densify) {
  if (ys.empty()) throw InvalidArgumentError(invalid_argument("gradients: ys must not be empty"));
  if (!grad_ys.empty() && grad_ys.size() != ys.size())
    throw InvalidArgumentError(invalid_argument("Passed " + std::to_string(grad_ys.size()) +
                                                " grad_ys for " + std::to_string(ys.size()) +
                                                " ys"));
  Graph& g = ys[0].graph();
  auto check = [&](const Output& t, const char* what) {
    if (!t.valid())
      throw InvalidArgumentError(invalid_argument(std::string("gradients: invalid ") + what));
    if (&t.graph() != &g)
      throw InvalidArgumentError(invalid_argument(
          "gradients: " + t.name() + " must be from the same graph as " + ys[0].name()));
  };
  for (auto& y : ys) check(y, "y");
  for (auto& x : xs) check(x, "x");
  for (auto& s : options.stop_gradients) check(s, "stop_gradients entry");
  auto scope = g.name_scope(options.name.empty() ? "gradients" : options.name);
  GradientWalk walk(g, options);
  std::vector<Gradient> grads = walk.run(ys, xs, grad_ys);
  if (densify)
    for (auto& t : grads)
      if (t.is_slices()) t = t.to_dense();
  return grads;
}

}  // namespace

std::vector<Gradient> gradients_with_slices(const std::vector<Output>& ys,
                                            const std::vector<Output>& xs,
                                            const std::vector<Output>& grad_ys,
                                            const GradientsOptions& options) {
  return walk_gradients(ys, xs, grad_ys, options, false);
}

std::vector<Output> gradients(const std::vector<Output>& ys, const std::vector<Output>& xs,
                              const std::vector<Output>& grad_ys, const GradientsOptions& options) {
  std::vector<Output> out;
  for (auto& t : walk_gradients(ys, xs, grad_ys, options, true)) out.push_back(t.dense());
  return out;
}

Output gradient(const Output& y, const Output& x, const GradientsOptions& options) {
  return gradients(std::vector<Output>{y}, std::vector<Output>{x}, {}, options)[0];
}

std::vector<Gradient> tuple_after(Graph& g, std::vector<Gradient> tensors,
                                  std::vector<Operation> gating) {
  if (gating.empty()) return tensors;
  std::sort(gating.begin(), gating.end(),
            [](const Operation& a, const Operation& b) { return a.node()->id() < b.node()->id(); });
  auto scope = g.name_scope("tuple");
  Operation gate = g.group(gating, "group_deps");
  for (auto& t : tensors) {
    if (!t.valid()) continue;
    const std::string name = g.unique_name("control_dependency");
    auto colocate = g.colocate_with(t.op());
    // `with_dependencies`: IndexedSlices wait through their values.
    const Output values = t.is_slices() ? t.slices().values : t.dense();
    Output gated =
        g.create_op("Identity", {values}, {{"T", values.dtype()}}, name + "/", {gate}).output(0);
    if (t.is_slices())
      t = IndexedSlices{gated, t.slices().indices, t.slices().dense_shape};
    else
      t = gated;
  }
  return tensors;
}

}  // namespace af
