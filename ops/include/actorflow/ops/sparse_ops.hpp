#pragma once

#include <string_view>
#include <utility>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Operations on SparseTensors that `safe_embedding_lookup_sparse` needs (TensorFlow's
/// sparse_ops.py): filling empty rows and keeping the entries a mask selects.
namespace af {

/// What `sparse_fill_empty_rows` returns.
struct SparseFillEmptyRowsResult {
  SparseTensor output;         ///< the input with `[row, 0, ...] = default` for each empty row
  Output empty_row_indicator;  ///< bool `[dense_shape[0]]`: whether each row was empty
  Output reverse_index_map;    ///< int64 `[N]`: where each input entry went in the output
};

/// `tf.sparse.fill_empty_rows`: op SparseFillEmptyRows (default name "SparseFillEmptyRows").
/// Each row of `sp` with no entry gets one at `[row, 0, ...]` holding `default_value` (a
/// scalar of the values' dtype); the output is grouped by row in row order, entries of one
/// row in their input order (so row-major when each row's entries are). Its gradient reaches
/// the values and the default (SparseFillEmptyRowsGrad). Running fails with TensorFlow's
/// texts: "indices(3, 0) is invalid: 7 >= 5", "Received SparseTensor with dense_shape[0] =
/// 0 but indices.shape[0] = 2", "The length of `values` (2) must match the first dimension
/// of `indices` (3).", "Dense shape cannot be empty.", and for inputs of the wrong rank.
SparseFillEmptyRowsResult sparse_fill_empty_rows(const SparseTensor& sp,
                                                 const Output& default_value,
                                                 std::string_view name = {});

/// `tf.raw_ops.SparseFillEmptyRowsGrad`: from the output values' gradient `grad_values`,
/// the input values' (`grad_values[reverse_index_map[i]]`) and the default value's (the sum
/// over the filled entries). Running fails with "Elements in reverse index must be in [0,
/// 4)" for a bad map.
std::pair<Output, Output> sparse_fill_empty_rows_grad(const Output& reverse_index_map,
                                                      const Output& grad_values,
                                                      std::string_view name = {});

/// `tf.sparse.retain`: the entries of `sp` whose element of the bool vector `to_retain` is
/// true (Where, then Gather of indices and values), the dense shape unchanged.
SparseTensor sparse_retain(const SparseTensor& sp, const Output& to_retain);

}  // namespace af
