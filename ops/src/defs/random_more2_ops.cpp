// The definitions of RandomGammaGrad (random_ops.cc, BroadcastBinaryOpShapeFn), RandomPoisson,
// RandomPoissonV2 and ParameterizedTruncatedNormal (random_ops.cc shape functions), and the
// builders tf.random.gamma, tf.random.poisson and the raw RandomGammaGrad and
// ParameterizedTruncatedNormal. Their CPU kernels are in kernels/src/random_more2_ops.cpp;
// RandomGamma's gradient is in ops/src/gradients/random_more_grad.cpp.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/misc_array_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/random_more_ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::check_attr_type;
using detail::check_index_type;

// RandomGammaGrad's T and RandomGamma's alpha in actorflow (TensorFlow's lists also hold half).
const std::vector<DType> kGammaTypes = {DType::float32, DType::float64};
// RandomPoissonV2's R and dtype (TensorFlow's list also holds half).
const std::vector<DType> kPoissonV2Types = {DType::float32, DType::float64, DType::int32,
                                            DType::int64};
constexpr const char* kPoissonV2Names = "half, float, double, int32, int64";
// ParameterizedTruncatedNormal's dtype: TensorFlow's list (half aside); the CPU kernels take
// float and double.
const std::vector<DType> kTruncatedNormalTypes = {DType::bfloat16, DType::float32, DType::float64};
constexpr const char* kTruncatedNormalNames = "half, bfloat16, float, double";

// RandomGammaGrad(alpha, sample): BroadcastBinaryOpShapeFn over float or double.
Status infer_random_gamma_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_binary_types(c, "alpha", "sample", kGammaTypes));
  return cwise::infer_binary(c, kGammaTypes);
}

// RandomPoisson / RandomPoissonV2: the shape input's value (attr S) followed by the rate's
// shape; V1's rate and output are of attr dtype, V2's rate of attr R and output of dtype.
Status infer_random_poisson(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "S"));
  const bool v2 = c.node.op == "RandomPoissonV2";
  DType dtype = c.input_types[1];
  if (v2) {
    ACTORFLOW_RETURN_IF_ERROR(
        check_attr_type(c.input_types[1], "R", kPoissonV2Types, kPoissonV2Names));
    dtype = DType::int64;
    c.get_attr("dtype", &dtype);
    ACTORFLOW_RETURN_IF_ERROR(check_attr_type(dtype, "dtype", kPoissonV2Types, kPoissonV2Names));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(check_attr_type(dtype, "dtype", kGammaTypes, "half, float, double"));
  }
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  const PartialShape& rate = c.input_shapes[1];
  if (!shape.rank_known() || !rate.rank_known()) {
    c.add_output(dtype, PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims = shape.dims();
  for (auto d : rate.dims()) dims.push_back(d);
  c.add_output(dtype, PartialShape(std::move(dims)));
  return {};
}

// ParameterizedTruncatedNormal: RandomShape (the shape input's value, attr T); the four
// parameters of attr dtype (their ranks are checked by the kernel).
Status infer_parameterized_truncated_normal(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "T"));
  const char* names[] = {"means", "stdevs", "minvals", "maxvals"};
  const DType dtype = c.input_types[1];
  for (int i = 2; i <= 4; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != dtype)
      return invalid_argument(cwise::type_mismatch_message(
          c.node.op, names[i - 1], c.input_types[static_cast<std::size_t>(i)], "means", dtype));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(dtype, "dtype", kTruncatedNormalTypes, kTruncatedNormalNames));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &shape));
  c.add_output(dtype, std::move(shape));
  return {};
}

[[noreturn]] void refuse(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

// convert_to_tensor(x, dtype)'s refusal of a tensor of another dtype.
void check_conversion(const Output& x, DType dtype) {
  if (x.dtype() != dtype)
    refuse("Tensor conversion requested dtype " + std::string(dtype_name(dtype)) +
           " for Tensor with dtype " + std::string(dtype_name(x.dtype())) + ": " + x.name());
}

// A scalar float or double constant.
Tensor float_scalar(DType dtype, double value) {
  if (dtype == DType::float64) return Tensor(value);
  return Tensor(static_cast<float>(value));
}

}  // namespace

namespace detail {

void register_random_more2_ops(OpRegistry& r) {
  r.add({"RandomGammaGrad", infer_random_gamma_grad});
  r.add({"RandomPoisson", infer_random_poisson, true});
  r.add({"RandomPoissonV2", infer_random_poisson, true});
  r.add({"ParameterizedTruncatedNormal", infer_parameterized_truncated_normal, true});
}

}  // namespace detail

namespace {

// tf.random.gamma's graph under its scope; `make_shape` gives the int32 shape input there.
template <class MakeShape>
Output random_gamma_graph(MakeShape&& make_shape, const Output& alpha, const Output& beta,
                          std::optional<std::int64_t> seed, std::string_view name) {
  const DType dtype = alpha.dtype();
  if (dtype != DType::float32 && dtype != DType::float64)
    refuse("random_gamma: invalid dtype " + std::string(dtype_name(dtype)) +
           " (expected float32 or float64)");
  if (beta.valid()) check_conversion(beta, dtype);
  Graph& g = alpha.graph();
  const std::string scope = g.unique_name(name.empty() ? "random_gamma" : name);
  auto guard = g.name_scope(scope + "/");
  const Output shape = make_shape();
  check_conversion(shape, DType::int32);
  const Output beta_t = beta.valid() ? beta : g.constant(float_scalar(dtype, 1.0), "beta");
  // "Shape" and "Shape_1", or "Shape_1" and "Shape_2" after the Const "shape" (names are
  // counted case-insensitively).
  const Output alpha_shape = af::shape(alpha, DType::int32, "Shape");
  const Output beta_shape = af::shape(beta_t, DType::int32, "Shape");
  const Output broadcast_shape = broadcast_dynamic_shape(alpha_shape, beta_shape, "BroadcastArgs");
  const Output alpha_broadcast = g.create_op("BroadcastTo", {alpha, broadcast_shape},
                                             {{"T", dtype}, {"Tidx", DType::int32}}, "BroadcastTo")
                                     .output(0);
  const auto [seed1, seed2] = g.get_seed(seed);
  const Output samples =
      g.create_op("RandomGamma", {shape, alpha_broadcast},
                  {{"seed", seed1}, {"seed2", seed2}, {"S", DType::int32}, {"T", dtype}},
                  "RandomGamma")
          .output(0);
  const Output scaled = div(samples, beta_t, "truediv");
  // maximum(np.finfo(dtype).tiny, ...): the Const converted in the Maximum's scope.
  const std::string max_name = g.unique_name("Maximum");
  Output tiny;
  {
    auto max_scope = g.name_scope(max_name + "/");
    tiny = g.constant(dtype == DType::float64 ? Tensor(std::numeric_limits<double>::min())
                                              : Tensor(std::numeric_limits<float>::min()),
                      "x");
  }
  return g.create_op("Maximum", {tiny, scaled}, {{"T", dtype}}, max_name + "/").output(0);
}

}  // namespace

Output random_gamma(const Output& shape, const Output& alpha, const Output& beta,
                    std::optional<std::int64_t> seed, std::string_view name) {
  return random_gamma_graph([&] { return shape; }, alpha, beta, seed, name);
}

Output random_gamma(const Shape& shape, const Output& alpha, const Output& beta,
                    std::optional<std::int64_t> seed, std::string_view name) {
  return random_gamma_graph(
      [&] {
        // convert_to_tensor(shape, name="shape", dtype=int32) inside the scope.
        std::vector<std::int32_t> dims(shape.dims().begin(), shape.dims().end());
        return alpha.graph().constant(Tensor::from_vector(std::move(dims)), "shape");
      },
      alpha, beta, seed, name);
}

Output random_gamma_grad(const Output& alpha, const Output& sample, std::string_view name) {
  if (sample.dtype() != alpha.dtype())
    refuse(cwise::type_mismatch_message("RandomGammaGrad", "sample", sample.dtype(), "alpha",
                                        alpha.dtype()));
  return alpha.graph()
      .create_op("RandomGammaGrad", {alpha, sample}, {{"T", alpha.dtype()}},
                 name.empty() ? "RandomGammaGrad" : name)
      .output(0);
}

Output random_poisson(const Shape& shape, const Output& lam, DType dtype,
                      std::optional<std::int64_t> seed, std::string_view name) {
  bool allowed = false;
  for (DType t : kPoissonV2Types) allowed = allowed || t == dtype;
  if (!allowed)
    refuse("random_poisson: invalid dtype " + std::string(dtype_name(dtype)) +
           " (expected float32, float64, int32 or int64)");
  Graph& g = lam.graph();
  const std::string scope = g.unique_name(name.empty() ? "random_poisson" : name);
  auto guard = g.name_scope(scope + "/");
  std::vector<std::int32_t> dims(shape.dims().begin(), shape.dims().end());
  const Output shape_t = g.constant(Tensor::from_vector(std::move(dims)), "shape");
  const auto [seed1, seed2] = g.get_seed(seed);
  return g
      .create_op("RandomPoissonV2", {shape_t, lam},
                 {{"seed", seed1},
                  {"seed2", seed2},
                  {"S", DType::int32},
                  {"R", lam.dtype()},
                  {"dtype", dtype}},
                 "RandomPoissonV2")
      .output(0);
}

Output parameterized_truncated_normal(const Output& shape, const Output& means,
                                      const Output& stdevs, const Output& minvals,
                                      const Output& maxvals, std::optional<std::int64_t> seed,
                                      std::string_view name) {
  Graph& g = means.graph();
  const auto [seed1, seed2] = g.get_seed(seed);
  return g
      .create_op(
          "ParameterizedTruncatedNormal", {shape, means, stdevs, minvals, maxvals},
          {{"seed", seed1}, {"seed2", seed2}, {"dtype", means.dtype()}, {"T", shape.dtype()}},
          name.empty() ? "ParameterizedTruncatedNormal" : name)
      .output(0);
}

}  // namespace af
