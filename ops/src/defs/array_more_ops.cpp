// The definitions of Bitcast, DataFormatDimMap, DataFormatVecPermute, UnravelIndex,
// LowerBound, UpperBound, NthElement, InplaceAdd, InplaceSub, InplaceUpdate, Empty,
// ParallelConcat, GuaranteeConst and CheckNumericsV2 (shape functions as TensorFlow's
// array_ops.cc, nn_ops.cc and tensorflow/c/kernels/ops/bitcast.cc) and their builders. Their
// CPU kernels are in kernels/src/array_more_ops.cpp, NthElement's and CheckNumericsV2's
// gradients in ops/src/gradients/array_more_grad.cpp.
#include "actorflow/ops/array_more_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/tf_datatype.hpp"
#include "actorflow/ops/graph.hpp"
#include "array_more_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using cwise::fixed_type_mismatch_message;
using cwise::merge_shapes;
using cwise::type_mismatch_message;
using detail::check_attr_type;
using detail::check_index_type;
using detail::index_values;
using detail::tf_enum;  // the DataType enum value Bitcast's shape function prints
using detail::with_rank;
using detail::with_rank_at_least;
using detail::array_more::check_list_of_one_type;
using detail::array_more::kRealTypes;
using detail::array_more::make_op;

// TensorFlow's names of the types Bitcast takes.
constexpr const char* kBitcastTypeNames =
    "bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, "
    "complex64, complex128, qint8, quint8, qint16, quint16, qint32";

// -- Bitcast --------------------------------------------------------------------------------

// bitcast.cc's shape function: unknown for an unknown rank; a smaller output type appends
// in_size / out_size, a larger one needs (and drops) a last dimension of out_size / in_size.
Status infer_bitcast(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  const DType in = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(in, "T", kRealTypes, kBitcastTypeNames));
  DType out = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("type", &out));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(out, "type", kRealTypes, kBitcastTypeNames));
  const PartialShape& input = c.input_shapes[0];
  if (!input.rank_known()) {
    c.add_output(out, PartialShape::unknown());
    return {};
  }
  const auto in_size = static_cast<Index>(dtype_size(in)),
             out_size = static_cast<Index>(dtype_size(out));
  std::vector<std::int64_t> dims = input.dims();
  if (in_size < out_size) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(input, 1));
    const Index divisor = out_size / in_size, last = dims.back();
    if (last >= 0 && last != divisor)
      return invalid_argument("Cannot bitcast from " + std::to_string(tf_enum(in)) + " to " +
                              std::to_string(tf_enum(out)) + " due to shape. " +
                              std::to_string(last) + " does not match " + std::to_string(divisor));
    dims.pop_back();
  } else if (in_size > out_size) {
    dims.push_back(in_size / out_size);
  }
  c.add_output(out, PartialShape(std::move(dims)));
  return {};
}

// -- DataFormatDimMap, DataFormatVecPermute, UnravelIndex -----------------------------------

// UnchangedShape of an int32 or int64 input (the formats are checked by the kernels).
Status infer_data_format(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[0], "T"));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// UnravelIndex: [dims[0]] for a scalar index, [dims[0], num_elements(indices)] otherwise.
Status infer_unravel_index(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  if (c.input_types[1] != t)
    return invalid_argument(
        type_mismatch_message(c.node.op, "dims", c.input_types[1], "indices", t));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(t, "Tidx"));
  const PartialShape& indices = c.input_shapes[0];
  const PartialShape& dims = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(dims, 1));
  const Index ndims = dims.rank_known() ? dims.dim(0) : -1;
  if (indices.rank_known() && indices.rank() == 0)
    c.add_output(t, PartialShape{ndims});
  else if (indices.rank_known())
    c.add_output(t, PartialShape{ndims, indices.num_elements()});
  else
    c.add_output(t, PartialShape::unknown());
  return {};
}

// -- LowerBound, UpperBound, NthElement -----------------------------------------------------

// LowerBound / UpperBound: two matrices of one type; the output has values' shape.
Status infer_search_sorted(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  if (c.input_types[1] != t)
    return invalid_argument(
        type_mismatch_message(c.node.op, "values", c.input_types[1], "sorted_inputs", t));
  DType out_type = DType::int32;
  c.get_attr("out_type", &out_type);
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(out_type, "out_type"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 2));
  c.add_output(out_type, c.input_shapes[1]);
  return {};
}

// NthElement: input of rank >= 1 less its last dimension; a constant n is checked against it.
Status infer_nth_element(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const DType t = c.input_types[0];
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(t, c.node.op));
  if (c.input_types[1] != DType::int32)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "n", c.input_types[1], DType::int32));
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(input, 1));
  // MakeDimForScalarInput: a constant n must be a non-negative scalar.
  Index n = -1;
  if (const Tensor* value = c.input_values[1]) {
    if (value->rank() != 0)
      return invalid_argument("Input must be scalar but has rank " + std::to_string(value->rank()));
    n = index_values(*value)[0];
    if (n < 0)
      return invalid_argument(
          "Dimension size, given by scalar input 1, must be non-negative but is " +
          std::to_string(n));
  }
  if (!input.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims = input.dims();
  const Index last = dims.back();
  if (last >= 0 && n >= 0 && last <= n)
    return invalid_argument("Input must have last dimension > n = " + std::to_string(n) +
                            " but is " + std::to_string(last));
  dims.pop_back();
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- InplaceAdd / InplaceSub / InplaceUpdate, Empty, ParallelConcat -------------------------

// UnchangedShape of x; i an int32 vector (checked when run), v of x's type.
Status infer_inplace(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  const DType t = c.input_types[0];
  if (c.input_types[1] != DType::int32)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "i", c.input_types[1], DType::int32));
  if (c.input_types[2] != t)
    return invalid_argument(type_mismatch_message(c.node.op, "v", c.input_types[2], "x", t));
  c.add_output(t, c.input_shapes[0]);
  return {};
}

// Empty: MakeShapeFromShapeTensor of the int32 shape vector.
Status infer_empty(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  if (c.input_types[0] != DType::int32)
    return invalid_argument(
        fixed_type_mismatch_message(c.node.op, "shape", c.input_types[0], DType::int32));
  DType dtype = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &dtype));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(detail::shape_from_shape_tensor(c, 0, &out));
  c.add_output(dtype, out);
  return {};
}

// ParallelConcat: the fully defined shape attr; each input fully defined, of first dimension
// 1, merging with the attr's shape less its first dimension.
Status infer_parallel_concat(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_list_of_one_type(c, "values"));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("shape", &shape));
  if (!shape.fully_defined()) return invalid_argument("shape attr must be fully defined.");
  if (shape.rank() == 0)
    return invalid_argument("Out of range dim_index 0 for shape with 0 dimensions");
  std::vector<std::int64_t> first = shape.dims();
  first[0] = 1;
  PartialShape cur(std::move(first));
  for (int i = 0; i < c.num_inputs(); ++i) {
    const PartialShape& in = c.input_shapes[static_cast<std::size_t>(i)];
    if (!in.fully_defined()) return invalid_argument("All input shapes must be fully defined.");
    if (in.rank() == 0 || in.dim(0) != 1)
      return invalid_argument("Size of first dimension must be 1.");
    PartialShape merged;
    if (Status s = merge_shapes(in, cur, &merged); !s.ok())
      return Status(s.code(), s.message() + "\n\tFrom merging shape " + std::to_string(i) +
                                  " with other shapes.");
    cur = std::move(merged);
  }
  c.add_output(c.input_types[0], shape);
  return {};
}

// CheckNumericsV2: UnchangedShape of a floating-point input.
Status infer_check_numerics_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[0], "T", cwise::kFloatTypes, "bfloat16, half, float, double"));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// -- builders -------------------------------------------------------------------------------

Output inplace_op(const char* type, const Output& x, const Output& i, const Output& v,
                  std::string_view name) {
  return make_op(type, {x, i, v}, {{"T", x.dtype()}}, name);
}

}  // namespace

namespace detail {

void register_array_more_ops(OpRegistry& r) {
  r.add({"Bitcast", infer_bitcast});
  r.add({"DataFormatDimMap", infer_data_format});
  r.add({"DataFormatVecPermute", infer_data_format});
  r.add({"UnravelIndex", infer_unravel_index});
  r.add({"LowerBound", infer_search_sorted});
  r.add({"UpperBound", infer_search_sorted});
  r.add({"NthElement", infer_nth_element});
  r.add({"InplaceUpdate", infer_inplace});
  r.add({"InplaceAdd", infer_inplace});
  r.add({"InplaceSub", infer_inplace});
  r.add({"Empty", infer_empty, /*stateful=*/true});
  r.add({"ParallelConcat", infer_parallel_concat});
  r.add({"GuaranteeConst", infer_unchanged, /*stateful=*/true});
  r.add({"CheckNumericsV2", infer_check_numerics_v2, /*stateful=*/true});
}

}  // namespace detail

Output bitcast(const Output& input, DType type, std::string_view name) {
  return make_op("Bitcast", {input}, {{"T", input.dtype()}, {"type", type}}, name);
}

Output unravel_index(const Output& indices, const Output& dims, std::string_view name) {
  return make_op("UnravelIndex", {indices, dims}, {{"Tidx", indices.dtype()}}, name);
}

Output lower_bound(const Output& sorted_inputs, const Output& values, DType out_type,
                   std::string_view name) {
  return make_op("LowerBound", {sorted_inputs, values},
                 {{"T", sorted_inputs.dtype()}, {"out_type", out_type}}, name);
}

Output upper_bound(const Output& sorted_inputs, const Output& values, DType out_type,
                   std::string_view name) {
  return make_op("UpperBound", {sorted_inputs, values},
                 {{"T", sorted_inputs.dtype()}, {"out_type", out_type}}, name);
}

Output inplace_update(const Output& x, const Output& i, const Output& v, std::string_view name) {
  return inplace_op("InplaceUpdate", x, i, v, name);
}

Output inplace_add(const Output& x, const Output& i, const Output& v, std::string_view name) {
  return inplace_op("InplaceAdd", x, i, v, name);
}

Output inplace_sub(const Output& x, const Output& i, const Output& v, std::string_view name) {
  return inplace_op("InplaceSub", x, i, v, name);
}

Output empty(const Output& shape, DType dtype, bool init, std::string_view name) {
  return make_op("Empty", {shape}, {{"dtype", dtype}, {"init", init}}, name);
}

Output parallel_concat(const std::vector<Output>& values, const PartialShape& shape,
                       std::string_view name) {
  if (values.empty())
    throw InvalidArgumentError(invalid_argument("ParallelConcat needs at least one input"));
  return make_op(
      "ParallelConcat", values,
      {{"N", static_cast<std::int64_t>(values.size())}, {"T", values[0].dtype()}, {"shape", shape}},
      name);
}

Output parallel_stack(const std::vector<Output>& values, std::string_view name) {
  if (values.empty()) throw InvalidArgumentError(invalid_argument("Input list must be non-empty"));
  Graph& g = values[0].graph();
  auto scope = g.name_scope(name.empty() ? "parallel_stack" : name);
  const PartialShape& value_shape = values[0].shape();
  std::vector<std::int64_t> dims{static_cast<std::int64_t>(values.size())};
  if (value_shape.rank_known())
    dims.insert(dims.end(), value_shape.dims().begin(), value_shape.dims().end());
  std::vector<Output> expanded;
  for (const Output& v : values) expanded.push_back(expand_dims(v, 0));
  return parallel_concat(expanded,
                         value_shape.rank_known() ? PartialShape(dims) : PartialShape::unknown());
}

Output guarantee_const(const Output& input, std::string_view name) {
  return make_op("GuaranteeConst", {input}, {{"T", input.dtype()}}, name);
}

Output check_numerics_v2(const Output& tensor, const std::string& message, std::string_view name) {
  return make_op("CheckNumericsV2", {tensor}, {{"T", tensor.dtype()}, {"message", message}}, name);
}

namespace nn {

Output data_format_dim_map(const Output& x, const std::string& src_format,
                           const std::string& dst_format, std::string_view name) {
  return make_op("DataFormatDimMap", {x},
                 {{"T", x.dtype()}, {"src_format", src_format}, {"dst_format", dst_format}}, name);
}

Output data_format_vec_permute(const Output& x, const std::string& src_format,
                               const std::string& dst_format, std::string_view name) {
  return make_op("DataFormatVecPermute", {x},
                 {{"T", x.dtype()}, {"src_format", src_format}, {"dst_format", dst_format}}, name);
}

Output nth_element(const Output& input, const Output& n, bool reverse, std::string_view name) {
  return make_op("NthElement", {input, n}, {{"T", input.dtype()}, {"reverse", reverse}}, name);
}

Output nth_element(const Output& input, std::int64_t n, bool reverse, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "NthElement" : name);
  Output n_t;
  {
    auto scope = g.name_scope(op_name + "/");
    n_t = g.constant(Tensor(static_cast<std::int32_t>(n)), "n");
  }
  return nth_element(input, n_t, reverse, op_name + "/");
}

}  // namespace nn

}  // namespace af
