#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Moving blocks of spatial data into the batch or the depth dimension and back (TensorFlow's
/// `tf.space_to_batch_nd`, `tf.batch_to_space`, `tf.nn.space_to_depth`, `tf.nn.depth_to_space`;
/// spacetobatch_op.cc, batchtospace_op.cc, spacetodepth_op.cc, depthtospace_op.cc). What
/// `tf.nn.depthwise_conv2d` with dilations, `tf.nn.atrous_conv2d` and `tf.nn.convolution`
/// with a dilation rate build around their convolution.
namespace af {

/// `tf.space_to_batch_nd(input, block_shape, paddings)`: op SpaceToBatchND (default name
/// "SpaceToBatchND"). `input` is `[batch] + spatial_shape + remaining_shape` with M spatial
/// dimensions; `block_shape` an int32 or int64 vector of M values >= 1; `paddings` an int32 or
/// int64 [M, 2] matrix of values >= 0. The spatial dimensions are zero-padded, cut into blocks
/// of `block_shape` and the position within a block moved into the batch: the output is
/// `[batch * prod(block_shape)] + [(spatial_shape[i] + paddings[i][0] + paddings[i][1]) /
/// block_shape[i]] + remaining_shape`, output batch `(o * batch + b)` holding block offset
/// `o` (row-major over the block dimensions) of input batch `b`. Real number dtypes
/// (float32, float64, int32, int64, uint8, bfloat16) on the CPU; no bool or string, as
/// TensorFlow registers none. Static shape as TensorFlow's SpaceToBatchShapeHelper: each
/// dimension known where the Consts and the input's dims allow. Throws InvalidArgumentError
/// while building for "block_shape must have rank 1." (also an unknown rank), "block_shape must
/// have known size.", "Shape must be at least rank 3 but is rank 2", paddings not [M, 2]
/// ("Dimension 0 in both shapes must be equal, but are 1 and 2. Shapes are [1,2] and [2,2]."),
/// "block_shape must be positive", "paddings cannot be negative" and "Dimension size must be
/// evenly divisible by 2 but is 3" (Consts known). Running fails with TensorFlow's texts:
/// "block_shape rank should be 1 instead of 2", "input rank should be >= 3 instead of 2",
/// "paddings should have shape [2, 2] instead of [1,2]", "All values in block_shape must be
/// positive, got value, 0 at index 1.", "Maximum number of non-combined block dimensions is 5
/// but must not exceed 4", "Paddings must be non-negative", "padded_shape[0]=3 is not
/// divisible by block_shape[0]=2", "Negative output dimension size caused by overflow when
/// multiplying 3 and 4611686018427387904". Gradient (`_SpaceToBatchNDGrad`): BatchToSpaceND
/// of the output's gradient with the same block_shape and the paddings as crops; block_shape
/// and paddings get none.
Output space_to_batch_nd(const Output& input, const Output& block_shape, const Output& paddings,
                         std::string_view name = {});
/// `space_to_batch_nd` with `block_shape` and `paddings` as the Consts "<op>/block_shape" and
/// "<op>/paddings" (each int32 unless a value needs int64), as `tf.space_to_batch_nd`
/// converts Python lists.
Output space_to_batch_nd(const Output& input, const std::vector<std::int64_t>& block_shape,
                         const std::vector<std::array<std::int64_t, 2>>& paddings,
                         std::string_view name = {});

/// `tf.batch_to_space(input, block_shape, crops)` (`gen_array_ops.batch_to_space_nd`): op
/// BatchToSpaceND (default name "BatchToSpaceND"), SpaceToBatchND's inverse. `input` is
/// `[batch] + spatial_shape + remaining_shape` with `batch` divisible by
/// `prod(block_shape)`; the blocks move back from the batch into the M spatial dimensions,
/// which are then cropped by `crops` (an int32 or int64 [M, 2] matrix of values >= 0): the
/// output is `[batch / prod(block_shape)] + [spatial_shape[i] * block_shape[i] - crops[i][0]
/// - crops[i][1]] + remaining_shape`. Real number dtypes on the CPU, as
/// `space_to_batch_nd`. Static shape as TensorFlow's BatchToSpaceShapeHelper. Throws
/// InvalidArgumentError while building for the rank and shape errors of `space_to_batch_nd`,
/// "block_shape must be positive", "crops cannot be negative", "Dimension size must be evenly
/// divisible by 2 but is 3" (the batch) and "Negative dimension size caused by subtracting 2
/// from 1" (Consts known). Running fails with TensorFlow's texts: "block_shape rank should be
/// 1 instead of 2", "input rank should be >= 3 instead of 2", "crops should have shape [2, 2]
/// instead of [2,3]", "Product of block sizes must be positive, got 0", "Input batch dimension
/// (3) is not divisible by product of block sizes (2)", "Maximum number of non-combined block
/// dimensions is 5 but must not exceed 4", "Crops must be non-negative", "cropped_shape[0]=-1
/// must be non-negative". Gradient (`_BatchToSpaceNDGrad`): SpaceToBatchND of the output's
/// gradient with the same block_shape and the crops as paddings.
Output batch_to_space_nd(const Output& input, const Output& block_shape, const Output& crops,
                         std::string_view name = {});
/// `batch_to_space_nd` with `block_shape` and `crops` as the Consts "<op>/block_shape" and
/// "<op>/crops" (each int32 unless a value needs int64).
Output batch_to_space_nd(const Output& input, const std::vector<std::int64_t>& block_shape,
                         const std::vector<std::array<std::int64_t, 2>>& crops,
                         std::string_view name = {});

/// `tf.raw_ops.SpaceToBatch` (`gen_array_ops.space_to_batch`): op SpaceToBatch (default name
/// "SpaceToBatch"), the legacy 4-D form: `space_to_batch_nd` of a `[batch, height, width,
/// depth]` input with block_shape `[block_size, block_size]` held as the attr `block_size`
/// (at least 2) and `paddings` an int32 or int64 [2, 2] matrix. (`tf.compat.v1.space_to_batch`
/// in Python builds SpaceToBatchND instead.) Throws InvalidArgumentError while building for
/// "Value for attr 'block_size' of 1 must be at least minimum 2", "Shape must be rank 4 but
/// is rank 3" and the errors of `space_to_batch_nd`. Running fails with "Input rank should be:
/// 4instead of: 3" (TensorFlow's text, the space missing) and the run-time errors of
/// `space_to_batch_nd`. Gradient (`_SpaceToBatchGrad`): BatchToSpaceND of the output's
/// gradient with the int64 Const block_shape "BatchToSpaceND/block_shape" `[block_size,
/// block_size]` and the paddings as crops, as Python's `batch_to_space` builds it.
Output space_to_batch(const Output& input, const Output& paddings, std::int64_t block_size,
                      std::string_view name = {});
/// `space_to_batch` with `paddings` as the Const "<op>/paddings" (int32 unless a value needs
/// int64).
Output space_to_batch(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
                      std::int64_t block_size, std::string_view name = {});

/// `tf.raw_ops.BatchToSpace` (`gen_array_ops.batch_to_space`): op BatchToSpace (default name
/// "BatchToSpace"), the legacy 4-D form of `batch_to_space_nd` with block_shape `[block_size,
/// block_size]` (attr `block_size`, at least 2) and `crops` an int32 or int64 [2, 2] matrix
/// (attr Tidx). Throws InvalidArgumentError while building as `space_to_batch`; running fails
/// with "Input rank should be: 4instead of: 3" and the run-time errors of
/// `batch_to_space_nd`. Gradient (`_BatchToSpaceGrad`): SpaceToBatchND of the output's
/// gradient with the int64 Const block_shape "SpaceToBatchND/block_shape" and the crops as
/// paddings.
Output batch_to_space(const Output& input, const Output& crops, std::int64_t block_size,
                      std::string_view name = {});
/// `batch_to_space` with `crops` as the Const "<op>/crops" (int32 unless a value needs int64).
Output batch_to_space(const Output& input, const std::vector<std::array<std::int64_t, 2>>& crops,
                      std::int64_t block_size, std::string_view name = {});

/// `tf.nn.space_to_depth(input, block_size, data_format)`: op SpaceToDepth (default name
/// "SpaceToDepth"). Each `block_size` x `block_size` block of a `[batch, height, width,
/// depth]` input becomes one pixel of `depth * block_size^2` channels, ordered (row in the
/// block, column in the block, channel): the output is `[batch, height / block_size, width /
/// block_size, depth * block_size^2]`. Every value dtype (numbers, bool, string) on the CPU.
/// `data_format` is "NHWC", "NCHW" or "NCHW_VECT_C" (the static shape follows it), but the
/// CPU kernel takes NHWC only. Throws InvalidArgumentError while building for "Value for attr
/// 'block_size' of 1 must be at least minimum 2", "Value for attr 'data_format' of \"NCWH\" is
/// not in the list of allowed values: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\"", "Shape must be rank
/// 4 but is rank 3" and "Dimension size must be evenly divisible by 2 but is 3". Running fails
/// with TensorFlow's texts: "Only NHWC data_format supported on CPU. Got NCHW", "Input rank
/// should be 4 instead of 3", "Image width 4 and height 3 should be divisible by block_size:
/// 2". Gradient (`_SpaceToDepthGrad`): DepthToSpace of the output's gradient with the same
/// block_size and data_format; InvalidArgumentError "Cannot compute SpaceToDepth gradient with
/// NCHW_VECT_C. NCHW_VECT_C requires qint8 data type." for NCHW_VECT_C.
Output space_to_depth(const Output& input, std::int64_t block_size,
                      std::string_view data_format = "NHWC", std::string_view name = {});

/// `tf.nn.depth_to_space(input, block_size, data_format)`: op DepthToSpace (default name
/// "DepthToSpace"), SpaceToDepth's inverse: each pixel of `depth` channels of a `[batch,
/// height, width, depth]` input becomes a `block_size` x `block_size` block of `depth /
/// block_size^2` channels: the output is `[batch, height * block_size, width * block_size,
/// depth / block_size^2]`. Every value dtype on the CPU, NHWC only there (the static shape
/// follows any allowed `data_format`). Throws InvalidArgumentError while building for the attr
/// errors of `space_to_depth`, "Shape must be rank 4 but is rank 3" and "Dimension size must
/// be evenly divisible by 4 but is 3" (the depth). Running fails with TensorFlow's texts:
/// "Only NHWC data_format supported on CPU. Got NCHW", "Input rank should be: 4 instead of:
/// 3", "Input depth dimension 3 should be divisible by: 4". Gradient (`_DepthToSpaceGrad`):
/// SpaceToDepth of the output's gradient with the same block_size and data_format (refused for
/// NCHW_VECT_C as `space_to_depth`'s).
Output depth_to_space(const Output& input, std::int64_t block_size,
                      std::string_view data_format = "NHWC", std::string_view name = {});

}  // namespace af
