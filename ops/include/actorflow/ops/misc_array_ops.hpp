#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"

/// Bucketing and histograms, the log-sum-exp scan, shape helpers (BroadcastArgs,
/// EnsureShape, Snapshot), fake quantization and printing: TensorFlow's Bucketize,
/// HistogramFixedWidth, CumulativeLogsumexp, BroadcastArgs, EnsureShape, Snapshot, the
/// FakeQuantWithMinMax* ops, Print, PrintV2 and Timestamp.
namespace af {

/// `tf.raw_ops.Bucketize(input, boundaries)`: op Bucketize (default name "Bucketize"), an
/// int32 tensor of `input`'s shape (int32, int64, float or double) holding for each element
/// the number of boundaries <= it (the index std::upper_bound gives; compared in the common
/// type of the element and float). NaN counts past every boundary. Running it fails with
/// InvalidArgument "Expected sorted boundaries" when `boundaries` is not ascending. Not
/// differentiable.
Output bucketize(const Output& input, const std::vector<float>& boundaries,
                 std::string_view name = {});

/// `tf.histogram_fixed_width(values, value_range, nbins, dtype)`: op HistogramFixedWidth
/// (default name "histogram_fixed_width", `nbins` the int32 Const "<op>/nbins"), a vector of
/// `nbins` counts (`dtype` int32 or int64) of `values` (any shape; int32, int64, float or
/// double) in equal bins over `value_range` (a 2-vector of values' dtype); values below the
/// range count in the first bin, above it in the last. Errors while building: "Requires
/// nbins > 0: 0", "Dimension must be 2 but is 3". Errors when run: "value_range should
/// satisfy value_range[0] < value_range[1], but got '[2, 1]'", "Histogram values must not
/// contain NaN", "nbins should be a positive number, but got '0'". Not differentiable.
Output histogram_fixed_width(const Output& values, const Output& value_range,
                             std::int64_t nbins = 100, DType dtype = DType::int32,
                             std::string_view name = {});
/// `histogram_fixed_width` with `nbins` an int32 scalar computed in the graph (op named
/// "HistogramFixedWidth" by default).
Output histogram_fixed_width(const Output& values, const Output& value_range, const Output& nbins,
                             DType dtype = DType::int32, std::string_view name = {});

/// `tf.math.cumulative_logsumexp(x, axis, exclusive, reverse)`: op CumulativeLogsumexp
/// (default name "CumulativeLogsumexp", the axis the Const "<op>/axis"), log(cumsum(exp(x)))
/// along `axis` computed without overflow (float, double or bfloat16). `exclusive` leaves
/// each element out of its own output (the first is -inf); `reverse` scans from the end. As
/// TensorFlow's kernel, a NaN after a number is skipped and +inf followed by +inf gives NaN.
/// Errors when run: "ScanOp: Expected scan axis in the range [-2, 2), but got 3". Gradient:
/// math_grad.py's _CumulativeLogsumexpGrad (positive and negative parts of the gradient
/// scanned the other way in log space); none for the axis.
Output cumulative_logsumexp(const Output& x, std::int64_t axis = 0, bool exclusive = false,
                            bool reverse = false, std::string_view name = {});

/// `tf.broadcast_dynamic_shape(shape_x, shape_y)`: op BroadcastArgs (default name
/// "BroadcastArgs"), the broadcast of two shape vectors (int32 or int64, one dtype). Running
/// it fails with InvalidArgument "Incompatible shapes: [2,3] vs. [4,3]" when they do not
/// broadcast; building it with "Shape must be rank 1 but is rank 2" when an input is not a
/// vector. Not differentiable.
Output broadcast_dynamic_shape(const Output& shape_x, const Output& shape_y,
                               std::string_view name = {});

/// `tf.ensure_shape(x, shape)`: op EnsureShape (default name "EnsureShape"), `x` itself (any
/// dtype), with the static shape `shape` merged into `x`'s. Building fails with
/// InvalidArgumentError when the static shapes conflict ("Dimension 0 in both shapes must be
/// equal, but are 3 and 1. Shapes are [3,?] and [1,2]."); running fails with "Shape of
/// tensor x [2,2] is not compatible with expected shape [3,?]." (the input as the NodeDef
/// names it). Gradient: passed through unchanged.
Output ensure_shape(const Output& x, const PartialShape& shape, std::string_view name = {});

/// `array_ops.snapshot(input)`: op Snapshot (default name "Snapshot"), a fresh copy of
/// `input` (numbers and bools; TensorFlow has no string kernel). Gradient: passed through
/// unchanged (TensorFlow registers none and refuses to differentiate it).
Output snapshot(const Output& input, std::string_view name = {});

/// `tf.quantization.fake_quant_with_min_max_args`: op FakeQuantWithMinMaxArgs (default name
/// "FakeQuantWithMinMaxArgs"), float32 `inputs` clamped to [min, max] nudged so that 0 is
/// exact, then rounded to one of 2^num_bits levels (2^num_bits - 1 with `narrow_range`), as
/// fake_quant_ops_functor.h. Running it fails with InvalidArgument "min has to be smaller
/// than max, was: 2 >= 1" or "num_bits must be between 2 and 16, inclusive". Gradient:
/// FakeQuantWithMinMaxArgsGradient (the gradient where the input lies in the nudged range).
Output fake_quant_with_min_max_args(const Output& inputs, float min = -6.0f, float max = 6.0f,
                                    std::int64_t num_bits = 8, bool narrow_range = false,
                                    std::string_view name = {});
/// `tf.quantization.fake_quant_with_min_max_args_gradient`: op
/// FakeQuantWithMinMaxArgsGradient, `gradients` where `inputs` (same shape) lies in the
/// nudged [min, max], 0 elsewhere. Errors as the forward op's, and "Inputs to operation N of
/// type FakeQuantWithMinMaxArgsGradient must have the same size and shape.  Input 0: [2] !=
/// input 1: [1]". Not differentiable.
Output fake_quant_with_min_max_args_gradient(const Output& gradients, const Output& inputs,
                                             float min = -6.0f, float max = 6.0f,
                                             std::int64_t num_bits = 8, bool narrow_range = false,
                                             std::string_view name = {});

/// `tf.quantization.fake_quant_with_min_max_vars`: op FakeQuantWithMinMaxVars (default name
/// "FakeQuantWithMinMaxVars"), fake quantization with the range from float32 scalars `min`
/// and `max` (a [0, 0] range gives zeros; min > max is not checked, as TensorFlow). Errors
/// while building: "Shape must be rank 0 but is rank 1"; when run: "`min` must be rank 0 but
/// is rank 1", "num_bits must be between 2 and 16, inclusive". Gradient:
/// FakeQuantWithMinMaxVarsGradient.
Output fake_quant_with_min_max_vars(const Output& inputs, const Output& min, const Output& max,
                                    std::int64_t num_bits = 8, bool narrow_range = false,
                                    std::string_view name = {});

/// What the FakeQuantWithMinMaxVars*Gradient builders return.
struct FakeQuantGradients {
  Output backprops_wrt_input;  ///< the gradient where the input is in range, inputs' shape
  Output backprop_wrt_min;     ///< the gradient summed where the input is below the range
  Output backprop_wrt_max;     ///< the gradient summed where the input is above the range
};

/// `tf.quantization.fake_quant_with_min_max_vars_gradient`: op
/// FakeQuantWithMinMaxVarsGradient; the min and max gradients are scalars. Errors: "gradient
/// and input must be the same size" and the forward op's. Not differentiable.
FakeQuantGradients fake_quant_with_min_max_vars_gradient(
    const Output& gradients, const Output& inputs, const Output& min, const Output& max,
    std::int64_t num_bits = 8, bool narrow_range = false, std::string_view name = {});

/// `tf.quantization.fake_quant_with_min_max_vars_per_channel`: op
/// FakeQuantWithMinMaxVarsPerChannel, one range per entry of the last dimension of `inputs`
/// (rank >= 1; `min` and `max` float32 vectors of that length). Errors when run: "min has
/// incorrect size, expected 2 was 3". Gradient: FakeQuantWithMinMaxVarsPerChannelGradient.
Output fake_quant_with_min_max_vars_per_channel(const Output& inputs, const Output& min,
                                                const Output& max, std::int64_t num_bits = 8,
                                                bool narrow_range = false,
                                                std::string_view name = {});

/// `tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient`: op
/// FakeQuantWithMinMaxVarsPerChannelGradient (inputs of rank 1 to 4); the min and max
/// gradients are vectors of the last dimension's length. Not differentiable.
FakeQuantGradients fake_quant_with_min_max_vars_per_channel_gradient(
    const Output& gradients, const Output& inputs, const Output& min, const Output& max,
    std::int64_t num_bits = 8, bool narrow_range = false, std::string_view name = {});

/// `tf.Print(input, data, message, first_n, summarize)`: op Print (default name "Print",
/// stateful), `input` passed through; each run writes `message` then "[<summary>]" for each
/// of `data` to std::cerr as one line, each summary its first `summarize` elements as
/// TensorFlow's Tensor::SummarizeValue (legacy form: "[[1 2 3]...]..."; all for a negative
/// `summarize`). With `first_n` >= 0 only the node's first `first_n` runs in a session
/// write. Gradient: `input`'s passes through; `data` gets none.
Output print(const Output& input, const std::vector<Output>& data, const std::string& message = {},
             std::int64_t first_n = -1, std::int64_t summarize = 3, std::string_view name = {});

/// `tf.raw_ops.PrintV2(input, output_stream, end)`: op PrintV2 (default name "PrintV2",
/// stateful, no outputs; run it as a target or a control dependency), writing the string
/// scalar `input` (tf.strings.format's, see string_format) followed by `end` to "stdout",
/// "stderr", the log sink ("log(info)", "log(warning)", "log(error)": actorflow has one
/// level) or appending to a file ("file://<path>"). Building fails with "input must be a
/// scalar, but has rank: 1"; running with "Unknown output stream: x, Valid streams are:
/// stdout stderr log(info) log(warning) log(error)". Not differentiable.
Operation print_v2(const Output& input, std::string_view output_stream = "stderr",
                   std::string_view end = "\n", std::string_view name = {});

/// `tf.timestamp()`: op Timestamp (default name "Timestamp", stateful), the seconds since the
/// Unix epoch when the op runs, a float64 scalar of microsecond resolution. Not
/// differentiable.
Output timestamp(Graph& g, std::string_view name = {});

}  // namespace af
