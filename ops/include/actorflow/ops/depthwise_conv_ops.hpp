#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/status_or.hpp"

/// Depthwise 2-D convolution (TensorFlow's `tf.compat.v1.nn.depthwise_conv2d_native`,
/// depthwise_conv_op.cc and depthwise_conv_grad_op.cc).
namespace af {

// -- padding and window arithmetic (shared by the shape functions and the CPU kernels) ----

/// TensorFlow's CheckValidPadding for a 4-D op: with padding "EXPLICIT", `explicit_paddings`
/// holds 8 non-negative values, zero for the batch and depth dimensions of `data_format`
/// ("NHWC" or "NCHW"); with any other padding it is empty. Errors are TensorFlow's:
/// "explicit_paddings attribute must contain 8 values, but got: 6", "All elements of
/// explicit_paddings must be nonnegative", "Nonzero explicit padding in the batch or depth
/// dimensions is not supported", "explicit_paddings attribute must be empty if the padding
/// attribute is not EXPLICIT".
Status check_valid_padding(const std::string& padding,
                           const std::vector<std::int64_t>& explicit_paddings,
                           const std::string& data_format);

/// TensorFlow's GetWindowedOutputSizeVerbose (dilation 1): as `windowed_output_size` for
/// "SAME" and "VALID"; for "EXPLICIT" `(in + pad_before + pad_after - window + stride) /
/// stride` with `pad_before` as given. InvalidArgument as `windowed_output_size`.
StatusOr<WindowDim> windowed_output_size_explicit(std::int64_t in, std::int64_t window,
                                                  std::int64_t stride, const std::string& padding,
                                                  std::int64_t pad_before, std::int64_t pad_after);

namespace nn {

/// `tf.compat.v1.nn.depthwise_conv2d_native(input, filter, strides, padding, data_format,
/// dilations)`: op DepthwiseConv2dNative (default name "DepthwiseConv2dNative") of a 4-D
/// `input` (NHWC, or NCHW) and a filter `[filter_height, filter_width, in_channels,
/// channel_multiplier]`: output channel `c * channel_multiplier + m` is input channel `c`
/// convolved with `filter[:, :, c, m]`, shape `[batch, out_height, out_width, in_channels *
/// channel_multiplier]` (window sizes as Conv2D's). float32 or float64. `padding` is "SAME" or
/// "VALID" (use the overload with `explicit_paddings` for "EXPLICIT"). As TensorFlow's CPU
/// kernel, running fails with Unimplemented for NCHW ("Depthwise convolution on CPU is only
/// supported for NHWC format") and for dilations other than 1 ("Current kernel implementation
/// does not support dilations, received [1 2 2 1]"), while the shape function honours both;
/// InvalidArgument for strides that differ along H and W ("Current implementation only
/// supports equal length strides in the row and column dimensions.") or are not 1 along
/// batch and depth, and for depths that differ ("Dimensions must be equal, but are 3 and 2"
/// while building; "input and filter must have the same depth: 3 vs 2" when running).
/// Gradient: DepthwiseConv2dNativeBackpropInput and DepthwiseConv2dNativeBackpropFilter with
/// the op's attrs (TensorFlow's _DepthwiseConv2dNativeGrad).
Output depthwise_conv2d_native(const Output& input, const Output& filter,
                               const std::vector<std::int64_t>& strides, const std::string& padding,
                               const std::string& data_format = "NHWC",
                               const std::vector<std::int64_t>& dilations = {1, 1, 1, 1},
                               std::string_view name = {});

/// `depthwise_conv2d_native` with padding "EXPLICIT" (TensorFlow's list padding): the 8
/// values of `explicit_paddings` are the before/after padding of each dimension of
/// `data_format`, zero for batch and depth.
Output depthwise_conv2d_native(const Output& input, const Output& filter,
                               const std::vector<std::int64_t>& strides,
                               const std::vector<std::int64_t>& explicit_paddings,
                               const std::string& data_format = "NHWC",
                               const std::vector<std::int64_t>& dilations = {1, 1, 1, 1},
                               std::string_view name = {});

/// The attrs of the two backprop ops, as the forward op holds them.
struct DepthwiseConv2DAttrs {
  std::vector<std::int64_t> strides;                   ///< 4 values, equal along H and W
  std::string padding;                                 ///< "SAME", "VALID" or "EXPLICIT"
  std::vector<std::int64_t> explicit_paddings = {};    ///< 8 values with "EXPLICIT"
  std::string data_format = "NHWC";                    ///< "NHWC" or "NCHW"
  std::vector<std::int64_t> dilations = {1, 1, 1, 1};  ///< ignored by the kernels, as TF's
};

/// `tf.nn.depthwise_conv2d_native_backprop_input`: op DepthwiseConv2dNativeBackpropInput
/// (default name "DepthwiseConv2dNativeBackpropInput"), the gradient of
/// DepthwiseConv2dNative with respect to its input, of shape `input_sizes` (an int32 vector
/// of 4). Errors, the node named: "DepthwiseConv2DBackpropInput: Number of rows of
/// out_backprop doesn't match computed: actual = 4, computed = 5", "...: depth_multiplier *
/// in_depth not equal to out_depth", "Dimension 0 of input_sizes must be >= 0". Not
/// differentiable (TensorFlow 1.x registers no gradient).
Output depthwise_conv2d_native_backprop_input(const Output& input_sizes, const Output& filter,
                                              const Output& out_backprop,
                                              const DepthwiseConv2DAttrs& attrs,
                                              std::string_view name = {});

/// `tf.nn.depthwise_conv2d_native_backprop_filter`: op DepthwiseConv2dNativeBackpropFilter
/// (default name "DepthwiseConv2dNativeBackpropFilter"), the gradient with respect to the
/// filter, of shape `filter_sizes` (an int32 vector of 4). Errors as the input backprop's,
/// labelled "DepthwiseConv2DBackpropFilter". Not differentiable.
Output depthwise_conv2d_native_backprop_filter(const Output& input, const Output& filter_sizes,
                                               const Output& out_backprop,
                                               const DepthwiseConv2DAttrs& attrs,
                                               std::string_view name = {});

}  // namespace nn

}  // namespace af
