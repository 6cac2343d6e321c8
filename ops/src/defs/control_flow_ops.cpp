// Switch, RefSwitch, Merge, RefMerge, ControlTrigger and the while loop's Enter, Exit,
// NextIteration (and their Ref forms) and LoopCond: definitions (shape functions) and
// builders. Their CPU kernels are in kernels/src/control_flow_ops.cpp; the executor's side
// (dead tensors, a Merge's readiness) is in actors/src/executor/partition_execution.cpp, its
// frames and iterations in actors/src/executor/loop_frames.cpp, and `cond` in
// ops/src/control_flow/cond_context.cpp.
#include "actorflow/ops/control_flow_ops.hpp"

#include <string>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// Switch(data, pred) -> (output_false, output_true), both of data's type and shape.
Status infer_switch(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::boolean));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[1], 0));
  const bool ref = c.node.op == "RefSwitch";
  for (int k = 0; k < 2; ++k) c.add_output(c.input_types[0], c.input_shapes[0], ref);
  if (c.input_types[0] == DType::resource)
    c.output_handle_shapes = {c.input_handle_shapes[0], c.input_handle_shapes[0]};
  return {};
}

// Merge(inputs) -> (output, value_index): TensorFlow's shape function keeps the dimensions
// the inputs agree on.
Status infer_merge(InferenceContext& c) {
  if (c.num_inputs() < 1) return invalid_argument("Merge needs at least one input");
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.same_input_types(&t));
  PartialShape out = c.input_shapes[0];
  if (out.rank_known()) {
    std::vector<std::int64_t> dims = out.dims();
    for (int i = 1; i < c.num_inputs(); ++i) {
      const PartialShape& in = c.input_shapes[static_cast<std::size_t>(i)];
      if (!in.rank_known() || in.rank() != out.rank()) {
        out = PartialShape::unknown();
        break;
      }
      for (int d = 0; d < in.rank(); ++d)
        if (in.dim(d) != dims[static_cast<std::size_t>(d)]) dims[static_cast<std::size_t>(d)] = -1;
    }
    if (out.rank_known()) out = PartialShape(dims);
  }
  c.add_output(t, out, c.node.op == "RefMerge");
  c.add_output(DType::int32, PartialShape(Shape{}));
  return {};
}

// Enter(data) -> output: as TensorFlow's shape function, the shape is known only for a loop
// invariant (`is_constant`); a loop variable may change shape between iterations.
Status infer_enter(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  std::string frame;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("frame_name", &frame));
  if (frame.empty())
    return invalid_argument("Enter " + c.node.name + " needs a non-empty frame_name");
  bool is_constant = false;
  if (auto p = c.node.attr<bool>("is_constant")) is_constant = *p;
  if (auto p = c.node.attr<std::int64_t>("parallel_iterations"); p && *p < 1)
    return invalid_argument("Enter " + c.node.name + ": parallel_iterations must be positive");
  c.add_output(c.input_types[0], is_constant ? c.input_shapes[0] : PartialShape::unknown(),
               c.node.op == "RefEnter");
  c.output_handle_shapes = {c.input_handle_shapes[0]};
  return {};
}

// Exit, NextIteration (and their Ref forms): the input, unchanged.
Status infer_forward(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  c.add_output(c.input_types[0], c.input_shapes[0], c.node.op.rfind("Ref", 0) == 0);
  c.output_handle_shapes = {c.input_handle_shapes[0]};
  return {};
}

// LoopCond(input: bool) -> bool, a scalar.
Status infer_loop_cond(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::boolean));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 0));
  c.add_output(DType::boolean, PartialShape(Shape{}));
  return {};
}

bool is_ref(const Output& x) { return x.valid() && x.node()->output_is_ref(x.index()); }

}  // namespace

namespace detail {

void register_control_flow_ops(OpRegistry& r) {
  r.add({"Switch", infer_switch});
  r.add({"RefSwitch", infer_switch, false, {0}});
  r.add({"Merge", infer_merge});
  r.add({"RefMerge", infer_merge, false, {0}});
  r.add({"ControlTrigger", [](InferenceContext&) -> Status { return {}; }});
  r.add({"Enter", infer_enter});
  r.add({"RefEnter", infer_enter, false, {0}});
  r.add({"Exit", infer_forward});
  r.add({"RefExit", infer_forward, false, {0}});
  r.add({"NextIteration", infer_forward});
  r.add({"RefNextIteration", infer_forward, false, {0}});
  r.add({"LoopCond", infer_loop_cond});
}

}  // namespace detail

SwitchOutputs switch_op(const Output& data, const Output& pred, std::string_view name) {
  Operation op = data.graph().create_op(is_ref(data) ? "RefSwitch" : "Switch", {data, pred},
                                        {{"T", data.dtype()}}, name.empty() ? "Switch" : name);
  return {op.output(0), op.output(1)};
}

MergeOutputs merge(const std::vector<Output>& inputs, std::string_view name) {
  if (inputs.empty()) throw InvalidArgumentError(invalid_argument("merge: no inputs"));
  bool all_refs = true;
  for (const auto& in : inputs)
    if (!in.valid() || !in.node()->output_is_ref(in.index())) all_refs = false;
  Operation op = inputs[0].graph().create_op(
      all_refs ? "RefMerge" : "Merge", inputs,
      {{"T", inputs[0].dtype()}, {"N", static_cast<std::int64_t>(inputs.size())}},
      name.empty() ? "Merge" : name);
  return {op.output(0), op.output(1)};
}

Operation control_trigger(Graph& g, std::string_view name) {
  return g.create_op("ControlTrigger", {}, {}, name.empty() ? "ControlTrigger" : name);
}

Output enter(const Output& data, const std::string& frame_name, bool is_constant,
             int parallel_iterations, std::string_view name) {
  const std::string type = is_ref(data) ? "RefEnter" : "Enter";
  Operation op = data.graph().create_op(
      type, {data},
      {{"T", data.dtype()},
       {"frame_name", frame_name},
       {"is_constant", is_constant},
       {"parallel_iterations", static_cast<std::int64_t>(parallel_iterations)}},
      name.empty() ? std::string_view(type) : name);
  return op.output(0);
}

Output exit_op(const Output& data, std::string_view name) {
  return data.graph()
      .create_op(is_ref(data) ? "RefExit" : "Exit", {data}, {{"T", data.dtype()}},
                 name.empty() ? "Exit" : name)
      .output(0);
}

Output next_iteration(const Output& data, std::string_view name) {
  return data.graph()
      .create_op(is_ref(data) ? "RefNextIteration" : "NextIteration", {data}, {{"T", data.dtype()}},
                 name.empty() ? "NextIteration" : name)
      .output(0);
}

Output loop_cond(const Output& pred, std::string_view name) {
  return pred.graph().create_op("LoopCond", {pred}, {}, name.empty() ? "LoopCond" : name).output(0);
}

}  // namespace af
