// The definitions of the activations of kernels/src/activation_ops.cpp (shape functions,
// builders): Softplus, Softsign, Elu, Selu, Relu6 and their gradient ops SoftplusGrad,
// SoftsignGrad, EluGrad, SeluGrad and Relu6Grad.
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions

// The gradient ops (gradients, features or outputs): one type, the two shapes merged
// (TensorFlow's MergeBothInputsShapeFn).
Status infer_activation_grad(InferenceContext& c, const std::vector<DType>& allowed,
                             const char* second) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_binary_types(c, "gradients", second, allowed));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[0], c.input_shapes[1], &merged));
  c.add_output(c.input_types[0], merged);
  return {};
}

}  // namespace

namespace detail {

void register_activation_ops(OpRegistry& r) {
  for (const char* type : {"Softplus", "Softsign", "Elu", "Selu"})
    r.add({type, [](InferenceContext& c) { return infer_unary(c, kFloatTypes); }});
  r.add(
      {"Relu6", [](InferenceContext& c) { return infer_unary(c, detail::op_def_types("Relu6")); }});
  for (const char* type : {"SoftplusGrad", "SoftsignGrad"})
    r.add({type,
           [](InferenceContext& c) { return infer_activation_grad(c, kFloatTypes, "features"); }});
  for (const char* type : {"EluGrad", "SeluGrad"})
    r.add({type,
           [](InferenceContext& c) { return infer_activation_grad(c, kFloatTypes, "outputs"); }});
  r.add({"Relu6Grad", [](InferenceContext& c) {
           return infer_activation_grad(c, detail::op_def_types("Relu6Grad"), "features");
         }});
}

}  // namespace detail

Output softplus(const Output& features, std::string_view name) {
  return unary_op("Softplus", features, name);
}
Output softsign(const Output& features, std::string_view name) {
  return unary_op("Softsign", features, name);
}
Output elu(const Output& features, std::string_view name) {
  return unary_op("Elu", features, name);
}
Output selu(const Output& features, std::string_view name) {
  return unary_op("Selu", features, name);
}
Output relu6(const Output& features, std::string_view name) {
  return unary_op("Relu6", features, name);
}

}  // namespace af
