// The definitions of ParseExample, ParseExampleV2 and ParseSingleExample (shape functions as
// TensorFlow's parsing_ops.cc) and the builder af::io::parse_example, laid out as tf.compat.v1.io.
// parse_example builds it. Their CPU kernel is in kernels/src/parse_example_ops.cpp.
#include "actorflow/ops/parse_example_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "example_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::check_feature_type;
using detail::string_vector;
using detail::with_rank;
using detail::with_rank_at_most;

// ParseExample (V1: keys as scalar inputs) and ParseExampleV2 (keys as vectors): for each
// sparse key int64 indices [?, rank + 1], values [?] and a shape [rank + 1]; for each dense
// key serialized.shape + its dense shape (-1 unknown), rank being serialized's.
Status infer_parse_example(InferenceContext& c) {
  const bool v2 = c.node.op == "ParseExampleV2";
  const bool single = c.node.op == "ParseSingleExample";
  std::vector<DType> sparse_types, dense_types;
  std::vector<PartialShape> dense_shapes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("sparse_types", &sparse_types));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tdense", &dense_types));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dense_shapes", &dense_shapes));
  const auto num_sparse = static_cast<int>(sparse_types.size());
  const auto num_dense = static_cast<int>(dense_types.size());
  if (dense_shapes.size() != dense_types.size())
    return invalid_argument("len(dense_keys) != len(dense_shapes)");
  for (DType t : sparse_types) ACTORFLOW_RETURN_IF_ERROR(check_feature_type(t, "sparse_types"));
  for (DType t : dense_types) ACTORFLOW_RETURN_IF_ERROR(check_feature_type(t, "Tdense"));
  std::vector<DType> ragged;
  if (v2) c.get_attr("ragged_value_types", &ragged);
  if (single) {
    std::vector<std::string> sparse_keys, dense_keys;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("sparse_keys", &sparse_keys));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dense_keys", &dense_keys));
    if (static_cast<int>(sparse_keys.size()) != num_sparse)
      return invalid_argument("len(sparse_keys) != len(sparse_types)");
    if (static_cast<int>(dense_keys.size()) != num_dense)
      return invalid_argument("len(dense_keys) != len(dense_shapes)");
  }
  const int defaults_at = single ? 1 : v2 ? 5 : 2 + num_sparse + num_dense;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(defaults_at + num_dense));
  for (int i = 1; i < defaults_at; ++i)
    if (c.input_types[static_cast<std::size_t>(i)] != DType::string)
      return invalid_argument("Input " + std::to_string(i) + " of '" + c.node.op +
                              "' must be a string tensor");
  const PartialShape& serialized = c.input_shapes[0];
  if (single) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(serialized, 0));
  } else if (v2) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(serialized, 1));
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[1], 1));
    const int counts[] = {num_sparse, num_dense, static_cast<int>(ragged.size())};
    for (int k = 0; k < 3; ++k) {
      const PartialShape& keys = c.input_shapes[static_cast<std::size_t>(2 + k)];
      ACTORFLOW_RETURN_IF_ERROR(with_rank(keys, 1));
      if (keys.rank_known() && keys.dim(0) >= 0 && keys.dim(0) != counts[k])
        return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                                std::to_string(keys.dim(0)) + " and " + std::to_string(counts[k]));
    }
  } else {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(serialized, 1));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
    for (int i = 2; i < defaults_at; ++i)
      ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0));
  }
  for (int d = 0; d < num_dense; ++d)
    if (c.input_types[static_cast<std::size_t>(defaults_at + d)] !=
        dense_types[static_cast<std::size_t>(d)])
      return invalid_argument(
          "dense_defaults[" + std::to_string(d) + "] has type " +
          std::string(dtype_name(c.input_types[static_cast<std::size_t>(defaults_at + d)])) +
          ", Tdense[" + std::to_string(d) + "] is " +
          std::string(dtype_name(dense_types[static_cast<std::size_t>(d)])));
  const std::int64_t rank = serialized.rank_known() ? serialized.rank() + 1 : -1;
  for (int s = 0; s < num_sparse; ++s)
    c.add_output(DType::int64,
                 rank >= 0 ? PartialShape{-1, rank} : PartialShape::unknown_of_rank(2));
  for (int s = 0; s < num_sparse; ++s)
    c.add_output(sparse_types[static_cast<std::size_t>(s)], PartialShape{-1});
  for (int s = 0; s < num_sparse; ++s) c.add_output(DType::int64, PartialShape{rank});
  for (int d = 0; d < num_dense; ++d) {
    const PartialShape& shape = dense_shapes[static_cast<std::size_t>(d)];
    if (!serialized.rank_known() || !shape.rank_known()) {
      c.add_output(dense_types[static_cast<std::size_t>(d)], PartialShape::unknown());
      continue;
    }
    std::vector<std::int64_t> dims = serialized.dims();
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    c.add_output(dense_types[static_cast<std::size_t>(d)], PartialShape(std::move(dims)));
  }
  return {};
}

}  // namespace

namespace detail {

void register_parse_example_ops(OpRegistry& r) {
  r.add({"ParseExample", infer_parse_example});
  r.add({"ParseExampleV2", infer_parse_example});
  r.add({"ParseSingleExample", infer_parse_example});
}

}  // namespace detail

namespace io {

ParsedFeatures parse_example(const Output& serialized,
                             const std::map<std::string, FixedLenFeature>& dense,
                             const std::map<std::string, VarLenFeature>& sparse,
                             std::string_view name) {
  Graph& g = serialized.graph();
  auto scope = g.name_scope(name.empty() ? "ParseExample" : name);
  std::vector<std::string> sparse_keys, dense_keys;
  std::vector<DType> sparse_types, dense_types;
  std::vector<PartialShape> dense_shapes;
  std::vector<Output> inputs{serialized};
  std::vector<Output> defaults;
  for (const auto& [key, f] : sparse) {
    throw_if_error(check_feature_type(f.dtype, "sparse_types"));
    sparse_keys.push_back(key);
    sparse_types.push_back(f.dtype);
  }
  for (const auto& [key, f] : dense) {
    throw_if_error(check_feature_type(f.dtype, "Tdense"));
    const bool sequence = !f.shape.empty() && f.shape[0] == -1;
    dense_keys.push_back(key);
    dense_types.push_back(f.dtype);
    dense_shapes.emplace_back(f.shape);
    if (!f.default_value) {
      defaults.push_back(g.constant(Tensor(f.dtype, Shape{0}), "Const"));
      continue;
    }
    const Tensor& v = *f.default_value;
    if (v.dtype() != f.dtype)
      throw InvalidArgumentError(invalid_argument(
          "The default of feature '" + key + "' is " + std::string(dtype_name(v.dtype())) +
          ", the feature " + std::string(dtype_name(f.dtype))));
    if (sequence ? v.num_elements() != 1 : v.shape().dims() != f.shape)
      throw InvalidArgumentError(invalid_argument(
          "The default of feature '" + key + "' has shape " + v.shape().to_string() +
          (sequence ? ", not a scalar (the padding value)" : ", not the feature's")));
    Tensor shaped = v;
    if (sequence) shaped = shaped.reshaped(Shape{});
    defaults.push_back(g.constant(shaped, (sequence ? "padding_" : "key_") + key));
  }
  const std::string op_name = g.unique_name("ParseExampleV2");
  {
    auto op_scope = g.name_scope(op_name + "/");
    inputs.push_back(g.constant(string_vector({}), "names"));
    inputs.push_back(g.constant(string_vector(sparse_keys), "sparse_keys"));
    inputs.push_back(g.constant(string_vector(dense_keys), "dense_keys"));
    inputs.push_back(g.constant(string_vector({}), "ragged_keys"));
  }
  inputs.insert(inputs.end(), defaults.begin(), defaults.end());
  Operation op = g.create_op("ParseExampleV2", inputs,
                             {{"num_sparse", static_cast<std::int64_t>(sparse_keys.size())},
                              {"sparse_types", sparse_types},
                              {"ragged_value_types", std::vector<DType>{}},
                              {"ragged_split_types", std::vector<DType>{}},
                              {"Tdense", dense_types},
                              {"dense_shapes", dense_shapes}},
                             op_name + "/");
  ParsedFeatures out;
  const auto ns = static_cast<int>(sparse_keys.size());
  for (int s = 0; s < ns; ++s)
    out.sparse[sparse_keys[static_cast<std::size_t>(s)]] = {op.output(s), op.output(ns + s),
                                                            op.output(2 * ns + s)};
  for (std::size_t d = 0; d < dense_keys.size(); ++d)
    out.dense[dense_keys[d]] = op.output(3 * ns + static_cast<int>(d));
  return out;
}

}  // namespace io

}  // namespace af
