// Gradients of the element-wise ops of kernels/src/cwise_unary_ops.cpp and of Cumsum
// (TensorFlow's math_grad.py): Log1p, Expm1, Erf, Erfc, Tan, Atan, Asin, Acos, Sinh, Cosh,
// Asinh, Acosh, Atanh, Lgamma, Digamma, Erfinv, Ndtri, Polygamma, Zeta, Atan2, Xlogy, Xdivy
// and Cumsum; Ceil, Round, Rint and TruncateDiv have none. As
// math_grad.py, what reads the forward op's input waits for the incoming gradient
// (`with ops.control_dependencies([grad])`).
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/complex_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// `scalar op x` with the scalar a Const "<op>/x" (Python's `1 + x`, `1 - x`).
Output scalar_then(const char* type, double scalar, const Output& x, const char* name) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name);
  Output s;
  {
    auto scope = g.name_scope(op_name + "/");
    s = scalar_like(x, scalar, "x");
  }
  return binary(type, s, x, op_name + "/");
}

// grad * f(conj(x)) where f is built after the gradient arrives (conj: complex x only, as
// Python's math_ops.conj).
template <class F>
Grads times_after(const Operation& op, const Grads& g, F f) {
  Output factor;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    factor = f(conj(input(op, 0)));
  }
  return {binary("Mul", g[0], factor, "mul")};
}

// _Erf / _Erfc: grad * (+-2 / sqrt(pi)) * exp(-x^2).
Grads erf_grad(const Operation& op, const Grads& g, double sign) {
  const Output scale = scalar_like(g[0], sign * 2.0 / std::sqrt(std::numbers::pi), "Const");
  Output e;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    e = unary("Exp", unary("Neg", unary("Square", input(op, 0), "Square"), "Neg"), "Exp");
  }
  return {binary("Mul", binary("Mul", g[0], scale, "mul"), e, "mul_1")};
}

// _AsinGrad / _AcosGrad: +-grad / sqrt(1 - conj(x)^2).
Grads asin_grad(const Operation& op, const Grads& g, bool negate) {
  Output inv;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    const Output x2 = unary("Square", conj(input(op, 0)), "Square");
    const Output one = scalar_like(g[0], 1.0, "Const");
    inv = unary("Reciprocal", unary("Sqrt", binary("Sub", one, x2, "Sub"), "Sqrt"), "Reciprocal");
  }
  const Output grad = negate ? unary("Neg", g[0], "Neg") : g[0];
  return {binary("Mul", grad, inv, "mul")};
}

// _AsinhGrad / _AcoshGrad: grad / cosh(conj(y)) and grad / sinh(conj(y)), y the op's output.
Grads over_output_grad(const Operation& op, const Grads& g, const char* type) {
  Output d;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    d = unary(type, conj(op.output(0)), type);
  }
  return {binary("RealDiv", g[0], d, "truediv")};
}

// _ErfinvGrad / _NdtriGrad: grad * scale * exp(y^2 * factor), y the op's output (factor 1
// for Erfinv, 1/2 as `square(y) / 2.` for Ndtri).
Grads inverse_cdf_grad(const Operation& op, const Grads& g, double scale, bool halve) {
  const Output c = scalar_like(g[0], scale, "Const");
  Output e;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    Output y2 = unary("Square", op.output(0), "Square");
    if (halve) y2 = binary("RealDiv", y2, scalar_like(y2, 2.0, "truediv/y"), "truediv");
    e = unary("Exp", y2, "Exp");
  }
  return {binary("Mul", binary("Mul", g[0], c, "mul"), e, "mul_1")};
}

// _PolygammaGrad: none for a, grad * polygamma(a + 1, x) summed to x's shape.
// _ZetaGrad: none for x, grad * -x * zeta(x + 1, q) summed to q's shape.
Grads polygamma_zeta_grad(const Operation& op, const Grads& g, bool zeta) {
  const Output first = input(op, 0), second = input(op, 1);
  Output full;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    const Output plus_one = binary("AddV2", first, scalar_like(first, 1.0, "add/y"), "add");
    Output partial;
    if (zeta) {
      const Output z = binary("Zeta", plus_one, second, "Zeta");
      partial = binary("Mul", unary("Neg", first, "Neg"), z, "mul");
    } else {
      partial = binary("Polygamma", plus_one, second, "Polygamma");
    }
    full = binary("Mul", partial, g[0], zeta ? "mul_1" : "mul");
  }
  auto [none, reduced] = reduce_broadcast(op, Output(), full);
  return {Output(), reduced};
}

// _Atan2Grad: grad * x / (y^2 + x^2) to y, grad * -y / (y^2 + x^2) to x.
Grads atan2_grad(const Operation& op, const Grads& g) {
  const Output y = input(op, 0), x = input(op, 1);
  Output gy, gx;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    const Output denom =
        binary("AddV2", unary("Square", y, "Square"), unary("Square", x, "Square_1"), "add");
    const Output grad_inv = binary("RealDiv", g[0], denom, "truediv");
    gy = binary("Mul", x, grad_inv, "mul");
    gx = binary("Mul", unary("Neg", y, "Neg"), grad_inv, "mul_1");
  }
  auto [ry, rx] = reduce_broadcast(op, gy, gx);
  return {ry, rx};
}

// _XLogyGrad and _XDivyGrad: the partials times the gradient, reduced to each input.
Grads xlogy_xdivy_grad(const Operation& op, const Grads& g, bool divy) {
  Graph& gr = op.graph();
  const Output x = input(op, 0), y = input(op, 1);
  Output gx, gy;
  {
    auto deps = gr.control_dependencies({g[0].op()});
    const Output zero = scalar_like(x, 0.0, "Cast");
    const Output not_zero_x =
        cast(gr.create_op("NotEqual", {x, zero}, {{"T", x.dtype()}}, "NotEqual").output(0),
             x.dtype(), "Cast_1");
    Output partial_x, partial_y;
    if (divy) {
      partial_x = binary("Xdivy", not_zero_x, y, "Xdivy");
      const Output y2 = binary("Pow", y, scalar_like(y, 2.0, "pow/y"), "pow");
      partial_y = binary("Xdivy", unary("Neg", x, "Neg"), y2, "Xdivy_1");
    } else {
      partial_x = binary("Xlogy", not_zero_x, y, "Xlogy");
      partial_y = binary("Xdivy", x, y, "Xdivy");
    }
    gx = binary("Mul", partial_x, g[0], "mul");
    gy = binary("Mul", partial_y, g[0], "mul_1");
  }
  auto [rx, ry] = reduce_broadcast(op, gx, gy);
  return {rx, ry};
}

// _CumsumGrad: the cumulative sum of the gradient the other way.
Grads cumsum_grad(const Operation& op, const Grads& g) {
  const Output axis = input(op, 1);
  bool exclusive = false, reverse = false;
  if (auto v = op.node_def().attr<bool>("exclusive")) exclusive = *v;
  if (auto v = op.node_def().attr<bool>("reverse")) reverse = *v;
  return {op.graph()
              .create_op("Cumsum", {g[0], axis},
                         {{"T", g[0].dtype()},
                          {"Tidx", axis.dtype()},
                          {"exclusive", exclusive},
                          {"reverse", !reverse}},
                         "Cumsum")
              .output(0),
          Output()};
}

}  // namespace

void register_cwise_gradients(GradientRegistry& r) {
  r.add("Log1p", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [](const Output& x) {
      return unary("Reciprocal", scalar_then("AddV2", 1.0, x, "add"), "Reciprocal");
    });
  });
  r.add("Expm1", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [](const Output& x) { return unary("Exp", x, "Exp"); });
  });
  r.add("Sinh", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [](const Output& x) { return unary("Cosh", x, "Cosh"); });
  });
  r.add("Cosh", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [](const Output& x) { return unary("Sinh", x, "Sinh"); });
  });
  r.add("Tan", [](const Operation& op, const Grads& g) -> Grads {
    Output secx2;
    {
      auto deps = op.graph().control_dependencies({g[0].op()});
      secx2 = unary("Square",
                    unary("Reciprocal", unary("Cos", conj(input(op, 0)), "Cos"), "Reciprocal"),
                    "Square");
    }
    return {binary("Mul", secx2, g[0], "mul")};
  });
  r.add("Atan", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [&](const Output& x) {
      const Output x2 = unary("Square", x, "Square");
      const Output one = scalar_like(g[0], 1.0, "Const");
      return unary("Reciprocal", binary("AddV2", one, x2, "Add"), "Reciprocal");
    });
  });
  r.add("Asin", [](const Operation& op, const Grads& g) { return asin_grad(op, g, false); });
  r.add("Acos", [](const Operation& op, const Grads& g) { return asin_grad(op, g, true); });
  r.add("Asinh",
        [](const Operation& op, const Grads& g) { return over_output_grad(op, g, "Cosh"); });
  r.add("Acosh",
        [](const Operation& op, const Grads& g) { return over_output_grad(op, g, "Sinh"); });
  r.add("Atanh", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [&](const Output& x) {
      const Output x2 = unary("Square", x, "Square");
      const Output one = scalar_like(g[0], 1.0, "Const");
      return unary("Reciprocal", binary("Sub", one, x2, "Sub"), "Reciprocal");
    });
  });
  r.add("Lgamma", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [](const Output& x) { return unary("Digamma", x, "Digamma"); });
  });
  r.add("Digamma", [](const Operation& op, const Grads& g) {
    return times_after(op, g, [](const Output& x) {
      return binary("Polygamma", scalar_like(x, 1.0, "Const"), x, "Polygamma");
    });
  });
  r.add("Erfinv", [](const Operation& op, const Grads& g) {
    return inverse_cdf_grad(op, g, std::sqrt(std::numbers::pi) / 2.0, false);
  });
  r.add("Ndtri", [](const Operation& op, const Grads& g) {
    return inverse_cdf_grad(op, g, std::sqrt(2.0 * std::numbers::pi), true);
  });
  r.add("Polygamma",
        [](const Operation& op, const Grads& g) { return polygamma_zeta_grad(op, g, false); });
  r.add("Zeta",
        [](const Operation& op, const Grads& g) { return polygamma_zeta_grad(op, g, true); });
  r.add("Erf", [](const Operation& op, const Grads& g) { return erf_grad(op, g, 1.0); });
  r.add("Erfc", [](const Operation& op, const Grads& g) { return erf_grad(op, g, -1.0); });
  r.add("Atan2", atan2_grad);
  r.add("Xlogy",
        [](const Operation& op, const Grads& g) { return xlogy_xdivy_grad(op, g, false); });
  r.add("Xdivy", [](const Operation& op, const Grads& g) { return xlogy_xdivy_grad(op, g, true); });
  r.add("Cumsum", cumsum_grad);
  for (const char* type : {"Ceil", "Round", "Rint"})
    r.add(type, [](const Operation&, const Grads&) -> Grads { return {Output()}; });
  r.add("TruncateDiv", [](const Operation&, const Grads&) -> Grads {
    return {Output(), Output()};
  });
}

}  // namespace af::detail
