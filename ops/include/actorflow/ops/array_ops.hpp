#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"

/// Graph-building functions for TensorFlow 1.x's array transforms (ops Tile, Transpose,
/// InvertPermutation, ExpandDims, Squeeze, Slice, StridedSlice, StridedSliceGrad, Rank, ShapeN,
/// ZerosLike, OnesLike, StopGradient, PreventGradient, OneHot, Unpack, ConcatOffset, DecodeRaw)
/// and `truncated_normal`.
///
/// Each creates nodes in the graph of its first input (or the graph passed in) and runs
/// TensorFlow's shape function at once: a rejected input throws InvalidArgumentError whose
/// message is TensorFlow's followed by " for '<node>' (op: '<type>') with input shapes: ...".
/// Inputs given as plain numbers become Consts named under the op, as op_def_library names
/// converted inputs ("Tile/multiples"); lists of ints are int32 unless a value needs int64.
/// Default names are those of TensorFlow's Python API. Running a node fails with
/// InvalidArgument and the kernel's message (TensorFlow's) followed by "[[{{node <name>}}]]".
///
/// Note: a two-element braced list such as `{0, 1}` is ambiguous between the
/// `std::vector<std::int64_t>` and `Output` overloads; spell it `std::vector<std::int64_t>{0, 1}`.
namespace af {

/// `tf.tile`: op Tile (default name "Tile"), `input` repeated `multiples[i]` times along
/// dimension i; `multiples` is an int32 or int64 vector of length rank(input). With constant
/// multiples the output shape is known where the input's is; a wrong length throws ("Shape
/// must be rank 2 but is rank 3"). Running fails with "Expected multiples argument to be a
/// vector of length 2 but got length 3" or "Expected multiples[1] >= 0, but got -1".
/// Any dtype, strings included.
Output tile(const Output& input, const Output& multiples, std::string_view name = {});
/// `tf.tile` with the multiples as the Const "<op>/multiples".
Output tile(const Output& input, const std::vector<std::int64_t>& multiples,
            std::string_view name = {});

/// `tf.transpose(x, perm)`: op Transpose (default name "transpose"), output dimension i is
/// input dimension perm[i]. A constant perm naming a dimension past the rank throws ("perm
/// dim 2 is out of range of input rank 2"); running fails with "2 is out of range [0 .. 2)",
/// "1 is missing from {0,0}." or "transpose expects a vector of size 2. But input(1) is a
/// vector of size 3". As TensorFlow 1.x's kernel, negative entries are rejected at run time.
/// Transposes that keep the order of dimensions larger than 1 share the input's buffer.
Output transpose(const Output& x, const Output& perm, std::string_view name = {});
/// `tf.transpose(x, perm)` with perm as the Const "<op>/perm".
Output transpose(const Output& x, const std::vector<std::int64_t>& perm,
                 std::string_view name = {});
/// `tf.transpose(x)`: the dimensions reversed. With a known rank above 0 the permutation is
/// the Const "transpose/perm"; otherwise it is computed in the graph as TensorFlow 1.x does
/// ("transpose/Rank", "transpose/sub", "transpose/Range", "transpose/sub_1").
Output transpose(const Output& x, std::string_view name = {});

/// `tf.invert_permutation`: op InvertPermutation (default name "InvertPermutation"), the
/// int32 or int64 vector inv with inv[x[i]] = i (TensorFlow's Transpose gradient undoes perm
/// with it). Running fails with "3 is not between 0 and 3" or "0 is duplicated in the input.".
Output invert_permutation(const Output& x, std::string_view name = {});

/// `tf.expand_dims`: op ExpandDims (default name "ExpandDims", the axis the int32 Const
/// "<op>/dim"), a dimension of size 1 inserted at `axis` in [-rank - 1, rank]. Out of range
/// throws "dim 3 not in the interval [-3, 2]."; the output shares the input's buffer.
Output expand_dims(const Output& input, std::int64_t axis, std::string_view name = {});
/// `tf.expand_dims` with the axis as a tensor (int32 or int64, one element).
Output expand_dims(const Output& input, const Output& axis, std::string_view name = {});

/// `tf.squeeze`: op Squeeze (default name "Squeeze", attr squeeze_dims), removing the listed
/// dimensions (negative counts from the end) or, with none listed, every dimension of size
/// 1. Squeezing a known dimension that is not 1 throws "Can not squeeze dim[1], expected a
/// dimension of 1, got 3"; running fails with the same message for a fed shape. The output
/// shares the input's buffer.
Output squeeze(const Output& input, const std::vector<std::int64_t>& axis = {},
               std::string_view name = {});

/// `tf.slice`: op Slice (default name "Slice"), `size[i]` elements from `begin[i]` along
/// each dimension; a size of -1 takes everything to the end. `begin` and `size` are vectors
/// of one dtype (int32 or int64). Running fails with TensorFlow's bounds messages ("Expected
/// size[1] in [0, 1], but got 2", "Expected begin[1] in [0, 3], but got 4"). Slices of whole
/// rows share the input's buffer where TensorFlow's alignment allows.
Output slice(const Output& input, const Output& begin, const Output& size,
             std::string_view name = {});
/// `tf.slice` with begin and size as the Consts "<op>/begin" and "<op>/size".
Output slice(const Output& input, const std::vector<std::int64_t>& begin,
             const std::vector<std::int64_t>& size, std::string_view name = {});

/// The mask attributes of StridedSlice: bit i of a mask describes entry i of begin, end and
/// strides, as Python's `x[...]` encodes its items.
struct StridedSliceMasks {
  /// begin_mask: entry i starts at the first element in its direction (`x[:3]`).
  /// end_mask: entry i runs to the last element in its direction (`x[1:]`).
  /// ellipsis_mask: entry i is `...` (at most one bit).
  /// new_axis_mask: entry i is `tf.newaxis`, a new dimension of 1.
  /// shrink_axis_mask: entry i is a single index (`x[2]`), its dimension dropped.
  std::int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
               shrink_axis_mask = 0;
};

/// The mask attributes of a StridedSlice or StridedSliceGrad node; an absent one is 0.
StridedSliceMasks strided_slice_masks(const NodeDef& def);

/// `tf.strided_slice`: op StridedSlice (default name "StridedSlice"), the elements of `input`
/// from `begin[i]` towards `end[i]` (excluded) by steps of `strides[i]` along the dimension
/// entry i addresses, with `masks` as TensorFlow 1.x encodes `x[...]`. `begin`, `end` and
/// `strides` are vectors of one dtype (int32 or int64); negative indices count from the end
/// and out-of-range bounds are clamped; a negative stride walks backwards. Where the strides
/// are constants and the input's rank is known the output shape is inferred (exactly with
/// constant bounds), else it is unknown; a constant spec that does not fit throws
/// InvalidArgumentError. Running fails with InvalidArgument "slice index 5 of dimension 0
/// out of bounds.", "strides[0] must be non-zero", "Multiple ellipses in slice spec not
/// allowed", "only stride 1 allowed on non-range indexing.", "Index out of range using input
/// dim 2; input has only 2 dims" or "Expected begin, end, and strides to be 1D equal size
/// tensors, but got shapes [2], [1], and [1] instead.", and with Unimplemented for inputs of
/// more than 8 dimensions. Any dtype; slices of whole rows share the input's buffer where
/// TensorFlow's alignment allows, and a slice taking everything forwards the input.
///
/// Example, `x[1:, tf.newaxis, ::-1]` on a matrix:
///
///     strided_slice(x, {1, 0, 0}, {0, 0, 0}, {1, 1, -1},
///                   {.begin_mask = 4, .end_mask = 5, .new_axis_mask = 2});
Output strided_slice(const Output& input, const Output& begin, const Output& end,
                     const Output& strides, const StridedSliceMasks& masks = {},
                     std::string_view name = {});
/// `x[...]` as TensorFlow 1.x's `Tensor.__getitem__` builds it: the bounds become the Consts
/// "<op>/stack", "<op>/stack_1" and "<op>/stack_2" (int32 unless a value needs int64; then
/// the int32 ones are cast by "<op>/Cast", ...) and the op is named `name` (default
/// "strided_slice"). Empty vectors are one empty int32 Const "<op>/Const".
Output strided_slice(const Output& input, const std::vector<std::int64_t>& begin,
                     const std::vector<std::int64_t>& end, const std::vector<std::int64_t>& strides,
                     const StridedSliceMasks& masks = {}, std::string_view name = {});

/// `ref[...].assign(value)` on a reference variable (TensorFlow 1.x's
/// `gen_array_ops.strided_slice_assign`): op StridedSliceAssign (default name
/// "StridedSliceAssign"), the elements of `ref` that `strided_slice(ref, begin, end, strides,
/// masks)` would take set to `value`, in place under the variable's lock; the output is `ref`.
/// `value` broadcasts to the slice's shape as TensorFlow 2's kernel allows (a scalar, `[1,
/// n]` into `[m, n]`, leading 1s either side). Running fails as StridedSlice does, with
/// InvalidArgument "Cannot broadcast input shape [3] into final shape [2]", and
/// FailedPrecondition for an uninitialized variable; nothing is written then. An empty slice
/// writes nothing and checks no value.
Output strided_slice_assign(const Output& ref, const Output& begin, const Output& end,
                            const Output& strides, const Output& value,
                            const StridedSliceMasks& masks = {}, std::string_view name = {});
/// `ResourceVariable.__getitem__(...).assign(value)`: op ResourceStridedSliceAssign (default
/// name "ResourceStridedSliceAssign") on the resource variable `handle`, as
/// `strided_slice_assign`; a variable of another dtype than `value` fails with "l-value dtype
/// double does not match r-value dtype float".
Operation resource_strided_slice_assign(const Output& handle, const Output& begin,
                                        const Output& end, const Output& strides,
                                        const Output& value, const StridedSliceMasks& masks = {},
                                        std::string_view name = {});
/// `tf.raw_ops.TensorStridedSliceUpdate`: op TensorStridedSliceUpdate (default name
/// "TensorStridedSliceUpdate"), a copy of `input` with the slice set to `value`, as
/// `strided_slice_assign` writes a variable. Differentiable in `input` (the gradient with
/// the slice zeroed) and `value` (the gradient's slice, summed over what broadcast).
Output tensor_strided_slice_update(const Output& input, const Output& begin, const Output& end,
                                   const Output& strides, const Output& value,
                                   const StridedSliceMasks& masks = {}, std::string_view name = {});

/// `gen_array_ops.strided_slice_grad`: op StridedSliceGrad (default name "StridedSliceGrad"),
/// the gradient of a StridedSlice of a tensor of shape `shape` (a vector of the bounds'
/// dtype): zeros of that shape with `dy` placed where the slice took its elements. Running
/// fails as StridedSlice does, and with "shape of dy was [3] instead of [2]" when `dy` does not
/// have the slice's shape.
Output strided_slice_grad(const Output& shape, const Output& begin, const Output& end,
                          const Output& strides, const Output& dy,
                          const StridedSliceMasks& masks = {}, std::string_view name = {});

/// `tf.rank`: a scalar int32. As TensorFlow 1.x, a known rank is the Const named `name`
/// (default "Rank"); otherwise op Rank.
Output rank(const Output& input, std::string_view name = {});

/// `tf.unique`: op Unique (default name "Unique") of a vector `x`: `y`, its distinct values
/// in the order they first occur, and `idx` (of `out_idx`, int32 or int64), for each element
/// of `x` the position of its value in `y`, so `x[i] == y[idx[i]]`. Running it on a tensor of
/// another rank fails with InvalidArgument "unique expects a 1D vector.".
std::pair<Output, Output> unique(const Output& x, DType out_idx = DType::int32,
                                 std::string_view name = {});

/// `tf.shape_n`: op ShapeN (default name "ShapeN"), one shape vector of `out_type` (int32 or
/// int64) per input; the inputs must share a dtype. Throws InvalidArgumentError for an
/// empty list, mixed dtypes or another `out_type`.
std::vector<Output> shape_n(const std::vector<Output>& inputs, DType out_type = DType::int32,
                            std::string_view name = {});

/// `tf.zeros_like`: zeros of `x`'s shape and of `dtype` (default `x`'s). As TensorFlow 1.x,
/// a fully defined shape gives `zeros(shape)` named `name` (default "zeros_like": a Const
/// when small); otherwise op ZerosLike (any dtype, strings become ""), or for another dtype
/// a Fill of `shape(x)`.
Output zeros_like(const Output& x, std::optional<DType> dtype = {}, std::string_view name = {});

/// `tf.ones_like`: ones of `x`'s shape and of `dtype` (default `x`'s), built as TensorFlow
/// 1.x does: under the scope "ones_like", "Shape" (a Const when the shape is fully defined,
/// else op Shape), "Const" (the one) and the Fill named after the scope. Throws for string.
Output ones_like(const Output& x, std::optional<DType> dtype = {}, std::string_view name = {});

/// `tf.stop_gradient`: op StopGradient (default name "StopGradient"), an identity that
/// gradients do not flow through.
Output stop_gradient(const Output& x, std::string_view name = {});

/// `tf.raw_ops.PreventGradient`: op PreventGradient (default name "PreventGradient", attr
/// message), an identity whose gradient is an error carrying `message`.
Output prevent_gradient(const Output& x, std::string_view message = {}, std::string_view name = {});

/// `tf.one_hot`: op OneHot under the name scope "one_hot" (Consts "on_value", "off_value"
/// of `dtype`, "depth" int32; the op takes the scope's name). `indices` are uint8, int8, int32
/// or int64; output[..., d, ...] is on_value where indices == d, else off_value (indices
/// outside [0, depth) select nothing). `axis` -1 appends the new dimension. A negative depth
/// throws ("Dimension size, given by scalar input 1, must be non-negative but is -1"), as
/// does an axis below -1 ("axis must be >= -1"). `dtype` is any numeric dtype or bool.
Output one_hot(const Output& indices, std::int64_t depth, double on_value = 1.0,
               double off_value = 0.0, std::int64_t axis = -1, DType dtype = DType::float32,
               std::string_view name = {});
/// `tf.one_hot` with tensor inputs (op OneHot named `name`, default "one_hot"): depth is a
/// scalar int32, on_value and off_value scalars of the output dtype (any dtype, strings
/// included). Running with a negative depth fails with "depth must be non-negative, got: -1".
Output one_hot(const Output& indices, const Output& depth, const Output& on_value,
               const Output& off_value, std::int64_t axis = -1, std::string_view name = {});

/// `tf.unstack`: op Unpack (default name "unstack"), the `num` slices of `value` along
/// `axis`. Without `num` it is the static size of that dimension; throws
/// InvalidArgumentError "Cannot infer num from shape (?, 3)" when unknown, "axis = 2 not in
/// [-2, 2)" for a bad axis. Slices along axis 0 share the input's buffer where aligned.
std::vector<Output> unstack(const Output& value, std::optional<std::int64_t> num = {},
                            std::int64_t axis = 0, std::string_view name = {});

/// `gen_array_ops.concat_offset`: op ConcatOffset (default name "ConcatOffset"), the offset
/// of each of N >= 2 int32 shape vectors in their concatenation along scalar int32
/// `concat_dim` (in [0, rank)). Running fails with "Concat dim is out of range: 2 vs. 2" or
/// "input[1,0] mismatch: 2 vs. 3" (TensorFlow 1.x's messages).
std::vector<Output> concat_offset(const Output& concat_dim, const std::vector<Output>& shapes,
                                  std::string_view name = {});

/// `tf.decode_raw`: op DecodeRaw (default name "DecodeRaw"), each string of `bytes` read as
/// a vector of `out_type` (float32, float64, int32, int64, uint8, bool or bfloat16) in the
/// given byte order; the output has shape bytes.shape + [n]. Running fails with "Input to
/// DecodeRaw has length 3 that is not a multiple of 4, the size of float" or when the
/// strings differ in length.
Output decode_raw(const Output& bytes, DType out_type, bool little_endian = true,
                  std::string_view name = {});

/// `tf.truncated_normal`: values of a normal distribution with `mean` and `stddev`, redrawn
/// when more than 2 standard deviations from the mean (ops TruncatedNormal, mul, add under
/// the name scope "truncated_normal", Consts "shape", "mean", "stddev"). `dtype` is float32,
/// float64 or bfloat16 (else InvalidArgumentError). Seeds come from `Graph::get_seed(seed)`;
/// with them fixed the values equal TensorFlow's, and each run draws the next values.
Output truncated_normal(Graph& g, const Shape& shape, DType dtype = DType::float32,
                        double mean = 0.0, double stddev = 1.0,
                        std::optional<std::int64_t> seed = {}, std::string_view name = {});

/// `tf.pad` with mode "CONSTANT" and constant_values 0: op Pad (default name "Pad"), `input`
/// grown by `paddings[d][0]` zeros before and `paddings[d][1]` after dimension d; `paddings`
/// is an int32 or int64 [rank(input), 2] matrix. Every value type (strings padded with "",
/// bools with false). With constant paddings the output shape is known where the input's is; a
/// wrong shape throws ("Shape must be rank 1 but is rank 2"), a negative constant padding throws
/// "Paddings must be non-negative". Running fails with InvalidArgument "Paddings must be
/// non-negative: -1 0", "The first dimension of paddings must be the rank of inputs[1,2]
/// [2,2]" or "paddings must be a matrix with 2 columns: [2,3]", and with Unimplemented
/// "inputs rank not in [0,8]: 9". PadV2 and MirrorPad are in pad_ops.hpp.
Output pad(const Output& input, const Output& paddings, std::string_view name = {});
/// `tf.pad` with the paddings as the Const "<op>/paddings" (int32 unless a value needs int64).
Output pad(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
           std::string_view name = {});

/// `tf.split(value, num_split, axis)`: op Split (default name "split", the axis the Const
/// "<op>/split_dim"), `num_split` equal slices of `value` along `axis` (negative counts from
/// the end). Throws InvalidArgumentError while building when `num_split` < 1 or a known
/// dimension does not divide ("Dimension size must be evenly divisible by 3 but is 4 for
/// 'split' (op: 'Split') ..."); running fails the same way for run-time shapes. Its gradient
/// concatenates the slices' gradients, zeros for those that got none.
std::vector<Output> split(const Output& value, std::int64_t num_split, std::int64_t axis = 0,
                          std::string_view name = {});
/// `tf.split(value, size_splits, axis)`: op SplitV (default name "split", the sizes the
/// Const "Const", the axis "<op>/split_dim"), slices of the given sizes along `axis`; one
/// size may be -1 and takes what the others leave. Sizes that do not sum to the dimension
/// throw ("Determined shape must either match input shape along split_dim exactly if fully
/// specified, or be less than the size of the input along split_dim if not fully
/// specified."). A one-element list must be spelled `std::vector<std::int64_t>{n}`: a
/// braced `{n}` is the `num_split` overload.
std::vector<Output> split(const Output& value, const std::vector<std::int64_t>& size_splits,
                          std::int64_t axis = 0, std::string_view name = {});

/// `tf.reverse(tensor, axis)`: op ReverseV2 (default name "ReverseV2", the axes the Const
/// "<op>/axis"), `tensor` with the order of its elements along each listed axis reversed
/// (negative axes count from the end). An axis listed twice or out of range fails with
/// InvalidArgument ("axis 0 specified more than once", "'axis'[0] = 2 is out of valid range
/// [0, 2"). Its gradient is the reversed gradient.
Output reverse(const Output& tensor, const std::vector<std::int64_t>& axis,
               std::string_view name = {});

/// `tf.compat.v1.setdiff1d(x, y)`: op ListDiff (default name "ListDiff"): `out`, the values
/// of vector `x` that are not in vector `y`, in `x`'s order and with repeats kept, and `idx`,
/// their positions in `x` (`index_dtype` int32 or int64). Numeric types and string. Not
/// differentiable.
std::pair<Output, Output> setdiff1d(const Output& x, const Output& y,
                                    DType index_dtype = DType::int32, std::string_view name = {});

}  // namespace af
