// TensorFlow's `_embedding_lookup_and_transform` (embedding_ops.py) without a transform: the
// partition strategies, the per-part gathers colocated with their parts, the stitch and
// `_clip`'s clip_by_norm.
#include "actorflow/train/embedding_ops.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/partition_ops.hpp"

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
      result = clip(gather(params[0], ids, "GatherV2"), ids, options.max_norm);
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
    rows.push_back(gather(params[static_cast<std::size_t>(p)],
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
  Output target;
  if (ids.shape().fully_defined() && element.fully_defined()) {
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

}  // namespace af::train
