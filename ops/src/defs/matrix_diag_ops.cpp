// The definitions of MatrixBandPart, MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3},
// MatrixSetDiag{,V2,V3}, Diag and DiagPart (shape functions as TensorFlow's array_ops.cc and
// common_shape_fns.cc MatrixDiagV2Shape, MatrixDiagPartV2Shape, MatrixSetDiagV2Shape) and the
// builders of tf.linalg.band_part, diag, diag_part, set_diag, tensor_diag and
// tensor_diag_part. Their CPU kernels are in kernels/src/matrix_diag_ops.cpp, their gradients
// in ops/src/gradients/linalg_grad.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/linalg_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::with_rank_at_most;

using Index = std::int64_t;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;

// The dtypes Diag and DiagPart accept (TensorFlow's OpDef).
const std::vector<DType>& kDiagTypes = detail::op_def_types("Diag");

// InferenceContext::Merge of two dimensions (-1 unknown).
Status merge_dim(Index a, Index b, Index* out) {
  if (a >= 0 && b >= 0 && a != b)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                            std::to_string(b));
  *out = a >= 0 ? a : b;
  return {};
}

// Input `i` must be of the fixed type `t` (op_def_library's message).
Status expect_type(const InferenceContext& c, int i, const char* arg, DType t) {
  if (c.input_types[static_cast<std::size_t>(i)] != t)
    return invalid_argument(cwise::fixed_type_mismatch_message(
        c.node.op, arg, c.input_types[static_cast<std::size_t>(i)], t));
  return {};
}

// Input `i` must have input 0's type T.
Status expect_t(const InferenceContext& c, int i, const char* arg, const char* first) {
  if (c.input_types[static_cast<std::size_t>(i)] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, arg, c.input_types[static_cast<std::size_t>(i)], first, c.input_types[0]));
  return {};
}

// Attr align of the V3 ops: op_def_library's message for a value outside its list.
Status check_align(const InferenceContext& c) {
  std::string align = "RIGHT_LEFT";
  c.get_attr("align", &align);
  if (align != "LEFT_RIGHT" && align != "RIGHT_LEFT" && align != "LEFT_LEFT" &&
      align != "RIGHT_RIGHT")
    return invalid_argument("Attr 'align' of '" + c.node.op + "' Op passed string '" + align +
                            "' not in: \"LEFT_RIGHT\", \"RIGHT_LEFT\", \"LEFT_LEFT\", "
                            "\"RIGHT_RIGHT\".");
  return {};
}

// ReadDiagIndex: the range k holds (a scalar, or a vector of one or two values).
Status read_diag_index(const Tensor& k, Index* lower, Index* upper) {
  const std::vector<Index> values = index_values(k);
  if (k.rank() == 1 && (values.empty() || values.size() > 2))
    return invalid_argument("diag_index must be a vector with one or two elements. It has " +
                            std::to_string(values.size()) + " elements.");
  *lower = values[0];
  *upper = values.size() > 1 ? values[1] : values[0];
  if (*lower > *upper) return invalid_argument("lower_diag_index is greater than upper_diag_index");
  return {};
}

// The range check of MatrixDiagPartV2Shape and MatrixSetDiagV2Shape (known matrix sizes).
Status check_range(Index rows, Index cols, Index lower, Index upper) {
  if (rows < 0 || cols < 0) return {};
  if (lower != 0 && (-rows >= lower || lower >= cols))
    return invalid_argument("lower_diag_index is out of bound.");
  if (upper != 0 && (-rows >= upper || upper >= cols))
    return invalid_argument("upper_diag_index is out of bound.");
  return {};
}

// The one-input shape functions (MatrixDiag, MatrixDiagPart, Diag): input 0 of rank >=
// `min_rank` and, where `types` is given, of one of them; the output, of its dtype, has the
// shape `out_dims(input's dimensions)`, unknown for an unknown rank.
template <class F>
Status infer_from_dims(InferenceContext& c, const std::vector<DType>* types, int min_rank,
                       F&& out_dims) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  if (types) ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], *types));
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in, min_rank));
  PartialShape out = PartialShape::unknown();
  if (in.rank_known()) out = PartialShape(out_dims(in.dims()));
  c.add_output(c.input_types[0], out);
  return {};
}

// The output of MatrixSetDiag(V2/V3): the input's shape, completed where it is not fully
// defined from the diagonal's leading dimensions (all but its last `drop`) when the
// diagonal's rank is known.
Status infer_set_diag_output(InferenceContext& c, const PartialShape& in, const PartialShape& diag,
                             int drop) {
  PartialShape out = in;
  if (diag.rank_known() && !in.fully_defined()) {
    std::vector<std::int64_t> dims(diag.dims().begin(),
                                   diag.dims().begin() + std::max(diag.rank() - drop, 0));
    dims.push_back(-1);
    dims.push_back(-1);
    ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(in, PartialShape(std::move(dims)), &out));
  }
  c.add_output(c.input_types[0], out);
  return {};
}

// MatrixBandPart: UnchangedShape (the kernel checks the rank).
Status infer_band_part(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[1], "Tindex"));
  if (c.input_types[2] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(c.node.op, "num_upper", c.input_types[2],
                                                         "num_lower", c.input_types[1]));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

// MatrixDiag: diagonal [..., N] gives [..., N, N].
Status infer_matrix_diag(InferenceContext& c) {
  return infer_from_dims(c, nullptr, 1, [](std::vector<std::int64_t> dims) {
    dims.push_back(dims.back());
    return dims;
  });
}

// MatrixDiagV2Shape.
Status infer_matrix_diag_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 1, "k", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 2, "num_rows", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 3, "num_cols", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(expect_t(c, 4, "padding_value", "diagonal"));
  ACTORFLOW_RETURN_IF_ERROR(check_align(c));
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[1], 1));
  for (int i = 2; i < 5; ++i) ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[i], 0));
  const Tensor* k = c.input_values[1];
  if (!in.rank_known() || !c.input_shapes[1].fully_defined() || k == nullptr) {
    c.add_output(c.input_types[0], PartialShape::unknown());
    return {};
  }
  Index lower = 0, upper = 0;
  ACTORFLOW_RETURN_IF_ERROR(read_diag_index(*k, &lower, &upper));
  const int rank = in.rank();
  if (lower < upper) {
    // TensorFlow reads dimension -2 of the diagonal here; a vector has none.
    const Index num_diags = rank >= 2 ? in.dim(rank - 2) : -1;
    if (num_diags != upper - lower + 1)
      return invalid_argument(
          "The number of rows of `diagonal` doesn't match the number of diagonals implied from "
          "`d_lower` and `d_upper`.\nnum_diags = " +
          std::to_string(num_diags) + ", d_lower = " + std::to_string(lower) +
          ", d_upper = " + std::to_string(upper) + " " + std::to_string(rank) + " " +
          std::to_string(in.dim(rank - 1)));
  }
  Index num_rows = -1, num_cols = -1;
  if (const Tensor* t = c.input_values[2]) num_rows = index_values(*t)[0];
  if (const Tensor* t = c.input_values[3]) num_cols = index_values(*t)[0];
  const Index max_len = in.dim(rank - 1);
  PartialShape out;
  if (max_len < 0) {
    // An unknown diagonal length leaves the sizes TensorFlow would derive from it unknown.
    std::vector<std::int64_t> dims = in.dims();
    if (lower == upper) dims.push_back(-1);
    dims[dims.size() - 2] = num_rows >= 0 ? num_rows : -1;
    dims.back() = num_cols >= 0 ? num_cols : -1;
    c.add_output(c.input_types[0], PartialShape(std::move(dims)));
    return {};
  }
  const Index min_rows = max_len - std::min<Index>(upper, 0);
  const Index min_cols = max_len + std::max<Index>(lower, 0);
  if (num_rows == -1 && num_cols == -1) num_rows = num_cols = std::max(min_rows, min_cols);
  if (num_rows == -1)
    num_rows = min_rows;
  else if (num_rows < min_rows)
    return invalid_argument("num_rows is too small");
  if (num_cols == -1)
    num_cols = min_cols;
  else if (num_cols < min_cols)
    return invalid_argument("num_cols is too small.");
  if (num_rows != min_rows && num_cols != min_cols)
    return invalid_argument(
        "num_rows and num_cols are not consistent with lower_diag_index, upper_diag_index, and "
        "the length of the given diagonals.\nnum_rows = " +
        std::to_string(num_rows) + " != min_num_rows = " + std::to_string(min_rows) +
        ", num_cols = " + std::to_string(num_cols) +
        " != min_num_cols = " + std::to_string(min_cols));
  std::vector<std::int64_t> dims = in.dims();
  if (lower == upper) {
    dims.back() = num_rows;
    dims.push_back(num_cols);
  } else {
    dims[static_cast<std::size_t>(rank - 2)] = num_rows;
    dims.back() = num_cols;
  }
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  return {};
}

// MatrixDiagPart: input [..., M, N] gives [..., min(M, N)].
Status infer_matrix_diag_part(InferenceContext& c) {
  return infer_from_dims(c, nullptr, 2, [](std::vector<std::int64_t> dims) {
    const Index rows = dims[dims.size() - 2], cols = dims.back();
    dims.pop_back();
    dims.back() = rows >= 0 && cols >= 0 ? std::min(rows, cols) : -1;
    return dims;
  });
}

// MatrixDiagPartV2Shape.
Status infer_matrix_diag_part_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 1, "k", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(expect_t(c, 2, "padding_value", "input"));
  ACTORFLOW_RETURN_IF_ERROR(check_align(c));
  const PartialShape& in = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[1], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  const Tensor* k = c.input_values[1];
  if (!in.rank_known() || !c.input_shapes[1].fully_defined() || k == nullptr) {
    c.add_output(c.input_types[0], PartialShape::unknown());
    return {};
  }
  Index lower = 0, upper = 0;
  ACTORFLOW_RETURN_IF_ERROR(read_diag_index(*k, &lower, &upper));
  const int rank = in.rank();
  const Index rows = in.dim(rank - 2), cols = in.dim(rank - 1);
  ACTORFLOW_RETURN_IF_ERROR(check_range(rows, cols, lower, upper));
  Index max_len = -1;
  if (rows >= 0 && cols >= 0)
    max_len = std::min(rows + std::min<Index>(upper, 0), cols - std::max<Index>(lower, 0));
  std::vector<std::int64_t> dims(in.dims().begin(), in.dims().end() - 2);
  if (lower < upper) dims.push_back(upper - lower + 1);
  dims.push_back(max_len);
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  return {};
}

// MatrixSetDiag: diagonal of rank rank(input) - 1 and length min(M, N); the output has the
// input's shape, completed from the diagonal's leading dimensions.
Status infer_matrix_set_diag(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_t(c, 1, "diagonal", "input"));
  const PartialShape& in = c.input_shapes[0];
  const PartialShape& diag = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(diag, 1));
  if (in.rank_known()) ACTORFLOW_RETURN_IF_ERROR(with_rank(diag, in.rank() - 1));
  if (in.rank_known() && diag.rank_known()) {
    const Index rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
    const Index smallest = rows >= 0 && cols >= 0 ? std::min(rows, cols) : -1;
    Index merged = 0;
    ACTORFLOW_RETURN_IF_ERROR(merge_dim(smallest, diag.dim(diag.rank() - 1), &merged));
  }
  return infer_set_diag_output(c, in, diag, 1);
}

// MatrixSetDiagV2Shape.
Status infer_matrix_set_diag_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(expect_t(c, 1, "diagonal", "input"));
  ACTORFLOW_RETURN_IF_ERROR(expect_type(c, 2, "k", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(check_align(c));
  const PartialShape& in = c.input_shapes[0];
  const PartialShape& diag = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(in, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(diag, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(c.input_shapes[2], 1));
  Index lower = 0, upper = 0;
  bool known = false;
  if (const Tensor* k = c.input_values[2]; k && c.input_shapes[2].fully_defined()) {
    known = true;
    ACTORFLOW_RETURN_IF_ERROR(read_diag_index(*k, &lower, &upper));
  }
  if (in.rank_known()) {
    const int rank = in.rank();
    if (known) {
      ACTORFLOW_RETURN_IF_ERROR(with_rank(diag, lower == upper ? rank - 1 : rank));
    } else {
      ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(diag, rank - 1));
      ACTORFLOW_RETURN_IF_ERROR(with_rank_at_most(diag, rank));
    }
    ACTORFLOW_RETURN_IF_ERROR(check_range(in.dim(rank - 2), in.dim(rank - 1), lower, upper));
  }
  return infer_set_diag_output(c, in, diag, lower == upper ? 1 : 2);
}

// Diag: diagonal s (rank >= 1) gives s + s.
Status infer_diag(InferenceContext& c) {
  return infer_from_dims(c, &kDiagTypes, 1, [](const std::vector<std::int64_t>& half) {
    std::vector<std::int64_t> dims = half;
    dims.insert(dims.end(), half.begin(), half.end());
    return dims;
  });
}

// DiagPart: input s + s (even, non-zero rank) gives s.
Status infer_diag_part(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kDiagTypes));
  const PartialShape& in = c.input_shapes[0];
  if (!in.rank_known()) {
    c.add_output(c.input_types[0], PartialShape::unknown());
    return {};
  }
  const int rank = in.rank();
  if (rank % 2 != 0 || rank <= 0)
    return invalid_argument("Input must have even and non-zero rank, input rank is " +
                            std::to_string(rank));
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank / 2));
  for (int i = 0; i < rank / 2; ++i)
    ACTORFLOW_RETURN_IF_ERROR(
        merge_dim(in.dim(i), in.dim(i + rank / 2), &dims[static_cast<std::size_t>(i)]));
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  return {};
}

// A scalar Const of `dtype` holding `value` (Python's conversion of padding_value).
Output scalar_of(Graph& g, DType dtype, double value, std::string_view name) {
  Tensor t;
  switch (dtype) {
    case DType::float64:
      t = Tensor(value);
      break;
    case DType::int32:
      t = Tensor(static_cast<std::int32_t>(value));
      break;
    case DType::int64:
      t = Tensor(static_cast<std::int64_t>(value));
      break;
    case DType::boolean:
      t = Tensor(value != 0);
      break;
    case DType::bfloat16:
      t = Tensor(bfloat16_t(static_cast<float>(value)));
      break;
    case DType::uint8:
      t = Tensor(DType::uint8, Shape{});
      t.data<std::uint8_t>()[0] = static_cast<std::uint8_t>(value);
      break;
    case DType::complex64:  // the complex diagonals of Eig's gradient
      t = Tensor(DType::complex64, Shape{});
      t.data<complex64_t>()[0] = complex64_t(static_cast<float>(value), 0.0f);
      break;
    case DType::complex128:
      t = Tensor(DType::complex128, Shape{});
      t.data<complex128_t>()[0] = complex128_t(value, 0.0);
      break;
    default:
      t = Tensor(static_cast<float>(value));
      break;
  }
  return g.constant(t, name);
}

// Input k as Python converts it: an int32 scalar for one diagonal, else a pair.
Output diag_index_const(Graph& g, const linalg::DiagonalRange& k) {
  if (k.lower == k.upper) return g.constant(Tensor(static_cast<std::int32_t>(k.lower)), "k");
  return g.constant(Tensor::from_vector(std::vector<std::int32_t>{
                        static_cast<std::int32_t>(k.lower), static_cast<std::int32_t>(k.upper)}),
                    "k");
}

}  // namespace

namespace detail {

void register_matrix_diag_ops(OpRegistry& r) {
  r.add({"MatrixBandPart", infer_band_part});
  r.add({"MatrixDiag", infer_matrix_diag});
  r.add({"MatrixDiagV2", infer_matrix_diag_v2});
  r.add({"MatrixDiagV3", infer_matrix_diag_v2});
  r.add({"MatrixDiagPart", infer_matrix_diag_part});
  r.add({"MatrixDiagPartV2", infer_matrix_diag_part_v2});
  r.add({"MatrixDiagPartV3", infer_matrix_diag_part_v2});
  r.add({"MatrixSetDiag", infer_matrix_set_diag});
  r.add({"MatrixSetDiagV2", infer_matrix_set_diag_v2});
  r.add({"MatrixSetDiagV3", infer_matrix_set_diag_v2});
  r.add({"Diag", infer_diag});
  r.add({"DiagPart", infer_diag_part});
}

}  // namespace detail

namespace linalg {

Output band_part(const Output& input, std::int64_t num_lower, std::int64_t num_upper,
                 std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "MatrixBandPart" : name);
  Output lower, upper;
  {
    auto scope = g.name_scope(op_name + "/");
    lower = g.constant(Tensor(static_cast<std::int32_t>(num_lower)), "num_lower");
    upper = g.constant(Tensor(static_cast<std::int32_t>(num_upper)), "num_upper");
  }
  return g
      .create_op("MatrixBandPart", {input, lower, upper},
                 {{"T", input.dtype()}, {"Tindex", DType::int32}}, op_name + "/")
      .output(0);
}

Output matrix_diag(const Output& diagonal, DiagonalRange k, std::int64_t num_rows,
                   std::int64_t num_cols, double padding_value, std::string_view align,
                   std::string_view name) {
  Graph& g = diagonal.graph();
  const std::string op_name = g.unique_name(name.empty() ? "diag" : name);
  std::vector<Output> inputs{diagonal};
  {
    auto scope = g.name_scope(op_name + "/");
    inputs.push_back(diag_index_const(g, k));
    inputs.push_back(g.constant(Tensor(static_cast<std::int32_t>(num_rows)), "num_rows"));
    inputs.push_back(g.constant(Tensor(static_cast<std::int32_t>(num_cols)), "num_cols"));
    inputs.push_back(scalar_of(g, diagonal.dtype(), padding_value, "padding_value"));
  }
  return g
      .create_op("MatrixDiagV3", inputs, {{"T", diagonal.dtype()}, {"align", std::string(align)}},
                 op_name + "/")
      .output(0);
}

Output matrix_diag_part(const Output& input, DiagonalRange k, double padding_value,
                        std::string_view align, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "diag_part" : name);
  std::vector<Output> inputs{input};
  {
    auto scope = g.name_scope(op_name + "/");
    inputs.push_back(diag_index_const(g, k));
    inputs.push_back(scalar_of(g, input.dtype(), padding_value, "padding_value"));
  }
  return g
      .create_op("MatrixDiagPartV3", inputs, {{"T", input.dtype()}, {"align", std::string(align)}},
                 op_name + "/")
      .output(0);
}

Output matrix_set_diag(const Output& input, const Output& diagonal, DiagonalRange k,
                       std::string_view align, std::string_view name) {
  Graph& g = input.graph();
  if (diagonal.dtype() != input.dtype())
    throw InvalidArgumentError(invalid_argument(cwise::type_mismatch_message(
        "MatrixSetDiagV3", "diagonal", diagonal.dtype(), "input", input.dtype())));
  const std::string op_name = g.unique_name(name.empty() ? "set_diag" : name);
  Output k_t;
  {
    auto scope = g.name_scope(op_name + "/");
    k_t = diag_index_const(g, k);
  }
  return g
      .create_op("MatrixSetDiagV3", {input, diagonal, k_t},
                 {{"T", input.dtype()}, {"align", std::string(align)}}, op_name + "/")
      .output(0);
}

Output diag(const Output& diagonal, std::string_view name) {
  return diagonal.graph()
      .create_op("Diag", {diagonal}, {{"T", diagonal.dtype()}}, name.empty() ? "Diag" : name)
      .output(0);
}

Output diag_part(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("DiagPart", {input}, {{"T", input.dtype()}}, name.empty() ? "DiagPart" : name)
      .output(0);
}

}  // namespace linalg

}  // namespace af
