// The definitions of Sum, Mean, Max, Min, Prod, Any and All (shape function, builders); their
// CPU kernels are in kernels/src/reduction_ops.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "reduction_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using namespace cwise;  // NOLINT: the shared element-wise definitions
using detail::reduction_op;

// `allowed` empty: Any and All, whose input is bool (no T attribute).
Status infer_reduction(InferenceContext& c, const std::vector<DType>& allowed) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  if (allowed.empty()) {
    if (t != DType::boolean)
      return invalid_argument(fixed_type_mismatch_message(c.node.op, "input", t, DType::boolean));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(t, allowed));
  }
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[1], "Tidx"));
  const Tensor* indices = c.input_values[1];
  if (indices != nullptr && c.input_shapes[0].rank_known() && indices->rank() > 1)
    return invalid_argument("Shape must be at most rank 1 but is rank " +
                            std::to_string(indices->rank()));
  return detail::add_reduction_output(c, t);
}

}  // namespace

namespace detail {

Output reduction_op(const char* type, const Output& x,
                    const std::optional<std::vector<std::int64_t>>& axes, bool keep_dims,
                    std::string_view name) {
  Graph& g = x.graph();
  const bool logical = std::string_view(type) == "Any" || std::string_view(type) == "All";
  if (logical && x.dtype() != DType::boolean)
    throw InvalidArgumentError(invalid_argument(
        cwise::fixed_type_mismatch_message(type, "input", x.dtype(), DType::boolean)));
  AttrMap attrs{{"keep_dims", keep_dims}, {"Tidx", DType::int32}};
  if (!logical) attrs.emplace("T", x.dtype());
  std::string requested(name.empty() ? std::string_view(type) : name);
  if (!axes) {
    // TensorFlow's _ReductionDims: a Const of range(rank) beside the op.
    if (!x.shape().rank_known())
      throw InvalidArgumentError(
          invalid_argument(std::string(type) + " over all axes of '" + x.name() +
                           "' needs its rank, which is unknown; pass the axes explicitly"));
    std::vector<std::int32_t> all(static_cast<std::size_t>(x.shape().rank()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int32_t>(i);
    Output indices = g.constant(Tensor::from_vector(all), "Const");
    return g.create_op(type, {x, indices}, std::move(attrs), requested).output(0);
  }
  // Explicit axes become the op's input "<op>/reduction_indices", as op_def_library names them.
  std::vector<std::int32_t> values;
  for (auto a : *axes) values.push_back(static_cast<std::int32_t>(a));
  const std::string op_name = g.unique_name(requested);
  Output indices;
  {
    auto scope = g.name_scope(op_name + "/");
    indices = g.constant(Tensor::from_vector(values), "reduction_indices");
  }
  return g.create_op(type, {x, indices}, std::move(attrs), op_name + "/").output(0);
}

void register_reduction_ops(OpRegistry& r) {
  for (const char* type : {"Sum", "Mean", "Prod", "Max", "Min"})
    r.add({type, [type](InferenceContext& c) { return infer_reduction(c, op_def_types(type)); }});
  for (const char* type : {"Any", "All"})
    r.add({type, [](InferenceContext& c) { return infer_reduction(c, {}); }});
}

}  // namespace detail

Output reduce_sum(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("Sum", x, axes, keep_dims, name);
}
Output reduce_mean(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                   std::string_view name) {
  return reduction_op("Mean", x, axes, keep_dims, name);
}
Output reduce_max(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("Max", x, axes, keep_dims, name);
}
Output reduce_min(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("Min", x, axes, keep_dims, name);
}
Output reduce_prod(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                   std::string_view name) {
  return reduction_op("Prod", x, axes, keep_dims, name);
}

Output reduce_any(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("Any", x, axes, keep_dims, name);
}
Output reduce_all(const Output& x, std::optional<std::vector<std::int64_t>> axes, bool keep_dims,
                  std::string_view name) {
  return reduction_op("All", x, axes, keep_dims, name);
}

}  // namespace af
