// Gradient accumulators: the definitions (shape functions) of ConditionalAccumulator,
// AccumulatorApplyGradient, AccumulatorTakeGradient, AccumulatorSetGlobalStep and
// AccumulatorNumAccumulated, and the graph API of data_flow_ops.hpp. The accumulator itself
// and the CPU kernels are in kernels/src/accumulator_ops.cpp.
#include <cstdint>
#include <string>
#include <string_view>

#include "actorflow/ops/data_flow_ops.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace detail {

namespace {

Status infer_handle_input(InferenceContext& c, int inputs) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  if (c.input_types[0] != DType::resource)
    return invalid_argument("Input 0 of '" + c.node.op + "' must be an accumulator handle");
  return {};
}

Status check_scalar(const InferenceContext& c, int i, const char* what) {
  const PartialShape& p = c.input_shapes[static_cast<std::size_t>(i)];
  if (p.rank_known() && p.rank() != 0)
    return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(p.rank()) +
                            " for " + what);
  return {};
}

/// The shape function of the ops taking (handle, int64 scalar step[, gradient]).
ShapeFn handle_and_step(int inputs, const char* what) {
  return [inputs, what](InferenceContext& c) -> Status {
    ACTORFLOW_RETURN_IF_ERROR(infer_handle_input(c, inputs));
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int64));
    return check_scalar(c, 1, what);
  };
}

// ConditionalAccumulator and SparseConditionalAccumulator: a Ref(string) handle,
// ResourceConditionalAccumulator a resource handle; float dtypes only.
Status infer_accumulator(InferenceContext& c, bool is_ref) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  if (t != DType::float32 && t != DType::float64 && t != DType::bfloat16)
    return invalid_argument("Value for attr 'dtype' of " + std::string(data_type_string(t)) +
                            " is not in the list of allowed values: float, double, bfloat16");
  std::string reduction = "MEAN";
  c.get_attr("reduction_type", &reduction);
  if (reduction != "MEAN" && reduction != "SUM")
    return invalid_argument("Value for attr 'reduction_type' of \"" + reduction +
                            "\" is not in the list of allowed values: \"MEAN\", \"SUM\"");
  c.add_output(DType::resource, PartialShape(Shape{}), is_ref);
  return {};
}

Status infer_ref_accumulator(InferenceContext& c) { return infer_accumulator(c, true); }

Status infer_sparse_apply_gradient(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(infer_handle_input(c, 5));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 1, "local_step"));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int64));
  return c.expect_input_type(4, DType::int64);
}

Status infer_sparse_take_gradient(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(infer_handle_input(c, 2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 1, "num_required"));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  c.add_output(DType::int64, PartialShape({-1}));
  c.add_output(t, PartialShape::unknown());
  c.add_output(DType::int64, PartialShape({-1}));
  return {};
}

Status infer_take_gradient(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(infer_handle_input(c, 2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_scalar(c, 1, "num_required"));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  // TensorFlow loses the shape here too; Python sets it from the accumulator's.
  PartialShape shape;
  c.get_attr("_shape", &shape);
  c.add_output(t, shape);
  return {};
}

Status infer_num_accumulated(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(infer_handle_input(c, 1));
  c.add_output(DType::int32, PartialShape(Shape{}));
  return {};
}

}  // namespace

void register_accumulator_ops(OpRegistry& r) {
  r.add({"ConditionalAccumulator", infer_ref_accumulator, true});
  r.add({"SparseConditionalAccumulator", infer_ref_accumulator, true});
  r.add({"SparseAccumulatorApplyGradient", infer_sparse_apply_gradient, true, {0}});
  r.add({"SparseAccumulatorTakeGradient", infer_sparse_take_gradient, true, {0}});
  r.add({"AccumulatorApplyGradient", handle_and_step(3, "local_step"), true, {0}});
  r.add({"AccumulatorTakeGradient", infer_take_gradient, true, {0}});
  r.add({"AccumulatorSetGlobalStep", handle_and_step(2, "new_global_step"), true, {0}});
  r.add({"AccumulatorNumAccumulated", infer_num_accumulated, true, {0}});
  // The resource-handle forms tf.compat.v1.ConditionalAccumulator builds (TensorFlow 2's
  // Python, and so SyncReplicasOptimizer's graphs): the same kernels.
  r.add({"ResourceConditionalAccumulator",
         [](InferenceContext& c) { return infer_accumulator(c, false); }, true});
  r.add({"ResourceAccumulatorApplyGradient", handle_and_step(3, "local_step"), true});
  r.add({"ResourceAccumulatorTakeGradient", infer_take_gradient, true});
  r.add({"ResourceAccumulatorSetGlobalStep", handle_and_step(2, "new_global_step"), true});
  r.add({"ResourceAccumulatorNumAccumulated", infer_num_accumulated, true});
}

}  // namespace detail

ConditionalAccumulator::ConditionalAccumulator(Graph& g, DType dtype,
                                               ConditionalAccumulatorOptions options)
    : dtype_(dtype), shape_(options.shape) {
  handle_ = g.create_op("ConditionalAccumulator", {},
                        {{"dtype", dtype},
                         {"shape", options.shape},
                         {"container", std::string()},
                         {"shared_name", options.shared_name},
                         {"reduction_type", options.reduction_type}},
                        options.name)
                .output(0);
}

Operation ConditionalAccumulator::apply_grad(const Output& grad, const Output& local_step,
                                             std::string_view name) const {
  Graph& g = handle_.graph();
  auto scope = g.name_scope(name.empty() ? this->name() + "_ApplyGrad" : std::string(name));
  const Output step = cast(local_step, DType::int64, "ToInt64");
  return g.create_op("AccumulatorApplyGradient", {handle_, step, grad}, {{"dtype", dtype_}},
                     "AccumulatorApplyGradient");
}

Operation ConditionalAccumulator::apply_grad(const Output& grad, std::int64_t local_step,
                                             std::string_view name) const {
  return apply_grad(grad, handle_.graph().constant(Tensor(local_step), "local_step"), name);
}

Output ConditionalAccumulator::take_grad(const Output& num_required, std::string_view name) const {
  return handle_.graph()
      .create_op("AccumulatorTakeGradient", {handle_, num_required},
                 {{"dtype", dtype_}, {"_shape", shape_}},
                 name.empty() ? this->name() + "_TakeGradient" : std::string(name))
      .output(0);
}

Output ConditionalAccumulator::take_grad(std::int32_t num_required, std::string_view name) const {
  return take_grad(handle_.graph().constant(Tensor(num_required), "num_required"), name);
}

Operation ConditionalAccumulator::set_global_step(const Output& new_global_step,
                                                  std::string_view name) const {
  return handle_.graph().create_op(
      "AccumulatorSetGlobalStep", {handle_, cast(new_global_step, DType::int64)}, {},
      name.empty() ? this->name() + "_SetGlobalStep" : std::string(name));
}

Output ConditionalAccumulator::num_accumulated(std::string_view name) const {
  return handle_.graph()
      .create_op("AccumulatorNumAccumulated", {handle_}, {},
                 name.empty() ? this->name() + "_NumAccumulated" : std::string(name))
      .output(0);
}

}  // namespace af

namespace af {

SparseConditionalAccumulator::SparseConditionalAccumulator(Graph& g, DType dtype,
                                                           ConditionalAccumulatorOptions options)
    : dtype_(dtype), shape_(options.shape) {
  handle_ = g.create_op("SparseConditionalAccumulator", {},
                        {{"dtype", dtype},
                         {"shape", options.shape},
                         {"container", std::string()},
                         {"shared_name", options.shared_name},
                         {"reduction_type", options.reduction_type}},
                        options.name == "conditional_accumulator" ? "sparse_conditional_accumulator"
                                                                  : options.name)
                .output(0);
}

Operation SparseConditionalAccumulator::apply_indexed_slices_grad(const IndexedSlices& grad,
                                                                  const Output& local_step,
                                                                  std::string_view name) const {
  // SparseConditionalAccumulator.apply_grad: step and indices cast to int64; without a dense
  // shape an empty one, has_known_shape false.
  Graph& g = handle_.graph();
  const Output step = cast(local_step, DType::int64, "Cast");
  const Output indices = cast(grad.indices, DType::int64, "Cast");
  const bool known = grad.dense_shape.valid();
  const Output shape = known ? cast(grad.dense_shape, DType::int64, "Cast")
                             : g.constant(Tensor(DType::int64, Shape{0}), "Const");
  return g.create_op("SparseAccumulatorApplyGradient", {handle_, step, indices, grad.values, shape},
                     {{"dtype", dtype_}, {"has_known_shape", known}},
                     name.empty() ? "SparseAccumulatorApplyGradient" : name);
}

Operation SparseConditionalAccumulator::apply_indexed_slices_grad(const IndexedSlices& grad,
                                                                  std::int64_t local_step,
                                                                  std::string_view name) const {
  return apply_indexed_slices_grad(grad, handle_.graph().constant(Tensor(local_step), "Const"),
                                   name);
}

IndexedSlices SparseConditionalAccumulator::take_indexed_slices_grad(const Output& num_required,
                                                                     std::string_view name) const {
  Operation op = handle_.graph().create_op("SparseAccumulatorTakeGradient", {handle_, num_required},
                                           {{"dtype", dtype_}},
                                           name.empty() ? "SparseAccumulatorTakeGradient" : name);
  return IndexedSlices{op.output(1), op.output(0), op.output(2)};
}

IndexedSlices SparseConditionalAccumulator::take_indexed_slices_grad(std::int32_t num_required,
                                                                     std::string_view name) const {
  return take_indexed_slices_grad(handle_.graph().constant(Tensor(num_required), "Const"), name);
}

Operation SparseConditionalAccumulator::set_global_step(const Output& new_global_step,
                                                        std::string_view name) const {
  return handle_.graph().create_op(
      "AccumulatorSetGlobalStep", {handle_, cast(new_global_step, DType::int64)}, {},
      name.empty() ? this->name() + "_SetGlobalStep" : std::string(name));
}

Output SparseConditionalAccumulator::num_accumulated(std::string_view name) const {
  return handle_.graph()
      .create_op("AccumulatorNumAccumulated", {handle_}, {},
                 name.empty() ? this->name() + "_NumAccumulated" : std::string(name))
      .output(0);
}

}  // namespace af
