// The definitions of SparseFillEmptyRows, SparseFillEmptyRowsGrad, SparseReshape and
// SparseToDense (shape functions as in TensorFlow's sparse_ops.cc) and the graph-building
// functions of sparse_ops.hpp. Registered by register_sparse_segment_ops; the kernels are in
// kernels/src/sparse_ops.cpp, the gradients in ops/src/gradients/math_grad.cpp
// (SparseFillEmptyRows) and array_grad.cpp (SparseToDense).
#include "actorflow/ops/sparse_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::index_values;
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

// input_indices [N, R], input_shape [R], new_shape [R']: output_indices [N, R'],
// output_shape [R'].
Status infer_sparse_reshape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  for (int i = 0; i < 3; ++i) ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(i, DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  const PartialShape& indices = c.input_shapes[0];
  const PartialShape& new_shape = c.input_shapes[2];
  const std::int64_t n = indices.rank_known() ? indices.dim(0) : -1;
  const std::int64_t rank = new_shape.rank_known() ? new_shape.dim(0) : -1;
  c.add_output(DType::int64, PartialShape(std::vector<std::int64_t>{n, rank}));
  c.add_output(DType::int64, PartialShape(std::vector<std::int64_t>{rank}));
  return {};
}

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value): the output's
// shape is output_shape's value (MakeShapeFromShapeTensor); the indices and the shape share
// Tindices, the values and the default T.
Status infer_sparse_to_dense(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[0], "Tindices"));
  if (c.input_types[1] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, "output_shape", c.input_types[1], "sparse_indices", c.input_types[0]));
  if (c.input_types[3] != c.input_types[2])
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, "default_value", c.input_types[3], "sparse_values", c.input_types[2]));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 1, &out));
  c.add_output(c.input_types[2], std::move(out));
  return {};
}

// The value of `x` when a Const produces it, else null.
const Tensor* const_value(const Output& x) {
  return x.node()->type() == "Const" ? x.node()->def().attr<Tensor>("value") : nullptr;
}

// numpy's str() of an int vector, as sparse_ops.py's ValueError prints it: "[-1 -1]", the
// elements right-aligned to one width ("[-1  5 -1]").
std::string numpy_string(const std::vector<std::int64_t>& values) {
  std::size_t width = 0;
  for (auto v : values) width = std::max(width, std::to_string(v).size());
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string v = std::to_string(values[i]);
    if (i) out += " ";
    out += std::string(width - v.size(), ' ') + v;
  }
  return out + "]";
}

// sparse_ops.py's sparse_reshape while building: with the input's dense shape and the new
// shape both Consts, the new shape with its -1 resolved (nullopt when either is not known
// while building, or a 0 among the new dims leaves the -1 open). Throws its ValueErrors for
// two -1s or a size that differs.
std::optional<std::vector<std::int64_t>> static_new_shape(const Output& dense_shape,
                                                          const Output& new_shape) {
  const Tensor* in = const_value(dense_shape);
  const Tensor* out = const_value(new_shape);
  if (in == nullptr || out == nullptr || in->rank() != 1 || out->rank() != 1 ||
      (out->dtype() != DType::int32 && out->dtype() != DType::int64))
    return std::nullopt;
  const std::vector<std::int64_t> in_dims = index_values(*in);
  std::vector<std::int64_t> dims = index_values(*out);
  // Dimensions below -1 fail in Python's TensorShape; here the kernel reports them.
  if (std::any_of(in_dims.begin(), in_dims.end(), [](auto d) { return d < 0; }) ||
      std::any_of(dims.begin(), dims.end(), [](auto d) { return d < -1; }))
    return std::nullopt;
  const auto implied = std::count(dims.begin(), dims.end(), std::int64_t{-1});
  if (implied > 1)
    throw InvalidArgumentError(invalid_argument(
        "At most one dimension can be inferred (-1). Found: " + numpy_string(dims)));
  const bool has_zero = std::find(dims.begin(), dims.end(), 0) != dims.end();
  if (implied == 1 && has_zero) return std::nullopt;
  std::int64_t in_size = 1, known = 1;
  for (auto d : in_dims) in_size *= d;
  for (auto d : dims)
    if (d != -1) known *= d;
  std::string as_list = "[";  // the Python list, None for the -1
  for (std::size_t i = 0; i < dims.size(); ++i)
    as_list += (i ? ", " : "") + (dims[i] == -1 ? std::string("None") : std::to_string(dims[i]));
  as_list += "]";
  std::int64_t size = known;
  if (implied == 1) {
    const std::int64_t missing = in_size / known;
    std::replace(dims.begin(), dims.end(), std::int64_t{-1}, missing);
    size *= missing;
  }
  if (size != in_size)
    throw InvalidArgumentError(invalid_argument(
        "Cannot reshape a tensor with " + std::to_string(in_size) + " elements to shape " +
        as_list + " (" + std::to_string(size) + " elements)."));
  return dims;
}

}  // namespace

namespace detail {

void register_sparse_ops(OpRegistry& r) {
  r.add({"SparseFillEmptyRows", infer_fill_empty_rows});
  r.add({"SparseFillEmptyRowsGrad", infer_fill_empty_rows_grad});
  r.add({"SparseReshape", infer_sparse_reshape});
  r.add({"SparseToDense", infer_sparse_to_dense});
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

SparseTensor sparse_reshape(const SparseTensor& sp, const Output& shape, std::string_view name) {
  if (!sp.valid() || !shape.valid())
    throw InvalidArgumentError(
        invalid_argument("sparse_reshape: an invalid SparseTensor or shape"));
  Graph& g = sp.values.graph();
  // As sparse_ops.py: the shape is cast to int64 outside the op's name scope.
  const Output new_shape = cast(shape, DType::int64, "Cast");
  const std::optional<std::vector<std::int64_t>> known = static_new_shape(sp.dense_shape, shape);
  const std::string op_name = g.unique_name(name.empty() ? "SparseReshape" : name);
  Operation op =
      g.create_op("SparseReshape", {sp.indices, sp.dense_shape, new_shape}, {}, op_name + "/");
  auto scope = g.name_scope(op_name + "/");
  // A new shape known while building replaces the op's output, as in sparse_ops.py.
  const Output dense_shape =
      known ? g.constant(Tensor::from_vector(*known), "Const") : op.output(1);
  return SparseTensor{op.output(0), identity(sp.values, "Identity"), dense_shape};
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

Output sparse_to_dense(const Output& sparse_indices, const Output& output_shape,
                       const Output& sparse_values, const Output& default_value,
                       bool validate_indices, std::string_view name) {
  return sparse_values.graph()
      .create_op("SparseToDense", {sparse_indices, output_shape, sparse_values, default_value},
                 {{"validate_indices", validate_indices},
                  {"T", sparse_values.dtype()},
                  {"Tindices", sparse_indices.dtype()}},
                 name.empty() ? "SparseToDense" : name)
      .output(0);
}

}  // namespace af
