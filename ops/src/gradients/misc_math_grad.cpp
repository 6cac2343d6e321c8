// Gradients of the ops of ops/src/defs/misc_math_ops.cpp: ClipByValue (clip_ops.py's
// _clip_by_value_grad), Roll (manip_grad.py) and Cross (math_grad.py); ApproximateEqual,
// LinSpace, the bitwise ops and Multinomial are not differentiable, as TensorFlow registers
// them. (The unary special functions' gradients are in cwise_grad.cpp; UniqueWithCounts,
// UniqueV2, Bincount, DenseBincount and RandomUniformInt have no entry, as in TensorFlow.)
#include <vector>

#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// _clip_by_value_grad: the gradient where clip_value_min <= t <= clip_value_max, zeros
// elsewhere; each bound gets the gradient where t is beyond it, summed over the dimensions it
// was broadcast along and reshaped to its shape.
Grads clip_by_value_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0), y = input(op, 1), z = input(op, 2);
  const Output grad = g[0];
  const Output sx = shape_of(x, "Shape");
  const Output sy = shape_of(y, "Shape_1");
  const Output sz = shape_of(z, "Shape_2");
  const Output gradshape = shape_of(grad, "Shape_3");
  const Output zeros = zeros_of_shape(gradshape, grad.dtype());
  auto compare = [&](const char* type, const Output& a, const Output& b) {
    return gr.create_op(type, {a, b}, {{"T", a.dtype()}}, type).output(0);
  };
  const Output xymask = compare("Less", x, y);
  const Output xzmask = compare("Greater", x, z);
  auto reduction_axes = [&](const Output& a, const Output& b) {
    return gr
        .create_op("BroadcastGradientArgs", {a, b}, {{"T", a.dtype()}}, "BroadcastGradientArgs")
        .output(1);
  };
  const Output ry = reduction_axes(sx, sy);
  const Output rz = reduction_axes(sx, sz);
  auto select = [&](const Output& mask, const Output& a, const Output& b) {
    return gr.create_op("Select", {mask, a, b}, {{"T", a.dtype()}}, "Select").output(0);
  };
  const Output either = gr.create_op("LogicalOr", {xymask, xzmask}, {}, "LogicalOr").output(0);
  const Output xgrad = select(either, zeros, grad);
  const Output ygrad = select(xymask, grad, zeros);
  const Output zgrad = select(xzmask, grad, zeros);
  const Output gy = reshape_op(sum_op(ygrad, ry, false, "Sum"), sy, "Reshape");
  const Output gz = reshape_op(sum_op(zgrad, rz, false, "Sum_1"), sz, "Reshape_1");
  return {xgrad, gy, gz};
}

// _RollGrad: the gradient rolled back by -shift; none for shift and axis.
Grads roll_grad(const Operation& op, const Grads& g) {
  const Output shift = input(op, 1), axis = input(op, 2);
  const Output back = unary("Neg", shift, "Neg");
  const Output rolled =
      op.graph()
          .create_op("Roll", {g[0], back, axis},
                     {{"T", g[0].dtype()}, {"Tshift", shift.dtype()}, {"Taxis", axis.dtype()}},
                     "Roll")
          .output(0);
  return {rolled, Output(), Output()};
}

// _CrossGrad: (cross(b, grad), cross(grad, a)).
Grads cross_grad(const Operation& op, const Grads& g) {
  const Output a = input(op, 0), b = input(op, 1);
  return {binary("Cross", b, g[0], "Cross"), binary("Cross", g[0], a, "Cross_1")};
}

}  // namespace

void register_misc_math_gradients(GradientRegistry& r) {
  r.add("ClipByValue", clip_by_value_grad);
  r.add("Roll", roll_grad);
  r.add("Cross", cross_grad);
  for (const char* type : {"ApproximateEqual", "LinSpace", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
                           "Invert", "LeftShift", "RightShift", "Multinomial"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
