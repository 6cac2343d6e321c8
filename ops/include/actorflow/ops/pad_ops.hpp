#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Padding with a constant or a mirror of the edges (TensorFlow's `tf.pad`, pad_op.cc and
/// mirror_pad_op.cc).
namespace af {

/// `tf.pad(input, paddings, constant_values=c)` with a nonzero `c` (`gen_array_ops.pad_v2`):
/// op PadV2 (default name "PadV2"), `input` grown by `paddings[d][0]` elements before and
/// `paddings[d][1]` after each dimension d, the new elements `constant_values` (a scalar of
/// `input`'s dtype). `paddings` is an int32 or int64 [rank(input), 2] matrix. Every value
/// dtype (numbers, bool, string) on the CPU. The output shape is PadShapeFn's: known where
/// the paddings are Consts and the input's dims known. Throws InvalidArgumentError while
/// building for "Input 'constant_values' of 'PadV2' Op has type int32 that does not match
/// type float32 of argument 'input'.", paddings not of rank 2 or rank(input) rows ("Shape
/// must be rank 1 but is rank 2"), and "Paddings must be non-negative" for a negative
/// constant padding. Running fails with TensorFlow's texts: InvalidArgument "Paddings must
/// be non-negative: -1 0", "constant_values must be a scalar. Found: [2]", "The first
/// dimension of paddings must be the rank of inputs[1,2] [2,2]", "paddings must be a matrix
/// with 2 columns: [2,3]", "Only ranks up to 6 supported: [1,1,1,1,1,1,1]" (more than six
/// dimensions left once adjacent unpadded ones are folded), and Unimplemented "inputs rank
/// not in [0,8]: 9". Gradient (`_PadGrad`): the slice of the output's gradient where
/// `input` lies; paddings and constant_values get none.
Output pad_v2(const Output& input, const Output& paddings, const Output& constant_values,
              std::string_view name = {});
/// `pad_v2` with the paddings as the Const "<op>/paddings" (int32 unless a value needs int64),
/// as `tf.pad` converts a list of [before, after] pairs.
Output pad_v2(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
              const Output& constant_values, std::string_view name = {});

/// `tf.pad(input, paddings, mode)` for mode "REFLECT" or "SYMMETRIC"
/// (`gen_array_ops.mirror_pad`): op MirrorPad (default name "MirrorPad"), `input` grown by
/// `paddings[d]` in each dimension d with its elements mirrored across the edges: REFLECT
/// leaves the edge out (`[1, 2, 3]` padded by [2, 2] is `[3, 2, 1, 2, 3, 2, 1]`),
/// SYMMETRIC repeats it (`[2, 1, 1, 2, 3, 3, 2]`). `mode` is the attr as it is given
/// (uppercase only, as the raw op); `paddings` is an int32 or int64 [rank(input), 2] matrix.
/// Every value dtype on the CPU, ranks 0 to 5. The output shape is PadShapeFn's. Throws
/// InvalidArgumentError while building for another mode ("Attr 'mode' of 'MirrorPad' Op
/// passed string 'reflect' not in: \"REFLECT\", \"SYMMETRIC\"."), the shape errors of
/// `pad_v2` and "Paddings must be non-negative". Running fails with TensorFlow's texts:
/// InvalidArgument "paddings must be less than the dimension size: 3, 3 not less than 3"
/// (REFLECT), "paddings must be no greater than the dimension size: 4, 3 greater than 3"
/// (SYMMETRIC), "paddings must be non-negative: -1 3", "The first dimension of paddings must
/// be the rank of inputs[1,2], [1,3]", "paddings must be a matrix with 2 columns: [1,3]",
/// and Unimplemented "inputs rank not in [0,5]: 6". Gradient (`_MirrorPadGrad`):
/// MirrorPadGrad of the output's gradient with the same paddings and mode; the paddings get
/// none.
Output mirror_pad(const Output& input, const Output& paddings, std::string_view mode,
                  std::string_view name = {});
/// `mirror_pad` with the paddings as the Const "<op>/paddings" (int32 unless a value needs
/// int64).
Output mirror_pad(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
                  std::string_view mode, std::string_view name = {});

/// `tf.raw_ops.MirrorPadGrad` (`gen_array_ops.mirror_pad_grad`): op MirrorPadGrad (default
/// name "MirrorPadGrad"), MirrorPad's gradient: the padded areas of `input` added onto the
/// elements they mirror, the middle returned (shape `input.shape[d] - paddings[d][0] -
/// paddings[d][1]`; `[1, 2, 3, 4, 5, 6, 7]` by [2, 2] REFLECT is `[10, 12, 6]`). Number
/// dtypes (float32, float64, bfloat16, int32, int64, uint8) on the CPU, ranks 0 to 5. Throws
/// InvalidArgumentError while building for another mode, "Paddings must be non-negative",
/// "Negative dimension size caused by subtracting 8 from 7" and paddings not a [rank, 2]
/// matrix ("Dimension 1 in both shapes must be equal, but are 3 and 2. Shapes are [1,3] and
/// [1,2]."). Running fails with TensorFlow's texts: InvalidArgument "Paddings must be
/// non-negative: -1, 2", "Total paddings must be less than the input dimension size: 2 was
/// not less than 2", "paddings must be less than the output dimension size: 2, 3 not less
/// than 2" (REFLECT), "paddings must be no greater than the output dimension size: 3, 2
/// greater than 2" (SYMMETRIC), "The first dimension of paddings must be the rank of
/// inputs[1,2] [1,7]", and Unimplemented "inputs rank not in [0,5]: 6". Gradient
/// (`_MirrorPadGradGrad`): MirrorPad of the output's gradient with the same paddings and mode.
Output mirror_pad_grad(const Output& input, const Output& paddings, std::string_view mode,
                       std::string_view name = {});

}  // namespace af
