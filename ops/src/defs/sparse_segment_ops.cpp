// The definitions of SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN, their Grad and
// GradV2 ops and SegmentSum: shape functions (TensorFlow's SparseSegmentReductionShapeFn,
// SparseSegmentReductionGradShapeFn, SparseSegmentReductionGradV2ShapeFn and
// SegmentReductionShapeFn in math_ops.cc) and the graph-building functions of
// sparse_segment_ops.hpp. Registered by register_segment_ops;
// the kernels are in kernels/src/sparse_segment_ops.cpp, the gradients in
// ops/src/gradients/math_grad.cpp.
#include "actorflow/ops/sparse_segment_ops.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::check_index_type;
using detail::index_values;
using detail::with_rank;

// [?] + shape[1:] of a shape of rank at least 1 (unknown rank: unknown).
PartialShape rows_unknown(const PartialShape& s) {
  if (!s.rank_known()) return PartialShape::unknown();
  std::vector<std::int64_t> dims(s.dims().begin(), s.dims().end());
  dims[0] = -1;
  return PartialShape(std::move(dims));
}

Status at_least_rank_1(const PartialShape& s) {
  if (s.rank_known() && s.rank() < 1)
    return invalid_argument("Shape must be at least rank 1 but is rank " +
                            std::to_string(s.rank()));
  return {};
}

// The vectors `a` and `b` have the same length when both are known.
Status same_length(const PartialShape& a, const PartialShape& b) {
  if (a.rank_known() && b.rank_known() && a.rank() == 1 && b.rank() == 1 && a.dim(0) >= 0 &&
      b.dim(0) >= 0 && a.dim(0) != b.dim(0))
    return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                            std::to_string(a.dim(0)) + " and " + std::to_string(b.dim(0)));
  return {};
}

Status infer_sparse_segment_reduction(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Tsegmentids"));
  ACTORFLOW_RETURN_IF_ERROR(at_least_rank_1(c.input_shapes[0]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(same_length(c.input_shapes[1], c.input_shapes[2]));
  c.add_output(c.input_types[0], rows_unknown(c.input_shapes[0]));
  return {};
}

Status infer_sparse_segment_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Tsegmentids"));
  ACTORFLOW_RETURN_IF_ERROR(at_least_rank_1(c.input_shapes[0]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(same_length(c.input_shapes[1], c.input_shapes[2]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  PartialShape out = rows_unknown(c.input_shapes[0]);
  if (const Tensor* dim0 = c.input_values.size() > 3 ? c.input_values[3] : nullptr;
      dim0 != nullptr && out.rank_known()) {
    std::vector<std::int64_t> dims(out.dims().begin(), out.dims().end());
    dims[0] = index_values(*dim0)[0];
    out = PartialShape(std::move(dims));
  }
  c.add_output(c.input_types[0], out);
  return {};
}

// SparseSegmentReductionGradShapeFnImpl with outputs_unique_indices: `[?] + grad.shape[1:]`
// (the number of unique indices is known only when the op runs, whatever dense_output_dim0
// is) and `[?]` of the indices' dtype.
Status infer_sparse_segment_grad_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Tsegmentids"));
  ACTORFLOW_RETURN_IF_ERROR(at_least_rank_1(c.input_shapes[0]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  // Merge(segment_ids, indices): the segment ids' length is named first.
  ACTORFLOW_RETURN_IF_ERROR(same_length(c.input_shapes[2], c.input_shapes[1]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  c.add_output(c.input_types[0], rows_unknown(c.input_shapes[0]));
  c.add_output(c.input_types[1], PartialShape(std::vector<std::int64_t>{-1}));
  return {};
}

Status infer_segment_sum(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  ACTORFLOW_RETURN_IF_ERROR(at_least_rank_1(c.input_shapes[0]));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  const PartialShape& data = c.input_shapes[0];
  if (data.rank_known()) {
    const PartialShape rows(std::vector<std::int64_t>{data.dim(0)});
    ACTORFLOW_RETURN_IF_ERROR(same_length(c.input_shapes[1], rows));
  }
  c.add_output(c.input_types[0], rows_unknown(data));
  return {};
}

Output reduction(const char* op, const Output& data, const Output& indices,
                 const Output& segment_ids, std::string_view name) {
  return data.graph()
      .create_op(
          op, {data, indices, segment_ids},
          {{"T", data.dtype()}, {"Tidx", indices.dtype()}, {"Tsegmentids", segment_ids.dtype()}},
          name.empty() ? std::string_view(op) : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_sparse_ops(OpRegistry& r);  // defs/sparse_ops.cpp

void register_sparse_segment_ops(OpRegistry& r) {
  register_sparse_ops(r);
  for (const char* kind : {"Sum", "Mean", "SqrtN"}) {
    r.add({std::string("SparseSegment") + kind, infer_sparse_segment_reduction});
    r.add({std::string("SparseSegment") + kind + "Grad", infer_sparse_segment_grad});
    r.add({std::string("SparseSegment") + kind + "GradV2", infer_sparse_segment_grad_v2});
  }
  r.add({"SegmentSum", infer_segment_sum});
}

}  // namespace detail

Output sparse_segment_sum(const Output& data, const Output& indices, const Output& segment_ids,
                          std::string_view name) {
  return reduction("SparseSegmentSum", data, indices, segment_ids, name);
}

Output sparse_segment_mean(const Output& data, const Output& indices, const Output& segment_ids,
                           std::string_view name) {
  return reduction("SparseSegmentMean", data, indices, segment_ids, name);
}

Output sparse_segment_sqrt_n(const Output& data, const Output& indices, const Output& segment_ids,
                             std::string_view name) {
  return reduction("SparseSegmentSqrtN", data, indices, segment_ids, name);
}

Output sparse_segment_reduction_grad(std::string_view kind, const Output& grad,
                                     const Output& indices, const Output& segment_ids,
                                     const Output& output_dim0, std::string_view name) {
  if (kind != "Sum" && kind != "Mean" && kind != "SqrtN")
    throw InvalidArgumentError(invalid_argument("sparse_segment_reduction_grad: kind '" +
                                                std::string(kind) + "' is not Sum, Mean or SqrtN"));
  const std::string op = "SparseSegment" + std::string(kind) + "Grad";
  return grad.graph()
      .create_op(
          op, {grad, indices, segment_ids, output_dim0},
          {{"T", grad.dtype()}, {"Tidx", indices.dtype()}, {"Tsegmentids", segment_ids.dtype()}},
          name.empty() ? std::string_view(op) : name)
      .output(0);
}

Operation sparse_segment_reduction_grad_v2(std::string_view kind, const Output& grad,
                                           const Output& indices, const Output& segment_ids,
                                           const Output& dense_output_dim0, std::string_view name) {
  if (kind != "Sum" && kind != "Mean" && kind != "SqrtN")
    throw InvalidArgumentError(invalid_argument("sparse_segment_reduction_grad_v2: kind '" +
                                                std::string(kind) + "' is not Sum, Mean or SqrtN"));
  const std::string op = "SparseSegment" + std::string(kind) + "GradV2";
  return grad.graph().create_op(
      op, {grad, indices, segment_ids, dense_output_dim0},
      {{"T", grad.dtype()}, {"Tidx", indices.dtype()}, {"Tsegmentids", segment_ids.dtype()}},
      name.empty() ? std::string_view(op) : name);
}

Output segment_sum(const Output& data, const Output& segment_ids, std::string_view name) {
  return data.graph()
      .create_op("SegmentSum", {data, segment_ids},
                 {{"T", data.dtype()}, {"Tindices", segment_ids.dtype()}},
                 name.empty() ? "SegmentSum" : name)
      .output(0);
}

}  // namespace af
