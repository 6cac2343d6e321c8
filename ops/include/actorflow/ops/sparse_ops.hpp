#pragma once

#include <string_view>
#include <utility>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Operations on SparseTensors that `safe_embedding_lookup_sparse` needs (TensorFlow's
/// sparse_ops.py): reshaping, filling empty rows and keeping the entries a mask selects; and
/// `sparse_to_dense`, a dense tensor from indices and values.
namespace af {

/// What `sparse_fill_empty_rows` returns.
struct SparseFillEmptyRowsResult {
  SparseTensor output;         ///< the input with `[row, 0, ...] = default` for each empty row
  Output empty_row_indicator;  ///< bool `[dense_shape[0]]`: whether each row was empty
  Output reverse_index_map;    ///< int64 `[N]`: where each input entry went in the output
};

/// `tf.sparse.fill_empty_rows`: op SparseFillEmptyRows (default name "SparseFillEmptyRows").
/// Each row of `sp` with no entry gets one at `[row, 0, ...]` holding `default_value` (a
/// scalar of the values' dtype); the output is grouped by row in row order, entries of one
/// row in their input order (so row-major when each row's entries are). Its gradient reaches
/// the values and the default (SparseFillEmptyRowsGrad). Running fails with TensorFlow's
/// texts: "indices(3, 0) is invalid: 7 >= 5", "Received SparseTensor with dense_shape[0] =
/// 0 but indices.shape[0] = 2", "The length of `values` (2) must match the first dimension
/// of `indices` (3).", "Dense shape cannot be empty.", and for inputs of the wrong rank.
SparseFillEmptyRowsResult sparse_fill_empty_rows(const SparseTensor& sp,
                                                 const Output& default_value,
                                                 std::string_view name = {});

/// `tf.raw_ops.SparseFillEmptyRowsGrad`: from the output values' gradient `grad_values`,
/// the input values' (`grad_values[reverse_index_map[i]]`) and the default value's (the sum
/// over the filled entries). Running fails with "Elements in reverse index must be in [0,
/// 4)" for a bad map.
std::pair<Output, Output> sparse_fill_empty_rows_grad(const Output& reverse_index_map,
                                                      const Output& grad_values,
                                                      std::string_view name = {});

/// `tf.sparse.reshape`: op SparseReshape (default name "SparseReshape") giving `sp` the dense
/// shape `shape` (an integer vector, cast to int64 by a Cast "Cast" beside the op when it is
/// int32), each entry keeping its row-major position in the dense tensor. One dimension of
/// `shape` may be -1, inferred from the others and the input's size. The result's indices
/// are the op's output 0, its values `sp.values` through "<op>/Identity", its dense shape
/// the op's output 1, or, when `sp.dense_shape` and `shape` are Consts, the Const
/// "<op>/Const" holding the resolved shape. With both Consts, it throws
/// InvalidArgumentError as TensorFlow's ValueErrors: "At most one dimension can be inferred
/// (-1). Found: [-1 -1]", "Cannot reshape a tensor with 12 elements to shape [5, None] (10
/// elements).". Running fails with TensorFlow's texts: "only one output dimension may be
/// -1, not both 0 and 1", "size 1 must be non-negative, not -2", "Input to reshape is a
/// tensor with 12 dense values, but the requested shape has 10. input_shape=[3,4]
/// output_shape=[2,5]", "Input to reshape is a SparseTensor with 12 dense values, but the
/// requested shape requires a multiple of 5. ...", "reshape cannot infer the missing input
/// size for an empty tensor unless all specified input sizes are non-zero", "Input tensor
/// has 1 non zero elements but input shape ([0,4]) or output shape ([0,2]) is empty",
/// "Expected shape dimensions to be non-negative, got -4", "Encountered overflow when
/// multiplying 1099511627776 with 1099511627776, result: -1", "Input must be a matrix.",
/// "Input shape must be a vector.", "Input tensor rank must match input shape length.",
/// "Target shape should be a vector but received shape [1,1]". Indices outside the input's
/// dense shape are not checked (as in TensorFlow). Not differentiable (int64 outputs).
SparseTensor sparse_reshape(const SparseTensor& sp, const Output& shape,
                            std::string_view name = {});

/// `tf.compat.v1.sparse_to_dense`: op SparseToDense (default name "SparseToDense"), a tensor of
/// shape `output_shape` (an int32 or int64 vector of `sparse_indices`' dtype) holding
/// `default_value` (a scalar of `sparse_values`' dtype) except at the indices, which get their
/// value of `sparse_values` ([N]) or its one value (a scalar). `sparse_indices` is a scalar
/// (one index of a vector), an [N] vector (N indices of a vector) or an [N, rank] matrix.
/// Every value dtype (numbers, bool, string) on the CPU. The output shape is known where
/// `output_shape` is a Const (a -1 in it an unknown dimension). With `validate_indices` the
/// indices must be in bounds, in row-major order and distinct; without it an index out of
/// bounds still fails, and of an index repeated the last value wins. Throws
/// InvalidArgumentError while building for "Input 'default_value' of 'SparseToDense' Op has
/// type int32 that does not match type float32 of argument 'sparse_values'.", the same of
/// `output_shape` against `sparse_indices`, indices neither int32 nor int64, an
/// `output_shape` not of rank 1 ("Shape must be rank 1 but is rank 2") and "Invalid value in
/// tensor used for shape: -4". Running fails with TensorFlow's texts: "indices[1] = [5] is
/// out of bounds: need 0 <= index < [4]", "indices[1] = [0] is repeated", "indices[2] = [1]
/// is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to
/// create a correctly ordered copy.\n\n", "Indices are not valid (out of bounds).  Shape:
/// [4]" (unvalidated), "sparse_indices should be a scalar, vector, or matrix, got shape
/// [1,1,1]", "output_shape must be rank 1, got shape [1,1]", "output_shape has incorrect
/// number of elements: 2 should be: 1", "sparse_values has incorrect shape [2], should be []
/// or [1]", "default_value should be a scalar.", "Dimension -1 must be >= 0" and "Shape
/// [3000000000,4000000000] would have more than 2**63 - 1 elements". Gradient (sparse_grad.py's
/// `_SparseToDenseGrad`): GatherNd of the output's gradient at `sparse_indices` for the
/// values, the gradient's sum less theirs for the default, zeros for indices and shape; as in
/// TensorFlow it builds only for [N, rank] indices with [N] values (GatherNd rejects a vector
/// of more indices than the output's rank; a scalar value gets an [N] gradient, which
/// `gradients` refuses as "Incompatible shapes between op input and calculated input
/// gradient").
Output sparse_to_dense(const Output& sparse_indices, const Output& output_shape,
                       const Output& sparse_values, const Output& default_value,
                       bool validate_indices = true, std::string_view name = {});

/// `tf.sparse.retain`: the entries of `sp` whose element of the bool vector `to_retain` is
/// true (Where, then Gather of indices and values), the dense shape unchanged.
SparseTensor sparse_retain(const SparseTensor& sp, const Output& to_retain);

}  // namespace af
