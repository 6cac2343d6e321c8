// Gradients of the colour ops (TensorFlow's image_grad.py and image_ops_impl.py): RGBToHSV's
// piecewise derivative (_RGBToHSVGrad), built of the same ops in the same order as Python's
// so the values match; HSVToRGB is not differentiable. AdjustContrastv2, AdjustHue and
// AdjustSaturation have no gradient in TensorFlow and none here.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;

// The graph pieces of _RGBToHSVGrad, all of the input's dtype.
class HsvGradBuilder {
 public:
  explicit HsvGradBuilder(Graph& g, DType t) : g_(g), t_(t) {}

  // `x[..., channel]`.
  Output channel(const Output& x, std::int64_t channel) const {
    return strided_slice(x, {0, channel}, {0, channel + 1}, {1, 1},
                         {.ellipsis_mask = 1, .shrink_axis_mask = 2});
  }
  // A scalar Const of the dtype (Python converting a number).
  Output scalar(double v) const {
    if (t_ == DType::float64) return g_.constant(Tensor(v), "Const");
    if (t_ == DType::bfloat16)
      return g_.constant(
          Tensor::from_vector(std::vector<bfloat16_t>{bfloat16_t(static_cast<float>(v))}, Shape{}),
          "Const");
    return g_.constant(Tensor(static_cast<float>(v)), "Const");
  }
  Output mul(const Output& a, const Output& b) const { return binary("Mul", a, b); }
  Output mul(const Output& a, double b) const { return binary("Mul", a, scalar(b)); }
  Output add(const Output& a, const Output& b) const { return binary("AddV2", a, b); }
  Output sub(const Output& a, const Output& b) const { return binary("Sub", a, b); }
  Output square(const Output& a) const { return unary("Square", a); }
  // _CustomReciprocal: div_no_nan(1, x).
  Output reciprocal(const Output& x) const { return binary("DivNoNan", scalar(1.0), x); }
  // cast(a OP1 b & c OP2 d, dtype).
  Output mask(const Output& cmp1, const Output& cmp2) const {
    return cast(logical_and(cmp1, cmp2), t_);
  }
  // cast(x > 0, dtype).
  Output positive(const Output& x) const { return cast(greater(x, scalar(0.0)), t_); }
  // 60 * (terms[0] * terms[1] * ...), left to right.
  Output sixty_times(const std::vector<Output>& terms) const {
    Output product = terms[0];
    for (std::size_t i = 1; i < terms.size(); ++i) product = mul(product, terms[i]);
    return binary("Mul", scalar(60.0), product);
  }
  Output minus_one() const { return scalar(-1.0); }

 private:
  Graph& g_;
  DType t_;
};

// _RGBToHSVGrad.
Grads rgb_to_hsv_grad(const Operation& op, const Grads& g) {
  Graph& graph = op.graph();
  const Output images = input(op, 0);
  const DType t = images.dtype();
  const HsvGradBuilder b(graph, t);
  const Output reds = b.channel(images, 0), greens = b.channel(images, 1),
               blues = b.channel(images, 2);
  const Output saturation = b.channel(op.output(0), 1), value = b.channel(op.output(0), 2);

  // Which channel is the largest and the smallest (ties: red, then green, then blue).
  const Output red_biggest = b.mask(greater_equal(reds, blues), greater_equal(reds, greens));
  const Output green_biggest = b.mask(greater(greens, reds), greater_equal(greens, blues));
  const Output blue_biggest = b.mask(greater(blues, reds), greater(blues, greens));
  const Output red_smallest = b.mask(less(reds, blues), less(reds, greens));
  const Output green_smallest = b.mask(less_equal(greens, reds), less(greens, blues));
  const Output blue_smallest = b.mask(less_equal(blues, reds), less_equal(blues, greens));

  const Output dv_dr = red_biggest, dv_dg = green_biggest, dv_db = blue_biggest;

  // Saturation: MIN / MAX^2 where the channel is MAX, -1 / MAX where it is MIN.
  auto ds = [&](const Output& x, const Output& x_big, const Output& x_small, const Output& y,
                const Output& y_big, const Output& y_small, const Output& z, const Output& z_big,
                const Output& z_small) {
    const Output when_max =
        b.mul(b.mul(x_big, b.add(b.mul(y_small, y), b.mul(z_small, z))), b.reciprocal(b.square(x)));
    const Output when_min =
        b.mul(b.mul(x_small, b.minus_one()), b.reciprocal(b.add(b.mul(y_big, y), b.mul(z_big, z))));
    return b.mul(b.positive(x), b.add(when_max, when_min));
  };
  const Output ds_dr = ds(reds, red_biggest, red_smallest, greens, green_biggest, green_smallest,
                          blues, blue_biggest, blue_smallest);
  const Output ds_dg = ds(greens, green_biggest, green_smallest, reds, red_biggest, red_smallest,
                          blues, blue_biggest, blue_smallest);
  const Output ds_db = ds(blues, blue_biggest, blue_smallest, greens, green_biggest, green_smallest,
                          reds, red_biggest, red_smallest);

  auto sat_val = [&](std::vector<Output> terms) {
    terms.push_back(b.reciprocal(b.square(saturation)));
    terms.push_back(b.reciprocal(b.square(value)));
    return b.sixty_times(terms);
  };
  auto sum5 = [&](const Output& a, const Output& c, const Output& d, const Output& e,
                  const Output& f) {
    return binary("RealDiv", b.add(b.add(b.add(b.add(a, c), d), e), f), b.scalar(360.0));
  };

  // Hue, case by case (image_grad.py's dh_dr_1 .. dh_db_5).
  const Output dh_dr =
      sum5(sat_val({b.positive(reds), red_biggest, b.minus_one(), b.sub(greens, blues)}),
           b.sixty_times({b.positive(greens), green_biggest, red_smallest, b.sub(blues, greens),
                          b.reciprocal(b.square(b.sub(reds, greens)))}),
           b.sixty_times({b.positive(greens), green_biggest, blue_smallest, b.minus_one(),
                          b.reciprocal(b.sub(greens, blues))}),
           b.sixty_times({b.positive(blues), blue_biggest, red_smallest, b.sub(blues, greens),
                          b.reciprocal(b.square(b.sub(blues, reds)))}),
           b.sixty_times({b.positive(blues), blue_biggest, green_smallest,
                          b.reciprocal(b.sub(blues, greens))}));
  const Output dh_dg =
      sum5(sat_val({b.positive(greens), green_biggest, b.minus_one(), b.sub(blues, reds)}),
           b.sixty_times({b.positive(reds), red_biggest, green_smallest, b.sub(reds, blues),
                          b.reciprocal(b.square(b.sub(reds, greens)))}),
           b.sixty_times(
               {b.positive(reds), red_biggest, blue_smallest, b.reciprocal(b.sub(reds, blues))}),
           b.sixty_times({b.positive(blues), blue_biggest, green_smallest, b.sub(reds, blues),
                          b.reciprocal(b.square(b.sub(blues, greens)))}),
           b.sixty_times({b.positive(blues), blue_biggest, red_smallest, b.minus_one(),
                          b.reciprocal(b.sub(blues, reds))}));
  const Output dh_db =
      sum5(sat_val({b.positive(blues), blue_biggest, b.minus_one(), b.sub(reds, greens)}),
           b.sixty_times({b.positive(reds), red_biggest, blue_smallest, b.sub(greens, reds),
                          b.reciprocal(b.square(b.sub(reds, blues)))}),
           b.sixty_times({b.positive(reds), red_biggest, green_smallest, b.minus_one(),
                          b.reciprocal(b.sub(reds, greens))}),
           b.sixty_times({b.positive(greens), green_biggest, blue_smallest, b.sub(greens, reds),
                          b.reciprocal(b.square(b.sub(greens, blues)))}),
           b.sixty_times({b.positive(greens), green_biggest, red_smallest,
                          b.reciprocal(b.sub(greens, reds))}));

  // Each output channel's gradient times its partial derivatives, stacked on the last axis.
  auto weighted = [&](std::int64_t channel, const Output& dr, const Output& dg, const Output& db) {
    return stack({b.mul(b.channel(g[0], channel), dr), b.mul(b.channel(g[0], channel), dg),
                  b.mul(b.channel(g[0], channel), db)},
                 -1);
  };
  const Output dv_drgb = weighted(2, dv_dr, dv_dg, dv_db);
  const Output ds_drgb = weighted(1, ds_dr, ds_dg, ds_db);
  const Output dh_drgb = weighted(0, dh_dr, dh_dg, dh_db);
  return {b.add(b.add(dv_drgb, ds_drgb), dh_drgb)};
}

}  // namespace

void register_image_color_gradients(GradientRegistry& r) {
  r.add("RGBToHSV", rgb_to_hsv_grad);
  r.add_not_differentiable("HSVToRGB");
}

}  // namespace af::detail
