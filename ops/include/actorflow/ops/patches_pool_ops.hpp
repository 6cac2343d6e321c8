#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Patch extraction, morphological dilation and max pooling with argmax (TensorFlow's
/// `tf.image.extract_patches`, `tf.extract_volume_patches`, `tf.nn.dilation2d`,
/// `tf.nn.max_pool_with_argmax` and the gradient ops behind them). Data is NHWC (NDHWC for
/// volumes); `padding` is "SAME" or "VALID"; the window attrs have one value per dimension
/// with 1 in batch and depth. Shape errors known while building throw InvalidArgumentError;
/// the others fail the step naming the node. Element types: float32, float64, int32, int64,
/// uint8 and bfloat16 (TensorFlow's CPU kernels register these among the real types).
namespace af::nn {

/// `tf.compat.v1.extract_image_patches(images, ksizes, strides, rates, padding)`: op
/// ExtractImagePatches (default name "ExtractImagePatches"), `[batch, out_rows, out_cols,
/// ksize_rows * ksize_cols * depth]`: for each output position the `ksizes` window of input
/// pixels `rates` apart, row-major, each pixel's channels together; pixels in the padding
/// are 0. The output size is that of a window of `ksize + (ksize - 1) * (rate - 1)`.
/// Errors: "input must be 4-dimensional[4,4,2]", Unimplemented "Only support ksizes across
/// space.", OutOfRange "strides is out of range." (a value below 1). Gradient: TensorFlow's
/// index-patch scatter (Range, ExtractImagePatches, UnsortedSegmentSum, Transpose).
Output extract_image_patches(const Output& images, const std::vector<std::int64_t>& ksizes,
                             const std::vector<std::int64_t>& strides,
                             const std::vector<std::int64_t>& rates, const std::string& padding,
                             std::string_view name = {});

/// `tf.extract_volume_patches(input, ksizes, strides, padding)`: op ExtractVolumePatches,
/// the 3-D form of `extract_image_patches` on NDHWC input (no rates): `[batch, out_planes,
/// out_rows, out_cols, kp * kr * kc * depth]`. SAME pads half of `(out - 1) * stride +
/// ksize - in` before, truncated toward zero even when negative, as TensorFlow (Eigen) does.
/// Errors: "input must be 5-dimensional[1,4,4,2]" and those of `extract_image_patches`.
/// Gradient: the same index-patch scatter as the image op (see docs/ops.md).
Output extract_volume_patches(const Output& input, const std::vector<std::int64_t>& ksizes,
                              const std::vector<std::int64_t>& strides, const std::string& padding,
                              std::string_view name = {});

/// `tf.nn.dilation2d` (TensorFlow 1.x argument order): op Dilation2D, grayscale
/// morphological dilation `out[b, y, x, c] = max over (dy, dx) of input[b, y * stride - pad
/// + dy * rate, x * stride - pad + dx * rate, c] + filter[dy, dx, c]`, taps in the padding
/// left out (the lowest value when none is inside). `filter` is `[rows, cols, depth]`.
/// Errors: "filter must be 3-dimensional: [2,2]", "input and filter must have the same
/// depth: 2 vs 3", Unimplemented "Stride is only supported across spatial dimensions.".
/// Gradient: Dilation2DBackpropInput and Dilation2DBackpropFilter.
Output dilation2d(const Output& input, const Output& filter,
                  const std::vector<std::int64_t>& strides, const std::vector<std::int64_t>& rates,
                  const std::string& padding, std::string_view name = {});

/// Op Dilation2DBackpropInput: each `out_backprop` value added at the input pixel of the
/// first maximum of its window (input's shape). Error: "out_backprop has incompatible
/// size.". Not differentiable (TensorFlow registers no gradient).
Output dilation2d_backprop_input(const Output& input, const Output& filter,
                                 const Output& out_backprop,
                                 const std::vector<std::int64_t>& strides,
                                 const std::vector<std::int64_t>& rates, const std::string& padding,
                                 std::string_view name = {});

/// Op Dilation2DBackpropFilter: each `out_backprop` value added at the filter tap of the
/// first maximum of its window (filter's shape). Errors as `dilation2d_backprop_input`.
Output dilation2d_backprop_filter(const Output& input, const Output& filter,
                                  const Output& out_backprop,
                                  const std::vector<std::int64_t>& strides,
                                  const std::vector<std::int64_t>& rates,
                                  const std::string& padding, std::string_view name = {});

/// What `max_pool_with_argmax` returns.
struct MaxPoolWithArgmaxOutputs {
  Output output;  ///< the max pooling, input's dtype
  Output argmax;  ///< the flat input offset of each maximum (int64 or int32)
};

/// `tf.nn.max_pool_with_argmax(input, ksize, strides, padding, Targmax,
/// include_batch_in_index)`: op MaxPoolWithArgmax. `argmax` is `(y * width + x) * channels
/// + c` of the first maximum of each window (row-major scan), plus `b * height * width *
/// channels` with `include_batch_in_index`. Errors: "tensor_in must be 4-dimensional (2)",
/// Unimplemented "Pooling is not yet supported on the batch dimension.". Gradient:
/// MaxPoolGradWithArgmax (none for argmax).
MaxPoolWithArgmaxOutputs max_pool_with_argmax(
    const Output& input, const std::vector<std::int64_t>& ksize,
    const std::vector<std::int64_t>& strides, const std::string& padding,
    DType targmax = DType::int64, bool include_batch_in_index = false, std::string_view name = {});

/// Op MaxPoolGradWithArgmax: `grad` (the pooling's output shape) added at the input offsets
/// `argmax` names (input's shape). Errors: "Expected grad shape to be [1,4,4,2], but got
/// [1,3,3,2]", "Expected argmax shape to be ...", "Invalid output gradient index: 100, 0,
/// 32" (an offset outside its batch; TensorFlow aborts the process there). Not
/// differentiable (TensorFlow registers no gradient).
Output max_pool_grad_with_argmax(const Output& input, const Output& grad, const Output& argmax,
                                 const std::vector<std::int64_t>& ksize,
                                 const std::vector<std::int64_t>& strides,
                                 const std::string& padding, bool include_batch_in_index = false,
                                 std::string_view name = {});

/// Op MaxPoolGradGradWithArgmax: each output position takes the element of `grad` (input's
/// shape) at the offset `argmax` names (argmax's shape). TensorFlow has only a GPU kernel;
/// this CPU kernel computes what it does.
Output max_pool_grad_grad_with_argmax(const Output& input, const Output& grad, const Output& argmax,
                                      const std::vector<std::int64_t>& ksize,
                                      const std::vector<std::int64_t>& strides,
                                      const std::string& padding,
                                      bool include_batch_in_index = false,
                                      std::string_view name = {});

/// Op MaxPoolGradGrad (NHWC): the gradient of MaxPoolGrad with respect to its `grad`. Each
/// output position (orig_output's shape) takes `grad` (orig_input's shape) at the first
/// pixel of its window equal to `orig_output` there. Errors: "Expected orig_output shape to
/// be [1,4,4,2], but got [1,3,3,2]", "Expected grad shape to be ...", Unimplemented
/// "MaxPoolingGradGrad is not yet supported on the depth dimension.". Gradient: MaxPoolGrad
/// (zeros for orig_input and orig_output).
Output max_pool_grad_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                          const std::vector<std::int64_t>& ksize,
                          const std::vector<std::int64_t>& strides, const std::string& padding,
                          std::string_view name = {});

}  // namespace af::nn
