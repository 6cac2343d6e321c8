// Gradients of the 3-D convolution and pooling ops as TensorFlow's nn_grad.py registers them:
// Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D, MaxPool3DGrad,
// MaxPool3DGradGrad, AvgPool3D and AvgPool3DGrad.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/conv3d_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// The window attrs of a conv or pool op, with TensorFlow's defaults for the optional ones.
struct WindowAttrs {
  std::vector<std::int64_t> strides, ksize, dilations{1, 1, 1, 1, 1};
  std::string padding = "VALID", data_format = "NDHWC";
};

WindowAttrs window_attrs(const Operation& op) {
  const NodeDef& def = op.node_def();
  WindowAttrs a;
  if (auto v = def.attr<std::vector<std::int64_t>>("strides")) a.strides = *v;
  if (auto v = def.attr<std::vector<std::int64_t>>("ksize")) a.ksize = *v;
  if (auto v = def.attr<std::vector<std::int64_t>>("dilations")) a.dilations = *v;
  if (auto v = def.attr<std::string>("padding")) a.padding = *v;
  if (auto v = def.attr<std::string>("data_format")) a.data_format = *v;
  return a;
}

// _Conv3DGrad: the two backprop ops of a ShapeN of the inputs.
Grads conv3d_grad(const Operation& op, const Grads& g) {
  const WindowAttrs a = window_attrs(op);
  const Output x = input(op, 0), w = input(op, 1);
  const std::vector<Output> shapes = shape_n({x, w}, DType::int32, "ShapeN");
  return {nn::conv3d_backprop_input_v2(shapes[0], w, g[0], a.strides, a.padding, a.data_format,
                                       a.dilations, "Conv3DBackpropInputV2"),
          nn::conv3d_backprop_filter_v2(x, shapes[1], g[0], a.strides, a.padding, a.data_format,
                                        a.dilations, "Conv3DBackpropFilterV2")};
}

// _Conv3DBackpropInputGrad: none for the sizes; the filter's from the incoming gradient and
// out_backprop, out_backprop's a Conv3D of the incoming gradient.
Grads conv3d_backprop_input_grad(const Operation& op, const Grads& g) {
  const WindowAttrs a = window_attrs(op);
  const Output w = input(op, 1), dy = input(op, 2);
  return {Output(),
          nn::conv3d_backprop_filter_v2(g[0], shape_of(w, "Shape"), dy, a.strides, a.padding,
                                        a.data_format, a.dilations, "Conv3DBackpropFilterV2"),
          nn::conv3d(g[0], w, a.strides, a.padding, a.data_format, a.dilations, "Conv3D")};
}

// _Conv3DBackpropFilterGrad: the input's from the incoming gradient and out_backprop, none
// for the sizes, out_backprop's a Conv3D of the input with the incoming gradient.
Grads conv3d_backprop_filter_grad(const Operation& op, const Grads& g) {
  const WindowAttrs a = window_attrs(op);
  const Output x = input(op, 0), dy = input(op, 2);
  return {nn::conv3d_backprop_input_v2(shape_of(x, "Shape"), g[0], dy, a.strides, a.padding,
                                       a.data_format, a.dilations, "Conv3DBackpropInputV2"),
          Output(),
          nn::conv3d(x, g[0], a.strides, a.padding, a.data_format, a.dilations, "Conv3D")};
}

}  // namespace

void register_conv3d_gradients(GradientRegistry& r) {
  r.add("Conv3D", conv3d_grad);
  r.add("Conv3DBackpropInputV2", conv3d_backprop_input_grad);
  r.add("Conv3DBackpropFilterV2", conv3d_backprop_filter_grad);
  r.add("AvgPool3D", [](const Operation& op, const Grads& g) -> Grads {
    const WindowAttrs a = window_attrs(op);
    return {nn::avg_pool3d_grad(shape_of(input(op, 0), "Shape"), g[0], a.ksize, a.strides,
                                a.padding, a.data_format, "AvgPool3DGrad")};
  });
  // _AvgPool3DGradGrad: a StopGradient of the shape, AvgPool3D of the incoming gradient.
  r.add("AvgPool3DGrad", [](const Operation& op, const Grads& g) -> Grads {
    const WindowAttrs a = window_attrs(op);
    return {stop_gradient(input(op, 0), "StopGradient"),
            nn::avg_pool3d(g[0], a.ksize, a.strides, a.padding, a.data_format, "AvgPool3D")};
  });
  r.add("MaxPool3D", [](const Operation& op, const Grads& g) -> Grads {
    const WindowAttrs a = window_attrs(op);
    return {nn::max_pool3d_grad(input(op, 0), op.output(0), g[0], a.ksize, a.strides, a.padding,
                                a.data_format, "MaxPool3DGrad")};
  });
  // _MaxPool3DGradGrad and _MaxPool3DGradGradGrad: zeros for the pooling's input and output,
  // the other op for the incoming gradient.
  r.add("MaxPool3DGrad", [](const Operation& op, const Grads& g) -> Grads {
    const WindowAttrs a = window_attrs(op);
    const Output x = input(op, 0), y = input(op, 1);
    return {zeros_like_op(x, "zeros_like"), zeros_like_op(y, "zeros_like_1"),
            nn::max_pool3d_grad_grad(x, y, g[0], a.ksize, a.strides, a.padding, a.data_format,
                                     "MaxPool3DGradGrad")};
  });
  r.add("MaxPool3DGradGrad", [](const Operation& op, const Grads& g) -> Grads {
    const WindowAttrs a = window_attrs(op);
    const Output x = input(op, 0), y = input(op, 1);
    return {zeros_like_op(x, "zeros_like"), zeros_like_op(y, "zeros_like_1"),
            nn::max_pool3d_grad(x, y, g[0], a.ksize, a.strides, a.padding, a.data_format,
                                "MaxPool3DGrad")};
  });
}

}  // namespace af::detail
