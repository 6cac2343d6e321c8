// The definitions of LRN and LRNGrad (shape functions as TensorFlow's nn_ops.cc: rank 4,
// LRNGrad's three inputs merged) and the builders tf.nn.local_response_normalization and
// lrn_grad. The CPU kernels are in kernels/src/lrn_ops.cpp, LRN's gradient in
// ops/src/gradients/nn_grad.cpp.
#include "actorflow/ops/lrn_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::check_op_def_type;
using detail::with_rank;

// UnchangedShapeWithRank(c, 4).
Status infer_lrn(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 4));
  c.add_output(c.input_types[0], c.input_shapes[0].rank_known() ? c.input_shapes[0]
                                                                : PartialShape::unknown_of_rank(4));
  return {};
}

// LRNGrad: input_grads, input_image and output_image of rank 4, merged.
Status infer_lrn_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_op_def_type(c.input_types[0], c.node.op, "T"));
  const char* names[] = {"input_grads", "input_image", "output_image"};
  for (std::size_t i = 1; i < 3; ++i)
    if (c.input_types[i] != c.input_types[0])
      return invalid_argument(cwise::type_mismatch_message(c.node.op, names[i], c.input_types[i],
                                                           names[0], c.input_types[0]));
  for (std::size_t i = 0; i < 3; ++i) ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[i], 4));
  PartialShape s = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(s, c.input_shapes[1], &s));
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(s, c.input_shapes[2], &s));
  c.add_output(c.input_types[0], s.rank_known() ? s : PartialShape::unknown_of_rank(4));
  return {};
}

AttrMap lrn_attrs(DType t, std::int64_t depth_radius, float bias, float alpha, float beta) {
  return {
      {"T", t}, {"depth_radius", depth_radius}, {"bias", bias}, {"alpha", alpha}, {"beta", beta}};
}

}  // namespace

namespace detail {

void register_lrn_ops(OpRegistry& r) {
  r.add({"LRN", infer_lrn});
  r.add({"LRNGrad", infer_lrn_grad});
}

}  // namespace detail

namespace nn {

Output local_response_normalization(const Output& input, std::int64_t depth_radius, float bias,
                                    float alpha, float beta, std::string_view name) {
  return input.graph()
      .create_op("LRN", {input}, lrn_attrs(input.dtype(), depth_radius, bias, alpha, beta),
                 name.empty() ? "LRN" : name)
      .output(0);
}

Output lrn_grad(const Output& input_grads, const Output& input_image, const Output& output_image,
                std::int64_t depth_radius, float bias, float alpha, float beta,
                std::string_view name) {
  return input_grads.graph()
      .create_op("LRNGrad", {input_grads, input_image, output_image},
                 lrn_attrs(input_grads.dtype(), depth_radius, bias, alpha, beta),
                 name.empty() ? "LRNGrad" : name)
      .output(0);
}

}  // namespace nn

}  // namespace af
