// The definitions of SetSize, DenseToDenseSetOperation, DenseToSparseSetOperation,
// SparseToSparseSetOperation (shape functions as TensorFlow's set_ops.cc), SparseSplit
// (sparse_ops.cc), SparseBincount, RaggedBincount (math_ops.cc), DenseCountSparseOutput,
// SparseCountSparseOutput and RaggedCountSparseOutput (count_ops.cc), and the builders of
// actorflow/ops/sets_sparse_ops.hpp (sets_impl.py, sparse_ops.py). The CPU kernels are in
// kernels/src/set_ops.cpp and kernels/src/sparse_more_ops.cpp; the set ops are registered not
// differentiable in ops/src/gradients/sets_sparse_grad.cpp.
#include "actorflow/ops/sets_sparse_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::vector_of;
using detail::with_value;

using Index = std::int64_t;
using cwise::check_allowed_type;
using detail::check_index_type;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;

// The value types of the set kernels actorflow has (TensorFlow's list adds int8, int16 and
// uint16, named in its message).
const std::vector<DType> kSetTypes = {DType::int8,  DType::int16,  DType::int32, DType::int64,
                                      DType::uint8, DType::uint16, DType::string};
const char* const kSetTypeNames = "int8, int16, int32, int64, uint8, uint16, string";
// The weight / output types of the bincount and count ops.
const std::vector<DType> kCountTypes = {DType::int32, DType::int64, DType::float32, DType::float64};

Index dim_or_unknown(const PartialShape& s, int i) {
  return s.rank_known() && s.rank() > i ? s.dim(i) : -1;
}
PartialShape matrix_of(Index rows, Index cols) {
  return PartialShape(std::vector<std::int64_t>{rows, cols});
}

// Input `i` (named `arg`) must be int64 (op_def_library's message).
Status int64_input(const InferenceContext& c, int i, const char* arg) {
  const DType t = c.input_types[static_cast<std::size_t>(i)];
  if (t != DType::int64)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, arg, t, DType::int64));
  return {};
}

// Input `i` (named `arg`) must have input `first`'s (named `first_arg`) type.
Status same_type(const InferenceContext& c, int i, const char* arg, int first,
                 const char* first_arg) {
  const DType got = c.input_types[static_cast<std::size_t>(i)];
  const DType want = c.input_types[static_cast<std::size_t>(first)];
  if (got != want)
    return invalid_argument(cwise::type_mismatch_message(c.node.op, arg, got, first_arg, want));
  return {};
}

// An int attr with a minimum (TensorFlow's NodeDef validation), `fallback` when absent.
Status int_attr_at_least(const InferenceContext& c, const char* name, Index minimum, Index fallback,
                         Index* out) {
  *out = fallback;
  c.get_attr(name, out);
  if (*out < minimum)
    return invalid_argument("Value for attr '" + std::string(name) + "' of " +
                            std::to_string(*out) + " must be at least minimum " +
                            std::to_string(minimum));
  return {};
}

// shape_inference::ValidateSparseTensor of inputs [first, first + 3): indices a matrix,
// values and shape vectors, their lengths agreeing where known.
Status validate_sparse_shapes(const InferenceContext& c, int first) {
  const auto at = static_cast<std::size_t>(first);
  const PartialShape& indices = c.input_shapes[at];
  const PartialShape& values = c.input_shapes[at + 1];
  const PartialShape& shape = c.input_shapes[at + 2];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(indices, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(values, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(shape, 1));
  const Index nnz = dim_or_unknown(indices, 0), nvalues = dim_or_unknown(values, 0);
  if (nnz >= 0 && nvalues >= 0 && nnz != nvalues)
    return invalid_argument("Number of elements in index (" + std::to_string(nnz) +
                            ") and values (" + std::to_string(nvalues) + ") do not match.");
  const Index index_rank = dim_or_unknown(indices, 1), shape_rank = dim_or_unknown(shape, 0);
  if (index_rank >= 0 && shape_rank >= 0 && index_rank != shape_rank)
    return invalid_argument("Index rank (" + std::to_string(index_rank) + ") and shape rank (" +
                            std::to_string(shape_rank) + ") do not match.");
  return {};
}

// A SparseTensor result of `rank` dimensions (-1 unknown) and values of `t`.
void add_sparse_outputs(InferenceContext& c, Index rank, DType t) {
  c.add_output(DType::int64, matrix_of(-1, rank));
  c.add_output(t, vector_of(-1));
  c.add_output(DType::int64, vector_of(rank));
}

// -- sets ---------------------------------------------------------------------------------

// SetSize: int32 of unknown shape (shape_inference::UnknownShape).
Status infer_set_size(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 0, "set_indices"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 2, "set_shape"));
  ACTORFLOW_RETURN_IF_ERROR(
      detail::check_attr_type(c.input_types[1], "T", kSetTypes, kSetTypeNames));
  c.add_output(DType::int32, PartialShape::unknown());
  return {};
}

// The set operations' attrs: T among the set types, set_operation given.
Status check_set_operation(const InferenceContext& c, int values_input) {
  ACTORFLOW_RETURN_IF_ERROR(detail::check_attr_type(
      c.input_types[static_cast<std::size_t>(values_input)], "T", kSetTypes, kSetTypeNames));
  std::string op;
  return c.get_attr("set_operation", &op);
}

// DenseToDenseSetOperation: both of rank >= 2 and one rank, their group dimensions merged;
// indices [?, rank], values [?], shape [rank].
Status infer_dense_to_dense(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(same_type(c, 1, "set2", 0, "set1"));
  ACTORFLOW_RETURN_IF_ERROR(check_set_operation(c, 0));
  const PartialShape& in0 = c.input_shapes[0];
  const PartialShape& in1 = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in0, 2));
  Index rank = -1;
  if (in0.rank_known()) {
    rank = in0.rank();
    ACTORFLOW_RETURN_IF_ERROR(with_rank(in1, in0.rank()));
    if (in1.rank_known()) {
      const std::vector<std::int64_t>& d0 = in0.dims();
      const std::vector<std::int64_t>& d1 = in1.dims();
      PartialShape merged;
      ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(
          PartialShape(std::vector<std::int64_t>(d0.begin(), d0.end() - 1)),
          PartialShape(std::vector<std::int64_t>(d1.begin(), d1.end() - 1)), &merged));
    }
  } else {
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in1, 2));
    if (in1.rank_known()) rank = in1.rank();
  }
  add_sparse_outputs(c, rank, c.input_types[0]);
  return {};
}

// DenseToSparseSetOperation: set2 a SparseTensor whose rank (its shape's length) is set1's.
Status infer_dense_to_sparse(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 1, "set2_indices"));
  ACTORFLOW_RETURN_IF_ERROR(same_type(c, 2, "set2_values", 0, "set1"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 3, "set2_shape"));
  ACTORFLOW_RETURN_IF_ERROR(check_set_operation(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(validate_sparse_shapes(c, 1));
  const Index sparse_rank = dim_or_unknown(c.input_shapes[3], 0);
  const PartialShape& in0 = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in0, 2));
  Index rank = sparse_rank;
  if (in0.rank_known()) {
    ACTORFLOW_RETURN_IF_ERROR(with_value(sparse_rank, in0.rank()));
    rank = in0.rank();
  }
  add_sparse_outputs(c, rank, c.input_types[0]);
  return {};
}

// SparseToSparseSetOperation: both SparseTensors of one rank >= 2.
Status infer_sparse_to_sparse(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(6));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 0, "set1_indices"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 2, "set1_shape"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 3, "set2_indices"));
  ACTORFLOW_RETURN_IF_ERROR(same_type(c, 4, "set2_values", 1, "set1_values"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 5, "set2_shape"));
  ACTORFLOW_RETURN_IF_ERROR(check_set_operation(c, 1));
  ACTORFLOW_RETURN_IF_ERROR(validate_sparse_shapes(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(validate_sparse_shapes(c, 3));
  const Index rank0 = dim_or_unknown(c.input_shapes[2], 0);
  const Index rank1 = dim_or_unknown(c.input_shapes[5], 0);
  Index rank = -1;
  if (rank0 >= 0) {
    if (rank0 < 2)
      return invalid_argument("Input 0, expected rank >= 2, got " + std::to_string(rank0) + ".");
    ACTORFLOW_RETURN_IF_ERROR(with_value(rank1, rank0));
    rank = rank0;
  } else if (rank1 >= 0) {
    if (rank1 < 2)
      return invalid_argument("Input 1, expected rank >= 2, got " + std::to_string(rank1) + ".");
    rank = rank1;
  }
  add_sparse_outputs(c, rank, c.input_types[1]);
  return {};
}

// -- SparseSplit --------------------------------------------------------------------------

// SparseSplit: num_split indices [?, len(shape)], num_split values [?], num_split shapes of
// the shape input's shape.
Status infer_sparse_split(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 0, "split_dim"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 1, "indices"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 3, "shape"));
  Index num_split = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num_split", &num_split));
  if (num_split < 1)
    return invalid_argument("Value for attr 'num_split' of " + std::to_string(num_split) +
                            " must be at least minimum 1");
  // InferenceContext::NumElements of the shape input.
  const PartialShape& shape = c.input_shapes[3];
  Index rank = shape.rank_known() ? 1 : -1;
  for (int i = 0; shape.rank_known() && i < shape.rank(); ++i)
    rank = shape.dim(i) < 0 || rank < 0 ? -1 : rank * shape.dim(i);
  for (Index i = 0; i < num_split; ++i) c.add_output(DType::int64, matrix_of(-1, rank));
  for (Index i = 0; i < num_split; ++i) c.add_output(c.input_types[2], vector_of(-1));
  for (Index i = 0; i < num_split; ++i) c.add_output(DType::int64, shape);
  return {};
}

// -- bincounts ----------------------------------------------------------------------------

// The bincount ops' types: values and size of one index type, weights a count type.
Status check_bincount_types(const InferenceContext& c, int values, int size, int weights) {
  ACTORFLOW_RETURN_IF_ERROR(
      check_index_type(c.input_types[static_cast<std::size_t>(values)], "Tidx"));
  ACTORFLOW_RETURN_IF_ERROR(same_type(c, size, "size", values, "values"));
  return check_allowed_type(c.input_types[static_cast<std::size_t>(weights)], kCountTypes);
}

// SparseBincount: [size] for a 1-D dense shape, [dense_shape[0], size] for a 2-D one, where
// size and the dense shape are constants; more entries fail.
Status infer_sparse_bincount(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 0, "indices"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 2, "dense_shape"));
  ACTORFLOW_RETURN_IF_ERROR(check_bincount_types(c, 1, 3, 4));
  const DType t = c.input_types[4];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 0));
  const Tensor* size_t_ = c.input_values[3];
  if (size_t_ == nullptr) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const Index size = index_values(*size_t_)[0];
  if (size < 0) return invalid_argument("size (" + std::to_string(size) + ") must be non-negative");
  const Tensor* shape_t = c.input_values[2];
  if (shape_t == nullptr) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const std::vector<Index> shape = index_values(*shape_t);
  if (shape.size() == 1)
    c.add_output(t, vector_of(size));
  else if (shape.size() == 2)
    c.add_output(t, matrix_of(shape[0] < 0 ? -1 : shape[0], size));
  else
    return invalid_argument("Input must be less than rank 2");
  return {};
}

// RaggedBincount: unknown shape.
Status infer_ragged_bincount(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 0, "splits"));
  ACTORFLOW_RETURN_IF_ERROR(check_bincount_types(c, 1, 2, 3));
  c.add_output(c.input_types[3], PartialShape::unknown());
  return {};
}

// -- counts with sparse output ------------------------------------------------------------

// The count ops' types and attrs: values int32 or int64, weights output_type, minlength and
// maxlength at least -1, binary_output given.
Status check_count_attrs(const InferenceContext& c, int values, int weights) {
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[static_cast<std::size_t>(values)], "T"));
  ACTORFLOW_RETURN_IF_ERROR(check_allowed_type(c.input_types[static_cast<std::size_t>(weights)],
                                               kCountTypes, "output_type"));
  Index length = -1;
  ACTORFLOW_RETURN_IF_ERROR(int_attr_at_least(c, "minlength", -1, -1, &length));
  ACTORFLOW_RETURN_IF_ERROR(int_attr_at_least(c, "maxlength", -1, -1, &length));
  bool binary_output = false;
  return c.get_attr("binary_output", &binary_output);
}

// DenseCountSparseOutput: a SparseTensor of the values' rank (merged with the weights' shape
// unless the weights are known empty).
Status infer_dense_count(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_count_attrs(c, 0, 1));
  const PartialShape& values = c.input_shapes[0];
  const PartialShape& weights = c.input_shapes[1];
  bool no_weights = weights.rank_known();
  if (no_weights) {
    Index n = 1;
    for (int i = 0; i < weights.rank(); ++i) {
      if (weights.dim(i) < 0) n = -1;
      if (n >= 0) n *= weights.dim(i);
    }
    no_weights = n == 0;
  }
  PartialShape out = values;
  if (!no_weights) ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(weights, values, &out));
  add_sparse_outputs(c, out.rank_known() ? out.rank() : -1, c.input_types[1]);
  return {};
}

// SparseCountSparseOutput: a SparseTensor of the indices' column count.
Status infer_sparse_count(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 0, "indices"));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 2, "dense_shape"));
  ACTORFLOW_RETURN_IF_ERROR(check_count_attrs(c, 1, 3));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 2));
  add_sparse_outputs(c, dim_or_unknown(c.input_shapes[0], 1), c.input_types[3]);
  return {};
}

// RaggedCountSparseOutput: a SparseTensor of the values' rank plus one (the ragged dimension).
Status infer_ragged_count(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(int64_input(c, 0, "splits"));
  ACTORFLOW_RETURN_IF_ERROR(check_count_attrs(c, 1, 2));
  const PartialShape& values = c.input_shapes[1];
  add_sparse_outputs(c, values.rank_known() ? values.rank() + 1 : -1, c.input_types[2]);
  return {};
}

// -- builders -----------------------------------------------------------------------------

void check_valid(const SparseTensor& sp, const char* who) {
  if (!sp.valid())
    throw InvalidArgumentError(invalid_argument(std::string(who) + ": an invalid SparseTensor"));
}

// The op's name: `name`, or its type.
std::string_view or_type(std::string_view name, const char* type) {
  return name.empty() ? std::string_view(type) : name;
}

DType operand_dtype(const sets::SetOperand& x) {
  if (const auto* sp = std::get_if<SparseTensor>(&x)) return sp->values.dtype();
  return std::get<Output>(x).dtype();
}

bool is_set_dtype(DType t) {
  return std::find(kSetTypes.begin(), kSetTypes.end(), t) != kSetTypes.end();
}

// _convert_to_tensors_or_sparse_tensors: checks the dtypes; swaps a sparse `a` with a dense
// `b` (the kernels take only dense, sparse) and says so.
bool convert_operands(const sets::SetOperand& a, const sets::SetOperand& b) {
  const DType ta = operand_dtype(a), tb = operand_dtype(b);
  if (!is_set_dtype(ta))
    throw InvalidArgumentError(
        invalid_argument("'a' invalid dtype " + std::string(dtype_name(ta)) + "."));
  if (tb != ta)
    throw InvalidArgumentError(invalid_argument("Types don't match, " +
                                                std::string(dtype_name(ta)) + " vs " +
                                                std::string(dtype_name(tb)) + "."));
  return std::holds_alternative<SparseTensor>(a) && std::holds_alternative<Output>(b);
}

SparseTensor sparse_outputs(const Operation& op) {
  return SparseTensor{op.output(0), op.output(1), op.output(2)};
}

// Operations of a count op as a SparseTensor.
SparseTensor count_op(const char* type, const std::vector<Output>& inputs, DType values,
                      DType weights, bool binary_output, Index minlength, Index maxlength,
                      std::string_view name) {
  Graph& g = inputs.front().graph();
  return sparse_outputs(g.create_op(type, inputs,
                                    {{"T", values},
                                     {"output_type", weights},
                                     {"binary_output", binary_output},
                                     {"minlength", minlength},
                                     {"maxlength", maxlength}},
                                    or_type(name, type)));
}

}  // namespace

namespace detail {

void register_sets_sparse_ops(OpRegistry& r) {
  r.add({"SetSize", infer_set_size});
  r.add({"DenseToDenseSetOperation", infer_dense_to_dense});
  r.add({"DenseToSparseSetOperation", infer_dense_to_sparse});
  r.add({"SparseToSparseSetOperation", infer_sparse_to_sparse});
  r.add({"SparseSplit", infer_sparse_split});
  r.add({"SparseBincount", infer_sparse_bincount});
  r.add({"RaggedBincount", infer_ragged_bincount});
  r.add({"DenseCountSparseOutput", infer_dense_count});
  r.add({"SparseCountSparseOutput", infer_sparse_count});
  r.add({"RaggedCountSparseOutput", infer_ragged_count});
}

}  // namespace detail

namespace sets {

Output set_size(const SparseTensor& a, bool validate_indices, std::string_view name) {
  check_valid(a, "set_size");
  const DType t = a.values.dtype();
  if (!is_set_dtype(t))
    throw InvalidArgumentError(
        invalid_argument("Invalid dtype " + std::string(dtype_name(t)) + "."));
  return a.values.graph()
      .create_op("SetSize", {a.indices, a.values, a.dense_shape},
                 {{"validate_indices", validate_indices}, {"T", t}}, or_type(name, "SetSize"))
      .output(0);
}

SparseTensor set_operation(const SetOperand& a, const SetOperand& b, std::string_view set_operation,
                           bool validate_indices, std::string_view name) {
  const AttrMap attrs = {{"set_operation", std::string(set_operation)},
                         {"validate_indices", validate_indices},
                         {"T", operand_dtype(a)}};
  const auto* sa = std::get_if<SparseTensor>(&a);
  const auto* sb = std::get_if<SparseTensor>(&b);
  if (sa && !sb)
    throw InvalidArgumentError(invalid_argument(
        "Sparse,Dense is not supported, but Dense,Sparse is. Please flip the order of your "
        "inputs."));
  if (sa) {
    check_valid(*sa, "set_operation");
    check_valid(*sb, "set_operation");
    return sparse_outputs(sa->values.graph().create_op(
        "SparseToSparseSetOperation",
        {sa->indices, sa->values, sa->dense_shape, sb->indices, sb->values, sb->dense_shape}, attrs,
        or_type(name, "SparseToSparseSetOperation")));
  }
  const Output& da = std::get<Output>(a);
  if (sb) {
    check_valid(*sb, "set_operation");
    return sparse_outputs(da.graph().create_op("DenseToSparseSetOperation",
                                               {da, sb->indices, sb->values, sb->dense_shape},
                                               attrs, or_type(name, "DenseToSparseSetOperation")));
  }
  return sparse_outputs(da.graph().create_op("DenseToDenseSetOperation", {da, std::get<Output>(b)},
                                             attrs, or_type(name, "DenseToDenseSetOperation")));
}

SparseTensor set_intersection(const SetOperand& a, const SetOperand& b, bool validate_indices) {
  if (convert_operands(a, b)) return set_operation(b, a, "intersection", validate_indices);
  return set_operation(a, b, "intersection", validate_indices);
}

SparseTensor set_difference(const SetOperand& a, const SetOperand& b, bool aminusb,
                            bool validate_indices) {
  const bool flipped = convert_operands(a, b);
  if (flipped) aminusb = !aminusb;
  return flipped ? set_operation(b, a, aminusb ? "a-b" : "b-a", validate_indices)
                 : set_operation(a, b, aminusb ? "a-b" : "b-a", validate_indices);
}

SparseTensor set_union(const SetOperand& a, const SetOperand& b, bool validate_indices) {
  if (convert_operands(a, b)) return set_operation(b, a, "union", validate_indices);
  return set_operation(a, b, "union", validate_indices);
}

}  // namespace sets

std::vector<SparseTensor> sparse_split(const SparseTensor& sp, std::int64_t num_split,
                                       const Output& axis, std::string_view name) {
  check_valid(sp, "sparse_split");
  Operation op = sp.values.graph().create_op(
      "SparseSplit", {axis, sp.indices, sp.values, sp.dense_shape},
      {{"num_split", num_split}, {"T", sp.values.dtype()}}, or_type(name, "SparseSplit"));
  std::vector<SparseTensor> out;
  for (std::int64_t i = 0; i < num_split; ++i)
    out.push_back(SparseTensor{op.output(static_cast<int>(i)),
                               op.output(static_cast<int>(num_split + i)),
                               op.output(static_cast<int>(2 * num_split + i))});
  return out;
}

std::vector<SparseTensor> sparse_split(const SparseTensor& sp, std::int64_t num_split,
                                       std::int64_t axis, std::string_view name) {
  check_valid(sp, "sparse_split");
  Graph& g = sp.values.graph();
  // op_def_library converts the axis inside the op's name scope: "<op>/split_dim".
  const std::string op = g.unique_name(or_type(name, "SparseSplit"));
  Output axis_t;
  {
    auto scope = g.name_scope(op + "/");
    axis_t = g.constant(Tensor(axis), "split_dim");
  }
  return sparse_split(sp, num_split, axis_t, op + "/");
}

Output sparse_bincount(const SparseTensor& sp, const Output& size, const Output& weights,
                       bool binary_output, std::string_view name) {
  check_valid(sp, "sparse_bincount");
  return sp.values.graph()
      .create_op(
          "SparseBincount", {sp.indices, sp.values, sp.dense_shape, size, weights},
          {{"Tidx", sp.values.dtype()}, {"T", weights.dtype()}, {"binary_output", binary_output}},
          or_type(name, "SparseBincount"))
      .output(0);
}

Output ragged_bincount(const Output& splits, const Output& values, const Output& size,
                       const Output& weights, bool binary_output, std::string_view name) {
  return values.graph()
      .create_op(
          "RaggedBincount", {splits, values, size, weights},
          {{"Tidx", values.dtype()}, {"T", weights.dtype()}, {"binary_output", binary_output}},
          or_type(name, "RaggedBincount"))
      .output(0);
}

SparseTensor dense_count_sparse_output(const Output& values, const Output& weights,
                                       bool binary_output, std::int64_t minlength,
                                       std::int64_t maxlength, std::string_view name) {
  return count_op("DenseCountSparseOutput", {values, weights}, values.dtype(), weights.dtype(),
                  binary_output, minlength, maxlength, name);
}

SparseTensor sparse_count_sparse_output(const SparseTensor& sp, const Output& weights,
                                        bool binary_output, std::int64_t minlength,
                                        std::int64_t maxlength, std::string_view name) {
  check_valid(sp, "sparse_count_sparse_output");
  return count_op("SparseCountSparseOutput", {sp.indices, sp.values, sp.dense_shape, weights},
                  sp.values.dtype(), weights.dtype(), binary_output, minlength, maxlength, name);
}

SparseTensor ragged_count_sparse_output(const Output& splits, const Output& values,
                                        const Output& weights, bool binary_output,
                                        std::int64_t minlength, std::int64_t maxlength,
                                        std::string_view name) {
  return count_op("RaggedCountSparseOutput", {splits, values, weights}, values.dtype(),
                  weights.dtype(), binary_output, minlength, maxlength, name);
}

}  // namespace af
