// Gradients of the ops of ops/src/defs/math_special_ops.cpp, as TensorFlow's math_grad.py
// registers them: MulNoNan, Xlog1py, NextAfter, Igamma, Igammac, Betainc (to x only), the
// Bessel functions, Dawsn, Expint, FresnelCos, FresnelSin, Spence and EuclideanNorm.
// PopulationCount is not differentiable; IgammaGradA has no gradient (TensorFlow registers
// none, so differentiating through it fails as there). As math_grad.py, what reads the
// forward op's inputs or outputs waits for the incoming gradient (`with
// ops.control_dependencies([grad])`) where TensorFlow's function says so.
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/partition_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

Output times(const Output& x, const Output& y, const char* name = "mul") {
  return binary("Mul", x, y, name);
}
Output minus(const Output& x, const Output& y, const char* name = "sub") {
  return binary("Sub", x, y, name);
}
Output over(const Output& x, const Output& y, const char* name = "truediv") {
  return binary("RealDiv", x, y, name);
}
Output scalar_of(const Output& like, double value, const char* name = "Const") {
  return scalar_like(like, value, name);
}
// array_ops.where_v2(cond, t, e): op SelectV2, broadcasting a scalar branch.
Output select_v2(const Output& cond, const Output& t, const Output& e) {
  return cond.graph().create_op("SelectV2", {cond, t, e}, {{"T", t.dtype()}}, "SelectV2").output(0);
}

// grad * partial(x, y), the partial built after the gradient arrives (x the op's input, y its
// output).
template <class Partial>
Grads times_partial(const Operation& op, const Grads& g, Partial partial) {
  auto deps = op.graph().control_dependencies({g[0].op()});
  return {times(g[0], partial(input(op, 0), op.output(0)))};
}

// `full` summed over the axes BroadcastGradientArgs(shape(a), shape(x)) gives x and reshaped
// to x's shape (_BetaincGrad's reduction; Sum and Reshape skipped when static shapes show
// there is nothing to do).
Output sum_to_second(const Output& a, const Output& x, const Output& full) {
  Graph& g = x.graph();
  const PartialShape& pa = a.shape();
  const PartialShape& px = x.shape();
  if (pa.fully_defined() && px.fully_defined()) {
    std::vector<std::int64_t> ra, rx;
    throw_if_error(broadcast_reduction_axes(pa.dims(), px.dims(), &ra, &rx));
    const Output summed = rx.empty() ? full : sum_op(full, int_constant(g, rx, "Const"), false);
    if (summed.shape() == px) return summed;
    return reshape_op(summed, int_constant(g, px.dims(), "Const"));
  }
  const Output sa = shape_of(a, "Shape");
  const Output sx = shape_of(x, "Shape_1");
  Operation args = g.create_op("BroadcastGradientArgs", {sa, sx}, {{"T", DType::int32}},
                               "BroadcastGradientArgs");
  return reshape_op(sum_op(full, args.output(1), false), sx);
}

// _MulNoNanGrad: mul_no_nan(grad, y) to x, mul_no_nan(x, grad) to y.
Grads mul_no_nan_grad(const Operation& op, const Grads& g) {
  const Output x = input(op, 0), y = input(op, 1);
  const Output gx = binary("MulNoNan", g[0], y, "MulNoNan");
  const Output gy = binary("MulNoNan", x, g[0], "MulNoNan_1");
  auto [rx, ry] = reduce_broadcast(op, gx, gy);
  return {rx, ry};
}

// _XLog1pyGrad: xlog1py(x != 0, y) to x, xdivy(x, y + 1) to y.
Grads xlog1py_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0), y = input(op, 1);
  Output gx, gy;
  {
    auto deps = gr.control_dependencies({g[0].op()});
    const Output not_zero_x =
        cast(not_equal(x, scalar_of(x, 0.0, "Cast"), "NotEqual"), x.dtype(), "Cast_1");
    const Output partial_x = binary("Xlog1py", not_zero_x, y, "Xlog1py");
    const Output y1 = binary("AddV2", y, scalar_of(y, 1.0, "add/y"), "add");
    const Output partial_y = binary("Xdivy", x, y1, "Xdivy");
    gx = times(partial_x, g[0], "mul");
    gy = times(partial_y, g[0], "mul_1");
  }
  auto [rx, ry] = reduce_broadcast(op, gx, gy);
  return {rx, ry};
}

// _NextAfterGrad: ones(shape(x1)) * grad to x1, zeros(shape(x2)) * grad to x2.
Grads next_after_grad(const Operation& op, const Grads& g) {
  Output gx1, gx2;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    gx1 = times(unary("OnesLike", input(op, 0), "ones"), g[0], "mul");
    gx2 = times(unary("ZerosLike", input(op, 1), "zeros"), g[0], "mul_1");
  }
  auto [r1, r2] = reduce_broadcast(op, gx1, gx2);
  return {r1, r2};
}

// _IgammaGrad: IgammaGradA(a, x) to a, exp(-x + (a - 1) log(x) - lgamma(a)) to x (in log
// space, as TensorFlow: Gamma(a) grows large); _IgammacGrad negates both.
Grads igamma_grad(const Operation& op, const Grads& g, bool complement) {
  const Output a = input(op, 0), x = input(op, 1);
  Output ga, gx;
  {
    auto deps = op.graph().control_dependencies({g[0].op()});
    const Output partial_a = binary("IgammaGradA", a, x, "IgammaGradA");
    const Output a1 = minus(a, scalar_of(a, 1.0, "sub/y"), "sub");
    const Output exponent = minus(
        binary("AddV2", unary("Neg", x, "Neg"), times(a1, unary("Log", x, "Log"), "mul"), "add"),
        unary("Lgamma", a, "Lgamma"), "sub_1");
    const Output partial_x = unary("Exp", exponent, "Exp");
    ga = times(partial_a, g[0], "mul_1");
    gx = times(partial_x, g[0], "mul_2");
  }
  auto [ra, rx] = reduce_broadcast(op, ga, gx);
  if (!complement) return {ra, rx};
  return {unary("Neg", ra, "Neg_1"), unary("Neg", rx, "Neg_2")};
}

// _BetaincGrad: none to a and b; to x exp(xlog1py(b - 1, -x) + xlogy(a - 1, x) - log_beta)
// * grad with log_beta = lgamma(a) + lgamma(b) - lgamma(a + b), reduced over the axes
// BroadcastGradientArgs(shape(a), shape(x)) gives x.
Grads betainc_grad(const Operation& op, const Grads& g) {
  const Output a = input(op, 0), b = input(op, 1), x = input(op, 2);
  const Output log_beta =
      minus(binary("AddV2", unary("Lgamma", a, "Lgamma"), unary("Lgamma", b, "Lgamma_1"), "add"),
            unary("Lgamma", binary("AddV2", a, b, "add_1"), "Lgamma_2"), "sub");
  const Output b1 = minus(b, scalar_of(b, 1.0, "sub_1/y"), "sub_1");
  const Output a1 = minus(a, scalar_of(a, 1.0, "sub_2/y"), "sub_2");
  const Output exponent =
      minus(binary("AddV2", binary("Xlog1py", b1, unary("Neg", x, "Neg"), "Xlog1py"),
                   binary("Xlogy", a1, x, "Xlogy"), "add_2"),
            log_beta, "sub_3");
  const Output partial_x = unary("Exp", exponent, "Exp");
  return {Output(), Output(), sum_to_second(a, x, times(partial_x, g[0]))};
}

// The Bessel functions' partials (math_grad.py): `where` x == 0 gives the limit TensorFlow
// imputes for the quotients by x.
Output equal_to(const Output& x, double value) {
  return equal(x, scalar_of(x, value, "Equal/y"), "Equal");
}

// _EuclideanNormGrad: x / (y / grad), y and grad reshaped to the input's shape with the
// reduced dimensions 1 unless keep_dims kept them; none for the axes.
Grads euclidean_norm_grad(const Operation& op, const Grads& g) {
  Graph& gr = op.graph();
  const Output x = input(op, 0), axes = input(op, 1);
  Output y = op.output(0), grad = g[0];
  bool keep_dims = false;
  if (auto v = op.node_def().attr<bool>("keep_dims")) keep_dims = *v;
  if (!keep_dims) {
    // math_ops.reduced_shape: a Const when the shape and the axes are known while building,
    // else DynamicStitch(range(rank), axes mod rank; shape, ones) at run time.
    Output kept;
    const PartialShape& s = x.shape();
    const auto values = constant_ints(axes);
    if (s.fully_defined() && values) {
      std::vector<std::int64_t> dims = s.dims();
      const auto rank = static_cast<std::int64_t>(dims.size());
      for (auto a : *values)
        if (a >= -rank && a < rank) dims[static_cast<std::size_t>((a + rank) % rank)] = 1;
      kept = int_constant(gr, dims, "Const");
    } else {
      const Output shape = shape_of(x, "Shape");
      Output ax = axes.dtype() == DType::int32 ? axes : cast(axes, DType::int32, "Cast");
      const Output rank = size(shape, DType::int32, "Size");
      const Output wrapped = binary("FloorMod", binary("AddV2", ax, rank, "add"), rank, "mod");
      const Output ones = fill(shape_of(wrapped, "Shape_1"),
                               gr.constant(Tensor(std::int32_t{1}), "ones/Const"), "ones");
      kept = dynamic_stitch({range(rank, "range"), wrapped}, {shape, ones}, "DynamicStitch");
    }
    y = reshape_op(y, kept, "Reshape");
    grad = reshape_op(grad, kept, "Reshape_1");
  }
  return {over(x, over(y, grad, "truediv"), "truediv_1"), Output()};
}

}  // namespace

void register_math_special_gradients(GradientRegistry& r) {
  r.add("MulNoNan", mul_no_nan_grad);
  r.add("Xlog1py", xlog1py_grad);
  r.add("NextAfter", next_after_grad);
  r.add("Igamma", [](const Operation& op, const Grads& g) { return igamma_grad(op, g, false); });
  r.add("Igammac", [](const Operation& op, const Grads& g) { return igamma_grad(op, g, true); });
  r.add("Betainc", betainc_grad);
  r.add("EuclideanNorm", euclidean_norm_grad);
  r.add_not_differentiable("PopulationCount");

  // -- Bessel functions -------------------------------------------------------------------
  r.add("BesselI0", [](const Operation& op, const Grads& g) {
    return times_partial(
        op, g, [](const Output& x, const Output&) { return unary("BesselI1", x, "BesselI1"); });
  });
  r.add("BesselI0e", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      return minus(unary("BesselI1e", x, "BesselI1e"), times(unary("Sign", x, "Sign"), y));
    });
  });
  r.add("BesselI1", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      return select_v2(equal_to(x, 0.0), scalar_of(x, 1.0, "Cast"),
                       minus(unary("BesselI0", x, "BesselI0"), over(y, x, "div")));
    });
  });
  r.add("BesselI1e", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      const Output factor =
          binary("AddV2", unary("Sign", x, "Sign"), unary("Reciprocal", x, "Reciprocal"), "add");
      return select_v2(equal_to(x, 0.0), scalar_of(x, 0.5, "Cast"),
                       minus(unary("BesselI0e", x, "BesselI0e"), times(y, factor)));
    });
  });
  r.add("BesselK0", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output&) {
      return unary("Neg", unary("BesselK1", x, "BesselK1"), "Neg");
    });
  });
  r.add("BesselK0e", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      return minus(y, unary("BesselK1e", x, "BesselK1e"));
    });
  });
  r.add("BesselK1", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      // NaN at 0, where the derivative is undefined (as TensorFlow).
      return minus(unary("Neg", unary("BesselK0", x, "BesselK0"), "Neg"), over(y, x, "div"));
    });
  });
  r.add("BesselK1e", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      const Output one_minus =
          minus(scalar_of(x, 1.0, "sub/x"), unary("Reciprocal", x, "Reciprocal"));
      return minus(times(y, one_minus), unary("BesselK0e", x, "BesselK0e"), "sub_1");
    });
  });
  r.add("BesselJ0", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output&) {
      return unary("Neg", unary("BesselJ1", x, "BesselJ1"), "Neg");
    });
  });
  r.add("BesselJ1", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      return select_v2(equal_to(x, 0.0), scalar_of(x, 0.5, "Cast"),
                       minus(unary("BesselJ0", x, "BesselJ0"), over(y, x, "div")));
    });
  });
  r.add("BesselY0", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output&) {
      return unary("Neg", unary("BesselY1", x, "BesselY1"), "Neg");
    });
  });
  r.add("BesselY1", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      return minus(unary("BesselY0", x, "BesselY0"), over(y, x, "div"));
    });
  });

  // -- Dawson, Ei, Fresnel, Spence --------------------------------------------------------
  r.add("Dawsn", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output& y) {
      // 1 - 2 * x * y
      const Output two_x_y = times(times(scalar_of(x, 2.0, "mul/x"), x), y, "mul_1");
      return minus(scalar_of(x, 1.0, "sub/x"), two_x_y);
    });
  });
  r.add("Expint", [](const Operation& op, const Grads& g) -> Grads {
    // grad * exp(x) / x, left to right as Python evaluates it.
    auto deps = op.graph().control_dependencies({g[0].op()});
    const Output x = input(op, 0);
    return {over(times(g[0], unary("Exp", x, "Exp")), x)};
  });
  r.add("FresnelCos", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output&) {
      const Output arg =
          times(scalar_of(x, std::numbers::pi / 2.0, "mul/x"), unary("Square", x, "Square"), "mul");
      return unary("Cos", arg, "Cos");
    });
  });
  r.add("FresnelSin", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output&) {
      const Output arg =
          times(scalar_of(x, std::numbers::pi / 2.0, "mul/x"), unary("Square", x, "Square"), "mul");
      return unary("Sin", arg, "Sin");
    });
  });
  r.add("Spence", [](const Operation& op, const Grads& g) {
    return times_partial(op, g, [](const Output& x, const Output&) {
      // log(x) / (1 - x), and -1 where x == 1 (tf.compat.v1.where: op Select).
      const Output partial = over(unary("Log", x, "Log"), minus(scalar_of(x, 1.0, "sub/x"), x));
      const Output minus_one = unary("Neg", unary("OnesLike", x, "ones_like"), "Neg");
      return select(equal_to(x, 1.0), minus_one, partial, "Select");
    });
  });
}

}  // namespace af::detail
