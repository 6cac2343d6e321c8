// The definitions of RandomUniform, RandomStandardNormal and TruncatedNormal: the shape
// function and the builders random_uniform, random_normal and truncated_normal. Their CPU
// kernels are in kernels/src/random_ops.cpp.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::index_tensor;

// TensorFlow's RandomShape: the output shape is the value of input 0 when known.
Status infer_random(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  if (dtype != DType::float32 && dtype != DType::float64 && dtype != DType::bfloat16 &&
      dtype != DType::float16)
    return invalid_argument("Value for attr 'dtype' of " + std::string(dtype_name(dtype)) +
                            " is not in the list of allowed values: half, bfloat16, float, double");
  if (c.input_types[0] != DType::int32 && c.input_types[0] != DType::int64)
    return invalid_argument("Value for attr 'T' of " + std::string(dtype_name(c.input_types[0])) +
                            " is not in the list of allowed values: int32, int64");
  if (Status s = detail::with_rank(c.input_shapes[0], 1); !s.ok())
    return s.with_context(" for '" + c.node.name + "' (op: '" + c.node.op + "')");
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  c.add_output(dtype, std::move(shape));
  return {};
}

// A scalar constant of the floating dtype `dtype` (convert_to_tensor(value, dtype)).
Tensor float_scalar(DType dtype, double value) {
  switch (dtype) {
    case DType::float64:
      return Tensor(value);
    case DType::bfloat16:
      return Tensor(bfloat16_t(static_cast<float>(value)));
    default:
      return Tensor(static_cast<float>(value));
  }
}

void check_float_dtype(DType dtype, const char* fn) {
  if (dtype != DType::float32 && dtype != DType::float64 && dtype != DType::bfloat16)
    throw InvalidArgumentError(invalid_argument(std::string(fn) + ": invalid dtype " +
                                                std::string(dtype_name(dtype)) +
                                                " (expected bfloat16, float32 or float64)"));
}

Output random_op(Graph& g, const char* type, const Output& shape, DType dtype,
                 std::optional<std::int64_t> seed) {
  auto [seed1, seed2] = g.get_seed(seed);
  return g
      .create_op(type, {shape},
                 {{"seed", seed1}, {"seed2", seed2}, {"dtype", dtype}, {"T", shape.dtype()}}, type)
      .output(0);
}

// random_normal and truncated_normal (`fn`): under the name scope, the consts "shape", "mean"
// and "stddev", then the op `type`, "mul" and the Add named after the scope itself.
Output scaled_normal(Graph& g, const char* fn, const char* type, const Shape& shape, DType dtype,
                     double mean, double stddev, std::optional<std::int64_t> seed,
                     std::string_view name) {
  check_float_dtype(dtype, fn);
  const std::string scope = g.unique_name(name.empty() ? fn : name);
  auto guard = g.name_scope(scope + "/");
  Output shape_t = g.constant(index_tensor(shape.dims()), "shape");
  Output mean_t = g.constant(float_scalar(dtype, mean), "mean");
  Output stddev_t = g.constant(float_scalar(dtype, stddev), "stddev");
  Output rnd = random_op(g, type, shape_t, dtype, seed);
  Output scaled = mul(rnd, stddev_t, "mul");
  return add(scaled, mean_t, scope + "/");
}

}  // namespace

namespace detail {

void register_random_ops(OpRegistry& r) {
  r.add({"RandomUniform", infer_random, true});
  r.add({"RandomStandardNormal", infer_random, true});
  r.add({"TruncatedNormal", infer_random, true});
}

}  // namespace detail

// TensorFlow 1.x's random_ops.random_uniform: under the name scope, the consts "shape",
// "min" and "max", then "RandomUniform", "sub" (max - min), "mul" and the Add named after
// the scope itself. The seeds are drawn after the consts exist, as in TensorFlow, so a
// graph-level seed without an op seed sees the same op count.
Output random_uniform(Graph& g, const Shape& shape, DType dtype, double minval, double maxval,
                      std::optional<std::int64_t> seed, std::string_view name) {
  check_float_dtype(dtype, "random_uniform");
  const std::string scope = g.unique_name(name.empty() ? "random_uniform" : name);
  auto guard = g.name_scope(scope + "/");
  Output shape_t = g.constant(index_tensor(shape.dims()), "shape");
  Output min_t = g.constant(float_scalar(dtype, minval), "min");
  Output max_t = g.constant(float_scalar(dtype, maxval), "max");
  Output rnd = random_op(g, "RandomUniform", shape_t, dtype, seed);
  Output range = sub(max_t, min_t, "sub");
  Output scaled = mul(rnd, range, "mul");
  return add(scaled, min_t, scope + "/");
}

// TensorFlow 1.x's random_ops.random_normal: consts "shape", "mean", "stddev", then
// "RandomStandardNormal", "mul" and the Add named after the scope.
Output random_normal(Graph& g, const Shape& shape, DType dtype, double mean, double stddev,
                     std::optional<std::int64_t> seed, std::string_view name) {
  return scaled_normal(g, "random_normal", "RandomStandardNormal", shape, dtype, mean, stddev, seed,
                       name);
}

// TensorFlow 1.x's random_ops.truncated_normal: consts "shape", "mean", "stddev", then
// "TruncatedNormal", "mul" and the Add named after the scope.
Output truncated_normal(Graph& g, const Shape& shape, DType dtype, double mean, double stddev,
                        std::optional<std::int64_t> seed, std::string_view name) {
  return scaled_normal(g, "truncated_normal", "TruncatedNormal", shape, dtype, mean, stddev, seed,
                       name);
}

}  // namespace af
