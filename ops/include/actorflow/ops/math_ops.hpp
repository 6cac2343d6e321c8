#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"

/// Graph-building functions for TensorFlow 1.x's element-wise math, comparisons, Select,
/// AddN, ArgMax / ArgMin, the Prod and Min reductions, L2Loss and CheckNumerics (the ops that
/// training and its gradients need; Add, Sub, Mul, ... are in ops.hpp).
///
/// Each creates a node in the graph of its first input and throws InvalidArgumentError when
/// type or shape inference rejects the inputs: mismatched dtypes as TensorFlow's
/// op_def_library words it ("Input 'y' of 'Maximum' Op has type int32 that does not match
/// type float32 of argument 'x'."), other errors followed by " for '<node>' (op: '<Op>') with
/// input shapes: [2], [3]." Errors known only when running fail the step with
/// InvalidArgument naming the node. Default names follow TensorFlow's Python API.
///
/// Element types (TensorFlow's CPU kernels within actorflow's dtypes): "float types" are
/// float32, float64 and bfloat16 (bfloat16 computed in float and rounded once); "real types"
/// add int32 and int64; "numeric types" add uint8 too. Binary ops broadcast as NumPy does.
namespace af {

// -- unary math ---------------------------------------------------------------------------

/// `tf.square`: op Square, x * x (real types; integers wrap around).
Output square(const Output& x, std::string_view name = {});
/// `tf.sqrt`: op Sqrt (float types); sqrt(-1) is NaN.
Output sqrt(const Output& x, std::string_view name = {});
/// `tf.rsqrt`: op Rsqrt, 1 / sqrt(x) (float types) with Eigen's vectorised rsqrt, as
/// TensorFlow; rsqrt(0) is inf.
Output rsqrt(const Output& x, std::string_view name = {});
/// `tf.exp`: op Exp (float types).
Output exp(const Output& x, std::string_view name = {});
/// `tf.log`: op Log, the natural logarithm (float types); log(0) is -inf, log(-1) NaN.
Output log(const Output& x, std::string_view name = {});
/// `tf.reciprocal`: op Reciprocal, 1 / x (float types); reciprocal(0) is inf.
Output reciprocal(const Output& x, std::string_view name = {});
/// `tf.abs`: op Abs (real types); the most negative integer stays itself.
Output abs(const Output& x, std::string_view name = {});
/// `tf.sign`: op Sign, -1, 0 or 1 (real types); sign(0) = sign(-0.0) = 0, sign(NaN) = 0.
Output sign(const Output& x, std::string_view name = {});
/// `tf.floor`: op Floor (float types).
Output floor(const Output& x, std::string_view name = {});

// -- gradients of unary math (used by gradient functions) ---------------------------------

/// Op SqrtGrad (default name "SqrtGrad"): `dy * 0.5 / y` where `y = sqrt(x)`. Float types;
/// `y` and `dy` of one dtype and of equal element counts (the output takes `y`'s shape);
/// otherwise running fails with InvalidArgument "The two arguments to a cwise op must have
/// same number of elements, got 2 and 3".
Output sqrt_grad(const Output& y, const Output& dy, std::string_view name = {});
/// Op RsqrtGrad (default name "RsqrtGrad"): `dy * -0.5 * y^3` where `y = rsqrt(x)`; as
/// `sqrt_grad` otherwise.
Output rsqrt_grad(const Output& y, const Output& dy, std::string_view name = {});
/// Op ReciprocalGrad (default name "ReciprocalGrad"): `-dy * y * y` where `y = 1 / x`; as
/// `sqrt_grad` otherwise.
Output reciprocal_grad(const Output& y, const Output& dy, std::string_view name = {});

// -- binary math --------------------------------------------------------------------------

/// `tf.pow`: op Pow, x^y (real types). Integer powers multiply with wrap-around; a negative
/// integer exponent fails the step with InvalidArgument "Integers to negative integer powers
/// are not allowed".
Output pow(const Output& x, const Output& y, std::string_view name = {});
/// `tf.maximum`: op Maximum, x > y ? x : y (real types; a NaN in `x` propagates, as
/// std::max).
Output maximum(const Output& x, const Output& y, std::string_view name = {});
/// `tf.minimum`: op Minimum, x < y ? x : y (real types).
Output minimum(const Output& x, const Output& y, std::string_view name = {});
/// `tf.floordiv`: op FloorDiv (default name "floordiv"), floor(x / y): rounds toward -inf for
/// integers (numeric types) too. An integer zero divisor fails the step with InvalidArgument
/// "Integer division by zero".
Output floordiv(const Output& x, const Output& y, std::string_view name = {});
/// `tf.floormod`: op FloorMod (default name "FloorMod"), the remainder of `floordiv` with
/// the divisor's sign, as Python's `%`: floormod(-7, 3) = 2, floormod(7, -3) = -2 (real
/// types; floats through fmod). An integer zero divisor fails the step as `floordiv`.
Output floormod(const Output& x, const Output& y, std::string_view name = {});
/// `tf.squared_difference`: op SquaredDifference, (x - y)^2 (real types).
Output squared_difference(const Output& x, const Output& y, std::string_view name = {});

// -- comparisons and logic ----------------------------------------------------------------

/// `tf.equal`: op Equal, x == y as a bool tensor of the broadcast shape (numeric types, bool
/// and string; NaN equals nothing).
Output equal(const Output& x, const Output& y, std::string_view name = {});
/// `tf.not_equal`: op NotEqual, x != y; the types of `equal`.
Output not_equal(const Output& x, const Output& y, std::string_view name = {});
/// `tf.less`: op Less, x < y as a bool tensor of the broadcast shape (numeric types).
Output less(const Output& x, const Output& y, std::string_view name = {});
/// `tf.less_equal`: op LessEqual, x <= y; as `less`.
Output less_equal(const Output& x, const Output& y, std::string_view name = {});
/// `tf.greater`: op Greater, x > y; as `less`.
Output greater(const Output& x, const Output& y, std::string_view name = {});
/// `tf.greater_equal`: op GreaterEqual, x >= y; as `less`.
Output greater_equal(const Output& x, const Output& y, std::string_view name = {});
/// `tf.logical_not`: op LogicalNot of a bool tensor. Throws InvalidArgumentError ("Input 'x'
/// of 'LogicalNot' Op has type float32 that does not match expected type of bool.") for
/// another dtype; likewise `logical_and` and `logical_or`.
Output logical_not(const Output& x, std::string_view name = {});
/// `tf.where(condition)` with one argument: op Where, the int64 coordinates [num_true, rank]
/// of the true (nonzero) elements of a boolean or numeric tensor, in row-major order.
Output where(const Output& condition, std::string_view name = {});
/// `tf.boolean_mask(tensor, mask)` for a 1-D mask: the rows of `tensor` where `mask` is true
/// (Where, Squeeze and GatherV2 under the name scope "boolean_mask").
Output boolean_mask(const Output& tensor, const Output& mask, std::string_view name = {});
/// `tf.logical_and`: op LogicalAnd of bool tensors, with broadcasting.
Output logical_and(const Output& x, const Output& y, std::string_view name = {});
/// `tf.logical_or`: op LogicalOr of bool tensors, with broadcasting.
Output logical_or(const Output& x, const Output& y, std::string_view name = {});

/// TensorFlow 1.x's `tf.where(condition, x, y)`: op Select (default name "Select"). `t` and
/// `e` have one dtype (any) and one shape. A scalar `condition` picks `t` or `e` whole; a
/// vector `condition` with `t` of rank > 1 picks rows (its length must equal `t`'s first
/// dimension); otherwise `condition` must have `t`'s shape and picks element by element.
/// Violations known while building throw InvalidArgumentError; at run time they fail the step
/// with TensorFlow's messages ("Number of batches of 'then' must match size of 'cond', but
/// saw: 3 vs. 2", "Inputs to operation Select of type Select must have the same size and
/// shape.  Input 0: [2] != input 1: [3]").
Output select(const Output& condition, const Output& t, const Output& e,
              std::string_view name = {});
/// Same as `select` (TensorFlow 1.x's `tf.where` with `x` and `y`).
Output where(const Output& condition, const Output& x, const Output& y, std::string_view name = {});

// -- aggregation, arg reductions, reductions ----------------------------------------------

/// `tf.add_n`: op AddN (attrs N and T; default name "AddN"), the element-wise sum of inputs
/// of one dtype (numeric types) and one shape, without broadcasting. As TensorFlow, a single
/// input is returned itself (an Identity named `name` when a name is given). Throws
/// InvalidArgumentError for an empty list, mixed dtypes ("Tensors in list passed to 'inputs'
/// of 'AddN' Op have types [float32, int32] that don't all match.") or static shapes that do
/// not merge; unequal shapes at run time fail the step with "Inputs to operation AddN of type
/// AddN must have the same size and shape.  Input 0: [2] != input 1: [3]".
Output add_n(const std::vector<Output>& inputs, std::string_view name = {});

/// `tf.argmax(input, axis, output_type=tf.int64)`: op ArgMax (default name "ArgMax"), the
/// index of the largest value along `axis` (negative counts from the end); ties give the
/// first index. The axis becomes an int32 Const "<op>/dimension" (int64 when it does not fit).
/// `output_type` is int32 or int64; `input` of numeric types. An out-of-range axis throws
/// InvalidArgumentError when the input's rank is known (> 1), else fails the step
/// ("Expected dimension in the range [-2, 2), but got 2"); an empty axis fails the step with
/// "Reduction axis 1 is empty in shape [2,0]".
Output argmax(const Output& input, std::int64_t axis = 0, DType output_type = DType::int64,
              std::string_view name = {});
/// `tf.argmax` with the axis a scalar int32 / int64 tensor (attr Tidx its dtype).
Output argmax(const Output& input, const Output& axis, DType output_type = DType::int64,
              std::string_view name = {});
/// `tf.argmin`: op ArgMin (default name "ArgMin"), the index of the smallest value; as
/// `argmax` otherwise.
Output argmin(const Output& input, std::int64_t axis = 0, DType output_type = DType::int64,
              std::string_view name = {});
/// `tf.argmin` with the axis a scalar int32 / int64 tensor (attr Tidx its dtype).
Output argmin(const Output& input, const Output& axis, DType output_type = DType::int64,
              std::string_view name = {});

/// `tf.reduce_prod`: op Prod, laid out as `reduce_sum` (ops.hpp): absent `axes` reduces all
/// dimensions (a Const "Const" of range(rank) beside the op; throws InvalidArgumentError when
/// the rank is unknown), explicit axes become the Const "<op>/reduction_indices". Numeric
/// types; integer products wrap around; a product of no values is 1.
Output reduce_prod(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                   bool keep_dims = false, std::string_view name = {});
/// `tf.reduce_min`: op Min, laid out as `reduce_prod`; the minimum of no values is the
/// dtype's highest value.
Output reduce_min(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                  bool keep_dims = false, std::string_view name = {});

/// `tf.nn.l2_loss`: op L2Loss (default name "L2Loss"), sum(t^2) / 2 as a scalar (float
/// types).
Output l2_loss(const Output& t, std::string_view name = {});

/// `tf.check_numerics`: op CheckNumerics (default name "CheckNumerics") passing `tensor`
/// (float types) through unchanged. Running it fails the step with InvalidArgument
/// "<message> : Tensor had NaN values" (or "Inf values", "Inf and NaN values") when an
/// element is not finite.
Output check_numerics(const Output& tensor, const std::string& message, std::string_view name = {});

/// `tf.Assert`: op Assert, which fails the step with InvalidArgument "assertion failed:
/// [d0] [d1] ..." when the bool scalar `condition` is false, each of `data` shown by its
/// first `summarize` elements. Run it as a target or a control dependency.
Operation assert_that(const Output& condition, const std::vector<Output>& data,
                      std::int64_t summarize = 3, std::string_view name = {});

/// `tf.add_check_numerics_ops`: a CheckNumerics (message "<op name>:<output index>") on every
/// float output of every op in `g` so far (reference outputs excluded), chained by control
/// dependencies in creation order, grouped into one NoOp "CheckNumerics" (made unique) that
/// is returned. Running it fails the step with InvalidArgument naming the first op whose
/// output holds a NaN or an Inf.
Operation add_check_numerics_ops(Graph& g);

/// `tf.unsorted_segment_sum`: op UnsortedSegmentSum (default name "UnsortedSegmentSum"),
/// output[j, ...] = the sum of the `data[i..., ...]` whose `segment_ids[i...]` is j, for j in
/// [0, num_segments); rows no id names are 0. `segment_ids` (int32 or int64) has a prefix of
/// `data`'s shape; the output shape is [num_segments] + data.shape[rank(segment_ids):].
/// float32, float64, int32 and int64 on the CPU. Negative ids drop their row, as TensorFlow's
/// CPU kernel does. Mismatched prefixes throw while building ("Dimensions must be equal, but
/// are 1 and 2"); running fails with InvalidArgument "segment_ids[1] = 2 is out of range [0,
/// 2)", "data.shape = [3,2] does not start with segment_ids.shape = [2]", "Input
/// num_segments == -1 must not be negative." or "num_segments should be a scalar, not shape
/// [1]".
Output unsorted_segment_sum(const Output& data, const Output& segment_ids,
                            const Output& num_segments, std::string_view name = {});
/// `tf.unsorted_segment_sum` with `num_segments` as the Const "<op>/num_segments".
Output unsorted_segment_sum(const Output& data, const Output& segment_ids,
                            std::int64_t num_segments, std::string_view name = {});

/// `tf.cumprod`: op Cumprod (default name "Cumprod", the axis the Const "<op>/axis"), the
/// running product of `x` along `axis` (negative counts from the end); `exclusive` leaves
/// each element out of its own product (the first is 1), `reverse` runs from the end.
/// float32, float64, int32 and int64 on the CPU. Running fails with InvalidArgument
/// "ScanOp: Expected scan axis in the range [-2, 2), but got 2" for an axis out of range.
Output cumprod(const Output& x, std::int64_t axis = 0, bool exclusive = false, bool reverse = false,
               std::string_view name = {});

// -- more element-wise math (TensorFlow's cwise ops; kernels/src/cwise_unary_ops.cpp) ------

/// `tf.math.log1p`: op Log1p, log(1 + x), exact near 0 (float types); log1p(-1) is -inf.
Output log1p(const Output& x, std::string_view name = {});
/// `tf.math.expm1`: op Expm1, exp(x) - 1, exact near 0 (float types).
Output expm1(const Output& x, std::string_view name = {});
/// `tf.math.ceil`: op Ceil (float types); no gradient, as TensorFlow.
Output ceil(const Output& x, std::string_view name = {});
/// `tf.math.round`: op Round, to the nearest integer with halves to even (round(2.5) = 2,
/// round(-0.5) = -0); float types, and int32 and int64 unchanged. No gradient.
Output round(const Output& x, std::string_view name = {});
/// `tf.math.rint`: op Rint, to the nearest integer with halves to even (float types). No
/// gradient.
Output rint(const Output& x, std::string_view name = {});
/// `tf.math.erf`: op Erf, the error function (float types), Eigen's approximation as
/// TensorFlow's kernel.
Output erf(const Output& x, std::string_view name = {});
/// `tf.math.erfc`: op Erfc, 1 - erf(x) without cancellation (float types).
Output erfc(const Output& x, std::string_view name = {});
/// `tf.math.tan`: op Tan (float types).
Output tan(const Output& x, std::string_view name = {});
/// `tf.math.atan`: op Atan (float types).
Output atan(const Output& x, std::string_view name = {});
/// `tf.math.asin`: op Asin (float types); NaN outside [-1, 1].
Output asin(const Output& x, std::string_view name = {});
/// `tf.math.acos`: op Acos (float types); NaN outside [-1, 1].
Output acos(const Output& x, std::string_view name = {});
/// `tf.math.sinh`: op Sinh (float types).
Output sinh(const Output& x, std::string_view name = {});
/// `tf.math.cosh`: op Cosh (float types).
Output cosh(const Output& x, std::string_view name = {});
/// `tf.math.is_nan`: op IsNan (default name "IsNan"), a bool tensor of `x`'s shape (float
/// types). Not differentiable; likewise `is_inf` (op IsInf) and `is_finite` (op IsFinite).
Output is_nan(const Output& x, std::string_view name = {});
/// `tf.math.is_inf`: op IsInf, true at +inf and -inf.
Output is_inf(const Output& x, std::string_view name = {});
/// `tf.math.is_finite`: op IsFinite, false at inf, -inf and NaN.
Output is_finite(const Output& x, std::string_view name = {});

/// `tf.math.atan2(y, x)`: op Atan2, the angle of (x, y) in [-pi, pi] (float types, NumPy
/// broadcasting).
Output atan2(const Output& y, const Output& x, std::string_view name = {});
/// `tf.math.xlogy`: op Xlogy, 0 where x == 0 (even where log(y) is -inf or NaN), else
/// x * log(y) (float types, broadcasting).
Output xlogy(const Output& x, const Output& y, std::string_view name = {});
/// `tf.math.xdivy`: op Xdivy, 0 where x == 0, else x / y (float types, broadcasting).
Output xdivy(const Output& x, const Output& y, std::string_view name = {});
/// `tf.truncatediv`: op TruncateDiv, the quotient rounded toward zero, as C (int32, int64
/// and uint8; broadcasting). An integer zero divisor fails the step with InvalidArgument
/// "Integer division by zero". No gradient.
Output truncatediv(const Output& x, const Output& y, std::string_view name = {});
/// `tf.truncatemod`: op TruncateMod, the remainder of `truncatediv` with the dividend's sign,
/// as C's % and fmod: truncatemod(-7, 3) = -1 (int32, int64, float32 and float64). An
/// integer zero divisor fails the step as `truncatediv`.
Output truncatemod(const Output& x, const Output& y, std::string_view name = {});

/// `tf.cumsum`: op Cumsum (default name "Cumsum", the axis the Const "<op>/axis"), the
/// running sum of `x` along `axis`, laid out and checked as `cumprod`; `exclusive` starts
/// from 0. float32, float64, int32 and int64 (integers wrap around).
Output cumsum(const Output& x, std::int64_t axis = 0, bool exclusive = false, bool reverse = false,
              std::string_view name = {});

/// `tf.reduce_any`: op Any of a bool tensor, laid out as `reduce_prod`; true when any
/// reduced element is; a reduction of no values is false. Throws InvalidArgumentError for
/// another dtype. Not differentiable.
Output reduce_any(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                  bool keep_dims = false, std::string_view name = {});
/// `tf.reduce_all`: op All, as `reduce_any`; a reduction of no values is true.
Output reduce_all(const Output& x, std::optional<std::vector<std::int64_t>> axes = {},
                  bool keep_dims = false, std::string_view name = {});

}  // namespace af
