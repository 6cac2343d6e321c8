// TensorFlow's `_embedding_lookup_and_transform` (embedding_ops.py) without a transform: the
// partition strategies, the per-part gathers colocated with their parts, the stitch and
// `_clip`'s clip_by_norm.
#include "actorflow/train/embedding_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/partition_ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"
#include "actorflow/ops/sparse_ops.hpp"
#include "actorflow/ops/sparse_segment_ops.hpp"

namespace af::train {

namespace {

Output int_like(Graph& g, DType dtype, std::int64_t v, const char* name) {
  if (dtype == DType::int64) return g.constant(Tensor(v), name);
  return g.constant(Tensor(static_cast<std::int32_t>(v)), name);
}

// `_clip`: clip_by_norm of each looked-up row (the axes after the ids' own).
Output clip(const Output& t, const Output& ids, std::optional<double> max_norm) {
  if (!max_norm) return t;
  const int ids_rank = ids.shape().rank(), rank = t.shape().rank();
  if (ids_rank < 0 || rank < 0)
    throw UnimplementedError(
        unimplemented("embedding_lookup: max_norm needs the ranks of ids and params"));
  std::vector<std::int64_t> axes;
  for (int a = ids_rank; a < rank; ++a) axes.push_back(a);
  Graph& g = t.graph();
  auto scope = g.name_scope("clip_by_norm");
  Output l2sum = reduce_sum(mul(t, t, "mul"), axes, true, "Sum");
  Output positive = greater(l2sum, scalar_like(l2sum, 0.0, "Greater/y"), "Greater");
  Output safe = select(positive, l2sum, ones_like(l2sum, {}, "ones_like"), "Select");
  Output l2norm = select(positive, sqrt(safe, "Sqrt"), l2sum, "Select_1");
  Output clip_norm = scalar_like(t, *max_norm, "clip_norm");
  Output scaled = mul(t, clip_norm, "mul_1");
  return identity(div(scaled, maximum(l2norm, clip_norm, "Maximum"), "truediv"), "clip_by_norm");
}

// `array_ops.gather(params, ids)`: a resource variable's value (its ReadVariableOp) is gathered
// from the handle by ResourceGather (`ResourceVariable.sparse_read`), reading only the rows.
Output gather_param(const Output& param, const Output& ids, std::string_view name) {
  const Node* n = param.node();
  if (n->type() == "ReadVariableOp")
    return resource_gather(n->inputs()[0], ids, param.dtype(), name);
  return gather(param, ids, name);
}

}  // namespace

Output embedding_lookup(const std::vector<Output>& params, const Output& ids,
                        const EmbeddingLookupOptions& options) {
  if (params.empty()) throw InvalidArgumentError(invalid_argument("Need at least one param"));
  Graph& g = ids.graph();
  auto scope = g.name_scope(options.name.empty() ? "embedding_lookup" : options.name);
  const auto np = static_cast<std::int64_t>(params.size());
  if (np == 1) {
    Output result;
    {
      auto colocate = g.colocate_with(params[0].op());
      result = clip(gather_param(params[0], ids, "GatherV2"), ids, options.max_norm);
    }
    return identity(result, "Identity");
  }
  const DType id_type = ids.dtype();
  Output flat_ids = reshape(ids, std::vector<std::int64_t>{-1}, "Reshape");
  Output original = range(size(flat_ids, DType::int32, "Size"), "range");
  Output p_assign, new_ids;
  if (options.partition_strategy == "mod") {
    Output n = int_like(g, id_type, np, "mod/y");
    p_assign = floormod(flat_ids, n, "mod");
    new_ids = floordiv(flat_ids, n, "floordiv");
  } else if (options.partition_strategy == "div") {
    std::int64_t total = 0;
    for (auto& p : params) {
      if (!p.shape().rank_known() || p.shape().rank() < 1 || p.shape().dim(0) < 0)
        throw UnimplementedError(unimplemented(
            "embedding_lookup: the \"div\" strategy needs each part's row count while "
            "building; " +
            p.name() + " has shape " + p.shape().to_string()));
      total += p.shape().dim(0);
    }
    const std::int64_t per = total / np, extras = total % np;
    Output per1 = int_like(g, id_type, per + 1, "add");
    Output per_c = int_like(g, id_type, per, "floordiv/y");
    Output extras_c = int_like(g, id_type, extras, "mod/y");
    Output minus_extras = sub(flat_ids, extras_c, "sub");
    p_assign = maximum(floordiv(flat_ids, per1, "floordiv_1"),
                       floordiv(minus_extras, per_c, "floordiv_2"), "Maximum");
    new_ids = select(less(p_assign, extras_c, "Less"), floormod(flat_ids, per1, "mod_1"),
                     floormod(minus_extras, per_c, "mod_2"), "Select");
  } else {
    throw InvalidArgumentError(
        invalid_argument("Unrecognized partition strategy: " + options.partition_strategy));
  }
  Output p32 = cast(p_assign, DType::int32, "Cast");
  std::vector<Output> gather_ids = dynamic_partition(new_ids, p32, np, "DynamicPartition");
  std::vector<Output> pindices = dynamic_partition(original, p32, np, "DynamicPartition_1");
  std::vector<Output> rows;
  for (std::int64_t p = 0; p < np; ++p) {
    auto colocate = g.colocate_with(params[static_cast<std::size_t>(p)].op());
    rows.push_back(gather_param(params[static_cast<std::size_t>(p)],
                                gather_ids[static_cast<std::size_t>(p)], "GatherV2"));
  }
  Output stitched = parallel_dynamic_stitch(pindices, rows, "ParallelDynamicStitch");
  // The rows' shape: the parts' shapes after their first dimension, which must agree.
  PartialShape element;
  for (auto& p : params) {
    if (!p.shape().rank_known()) continue;
    PartialShape tail(
        std::vector<std::int64_t>(p.shape().dims().begin() + 1, p.shape().dims().end()));
    PartialShape merged;
    if (!element.merge_with(tail, &merged).ok())
      throw InvalidArgumentError(invalid_argument(
          "embedding_lookup: the parts' rows differ in shape: " + element.to_string() + " and " +
          tail.to_string() + " (" + p.name() + ")"));
    element = merged;
  }
  // ids.shape + the rows' shape; a Const when both are known while building, so the
  // result's static shape is known (TensorFlow sets it with set_shape).
  // With one unknown dim among the ids' (unique ids: [?]), it is the Const's -1, so the
  // rank stays known.
  Output target;
  const auto unknown_ids =
      ids.shape().rank_known()
          ? std::count(ids.shape().dims().begin(), ids.shape().dims().end(), std::int64_t{-1})
          : 2;
  const bool rows_have_elements =
      element.fully_defined() && std::find(element.dims().begin(), element.dims().end(),
                                           std::int64_t{0}) == element.dims().end();
  if (element.fully_defined() && (unknown_ids == 0 || (unknown_ids == 1 && rows_have_elements))) {
    std::vector<std::int32_t> dims(ids.shape().dims().begin(), ids.shape().dims().end());
    dims.insert(dims.end(), element.dims().begin(), element.dims().end());
    target = g.constant(Tensor::from_vector(dims), "concat");
  } else {
    Output element_shape;
    if (element.fully_defined()) {
      std::vector<std::int32_t> dims(element.dims().begin(), element.dims().end());
      element_shape = g.constant(Tensor::from_vector(dims), "Const");
    } else {
      // The parts' row shape, read beside the first part.
      auto colocate = g.colocate_with(params[0].op());
      element_shape = strided_slice(shape(params[0], DType::int32, "Shape"),
                                    std::vector<std::int64_t>{1}, std::vector<std::int64_t>{0},
                                    std::vector<std::int64_t>{1}, {.end_mask = 1}, "strided_slice");
    }
    target = concat({shape(ids, DType::int32, "Shape_1"), element_shape}, 0, "concat");
  }
  Output result = reshape(stitched, target, "Reshape_1");
  return clip(result, ids, options.max_norm);
}

Output embedding_lookup(const PartitionedVariable& params, const Output& ids,
                        const EmbeddingLookupOptions& options) {
  if (params.axis() != 0 && params.parts().size() > 1)
    throw InvalidArgumentError(invalid_argument("embedding_lookup: " + params.name() +
                                                " is partitioned along axis " +
                                                std::to_string(params.axis()) + ", not 0"));
  std::vector<Output> parts;
  for (auto& p : params.parts()) parts.push_back(p.value());
  return embedding_lookup(parts, ids, options);
}

namespace {

// DivNoNan: TensorFlow 2's embedding_lookup_sparse divides by the weights with it, so an
// example without ids (a weight sum of 0) combines to zeros, not NaN.
Output div_no_nan(const Output& x, const Output& y) {
  return x.graph().create_op("DivNoNan", {x, y}, {{"T", x.dtype()}}, "div_no_nan").output(0);
}

}  // namespace

// embedding_ops.py's embedding_lookup_sparse.
Output embedding_lookup_sparse(const std::vector<Output>& params, const SparseTensor& sp_ids,
                               const SparseTensor* sp_weights,
                               const EmbeddingLookupSparseOptions& options) {
  const std::string& combiner = options.combiner;
  if (combiner != "mean" && combiner != "sqrtn" && combiner != "sum")
    throw InvalidArgumentError(
        invalid_argument("combiner must be one of 'mean', 'sqrtn' or 'sum'"));
  if (!sp_ids.valid()) throw InvalidArgumentError(invalid_argument("sp_ids must be SparseTensor"));
  if (sp_weights != nullptr) {
    if (!sp_weights->valid())
      throw InvalidArgumentError(
          invalid_argument("sp_weights must be either None or SparseTensor"));
    if (!sp_ids.values.shape().is_compatible_with(sp_weights->values.shape()))
      throw InvalidArgumentError(invalid_argument("Shapes " + sp_ids.values.shape().to_string() +
                                                  " and " + sp_weights->values.shape().to_string() +
                                                  " are incompatible"));
  }
  Graph& g = sp_ids.values.graph();
  auto scope = g.name_scope(options.name.empty() ? "embedding_lookup_sparse" : options.name);
  // segment_ids = sp_ids.indices[:, 0], as int32.
  Output segment_ids = strided_slice(sp_ids.indices, {0, 0}, {0, 1}, {1, 1},
                                     {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2});
  if (segment_ids.dtype() != DType::int32) segment_ids = cast(segment_ids, DType::int32, "Cast");
  auto [ids, idx] = unique(sp_ids.values, DType::int32, "Unique");
  Output embeddings = embedding_lookup(
      params, ids,
      {.partition_strategy = options.partition_strategy, .max_norm = options.max_norm});
  if (embeddings.dtype() == DType::bfloat16)
    embeddings = cast(embeddings, DType::float32, "Cast_1");
  if (sp_weights == nullptr) {
    if (combiner == "sum") return sparse_segment_sum(embeddings, idx, segment_ids);
    if (combiner == "mean") return sparse_segment_mean(embeddings, idx, segment_ids);
    return sparse_segment_sqrt_n(embeddings, idx, segment_ids);
  }
  Output weights = sp_weights->values;
  if (weights.dtype() != embeddings.dtype()) weights = cast(weights, embeddings.dtype(), "Cast_2");
  embeddings = gather(embeddings, idx, "GatherV2");
  // The weights reshaped to [N, 1, ...] to broadcast over each row: by a Const when the
  // rows' rank is known (TensorFlow sets that shape with set_shape), else as TensorFlow
  // builds it.
  if (embeddings.shape().rank_known() && weights.shape().rank_known() &&
      weights.shape().rank() == 1) {
    std::vector<std::int64_t> dims(static_cast<std::size_t>(embeddings.shape().rank()), 1);
    dims[0] = -1;
    weights = reshape(weights, dims, "Reshape");
  } else {
    Output ones = fill(expand_dims(sub(rank(embeddings, "Rank"),
                                       g.constant(Tensor(std::int32_t{1}), "sub/y"), "sub"),
                                   0, "ExpandDims"),
                       g.constant(Tensor(std::int32_t{1}), "Fill/value"), "Fill");
    Output bcast_shape = concat({shape(weights, DType::int32, "Shape"), ones}, 0, "concat");
    weights = reshape(weights, bcast_shape, "Reshape");
  }
  embeddings = mul(embeddings, weights, "mul");
  if (combiner == "sum") return segment_sum(embeddings, segment_ids);
  embeddings = segment_sum(embeddings, segment_ids, "SegmentSum");
  if (combiner == "mean")
    return div_no_nan(embeddings, segment_sum(weights, segment_ids, "SegmentSum_1"));
  const Output two = weights.dtype() == DType::float64 ? g.constant(Tensor(2.0), "Pow/y")
                                                       : g.constant(Tensor(2.0f), "Pow/y");
  Output squared = pow(weights, two, "Pow");
  Output weight_sum = segment_sum(squared, segment_ids, "SegmentSum_1");
  return div_no_nan(embeddings, sqrt(weight_sum, "Sqrt"));
}

Output embedding_lookup_sparse(const PartitionedVariable& params, const SparseTensor& sp_ids,
                               const SparseTensor* sp_weights,
                               const EmbeddingLookupSparseOptions& options) {
  std::vector<Output> parts;
  for (auto& p : params.parts()) parts.push_back(p.value());
  return embedding_lookup_sparse(parts, sp_ids, sp_weights, options);
}

namespace {

// `x - 1` for an int32 scalar tensor, as Python's `-` builds it: Sub "sub" with the Const
// "sub/y".
Output minus_one(const Output& x) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name("sub");
  Output one;
  {
    auto scope = g.name_scope(op_name + "/");
    one = g.constant(Tensor(std::int32_t{1}), "y");
  }
  return sub(x, one, op_name + "/");
}

// `array_ops.slice(shape, [0], [original_rank - 1])`, the dims before the last: Consts for a
// rank known while building (`rank` >= 0), else the size packed from `dynamic_rank - 1`.
Output leading_dims(const Output& shape_vector, std::int64_t rank, const Output& dynamic_rank) {
  if (rank >= 0)
    return slice(shape_vector, std::vector<std::int64_t>{0}, std::vector<std::int64_t>{rank - 1},
                 "Slice");
  Graph& g = shape_vector.graph();
  const Output count = minus_one(dynamic_rank);
  const std::string op_name = g.unique_name("Slice");
  Output begin, sizes;
  {
    auto scope = g.name_scope(op_name + "/");
    begin = g.constant(Tensor::from_vector<std::int32_t>({0}), "begin");
    sizes = stack({count}, 0, "size");
  }
  return slice(shape_vector, begin, sizes, op_name + "/");
}

// The dense result's shape, `original_shape[:-1] + result.shape[1:]`, as a list when it is
// known while building: TensorFlow sets its static shape `[?] * (rank - 1) + result.shape[1:]`
// (set_shape) and infers the rest from a constant dense shape; a Const keeps that here. The
// leading dims come from a Const dense shape or, for rank 2 (or 1), are the list's -1 (or
// none); the rows' shape must be fully defined (and, beside a -1, without a 0).
std::optional<std::vector<std::int64_t>> static_result_shape(const Output& original_shape,
                                                             std::int64_t rank,
                                                             const PartialShape& result) {
  if (rank < 1 || !result.rank_known() || result.rank() < 1) return std::nullopt;
  std::vector<std::int64_t> dims;
  const Node* n = original_shape.node();
  if (const Tensor* t = n->type() == "Const" ? n->def().attr<Tensor>("value") : nullptr;
      t != nullptr && t->dtype() == DType::int64 && t->num_elements() == rank) {
    dims.assign(t->data<std::int64_t>(), t->data<std::int64_t>() + rank - 1);
    if (std::any_of(dims.begin(), dims.end(), [](std::int64_t d) { return d < 0; }))
      return std::nullopt;
  } else if (rank == 2) {
    dims.push_back(-1);
  } else if (rank != 1) {
    return std::nullopt;
  }
  const bool inferred = !dims.empty() && dims[0] == -1;
  for (int i = 1; i < result.rank(); ++i) {
    const std::int64_t d = result.dim(i);
    if (d < 0 || (inferred && d == 0)) return std::nullopt;
    dims.push_back(d);
  }
  return dims;
}

}  // namespace

// embedding_ops.py's safe_embedding_lookup_sparse.
Output safe_embedding_lookup_sparse(const std::vector<Output>& params, const SparseTensor& sp_ids,
                                    const SparseTensor* sp_weights,
                                    const SafeEmbeddingLookupSparseOptions& options) {
  if (params.empty()) throw InvalidArgumentError(invalid_argument("Missing embedding_weights []."));
  if (!sp_ids.valid()) throw InvalidArgumentError(invalid_argument("sp_ids must be SparseTensor"));
  if (sp_weights != nullptr && !sp_weights->valid())
    throw InvalidArgumentError(invalid_argument("sp_weights must be either None or SparseTensor"));
  Graph& g = sp_ids.values.graph();
  auto scope = g.name_scope(options.name.empty() ? "embedding_lookup" : options.name);
  // Reshape higher-rank sparse ids and weights to linear segment ids:
  // [prod(shape[:-1]), shape[-1]], the rank from the dense shape's length or, when that is
  // unknown while building, its Size.
  const Output original_shape = sp_ids.dense_shape;
  const PartialShape& shape_of_shape = original_shape.shape();
  const std::int64_t original_rank =
      shape_of_shape.rank_known() && shape_of_shape.rank() == 1 ? shape_of_shape.dim(0) : -1;
  const Output dynamic_rank =
      original_rank < 0 ? size(original_shape, DType::int32, "Size") : Output();
  const Output rows = reduce_prod(leading_dims(original_shape, original_rank, dynamic_rank),
                                  std::nullopt, false, "Prod");
  Output last_index;
  if (original_rank >= 0)
    last_index =
        g.constant(Tensor(static_cast<std::int32_t>(original_rank - 1)), "GatherV2/indices");
  else
    last_index = minus_one(dynamic_rank);
  const Output last = gather(original_shape, last_index, "GatherV2");
  Output new_shape;
  {
    // math_ops.cast's scope: the list packs as "Cast/x"; it is int64 already.
    auto cast_scope = g.name_scope("Cast");
    new_shape = stack({rows, last}, 0, "x");
  }
  SparseTensor ids = sparse_reshape(sp_ids, new_shape);
  std::optional<SparseTensor> weights;
  if (sp_weights != nullptr)
    weights = SparseTensor{ids.indices, sp_weights->values, ids.dense_shape};
  // _prune_invalid_ids, then (but for "sum") _prune_invalid_weights.
  const Output zero_id =
      cast(g.constant(Tensor(std::int64_t{0}), "GreaterEqual/y"), ids.values.dtype(), "Cast");
  const Output valid_id = greater_equal(ids.values, zero_id, "GreaterEqual");
  ids = sparse_retain(ids, valid_id);
  if (weights) weights = sparse_retain(*weights, valid_id);
  if (options.combiner != "sum" && weights) {
    const Output zero =
        cast(g.constant(Tensor(0.0f), "Greater/y"), weights->values.dtype(), "Cast");
    const Output valid_weight = greater(weights->values, zero, "Greater");
    ids = sparse_retain(ids, valid_weight);
    weights = sparse_retain(*weights, valid_weight);
  }
  const Output default_id =
      cast(g.constant(Tensor(options.default_id.value_or(0)), "Const"), ids.values.dtype(), "Cast");
  SparseFillEmptyRowsResult filled = sparse_fill_empty_rows(ids, default_id);
  if (weights) {
    const Output one = cast(g.constant(Tensor(1.0f), "Const"), weights->values.dtype(), "Cast");
    weights = sparse_fill_empty_rows(*weights, one, "SparseFillEmptyRows_1").output;
  }
  Output result = embedding_lookup_sparse(params, filled.output, weights ? &*weights : nullptr,
                                          {.partition_strategy = options.partition_strategy,
                                           .combiner = options.combiner,
                                           .max_norm = options.max_norm});
  if (!options.default_id) {
    // A row of zeros for each example that had no valid id.
    const Output width =
        strided_slice(shape(result, DType::int32, "Shape"), {1}, {2}, {1}, {.shrink_axis_mask = 1});
    const Output multiples =
        stack({g.constant(Tensor(std::int32_t{1}), "stack/0"), width}, 0, "stack");
    const Output is_row_empty =
        tile(reshape(filled.empty_row_indicator, std::vector<std::int64_t>{-1, 1}, "Reshape"),
             multiples, "Tile");
    result = select(is_row_empty, zeros_like(result, std::nullopt, "zeros_like"), result, "Select");
  }
  // Reshape back from linear ids into the higher-dimensional dense result.
  if (auto dims = static_result_shape(original_shape, original_rank, result.shape()))
    return reshape(result, *dims, "Reshape");
  const Output leading =
      leading_dims(cast(original_shape, DType::int32, "Cast"), original_rank, dynamic_rank);
  const Output row_shape = slice(shape(result, DType::int32, "Shape"), std::vector<std::int64_t>{1},
                                 std::vector<std::int64_t>{-1}, "Slice");
  return reshape(result, concat({leading, row_shape}, 0, "concat"), "Reshape");
}

Output safe_embedding_lookup_sparse(const PartitionedVariable& params, const SparseTensor& sp_ids,
                                    const SparseTensor* sp_weights,
                                    const SafeEmbeddingLookupSparseOptions& options) {
  std::vector<Output> parts;
  for (auto& p : params.parts()) parts.push_back(p.value());
  return safe_embedding_lookup_sparse(parts, sp_ids, sp_weights, options);
}

}  // namespace af::train
