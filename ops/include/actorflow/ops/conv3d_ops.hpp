#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// 3-D convolution and pooling (TensorFlow's `tf.nn.conv3d`, `tf.nn.max_pool3d`,
/// `tf.nn.avg_pool3d` and their gradient ops; conv_ops_3d.cc, conv_grad_ops_3d.cc,
/// pooling_ops_3d.cc). Data is NDHWC (`[batch, planes, rows, cols, channels]`; NCDHW builds
/// and has TensorFlow's static shapes, but the CPU kernels refuse it as TensorFlow's do),
/// filters are `[filter_planes, filter_rows, filter_cols, in_channels, out_channels]`,
/// `strides`, `ksize` and `dilations` hold 5 values in the data format's order, `padding` is
/// "SAME" or "VALID". Shape errors known while building throw InvalidArgumentError with
/// TensorFlow's shape-function messages; the others fail the step with TensorFlow's kernel
/// messages, the node named.
namespace af::nn {

/// `tf.nn.conv3d(input, filter, strides, padding, data_format, dilations)`: op Conv3D
/// (default name "Conv3D"), float32 or float64 (TensorFlow's OpDef also takes half and
/// bfloat16; actorflow has no bfloat16 kernel). Output `[batch, out_planes, out_rows,
/// out_cols, out_channels]` with TensorFlow's window sizes. While building: "Depth of input
/// (2) is not a multiple of input depth of filter (3)", "Negative dimension size caused by
/// subtracting 5 from 4", "Conv3D requires the stride attribute to contain 5 values, but got:
/// 4". When running, as TensorFlow's CPU kernel: "CPU implementation of Conv3D currently only
/// supports the NHWC tensor format." (NCDHW), "CPU implementation of Conv3D currently only
/// supports dilated rates of 1.", "Number of channels in filter (2) must match last dimension
/// of input (4)" (grouped convolution), "filter must not have zero elements (i.e. all
/// dimensions must be non-zero)", "Current implementation does not yet support strides in the
/// batch and depth dimensions.". Gradient: Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 of
/// a ShapeN of the two inputs, with the op's attrs (nn_grad.py's _Conv3DGrad).
Output conv3d(const Output& input, const Output& filter, const std::vector<std::int64_t>& strides,
              const std::string& padding, const std::string& data_format = "NDHWC",
              const std::vector<std::int64_t>& dilations = {1, 1, 1, 1, 1},
              std::string_view name = {});

/// `tf.raw_ops.Conv3DBackpropInputV2`: op Conv3DBackpropInputV2 (default name
/// "Conv3DBackpropInputV2"), the gradient of Conv3D with respect to its input, of the shape
/// `input_sizes` names (an int32 or int64 vector of 5). Errors, the node named:
/// "Conv3DBackpropInputOp: Size of out_backprop doesn't match computed: actual = 3, computed =
/// 4 spatial_dim: 1 input: 4 filter: 2 output: 3 stride: 1 dilation: 1", "input and
/// filter_sizes must have the same number of channels. Got 3 for input and 2 for
/// filter_sizes", "Conv3DBackpropInputOpV2 only supports NDHWC on the CPU.", "Current CPU
/// implementation does not yet support dilation rates larger than 1.", "Dimension -6 must be
/// >= 0". Gradient: Conv3DBackpropFilterV2 and Conv3D (nn_grad.py), none for the sizes.
Output conv3d_backprop_input_v2(const Output& input_sizes, const Output& filter,
                                const Output& out_backprop,
                                const std::vector<std::int64_t>& strides,
                                const std::string& padding,
                                const std::string& data_format = "NDHWC",
                                const std::vector<std::int64_t>& dilations = {1, 1, 1, 1, 1},
                                std::string_view name = {});

/// `tf.raw_ops.Conv3DBackpropFilterV2`: op Conv3DBackpropFilterV2 (default name
/// "Conv3DBackpropFilterV2"), the gradient of Conv3D with respect to its filter, of the shape
/// `filter_sizes` names (an int32 vector of 5). Errors as Conv3DBackpropInputV2's, labelled
/// "Conv3DBackpropFilterOp", and "filter_sizes shape must be rank 1 but is rank 2". Gradient:
/// Conv3DBackpropInputV2 and Conv3D (nn_grad.py), none for the sizes.
Output conv3d_backprop_filter_v2(const Output& input, const Output& filter_sizes,
                                 const Output& out_backprop,
                                 const std::vector<std::int64_t>& strides,
                                 const std::string& padding,
                                 const std::string& data_format = "NDHWC",
                                 const std::vector<std::int64_t>& dilations = {1, 1, 1, 1, 1},
                                 std::string_view name = {});

/// `tf.nn.max_pool3d(input, ksize, strides, padding, data_format)`: op MaxPool3D (default name
/// "MaxPool3D"), the maximum of each window, padding never winning. float32 (TensorFlow's CPU
/// kernel's only type). Errors when running: "Default Pooling3DOp only supports NDHWC on
/// device type CPU", Unimplemented "Pooling is not yet supported on the batch dimension." and
/// "... on the depth dimension.", "Sliding window ksize field must have non-negative
/// dimensions". Gradient: MaxPool3DGrad.
Output max_pool3d(const Output& input, const std::vector<std::int64_t>& ksize,
                  const std::vector<std::int64_t>& strides, const std::string& padding,
                  const std::string& data_format = "NDHWC", std::string_view name = {});

/// `tf.nn.avg_pool3d(input, ksize, strides, padding, data_format)`: op AvgPool3D (default name
/// "AvgPool3D"), the mean of each window's elements inside the input (padding not counted).
/// float32 on the CPU (the OpDef also takes float64, which, as in TensorFlow, has no CPU
/// kernel). Errors as MaxPool3D's. Gradient: AvgPool3DGrad of the input's shape.
Output avg_pool3d(const Output& input, const std::vector<std::int64_t>& ksize,
                  const std::vector<std::int64_t>& strides, const std::string& padding,
                  const std::string& data_format = "NDHWC", std::string_view name = {});

/// `tf.raw_ops.MaxPool3DGrad`: op MaxPool3DGrad (default name "MaxPool3DGrad"), float32. As
/// TensorFlow's CPU kernel, each window's gradient goes to every element of the window within
/// 1e-5 of the window's maximum `orig_output` (all of them on ties), over the windows
/// TensorFlow's GetBroadcastSize clips. Errors: "Expected orig_output shape to be
/// [1,2,3,3,2], but got [1,1,3,3,2]", "Expected grad shape to be ...", "tensor_in must be
/// 5-dimensional", "Default MaxPooling3dGradOp only supports NDHWC on device type CPU".
/// Gradient: zeros for `orig_input` and `orig_output`, MaxPool3DGradGrad for `grad`.
Output max_pool3d_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                       const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, const std::string& padding,
                       const std::string& data_format = "NDHWC", std::string_view name = {});

/// `tf.raw_ops.AvgPool3DGrad`: op AvgPool3DGrad (default name "AvgPool3DGrad"), the gradient
/// of AvgPool3D for an input of shape `orig_input_shape` (an int32 vector of 5), float32. As
/// TensorFlow's CPU kernel, each gradient spreads evenly over the window TensorFlow's
/// GetBroadcastSize gives (which, where a SAME window starts in the padding and ends past the
/// input, can be wider than the forward op's). Errors: "tensor_in must be 1-dimensional and 5
/// elements", "Expected first dimension of tensor_in_shape and out_backprop to match, got 2
/// and 1", "Default AvgPooling3dGradOp only supports NDHWC on device type CPU". Gradient:
/// StopGradient of the shape and AvgPool3D of the incoming gradient.
Output avg_pool3d_grad(const Output& orig_input_shape, const Output& grad,
                       const std::vector<std::int64_t>& ksize,
                       const std::vector<std::int64_t>& strides, const std::string& padding,
                       const std::string& data_format = "NDHWC", std::string_view name = {});

/// `tf.raw_ops.MaxPool3DGradGrad`: op MaxPool3DGradGrad (default name "MaxPool3DGradGrad"),
/// of `orig_output`'s shape: each window takes `grad` at the first input (plane, row, column
/// order) equal to its maximum. float32 on the CPU. Static shapes: `grad` must match
/// `orig_input`, `orig_output` the pooled shape ("Dimension 1 in both shapes must be equal,
/// but are 4 and 1. ..."). Errors when running: "received empty tensor tensor_in: ...",
/// Unimplemented "MaxPooling3dGradGrad is not yet supported on the depth dimension.".
/// Gradient: zeros for the first two inputs, MaxPool3DGrad for `grad`.
Output max_pool3d_grad_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                            const std::vector<std::int64_t>& ksize,
                            const std::vector<std::int64_t>& strides, const std::string& padding,
                            const std::string& data_format = "NDHWC", std::string_view name = {});

}  // namespace af::nn
