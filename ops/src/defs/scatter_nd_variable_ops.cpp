// The definitions of ScatterNd{Update,Add,Sub,Max,Min}, ResourceScatterNd{Update,Add,Sub,Max,
// Min}, ScatterNdNonAliasingAdd and SparseSegment{Sum,Mean,SqrtN}WithNumSegments: shape
// functions as TensorFlow's (state_ops.cc's ScatterNdUpdateShape, array_ops.cc's
// ScatterNdTensorShape, both through ScatterNdShapeHelper, and math_ops.cc's
// SparseSegmentReductionWithNumSegmentsShapeFn) and the builders of
// scatter_nd_variable_ops.hpp. The kernels are in kernels/src/scatter_nd_variable_ops.cpp,
// the gradients in ops/src/gradients/scatter_nd_variable_grad.cpp.
#include "actorflow/ops/scatter_nd_variable_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "builder_util.hpp"
#include "scatter_nd_shapes.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_index_type;
using detail::inference_shape_string;
using detail::with_rank;
using detail::with_rank_at_least;

const char* const kKinds[] = {"Update", "Add", "Sub", "Max", "Min"};

Status updates_type(const InferenceContext& c, DType want, const char* arg) {
  if (c.input_types[2] == want) return {};
  return invalid_argument("Input 'updates' of '" + c.node.op + "' Op has type " +
                          std::string(data_type_string(c.input_types[2])) +
                          " that does not match type " + std::string(data_type_string(want)) +
                          " of argument '" + arg + "'.");
}

// ScatterNd{Update,...}(ref, indices, updates) -> output_ref: ScatterNdUpdateShape.
Status infer_scatter_nd_ref(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  ACTORFLOW_RETURN_IF_ERROR(updates_type(c, c.input_types[0], "ref"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(
      detail::check_scatter_nd_shapes(c.input_shapes[1], c.input_shapes[2], c.input_shapes[0]));
  c.add_output(c.input_types[0], c.input_shapes[0], /*is_ref=*/true);
  return {};
}

// ResourceScatterNd{Update,...}(ref: resource, indices, updates): ScatterNdUpdateShape against
// the variable's shape (the handle's data), no outputs.
Status infer_scatter_nd_resource(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  if (c.input_types[0] != DType::resource)
    return invalid_argument("Input 'ref' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[0])) +
                            " that does not match expected type of resource.");
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  ACTORFLOW_RETURN_IF_ERROR(updates_type(c, t, "T"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[2], 1));
  const PartialShape var =
      c.input_handle_shapes.empty() ? PartialShape::unknown() : c.input_handle_shapes[0];
  return detail::check_scatter_nd_shapes(c.input_shapes[1], c.input_shapes[2], var);
}

// ScatterNdNonAliasingAdd(input, indices, updates): ScatterNdTensorShape, input's shape.
Status infer_non_aliasing_add(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  ACTORFLOW_RETURN_IF_ERROR(updates_type(c, c.input_types[0], "input"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(
      detail::check_scatter_nd_shapes(c.input_shapes[1], c.input_shapes[2], c.input_shapes[0]));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// SparseSegmentReductionWithNumSegmentsShapeFn: `[num_segments] + data.shape[1:]`, the
// first dim known when num_segments is a Const. T in TensorFlow's OpDef list (Mean and
// SqrtN: the floating types; Sum: the real numbers).
Status infer_with_num_segments(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Tsegmentids"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[3], "Tnumsegments"));
  const PartialShape& data = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(data, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(c.input_shapes[1], c.input_shapes[2], &merged));
  if (!data.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims = data.dims();
  dims[0] = -1;
  const Tensor* n = c.input_values.size() > 3 ? c.input_values[3] : nullptr;
  if (n != nullptr) {
    dims[0] = detail::index_values(*n)[0];
    if (dims[0] < 0) return invalid_argument("Cannot specify a negative value for num_segments");
  }
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

Output scatter_nd_ref(const char* kind, const Output& ref, const Output& indices,
                      const Output& updates, bool use_locking, std::string_view name) {
  const std::string type = std::string("ScatterNd") + kind;
  auto colocate = ref.graph().colocate_with(ref.op());
  return ref.graph()
      .create_op(type, {ref, indices, updates},
                 {{"T", ref.dtype()}, {"Tindices", indices.dtype()}, {"use_locking", use_locking}},
                 name.empty() ? type : name)
      .output(0);
}

Operation scatter_nd_resource(const char* kind, const Output& handle, const Output& indices,
                              const Output& updates, bool use_locking, std::string_view name) {
  const std::string type = std::string("ResourceScatterNd") + kind;
  auto colocate = handle.graph().colocate_with(handle.op());
  return handle.graph().create_op(
      type, {handle, indices, updates},
      {{"T", updates.dtype()}, {"Tindices", indices.dtype()}, {"use_locking", use_locking}},
      name.empty() ? type : name);
}

Output with_num_segments(const char* kind, const Output& data, const Output& indices,
                         const Output& segment_ids, const Output& num_segments,
                         std::string_view name) {
  const std::string type = std::string("SparseSegment") + kind + "WithNumSegments";
  return data.graph()
      .create_op(type, {data, indices, segment_ids, num_segments},
                 {{"T", data.dtype()},
                  {"Tidx", indices.dtype()},
                  {"Tsegmentids", segment_ids.dtype()},
                  {"Tnumsegments", num_segments.dtype()}},
                 name.empty() ? std::string_view(type) : name)
      .output(0);
}

// The op with `num_segments` as the Const "<op>/num_segments", as Python's wrapper makes it.
Output with_num_segments(const char* kind, const Output& data, const Output& indices,
                         const Output& segment_ids, std::int64_t num_segments,
                         std::string_view name) {
  Graph& g = data.graph();
  const std::string type = std::string("SparseSegment") + kind + "WithNumSegments";
  const std::string op_name = g.unique_name(name.empty() ? std::string_view(type) : name);
  Output n;
  {
    auto scope = g.name_scope(op_name + "/");
    n = g.constant(detail::python_int(num_segments), "num_segments");
  }
  return with_num_segments(kind, data, indices, segment_ids, n, op_name + "/");
}

}  // namespace

namespace detail {

void register_scatter_nd_variable_ops(OpRegistry& r) {
  for (const char* kind : kKinds) {
    r.add({std::string("ScatterNd") + kind, infer_scatter_nd_ref, true, {0}});
    r.add({std::string("ResourceScatterNd") + kind, infer_scatter_nd_resource, true, {0}});
  }
  r.add({"ScatterNdNonAliasingAdd", infer_non_aliasing_add});
  for (const char* type : {"SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
                           "SparseSegmentSqrtNWithNumSegments"})
    r.add({type, infer_with_num_segments});
}

}  // namespace detail

Output scatter_nd_update(const Output& ref, const Output& indices, const Output& updates,
                         bool use_locking, std::string_view name) {
  return scatter_nd_ref("Update", ref, indices, updates, use_locking, name);
}
Output scatter_nd_add(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking, std::string_view name) {
  return scatter_nd_ref("Add", ref, indices, updates, use_locking, name);
}
Output scatter_nd_sub(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking, std::string_view name) {
  return scatter_nd_ref("Sub", ref, indices, updates, use_locking, name);
}
Output scatter_nd_max(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking, std::string_view name) {
  return scatter_nd_ref("Max", ref, indices, updates, use_locking, name);
}
Output scatter_nd_min(const Output& ref, const Output& indices, const Output& updates,
                      bool use_locking, std::string_view name) {
  return scatter_nd_ref("Min", ref, indices, updates, use_locking, name);
}

Operation resource_scatter_nd_update(const Output& handle, const Output& indices,
                                     const Output& updates, bool use_locking,
                                     std::string_view name) {
  return scatter_nd_resource("Update", handle, indices, updates, use_locking, name);
}
Operation resource_scatter_nd_add(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking, std::string_view name) {
  return scatter_nd_resource("Add", handle, indices, updates, use_locking, name);
}
Operation resource_scatter_nd_sub(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking, std::string_view name) {
  return scatter_nd_resource("Sub", handle, indices, updates, use_locking, name);
}
Operation resource_scatter_nd_max(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking, std::string_view name) {
  return scatter_nd_resource("Max", handle, indices, updates, use_locking, name);
}
Operation resource_scatter_nd_min(const Output& handle, const Output& indices,
                                  const Output& updates, bool use_locking, std::string_view name) {
  return scatter_nd_resource("Min", handle, indices, updates, use_locking, name);
}

Output scatter_nd_non_aliasing_add(const Output& input, const Output& indices,
                                   const Output& updates, std::string_view name) {
  return input.graph()
      .create_op("ScatterNdNonAliasingAdd", {input, indices, updates},
                 {{"T", input.dtype()}, {"Tindices", indices.dtype()}},
                 name.empty() ? "ScatterNdNonAliasingAdd" : name)
      .output(0);
}

Output sparse_segment_sum_with_num_segments(const Output& data, const Output& indices,
                                            const Output& segment_ids, const Output& num_segments,
                                            std::string_view name) {
  return with_num_segments("Sum", data, indices, segment_ids, num_segments, name);
}
Output sparse_segment_sum_with_num_segments(const Output& data, const Output& indices,
                                            const Output& segment_ids, std::int64_t num_segments,
                                            std::string_view name) {
  return with_num_segments("Sum", data, indices, segment_ids, num_segments, name);
}
Output sparse_segment_mean_with_num_segments(const Output& data, const Output& indices,
                                             const Output& segment_ids, const Output& num_segments,
                                             std::string_view name) {
  return with_num_segments("Mean", data, indices, segment_ids, num_segments, name);
}
Output sparse_segment_mean_with_num_segments(const Output& data, const Output& indices,
                                             const Output& segment_ids, std::int64_t num_segments,
                                             std::string_view name) {
  return with_num_segments("Mean", data, indices, segment_ids, num_segments, name);
}
Output sparse_segment_sqrt_n_with_num_segments(const Output& data, const Output& indices,
                                               const Output& segment_ids,
                                               const Output& num_segments, std::string_view name) {
  return with_num_segments("SqrtN", data, indices, segment_ids, num_segments, name);
}
Output sparse_segment_sqrt_n_with_num_segments(const Output& data, const Output& indices,
                                               const Output& segment_ids, std::int64_t num_segments,
                                               std::string_view name) {
  return with_num_segments("SqrtN", data, indices, segment_ids, num_segments, name);
}

}  // namespace af
