// The definitions of GatherNd, ScatterNd and TensorScatter{Update,Add,Sub,Max,Min}: shape
// functions as TensorFlow's array_ops.cc (GatherNdShape, ScatterNdShapeHelper) and builders
// as tf.gather_nd, tf.scatter_nd and tf.tensor_scatter_nd_*. Their CPU kernels are in
// kernels/src/gather_nd_ops.cpp, their gradients in ops/src/gradients/array_grad.cpp.
#include "actorflow/ops/gather_nd_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "scatter_nd_shapes.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_index_type;
using detail::inference_shape_string;
using detail::with_rank_at_least;

// Dimensions [begin, end) of a shape of known rank (end clamped to the rank).
PartialShape subshape(const PartialShape& s, Index begin, Index end) {
  if (!s.rank_known()) return PartialShape::unknown();
  end = std::min<Index>(end, s.rank());
  begin = std::min(begin, end);
  return PartialShape(std::vector<std::int64_t>(s.dims().begin() + begin, s.dims().begin() + end));
}

// GatherNd(params, indices) and ResourceGatherNd(resource, indices) (params: the variable's
// shape, from the handle, and its attr dtype): indices.shape[:-1] + params.shape[K:].
Status infer_gather_nd(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  const bool resource = c.node.op == "ResourceGatherNd";
  if (resource && c.input_types[0] != DType::resource)
    return invalid_argument("Input 'resource' of 'ResourceGatherNd' Op has type " +
                            std::string(data_type_string(c.input_types[0])) +
                            " that does not match expected type of resource.");
  DType t = c.input_types[0];
  if (resource) ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  const PartialShape params =
      !resource
          ? c.input_shapes[0]
          : (c.input_handle_shapes.empty() ? PartialShape::unknown() : c.input_handle_shapes[0]);
  const PartialShape& indices = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(params, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(indices, 1));
  const Index k = indices.rank_known() ? indices.dim(indices.rank() - 1) : -1;
  if (!params.rank_known() || k < 0) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  if (k > params.rank())
    return invalid_argument("indices.shape[-1] must be <= params.rank, but saw indices shape: " +
                            inference_shape_string(indices) +
                            " and params shape: " + inference_shape_string(params));
  std::vector<std::int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), params.dims().begin() + k, params.dims().end());
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// ScatterNd(indices, updates, shape): the shape `shape` holds.
Status infer_scatter_nd(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "Tindices"));
  if (c.input_types[2] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "shape", c.input_types[2],
                                                         "indices", c.input_types[0]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[1], 1));
  // TensorFlow's shape refiner first runs the function without the value of `shape` (a
  // shape of unknown dims, of the rank `shape`'s length gives), and fails there on a rank
  // mismatch, naming the output as [?,?]; then again with the value.
  const PartialShape& shape_shape = c.input_shapes[2];
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(shape_shape, 1));
  const PartialShape unvalued =
      shape_shape.rank_known() && shape_shape.dim(0) >= 0
          ? PartialShape::unknown_of_rank(static_cast<int>(shape_shape.dim(0)))
          : PartialShape::unknown();
  ACTORFLOW_RETURN_IF_ERROR(
      detail::check_scatter_nd_shapes(c.input_shapes[0], c.input_shapes[1], unvalued));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 2, &out));
  ACTORFLOW_RETURN_IF_ERROR(
      detail::check_scatter_nd_shapes(c.input_shapes[0], c.input_shapes[1], out));
  c.add_output(c.input_types[1], out);
  return {};
}

// TensorScatter*(tensor, indices, updates): tensor's shape.
Status infer_tensor_scatter(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  if (c.input_types[2] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "updates", c.input_types[2],
                                                         "tensor", c.input_types[0]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(
      detail::check_scatter_nd_shapes(c.input_shapes[1], c.input_shapes[2], c.input_shapes[0]));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

Output tensor_scatter(const char* type, const Output& tensor, const Output& indices,
                      const Output& updates, std::string_view name) {
  return tensor.graph()
      .create_op(type, {tensor, indices, updates},
                 {{"T", tensor.dtype()}, {"Tindices", indices.dtype()}}, name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

// TensorFlow's ScatterNdShapeHelper: updates must be `indices.shape[:-1] + output[K:]`.
Status check_scatter_nd_shapes(const PartialShape& indices, const PartialShape& updates,
                               const PartialShape& output) {
  auto known_zero = [](const PartialShape& s) {
    return s.fully_defined() && s.num_elements() == 0;
  };
  auto known_some = [](const PartialShape& s) { return s.fully_defined() && s.num_elements() > 0; };
  if (known_zero(output) && (known_some(indices) || known_some(updates)))
    return invalid_argument("Indices and updates specified for empty input");
  if (!indices.rank_known() || !updates.rank_known() || updates.rank() == 0) return {};
  const Index outer = indices.rank() - 1, ix = indices.dim(indices.rank() - 1);
  if (ix < 0) return {};
  const PartialShape prefix_indices = subshape(indices, 0, outer);
  const PartialShape prefix_updates = subshape(updates, 0, outer);
  PartialShape merged;
  if (Status s = cwise::merge_shapes(prefix_indices, prefix_updates, &merged); !s.ok())
    return invalid_argument("Dimensions [0," + std::to_string(outer) +
                            ") of indices[shape=" + inference_shape_string(indices) +
                            "] = " + inference_shape_string(prefix_indices) +
                            " must match dimensions [0," + std::to_string(outer) +
                            ") of updates[shape=" + inference_shape_string(updates) +
                            "] = " + inference_shape_string(prefix_updates) + ": " + s.message());
  // InferenceContext::Subshape clamps a start past the rank to the rank: index rows longer
  // than the output's rank leave an empty suffix, which merges with updates' suffix only when
  // that is empty too (the kernel then refuses the shapes).
  const PartialShape suffix_output = subshape(output, ix, output.rank());
  const PartialShape suffix_updates = subshape(updates, outer, updates.rank());
  if (Status s = cwise::merge_shapes(suffix_output, suffix_updates, &merged); !s.ok())
    return invalid_argument(
        "Dimensions [" + std::to_string(ix) + "," + std::to_string(output.rank()) +
        ") of input[shape=" + inference_shape_string(output) +
        "] = " + inference_shape_string(suffix_output) + " must match dimensions [" +
        std::to_string(outer) + "," + std::to_string(updates.rank()) +
        ") of updates[shape=" + inference_shape_string(updates) +
        "] = " + inference_shape_string(suffix_updates) + ": " + s.message());
  return {};
}

}  // namespace detail

namespace detail {

void register_gather_nd_ops(OpRegistry& r) {
  r.add({"GatherNd", infer_gather_nd});
  r.add({"ResourceGatherNd", infer_gather_nd, false, {0}});
  r.add({"ScatterNd", infer_scatter_nd});
  for (const char* type : {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                           "TensorScatterMax", "TensorScatterMin"})
    r.add({type, infer_tensor_scatter});
}

}  // namespace detail

Output gather_nd(const Output& params, const Output& indices, std::string_view name) {
  return params.graph()
      .create_op("GatherNd", {params, indices},
                 {{"Tparams", params.dtype()}, {"Tindices", indices.dtype()}},
                 name.empty() ? "GatherNd" : name)
      .output(0);
}

Output scatter_nd(const Output& indices, const Output& updates, const Output& shape,
                  std::string_view name) {
  return indices.graph()
      .create_op("ScatterNd", {indices, updates, shape},
                 {{"T", updates.dtype()}, {"Tindices", indices.dtype()}},
                 name.empty() ? "ScatterNd" : name)
      .output(0);
}

Output tensor_scatter_update(const Output& tensor, const Output& indices, const Output& updates,
                             std::string_view name) {
  return tensor_scatter("TensorScatterUpdate", tensor, indices, updates, name);
}
Output tensor_scatter_add(const Output& tensor, const Output& indices, const Output& updates,
                          std::string_view name) {
  return tensor_scatter("TensorScatterAdd", tensor, indices, updates, name);
}
Output tensor_scatter_sub(const Output& tensor, const Output& indices, const Output& updates,
                          std::string_view name) {
  return tensor_scatter("TensorScatterSub", tensor, indices, updates, name);
}

}  // namespace af
