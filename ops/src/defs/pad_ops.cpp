// The definitions of Pad, PadV2, MirrorPad and MirrorPadGrad: shape functions as TensorFlow's
// array_ops.cc (PadShapeFn for the first three, MirrorPadGrad's own) and the graph-building
// functions pad (array_ops.hpp), pad_v2, mirror_pad and mirror_pad_grad (pad_ops.hpp). Their
// CPU kernels are in kernels/src/pad_ops.cpp, their gradients in
// ops/src/gradients/array_grad.cpp.
#include "actorflow/ops/pad_ops.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_index_type;
using detail::index_values;
using detail::with_rank;

// TensorFlow's PadShapeFn on inputs 0 (input) and 1 (paddings): a [rank, 2] paddings matrix;
// with its value known, each known dimension grown by its two paddings.
Status pad_shape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tpaddings"));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  const PartialShape& paddings = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(paddings, 2));
  if (paddings.rank_known() && paddings.dim(1) >= 0 && paddings.dim(1) != 2)
    return invalid_argument("Dimension must be 2 but is " + std::to_string(paddings.dim(1)));
  Index n_dim = paddings.rank_known() ? paddings.dim(0) : -1;
  if (n_dim >= 0) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(input, static_cast<int>(n_dim)));
  } else if (input.rank_known()) {
    n_dim = input.rank();
  }
  const Tensor* value = c.input_values[1];
  if (value == nullptr) {
    c.add_output(t, n_dim >= 0 ? PartialShape::unknown_of_rank(static_cast<int>(n_dim))
                               : PartialShape::unknown());
    return {};
  }
  const int num_dims = static_cast<int>(value->shape().dim(0));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, num_dims));
  const std::vector<Index> pads = index_values(*value);
  std::vector<std::int64_t> dims;
  for (int i = 0; i < num_dims; ++i) {
    const Index before = pads[static_cast<std::size_t>(2 * i)];
    const Index after = pads[static_cast<std::size_t>(2 * i + 1)];
    if (before < 0 || after < 0) return invalid_argument("Paddings must be non-negative");
    const Index d = input.rank_known() ? input.dim(i) : -1;
    dims.push_back(d < 0 ? -1 : d + before + after);
  }
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// Pad(input, paddings).
Status infer_pad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  return pad_shape(c);
}

// PadV2(input, paddings, constant_values): constant_values of input's type; its shape is
// left to the kernel, as TensorFlow's shape function leaves it.
Status infer_pad_v2(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tpaddings"));
  if (c.input_types[2] != c.input_types[0])
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, "constant_values", c.input_types[2], "input", c.input_types[0]));
  return pad_shape(c);
}

// The attr mode: {'REFLECT', 'SYMMETRIC'}, with op_def_library's message for another value.
Status check_mirror_mode(const InferenceContext& c) {
  std::string mode;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("mode", &mode));
  if (mode != "REFLECT" && mode != "SYMMETRIC")
    return invalid_argument("Attr 'mode' of '" + c.node.op + "' Op passed string '" + mode +
                            "' not in: \"REFLECT\", \"SYMMETRIC\".");
  return {};
}

// MirrorPad(input, paddings; mode): PadShapeFn, as TensorFlow's (the kernel checks the
// paddings against the dimensions).
Status infer_mirror_pad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_mirror_mode(c));
  return pad_shape(c);
}

// MirrorPadGrad(input, paddings; mode): the rank from paddings' first dimension; with the
// paddings' value known, each known dimension shrunk by its two paddings.
Status infer_mirror_pad_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_mirror_mode(c));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tpaddings"));
  const DType t = c.input_types[0];
  const PartialShape& paddings = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(paddings, 2));
  if (!paddings.rank_known() || paddings.dim(0) < 0) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const auto rank = static_cast<int>(paddings.dim(0));
  const PartialShape& input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, rank));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(paddings, PartialShape{rank, 2}, &merged));
  const Tensor* value = c.input_values[1];
  if (value == nullptr) {
    c.add_output(t, PartialShape::unknown_of_rank(rank));
    return {};
  }
  const std::vector<Index> pads = index_values(*value);
  std::vector<std::int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    const Index before = pads[static_cast<std::size_t>(2 * i)];
    const Index after = pads[static_cast<std::size_t>(2 * i + 1)];
    if (before < 0 || after < 0) return invalid_argument("Paddings must be non-negative");
    const Index d = input.rank_known() ? input.dim(i) : -1;
    // InferenceContext::Subtract.
    if (d >= 0 && d < before + after)
      return invalid_argument("Negative dimension size caused by subtracting " +
                              std::to_string(before + after) + " from " + std::to_string(d));
    dims.push_back(d < 0 ? -1 : d - before - after);
  }
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// The paddings of a vector of [before, after] pairs as the Const "paddings" in the current
// name scope: int32 unless a value needs int64, as convert_to_tensor makes it.
Output paddings_constant(Graph& g, const std::vector<std::array<std::int64_t, 2>>& paddings) {
  std::vector<std::int64_t> flat;
  for (const auto& p : paddings) flat.insert(flat.end(), p.begin(), p.end());
  const Tensor as_list = detail::index_tensor(flat);
  return g.constant(as_list.reshaped(Shape{static_cast<std::int64_t>(paddings.size()), 2}),
                    "paddings");
}

// The op `make(paddings, name)` builds on the paddings Const "<op>/paddings", named `name`
// (default `type`): the paddings converted inside the op's name scope, as op_def_library
// converts a Python list.
template <class Make>
Output with_paddings_constant(const char* type, Graph& g,
                              const std::vector<std::array<std::int64_t, 2>>& paddings,
                              std::string_view name, Make&& make) {
  const std::string op_name = g.unique_name(name.empty() ? type : name);
  Output p;
  {
    auto scope = g.name_scope(op_name + "/");
    p = paddings_constant(g, paddings);
  }
  return make(p, op_name + "/");
}

// MirrorPad or MirrorPadGrad of `input` by `paddings` with attr mode.
Output mirror_op(const char* type, const Output& input, const Output& paddings,
                 std::string_view mode, std::string_view name) {
  return input.graph()
      .create_op(
          type, {input, paddings},
          {{"T", input.dtype()}, {"Tpaddings", paddings.dtype()}, {"mode", std::string(mode)}},
          name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_pad_ops(OpRegistry& r) {
  r.add({"Pad", infer_pad});
  r.add({"PadV2", infer_pad_v2});
  r.add({"MirrorPad", infer_mirror_pad});
  r.add({"MirrorPadGrad", infer_mirror_pad_grad});
}

}  // namespace detail

Output pad(const Output& input, const Output& paddings, std::string_view name) {
  return input.graph()
      .create_op("Pad", {input, paddings}, {{"T", input.dtype()}, {"Tpaddings", paddings.dtype()}},
                 name.empty() ? "Pad" : name)
      .output(0);
}

Output pad(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
           std::string_view name) {
  return with_paddings_constant(
      "Pad", input.graph(), paddings, name,
      [&](const Output& p, std::string_view n) { return pad(input, p, n); });
}

Output pad_v2(const Output& input, const Output& paddings, const Output& constant_values,
              std::string_view name) {
  return input.graph()
      .create_op("PadV2", {input, paddings, constant_values},
                 {{"T", input.dtype()}, {"Tpaddings", paddings.dtype()}},
                 name.empty() ? "PadV2" : name)
      .output(0);
}

Output pad_v2(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
              const Output& constant_values, std::string_view name) {
  return with_paddings_constant(
      "PadV2", input.graph(), paddings, name,
      [&](const Output& p, std::string_view n) { return pad_v2(input, p, constant_values, n); });
}

Output mirror_pad(const Output& input, const Output& paddings, std::string_view mode,
                  std::string_view name) {
  return mirror_op("MirrorPad", input, paddings, mode, name);
}

Output mirror_pad(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
                  std::string_view mode, std::string_view name) {
  return with_paddings_constant(
      "MirrorPad", input.graph(), paddings, name,
      [&](const Output& p, std::string_view n) { return mirror_pad(input, p, mode, n); });
}

Output mirror_pad_grad(const Output& input, const Output& paddings, std::string_view mode,
                       std::string_view name) {
  return mirror_op("MirrorPadGrad", input, paddings, mode, name);
}

}  // namespace af
