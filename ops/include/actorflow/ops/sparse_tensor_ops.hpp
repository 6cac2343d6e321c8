#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Arithmetic, reductions, reordering, concatenation, slicing and feature crosses of
/// SparseTensors (TensorFlow's sparse_ops.py and the kernels behind it). The ops assume, as
/// TensorFlow's, that a SparseTensor's indices are in row-major order where they merge two
/// operands (SparseAdd, SparseSparseMaximum, the gradients) or group entries (the crosses);
/// `sparse_reorder` makes them so. Running fails with TensorFlow's messages, the node named.
namespace af {

/// `tf.sparse.sparse_dense_matmul(a, b, adjoint_a, adjoint_b)`: op SparseTensorDenseMatMul
/// (default name "SparseTensorDenseMatMul"), the dense `op(a) * op(b)` of a rank-2
/// SparseTensor `a` (int64 or int32 indices) and a matrix `b` of a's value dtype (float,
/// double, int32), `op` transposing where its adjoint flag is set. Entries repeated add up.
/// Static shape `[a_rows, b_cols]` (after the adjoints) where known. Running fails with
/// "k (3) from index[0,1] out of bounds (>=2)", "m (5) from index[0,0] out of bounds (>=2)",
/// "Cannot multiply A and B because inner dimension does not match: 3 vs. 2.  Did you forget
/// a transpose?  Dimensions of A: [2, 3).  Dimensions of B: [2,2]", "Tensor 'b' is not a
/// matrix", "Tensor 'a_shape' must have 2 elements", "Number of rows of a_indices does not
/// match number of entries in a_values". Gradient (_SparseTensorDenseMatMulGrad): the values'
/// through Gather and BatchMatMulV2 of the rows and columns each entry meets, b's through
/// another SparseTensorDenseMatMul.
Output sparse_tensor_dense_matmul(const SparseTensor& a, const Output& b, bool adjoint_a = false,
                                  bool adjoint_b = false, std::string_view name = {});

/// `tf.sparse.add(a, b, thresh)` of two SparseTensors: op SparseAdd (default name
/// "SparseAdd"), their sum as a SparseTensor (indices merged in row-major order; a sum of two
/// entries whose magnitude is below `thresh`, a real scalar, is left out; the dense shape a's).
/// Both operands must be ordered. Running fails with "Operands' shapes do not match: got 2 and
/// 3 for dimension 1", "Input indices must have the same dimension, got 2 and 3", "Expected 2
/// and 2 non-empty input values, got 1 and 2", "The magnitude threshold must be a scalar: got
/// shape [1]". Gradient (_SparseAddGrad): SparseAddGrad to both value vectors.
SparseTensor sparse_add(const SparseTensor& a, const SparseTensor& b, const Output& thresh,
                        std::string_view name = {});
/// `sparse_add` with `thresh` a Const "<op>/thresh" of the values' dtype.
SparseTensor sparse_add(const SparseTensor& a, const SparseTensor& b, double thresh = 0,
                        std::string_view name = {});

/// `tf.raw_ops.SparseAddGrad`: the gradients of SparseAdd's `a_values` and `b_values` from the
/// sum's values' gradient `backprop_val_grad` (entries dropped by thresh get zero). Fails with
/// "# elements of backprop_val_grad and # rows of sum_indices should match (#nnz of sum): got
/// 1 and 2". Not differentiable.
std::pair<Output, Output> sparse_add_grad(const Output& backprop_val_grad, const Output& a_indices,
                                          const Output& b_indices, const Output& sum_indices,
                                          std::string_view name = {});

/// `tf.sparse.add(a, b)` with a dense `b`: op SparseTensorDenseAdd (default name
/// "SparseTensorDenseAdd"), `b` with a's entries added (no broadcasting; b's static shape).
/// Fails with "Dimension 1 does not equal (no broadcasting is supported): sparse side 3 vs
/// dense side 2", "Two operands have different ranks; received: 3 and 2", "Sparse tensor has
/// an invalid index on dimension 1: a_indices(0,1) = 5, dense tensor shape: 2 2". Gradient:
/// GatherNd of the output's gradient for a's values, the gradient itself for b.
Output sparse_tensor_dense_add(const SparseTensor& a, const Output& b, std::string_view name = {});

/// `tf.sparse.reduce_sum(sp, axis, keepdims)`: op SparseReduceSum (default name
/// "SparseReduceSum", the axes the int32 Const "<op>/reduction_axes"; no axes: all), a dense
/// tensor (zero where no entry falls). Negative axes count from the end. Static shape where
/// the dense shape is a Const. Fails with "Invalid reduction dimension 2, for input with 2
/// dimensions.", "Expected input_shape to be a vector; got shape: [1,2]". Gradient
/// (_SparseReduceSumGrad): the output's gradient reshaped to the kept dims and gathered
/// (GatherNd) at each entry's index divided by the scale.
Output sparse_reduce_sum(const SparseTensor& sp,
                         const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
                         bool keep_dims = false, std::string_view name = {});
/// `tf.sparse.reduce_sum(..., output_is_sparse=True)`: op SparseReduceSumSparse, one entry per
/// group of kept coordinates holding an entry, in row-major order. Not differentiable.
SparseTensor sparse_reduce_sum_sparse(
    const SparseTensor& sp, const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
    bool keep_dims = false, std::string_view name = {});
/// `tf.sparse.reduce_max`: op SparseReduceMax, as `sparse_reduce_sum` with the maximum of each
/// group's entries (zero, as TensorFlow, where no entry falls). No gradient (as TensorFlow).
Output sparse_reduce_max(const SparseTensor& sp,
                         const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
                         bool keep_dims = false, std::string_view name = {});
/// `tf.sparse.reduce_max(..., output_is_sparse=True)`: op SparseReduceMaxSparse.
SparseTensor sparse_reduce_max_sparse(
    const SparseTensor& sp, const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
    bool keep_dims = false, std::string_view name = {});

/// `tf.sparse.reorder`: op SparseReorder (default name "SparseReorder"), the entries in
/// row-major order of their indices (entries of one index keep their order), any value dtype.
/// Indices out of bounds are not checked (as TensorFlow). Fails with "Number of elements in
/// indices (2) and values (1) do not match", "Index rank (2) and shape rank (3) do not match".
/// Gradient (_SparseReorderGrad): the values' gradient gathered by the inverse permutation.
SparseTensor sparse_reorder(const SparseTensor& sp, std::string_view name = {});

/// `tf.sparse.concat(axis, inputs)`: op SparseConcat (default name "SparseConcat", attr
/// concat_dim `axis`, negative from the end), the SparseTensors side by side along `axis`, the
/// result in row-major order. Fails with "Concat dimension must be in range [-2, 2), got 2",
/// "Input shapes must match: expected 2 for dimension 0 but got 3 at position 1", "Ranks of
/// all input tensors must match: expected 2 but got 3 at position 1". Not differentiable (as
/// TensorFlow). Throws InvalidArgumentError for no inputs or inputs of mixed value dtypes.
SparseTensor sparse_concat(std::int64_t axis, const std::vector<SparseTensor>& inputs,
                           std::string_view name = {});

/// `tf.sparse.slice(sp, start, size)`: op SparseSlice (default name "SparseSlice", start and
/// size int64 Consts "<op>/start" and "<op>/size"), the entries with `start <= index < start +
/// size`, shifted by `-start`, in their input order, the dense shape clipped to the input's.
/// Fails with "Expected start to be a vector of length 2 but got length 1", "Expected a
/// non-negative size, got -1". Gradient (_SparseSliceGrad): SparseSliceGrad.
SparseTensor sparse_slice(const SparseTensor& sp, const std::vector<std::int64_t>& start,
                          const std::vector<std::int64_t>& size, std::string_view name = {});

/// `tf.raw_ops.SparseSliceGrad`: the input values' gradient from the slice's values' gradient
/// (zero for entries the slice left out). Fails (Internal) with "Elements of
/// backprop_val_grad aren't all propagated. Num elements:2, used: 0".
Output sparse_slice_grad(const Output& backprop_val_grad, const Output& input_indices,
                         const Output& input_start, const Output& output_indices,
                         std::string_view name = {});

/// `tf.sparse.softmax`: op SparseSoftmax (default name "SparseSoftmax"), float or double
/// values of rank >= 2, softmax over the last dimension among the entries present. As
/// TensorFlow's kernel the output values are in the row-major order of the indices and the
/// result carries `sp`'s indices, so `sp` must be ordered. Fails with "Input should have rank
/// >= 2, but received shape: 2". Gradient (_SparseSoftmaxGrad): SparseReduceSum and
/// SparseDenseCwiseAdd as TensorFlow's.
SparseTensor sparse_softmax(const SparseTensor& sp, std::string_view name = {});

/// `sp * dense`: op SparseDenseCwiseMul (default name "SparseDenseCwiseMul"), the values
/// times the dense tensor's elements at their indices, `dense` broadcast to the sparse
/// shape (only that way). The result has sp's indices and shape. Fails with
/// "SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: [2,2]
/// vs. [3]", "Provided indices are out-of-bounds w.r.t. dense side with broadcasted shape",
/// "Only tensors with ranks between 1 and 5 are currently supported.  Tensor rank: 6".
/// Gradient (_SparseDenseCwiseMulOrDivGrad): both operands.
SparseTensor sparse_dense_cwise_mul(const SparseTensor& sp, const Output& dense,
                                    std::string_view name = {});
/// `sp / dense`: op SparseDenseCwiseDiv (integer division truncates; by zero gives 0).
/// Gradient: both operands.
SparseTensor sparse_dense_cwise_div(const SparseTensor& sp, const Output& dense,
                                    std::string_view name = {});
/// `sp + dense` at sp's entries only: op SparseDenseCwiseAdd. Its gradient throws
/// UnimplementedError, as TensorFlow's NotImplementedError.
SparseTensor sparse_dense_cwise_add(const SparseTensor& sp, const Output& dense,
                                    std::string_view name = {});

/// `tf.sparse.maximum(a, b)`: op SparseSparseMaximum (default name "SparseSparseMaximum"),
/// the union of the entries (merged in order; a side without an entry counting as zero), the
/// maximum of both there; a's dense shape. Fails with "Sparse index tuple indices[0, :] = [0,
/// 5] is out of bounds", "Operands do not have the same ranks; got shapes: 2 2 and 2 2 2".
/// Its gradient throws UnimplementedError, as TensorFlow's NotImplementedError.
SparseTensor sparse_maximum(const SparseTensor& a, const SparseTensor& b,
                            std::string_view name = {});
/// `tf.sparse.minimum(a, b)`: op SparseSparseMinimum, as `sparse_maximum` with the minimum.
SparseTensor sparse_minimum(const SparseTensor& a, const SparseTensor& b,
                            std::string_view name = {});

/// TensorFlow's `_DEFAULT_HASH_KEY` for `tf.sparse.cross_hashed` (0xDECAFCAFFE).
inline constexpr std::int64_t kDefaultCrossHashKey = 0xDECAFCAFFE;

/// `tf.compat.v1.sparse.cross(inputs)`: op SparseCross (default name "SparseCross",
/// hashed_output false), for each batch row every combination of one feature per input
/// (`sparse` rank-2 SparseTensors first, then the `dense` matrices; the last varying
/// fastest) as the features joined by "_X_" (integers in decimal). String and integer inputs
/// (int32 cast to int64 by "Cast" ops beside the op, as sparse_ops.py). The sparse inputs
/// must be ordered by row. Fails with "Expected D2 of index to be 2 got 3 at position 0",
/// "Expected batch size 1 got 2 at dense tensor 0". Not differentiable.
SparseTensor sparse_cross(const std::vector<SparseTensor>& sparse,
                          const std::vector<Output>& dense = {}, std::string_view name = {});
/// `tf.sparse.cross(inputs, separator)`: op SparseCrossV2, the features joined by `separator`.
SparseTensor sparse_cross_v2(const std::vector<SparseTensor>& sparse,
                             const std::vector<Output>& dense = {},
                             std::string_view separator = "_X_", std::string_view name = {});
/// `tf.sparse.cross_hashed(inputs, num_buckets, hash_key)` (feature columns' crossed_column):
/// op SparseCross with hashed_output, each combination hashed as TensorFlow bit for bit
/// (FingerprintCat64 of the key and each feature's Fingerprint64, integers as they are),
/// modulo `num_buckets` (0: modulo 2**63 - 1).
SparseTensor sparse_cross_hashed(const std::vector<SparseTensor>& sparse,
                                 const std::vector<Output>& dense = {},
                                 std::int64_t num_buckets = 0,
                                 std::int64_t hash_key = kDefaultCrossHashKey,
                                 std::string_view name = {});
/// `tf.raw_ops.SparseCrossHashed` (Keras' HashedCrossing): op SparseCrossHashed with
/// num_buckets, strong_hash and salt Consts in the op's scope; features hashed with
/// Fingerprint64 or, with `strong_hash`, SipHash keyed by `salt` (integers hashed, as
/// TensorFlow, over their first 4 bytes; a dense integer without strong_hash as it is). Fails
/// with "Input \"salt\" must have length 2 but has length 1" for a wrong salt tensor.
SparseTensor sparse_cross_hashed_salted(const std::vector<SparseTensor>& sparse,
                                        const std::vector<Output>& dense, std::int64_t num_buckets,
                                        bool strong_hash, const std::array<std::int64_t, 2>& salt,
                                        std::string_view name = {});

}  // namespace af
