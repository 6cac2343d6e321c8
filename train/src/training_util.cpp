// training_util.py (global step) and learning_rate_decay.py (exponential_decay,
// piecewise_constant).
#include "actorflow/train/training_util.hpp"

#include <any>
#include <string>

#include "actorflow/ops/ops.hpp"

namespace af::train {

std::optional<Variable> get_global_step(Graph& g) {
  const auto& c = g.get_collection(kGlobalStep);
  if (c.empty()) return std::nullopt;
  if (c.size() > 1)
    throw InvalidArgumentError(invalid_argument("Multiple tensors in global_step collection."));
  return std::any_cast<Variable>(c[0]);
}

Variable create_global_step(Graph& g) {
  if (get_global_step(g))
    throw InvalidArgumentError(invalid_argument("\"global_step\" already exists."));
  auto root = g.name_scope("/");
  const std::string name = g.unique_name(kGlobalStep);
  VariableOptions options;
  options.name = name + "/";
  options.trainable = false;
  options.collections = std::vector<std::string>{kGlobalVariables, kGlobalStep};
  return g.variable([](Graph& graph) { return graph.constant(Tensor(std::int64_t{0}), "zeros"); },
                    options);
}

Variable get_or_create_global_step(Graph& g) {
  if (auto step = get_global_step(g)) return *step;
  return create_global_step(g);
}

namespace {

Output float_constant(Graph& g, double v, std::string_view name) {
  return g.constant(Tensor(static_cast<float>(v)), name);
}

}  // namespace

Output exponential_decay(HyperParameter learning_rate, const Output& global_step,
                         double decay_steps, double decay_rate, bool staircase,
                         std::string_view name) {
  if (!global_step.valid())
    throw InvalidArgumentError(invalid_argument("global_step is required for exponential_decay."));
  Graph& g = global_step.graph();
  const std::string scope_name = g.unique_name(name.empty() ? "ExponentialDecay" : name);
  auto scope = g.name_scope(scope_name + "/");
  Output lr = learning_rate.is_tensor()
                  ? learning_rate.tensor()
                  : float_constant(g, learning_rate.number(), "learning_rate");
  const DType dtype = lr.dtype();
  Output steps = cast(float_constant(g, decay_steps, "Cast/x"), dtype, "Cast");
  Output rate = cast(float_constant(g, decay_rate, "Cast_1/x"), dtype, "Cast_1");
  Output step = cast(global_step, dtype, "Cast_2");
  Output p = div(step, steps, "truediv");
  if (staircase) p = g.create_op("Floor", {p}, {{"T", dtype}}, "Floor").output(0);
  Output power = g.create_op("Pow", {rate, p}, {{"T", dtype}}, "Pow").output(0);
  return mul(lr, power, scope_name + "/");
}

Output piecewise_constant(const Output& x, const std::vector<double>& boundaries,
                          const std::vector<double>& values, std::string_view name) {
  if (values.size() != boundaries.size() + 1)
    throw InvalidArgumentError(
        invalid_argument("The length of boundaries should be 1 less than the length of values"));
  Graph& g = x.graph();
  const std::string scope_name = g.unique_name(name.empty() ? "PiecewiseConstant" : name);
  auto scope = g.name_scope(scope_name + "/");
  auto boundary = [&](double b) {
    Tensor t(x.dtype(), Shape{});
    visit_numeric_dtype(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (is_half_like_v<T>)
        t.data<T>()[0] = T(static_cast<float>(b));
      else if constexpr (!std::is_same_v<T, bool>)
        t.data<T>()[0] = static_cast<T>(b);
    });
    return g.constant(t, "Const");
  };
  // Innermost last: the first boundary that x does not exceed picks its value.
  Output result = float_constant(g, values.back(), "Const");
  for (std::size_t i = boundaries.size(); i-- > 0;) {
    Output below =
        g.create_op("LessEqual", {x, boundary(boundaries[i])}, {{"T", x.dtype()}}, "LessEqual")
            .output(0);
    result = g.create_op("Select", {below, float_constant(g, values[i], "Const"), result},
                         {{"T", DType::float32}}, i == 0 ? scope_name + "/" : std::string("Select"))
                 .output(0);
  }
  return result;
}

}  // namespace af::train
