// Gradients of CumulativeLogsumexp (TensorFlow's math_grad.py), the FakeQuantWithMinMax*
// ops (array_ops.py: their *Gradient ops), EnsureShape (check_ops.py), Print
// (logging_ops.py) and Snapshot; Bucketize, HistogramFixedWidth, BroadcastArgs, PrintV2 and
// the FakeQuant*Gradient ops have none.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/misc_array_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// Python's `op(x, scalar)` with the scalar converted under the op's scope as "<op>/<arg>".
Output with_scalar(const char* type, const Output& x, double scalar, const char* name,
                   const char* arg) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name);
  Output s;
  {
    auto scope = g.name_scope(op_name + "/");
    s = scalar_like(x, scalar, arg);
  }
  return binary(type, x, s, op_name + "/");
}

// array_ops.where_v2(condition, x, scalar): SelectV2 with `e` the Const "<op>/e".
Output where_scalar(const Output& condition, const Output& x, double scalar) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name("SelectV2");
  Output e;
  {
    auto scope = g.name_scope(op_name + "/");
    e = scalar_like(x, scalar, "e");
  }
  return g.create_op("SelectV2", {condition, x, e}, {{"T", x.dtype()}}, op_name + "/").output(0);
}

// The lowest finite value of `t` (Python's dtype.min).
double lowest_of(DType t) {
  switch (t) {
    case DType::float64:
      return std::numeric_limits<double>::lowest();
    case DType::bfloat16:
      return -3.3895313892515355e38;  // -0x1.fep127
    default:
      return std::numeric_limits<float>::lowest();
  }
}

// _CumulativeLogsumexpGrad: the incoming gradient split into its positive and negative parts
// (dtype.min where a part is absent), each scanned the other way in log space against the
// forward output, then exp(. + x), positive minus negative.
Grads cumulative_logsumexp_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), axis = input(op, 1), out = op.output(0), grad = g[0];
  bool exclusive = false, reverse = false;
  if (auto v = op.node_def().attr<bool>("exclusive")) exclusive = *v;
  if (auto v = op.node_def().attr<bool>("reverse")) reverse = *v;
  const double lowest = lowest_of(grad.dtype());
  const Output log_grad_positive = where_scalar(with_scalar("Greater", grad, 0.0, "Greater", "y"),
                                                unary("Log", grad, "Log"), lowest);
  const Output log_grad_negative =
      where_scalar(with_scalar("Less", grad, 0.0, "Less", "y"),
                   unary("Log", unary("Neg", grad, "Neg"), "Log_1"), lowest);
  auto part = [&](const Output& log_grad, const char* sub_name, const char* add_name,
                  const char* exp_name) {
    const Output scanned =
        op.graph()
            .create_op("CumulativeLogsumexp", {binary("Sub", log_grad, out, sub_name), axis},
                       {{"T", grad.dtype()},
                        {"Tidx", axis.dtype()},
                        {"exclusive", exclusive},
                        {"reverse", !reverse}},
                       "CumulativeLogsumexp")
            .output(0);
    return unary("Exp", binary("AddV2", scanned, x, add_name), exp_name);
  };
  const Output output_pos = part(log_grad_positive, "sub", "add", "Exp");
  const Output output_neg = part(log_grad_negative, "sub_1", "add_1", "Exp_1");
  return {binary("Sub", output_pos, output_neg, "sub_2"), Output()};
}

std::int64_t num_bits_of(const Operation& op) {
  auto v = op.node_def().attr<std::int64_t>("num_bits");
  return v ? *v : 8;
}

bool narrow_range_of(const Operation& op) {
  auto v = op.node_def().attr<bool>("narrow_range");
  return v && *v;
}

}  // namespace

void register_misc_array_gradients(GradientRegistry& r) {
  r.add("CumulativeLogsumexp", cumulative_logsumexp_grad);
  // _FakeQuantWithMinMaxArgsGradient: the *Gradient op on the forward op's input and attrs.
  r.add("FakeQuantWithMinMaxArgs", [](const Operation& op, const Grads& g) -> Grads {
    auto min = op.node_def().attr<float>("min");
    auto max = op.node_def().attr<float>("max");
    return {fake_quant_with_min_max_args_gradient(
        g[0], input(op, 0), min ? *min : -6.0f, max ? *max : 6.0f, num_bits_of(op),
        narrow_range_of(op), "FakeQuantWithMinMaxArgsGradient")};
  });
  r.add("FakeQuantWithMinMaxVars", [](const Operation& op, const Grads& g) -> Grads {
    const FakeQuantGradients d = fake_quant_with_min_max_vars_gradient(
        g[0], input(op, 0), input(op, 1), input(op, 2), num_bits_of(op), narrow_range_of(op),
        "FakeQuantWithMinMaxVarsGradient");
    return {d.backprops_wrt_input, d.backprop_wrt_min, d.backprop_wrt_max};
  });
  r.add("FakeQuantWithMinMaxVarsPerChannel", [](const Operation& op, const Grads& g) -> Grads {
    const FakeQuantGradients d = fake_quant_with_min_max_vars_per_channel_gradient(
        g[0], input(op, 0), input(op, 1), input(op, 2), num_bits_of(op), narrow_range_of(op),
        "FakeQuantWithMinMaxVarsPerChannelGradient");
    return {d.backprops_wrt_input, d.backprop_wrt_min, d.backprop_wrt_max};
  });
  // _ensure_shape_grad: the gradient itself. Snapshot the same (TensorFlow registers none).
  r.add("EnsureShape", [](const Operation&, const Grads& g) -> Grads { return {g[0]}; });
  r.add("Snapshot", [](const Operation&, const Grads& g) -> Grads { return {g[0]}; });
  // _PrintGrad: input 0 gets the output's gradient, the data inputs none.
  r.add("Print", [](const Operation& op, const Grads& g) -> Grads {
    Grads out(op.node()->inputs().size());
    out[0] = g[0];
    return out;
  });
  for (const char* type : {"FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVarsGradient",
                           "FakeQuantWithMinMaxVarsPerChannelGradient", "Bucketize",
                           "HistogramFixedWidth", "BroadcastArgs", "PrintV2", "Timestamp"})
    r.add_not_differentiable(type);
}

}  // namespace af::detail
