// Gradients of NthElement, AccumulateNV2, ConjugateTranspose, CheckNumericsV2, BiasAddV1,
// SparseMatMul, MaxPoolV2 and MaxPoolGradV2 (TensorFlow's nn_grad.py, math_grad.py,
// math_ops.py and array_grad.py). TensorFlow registers none for Bitcast, ParallelConcat, the
// in-place ops, GuaranteeConst, the first Conv3DBackprop versions and MaxPoolGradGradV2, so
// gradients through them throw NotFoundError as TensorFlow's LookupError.
#include <string>
#include <vector>

#include "actorflow/ops/array_more_ops.hpp"
#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "grad_attrs.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// _NthElementGrad: the gradient split evenly among the entries of each row equal to its
// output (ExpandDims, Equal, Cast, ExpandDims_1, Sum, ExpandDims_2, truediv, mul).
Grads nth_element_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), y = op.output(0);
  const Output indicators =
      cast(equal(expand_dims(y, -1, "ExpandDims"), x, "Equal"), g[0].dtype(), "Cast");
  const Output grad = expand_dims(g[0], -1, "ExpandDims_1");
  const Output num_selected = expand_dims(
      reduce_sum(indicators, std::vector<std::int64_t>{-1}, false, "Sum"), -1, "ExpandDims_2");
  return {mul(div(indicators, num_selected, "truediv"), grad, "mul"), Output()};
}

// math_ops.matmul of two matrices as the SparseMatMul gradient calls it: SparseMatMul when a
// sparsity hint is set and both are float or bfloat16, or when one is bfloat16 and the other
// not; else MatMul. Named "MatMul".
Output hinted_matmul(const Output& a, const Output& b, bool transpose_a, bool transpose_b,
                     bool a_is_sparse, bool b_is_sparse) {
  auto sparse_type = [](DType t) { return t == DType::float32 || t == DType::bfloat16; };
  bool use_sparse =
      (a_is_sparse || b_is_sparse) && sparse_type(a.dtype()) && sparse_type(b.dtype());
  if ((a.dtype() == DType::bfloat16 || b.dtype() == DType::bfloat16) && a.dtype() != b.dtype())
    use_sparse = true;
  // (math_ops.matmul casts the product of two bfloat16 matrices back to bfloat16; one factor
  // here is always the float gradient.)
  if (use_sparse)
    return sparse_matmul(a, b, transpose_a, transpose_b, a_is_sparse, b_is_sparse, "MatMul");
  return matmul(a, b, transpose_a, transpose_b, "MatMul");
}

// A factor of a SparseMatMul gradient product and whether it is marked sparse.
struct Factor {
  Output t;
  bool sparse = false;
};

// _SparseMatMulGrad's helper: op(t1) * op(t2), t2 transposed by a Transpose op rather than
// the attr, cast to `dtype` when the product has another.
Output sparse_product(const Factor& t1, const Factor& t2, DType dtype, bool transpose_a,
                      bool transpose_b) {
  const Output right = transpose_b ? transpose(t2.t, "transpose") : t2.t;
  Output product = hinted_matmul(t1.t, right, transpose_a, false, t1.sparse, t2.sparse);
  if (product.dtype() != dtype) product = cast(product, dtype, "Cast");
  return product;
}

// _SparseMatMulGrad: products of the gradient with the other input, the gradient marked
// sparse when a ReluGrad produced it.
Grads sparse_matmul_grad(const Operation& op, const Grads& g) {
  const Output a = input(op, 0), b = input(op, 1);
  const bool ta = bool_attr(op, "transpose_a"), tb = bool_attr(op, "transpose_b");
  const bool b_sparse = bool_attr(op, "b_is_sparse");
  // As the Python dict keyed by tensor: one input twice takes the second hint.
  const bool a_sparse = a == b ? b_sparse : bool_attr(op, "a_is_sparse");
  const Factor fa{a, a_sparse}, fb{b, b_sparse};
  const Factor grad{g[0], g[0].node() != nullptr && g[0].op().type() == "ReluGrad"};
  const DType dtype_a = a.dtype(), dtype_b = b.dtype();
  if (!ta && !tb)
    return {sparse_product(grad, fb, dtype_a, false, true),
            sparse_product(fa, grad, dtype_b, true, false)};
  if (!ta && tb)
    return {sparse_product(grad, fb, dtype_a, false, false),
            sparse_product(grad, fa, dtype_b, true, false)};
  if (ta && !tb)
    return {sparse_product(fb, grad, dtype_a, false, true),
            sparse_product(fa, grad, dtype_b, false, false)};
  return {sparse_product(fb, grad, dtype_a, true, true),
          sparse_product(grad, fa, dtype_b, true, true)};
}

// _MaxPoolGradV2: MaxPoolGradV2 with the forward op's ksize and strides; none for them.
Grads max_pool_v2_grad(const Operation& op, const Grads& g) {
  const std::string padding = string_attr(op, "padding", "VALID");
  const std::string format = string_attr(op, "data_format", "NHWC");
  return {nn::max_pool_grad_v2(input(op, 0), op.output(0), g[0], input(op, 1), input(op, 2),
                               padding, format, "MaxPoolGradV2"),
          Output(), Output()};
}

// _MaxPoolGradGradV2: zeros for the pooling's input and output, MaxPoolGradGradV2 for the
// gradient; none for ksize and strides.
Grads max_pool_grad_v2_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), y = input(op, 1);
  const std::string padding = string_attr(op, "padding", "VALID");
  const std::string format = string_attr(op, "data_format", "NHWC");
  const Output zeros_x = zeros_like_op(x, "zeros_like");
  const Output zeros_y = zeros_like_op(y, "zeros_like_1");
  return {zeros_x, zeros_y,
          nn::max_pool_grad_grad_v2(x, y, g[0], input(op, 3), input(op, 4), padding, format,
                                    "MaxPoolGradGradV2"),
          Output(), Output()};
}

}  // namespace

void register_array_more_gradients(GradientRegistry& r) {
  r.add("NthElement", nth_element_grad);
  // _accumulate_n_grad: the gradient for every input, as AddN's.
  r.add("AccumulateNV2", [](const Operation& op, const Grads& g) {
    return Grads(op.node()->inputs().size(), g[0]);
  });
  // _ConjugateTransposeGrad: for real types, the gradient transposed by the inverse of perm.
  r.add("ConjugateTranspose", [](const Operation& op, const Grads& g) -> Grads {
    const Output inverse = invert_permutation(input(op, 1), "InvertPermutation");
    return {transpose(g[0], inverse, "transpose"), Output()};
  });
  // _CheckNumericsV2Grad: the gradient is checked as well.
  r.add("CheckNumericsV2", [](const Operation& op, const Grads& g) -> Grads {
    return {check_numerics_v2(g[0],
                              "Not a number (NaN) or infinity (Inf) values detected in gradient. " +
                                  string_attr(op, "message", ""),
                              "CheckNumericsV2")};
  });
  // _BiasAddGradV1: the gradient for the value, summed over all but the last dimension for
  // the bias (TensorFlow's Python sums over range(rank - 1); BiasAddGrad NHWC sums the same).
  r.add("BiasAddV1", [](const Operation& op, const Grads& g) -> Grads {
    const Output bias_grad =
        op.graph()
            .create_op("BiasAddGrad", {g[0]},
                       {{"T", g[0].dtype()}, {"data_format", std::string("NHWC")}}, "BiasAddGrad")
            .output(0);
    return {g[0], bias_grad};
  });
  r.add("SparseMatMul", sparse_matmul_grad);
  r.add("MaxPoolV2", max_pool_v2_grad);
  r.add("MaxPoolGradV2", max_pool_grad_v2_grad);
}

}  // namespace af::detail
