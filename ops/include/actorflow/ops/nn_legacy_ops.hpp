#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// The legacy nn ops found in old TensorFlow GraphDefs and in graphs TensorFlow's graph
/// transforms wrote: the global batch normalization of 2015 graphs (Inception v3), fractional
/// pooling, the fused pad/resize convolutions, and simulated quantization
/// (batch_norm_op.cc, fractional_max_pool_op.cc, fractional_avg_pool_op.cc,
/// conv_ops_fused_image_transform.cc, quantize_and_dequantize_op.cc). Data is NHWC. Shape
/// errors known while building throw InvalidArgumentError with TensorFlow's shape-function
/// messages; the others fail the step with TensorFlow's kernel messages, the node named.
namespace af::nn {

/// `tf.raw_ops.BatchNormWithGlobalNormalization`: op BatchNormWithGlobalNormalization
/// (default name "BatchNormWithGlobalNormalization"), `(t - m) * rsqrt(v +
/// variance_epsilon) * gamma + beta` over the last dimension of the 4-D `t` (gamma left out
/// without `scale_after_normalization`); m, v, beta and gamma are vectors of t's depth, all of
/// one type (float32 or float64 run; TensorFlow's other number types build). TensorFlow
/// deprecated the op at GraphDef version 9: it refuses to build or run it in newer graphs,
/// actorflow runs it whatever the version. Errors while building: "Shape must be rank 4 but
/// is rank 3", "Dimensions must be equal, but are 3 and 2"; when running: "input must be
/// 4-dimensional[2,4,3]", "mean must be 1-dimensional[1,3]" (var, beta, gamma alike).
/// Gradient: BatchNormWithGlobalNormalizationGrad of (t, m, v, gamma, grad) for all five
/// inputs (nn_grad.py).
Output batch_norm_with_global_normalization(const Output& t, const Output& m, const Output& v,
                                            const Output& beta, const Output& gamma,
                                            float variance_epsilon, bool scale_after_normalization,
                                            std::string_view name = {});

/// What `batch_norm_with_global_normalization_grad` returns.
struct BatchNormWithGlobalNormalizationGradOutputs {
  Output dx;  ///< the gradient of t: backprop * rsqrt(v + epsilon) [* gamma]
  Output dm;  ///< of m: -sum(backprop) * rsqrt(v + epsilon) [* gamma]
  Output dv;  ///< of v: sum(backprop * (t - m)) * -1/2 (v + epsilon)^(-3/2) [* gamma]
  Output db;  ///< of beta: sum(backprop) over all but the last dimension
  Output dg;  ///< of gamma: sum(backprop * (t - m)) * rsqrt(v + epsilon), or zeros
};

/// `tf.raw_ops.BatchNormWithGlobalNormalizationGrad`: op
/// BatchNormWithGlobalNormalizationGrad (default name its type), the gradients of
/// BatchNormWithGlobalNormalization given `backprop` of t's shape, sums over all but the last
/// dimension. Errors as the forward op's and "out_backprop must be 4-dimensional[2,4,3]";
/// a backprop of another shape than t (which TensorFlow reads out of bounds) fails. Not
/// differentiable.
BatchNormWithGlobalNormalizationGradOutputs batch_norm_with_global_normalization_grad(
    const Output& t, const Output& m, const Output& v, const Output& gamma, const Output& backprop,
    float variance_epsilon, bool scale_after_normalization, std::string_view name = {});

/// The attrs of FractionalMaxPool and FractionalAvgPool besides `pooling_ratio`.
struct FractionalPoolAttrs {
  bool pseudo_random = false;  ///< pseudo-random cell boundaries rather than shuffled sizes
  bool overlapping = false;    ///< cells share their boundary row and column
  bool deterministic = false;  ///< the same cells every run (seeds fixed once when both 0)
  std::int64_t seed = 0;       ///< the Philox seed; must be 0 unless `deterministic`
  std::int64_t seed2 = 0;      ///< the second seed; must be 0 unless `deterministic`
};

/// What `fractional_max_pool` and `fractional_avg_pool` return.
struct FractionalPoolOutputs {
  Output output;                ///< `[batch, floor(rows / r1), floor(cols / r2), depth]`
  Output row_pooling_sequence;  ///< int64, the cells' first rows and the input's rows at the end
  Output col_pooling_sequence;  ///< int64, the same for columns
};

/// `tf.nn.fractional_max_pool` (v1): op FractionalMaxPool (default name "FractionalMaxPool"),
/// the maximum of each cell of a float32, float64, int32 or int64 NHWC `value`;
/// `pooling_ratio` holds 4 ratios of at least 1, the first and last exactly 1. The cells
/// follow TensorFlow's GuardedPhiloxRandom stream: with `deterministic` and seeds they are
/// TensorFlow's bit for bit; unseeded ops draw fresh seeds (per run, or once when
/// `deterministic`). The sequences' static length is the number of cells plus one (the length
/// they have; TensorFlow's shape function says one less). Errors: "pooling_ratio cannot be
/// smaller than 1, got: 0.5" (building), Unimplemented "Fractional max pooling is not yet
/// supported on the batch nor channel dimension.", "Both seed and seed2 should be 0 if
/// deterministic is false.", "Pooling ratio is higher than input dimension size for dimension
/// 1. Input dim size: 5 pooling ratio: 6" (running). Gradient: FractionalMaxPoolGrad of the
/// op's sequences (nn_grad.py).
FractionalPoolOutputs fractional_max_pool(const Output& value,
                                          const std::vector<float>& pooling_ratio,
                                          const FractionalPoolAttrs& attrs = {},
                                          std::string_view name = {});

/// `tf.nn.fractional_avg_pool` (v1): op FractionalAvgPool (default name
/// "FractionalAvgPool"), the mean of each cell (integer division for the integer types); as
/// `fractional_max_pool` otherwise ("Fractional average pooling is not yet supported ...").
/// Gradient: FractionalAvgPoolGrad of the input's static shape (an int64 Const; the Shape op
/// when that is not fully known, where TensorFlow's Python fails).
FractionalPoolOutputs fractional_avg_pool(const Output& value,
                                          const std::vector<float>& pooling_ratio,
                                          const FractionalPoolAttrs& attrs = {},
                                          std::string_view name = {});

/// `tf.raw_ops.FractionalMaxPoolGrad`: op FractionalMaxPoolGrad (default name its type), each
/// cell's gradient to the first maximum of the cell (the pooling walked again with the given
/// int64 sequences). Errors, the node named: "orig_input should be a tensor of rank 4, got
/// Tensor<...>", "orig_input must not be empty, got ...", "row_pooling_sequence must be a
/// vector, received shape [1,4]", "Pooling region has more elements than the input tensor.
/// ...", "tensor_out_dup is not the same as tensor_out" (the walk does not give orig_output;
/// TensorFlow skips this check when it can reuse orig_output's buffer). Sequences that
/// describe more cells than orig_output has, negative cell starts, an orig_output of another
/// batch or depth and an out_backprop larger than orig_output (all of which TensorFlow reads
/// or writes out of bounds) fail. Not differentiable.
Output fractional_max_pool_grad(const Output& orig_input, const Output& orig_output,
                                const Output& out_backprop, const Output& row_pooling_sequence,
                                const Output& col_pooling_sequence, bool overlapping = false,
                                std::string_view name = {});

/// `tf.raw_ops.FractionalAvgPoolGrad`: op FractionalAvgPoolGrad (default name its type), each
/// cell's gradient spread evenly over it, summed in double and converted to T (truncated for
/// integers), of the shape `orig_input_tensor_shape` (int64, 4 values) names. Errors: "original
/// input tensor shape must be1-dimensional and 4 elements", "out_backprop must be
/// 4-dimensional", "Given out_backprop shape [1,3,4,2], row_seq_tensor must have at least 4
/// elements, but got 3", "Rows dimension of input must not be 0", "Row sequence tensor values
/// must not be negative, got  0 -2  4  5"; an out_backprop of a larger batch or depth than the
/// shape (TensorFlow writes out of bounds) fails. Not differentiable.
Output fractional_avg_pool_grad(const Output& orig_input_tensor_shape, const Output& out_backprop,
                                const Output& row_pooling_sequence,
                                const Output& col_pooling_sequence, bool overlapping = false,
                                std::string_view name = {});

/// `tf.raw_ops.FusedPadConv2D` (TensorFlow's graph transforms fuse MirrorPad into Conv2D): op
/// FusedPadConv2D (default name its type), the NHWC `input` mirror-padded (`mode` "REFLECT" or
/// "SYMMETRIC") by the int32 `[4, 2]` `paddings` (rows and columns only), then convolved with
/// the HWIO `filter` (`strides` of 4, `padding` "SAME" or "VALID"); bfloat16 (summed in float),
/// float32 or float64. As TensorFlow's kernel, the first window starts
/// `((out - 1) * stride + filter - padded [+ 1 for VALID]) / 2` before the padded image, which
/// for strides above the filter size differs from Conv2D's. The paddings' first dimension must
/// be known while building ("Shape must be rank -1 but is rank 4", as TensorFlow). Errors when
/// running: "Input tensor can't be empty", "paddings must be less than the dimension size: 3, 0
/// not less than 3" (REFLECT), "paddings must be no greater than the dimension size: 4, 0
/// greater than 3" (SYMMETRIC), "Fused mirror padding only support spatial padding, not
/// batches: Tensor<...>", "input and filter must have the same depth: 2 vs 1", "Output tensor
/// can't be empty", "Current implementation does not yet support strides in the batch and
/// depth dimensions.". TensorFlow registers no gradient; neither does actorflow.
Output fused_pad_conv2d(const Output& input, const Output& paddings, const Output& filter,
                        const std::string& mode, const std::vector<std::int64_t>& strides,
                        const std::string& padding, std::string_view name = {});

/// `tf.raw_ops.FusedResizeAndPadConv2D`: op FusedResizeAndPadConv2D (default name its type),
/// `input` resized bilinearly to the int32 2-vector `size` (the legacy sampling: `in = out *
/// scale`, `resize_align_corners` as ResizeBilinear's align_corners, no half-pixel centers),
/// then padded and convolved as `fused_pad_conv2d`; float32 or float64. Errors as
/// `fused_pad_conv2d`'s and ResizeBilinear's ("output dimensions must be positive"). No
/// gradient.
Output fused_resize_and_pad_conv2d(const Output& input, const Output& size, const Output& paddings,
                                   const Output& filter, const std::string& mode,
                                   const std::vector<std::int64_t>& strides,
                                   const std::string& padding, bool resize_align_corners = false,
                                   std::string_view name = {});

}  // namespace af::nn

namespace af {

/// The attrs of QuantizeAndDequantizeV2 and V4.
struct QuantizeAndDequantizeAttrs {
  bool signed_input = true;                 ///< a signed quantized range
  std::int64_t num_bits = 8;                ///< the quantized width, 1 to 61 (62 unsigned)
  bool range_given = false;                 ///< use input_min and input_max, not the data's
  std::string round_mode = "HALF_TO_EVEN";  ///< or "HALF_UP"
  bool narrow_range = false;                ///< leave the lowest quantized value out
  std::int64_t axis = -1;                   ///< a range per slice along it; -1: one range
};

/// `tf.raw_ops.QuantizeAndDequantizeV2` (what `tf.quantization.quantize_and_dequantize`
/// builds): op QuantizeAndDequantizeV2 (default name its type), `input` (float32 or float64)
/// rounded to the `num_bits` grid of a range fitted around 0: the data's minimum and maximum
/// (per slice along `axis`), or `input_min` and `input_max` with `range_given` (values
/// clamped first). The scale and rounding are quantize_and_dequantize_op.h's (HALF_TO_EVEN as
/// rint, HALF_UP as floor(x + 0.5)), so values equal TensorFlow's bit for bit; NaN in the data
/// follows Eigen's reductions. As TensorFlow 2.21's kernel, a given range must be two scalars,
/// so `range_given` with an axis always fails ("input_min must be a scalar."). Errors: "num_bits
/// is out of range: 0 with signed_input_ 1", "Invalid range: input_min 0.5 > input_max -0.5",
/// "Axis must be at least -1. Found -2", "Shape must be at least rank 3 but is rank 2";
/// building: "axis should be at least -1, got -2", "Value for attr 'round_mode' of \"FOO\" is
/// not in the list of allowed values: \"HALF_TO_EVEN\", \"HALF_UP\"". Gradient: the gradient
/// itself for `input`, none for the range (array_grad.py).
Output quantize_and_dequantize_v2(const Output& input, const Output& input_min,
                                  const Output& input_max,
                                  const QuantizeAndDequantizeAttrs& attrs = {},
                                  std::string_view name = {});

/// `tf.raw_ops.QuantizeAndDequantizeV3`: op QuantizeAndDequantizeV3 (default name its type),
/// `quantize_and_dequantize_v2` with `num_bits` an int32 scalar input, rounding half to even
/// and the range given by default; with an axis the range is a vector of one value per slice
/// (not checked to be ordered, as TensorFlow). Errors: "Axis requested is larger than input
/// dimensions. Axis: 3 Input Dimensions: 1", "Invalid shape. The `num_bits` tensor should be a
/// scalar. Got dimensions: 1", "num_bits is out of range: 0 with `signed_input_` 1",
/// "input_min_tensor has incorrect size, was 2 expected 7 to match dim 0 of the input [2]",
/// "Shape must be rank 1 for input_min_tensor when the axis is specified"; a range of more than
/// one element without an axis (which crashes TensorFlow) fails. Gradient: the gradient itself
/// for `input`, none for the others.
Output quantize_and_dequantize_v3(const Output& input, const Output& input_min,
                                  const Output& input_max, const Output& num_bits,
                                  bool signed_input = true, bool range_given = true,
                                  bool narrow_range = false, std::int64_t axis = -1,
                                  std::string_view name = {});

/// `tf.raw_ops.QuantizeAndDequantizeV4` (what `tf.quantization.quantize_and_dequantize_v2`
/// builds): op QuantizeAndDequantizeV4 (default name its type), the same computation and
/// checks as `quantize_and_dequantize_v2`. Gradient: QuantizeAndDequantizeV4Grad of the op's
/// input and range, for all three inputs (array_ops.py).
Output quantize_and_dequantize_v4(const Output& input, const Output& input_min,
                                  const Output& input_max,
                                  const QuantizeAndDequantizeAttrs& attrs = {},
                                  std::string_view name = {});

/// What `quantize_and_dequantize_v4_grad` returns.
struct QuantizeAndDequantizeV4GradOutputs {
  Output input_backprop;      ///< the gradient where the input lies in the range, else 0
  Output input_min_backprop;  ///< zeros of input_min's shape
  Output input_max_backprop;  ///< zeros of input_min's shape
};

/// `tf.raw_ops.QuantizeAndDequantizeV4Grad`: op QuantizeAndDequantizeV4Grad (default name its
/// type), `gradients` where `input` lies in [input_min, input_max] (per slice along `axis`), 0
/// elsewhere. Errors: "gradient and input must be the same size", "Axis should be -1 or 0 or a
/// positive value less than 2but given axis value was 3", "Input min tensor must have
/// dimension 0 or 1. Received 2.", "min has incorrect size, expected 7 was 2", "input_min must
/// be a scalar if axis is unspecified". Not differentiable (TensorFlow registers a gradient
/// that fails with a TypeError).
QuantizeAndDequantizeV4GradOutputs quantize_and_dequantize_v4_grad(
    const Output& gradients, const Output& input, const Output& input_min, const Output& input_max,
    std::int64_t axis = -1, std::string_view name = {});

}  // namespace af
