#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Element-wise special functions, clipping, rolling, bitwise ops, unique values, bin counts
/// and integer / categorical sampling (TensorFlow's math_ops, bitwise_ops, manip_ops,
/// array_ops and random_ops of the same names). Errors at build time throw
/// InvalidArgumentError with TensorFlow's shape-function message; at run time the step fails
/// with the kernel's message, the node named.
namespace af {

// -- unary special functions (float types) ----------------------------------------------------

/// `tf.math.asinh`: op Asinh (float32, float64, bfloat16). Gradient grad / cosh(y).
Output asinh(const Output& x, std::string_view name = {});
/// `tf.math.acosh`: op Acosh; NaN below 1. Gradient grad / sinh(y).
Output acosh(const Output& x, std::string_view name = {});
/// `tf.math.atanh`: op Atanh; +-inf at +-1, NaN beyond. Gradient grad / (1 - x^2).
Output atanh(const Output& x, std::string_view name = {});
/// `tf.math.lgamma`: op Lgamma (float32, float64), log |Gamma(x)|; +inf at 0 and the negative
/// integers. Gradient grad * digamma(x).
Output lgamma(const Output& x, std::string_view name = {});
/// `tf.math.digamma`: op Digamma (float32, float64); NaN at 0 and the negative integers.
/// Gradient grad * polygamma(1, x).
Output digamma(const Output& x, std::string_view name = {});
/// `tf.math.erfinv`: op Erfinv (float32, float64), ndtri((x + 1) / 2) / sqrt(2); +-inf at
/// +-1, NaN beyond. Gradient grad * sqrt(pi) / 2 * exp(y^2).
Output erfinv(const Output& x, std::string_view name = {});
/// `tf.math.ndtri`: op Ndtri (float32, float64), the standard normal quantile; -inf at 0,
/// +inf at 1, NaN outside [0, 1]. Gradient grad * sqrt(2 pi) * exp(y^2 / 2).
Output ndtri(const Output& x, std::string_view name = {});
/// `tf.math.polygamma(a, x)`: op Polygamma (float32, float64, broadcasting), the a-th
/// derivative of digamma; NaN unless `a` is a nonnegative integer. Gradient to `x` only:
/// grad * polygamma(a + 1, x).
Output polygamma(const Output& a, const Output& x, std::string_view name = {});
/// `tf.math.zeta(x, q)`: op Zeta (float32, float64, broadcasting), the Hurwitz zeta
/// function. Gradient to `q` only: grad * -x * zeta(x + 1, q).
Output zeta(const Output& x, const Output& q, std::string_view name = {});

// -- clipping, comparison, sequences ----------------------------------------------------------

/// Op ClipByValue (default name "clip_by_value"): max(min(t, clip_value_max),
/// clip_value_min) per element; each bound a scalar or of `t`'s shape (other shapes fail when
/// running: "clip_value_min and clip_value_max must be either of the same shape as input, or
/// a scalar. ..."). Real types. Python's `tf.clip_by_value` builds Minimum and Maximum
/// instead; this is the fused op TensorFlow graphs also hold. Gradient as clip_ops.py:
/// grad where min <= t <= max, to the bounds where t is below / above them (summed to their
/// shapes).
Output clip_by_value(const Output& t, const Output& clip_value_min, const Output& clip_value_max,
                     std::string_view name = {});

/// `tf.math.approximate_equal`: op ApproximateEqual, a bool tensor: |x - y| < tolerance.
/// `x` and `y` float32 or float64 of one shape (no broadcasting; "x and y must be of the same
/// shape. ..."). Not differentiable.
Output approximate_equal(const Output& x, const Output& y, float tolerance = 1e-5f,
                         std::string_view name = {});

/// `tf.roll`: op Roll (default name "Roll"), `input` (rank >= 1, any type) shifted by
/// `shift[i]` along `axis[i]` with wrap-around; shifts of a repeated axis add up. `shift` and
/// `axis` int32/int64 scalars or vectors of one length. Errors: "axis 3 is out of range".
/// Gradient: Roll of the gradient by -shift.
Output roll(const Output& input, const Output& shift, const Output& axis,
            std::string_view name = {});
/// `roll` with the shifts and axes as int32 Consts "<op>/shift" and "<op>/axis" (vectors).
Output roll(const Output& input, const std::vector<std::int64_t>& shift,
            const std::vector<std::int64_t>& axis, std::string_view name = {});

/// `tf.raw_ops.LinSpace` (TF 1.x's `tf.lin_space`): op LinSpace, `num` values from `start` to
/// `stop` (float32/float64 scalars), the last exactly `stop`; `num` int32/int64 > 0
/// ("Requires num > 0: 0"). Not differentiable.
Output lin_space(const Output& start, const Output& stop, const Output& num,
                 std::string_view name = {});
/// `lin_space` of Consts "<op>/start", "<op>/stop" (of `dtype`) and "<op>/num" (int32).
Output lin_space(Graph& g, double start, double stop, std::int64_t num,
                 DType dtype = DType::float32, std::string_view name = {});

/// `tf.linalg.cross`: op Cross, the cross products of the 3-vectors along the last
/// dimension of `a` and `b` (one shape, real types). A last dimension other than 3 fails
/// ("Dimension must be 3 but is 2" building, FailedPrecondition "Cross-products are only
/// defined for 3-element vectors." running). Gradient (cross(b, g), cross(g, a)).
Output cross(const Output& a, const Output& b, std::string_view name = {});

// -- bitwise ops (int32, int64, uint8; broadcasting; not differentiable) ----------------------

/// `tf.bitwise.bitwise_and`: op BitwiseAnd.
Output bitwise_and(const Output& x, const Output& y, std::string_view name = {});
/// `tf.bitwise.bitwise_or`: op BitwiseOr.
Output bitwise_or(const Output& x, const Output& y, std::string_view name = {});
/// `tf.bitwise.bitwise_xor`: op BitwiseXor.
Output bitwise_xor(const Output& x, const Output& y, std::string_view name = {});
/// `tf.bitwise.invert`: op Invert, ~x.
Output invert(const Output& x, std::string_view name = {});
/// `tf.bitwise.left_shift`: op LeftShift, x << y with y clamped to [0, bits - 1] (so a
/// negative shift is none and 1 << 32 in int32 is INT_MIN), the bits shifted out dropped.
Output left_shift(const Output& x, const Output& y, std::string_view name = {});
/// `tf.bitwise.right_shift`: op RightShift, x >> y with y clamped to [0, bits - 1];
/// arithmetic for signed types (-8 >> 40 is -1).
Output right_shift(const Output& x, const Output& y, std::string_view name = {});

// -- unique values and bin counts (not differentiable) -----------------------------------------

/// What `unique_with_counts` and `unique_with_counts_v2` return.
struct UniqueWithCountsOutputs {
  Output y;      ///< the distinct values (slices) in order of first occurrence
  Output idx;    ///< for each element (slice) of x, its position in y
  Output count;  ///< how often each of y occurs
};

/// What `unique_v2` returns.
struct UniqueOutputs {
  Output y;    ///< the distinct values (slices) in order of first occurrence
  Output idx;  ///< for each element (slice) of x, its position in y
};

/// `tf.unique_with_counts`: op UniqueWithCounts (default name "UniqueWithCounts") of a vector
/// `x` (any value type; NaN never equals itself, 0 equals -0); `out_idx` int32 or int64.
/// Another rank fails: "Shape must be rank 1 but is rank 2" building, "unique expects a 1D
/// vector." running.
UniqueWithCountsOutputs unique_with_counts(const Output& x, DType out_idx = DType::int32,
                                           std::string_view name = {});
/// Op UniqueV2: the distinct slices of `x` along `axis` (one axis, negative from the back; an
/// empty list takes a vector `x` element by element), `axis` the int64 Const "<op>/axis".
/// Errors: "axis has to be between [0, 2)", "axis does not support input tensors larger than
/// 1 elements".
UniqueOutputs unique_v2(const Output& x, const std::vector<std::int64_t>& axis,
                        DType out_idx = DType::int32, std::string_view name = {});
/// Op UniqueWithCountsV2: `unique_v2` with the counts.
UniqueWithCountsOutputs unique_with_counts_v2(const Output& x,
                                              const std::vector<std::int64_t>& axis,
                                              DType out_idx = DType::int32,
                                              std::string_view name = {});

/// Op Bincount (`tf.raw_ops.Bincount`; Python's `tf.math.bincount` wraps it in a size
/// computation): the counts of the int32 values of `arr` in [0, size) (larger ones dropped),
/// or the sums of their `weights` (same element count as arr, or empty for counts; float32,
/// float64, int32, int64). `size` an int32 scalar. Errors: "Input arr must be
/// non-negative!", "size (-1) must be non-negative", "Input indices and weights must have the
/// same size.".
Output bincount(const Output& arr, const Output& size, const Output& weights,
                std::string_view name = {});
/// Op DenseBincount: Bincount of a vector to [size] or of each row of a matrix to
/// [rows, size], `input` and `size` int32 or int64, `weights` of input's shape or empty; with
/// `binary_output` a bin holds 1 once hit. Rank above 2 fails: "Shape must be at most rank 2
/// but is rank 3".
Output dense_bincount(const Output& input, const Output& size, const Output& weights,
                      bool binary_output = false, std::string_view name = {});

// -- sampling (stateful; values follow TensorFlow's Philox streams) ---------------------------

/// TF 1.x's `tf.random_uniform` for an integer `dtype` (int32, int64): consts
/// "<scope>/shape", "<scope>/min", "<scope>/max" and op RandomUniformInt named after the scope
/// ("random_uniform"), integers in [minval, maxval), seeded as `tf.get_seed(seed)`. For seeds
/// other than (0, 0) the values are TensorFlow's bit for bit, run after run. minval >=
/// maxval fails when running ("Need minval < maxval, got 5 >= 5") unless the shape is empty.
Output random_uniform_int(Graph& g, const Shape& shape, std::int64_t minval, std::int64_t maxval,
                          DType dtype = DType::int32, std::optional<std::int64_t> seed = {},
                          std::string_view name = {});

/// TF 1.x's `tf.multinomial(logits, num_samples)`: op Multinomial under the scope
/// "multinomial" (num_samples the int32 Const "multinomial/Multinomial/num_samples"), `num_samples`
/// class indices (`output_dtype` int32 or int64) per row of `logits` [batch, classes]
/// (float32, float64, bfloat16); classes with non-finite logits are never drawn. The values
/// are TensorFlow's for a batch its CPU kernel does not shard (batch * 50 * (num_samples *
/// log2(classes) + classes) < 10000); beyond that TensorFlow's depend on its thread count.
Output multinomial(const Output& logits, std::int64_t num_samples,
                   std::optional<std::int64_t> seed = {}, DType output_dtype = DType::int64,
                   std::string_view name = {});

}  // namespace af
