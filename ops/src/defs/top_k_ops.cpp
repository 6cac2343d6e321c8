// The definitions of TopK, TopKV2, InTopK and InTopKV2 (shape functions as TensorFlow's
// nn_ops.cc TopKShapeFn and InTopK's) and the builders tf.nn.top_k and tf.nn.in_top_k. Their
// CPU kernels are in kernels/src/top_k_ops.cpp, TopKV2's gradient in ops/src/gradients/
// nn_grad.cpp.
#include "actorflow/ops/top_k_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_index_type;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;

// TopKShapeFn: values and indices of shape input.shape[:-1] + [k].
Status infer_top_k(InferenceContext& c) {
  const bool v2 = c.node.op == "TopKV2";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v2 ? 2 : 1));
  ACTORFLOW_RETURN_IF_ERROR(
      cwise::check_allowed_type(c.input_types[0], detail::op_def_types(c.node.op)));
  DType index_type = DType::int32;
  c.get_attr("index_type", &index_type);
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(index_type, "index_type"));
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(input, 1));
  Index k = -1;
  if (v2) {
    ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tk"));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
    if (const Tensor* value = c.input_values[1]) {
      k = index_values(*value)[0];
      if (k < 0)
        return invalid_argument(
            "Dimension size, given by scalar input 1, must be non-negative but is " +
            std::to_string(k));
    }
  } else {
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("k", &k));
    if (k < 0) return invalid_argument("Need k >= 0, got " + std::to_string(k));
  }
  PartialShape out = PartialShape::unknown();
  if (input.rank_known()) {
    std::vector<std::int64_t> dims = input.dims();
    const Index last = dims.back();
    if (last >= 0 && k >= 0 && last < k)
      return invalid_argument("input must have last dimension >= k = " + std::to_string(k) +
                              " but is " + std::to_string(last));
    dims.back() = k;
    out = PartialShape(std::move(dims));
  }
  c.add_output(c.input_types[0], out);
  c.add_output(index_type, out);
  return {};
}

// InTopK / InTopKV2: a bool [batch] of float32 predictions [batch, classes] and targets
// [batch].
Status infer_in_top_k(InferenceContext& c) {
  const bool v2 = c.node.op == "InTopKV2";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v2 ? 3 : 2));
  if (c.input_types[0] != DType::float32)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "predictions",
                                                               c.input_types[0], DType::float32));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "T"));
  if (v2 && c.input_types[2] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "k", c.input_types[2],
                                                         "targets", c.input_types[1]));
  const PartialShape& predictions = c.input_shapes[0];
  const PartialShape& targets = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(predictions, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(targets, 1));
  if (v2) ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  const Index a = predictions.rank_known() ? predictions.dim(0) : -1;
  const Index b = targets.rank_known() ? targets.dim(0) : -1;
  if (a >= 0 && b >= 0 && a != b)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                            std::to_string(b));
  c.add_output(DType::boolean, PartialShape{a >= 0 ? a : b});
  return {};
}

}  // namespace

namespace detail {

void register_top_k_ops(OpRegistry& r) {
  r.add({"TopK", infer_top_k});
  r.add({"TopKV2", infer_top_k});
  r.add({"InTopK", infer_in_top_k});
  r.add({"InTopKV2", infer_in_top_k});
}

}  // namespace detail

namespace nn {

TopKOutputs top_k(const Output& input, const Output& k, bool sorted, std::string_view name) {
  Operation op = input.graph().create_op(
      "TopKV2", {input, k},
      {{"T", input.dtype()}, {"Tk", k.dtype()}, {"index_type", DType::int32}, {"sorted", sorted}},
      name.empty() ? "TopKV2" : name);
  return {op.output(0), op.output(1)};
}

TopKOutputs top_k(const Output& input, std::int64_t k, bool sorted, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "TopKV2" : name);
  Output k_t;
  {
    auto scope = g.name_scope(op_name + "/");
    k_t = g.constant(Tensor(static_cast<std::int32_t>(k)), "k");
  }
  return top_k(input, k_t, sorted, op_name + "/");
}

Output in_top_k(const Output& predictions, const Output& targets, std::int64_t k,
                std::string_view name) {
  Graph& g = predictions.graph();
  auto outer = g.name_scope(name.empty() ? "in_top_k" : name);
  const std::string op_name = g.unique_name("InTopKV2");
  Output k_t;
  {
    auto scope = g.name_scope(op_name + "/");
    k_t = g.constant(
        targets.dtype() == DType::int64 ? Tensor(k) : Tensor(static_cast<std::int32_t>(k)), "k");
  }
  return g
      .create_op("InTopKV2", {predictions, targets, k_t}, {{"T", targets.dtype()}}, op_name + "/")
      .output(0);
}

}  // namespace nn

}  // namespace af
