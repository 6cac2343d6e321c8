// The definitions of AccumulateNV2, ConjugateTranspose, BiasAddV1, SparseMatMul,
// Conv3DBackpropInput, Conv3DBackpropFilter, MaxPoolV2, MaxPoolGradV2 and MaxPoolGradGradV2
// (shape functions as TensorFlow's math_ops.cc, array_ops.cc, nn_ops.cc and
// common_shape_fns.cc's MaxPoolV2Shape; ConjugateTranspose and BiasAddV1 use the registered
// shape functions of Transpose and BiasAdd) and their builders. Their CPU kernels are in
// kernels/src/array_more_nn_ops.cpp, the gradients in ops/src/gradients/array_more_grad.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_more_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "array_more_defs.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using cwise::fixed_type_mismatch_message;
using cwise::merge_shapes;
using cwise::type_mismatch_message;
using detail::check_attr_type;
using detail::with_rank;
using detail::array_more::check_list_of_one_type;
using detail::array_more::kRealTypes;
using detail::array_more::make_op;

constexpr const char* kNumberTypeNames =
    "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, "
    "bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64";

// The shape function registered for `op`, run on this node's inputs: op types whose shape
// function TensorFlow shares with another's (ConjugateTranspose, BiasAddV1).
Status infer_as(const char* op, InferenceContext& c) {
  const OpDef* def = OpRegistry::global().find(op);
  if (def == nullptr || !def->infer) return internal(std::string(op) + " is not registered");
  return def->infer(c);
}

// All inputs from `first` on of input `first`'s type (op_def_library's message naming
// `arg`).
Status same_types(const InferenceContext& c, int first, int count, const char* first_arg,
                  const std::vector<const char*>& args) {
  const DType t = c.input_types[static_cast<std::size_t>(first)];
  for (int i = 1; i < count; ++i) {
    const DType got = c.input_types[static_cast<std::size_t>(first + i)];
    if (got != t)
      return invalid_argument(type_mismatch_message(
          c.node.op, args[static_cast<std::size_t>(i - 1)], got, first_arg, t));
  }
  return {};
}

// -- AccumulateNV2, SparseMatMul ------------------------------------------------------------

// AccumulateNV2: inputs of one number type; the output shape is the shape attr
// (ExplicitShape), not checked against the inputs.
Status infer_accumulate_n_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_list_of_one_type(c, "inputs"));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kRealTypes, kNumberTypeNames));
  PartialShape shape;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("shape", &shape));
  c.add_output(c.input_types[0], shape);
  return {};
}

// SparseMatMul: two matrices (float or bfloat16 each) whose inner dimensions merge; a float
// [rows of op(a), columns of op(b)].
Status infer_sparse_matmul(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const std::vector<DType> types = {DType::float32, DType::bfloat16};
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "Ta", types, "float, bfloat16"));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[1], "Tb", types, "float, bfloat16"));
  const PartialShape& a = c.input_shapes[0];
  const PartialShape& b = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(a, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(b, 2));
  bool transpose_a = false, transpose_b = false;
  c.get_attr("transpose_a", &transpose_a);
  c.get_attr("transpose_b", &transpose_b);
  auto dim = [](const PartialShape& s, int i) { return s.rank_known() ? s.dim(i) : Index{-1}; };
  const Index rows = dim(a, transpose_a ? 1 : 0), cols = dim(b, transpose_b ? 0 : 1);
  const Index inner_a = dim(a, transpose_a ? 0 : 1), inner_b = dim(b, transpose_b ? 1 : 0);
  if (inner_a >= 0 && inner_b >= 0 && inner_a != inner_b)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(inner_a) +
                            " and " + std::to_string(inner_b));
  c.add_output(DType::float32, PartialShape{rows, cols});
  return {};
}

// -- Conv3DBackpropInput, Conv3DBackpropFilter ----------------------------------------------

// The first versions: three inputs of one float type; the output is input 0's shape
// (input's; `Filter`: input 1's, the filter's), of rank 5.
template <bool Filter>
Status infer_conv3d_backprop_v1(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(same_types(c, 0, 3, "input", {"filter", "out_backprop"}));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  const PartialShape& out = c.input_shapes[Filter ? 1 : 0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(out, 5));
  c.add_output(c.input_types[0], out);
  return {};
}

// -- MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2 --------------------------------------------

// GetWindowedOutputSizeFromDims (dilation 1): -1 for an unknown input size.
Status windowed_dim(Index in, Index window, Index stride, const std::string& padding, Index* out) {
  if (stride <= 0) return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
  if (in < 0) {
    *out = -1;
    return {};
  }
  if (padding == "VALID") {
    if (in < window)
      return invalid_argument("Negative dimension size caused by subtracting " +
                              std::to_string(window) + " from " + std::to_string(in));
    *out = (in - window + stride) / stride;
  } else {
    *out = (in + stride - 1) / stride;
  }
  return {};
}

// MaxPoolV2Shape: the input of rank 4 (5 for NCHW_VECT_C), ksize and strides (the inputs
// before last and last) vectors of 4; an unknown shape unless both are constant, else the
// window applied to the rows, columns and depth of the input's format.
Status max_pool_v2_shape(InferenceContext& c, PartialShape* out) {
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  if (format != "NHWC" && format != "NCHW" && format != "NCHW_VECT_C")
    return invalid_argument("Value for attr 'data_format' of \"" + format +
                            "\" is not in the list of allowed values: \"NHWC\", \"NCHW\", "
                            "\"NCHW_VECT_C\"");
  const bool vect = format == "NCHW_VECT_C";
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, vect ? 5 : 4));
  const int n = c.num_inputs();
  for (int i = n - 2; i < n; ++i) {
    const PartialShape& s = c.input_shapes[static_cast<std::size_t>(i)];
    ACTORFLOW_RETURN_IF_ERROR(with_rank(s, 1));
    if (s.rank_known() && s.dim(0) >= 0 && s.dim(0) != 4)
      return invalid_argument("Dimension must be 4 but is " + std::to_string(s.dim(0)));
  }
  const Tensor* ksize_t = c.input_values[static_cast<std::size_t>(n - 2)];
  const Tensor* strides_t = c.input_values[static_cast<std::size_t>(n - 1)];
  if (ksize_t == nullptr || strides_t == nullptr) {
    *out = PartialShape::unknown();
    return {};
  }
  const std::vector<Index> ksize = detail::index_values(*ksize_t);
  const std::vector<Index> strides = detail::index_values(*strides_t);
  if (strides.size() != 4)
    return invalid_argument("MaxPool requires the stride attribute to contain 4 values, but got: " +
                            std::to_string(strides.size()));
  if (ksize.size() != 4)
    return invalid_argument("MaxPool requires the ksize attribute to contain 4 values, but got: " +
                            std::to_string(ksize.size()));
  // Positions of N, H, W, C in the input and in ksize / strides.
  const bool nhwc = format == "NHWC";
  const std::size_t h = nhwc ? 1 : 2, w = nhwc ? 2 : 3, ch = nhwc ? 3 : 1;
  auto dim = [&](std::size_t i) {
    return input.rank_known() ? input.dim(static_cast<int>(i)) : Index{-1};
  };
  Index rows = -1, cols = -1, depth = -1;
  const std::string padding = [&] {
    std::string p = "VALID";
    c.get_attr("padding", &p);
    return p;
  }();
  ACTORFLOW_RETURN_IF_ERROR(windowed_dim(dim(h), ksize[h], strides[h], padding, &rows));
  ACTORFLOW_RETURN_IF_ERROR(windowed_dim(dim(w), ksize[w], strides[w], padding, &cols));
  ACTORFLOW_RETURN_IF_ERROR(windowed_dim(dim(ch), ksize[ch], strides[ch], padding, &depth));
  if (nhwc)
    *out = PartialShape{dim(0), rows, cols, depth};
  else if (!vect)
    *out = PartialShape{dim(0), depth, rows, cols};
  else
    *out = PartialShape{dim(0), depth, rows, cols, dim(4)};
  return {};
}

// The types of the V2 pooling ops: the first `count` inputs of T (in `allowed`), then ksize
// and strides of int32.
Status check_pool_v2_types(const InferenceContext& c, int count) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(count + 2));
  if (count == 3)
    ACTORFLOW_RETURN_IF_ERROR(same_types(c, 0, 3, "orig_input", {"orig_output", "grad"}));
  // The OpDef's types (the kernels take each of them that actorflow has).
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  const char* names[] = {"ksize", "strides"};
  for (int i = 0; i < 2; ++i)
    if (c.input_types[static_cast<std::size_t>(count + i)] != DType::int32)
      return invalid_argument(fixed_type_mismatch_message(
          c.node.op, names[i], c.input_types[static_cast<std::size_t>(count + i)], DType::int32));
  return {};
}

Status infer_max_pool_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_pool_v2_types(c, 1));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(max_pool_v2_shape(c, &out));
  c.add_output(c.input_types[0], out);
  return {};
}

// MaxPoolGradV2: UnchangedShapeWithRank(c, 4) of orig_input.
Status infer_max_pool_grad_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_pool_v2_types(c, 3));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 4));
  c.add_output(c.input_types[0], c.input_shapes[0].rank_known() ? c.input_shapes[0]
                                                                : PartialShape::unknown_of_rank(4));
  return {};
}

// MaxPoolGradGradV2: MaxPoolV2Shape of orig_input, grad merging with orig_input and
// orig_output with the output.
Status infer_max_pool_grad_grad_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_pool_v2_types(c, 3));
  PartialShape out, unused;
  ACTORFLOW_RETURN_IF_ERROR(max_pool_v2_shape(c, &out));
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[0], c.input_shapes[2], &unused));
  ACTORFLOW_RETURN_IF_ERROR(merge_shapes(c.input_shapes[1], out, &unused));
  c.add_output(c.input_types[0], out);
  return {};
}

// -- builders -------------------------------------------------------------------------------

AttrMap conv3d_v1_attrs(DType t, const std::vector<std::int64_t>& strides,
                        const std::string& padding, const std::vector<std::int64_t>& dilations) {
  return {{"T", t}, {"strides", strides}, {"padding", padding}, {"dilations", dilations}};
}

AttrMap pool_v2_attrs(DType t, const std::string& padding, const std::string& data_format) {
  return {{"T", t}, {"padding", padding}, {"data_format", data_format}};
}

}  // namespace

namespace detail {

void register_array_more_nn_ops(OpRegistry& r) {
  r.add({"AccumulateNV2", infer_accumulate_n_v2});
  r.add({"ConjugateTranspose", [](InferenceContext& c) { return infer_as("Transpose", c); }});
  r.add({"BiasAddV1", [](InferenceContext& c) { return infer_as("BiasAdd", c); }});
  r.add({"SparseMatMul", infer_sparse_matmul});
  r.add({"Conv3DBackpropInput", infer_conv3d_backprop_v1<false>});
  r.add({"Conv3DBackpropFilter", infer_conv3d_backprop_v1<true>});
  r.add({"MaxPoolV2", infer_max_pool_v2});
  r.add({"MaxPoolGradV2", infer_max_pool_grad_v2});
  r.add({"MaxPoolGradGradV2", infer_max_pool_grad_grad_v2});
}

}  // namespace detail

Output accumulate_n_v2(const std::vector<Output>& inputs, const PartialShape& shape,
                       std::string_view name) {
  if (inputs.empty())
    throw InvalidArgumentError(invalid_argument(
        "inputs must be a list of at least one Tensor with the same dtype and shape"));
  return make_op(
      "AccumulateNV2", inputs,
      {{"N", static_cast<std::int64_t>(inputs.size())}, {"T", inputs[0].dtype()}, {"shape", shape}},
      name);
}

Output conjugate_transpose(const Output& x, const Output& perm, std::string_view name) {
  return make_op("ConjugateTranspose", {x, perm}, {{"T", x.dtype()}, {"Tperm", perm.dtype()}},
                 name);
}

Output conjugate_transpose(const Output& x, const std::vector<std::int64_t>& perm,
                           std::string_view name) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? "ConjugateTranspose" : name);
  Output perm_t;
  {
    auto scope = g.name_scope(op_name + "/");
    perm_t = g.constant(detail::index_tensor(perm), "perm");
  }
  return conjugate_transpose(x, perm_t, op_name + "/");
}

Output sparse_matmul(const Output& a, const Output& b, bool transpose_a, bool transpose_b,
                     bool a_is_sparse, bool b_is_sparse, std::string_view name) {
  return make_op("SparseMatMul", {a, b},
                 {{"transpose_a", transpose_a},
                  {"transpose_b", transpose_b},
                  {"a_is_sparse", a_is_sparse},
                  {"b_is_sparse", b_is_sparse},
                  {"Ta", a.dtype()},
                  {"Tb", b.dtype()}},
                 name);
}

namespace nn {

Output bias_add_v1(const Output& value, const Output& bias, std::string_view name) {
  return make_op("BiasAddV1", {value, bias}, {{"T", value.dtype()}}, name);
}

Output conv3d_backprop_input(const Output& input, const Output& filter, const Output& out_backprop,
                             const std::vector<std::int64_t>& strides, const std::string& padding,
                             const std::vector<std::int64_t>& dilations, std::string_view name) {
  return make_op("Conv3DBackpropInput", {input, filter, out_backprop},
                 conv3d_v1_attrs(input.dtype(), strides, padding, dilations), name);
}

Output conv3d_backprop_filter(const Output& input, const Output& filter, const Output& out_backprop,
                              const std::vector<std::int64_t>& strides, const std::string& padding,
                              const std::vector<std::int64_t>& dilations, std::string_view name) {
  return make_op("Conv3DBackpropFilter", {input, filter, out_backprop},
                 conv3d_v1_attrs(input.dtype(), strides, padding, dilations), name);
}

Output max_pool_v2(const Output& input, const Output& ksize, const Output& strides,
                   const std::string& padding, const std::string& data_format,
                   std::string_view name) {
  return make_op("MaxPoolV2", {input, ksize, strides},
                 pool_v2_attrs(input.dtype(), padding, data_format), name);
}

Output max_pool_v2(const Output& input, const std::vector<std::int64_t>& ksize,
                   const std::vector<std::int64_t>& strides, const std::string& padding,
                   const std::string& data_format, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "MaxPoolV2" : name);
  Output ksize_t, strides_t;
  {
    auto scope = g.name_scope(op_name + "/");
    ksize_t = g.constant(Tensor::from_vector(std::vector<std::int32_t>(ksize.begin(), ksize.end())),
                         "ksize");
    strides_t = g.constant(
        Tensor::from_vector(std::vector<std::int32_t>(strides.begin(), strides.end())), "strides");
  }
  return max_pool_v2(input, ksize_t, strides_t, padding, data_format, op_name + "/");
}

Output max_pool_grad_v2(const Output& orig_input, const Output& orig_output, const Output& grad,
                        const Output& ksize, const Output& strides, const std::string& padding,
                        const std::string& data_format, std::string_view name) {
  return make_op("MaxPoolGradV2", {orig_input, orig_output, grad, ksize, strides},
                 pool_v2_attrs(orig_input.dtype(), padding, data_format), name);
}

Output max_pool_grad_grad_v2(const Output& orig_input, const Output& orig_output,
                             const Output& grad, const Output& ksize, const Output& strides,
                             const std::string& padding, const std::string& data_format,
                             std::string_view name) {
  return make_op("MaxPoolGradGradV2", {orig_input, orig_output, grad, ksize, strides},
                 pool_v2_attrs(orig_input.dtype(), padding, data_format), name);
}

}  // namespace nn

}  // namespace af
