#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Gathers and scatters by N-dimensional indices (TensorFlow's `tf.gather_nd`,
/// `tf.scatter_nd` and `tf.tensor_scatter_nd_*`, gather_nd_op.cc and scatter_nd_op.cc).
/// `indices` is int32 or int64 of shape `batch + [K]`: each innermost row names one slice
/// `params[i0, ..., iK-1]` of shape `params.shape[K:]`. A row out of range fails the step
/// with TensorFlow's text, the op named: "indices[1] = [4, 0] does not index into param
/// shape [3,2], node name: g" (gathers), "indices[1] = [7] does not index into shape [4]"
/// (scatters).
namespace af {

/// `tf.gather_nd(params, indices)`: op GatherNd (default name "GatherNd"), output shape
/// `indices.shape[:-1] + params.shape[indices.shape[-1]:]`. Any dtype. Its gradient
/// scatters the output's gradient back with ScatterNd (rows named twice add up).
Output gather_nd(const Output& params, const Output& indices, std::string_view name = {});

/// `tf.scatter_nd(indices, updates, shape)`: op ScatterNd (default name "ScatterNd"), a
/// tensor of `shape` (an int32/int64 vector, indices' dtype) holding zeros except the
/// slices `indices` names, which get the sum of their `updates` (shape `indices.shape[:-1]
/// + shape[K:]`). Numeric dtypes. Gradient: GatherNd of the output's gradient for
/// `updates`.
Output scatter_nd(const Output& indices, const Output& updates, const Output& shape,
                  std::string_view name = {});

/// `tf.tensor_scatter_nd_update(tensor, indices, updates)`: op TensorScatterUpdate, a copy
/// of `tensor` whose slices named by `indices` are replaced by `updates` (the last write of
/// a slice named twice wins, as TensorFlow's CPU kernel). Gradient: the output's gradient
/// with those slices zeroed for `tensor`, gathered at them for `updates`.
Output tensor_scatter_update(const Output& tensor, const Output& indices, const Output& updates,
                             std::string_view name = {});
/// `tf.tensor_scatter_nd_add`: op TensorScatterAdd, `tensor` plus the scattered `updates`.
Output tensor_scatter_add(const Output& tensor, const Output& indices, const Output& updates,
                          std::string_view name = {});
/// `tf.tensor_scatter_nd_sub`: op TensorScatterSub, `tensor` minus the scattered `updates`.
Output tensor_scatter_sub(const Output& tensor, const Output& indices, const Output& updates,
                          std::string_view name = {});

}  // namespace af
