// The definitions of SparseFillEmptyRows and SparseFillEmptyRowsGrad (shape functions as in
// TensorFlow's sparse_ops.cc) and the graph-building functions of sparse_ops.hpp. Registered
// by register_sparse_segment_ops; the kernels are in kernels/src/sparse_ops.cpp, the gradient
// in ops/src/gradients/math_grad.cpp.
#include "actorflow/ops/sparse_ops.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::with_rank;

// indices [N, rank], values [N], dense_shape [rank], default_value []: output indices
// [?, rank], values [?], the indicator [?] and the map [N].
Status infer_fill_empty_rows(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  const PartialShape& indices = c.input_shapes[0];
  const std::int64_t rank = indices.rank_known() ? indices.dim(1) : -1;
  const std::int64_t n = indices.rank_known() ? indices.dim(0) : -1;
  c.add_output(DType::int64, PartialShape(std::vector<std::int64_t>{-1, rank}));
  c.add_output(c.input_types[1], PartialShape(std::vector<std::int64_t>{-1}));
  c.add_output(DType::boolean, PartialShape(std::vector<std::int64_t>{-1}));
  c.add_output(DType::int64, PartialShape(std::vector<std::int64_t>{n}));
  return {};
}

// reverse_index_map [N], grad_values [?]: d_values [N], d_default_value [].
Status infer_fill_empty_rows_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  c.add_output(c.input_types[1], c.input_shapes[0]);
  c.add_output(c.input_types[1], PartialShape(Shape{}));
  return {};
}

}  // namespace

namespace detail {

void register_sparse_ops(OpRegistry& r) {
  r.add({"SparseFillEmptyRows", infer_fill_empty_rows});
  r.add({"SparseFillEmptyRowsGrad", infer_fill_empty_rows_grad});
}

}  // namespace detail

SparseFillEmptyRowsResult sparse_fill_empty_rows(const SparseTensor& sp,
                                                 const Output& default_value,
                                                 std::string_view name) {
  if (!sp.valid())
    throw InvalidArgumentError(invalid_argument("sparse_fill_empty_rows: an invalid SparseTensor"));
  if (default_value.dtype() != sp.values.dtype())
    throw InvalidArgumentError(invalid_argument("sparse_fill_empty_rows: the default value is " +
                                                std::string(dtype_name(default_value.dtype())) +
                                                ", the values " +
                                                std::string(dtype_name(sp.values.dtype()))));
  Operation op = sp.values.graph().create_op(
      "SparseFillEmptyRows", {sp.indices, sp.values, sp.dense_shape, default_value},
      {{"T", sp.values.dtype()}}, name.empty() ? "SparseFillEmptyRows" : name);
  return {SparseTensor{op.output(0), op.output(1), sp.dense_shape}, op.output(2), op.output(3)};
}

std::pair<Output, Output> sparse_fill_empty_rows_grad(const Output& reverse_index_map,
                                                      const Output& grad_values,
                                                      std::string_view name) {
  Operation op = grad_values.graph().create_op(
      "SparseFillEmptyRowsGrad", {reverse_index_map, grad_values}, {{"T", grad_values.dtype()}},
      name.empty() ? "SparseFillEmptyRowsGrad" : name);
  return {op.output(0), op.output(1)};
}

SparseTensor sparse_retain(const SparseTensor& sp, const Output& to_retain) {
  Graph& g = sp.values.graph();
  auto scope = g.name_scope("SparseRetain");
  const Output where_true =
      reshape(where(to_retain, "Where"), std::vector<std::int64_t>{-1}, "Reshape");
  return SparseTensor{gather(sp.indices, where_true, "GatherV2"),
                      gather(sp.values, where_true, "GatherV2_1"),
                      identity(sp.dense_shape, "Identity")};
}

}  // namespace af
