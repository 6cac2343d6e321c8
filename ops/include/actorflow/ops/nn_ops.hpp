#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status_or.hpp"

namespace af {

// -- window geometry (shared by the CPU and GPU kernels) ---------------------------------

/// One spatial dimension of a windowed op: the output size and the padding before it.
struct WindowDim {
  std::int64_t output = 0;      ///< the output size
  std::int64_t pad_before = 0;  ///< padding before the first input element
};

/// TensorFlow's `GetWindowedOutputSize`: VALID gives ceil((in - window + 1) / stride); SAME
/// gives ceil(in / stride) with `pad_before = pad_total / 2`. InvalidArgument for a stride
/// or window below 1, a padding other than SAME/VALID, or a negative output.
StatusOr<WindowDim> windowed_output_size(std::int64_t in, std::int64_t window, std::int64_t stride,
                                         const std::string& padding);

/// The sizes of a 2-D convolution of an NHWC input with an HWIO filter.
struct Conv2DGeometry {
  std::int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;  ///< input NHWC sizes
  std::int64_t filter_rows = 0, filter_cols = 0, out_depth = 0;    ///< filter HW and O sizes
  std::int64_t stride_rows = 1, stride_cols = 1;                   ///< strides along H and W
  std::int64_t out_rows = 0, out_cols = 0, pad_rows = 0,
               pad_cols = 0;  ///< output HW; padding before
};

/// Checks and computes a Conv2D's geometry with TensorFlow's errors (rank 4, strides of 4
/// with 1 in batch and depth, equal depths).
StatusOr<Conv2DGeometry> conv2d_geometry(const Shape& input, const Shape& filter,
                                         const std::vector<std::int64_t>& strides,
                                         const std::string& padding);

/// The sizes of a 2-D pooling of an NHWC input.
struct Pool2DGeometry {
  std::int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;  ///< input NHWC sizes
  std::int64_t window_rows = 1, window_cols = 1, stride_rows = 1,
               stride_cols = 1;  ///< window and strides (H, W)
  std::int64_t out_rows = 0, out_cols = 0, pad_rows = 0,
               pad_cols = 0;  ///< output HW; padding before
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
Output conv2d_backprop_input(const Output& input_sizes, const Output& filter,
                             const Output& out_backprop, const std::vector<std::int64_t>& strides,
                             const std::string& padding, std::string_view name = {});

/// `tf.nn.conv2d_backprop_filter`: op Conv2DBackpropFilter, the gradient of Conv2D with
/// respect to its filter; `filter_sizes` is an int32 vector of 4.
Output conv2d_backprop_filter(const Output& input, const Output& filter_sizes,
                              const Output& out_backprop, const std::vector<std::int64_t>& strides,
                              const std::string& padding, std::string_view name = {});

/// `tf.nn.max_pool`: op MaxPool; padded positions never win.
Output max_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name = {});

/// `tf.nn.avg_pool`: op AvgPool; each window divides by its elements inside the input
/// (padding is not counted), as TensorFlow does.
Output avg_pool(const Output& value, const std::vector<std::int64_t>& ksize,
                const std::vector<std::int64_t>& strides, const std::string& padding,
                std::string_view name = {});

/// `tf.nn.log_softmax`: op LogSoftmax over the last dimension, `x - max - log(sum(exp(x - max)))`.
Output log_softmax(const Output& logits, std::string_view name = {});

/// `tf.compat.v1.nn.softmax_cross_entropy_with_logits(labels, logits)`: the per-row loss
/// `-sum(labels * log_softmax(logits))` of `[batch, classes]` inputs, under the name scope
/// "softmax_cross_entropy_with_logits_sg" (op SoftmaxCrossEntropyWithLogits, whose second
/// output, the backprop, its gradient reuses). As in TensorFlow 1.x, the labels first pass a
/// StopGradient ("<scope>/labels_stop_gradient"): no gradient reaches them (use the `_v2`
/// form for that). Running it with shapes that differ fails with InvalidArgument "logits and
/// labels must be broadcastable: ...".
Output softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                         std::string_view name = {});

/// `tf.nn.softmax_cross_entropy_with_logits_v2(labels, logits)`: the same loss under the name
/// scope "softmax_cross_entropy_with_logits", with gradients into the labels as well
/// (`-g * log_softmax(logits)`).
Output softmax_cross_entropy_with_logits_v2(const Output& labels, const Output& logits,
                                            std::string_view name = {});

/// `tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)`: the per-row loss for
/// int32/int64 class ids `labels` `[batch]` and `logits` `[batch, classes]`, as op
/// SparseSoftmaxCrossEntropyWithLogits inside the name scope of the same name. A label
/// outside `[0, classes)` fails the step with InvalidArgument "Received a label value of 5
/// which is outside the valid range of [0, 3).  Label values: ...".
Output sparse_softmax_cross_entropy_with_logits(const Output& labels, const Output& logits,
                                                std::string_view name = {});

/// The raw ops behind the losses: (loss, backprop). Op SoftmaxCrossEntropyWithLogits:
/// `labels` are probabilities of `logits`' shape.
std::pair<Output, Output> softmax_cross_entropy_with_logits_op(const Output& logits,
                                                               const Output& labels,
                                                               std::string_view name = {});
/// Op SparseSoftmaxCrossEntropyWithLogits: `labels` are int32/int64 class ids `[batch]`.
std::pair<Output, Output> sparse_softmax_cross_entropy_with_logits_op(const Output& logits,
                                                                      const Output& labels,
                                                                      std::string_view name = {});

// -- gradient ops (what the gradients of the ops above build) -------------------------------

/// Op ReluGrad: `gradients` where `features > 0`, else 0.
Output relu_grad(const Output& gradients, const Output& features, std::string_view name = {});
/// Op SigmoidGrad: `dy * y * (1 - y)` for the sigmoid's output `y`.
Output sigmoid_grad(const Output& y, const Output& dy, std::string_view name = {});
/// Op TanhGrad: `dy * (1 - y * y)` for the tanh's output `y`.
Output tanh_grad(const Output& y, const Output& dy, std::string_view name = {});
/// Op BiasAddGrad (NHWC): `out_backprop` summed over every dimension but the last.
Output bias_add_grad(const Output& out_backprop, std::string_view name = {});
/// Op BroadcastGradientArgs: for two shape vectors, the axes each side's gradient is
/// summed over after a broadcasting binary op (TensorFlow's BCast rule).
std::pair<Output, Output> broadcast_gradient_args(const Output& s0, const Output& s1,
                                                  std::string_view name = {});
/// Op MaxPoolGrad: each window's gradient goes to the first maximum of the window.
Output max_pool_grad(const Output& orig_input, const Output& orig_output, const Output& grad,
                     const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     std::string_view name = {});
/// Op AvgPoolGrad: each window's gradient spread over the window's cells in the input.
Output avg_pool_grad(const Output& orig_input_shape, const Output& grad,
                     const std::vector<std::int64_t>& ksize,
                     const std::vector<std::int64_t>& strides, const std::string& padding,
                     std::string_view name = {});

}  // namespace nn

// -- more activations (kernels/src/activation_ops.cpp) -----------------------------------

/// `tf.nn.softplus`: op Softplus, log(exp(x) + 1) computed as TensorFlow does: x itself
/// above -log(epsilon) - 2 and exp(x) below log(epsilon) + 2 (float types).
Output softplus(const Output& features, std::string_view name = {});
/// `tf.nn.softsign`: op Softsign, x / (|x| + 1) (float types).
Output softsign(const Output& features, std::string_view name = {});
/// `tf.nn.elu`: op Elu, exp(x) - 1 below 0, else x (float types).
Output elu(const Output& features, std::string_view name = {});
/// `tf.nn.selu`: op Selu, scale * alpha * (exp(x) - 1) below 0, else scale * x, with
/// TensorFlow's constants scale = 1.0507009873554805 and scale * alpha =
/// 1.7580993408473769 (float types).
Output selu(const Output& features, std::string_view name = {});
/// `tf.nn.relu6`: op Relu6, min(max(x, 0), 6) with NaN kept (float and real types).
Output relu6(const Output& features, std::string_view name = {});

}  // namespace af
