// The definitions of AddN, ArgMax, ArgMin, L2Loss, CheckNumerics and Assert (shape functions,
// builders, add_check_numerics_ops); their CPU kernels are in
// kernels/src/cwise_aggregate_ops.cpp. Registered from cwise_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions
using detail::op_def_types;

// -- AddN ---------------------------------------------------------------------------------

using detail::list_type_mismatch_message;

// TensorFlow's AddN shape function: all inputs of one type; shapes merged from the last to
// the first ("... \n\tFrom merging shape 0 with other shapes.").
Status infer_add_n(InferenceContext& c) {
  if (c.num_inputs() < 1) return invalid_argument("AddN needs at least one input");
  const DType t = c.input_types[0];
  for (int i = 1; i < c.num_inputs(); ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != t)
      return invalid_argument(list_type_mismatch_message(c.node.op, "inputs", c.input_types));
  // Variants (gradients of tensor lists and optionals) add through their values.
  if (t != DType::variant) ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(t, op_def_types("AddN")));
  PartialShape cur = c.input_shapes.back();
  for (int i = c.num_inputs() - 2; i >= 0; --i) {
    PartialShape merged;
    Status s = merge_shapes(c.input_shapes[static_cast<std::size_t>(i)], cur, &merged);
    if (!s.ok())
      return Status(s.code(), s.message() + "\n\tFrom merging shape " + std::to_string(i) +
                                  " with other shapes.");
    cur = std::move(merged);
  }
  c.add_output(t, cur);
  return {};
}

// -- ArgMax and ArgMin --------------------------------------------------------------------

// TensorFlow's ArgOpShape: `dimension` a scalar; the input's shape without that dimension
// (a scalar for inputs of rank <= 1; unknown dimensions when `dimension` is not constant).
Status infer_arg(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(t, op_def_types(c.node.op)));
  const DType index_type = c.input_types[1];
  // int16 `dimension`s (ArgMax's OpDef allows them) are refused: the kernels read 32 or 64 bits.
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(index_type, {DType::int32, DType::int64}, "Tidx"));
  DType output_type = DType::int64;
  c.get_attr("output_type", &output_type);
  ACTORFLOW_RETURN_IF_ERROR(
      check_allowed_type(output_type, op_def_types(c.node.op, "output_type"), "output_type"));
  const PartialShape& dimension_shape = c.input_shapes[1];
  if (dimension_shape.rank_known() && dimension_shape.rank() != 0)
    return invalid_argument("Shape must be rank 0 but is rank " +
                            std::to_string(dimension_shape.rank()));
  const PartialShape& in = c.input_shapes[0];
  if (!in.rank_known()) {
    c.add_output(output_type, PartialShape::unknown());
    return {};
  }
  const int rank = in.rank();
  if (rank <= 1) {
    c.add_output(output_type, PartialShape(std::vector<std::int64_t>{}));
    return {};
  }
  const Tensor* dim_t = c.input_values[1];
  if (dim_t == nullptr) {
    c.add_output(output_type, PartialShape::unknown_of_rank(rank - 1));
    return {};
  }
  const Index dimension = dim_t->dtype() == DType::int64
                              ? dim_t->data<std::int64_t>()[0]
                              : static_cast<Index>(dim_t->data<std::int32_t>()[0]);
  const Index axis = dimension < 0 ? dimension + rank : dimension;
  if (axis < 0 || axis >= rank)
    return invalid_argument("Dimension (" + std::to_string(dimension) + ") must be in the range [" +
                            std::to_string(-rank) + ", " + std::to_string(rank) + "), where " +
                            std::to_string(rank) + " is the number of dimensions in the input.");
  std::vector<std::int64_t> dims;
  for (int d = 0; d < rank; ++d)
    if (d != axis) dims.push_back(in.dim(d));
  c.add_output(output_type, PartialShape(std::move(dims)));
  return {};
}

// -- L2Loss, CheckNumerics and Assert -----------------------------------------------------
Status infer_assert(InferenceContext& c) {
  if (c.input_types.empty() || c.input_types[0] != DType::boolean)
    return invalid_argument("Assert's condition must be a bool scalar");
  const PartialShape& s = c.input_shapes[0];
  if (s.rank_known() && s.rank() != 0)
    return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(s.rank()));
  return {};
}

// UnchangedShape for one floating-point input (CheckNumerics); ScalarShape for L2Loss.
Status infer_check_numerics(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], kFloatTypes));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}
Status infer_l2_loss(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[0], kFloatTypes));
  c.add_output(c.input_types[0], PartialShape(std::vector<std::int64_t>{}));
  return {};
}

Output arg_op(const char* type, const Output& input, const Output& dimension, DType output_type,
              std::string_view name) {
  return input.graph()
      .create_op(type, {input, dimension},
                 {{"T", input.dtype()}, {"Tidx", dimension.dtype()}, {"output_type", output_type}},
                 name.empty() ? type : name)
      .output(0);
}

// The axis as a Const input "<op>/dimension", as op_def_library names converted inputs.
Output arg_op(const char* type, const Output& input, std::int64_t axis, DType output_type,
              std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? std::string_view(type) : name);
  Output dimension;
  {
    auto scope = g.name_scope(op_name + "/");
    dimension = axis >= std::numeric_limits<std::int32_t>::min() &&
                        axis <= std::numeric_limits<std::int32_t>::max()
                    ? g.constant(Tensor(static_cast<std::int32_t>(axis)), "dimension")
                    : g.constant(Tensor(axis), "dimension");
  }
  return arg_op(type, input, dimension, output_type, op_name + "/");
}

}  // namespace

namespace detail {

void register_cwise_aggregate_ops(OpRegistry& r) {
  r.add({"AddN", infer_add_n});
  r.add({"ArgMax", infer_arg});
  r.add({"ArgMin", infer_arg});
  r.add({"L2Loss", infer_l2_loss});
  r.add({"CheckNumerics", infer_check_numerics});
  r.add({"Assert", infer_assert, true});
}

}  // namespace detail

// -- builders -----------------------------------------------------------------------------

Output add_n(const std::vector<Output>& inputs, std::string_view name) {
  if (inputs.empty())
    throw InvalidArgumentError(invalid_argument(
        "inputs must be a list of at least one Tensor with the same dtype and shape"));
  // tf.add_n returns a single input itself (an Identity when a name is given).
  if (inputs.size() == 1) return name.empty() ? inputs[0] : identity(inputs[0], name);
  std::vector<DType> types;
  for (const Output& in : inputs) types.push_back(in.dtype());
  if (std::any_of(types.begin(), types.end(), [&](DType t) { return t != types[0]; }))
    throw InvalidArgumentError(
        invalid_argument(list_type_mismatch_message("AddN", "inputs", types)));
  return inputs[0]
      .graph()
      .create_op("AddN", inputs,
                 {{"N", static_cast<std::int64_t>(inputs.size())}, {"T", inputs[0].dtype()}},
                 name.empty() ? "AddN" : name)
      .output(0);
}

Output argmax(const Output& input, std::int64_t axis, DType output_type, std::string_view name) {
  return arg_op("ArgMax", input, axis, output_type, name);
}
Output argmax(const Output& input, const Output& axis, DType output_type, std::string_view name) {
  return arg_op("ArgMax", input, axis, output_type, name);
}
Output argmin(const Output& input, std::int64_t axis, DType output_type, std::string_view name) {
  return arg_op("ArgMin", input, axis, output_type, name);
}
Output argmin(const Output& input, const Output& axis, DType output_type, std::string_view name) {
  return arg_op("ArgMin", input, axis, output_type, name);
}

Output l2_loss(const Output& t, std::string_view name) {
  return t.graph()
      .create_op("L2Loss", {t}, {{"T", t.dtype()}}, name.empty() ? "L2Loss" : name)
      .output(0);
}

Operation assert_that(const Output& condition, const std::vector<Output>& data,
                      std::int64_t summarize, std::string_view name) {
  std::vector<Output> inputs{condition};
  std::vector<DType> types;
  for (const auto& d : data) {
    inputs.push_back(d);
    types.push_back(d.dtype());
  }
  return condition.graph().create_op("Assert", inputs, {{"T", types}, {"summarize", summarize}},
                                     name.empty() ? "Assert" : name);
}

Output check_numerics(const Output& tensor, const std::string& message, std::string_view name) {
  return tensor.graph()
      .create_op("CheckNumerics", {tensor}, {{"T", tensor.dtype()}, {"message", message}},
                 name.empty() ? "CheckNumerics" : name)
      .output(0);
}

}  // namespace af

namespace af {

Operation add_check_numerics_ops(Graph& g) {
  std::vector<Operation> check;
  for (Node* n : g.nodes()) {
    if (n->type() == "CheckNumerics") continue;
    for (int i = 0; i < n->num_outputs(); ++i) {
      const DType t = n->output_types()[static_cast<std::size_t>(i)];
      if ((t != DType::float32 && t != DType::float64) || n->output_is_ref(i)) continue;
      auto deps = g.control_dependencies(check);
      check = {Operation(check_numerics(Output(n, i), n->name() + ":" + std::to_string(i)))};
    }
  }
  return g.group(check, "CheckNumerics");
}

}  // namespace af
