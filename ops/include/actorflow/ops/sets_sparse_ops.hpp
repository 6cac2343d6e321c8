#pragma once

#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Set operations on the last dimension of dense tensors and SparseTensors (TensorFlow's
/// `tf.sets`, sets_impl.py and set_kernels.cc).
///
/// A set is the last dimension of a dense tensor of rank >= 2 (duplicates count once), or the
/// values of a SparseTensor's entries that share their first rank - 1 coordinates; the
/// SparseTensor's indices must be in row-major order (`sparse_reorder`). The results are
/// SparseTensors of the operands' group shape plus one dimension as long as the largest result
/// set, each result set's values sorted ascending (strings bytewise) at positions 0, 1, ...,
/// with no entry for an empty set. Values may be int32, int64, uint8 or string (TensorFlow also
/// takes int8, int16 and uint16, which actorflow has no dtype for). None of these ops is
/// differentiable. Running fails with TensorFlow's messages, the node named.
namespace af::sets {

/// An operand of a set operation: a dense tensor or a SparseTensor.
using SetOperand = std::variant<Output, SparseTensor>;

/// `tf.sets.size(a, validate_indices)`: op SetSize (default name "SetSize"), the int32 number
/// of distinct values in each set of the SparseTensor `a` (rank >= 2), of shape
/// `a.dense_shape[:-1]` (0 where no entry falls); unknown static shape. Throws
/// InvalidArgumentError "Invalid dtype float32." for a value dtype the set ops do not take.
/// Running fails with "Invalid rank 1.", "indices[1] = [0,0] is out of order. Many sparse ops
/// require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
/// "indices[0] = [0,5] is out of bounds: need 0 <= index < [2,2]", "indices[1] = [0,0] is
/// repeated" (those three only with `validate_indices`), "Shape must be a 1D tensor.",
/// "Expected shape dimensions to be non-negative, got -1", "Order length must be SparseTensor
/// rank."; and, without validate_indices, with Internal "indices[0, 1] expected < 2, got 5."
/// or "Invalid dim_size[1] = 0.".
Output set_size(const SparseTensor& a, bool validate_indices = true, std::string_view name = {});

/// Python's `sets_impl._set_operation(a, b, set_operation, validate_indices)`: op
/// DenseToDenseSetOperation (both dense), DenseToSparseSetOperation (a dense, b sparse) or
/// SparseToSparseSetOperation (both sparse), default name the op type. `set_operation` is
/// "a-b", "b-a", "intersection" or "union" in any case. Throws InvalidArgumentError "Sparse,Dense
/// is not supported, but Dense,Sparse is. Please flip the order of your inputs." for a sparse
/// `a` with a dense `b`, and TensorFlow's shape-function errors while building ("Shape must be
/// at least rank 2 but is rank 1", "Dimension 0 in both shapes must be equal, but are 1 and 2.
/// Shapes are [1] and [2].", "Dimension must be 2 but is 3", "Input 0, expected rank >= 2, got
/// 1."). Running fails with "Invalid set_operation xor.", "Mismatched shapes [1] vs [2]",
/// "Shape [2] has rank 1 < 2", "Invalid rank 1." and set_size's SparseTensor errors.
SparseTensor set_operation(const SetOperand& a, const SetOperand& b, std::string_view set_operation,
                           bool validate_indices = true, std::string_view name = {});

/// `tf.sets.intersection(a, b, validate_indices)`: the values in both sets of each pair (a
/// sparse `a` with a dense `b` swapped, as Python). Throws InvalidArgumentError "'a' invalid
/// dtype float32." or "Types don't match, int32 vs int64."; otherwise as `set_operation`.
SparseTensor set_intersection(const SetOperand& a, const SetOperand& b,
                              bool validate_indices = true);

/// `tf.sets.difference(a, b, aminusb, validate_indices)`: the values of a's sets missing from
/// b's ("a-b"), or with `aminusb` false the other way ("b-a"); a sparse `a` with a dense `b` is
/// swapped and the direction flipped, as Python. Errors as `set_intersection`.
SparseTensor set_difference(const SetOperand& a, const SetOperand& b, bool aminusb = true,
                            bool validate_indices = true);

/// `tf.sets.union(a, b, validate_indices)`: the values in either set of each pair. Errors as
/// `set_intersection`.
SparseTensor set_union(const SetOperand& a, const SetOperand& b, bool validate_indices = true);

}  // namespace af::sets

/// Splitting, bin counts and value counts of SparseTensors and ragged rows (TensorFlow's
/// sparse_split_op.cc, bincount_op.cc and count_ops.cc).
namespace af {

/// `tf.sparse.split(sp_input, num_split, axis)`: op SparseSplit (default name "SparseSplit",
/// the axis the int64 Const "<op>/split_dim"; negative counts from the end), `num_split`
/// SparseTensors cutting `sp` along `axis`; the first `dense_shape[axis] % num_split` pieces are
/// one longer. Each piece keeps its entries in input order, their coordinate along `axis` made
/// relative to the piece; its dense shape is sp's with that dimension replaced. Static shapes:
/// indices `[?, rank]`, values `[?]`. Throws InvalidArgumentError "Value for attr 'num_split' of
/// 0 must be at least minimum 1". Running fails with "Input axis should be in range [-2, 2), got
/// 2", "Input num_split should be between 1 and the splitting dimension size (5), got 7",
/// "Sparse index tuple indices[0, :] = [9, 0] is out of bounds", "Number of elements in indices
/// (7) and values (1) do not match", "Index rank (2) and shape rank (3) do not match". No
/// gradient, as in TensorFlow: `gradients` through it fails with "No gradient defined for
/// operation 'SparseSplit' (op type: SparseSplit)".
std::vector<SparseTensor> sparse_split(const SparseTensor& sp, std::int64_t num_split,
                                       std::int64_t axis, std::string_view name = {});
/// `sparse_split` with the axis an int64 scalar computed in the graph.
std::vector<SparseTensor> sparse_split(const SparseTensor& sp, std::int64_t num_split,
                                       const Output& axis, std::string_view name = {});

/// Op SparseBincount (`tf.raw_ops.SparseBincount`): the counts (or summed `weights`, float32,
/// float64, int32 or int64, empty for counts) of the values (int32 or int64, as `size`, a
/// scalar) of `sp` in [0, size), larger ones dropped: of all values to `[size]` for a 1-D dense
/// shape, else of each row (an entry's first coordinate) to `[dense_shape[0], size]`. With
/// `binary_output` a bin holds 1 once hit. Static shape where size and the dense shape are
/// Consts; a constant dense shape of more than 2 entries fails while building ("Input must be
/// less than rank 2"). Running fails with "size (-1) must be non-negative", "Shape must be rank
/// 0 but is rank 1", "Input arr must be non-negative!", "Input indices and weights must have
/// the same size.", "Sparse index tuple indices[0, :] = [7, 0] is out of bounds". Not
/// differentiable.
Output sparse_bincount(const SparseTensor& sp, const Output& size, const Output& weights,
                       bool binary_output = false, std::string_view name = {});

/// Op RaggedBincount: as `sparse_bincount` for the rows `values[splits[i]:splits[i + 1]]` of a
/// ragged tensor (int64 `splits`), `[len(splits) - 1, size]`, unknown static shape. Running
/// fails with "Splits must be non-empty", "Splits must start with 0, not with 1", "Splits must
/// end with the number of values, got 4 instead of 5", "Input must be non-negative".
Output ragged_bincount(const Output& splits, const Output& values, const Output& size,
                       const Output& weights, bool binary_output = false,
                       std::string_view name = {});

/// Op DenseCountSparseOutput (what `tf.sparse.bincount` of a dense tensor runs): the counts of
/// a vector's int32 or int64 values, or of each row of a matrix, as a SparseTensor (indices
/// `[n, 1]` or `[n, 2]` (row, value) in ascending order; values the counts, or summed `weights`
/// of the input's shape, or 1 with `binary_output`; dense shape `[size]` or `[rows, size]`).
/// size is `maxlength` when it is >= 0 (values at or above it dropped), else
/// max(largest value + 1, minlength). Throws InvalidArgumentError "Value for attr 'minlength' of
/// -2 must be at least minimum -1". Running fails with "Input must be a 1 or 2-dimensional
/// tensor. Got: [1,1,1]", "Input values must all be non-negative", "Weights and data must have
/// the same shape. Weight shape: [2]; data shape: [2,4]", "Invalid input: Shapes dimension
/// cannot be 0.".
SparseTensor dense_count_sparse_output(const Output& values, const Output& weights,
                                       bool binary_output, std::int64_t minlength = -1,
                                       std::int64_t maxlength = -1, std::string_view name = {});

/// Op SparseCountSparseOutput: `dense_count_sparse_output` of a SparseTensor's values, all
/// together for a 1-D dense shape, else per first coordinate (`[dense_shape[0], size]`).
/// Running fails with "Invalid index value at 0: dimension 1 has value 7 which is not in [0, 5)
/// (as given by dense shape Tensor<type: int64 shape: [2] values: 2 5>", "Cannot allocate 0
/// batches, is the dense shape too wide?", "Weights and values must have the same shape. Weight
/// shape: [2]; values shape: [5]", "The shape argument requires at least one element.".
SparseTensor sparse_count_sparse_output(const SparseTensor& sp, const Output& weights,
                                        bool binary_output, std::int64_t minlength = -1,
                                        std::int64_t maxlength = -1, std::string_view name = {});

/// Op RaggedCountSparseOutput: `dense_count_sparse_output` of each row of a ragged tensor
/// (int64 `splits`), dense shape `[len(splits) - 1, size]`. Running fails with "Must provide at
/// least 2 elements for the splits argument", "Splits must start with 0, not with 1", "Splits
/// must end with the number of values, got 4 instead of 5".
SparseTensor ragged_count_sparse_output(const Output& splits, const Output& values,
                                        const Output& weights, bool binary_output,
                                        std::int64_t minlength = -1, std::int64_t maxlength = -1,
                                        std::string_view name = {});

}  // namespace af
