#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"
#include "actorflow/train/partitioned_variables.hpp"

/// Embedding lookups (TensorFlow's embedding_ops.py): the rows of a table, one per id, read
/// from the part that holds each id, so only the rows asked for leave a parameter server,
/// and only their gradients come back.
namespace af::train {

/// Options of `embedding_lookup`.
struct EmbeddingLookupOptions {
  /// How ids map to parts: "mod" (id % n on part id % n, row id / n) or "div" (contiguous
  /// ranges, the first parts one row longer); TensorFlow's default is "mod".
  std::string partition_strategy = "mod";
  /// When set, each looked-up row with a larger L2 norm is scaled down to it
  /// (`clip_by_norm`); the table is not changed.
  std::optional<double> max_norm;
  /// The name scope of the lookup's ops.
  std::string name = "embedding_lookup";
};

/// `tf.nn.embedding_lookup(params, ids)`: a tensor of shape `ids.shape + params.shape[1:]`
/// holding row `ids[...]` of the table made of the parts `params` (concatenated along axis
/// 0). With one part, a Gather colocated with it. With several: the ids are assigned to parts
/// by the strategy, split by DynamicPartition, gathered on each part's own device (colocated
/// with the part) and put back in order by ParallelDynamicStitch; each part's gradient is
/// IndexedSlices of its own rows. A part that is a resource variable's value (its
/// ReadVariableOp, `Variable::value()`) is read by ResourceGather on its handle, as
/// `ResourceVariable.sparse_read`. Throws InvalidArgumentError for no params, "Unrecognized
/// partition strategy: x", or parts whose row shapes differ; UnimplementedError for "div"
/// over parts whose row counts are unknown while building. Running it with an id out of
/// range fails as GatherV2 does ("indices[0] = 7 is not in [0, 3)", the id local to its part).
Output embedding_lookup(const std::vector<Output>& params, const Output& ids,
                        const EmbeddingLookupOptions& options = {});

/// As above over the parts of a partitioned variable.
Output embedding_lookup(const PartitionedVariable& params, const Output& ids,
                        const EmbeddingLookupOptions& options = {});

/// Options of `embedding_lookup_sparse`.
struct EmbeddingLookupSparseOptions {
  /// How ids map to parts, as `EmbeddingLookupOptions::partition_strategy`.
  std::string partition_strategy = "mod";
  /// How the rows of one example combine: "sum", "mean" (the weighted mean) or "sqrtn" (the
  /// weighted sum divided by the square root of the sum of squared weights).
  std::string combiner = "mean";
  /// As `EmbeddingLookupOptions::max_norm`.
  std::optional<double> max_norm;
  /// The name scope of the lookup's ops.
  std::string name = "embedding_lookup_sparse";
};

/// `tf.nn.embedding_lookup_sparse(params, sp_ids, sp_weights)`: one combined row per example
/// (row of the batch) of the ids in the SparseTensor `sp_ids` (int64 `[batch, max_ids]`,
/// indices in row-major order), each weighted by the matching value of `sp_weights` (null:
/// all 1). The ids are made unique and looked up once with `embedding_lookup` (each part's
/// rows on its own task), then combined per example: without weights by
/// SparseSegmentSum/Mean/SqrtN, with weights by Gather, Mul and SegmentSum (then DivNoNan by
/// the weights' sum or root of squares, as TensorFlow 2: no NaN for an empty example). As in
/// TensorFlow
/// the output has `last example with an id + 1` rows, an example without ids being 0. Its
/// gradient reaches each part as IndexedSlices of the rows used. Throws
/// InvalidArgumentError "combiner must be one of 'mean', 'sqrtn' or 'sum'" and for invalid
/// sparse tensors.
Output embedding_lookup_sparse(const std::vector<Output>& params, const SparseTensor& sp_ids,
                               const SparseTensor* sp_weights,
                               const EmbeddingLookupSparseOptions& options = {});

/// As above over the parts of a partitioned variable.
Output embedding_lookup_sparse(const PartitionedVariable& params, const SparseTensor& sp_ids,
                               const SparseTensor* sp_weights,
                               const EmbeddingLookupSparseOptions& options = {});

/// Options of `safe_embedding_lookup_sparse`.
struct SafeEmbeddingLookupSparseOptions {
  /// How the rows of one example combine: "sum", "mean" or "sqrtn".
  std::string combiner = "mean";
  /// The id an example without valid ids looks up; none: such an example gets zeros.
  std::optional<std::int64_t> default_id;
  /// How ids map to parts; "div", this function's default in TensorFlow.
  std::string partition_strategy = "div";
  /// As `EmbeddingLookupOptions::max_norm`.
  std::optional<double> max_norm;
  /// The name scope of the lookup's ops.
  std::string name = "embedding_lookup";
};

/// `tf.nn.safe_embedding_lookup_sparse`: `embedding_lookup_sparse` made safe for real
/// input. `sp_ids` (and `sp_weights`, which shares its indices) may have any rank R >= 2
/// (`[d0, ..., dn]`, indices in row-major order): as in TensorFlow the ids are first reshaped
/// (SparseReshape) to `[d0 * ... * dn-1, dn]`, each example a row. Ids below 0 are dropped
/// (with their weights); for "mean" and "sqrtn", so are ids whose weight is not above 0;
/// each example left without ids gets `default_id` (weight 1) or, without one, a row of
/// zeros. The combined rows are reshaped back: the output has shape `[d0, ..., dn-1] +
/// params.shape[1:]`. Its static shape: fully known for a Const dense shape (and rows of
/// known shape), `[?] + params.shape[1:]` for rank 2, as in TensorFlow; for a higher rank
/// not known while building only the rank (TensorFlow's set_shape also gives the rows'
/// shape), and nothing when R itself is unknown (the dense shape's length; R then comes
/// from Size at run time). Throws InvalidArgumentError "Missing embedding_weights []." for no
/// params, and what `embedding_lookup_sparse` throws; running fails as SparseReshape does
/// for inconsistent sparse ids ("Input tensor rank must match input shape length.").
Output safe_embedding_lookup_sparse(const std::vector<Output>& params, const SparseTensor& sp_ids,
                                    const SparseTensor* sp_weights,
                                    const SafeEmbeddingLookupSparseOptions& options = {});

/// As above over the parts of a partitioned variable.
Output safe_embedding_lookup_sparse(const PartitionedVariable& params, const SparseTensor& sp_ids,
                                    const SparseTensor* sp_weights,
                                    const SafeEmbeddingLookupSparseOptions& options = {});

}  // namespace af::train
