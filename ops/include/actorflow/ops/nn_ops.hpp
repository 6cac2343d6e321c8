#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status_or.hpp"

namespace af {

// -- window geometry (shared by the CPU and GPU kernels) ---------------------------------

/// One spatial dimension of a windowed op: the output size and the padding before it.
struct WindowDim {
  std::int64_t output = 0;
  std::int64_t pad_before = 0;
};

/// TensorFlow's `GetWindowedOutputSize`: VALID gives ceil((in - window + 1) / stride); SAME
/// gives ceil(in / stride) with `pad_before = pad_total / 2`. InvalidArgument for a stride
/// or window below 1, a padding other than SAME/VALID, or a negative output.
StatusOr<WindowDim> windowed_output_size(std::int64_t in, std::int64_t window, std::int64_t stride,
                                         const std::string& padding);

/// The sizes of a 2-D convolution of an NHWC input with an HWIO filter.
struct Conv2DGeometry {
  std::int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  std::int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;
  std::int64_t stride_rows = 1, stride_cols = 1;
  std::int64_t out_rows = 0, out_cols = 0, pad_rows = 0, pad_cols = 0;
};

/// Checks and computes a Conv2D's geometry with TensorFlow's errors (rank 4, strides of 4
/// with 1 in batch and depth, equal depths).
StatusOr<Conv2DGeometry> conv2d_geometry(const Shape& input, const Shape& filter,
                                         const std::vector<std::int64_t>& strides,
                                         const std::string& padding);

/// The sizes of a 2-D pooling of an NHWC input.
struct Pool2DGeometry {
  std::int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  std::int64_t window_rows = 1, window_cols = 1, stride_rows = 1, stride_cols = 1;
  std::int64_t out_rows = 0, out_cols = 0, pad_rows = 0, pad_cols = 0;
};

/// Checks and computes a MaxPool/AvgPool geometry with TensorFlow's errors (no pooling over
/// batch or depth).
StatusOr<Pool2DGeometry> pool2d_geometry(const Shape& input, const std::vector<std::int64_t>& ksize,
                                         const std::vector<std::int64_t>& strides,
                                         const std::string& padding);

/// Neural-network ops (`tf.nn`). Layouts are NHWC for data and HWIO for filters; padding is
/// "SAME" or "VALID". Shape errors known while building throw InvalidArgumentError; the
/// others fail the step with InvalidArgument naming the node.
namespace nn {

/// `tf.nn.bias_add`: op BiasAdd, `value + bias` along the last dimension.
Output bias_add(const Output& value, const Output& bias, std::string_view name = {});

/// `tf.nn.conv2d`: op Conv2D of an NHWC `input` with an HWIO `filter`.
Output conv2d(const Output& input, const Output& filter, const std::vector<std::int64_t>& strides,
              const std::string& padding, std::string_view name = {});

/// `tf.nn.conv2d_backprop_input`: op Conv2DBackpropInput, the gradient of Conv2D with
/// respect to its input; `input_sizes` is an int32 vector of 4.
Output conv2d_backprop_input(const Output& input_sizes, const Output& filter, const Output& out_backprop,
                             const std::vector<std::int64_t>& strides, const std::string& padding,
                             std::string_view name = {});

/// `tf.nn.conv2d_backprop_filter`: op Conv2DBackpropFilter, the gradient of Conv2D with
/// respect to its filter; `filter_sizes` is an int32 vector of 4.
Output conv2d_backprop_filter(const Output& input, const Output& filter_sizes, const Output& out_backprop,
                              const std::vector<std::int64_t>& strides, const std::string& padding,
                              std::string_view name = {});

/// `tf.nn.max_pool`: op MaxPool; padded positions never win.
Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name = {});

/// `tf.nn.avg_pool`: op AvgPool; each window divides by its elements inside the input
/// (padding is not counted), as TensorFlow does.
Output avg_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name = {});

}  // namespace nn

}  // namespace af
