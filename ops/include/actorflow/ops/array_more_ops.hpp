#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// More of TensorFlow's array ops and the older forms of some nn and math ops: Bitcast,
/// DataFormatDimMap, DataFormatVecPermute, UnravelIndex, LowerBound, UpperBound, NthElement,
/// InplaceAdd, InplaceSub, InplaceUpdate, Empty, ParallelConcat, AccumulateNV2,
/// ConjugateTranspose, GuaranteeConst, CheckNumericsV2, BiasAddV1, SparseMatMul,
/// Conv3DBackpropInput, Conv3DBackpropFilter, MaxPoolV2, MaxPoolGradV2 and MaxPoolGradGradV2.
///
/// Every builder creates one op (named after its op type unless `name` is given) whose shape
/// function is TensorFlow's: building throws InvalidArgumentError with TensorFlow's message
/// when the static shapes or attrs are refused. Running fails with the CPU kernel's message
/// (InvalidArgument unless said otherwise), the node named.
namespace af {

/// `tf.bitcast(input, type)`: op Bitcast, `input`'s bytes read as `type` (both among float,
/// double, int32, int64, uint8 and bfloat16). A smaller `type` adds a last dimension of
/// size(input dtype) / size(type); a larger one needs a last dimension of size(type) /
/// size(input dtype) and removes it. Errors: building "Cannot bitcast from 4 to 1 due to
/// shape. 3 does not match 4" (TensorFlow's DataType numbers), "Shape must be at least rank
/// 1 but is rank 0"; running "Cannot bitcast from 4 to 1". Not differentiable (TensorFlow
/// registers no gradient).
Output bitcast(const Output& input, DType type, std::string_view name = {});

/// `tf.unravel_index(indices, dims)`: op UnravelIndex, the coordinates in an array of shape
/// `dims` of each flat index: [ndims] for a scalar `indices`, [ndims, n] for a vector (int32
/// or int64, one dtype for both). Negative indices pass through C++'s % and / as
/// TensorFlow's. Errors when run: "index is out of bound as with dims", "received empty
/// tensor indices: ...", "Input dims cannot contain a dim of zero, but dims contains zero at
/// index 1", "Input dims product is causing integer overflow: (100000 100000)".
Output unravel_index(const Output& indices, const Output& dims, std::string_view name = {});

/// `tf.raw_ops.LowerBound(sorted_inputs, values, out_type)`: op LowerBound, for each row b of
/// the matrices `sorted_inputs` and `values` (one real dtype) the std::lower_bound position of
/// each value in sorted_inputs[b], as `out_type` (int32 or int64). Errors: building "Shape must
/// be rank 2 but is rank 1"; running "Leading dim_size of both tensors must match.". Not
/// differentiable.
Output lower_bound(const Output& sorted_inputs, const Output& values, DType out_type = DType::int32,
                   std::string_view name = {});
/// `tf.raw_ops.UpperBound`: op UpperBound, as `lower_bound` with std::upper_bound.
Output upper_bound(const Output& sorted_inputs, const Output& values, DType out_type = DType::int32,
                   std::string_view name = {});

/// `tf.raw_ops.InplaceUpdate(x, i, v)`: op InplaceUpdate, `x` with rows `i[j]` (an int32
/// vector; indices taken modulo x's first dimension) replaced by `v[j]` (x's dtype, shape
/// [len(i)] + x.shape[1:]). TensorFlow overwrites x's buffer; actorflow writes a copy, so `x`
/// keeps its value. Errors when run: "i must be a vector. []", "x and v shape doesn't match
/// at index 1 : [3,2] vs. [1,3]", "i and x shape doesn't match at index 0: [2] vs. [1,2]".
/// Not differentiable.
Output inplace_update(const Output& x, const Output& i, const Output& v,
                      std::string_view name = {});
/// `tf.raw_ops.InplaceAdd`: op InplaceAdd, as `inplace_update` adding `v[j]` to the rows;
/// numbers only ("Unsupported data type: bool" when run).
Output inplace_add(const Output& x, const Output& i, const Output& v, std::string_view name = {});
/// `tf.raw_ops.InplaceSub`: op InplaceSub, as `inplace_add` subtracting.
Output inplace_sub(const Output& x, const Output& i, const Output& v, std::string_view name = {});

/// `tf.raw_ops.Empty(shape, dtype, init)`: op Empty (stateful), a tensor of `dtype` and
/// `shape` (an int32 vector). TensorFlow leaves it uninitialized unless `init`; actorflow's
/// is always zeros. Errors: building "Shape must be rank 1 but is rank 0"; running "Dimension
/// -1 must be >= 0".
Output empty(const Output& shape, DType dtype, bool init = false, std::string_view name = {});

/// `tf.raw_ops.ParallelConcat(values, shape)`: op ParallelConcat, the tensor of the fully
/// defined `shape` whose row k is `values[k]` (each of shape [1] + shape[1:], one dtype).
/// Rows past the inputs are zeros (TensorFlow leaves them uninitialized). Errors: building
/// "shape attr must be fully defined.", "Size of first dimension must be 1.", "All input
/// shapes must be fully defined."; running "0th dimension of value = 1 must be greater than
/// loc_ = 1". Not differentiable (TensorFlow registers no gradient).
Output parallel_concat(const std::vector<Output>& values, const PartialShape& shape,
                       std::string_view name = {});
/// `tf.parallel_stack(values)`: under the name scope "parallel_stack", each value through an
/// ExpandDims of axis 0 into a ParallelConcat of shape [len(values)] + values[0].shape (which
/// must be fully defined). Throws InvalidArgumentError for an empty list.
Output parallel_stack(const std::vector<Output>& values, std::string_view name = {});

/// `tf.raw_ops.AccumulateNV2(inputs, shape)`: op AccumulateNV2, the sum of `inputs` (one
/// numeric dtype, one shape), computed as AddN; its static shape is `shape`. TensorFlow
/// rewrites it into in-place additions; neither checks `shape` against the inputs when run.
/// Gradient: the output's gradient for every input.
Output accumulate_n_v2(const std::vector<Output>& inputs, const PartialShape& shape,
                       std::string_view name = {});

/// `tf.raw_ops.ConjugateTranspose(x, perm)`: op ConjugateTranspose, for the real dtypes
/// actorflow has the same as `transpose` (its messages too: "1 is missing from {0,0}.").
/// Gradient: the gradient transposed by InvertPermutation(perm); none for perm.
Output conjugate_transpose(const Output& x, const Output& perm, std::string_view name = {});
/// `conjugate_transpose` with `perm` the Const "<op>/perm".
Output conjugate_transpose(const Output& x, const std::vector<std::int64_t>& perm,
                           std::string_view name = {});

/// `tf.raw_ops.GuaranteeConst(input)`: op GuaranteeConst (stateful), the input itself (a
/// promise that it is constant). Not differentiable: TensorFlow registers no gradient, so
/// `gradients` through it throws NotFoundError.
Output guarantee_const(const Output& input, std::string_view name = {});

/// `tf.debugging.check_numerics` of TensorFlow 2 (`check_numerics_v2`): op CheckNumericsV2
/// (stateful), the tensor itself (float, double or bfloat16); running it fails with
/// "<message> : Tensor had -Inf, +Inf, and NaN values", naming what it found ("NaN", "+Inf",
/// "-Inf and NaN", ...). Gradient: the gradient through a CheckNumericsV2 of message "Not a
/// number (NaN) or infinity (Inf) values detected in gradient. <message>".
Output check_numerics_v2(const Output& tensor, const std::string& message,
                         std::string_view name = {});

/// `tf.raw_ops.SparseMatMul(a, b, ...)`: op SparseMatMul, the float32 product op(a) * op(b)
/// of two matrices each float32 or bfloat16, summed in float. `a_is_sparse` / `b_is_sparse`
/// are hints (TensorFlow's kernel skips zeros); the product is the same. Errors: building
/// "Dimensions must be equal, but are 3 and 4"; running "Matrix size incompatible: a: [2,2],
/// b: [1,3]", "a is not a matrix". Gradient: math_grad.py's _SparseMatMulGrad (products by
/// MatMul, or SparseMatMul where a hint or a bfloat16 input asks for it, cast to the inputs'
/// dtypes).
Output sparse_matmul(const Output& a, const Output& b, bool transpose_a = false,
                     bool transpose_b = false, bool a_is_sparse = false, bool b_is_sparse = false,
                     std::string_view name = {});

}  // namespace af

namespace af::nn {

/// `tf.raw_ops.DataFormatDimMap(x, src_format, dst_format)`: op DataFormatDimMap, each
/// dimension index `x` of `src_format` (int32 or int64; negative ones from the end) mapped to
/// its index in `dst_format`. Formats have 4 or 5 characters, one a permutation of the other;
/// otherwise running fails ("Source format must be of length 4 or 5, received src_format =
/// NHW", "Destination and source format must determine a permutation, got NHWC and NCHH").
Output data_format_dim_map(const Output& x, const std::string& src_format = "NHWC",
                           const std::string& dst_format = "NCHW", std::string_view name = {});

/// `tf.raw_ops.DataFormatVecPermute(x, src_format, dst_format)`: op DataFormatVecPermute, a
/// vector of one value per dimension of `src_format` (or an [n, 2] matrix of pairs) reordered
/// to `dst_format`; n may also be the number of spatial dimensions (H and W, and D for
/// 5-character formats). Errors when run: "1D input must be of size 2 or 4, but got shape
/// [3]", "Second dimension of 2D input must be of size 2, but got shape [4,3]", "Format
/// specifier must contain H and W for 2D case".
Output data_format_vec_permute(const Output& x, const std::string& src_format = "NHWC",
                               const std::string& dst_format = "NCHW", std::string_view name = {});

/// `tf.raw_ops.NthElement(input, n, reverse)`: op NthElement, the n-th smallest entry (the
/// n-th largest with `reverse`) of each row of the last dimension of a real-valued `input`
/// of rank >= 1, shape input.shape[:-1]; `n` an int32 scalar. Errors: building "Input must
/// have last dimension > n = 5 but is 5"; running "n must be non-negative but is -1", "Input
/// must have last dimension > n = 3". Gradient: nn_grad.py's _NthElementGrad (the gradient
/// split evenly among the entries equal to the output); none for n.
Output nth_element(const Output& input, const Output& n, bool reverse = false,
                   std::string_view name = {});
/// `nth_element` with `n` the int32 Const "<op>/n".
Output nth_element(const Output& input, std::int64_t n, bool reverse = false,
                   std::string_view name = {});

/// `tf.raw_ops.BiasAddV1(value, bias)`: op BiasAddV1, BiasAdd over the last dimension
/// (value of rank >= 2, bias a vector of its size), with BiasAdd's checks. Gradient: the
/// gradient itself for value, BiasAddGrad (NHWC) of it for bias.
Output bias_add_v1(const Output& value, const Output& bias, std::string_view name = {});

/// `tf.raw_ops.Conv3DBackpropInput(input, filter, out_backprop, strides, padding)`, the first
/// version (TensorFlow removed it at GraphDef version 10, so new TensorFlow graphs cannot hold
/// it; imported ones can): op Conv3DBackpropInput, Conv3DBackpropInputV2 with `input`'s shape
/// as the sizes (NDHWC, float or double). Not differentiable (TensorFlow registers no
/// gradient for it).
Output conv3d_backprop_input(const Output& input, const Output& filter, const Output& out_backprop,
                             const std::vector<std::int64_t>& strides, const std::string& padding,
                             const std::vector<std::int64_t>& dilations = {1, 1, 1, 1, 1},
                             std::string_view name = {});
/// `tf.raw_ops.Conv3DBackpropFilter`, the first version: op Conv3DBackpropFilter,
/// Conv3DBackpropFilterV2 with `filter`'s shape as the sizes.
Output conv3d_backprop_filter(const Output& input, const Output& filter, const Output& out_backprop,
                              const std::vector<std::int64_t>& strides, const std::string& padding,
                              const std::vector<std::int64_t>& dilations = {1, 1, 1, 1, 1},
                              std::string_view name = {});

/// `tf.raw_ops.MaxPoolV2(input, ksize, strides, padding, data_format)`: op MaxPoolV2, MaxPool
/// with the window and strides given as int32 vectors of 4 (computed in the graph or Consts).
/// Its static shape is unknown unless both are constant, as TensorFlow's. Runs as MaxPool
/// does (float or double, NHWC, no pooling over the batch or depth); refusals: "Sliding
/// window ksize field must specify 4 dimensions", "Sliding window ksize must be positive."
/// (InvalidArgument), "Pooling is not yet supported on the batch dimension."
/// (Unimplemented). Gradient: MaxPoolGradV2 of the same ksize and strides; none for them.
Output max_pool_v2(const Output& input, const Output& ksize, const Output& strides,
                   const std::string& padding, const std::string& data_format = "NHWC",
                   std::string_view name = {});
/// `max_pool_v2` with ksize and strides the int32 Consts "<op>/ksize" and "<op>/strides".
Output max_pool_v2(const Output& input, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, const std::string& padding,
                   const std::string& data_format = "NHWC", std::string_view name = {});

/// `tf.raw_ops.MaxPoolGradV2`: op MaxPoolGradV2, MaxPoolGrad with ksize and strides as
/// inputs; TensorFlow's checks first ("tensor_in must be 4-dimensional", "Expected
/// orig_output shape to be [1,2,2,2], but got [1,3,2,2]", Unimplemented "MaxPoolingGrad is not
/// yet supported on the depth dimension."). Gradient: zeros for orig_input and orig_output,
/// MaxPoolGradGradV2 for grad; none for ksize and strides.
Output max_pool_grad_v2(const Output& orig_input, const Output& orig_output, const Output& grad,
                        const Output& ksize, const Output& strides, const std::string& padding,
                        const std::string& data_format = "NHWC", std::string_view name = {});

/// `tf.raw_ops.MaxPoolGradGradV2`: op MaxPoolGradGradV2, MaxPoolGradGrad with ksize and
/// strides as inputs (real types), with TensorFlow's checks first. Not differentiable
/// (TensorFlow registers no gradient).
Output max_pool_grad_grad_v2(const Output& orig_input, const Output& orig_output,
                             const Output& grad, const Output& ksize, const Output& strides,
                             const std::string& padding, const std::string& data_format = "NHWC",
                             std::string_view name = {});

}  // namespace af::nn
