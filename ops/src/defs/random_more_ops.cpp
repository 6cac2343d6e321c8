// The definitions of the stateless random ops (TensorFlow's stateless_random_ops.cc and
// stateless_random_ops_v2.cc shape functions: StatelessShape, StatelessShapeV2, the
// multinomial's and the key/counter ops', StatelessRandomGammaV2/V3's, StatelessRandomPoisson's,
// StatelessRandomBinomial's and StatelessParameterizedTruncatedNormal's), RandomGamma's
// (random_ops.cc), and the builders tf.random.stateless_uniform, stateless_normal,
// stateless_truncated_normal, stateless_categorical, stateless_binomial and
// stateless_parameterized_truncated_normal (tf.random.gamma's is in random_more2_ops.cpp). Their
// CPU kernels are in kernels/src/random_more_ops.cpp and, for the Poisson, binomial and
// truncated normal samplers, kernels/src/random_more2_ops.cpp; the stateless ops are not
// differentiable (ops/src/gradients/random_more_grad.cpp).
#include "actorflow/ops/random_more_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_attr_type;
using detail::check_index_type;
using detail::index_values;
using detail::with_rank;

// The dtypes of the float ops (TensorFlow's list: half, bfloat16, float, double).
const std::vector<DType> kStatelessFloatTypes = {DType::float32, DType::float64, DType::bfloat16,
                                                 DType::float16};
constexpr const char* kStatelessFloatNames = "half, bfloat16, float, double";
// StatelessMultinomial's logits (TensorFlow's TF_CALL_REAL_NUMBER_TYPES less those actorflow
// lacks; the CPU kernels take float, double and bfloat16).
const std::vector<DType> kLogitTypes = {DType::float32, DType::int32,   DType::uint8,
                                        DType::int64,   DType::float64, DType::bfloat16};
// StatelessRandomPoisson's Rtype and dtype, StatelessRandomBinomial's T and dtype.
const std::vector<DType> kSampleTypes = {DType::float16, DType::float32, DType::float64,
                                         DType::int32, DType::int64};
constexpr const char* kSampleNames = "half, float, double, int32, int64";
// StatelessParameterizedTruncatedNormal's dtype.
const std::vector<DType> kStatelessTruncatedNormalTypes = {DType::float16, DType::float32,
                                                           DType::float64};
constexpr const char* kStatelessTruncatedNormalNames = "half, float, double";
// RNG_KEY_SIZE, RNG_MAX_COUNTER_SIZE.
constexpr Index kRngKeySize = 1;
constexpr Index kRngMaxCounterSize = 2;

// InferenceContext::WithValue: "Dimension must be 2 but is 3".
Status with_value(const PartialShape& s, int dim, Index value) {
  if (!s.rank_known() || s.rank() <= dim) return {};
  const Index d = s.dim(dim);
  if (d >= 0 && d != value)
    return invalid_argument("Dimension must be " + std::to_string(value) + " but is " +
                            std::to_string(d));
  return {};
}

// A seed input: int32/int64 (attr Tseed), a vector of two.
Status check_seed(const InferenceContext& c, int at) {
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[static_cast<std::size_t>(at)], "Tseed"));
  const PartialShape& seed = c.input_shapes[static_cast<std::size_t>(at)];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(seed, 1));
  return with_value(seed, 0, 2);
}

// The key, counter and alg inputs at 1, 2, 3 (StatelessShapeV2's checks): int64 (TensorFlow's
// uint64) vectors, the key of one element, and an int32 scalar.
Status check_key_counter_alg(const InferenceContext& c) {
  const char* names[] = {"key", "counter"};
  for (int i = 1; i <= 2; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != DType::int64)
      return invalid_argument(cwise::fixed_type_mismatch_message(
          c.node.op, names[i - 1], c.input_types[static_cast<std::size_t>(i)], DType::int64));
  if (c.input_types[3] != DType::int32)
    return invalid_argument(
        cwise::fixed_type_mismatch_message(c.node.op, "alg", c.input_types[3], DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  return with_value(c.input_shapes[1], 0, kRngKeySize);
}

// The scalar bounds at `at` and `at + 1` of the integer ops: of the attr dtype, rank 0
// ("minval must be a scalar; got a tensor of shape [1]").
Status check_bounds(const InferenceContext& c, int at, DType dtype) {
  const char* names[] = {"minval", "maxval"};
  for (int i = 0; i < 2; ++i) {
    const auto k = static_cast<std::size_t>(at + i);
    if (c.input_types[k] != dtype)
      return invalid_argument(
          cwise::fixed_type_mismatch_message(c.node.op, names[i], c.input_types[k], dtype));
    const PartialShape& s = c.input_shapes[k];
    if (s.rank_known() && s.rank() != 0)
      return invalid_argument(std::string(names[i]) + " must be a scalar; got a tensor of shape " +
                              detail::inference_shape_string(s));
  }
  return {};
}

// StatelessShape / StatelessShapeV2 for every filling op: attr dtype among `types`, the
// shape input's type (attr T, or Tshape for V2), the seed (V1) or key, counter and alg (V2),
// the bounds of the bounded integer ops; the output of dtype with the shape input's value.
Status infer_stateless(InferenceContext& c, const std::vector<DType>& types, const char* type_names,
                       bool bounded) {
  const bool v2 = c.node.op.ends_with("V2");
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs((v2 ? 4 : 2) + (bounded ? 2 : 0)));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(dtype, "dtype", types, type_names));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], v2 ? "Tshape" : "T"));
  if (bounded) ACTORFLOW_RETURN_IF_ERROR(check_bounds(c, v2 ? 4 : 2, dtype));
  if (v2)
    ACTORFLOW_RETURN_IF_ERROR(check_key_counter_alg(c));
  else
    ACTORFLOW_RETURN_IF_ERROR(check_seed(c, 1));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  c.add_output(dtype, std::move(shape));
  return {};
}

Status infer_stateless_float(InferenceContext& c) {
  return infer_stateless(c, kStatelessFloatTypes, kStatelessFloatNames, false);
}
Status infer_stateless_int(InferenceContext& c) {
  return infer_stateless(c, detail::kIndexTypes, "int32, int64", true);
}
Status infer_stateless_full_int(InferenceContext& c) {
  return infer_stateless(c, {DType::int32, DType::int64, DType::uint32, DType::uint64},
                         "int32, int64, uint32, uint64", false);
}

// StatelessMultinomial: the seed, logits [batch, classes] and a scalar num_samples;
// [batch, num_samples] of output_dtype.
Status infer_stateless_multinomial(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kLogitTypes));
  if (c.input_types[1] != DType::int32)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "num_samples",
                                                               c.input_types[1], DType::int32));
  DType output_dtype = DType::int64;
  c.get_attr("output_dtype", &output_dtype);
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(output_dtype, "output_dtype"));
  ACTORFLOW_RETURN_IF_ERROR(check_seed(c, 2));
  const PartialShape& logits = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(logits, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  Index num_samples = -1;
  if (const Tensor* value = c.input_values[1]) {
    num_samples = index_values(*value)[0];
    if (num_samples < 0)
      return invalid_argument(
          "Dimension size, given by scalar input 1, must be non-negative but is " +
          std::to_string(num_samples));
  }
  c.add_output(output_dtype, PartialShape{logits.rank_known() ? logits.dim(0) : -1, num_samples});
  return {};
}

// StatelessRandomGetKeyCounter(Alg): key [1], counter [2] (int64 for TensorFlow's uint64),
// and alg, an int32 scalar.
Status infer_get_key_counter(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_seed(c, 0));
  c.add_output(DType::int64, PartialShape{kRngKeySize});
  c.add_output(DType::int64, PartialShape{kRngMaxCounterSize});
  if (c.node.op == "StatelessRandomGetKeyCounterAlg")
    c.add_output(DType::int32, PartialShape(Shape{}));
  return {};
}

// RandomGamma: shape (attr S) and alpha (attr T: half, float, double); the output is the shape
// input's value followed by alpha's shape.
Status infer_random_gamma(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "S"));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[1], "T", {DType::float32, DType::float64},
                                            "half, float, double"));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  const PartialShape& alpha = c.input_shapes[1];
  if (!shape.rank_known() || !alpha.rank_known()) {
    c.add_output(c.input_types[1], PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims = shape.dims();
  for (auto d : alpha.dims()) dims.push_back(d);
  c.add_output(c.input_types[1], PartialShape(std::move(dims)));
  return {};
}

// StatelessRandomGammaV2(shape: T, seed: Tseed, alpha: dtype), StatelessRandomGammaV3(shape:
// shape_dtype, key, counter, alg, alpha: dtype) and StatelessRandomPoisson(shape: T, seed:
// Tseed, lam: Rtype) -> dtype: the shape input's value (StatelessShape / StatelessShapeV2).
Status infer_stateless_sampler(InferenceContext& c) {
  const bool v3 = c.node.op == "StatelessRandomGammaV3";
  const bool poisson = c.node.op == "StatelessRandomPoisson";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v3 ? 5 : 3));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  if (poisson) {
    ACTORFLOW_RETURN_IF_ERROR(check_attr_type(dtype, "dtype", kSampleTypes, kSampleNames));
    ACTORFLOW_RETURN_IF_ERROR(
        check_attr_type(c.input_types[2], "Rtype", kSampleTypes, kSampleNames));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(
        check_attr_type(dtype, "dtype", kStatelessFloatTypes, kStatelessFloatNames));
    if (c.input_types[v3 ? 4 : 2] != dtype)
      return invalid_argument(
          cwise::fixed_type_mismatch_message(c.node.op, "alpha", c.input_types[v3 ? 4 : 2], dtype));
  }
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], v3 ? "shape_dtype" : "T"));
  if (v3)
    ACTORFLOW_RETURN_IF_ERROR(check_key_counter_alg(c));
  else
    ACTORFLOW_RETURN_IF_ERROR(check_seed(c, 1));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  c.add_output(dtype, std::move(shape));
  return {};
}

// StatelessRandomBinomial(shape: S, seed: Tseed, counts: T, probs: T) -> dtype (StatelessShape):
// T and dtype (default int64) among half, float, double, int32, int64.
Status infer_stateless_binomial(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  DType dtype = DType::int64;
  c.get_attr("dtype", &dtype);
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(dtype, "dtype", kSampleTypes, kSampleNames));
  if (c.input_types[3] != c.input_types[2])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "probs", c.input_types[3],
                                                         "counts", c.input_types[2]));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[2], "T", kSampleTypes, kSampleNames));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "S"));
  ACTORFLOW_RETURN_IF_ERROR(check_seed(c, 1));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  c.add_output(dtype, std::move(shape));
  return {};
}

// StatelessParameterizedTruncatedNormal(shape: S, seed: Tseed, means, stddevs, minvals,
// maxvals: dtype): the seed a vector of two, the parameters broadcasting together (means with
// stddevs, minvals with that, maxvals with that: "Dimensions must be equal, but are 2 and 3"),
// the output the shape input's value.
Status infer_stateless_parameterized_truncated_normal(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(6));
  const char* names[] = {"means", "stddevs", "minvals", "maxvals"};
  const DType dtype = c.input_types[2];
  for (std::size_t i = 3; i <= 5; ++i)
    if (c.input_types[i] != dtype)
      return invalid_argument(
          cwise::type_mismatch_message(c.node.op, names[i - 2], c.input_types[i], "means", dtype));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(dtype, "dtype", kStatelessTruncatedNormalTypes,
                                            kStatelessTruncatedNormalNames));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "S"));
  ACTORFLOW_RETURN_IF_ERROR(check_seed(c, 1));
  PartialShape parameters;
  ACTORFLOW_RETURN_IF_ERROR(
      cwise::broadcast_binary_shapes(c.input_shapes[2], c.input_shapes[3], &parameters));
  for (std::size_t i = 4; i <= 5; ++i) {
    PartialShape wider;
    ACTORFLOW_RETURN_IF_ERROR(
        cwise::broadcast_binary_shapes(c.input_shapes[i], parameters, &wider));
    parameters = std::move(wider);
  }
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  c.add_output(dtype, std::move(shape));
  return {};
}

Status infer_get_alg(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
  c.add_output(DType::int32, PartialShape(Shape{}));
  return {};
}

// -- builders ---------------------------------------------------------------------------------

// A scalar constant of the dtype `dtype` (convert_to_tensor(value, dtype)).
Tensor scalar_of(DType dtype, double value) {
  switch (dtype) {
    case DType::float64:
      return Tensor(value);
    case DType::bfloat16:
      return Tensor(bfloat16_t(static_cast<float>(value)));
    default:
      return Tensor(static_cast<float>(value));
  }
}

// An int32 or int64 scalar.
Tensor int_scalar(DType dtype, std::int64_t value) {
  if (dtype == DType::int64) return Tensor(value);
  return Tensor(static_cast<std::int32_t>(value));
}

void check_dtype(DType dtype, const std::vector<DType>& allowed, const char* fn,
                 const char* expected) {
  for (DType t : allowed)
    if (t == dtype) return;
  throw InvalidArgumentError(invalid_argument(std::string(fn) + ": invalid dtype " +
                                              std::string(dtype_name(dtype)) + " (expected " +
                                              expected + ")"));
}

// _get_key_counter_alg: op StatelessRandomGetKeyCounter on the seed, algorithm 3
// (auto-select), which the V2 op converts to a Const named "alg" in its own scope.
StatelessKeyCounterOutputs key_counter_op(const Output& seed, bool with_alg,
                                          std::string_view name) {
  const char* type = with_alg ? "StatelessRandomGetKeyCounterAlg" : "StatelessRandomGetKeyCounter";
  Operation op =
      seed.graph().create_op(type, {seed}, {{"Tseed", seed.dtype()}}, name.empty() ? type : name);
  return {op.output(0), op.output(1), with_alg ? op.output(2) : Output()};
}

// The V2 op `type` on (shape, key, counter, alg[, extra]): named `op_name` under the current
// scope when `absolute` is false, else exactly `op_name` (an op named after its scope); the
// algorithm Const "alg" in the op's own scope, as op_def_library converts the Python int.
Output v2_op(const char* type, const Output& shape_t, const StatelessKeyCounterOutputs& kc,
             std::vector<Output> extra, DType dtype, const std::string& op_name) {
  Graph& g = shape_t.graph();
  Output alg;
  {
    auto scope = g.name_scope(op_name);
    alg = g.constant(Tensor(std::int32_t{3}), "alg");
  }
  std::vector<Output> inputs = {shape_t, kc.key, kc.counter, alg};
  inputs.insert(inputs.end(), extra.begin(), extra.end());
  return g.create_op(type, inputs, {{"dtype", dtype}, {"Tshape", shape_t.dtype()}}, op_name)
      .output(0);
}

// stateless_random_normal and stateless_truncated_normal (`fn`, op `type`).
Output scaled_normal(const char* fn, const char* type, const Shape& shape, const Output& seed,
                     DType dtype, double mean, double stddev, std::string_view name) {
  check_dtype(dtype, kStatelessFloatTypes, fn, "bfloat16, float32 or float64");
  Graph& g = seed.graph();
  const std::string scope = g.unique_name(name.empty() ? fn : name);
  auto guard = g.name_scope(scope + "/");
  const Output shape_t = g.constant(detail::index_tensor(shape.dims()), "shape");
  const Output mean_t = g.constant(scalar_of(dtype, mean), "mean");
  const Output stddev_t = g.constant(scalar_of(dtype, stddev), "stddev");
  const auto kc = key_counter_op(seed, false, {});
  const Output rnd = v2_op(type, shape_t, kc, {}, dtype, g.unique_name(type) + "/");
  const Output scaled = mul(rnd, stddev_t, "mul");
  return g.create_op("AddV2", {scaled, mean_t}, {{"T", dtype}}, scope + "/").output(0);
}

}  // namespace

namespace detail {

void register_random_more_ops(OpRegistry& r) {
  for (const char* type :
       {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
        "StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"})
    r.add({type, infer_stateless_float});
  r.add({"StatelessRandomUniformInt", infer_stateless_int});
  r.add({"StatelessRandomUniformIntV2", infer_stateless_int});
  r.add({"StatelessRandomUniformFullInt", infer_stateless_full_int});
  r.add({"StatelessRandomUniformFullIntV2", infer_stateless_full_int});
  r.add({"StatelessMultinomial", infer_stateless_multinomial});
  r.add({"StatelessRandomGetKeyCounterAlg", infer_get_key_counter});
  r.add({"StatelessRandomGetKeyCounter", infer_get_key_counter});
  r.add({"StatelessRandomGetAlg", infer_get_alg, true});
  r.add({"RandomGamma", infer_random_gamma, true});
  for (const char* type :
       {"StatelessRandomGammaV2", "StatelessRandomGammaV3", "StatelessRandomPoisson"})
    r.add({type, infer_stateless_sampler});
  r.add({"StatelessRandomBinomial", infer_stateless_binomial});
  r.add({"StatelessParameterizedTruncatedNormal", infer_stateless_parameterized_truncated_normal});
}

}  // namespace detail

Output stateless_random_uniform(const Shape& shape, const Output& seed, DType dtype, double minval,
                                double maxval, std::string_view name) {
  check_dtype(dtype, kStatelessFloatTypes, "stateless_random_uniform",
              "bfloat16, float32 or float64");
  Graph& g = seed.graph();
  const std::string scope = g.unique_name(name.empty() ? "stateless_random_uniform" : name);
  auto guard = g.name_scope(scope + "/");
  const Output shape_t = g.constant(detail::index_tensor(shape.dims()), "shape");
  const Output min_t = g.constant(scalar_of(dtype, minval), "min");
  const Output max_t = g.constant(scalar_of(dtype, maxval), "max");
  const auto kc = key_counter_op(seed, false, {});
  const Output rnd = v2_op("StatelessRandomUniformV2", shape_t, kc, {}, dtype,
                           g.unique_name("StatelessRandomUniformV2") + "/");
  const Output range = sub(max_t, min_t, "sub");
  const Output scaled = mul(rnd, range, "mul");
  return g.create_op("AddV2", {scaled, min_t}, {{"T", dtype}}, scope + "/").output(0);
}

Output stateless_random_uniform_int(const Shape& shape, const Output& seed, std::int64_t minval,
                                    std::int64_t maxval, DType dtype, std::string_view name) {
  check_dtype(dtype, detail::kIndexTypes, "stateless_random_uniform_int", "int32 or int64");
  Graph& g = seed.graph();
  const std::string scope = g.unique_name(name.empty() ? "stateless_random_uniform" : name);
  Output shape_t, min_t, max_t;
  StatelessKeyCounterOutputs kc;
  {
    auto guard = g.name_scope(scope + "/");
    shape_t = g.constant(detail::index_tensor(shape.dims()), "shape");
    min_t = g.constant(int_scalar(dtype, minval), "min");
    max_t = g.constant(int_scalar(dtype, maxval), "max");
    kc = key_counter_op(seed, false, {});
  }
  return v2_op("StatelessRandomUniformIntV2", shape_t, kc, {min_t, max_t}, dtype, scope + "/");
}

Output stateless_random_uniform_full_int(const Shape& shape, const Output& seed, DType dtype,
                                         std::string_view name) {
  check_dtype(dtype, detail::kIndexTypes, "stateless_random_uniform_full_int", "int32 or int64");
  Graph& g = seed.graph();
  const std::string scope = g.unique_name(name.empty() ? "stateless_random_uniform" : name);
  Output shape_t;
  StatelessKeyCounterOutputs kc;
  {
    auto guard = g.name_scope(scope + "/");
    shape_t = g.constant(detail::index_tensor(shape.dims()), "shape");
    kc = key_counter_op(seed, false, {});
  }
  return v2_op("StatelessRandomUniformFullIntV2", shape_t, kc, {}, dtype, scope + "/");
}

Output stateless_random_normal(const Shape& shape, const Output& seed, DType dtype, double mean,
                               double stddev, std::string_view name) {
  return scaled_normal("stateless_random_normal", "StatelessRandomNormalV2", shape, seed, dtype,
                       mean, stddev, name);
}

Output stateless_truncated_normal(const Shape& shape, const Output& seed, DType dtype, double mean,
                                  double stddev, std::string_view name) {
  return scaled_normal("stateless_truncated_normal", "StatelessTruncatedNormalV2", shape, seed,
                       dtype, mean, stddev, name);
}

Output stateless_categorical(const Output& logits, std::int64_t num_samples, const Output& seed,
                             DType dtype, std::string_view name) {
  check_dtype(dtype, detail::kIndexTypes, "stateless_categorical", "int32 or int64");
  Graph& g = logits.graph();
  auto outer = g.name_scope(name.empty() ? "stateless_categorical" : name);
  const std::string op_name = g.unique_name("StatelessMultinomial");
  Output n;
  {
    auto scope = g.name_scope(op_name + "/");
    n = g.constant(Tensor(static_cast<std::int32_t>(num_samples)), "num_samples");
  }
  return g
      .create_op("StatelessMultinomial", {logits, n, seed},
                 {{"T", logits.dtype()}, {"Tseed", seed.dtype()}, {"output_dtype", dtype}},
                 op_name + "/")
      .output(0);
}

Output stateless_random_binomial(const Shape& shape, const Output& seed, const Output& counts,
                                 const Output& probs, DType dtype, std::string_view name) {
  check_dtype(dtype, kSampleTypes, "stateless_random_binomial",
              "float16, float32, float64, int32 or int64");
  Graph& g = seed.graph();
  auto guard = g.name_scope(g.unique_name(name.empty() ? "stateless_random_binomial" : name) + "/");
  const Output shape_t = g.constant(detail::index_tensor(shape.dims()), "shape");
  return g
      .create_op("StatelessRandomBinomial", {shape_t, seed, counts, probs},
                 {{"S", shape_t.dtype()},
                  {"Tseed", seed.dtype()},
                  {"T", counts.dtype()},
                  {"dtype", dtype}},
                 "StatelessRandomBinomial")
      .output(0);
}

Output stateless_parameterized_truncated_normal(const Shape& shape, const Output& seed,
                                                const Output& means, const Output& stddevs,
                                                const Output& minvals, const Output& maxvals,
                                                std::string_view name) {
  Graph& g = seed.graph();
  auto guard = g.name_scope(
      g.unique_name(name.empty() ? "stateless_parameterized_truncated_normal" : name) + "/");
  const Output shape_t = g.constant(detail::index_tensor(shape.dims()), "shape");
  return g
      .create_op("StatelessParameterizedTruncatedNormal",
                 {shape_t, seed, means, stddevs, minvals, maxvals},
                 {{"S", shape_t.dtype()}, {"Tseed", seed.dtype()}, {"dtype", means.dtype()}},
                 "StatelessParameterizedTruncatedNormal")
      .output(0);
}

StatelessKeyCounterOutputs stateless_random_get_key_counter(const Output& seed,
                                                            std::string_view name) {
  return key_counter_op(seed, false, name);
}

StatelessKeyCounterOutputs stateless_random_get_key_counter_alg(const Output& seed,
                                                                std::string_view name) {
  return key_counter_op(seed, true, name);
}

Output stateless_random_get_alg(Graph& g, std::string_view name) {
  return g.create_op("StatelessRandomGetAlg", {}, {}, name.empty() ? "StatelessRandomGetAlg" : name)
      .output(0);
}

}  // namespace af
