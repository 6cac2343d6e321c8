// tf.layers (dense, conv2d, max_pooling2d, flatten, dropout), the initializers they use
// (init_ops.py), tf.losses and tf.metrics.accuracy, with TensorFlow 1.x's names.
#include "actorflow/train/layers.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"

namespace af {

namespace initializers {

namespace {

// init_ops._compute_fans.
std::pair<double, double> fans(const Shape& shape) {
  const int rank = shape.rank();
  if (rank < 1) return {1, 1};
  if (rank == 1) return {static_cast<double>(shape.dim(0)), static_cast<double>(shape.dim(0))};
  if (rank == 2) return {static_cast<double>(shape.dim(0)), static_cast<double>(shape.dim(1))};
  double receptive = 1;
  for (int i = 0; i < rank - 2; ++i) receptive *= static_cast<double>(shape.dim(i));
  return {static_cast<double>(shape.dim(rank - 2)) * receptive,
          static_cast<double>(shape.dim(rank - 1)) * receptive};
}

Tensor filled(DType dtype, const Shape& shape, double value) {
  Tensor t(dtype, shape);
  visit_numeric_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_half_like_v<T>) {
      for (auto& x : t.flat<T>()) x = T(static_cast<float>(value));
    } else if constexpr (std::is_same_v<T, bool>) {
      for (auto& x : t.flat<T>()) x = value != 0.0;
    } else {
      for (auto& x : t.flat<T>()) x = static_cast<T>(value);
    }
  });
  return t;
}

}  // namespace

Initializer zeros() {
  return
      [](Graph& g, const Shape& shape, DType dtype) { return af::zeros(g, shape, dtype, "zeros"); };
}

Initializer ones() {
  return
      [](Graph& g, const Shape& shape, DType dtype) { return af::ones(g, shape, dtype, "ones"); };
}

Initializer constant(double value) {
  return [value](Graph& g, const Shape& shape, DType dtype) -> Output {
    if (shape.num_elements() < 1000) return g.constant(filled(dtype, shape, value), "Const");
    // TensorFlow's Const holds one value for the whole shape; a Const here would hold (and
    // ship to a ps) every element, so a large one is a Fill named "Const", as zeros() does.
    const std::string op_name = g.unique_name("Const");
    Output dims, scalar;
    {
      auto scope = g.name_scope(op_name + "/");
      std::vector<std::int32_t> d;
      for (auto n : shape.dims()) d.push_back(static_cast<std::int32_t>(n));
      dims = g.constant(Tensor::from_vector(d, Shape{static_cast<std::int64_t>(d.size())}),
                        "shape_as_tensor");
      scalar = g.constant(filled(dtype, Shape{}, value), "Const");
    }
    return af::fill(dims, scalar, op_name + "/");
  };
}

Initializer random_uniform(double minval, double maxval, std::optional<std::int64_t> seed) {
  return [=](Graph& g, const Shape& shape, DType dtype) {
    return af::random_uniform(g, shape, dtype, minval, maxval, seed, "random_uniform");
  };
}

Initializer truncated_normal(double mean, double stddev, std::optional<std::int64_t> seed) {
  return [=](Graph& g, const Shape& shape, DType dtype) {
    return af::truncated_normal(g, shape, dtype, mean, stddev, seed, "truncated_normal");
  };
}

Initializer variance_scaling(double scale, std::string mode, std::string distribution,
                             std::optional<std::int64_t> seed) {
  if (!(scale > 0.0))
    throw InvalidArgumentError(invalid_argument("`scale` must be positive float."));
  if (mode != "fan_in" && mode != "fan_out" && mode != "fan_avg")
    throw InvalidArgumentError(invalid_argument("Invalid `mode` argument: " + mode));
  if (distribution == "normal") distribution = "truncated_normal";  // TF 1.x's old name
  if (distribution != "truncated_normal" && distribution != "untruncated_normal" &&
      distribution != "uniform")
    throw InvalidArgumentError(
        invalid_argument("Invalid `distribution` argument: " + distribution));
  return [=](Graph& g, const Shape& shape, DType dtype) {
    auto [fan_in, fan_out] = fans(shape);
    double n = mode == "fan_in" ? fan_in : mode == "fan_out" ? fan_out : (fan_in + fan_out) / 2.0;
    const double s = scale / std::max(1.0, n);
    if (distribution == "truncated_normal")
      return af::truncated_normal(g, shape, dtype, 0.0, std::sqrt(s) / .87962566103423978, seed,
                                  "truncated_normal");
    if (distribution == "untruncated_normal")
      return af::random_normal(g, shape, dtype, 0.0, std::sqrt(s), seed, "random_normal");
    const double limit = std::sqrt(3.0 * s);
    return af::random_uniform(g, shape, dtype, -limit, limit, seed, "random_uniform");
  };
}

Initializer glorot_uniform(std::optional<std::int64_t> seed) {
  return variance_scaling(1.0, "fan_avg", "uniform", seed);
}

Initializer glorot_normal(std::optional<std::int64_t> seed) {
  return variance_scaling(1.0, "fan_avg", "truncated_normal", seed);
}

}  // namespace initializers

namespace layers {

namespace {

// A layer variable `<layer>/<name>` (the layer name is a full name) with its initializer
// under `<layer>/<name>/Initializer/`, colocated with it.
Variable layer_variable(Graph& g, const std::string& layer, const char* name, const Shape& shape,
                        DType dtype, const initializers::Initializer& init, bool trainable) {
  auto root = g.name_scope("/");
  const std::string full = layer + "/" + name;
  VariableOptions options;
  options.name = full + "/";
  options.trainable = trainable;
  return g.variable([&](Graph& graph) { return init(graph, shape, dtype); }, options);
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::int64_t known_last_dim(const Output& x, const char* layer) {
  const PartialShape& s = x.shape();
  if (!s.rank_known() || s.rank() < 1 || s.dim(s.rank() - 1) < 0)
    throw InvalidArgumentError(
        invalid_argument(std::string("The last dimension of the inputs to `") + layer +
                         "` should be defined. Found `None`."));
  return s.dim(s.rank() - 1);
}

}  // namespace

Output dense(const Output& inputs, std::int64_t units, const DenseOptions& options) {
  Graph& g = inputs.graph();
  const std::int64_t in = known_last_dim(inputs, "Dense");
  if (inputs.shape().rank() != 2)
    throw InvalidArgumentError(
        invalid_argument("dense: inputs must have rank 2, got " + inputs.shape().to_string()));
  const std::string layer = g.unique_name(options.name.empty() ? "dense" : options.name);
  auto kernel_init =
      options.kernel_initializer ? options.kernel_initializer : initializers::glorot_uniform();
  auto bias_init = options.bias_initializer ? options.bias_initializer : initializers::zeros();
  Variable kernel = layer_variable(g, layer, "kernel", Shape{in, units}, inputs.dtype(),
                                   kernel_init, options.trainable);
  Variable bias;
  if (options.use_bias)
    bias = layer_variable(g, layer, "bias", Shape{units}, inputs.dtype(), bias_init,
                          options.trainable);
  auto scope = g.name_scope(layer + "/");
  Output out = matmul(inputs, kernel, false, false, "MatMul");
  if (options.use_bias) out = nn::bias_add(out, bias, "BiasAdd");
  if (options.activation) out = options.activation(out);
  return out;
}

Output conv2d(const Output& inputs, std::int64_t filters,
              std::pair<std::int64_t, std::int64_t> kernel_size, const Conv2DOptions& options) {
  Graph& g = inputs.graph();
  const std::int64_t in = known_last_dim(inputs, "Conv2D");
  const std::string layer = g.unique_name(options.name.empty() ? "conv2d" : options.name);
  auto kernel_init =
      options.kernel_initializer ? options.kernel_initializer : initializers::glorot_uniform();
  auto bias_init = options.bias_initializer ? options.bias_initializer : initializers::zeros();
  Variable kernel =
      layer_variable(g, layer, "kernel", Shape{kernel_size.first, kernel_size.second, in, filters},
                     inputs.dtype(), kernel_init, options.trainable);
  Variable bias;
  if (options.use_bias)
    bias = layer_variable(g, layer, "bias", Shape{filters}, inputs.dtype(), bias_init,
                          options.trainable);
  if (options.strides.size() != 2)
    throw InvalidArgumentError(invalid_argument("conv2d: strides must have 2 values"));
  auto scope = g.name_scope(layer + "/");
  Output out = nn::conv2d(inputs, kernel, {1, options.strides[0], options.strides[1], 1},
                          upper(options.padding), "Conv2D");
  if (options.use_bias) out = nn::bias_add(out, bias, "BiasAdd");
  if (options.activation) out = options.activation(out);
  return out;
}

Output max_pooling2d(const Output& inputs, std::pair<std::int64_t, std::int64_t> pool_size,
                     std::pair<std::int64_t, std::int64_t> strides, const std::string& padding,
                     std::string_view name) {
  Graph& g = inputs.graph();
  const std::string layer = g.unique_name(name.empty() ? "max_pooling2d" : name);
  auto scope = g.name_scope(layer + "/");
  return nn::max_pool(inputs, {1, pool_size.first, pool_size.second, 1},
                      {1, strides.first, strides.second, 1}, upper(padding), "MaxPool");
}

Output flatten(const Output& inputs, std::string_view name) {
  Graph& g = inputs.graph();
  const PartialShape& s = inputs.shape();
  if (!s.rank_known() || s.rank() < 1)
    throw InvalidArgumentError(invalid_argument("flatten: inputs need a known rank of at least 1"));
  std::int64_t rest = 1;
  for (int i = 1; i < s.rank(); ++i) {
    if (s.dim(i) < 0)
      throw InvalidArgumentError(invalid_argument("flatten: dimension " + std::to_string(i) +
                                                  " of " + inputs.name() + " is unknown"));
    rest *= s.dim(i);
  }
  const std::string layer = g.unique_name(name.empty() ? "flatten" : name);
  auto scope = g.name_scope(layer + "/");
  return reshape(inputs, std::vector<std::int64_t>{-1, rest}, "Reshape");
}

namespace {

// nn.dropout: x / keep_prob * floor(keep_prob + uniform[0, 1)).
Output dropped(Graph& g, const Output& x, double rate, std::optional<std::int64_t> seed) {
  const double keep = 1.0 - rate;
  auto scope = g.name_scope("dropout");
  Output keep_prob = scalar_like(x, keep, "keep_prob");
  Output shape = x.shape().fully_defined()
                     ? g.constant(Tensor::from_vector(std::vector<std::int32_t>(
                                      x.shape().dims().begin(), x.shape().dims().end())),
                                  "Shape")
                     : af::shape(x, DType::int32, "Shape");
  auto [seed1, seed2] = g.get_seed(seed);
  Output uniform;
  {
    auto ru = g.name_scope("random_uniform");
    uniform =
        g.create_op("RandomUniform", {shape},
                    {{"seed", seed1}, {"seed2", seed2}, {"dtype", x.dtype()}, {"T", DType::int32}},
                    "RandomUniform")
            .output(0);
  }
  Output binary = af::floor(add(keep_prob, uniform, "add"), "Floor");
  return mul(div(x, keep_prob, "truediv"), binary, "mul");
}

void check_rate(double rate) {
  if (!(rate >= 0.0 && rate < 1.0))
    throw InvalidArgumentError(
        invalid_argument("rate must be a scalar tensor or a float in the range [0, 1), got " +
                         std::to_string(rate)));
}

}  // namespace

Output dropout(const Output& inputs, double rate, bool training, std::optional<std::int64_t> seed,
               std::string_view name) {
  check_rate(rate);
  Graph& g = inputs.graph();
  const std::string layer = g.unique_name(name.empty() ? "dropout" : name);
  auto scope = g.name_scope(layer + "/");
  if (!training || rate == 0.0) return identity(inputs, "Identity");
  return dropped(g, inputs, rate, seed);
}

Output dropout(const Output& inputs, double rate, const Output& training,
               std::optional<std::int64_t> seed, std::string_view name) {
  check_rate(rate);
  if (training.dtype() != DType::boolean)
    throw InvalidArgumentError(invalid_argument("dropout: training must be a bool tensor"));
  Graph& g = inputs.graph();
  const std::string layer = g.unique_name(name.empty() ? "dropout" : name);
  auto scope = g.name_scope(layer + "/");
  // Without control flow: out = t * dropped + (1 - t) * inputs, t = cast(training).
  Output t = cast(training, inputs.dtype(), "Cast");
  Output d = dropped(g, inputs, rate, seed);
  Output one = scalar_like(inputs, 1.0, "sub/x");
  return add(mul(t, d, "mul"), mul(sub(one, t, "sub"), inputs, "mul_1"), "add");
}

}  // namespace layers

namespace losses {

namespace {

// compute_weighted_loss with weights 1 and SUM_BY_NONZERO_WEIGHTS: sum(losses) / count.
Output weighted_mean(Graph& g, const Output& per_example, const std::string& scope_name) {
  Output weights = scalar_like(per_example, 1.0, "Const");
  Output weighted = mul(per_example, weights, "Mul");
  Output total = reduce_sum(weighted, std::nullopt, false, "Sum");
  Output count;
  if (per_example.shape().fully_defined())
    count = scalar_like(per_example, static_cast<double>(per_example.shape().num_elements()),
                        "num_present");
  else
    count = cast(af::size(per_example, DType::int32, "Size"), per_example.dtype(), "num_present");
  Output loss = div(total, count, scope_name + "/value/");
  g.add_to_collection(kLosses, loss);
  return loss;
}

}  // namespace

Output sparse_softmax_cross_entropy(const Output& labels, const Output& logits,
                                    std::string_view name) {
  Graph& g = logits.graph();
  const std::string scope_name =
      g.unique_name(name.empty() ? "sparse_softmax_cross_entropy_loss" : name);
  auto scope = g.name_scope(scope_name + "/");
  auto [loss, backprop] =
      nn::sparse_softmax_cross_entropy_with_logits_op(logits, labels, "xentropy");
  return weighted_mean(g, loss, scope_name);
}

Output softmax_cross_entropy(const Output& onehot_labels, const Output& logits,
                             std::string_view name) {
  Graph& g = logits.graph();
  const std::string scope_name = g.unique_name(name.empty() ? "softmax_cross_entropy_loss" : name);
  auto scope = g.name_scope(scope_name + "/");
  Output labels = cast(onehot_labels, logits.dtype(), "Cast");
  auto [loss, backprop] = nn::softmax_cross_entropy_with_logits_op(logits, labels, "xentropy");
  return weighted_mean(g, loss, scope_name);
}

Output mean_squared_error(const Output& labels, const Output& predictions, std::string_view name) {
  if (!labels.shape().is_compatible_with(predictions.shape()))
    throw InvalidArgumentError(invalid_argument("Shapes " + labels.shape().to_string() + " and " +
                                                predictions.shape().to_string() +
                                                " are incompatible"));
  Graph& g = predictions.graph();
  const std::string scope_name = g.unique_name(name.empty() ? "mean_squared_error" : name);
  auto scope = g.name_scope(scope_name + "/");
  Output l = cast(labels, predictions.dtype(), "Cast");
  Output squared = squared_difference(predictions, l, "SquaredDifference");
  return weighted_mean(g, squared, scope_name);
}

Output sigmoid_cross_entropy(const Output& labels, const Output& logits, std::string_view name) {
  if (!labels.shape().is_compatible_with(logits.shape()))
    throw InvalidArgumentError(invalid_argument("Shapes " + labels.shape().to_string() + " and " +
                                                logits.shape().to_string() + " are incompatible"));
  Graph& g = logits.graph();
  const std::string scope_name = g.unique_name(name.empty() ? "sigmoid_cross_entropy_loss" : name);
  auto scope = g.name_scope(scope_name + "/");
  Output z = cast(labels, logits.dtype(), "Cast");
  Output per_element;
  {
    auto inner = g.name_scope("logistic_loss/");
    Output relu_logits = relu(logits, "Relu");
    Output neg_abs = neg(abs(logits, "Abs"), "Neg");
    Output softplus =
        log(add(scalar_like(logits, 1.0, "add/x"), exp(neg_abs, "Exp"), "add"), "Log");
    per_element = add(sub(relu_logits, mul(logits, z, "mul"), "sub"), softplus, "add_1");
  }
  return weighted_mean(g, per_element, scope_name);
}

}  // namespace losses

namespace metrics {

Output batch_accuracy(const Output& labels, const Output& predictions, std::string_view name) {
  Graph& g = predictions.graph();
  const std::string scope_name = g.unique_name(name.empty() ? "batch_accuracy" : name);
  auto scope = g.name_scope(scope_name + "/");
  Output correct = cast(equal(predictions, labels, "Equal"), DType::float32, "ToFloat");
  return reduce_mean(correct, std::nullopt, false, "Mean");
}

std::pair<Output, Output> accuracy(const Output& labels, const Output& predictions,
                                   std::string_view name) {
  Graph& g = predictions.graph();
  const std::string scope_name = g.unique_name(name.empty() ? "accuracy" : name);
  auto scope = g.name_scope(scope_name + "/");
  Output correct = cast(equal(predictions, labels, "Equal"), DType::float32, "ToFloat");
  VariableOptions local;
  local.trainable = false;
  local.collections = std::vector<std::string>{kLocalVariables};
  local.name = "total";
  Variable total = g.variable(Tensor(0.0f), local);
  local.name = "count";
  Variable count = g.variable(Tensor(0.0f), local);
  Output batch_sum = reduce_sum(correct, std::nullopt, false, "Sum");
  Output batch_count = cast(af::size(correct, DType::int32, "Size"), DType::float32, "ToFloat_1");
  Output update_total = total.assign_add(batch_sum, "AssignAdd");
  Output update_count;
  {
    auto deps = g.control_dependencies({batch_sum.op()});
    update_count = count.assign_add(batch_count, "AssignAdd_1");
  }
  auto safe_div = [&](const Output& a, const Output& b, const char* n) {
    // div_no_nan: a / b, 0 where b == 0.
    Output zero = scalar_like(b, 0.0, std::string(n) + "/zero");
    Output positive = greater(b, zero, std::string(n) + "/Greater");
    Output safe_b = select(positive, b, ones_like(b, std::nullopt, std::string(n) + "/ones_like"),
                           std::string(n) + "/safe");
    return select(positive, div(a, safe_b, std::string(n) + "/truediv"),
                  zeros_like(a, std::nullopt, std::string(n) + "/zeros_like"),
                  std::string(n) + "/");
  };
  Output value = safe_div(total.value(), count.value(), "value");
  Output update = safe_div(update_total, update_count, "update_op");
  return {value, update};
}

}  // namespace metrics

}  // namespace af
