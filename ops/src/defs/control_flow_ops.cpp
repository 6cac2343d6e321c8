// Switch, RefSwitch, Merge, RefMerge and ControlTrigger: definitions (shape functions) and
// builders. Their CPU kernels are in kernels/src/control_flow_ops.cpp; the executor's side
// (dead tensors, a Merge's readiness) is in actors/src/executor/partition_execution.cpp, and
// `cond` in ops/src/control_flow/cond_context.cpp.
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

}  // namespace

namespace detail {

void register_control_flow_ops(OpRegistry& r) {
  r.add({"Switch", infer_switch});
  r.add({"RefSwitch", infer_switch, false, {0}});
  r.add({"Merge", infer_merge});
  r.add({"RefMerge", infer_merge, false, {0}});
  r.add({"ControlTrigger", [](InferenceContext&) -> Status { return {}; }});
}

}  // namespace detail

SwitchOutputs switch_op(const Output& data, const Output& pred, std::string_view name) {
  const bool ref = data.valid() && data.node()->output_is_ref(data.index());
  Operation op = data.graph().create_op(ref ? "RefSwitch" : "Switch", {data, pred},
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

}  // namespace af
