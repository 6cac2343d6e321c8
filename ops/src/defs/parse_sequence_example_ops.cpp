// The definitions of ParseSequenceExampleV2, ParseSequenceExample and ParseSingleSequenceExample
// (shape functions as TensorFlow's parsing_ops.cc) and the builders
// af::io::parse_single_sequence_example and af::io::parse_sequence_example, laid out as
// TensorFlow 2.21's tf.io.parse_(single_)sequence_example build them. Their CPU kernel is in
// kernels/src/parse_sequence_example_ops.cpp.
#include "actorflow/ops/parse_sequence_example_ops.hpp"

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

// serialized.shape + `tail`; unknown when serialized's rank is.
PartialShape prefixed(const PartialShape& serialized, const std::vector<std::int64_t>& tail) {
  if (!serialized.rank_known()) return PartialShape::unknown();
  std::vector<std::int64_t> dims = serialized.dims();
  dims.insert(dims.end(), tail.begin(), tail.end());
  return PartialShape(std::move(dims));
}

// The three ops: context sparse indices [?, rank + 1], values [?], shapes [rank + 1]; context
// dense serialized.shape + shape; feature-list sparse indices [?, rank + 2], values [?], shapes
// [rank + 2]; feature-list dense serialized.shape + [?] + shape; (batched) their lengths of
// serialized's shape. rank: serialized's (ParseSingleSequenceExample: 0; ParseSequenceExample:
// 1; V2: at most 1).
Status infer_parse_sequence_example(InferenceContext& c) {
  const int version = c.node.op == "ParseSequenceExampleV2" ? 2
                      : c.node.op == "ParseSequenceExample" ? 1
                                                            : 0;
  std::vector<DType> cs, cd, fs, fd;
  std::vector<PartialShape> cd_shapes, fd_shapes;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("context_sparse_types", &cs));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tcontext_dense", &cd));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("context_dense_shapes", &cd_shapes));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("feature_list_sparse_types", &fs));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("feature_list_dense_types", &fd));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("feature_list_dense_shapes", &fd_shapes));
  for (DType t : cs) ACTORFLOW_RETURN_IF_ERROR(check_feature_type(t, "context_sparse_types"));
  for (DType t : cd) ACTORFLOW_RETURN_IF_ERROR(check_feature_type(t, "Tcontext_dense"));
  for (DType t : fs) ACTORFLOW_RETURN_IF_ERROR(check_feature_type(t, "feature_list_sparse_types"));
  for (DType t : fd) ACTORFLOW_RETURN_IF_ERROR(check_feature_type(t, "feature_list_dense_types"));
  if (cd_shapes.size() != cd.size())
    return invalid_argument("len(context_dense_keys) != len(context_dense_shapes)");
  if (fd_shapes.size() != fd.size())
    return invalid_argument("len(feature_list_dense_keys) != len(feature_list_dense_shapes)");
  for (const auto& s : cd_shapes)
    if (!s.fully_defined())
      return invalid_argument("context_dense_shapes must be fully defined, got " +
                              detail::inference_shape_string(s));
  for (const auto& s : fd_shapes)
    if (!s.fully_defined())
      return invalid_argument("feature_list_dense_shapes must be fully defined, got " +
                              detail::inference_shape_string(s));
  const auto ncs = static_cast<int>(cs.size()), ncd = static_cast<int>(cd.size()),
             nfs = static_cast<int>(fs.size()), nfd = static_cast<int>(fd.size());
  if (version == 2) {
    std::vector<DType> a, b;
    c.get_attr("context_ragged_value_types", &a);
    c.get_attr("feature_list_ragged_value_types", &b);
    if (!a.empty() || !b.empty())
      return unimplemented(
          "ParseSequenceExampleV2 with ragged features is not supported here; use "
          "VarLenFeature or FixedLenSequenceFeature");
  }
  const int defaults_at = version == 2 ? 9 : version == 1 ? 2 : 2 + ncs + ncd + nfs + nfd;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(defaults_at + ncd + (version == 0 ? 1 : 0)));
  for (int d = 0; d < ncd; ++d)
    if (c.input_types[static_cast<std::size_t>(defaults_at + d)] != cd[static_cast<std::size_t>(d)])
      return invalid_argument(
          "context_dense_defaults[" + std::to_string(d) + "] has type " +
          std::string(dtype_name(c.input_types[static_cast<std::size_t>(defaults_at + d)])) +
          ", Tcontext_dense[" + std::to_string(d) + "] is " +
          std::string(dtype_name(cd[static_cast<std::size_t>(d)])));
  const PartialShape& serialized = c.input_shapes[0];
  if (version == 2) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(serialized, 1));
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[1], 1));
    const int counts[] = {ncs, ncd, 0, nfs, nfd, 0, nfd};
    for (int k = 0; k < 7; ++k) {
      const PartialShape& keys = c.input_shapes[static_cast<std::size_t>(2 + k)];
      ACTORFLOW_RETURN_IF_ERROR(with_rank(keys, 1));
      if (keys.rank_known() && keys.dim(0) >= 0 && keys.dim(0) != counts[k])
        return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                                std::to_string(keys.dim(0)) + " and " + std::to_string(counts[k]));
    }
  } else if (version == 1) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(serialized, 1));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  } else {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(serialized, 0));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
    for (int i = 2; i < defaults_at; ++i)
      ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0));
    ACTORFLOW_RETURN_IF_ERROR(
        with_rank(c.input_shapes[static_cast<std::size_t>(defaults_at + ncd)], 0));
  }
  const std::int64_t rank = serialized.rank_known() ? serialized.rank() : -1;
  auto sparse = [&](const std::vector<DType>& types, std::int64_t extra) {
    const std::int64_t r = rank >= 0 ? rank + extra : -1;
    for (std::size_t s = 0; s < types.size(); ++s) c.add_output(DType::int64, PartialShape{-1, r});
    for (DType t : types) c.add_output(t, PartialShape{-1});
    for (std::size_t s = 0; s < types.size(); ++s) c.add_output(DType::int64, PartialShape{r});
  };
  sparse(cs, 1);
  for (int d = 0; d < ncd; ++d)
    c.add_output(cd[static_cast<std::size_t>(d)],
                 prefixed(serialized, cd_shapes[static_cast<std::size_t>(d)].dims()));
  sparse(fs, 2);
  for (int d = 0; d < nfd; ++d) {
    std::vector<std::int64_t> tail{-1};
    for (auto dim : fd_shapes[static_cast<std::size_t>(d)].dims()) tail.push_back(dim);
    c.add_output(fd[static_cast<std::size_t>(d)], prefixed(serialized, tail));
  }
  if (version != 0)
    for (int d = 0; d < nfd; ++d) c.add_output(DType::int64, prefixed(serialized, {}));
  return {};
}

// Both builders: tf.io.parse_(single_)sequence_example's _parse_sequence_example_raw.
io::ParsedSequenceExample build(
    const Output& serialized, const std::map<std::string, io::FixedLenFeature>& context_dense,
    const std::map<std::string, io::VarLenFeature>& context_sparse,
    const std::map<std::string, io::FixedLenSequenceFeature>& sequence_dense,
    const std::map<std::string, io::VarLenFeature>& sequence_sparse, const Tensor& debug_name,
    bool batched) {
  if (context_dense.empty() && context_sparse.empty() && sequence_dense.empty() &&
      sequence_sparse.empty())
    throw InvalidArgumentError(invalid_argument("Must provide at least one feature key."));
  Graph& g = serialized.graph();
  std::vector<std::string> cs_keys, cd_keys, fs_keys, fd_keys;
  std::vector<DType> cs_types, cd_types, fs_types, fd_types;
  std::vector<PartialShape> cd_shapes, fd_shapes;
  std::vector<bool> assumed_empty;
  std::vector<Output> defaults;
  for (const auto& [key, f] : context_sparse) {
    throw_if_error(check_feature_type(f.dtype, "context_sparse_types"));
    cs_keys.push_back(key);
    cs_types.push_back(f.dtype);
  }
  for (const auto& [key, f] : context_dense) {
    throw_if_error(check_feature_type(f.dtype, "Tcontext_dense"));
    for (auto dim : f.shape)
      if (dim < 0)
        throw InvalidArgumentError(
            invalid_argument("Context feature '" + key + "' must have a fully defined shape, got " +
                             detail::inference_shape_string(PartialShape(f.shape))));
    cd_keys.push_back(key);
    cd_types.push_back(f.dtype);
    cd_shapes.emplace_back(f.shape);
    if (!f.default_value) {
      defaults.push_back(g.constant(Tensor(f.dtype, Shape{0}), "Const"));
      continue;
    }
    const Tensor& v = *f.default_value;
    if (v.dtype() != f.dtype)
      throw InvalidArgumentError(invalid_argument(
          "The default of feature '" + key + "' is " + std::string(dtype_name(v.dtype())) +
          ", the feature " + std::string(dtype_name(f.dtype))));
    if (v.num_elements() != Shape(f.shape).num_elements())
      throw InvalidArgumentError(invalid_argument("The default of feature '" + key +
                                                  "' has shape " + v.shape().to_string() +
                                                  ", not the feature's"));
    defaults.push_back(g.constant(v.reshaped(Shape(f.shape)), "key_" + key));
  }
  for (const auto& [key, f] : sequence_sparse) {
    throw_if_error(check_feature_type(f.dtype, "feature_list_sparse_types"));
    fs_keys.push_back(key);
    fs_types.push_back(f.dtype);
  }
  for (const auto& [key, f] : sequence_dense) {
    throw_if_error(check_feature_type(f.dtype, "feature_list_dense_types"));
    for (auto dim : f.shape)
      if (dim < 0)
        throw InvalidArgumentError(invalid_argument(
            "Sequence feature '" + key + "' must have a fully defined shape, got " +
            detail::inference_shape_string(PartialShape(f.shape))));
    fd_keys.push_back(key);
    fd_types.push_back(f.dtype);
    fd_shapes.emplace_back(f.shape);
    assumed_empty.push_back(f.allow_missing);
  }
  const std::string op_name = g.unique_name("ParseSequenceExampleV2");
  std::vector<Output> inputs{serialized};
  {
    auto op_scope = g.name_scope(op_name + "/");
    inputs.push_back(g.constant(debug_name, "debug_name"));
    inputs.push_back(g.constant(string_vector(cs_keys), "context_sparse_keys"));
    inputs.push_back(g.constant(string_vector(cd_keys), "context_dense_keys"));
    inputs.push_back(g.constant(string_vector({}), "context_ragged_keys"));
    inputs.push_back(g.constant(string_vector(fs_keys), "feature_list_sparse_keys"));
    inputs.push_back(g.constant(string_vector(fd_keys), "feature_list_dense_keys"));
    inputs.push_back(g.constant(string_vector({}), "feature_list_ragged_keys"));
    Tensor missing(DType::boolean, Shape{static_cast<std::int64_t>(assumed_empty.size())});
    for (std::size_t d = 0; d < assumed_empty.size(); ++d)
      missing.data<bool>()[d] = assumed_empty[d];
    inputs.push_back(g.constant(missing, "feature_list_dense_missing_assumed_empty"));
  }
  inputs.insert(inputs.end(), defaults.begin(), defaults.end());
  const auto ncs = static_cast<int>(cs_keys.size()), ncd = static_cast<int>(cd_keys.size()),
             nfs = static_cast<int>(fs_keys.size()), nfd = static_cast<int>(fd_keys.size());
  Operation op = g.create_op("ParseSequenceExampleV2", inputs,
                             {{"Ncontext_sparse", static_cast<std::int64_t>(ncs)},
                              {"Tcontext_dense", cd_types},
                              {"context_sparse_types", cs_types},
                              {"context_ragged_value_types", std::vector<DType>{}},
                              {"context_ragged_split_types", std::vector<DType>{}},
                              {"context_dense_shapes", cd_shapes},
                              {"Nfeature_list_sparse", static_cast<std::int64_t>(nfs)},
                              {"Nfeature_list_dense", static_cast<std::int64_t>(nfd)},
                              {"feature_list_dense_types", fd_types},
                              {"feature_list_sparse_types", fs_types},
                              {"feature_list_ragged_value_types", std::vector<DType>{}},
                              {"feature_list_ragged_split_types", std::vector<DType>{}},
                              {"feature_list_dense_shapes", fd_shapes}},
                             op_name + "/");
  io::ParsedSequenceExample out;
  for (int s = 0; s < ncs; ++s)
    out.context_sparse[cs_keys[static_cast<std::size_t>(s)]] = {op.output(s), op.output(ncs + s),
                                                                op.output(2 * ncs + s)};
  for (int d = 0; d < ncd; ++d)
    out.context_dense[cd_keys[static_cast<std::size_t>(d)]] = op.output(3 * ncs + d);
  const int at = 3 * ncs + ncd;
  for (int s = 0; s < nfs; ++s)
    out.sequence_sparse[fs_keys[static_cast<std::size_t>(s)]] = {
        op.output(at + s), op.output(at + nfs + s), op.output(at + 2 * nfs + s)};
  for (int d = 0; d < nfd; ++d) {
    out.sequence_dense[fd_keys[static_cast<std::size_t>(d)]] = op.output(at + 3 * nfs + d);
    if (batched)
      out.sequence_lengths[fd_keys[static_cast<std::size_t>(d)]] =
          op.output(at + 3 * nfs + nfd + d);
  }
  return out;
}

}  // namespace

namespace detail {

void register_parse_sequence_example_ops(OpRegistry& r) {
  r.add({"ParseSequenceExampleV2", infer_parse_sequence_example});
  r.add({"ParseSequenceExample", infer_parse_sequence_example});
  r.add({"ParseSingleSequenceExample", infer_parse_sequence_example});
}

}  // namespace detail

namespace io {

ParsedSequenceExample parse_single_sequence_example(
    const Output& serialized, const std::map<std::string, FixedLenFeature>& context_dense,
    const std::map<std::string, VarLenFeature>& context_sparse,
    const std::map<std::string, FixedLenSequenceFeature>& sequence_dense,
    const std::map<std::string, VarLenFeature>& sequence_sparse, std::string_view example_name,
    std::string_view name) {
  const PartialShape& shape = serialized.shape();
  if (shape.rank_known() && shape.rank() != 0)
    throw InvalidArgumentError(invalid_argument("Input serialized must be a scalar"));
  Graph& g = serialized.graph();
  auto outer = g.name_scope(name.empty() ? "ParseSingleSequenceExample" : name);
  auto inner = g.name_scope("ParseSequenceExample");
  const Tensor debug_name =
      example_name.empty() ? string_vector({}) : Tensor(std::string(example_name));
  return build(serialized, context_dense, context_sparse, sequence_dense, sequence_sparse,
               debug_name, false);
}

ParsedSequenceExample parse_sequence_example(
    const Output& serialized, const std::map<std::string, FixedLenFeature>& context_dense,
    const std::map<std::string, VarLenFeature>& context_sparse,
    const std::map<std::string, FixedLenSequenceFeature>& sequence_dense,
    const std::map<std::string, VarLenFeature>& sequence_sparse,
    const std::vector<std::string>& example_names, std::string_view name) {
  Graph& g = serialized.graph();
  auto outer = g.name_scope(name.empty() ? "ParseSequenceExample" : name);
  auto inner = g.name_scope("ParseSequenceExample");
  return build(serialized, context_dense, context_sparse, sequence_dense, sequence_sparse,
               string_vector(example_names), true);
}

}  // namespace io

}  // namespace af
