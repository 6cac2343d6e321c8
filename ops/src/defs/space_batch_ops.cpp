// The definitions of SpaceToBatchND, BatchToSpaceND, SpaceToBatch, BatchToSpace, SpaceToDepth
// and DepthToSpace: shape functions as TensorFlow's array_ops.cc (SpaceToBatchShapeHelper,
// BatchToSpaceShapeHelper and the two depth ops' own), with the NodeDef checks of their attrs,
// and the graph-building functions of space_batch_ops.hpp. Their CPU kernels are in
// kernels/src/space_batch_ops.cpp, their gradients in ops/src/gradients/space_batch_grad.cpp.
#include "actorflow/ops/space_batch_ops.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "attr_checks.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_index_type;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;

// -- InferenceContext's dimension arithmetic (-1 an unknown dimension) ----------------------

// InferenceContext::Add of a known value.
Index add_dim(Index d, Index v) { return d < 0 ? -1 : d + v; }

// InferenceContext::Subtract of a known value: "Negative dimension size caused by
// subtracting 2 from 1".
Status subtract_dim(Index d, Index v, Index* out) {
  if (v == 0 || d < 0) {
    *out = d;
    return {};
  }
  if (d < v)
    return invalid_argument("Negative dimension size caused by subtracting " + std::to_string(v) +
                            " from " + std::to_string(d));
  *out = d - v;
  return {};
}

// InferenceContext::Divide of a known positive divisor, evenly divisible: "Dimension size must
// be evenly divisible by 2 but is 3".
Status divide_dim(Index d, Index divisor, Index* out) {
  if (divisor == 1 || d < 0) {
    *out = d;
    return {};
  }
  if (d % divisor != 0)
    return invalid_argument("Dimension size must be evenly divisible by " +
                            std::to_string(divisor) + " but is " + std::to_string(d));
  *out = d / divisor;
  return {};
}

// InferenceContext::Multiply of a known positive value.
Index multiply_dim(Index d, Index v) { return d < 0 ? -1 : d * v; }

// -- NodeDef checks of the attrs -----------------------------------------------------------

// Attr block_size: int >= 2 (ValidateAttrValue's message).
Status block_size_attr(const InferenceContext& c, Index* block_size) {
  ACTORFLOW_RETURN_IF_ERROR(detail::int_attr_at_least(c, "block_size", 2, block_size));
  return {};
}

// Attr data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC' (ValidateAttrValue's message).
Status data_format_attr(const InferenceContext& c, std::string* format) {
  *format = "NHWC";
  c.get_attr("data_format", format);
  if (*format != "NHWC" && *format != "NCHW" && *format != "NCHW_VECT_C")
    return invalid_argument("Value for attr 'data_format' of \"" + *format +
                            "\" is not in the list of allowed values: \"NHWC\", \"NCHW\", "
                            "\"NCHW_VECT_C\"");
  return {};
}

// -- SpaceToBatch and BatchToSpace --------------------------------------------------------

// The block_shape and paddings (crops) of a shape helper: their static shapes and values
// (null where not a Const).
struct BlockInputs {
  PartialShape block_shape_shape;
  const Tensor* block_shape = nullptr;
  PartialShape paddings_shape;
  const Tensor* paddings = nullptr;
};

// What SpaceToBatchShapeHelper and BatchToSpaceShapeHelper share: block_shape a vector of
// known length M, the input of rank at least M + 1, paddings (crops) [M, 2]; `*m` the block
// count and `*block` the block values (empty when not known).
Status check_block_inputs(const PartialShape& input, BlockInputs& in, Index* m,
                          std::vector<Index>* block) {
  // c->Rank of an unknown shape is -1: "must have rank 1." as well.
  if (!in.block_shape_shape.rank_known() || in.block_shape_shape.rank() != 1)
    return invalid_argument("block_shape must have rank 1.");
  *m = in.block_shape_shape.dim(0);
  if (*m < 0) return invalid_argument("block_shape must have known size.");
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(input, *m + 1));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(cwise::merge_shapes(in.paddings_shape, PartialShape{*m, 2}, &merged));
  block->clear();
  if (in.block_shape != nullptr) {
    *block = index_values(*in.block_shape);
    for (Index v : *block)
      if (v < 1) return invalid_argument("block_shape must be positive");
  }
  return {};
}

// The output: `dims` (batch and the M block dimensions) followed by input[M + 1:], unknown
// when the input's rank is.
PartialShape with_remaining(const PartialShape& input, Index m, std::vector<std::int64_t> dims) {
  if (!input.rank_known()) return PartialShape::unknown();
  for (int i = static_cast<int>(m) + 1; i < input.rank(); ++i) dims.push_back(input.dim(i));
  return PartialShape(std::move(dims));
}

// TensorFlow's SpaceToBatchShapeHelper.
Status space_to_batch_shape(InferenceContext& c, const PartialShape& input, BlockInputs in) {
  Index m = 0;
  std::vector<Index> block;
  ACTORFLOW_RETURN_IF_ERROR(check_block_inputs(input, in, &m, &block));
  Index batch = input.rank_known() ? input.dim(0) : -1;
  if (in.block_shape != nullptr) {
    for (Index v : block) batch = multiply_dim(batch, v);
  } else if (m > 0) {
    batch = -1;
  }
  std::vector<std::int64_t> dims(static_cast<std::size_t>(m) + 1, -1);
  dims[0] = batch;
  if (in.paddings != nullptr) {
    const std::vector<Index> pads = index_values(*in.paddings);
    for (Index i = 0; i < m; ++i) {
      const Index start = pads[static_cast<std::size_t>(2 * i)];
      const Index end = pads[static_cast<std::size_t>(2 * i + 1)];
      if (start < 0 || end < 0) return invalid_argument("paddings cannot be negative");
      if (in.block_shape == nullptr) continue;
      const Index size = input.rank_known() ? input.dim(static_cast<int>(i) + 1) : -1;
      ACTORFLOW_RETURN_IF_ERROR(divide_dim(add_dim(add_dim(size, start), end),
                                           block[static_cast<std::size_t>(i)],
                                           &dims[static_cast<std::size_t>(i) + 1]));
    }
  }
  c.add_output(c.input_types[0], with_remaining(input, m, std::move(dims)));
  return {};
}

// TensorFlow's BatchToSpaceShapeHelper.
Status batch_to_space_shape(InferenceContext& c, const PartialShape& input, BlockInputs in) {
  Index m = 0;
  std::vector<Index> block;
  ACTORFLOW_RETURN_IF_ERROR(check_block_inputs(input, in, &m, &block));
  Index batch = input.rank_known() ? input.dim(0) : -1;
  if (in.block_shape != nullptr) {
    for (Index v : block) ACTORFLOW_RETURN_IF_ERROR(divide_dim(batch, v, &batch));
  } else if (m > 0) {
    batch = -1;
  }
  std::vector<std::int64_t> dims(static_cast<std::size_t>(m) + 1, -1);
  dims[0] = batch;
  if (in.paddings != nullptr) {
    const std::vector<Index> crops = index_values(*in.paddings);
    for (Index i = 0; i < m; ++i) {
      const Index start = crops[static_cast<std::size_t>(2 * i)];
      const Index end = crops[static_cast<std::size_t>(2 * i + 1)];
      if (start < 0 || end < 0) return invalid_argument("crops cannot be negative");
      if (in.block_shape == nullptr) continue;
      const Index size = input.rank_known() ? input.dim(static_cast<int>(i) + 1) : -1;
      Index cropped = multiply_dim(size, block[static_cast<std::size_t>(i)]);
      ACTORFLOW_RETURN_IF_ERROR(subtract_dim(cropped, start, &cropped));
      ACTORFLOW_RETURN_IF_ERROR(subtract_dim(cropped, end, &dims[static_cast<std::size_t>(i) + 1]));
    }
  }
  c.add_output(c.input_types[0], with_remaining(input, m, std::move(dims)));
  return {};
}

// SpaceToBatchND(input, block_shape, paddings) and BatchToSpaceND(input, block_shape, crops).
Status infer_nd(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  const bool to_batch = c.node.op == "SpaceToBatchND";
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tblock_shape"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], to_batch ? "Tpaddings" : "Tcrops"));
  BlockInputs in{c.input_shapes[1], c.input_values[1], c.input_shapes[2], c.input_values[2]};
  return to_batch ? space_to_batch_shape(c, c.input_shapes[0], std::move(in))
                  : batch_to_space_shape(c, c.input_shapes[0], std::move(in));
}

// SpaceToBatch(input, paddings; block_size) and BatchToSpace(input, crops; block_size): a
// rank-4 input and the block_shape [block_size, block_size].
Status infer_v1(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  const bool to_batch = c.node.op == "SpaceToBatch";
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], to_batch ? "Tpaddings" : "Tidx"));
  Index block_size = 0;
  ACTORFLOW_RETURN_IF_ERROR(block_size_attr(c, &block_size));
  PartialShape input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, 4));
  if (!input.rank_known()) input = PartialShape::unknown_of_rank(4);
  const Tensor block = Tensor::from_vector(std::vector<std::int64_t>{block_size, block_size});
  BlockInputs in{PartialShape{2}, &block, c.input_shapes[1], c.input_values[1]};
  return to_batch ? space_to_batch_shape(c, input, std::move(in))
                  : batch_to_space_shape(c, input, std::move(in));
}

// -- SpaceToDepth and DepthToSpace --------------------------------------------------------

// SpaceToDepth(input; block_size, data_format) and DepthToSpace: rank 4 (5 for NCHW_VECT_C,
// whose last dimension is the 4 channels of a vector); height and width divided (SpaceToDepth)
// or multiplied by block_size, the (outer) channels multiplied or divided by block_size^2.
Status infer_depth(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  const bool to_depth = c.node.op == "SpaceToDepth";
  // The NodeDef's attrs are checked first, in the OpDef's order.
  Index block_size = 0;
  ACTORFLOW_RETURN_IF_ERROR(block_size_attr(c, &block_size));
  std::string format;
  ACTORFLOW_RETURN_IF_ERROR(data_format_attr(c, &format));
  const bool vect = format == "NCHW_VECT_C";
  const int rank = vect ? 5 : 4;
  PartialShape input = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, rank));
  if (!input.rank_known()) input = PartialShape::unknown_of_rank(rank);
  const bool nhwc = format == "NHWC";
  const int h = nhwc ? 1 : 2, w = nhwc ? 2 : 3, ch = nhwc ? 3 : 1;
  std::vector<std::int64_t> dims = input.dims();
  if (to_depth) {
    ACTORFLOW_RETURN_IF_ERROR(divide_dim(input.dim(h), block_size, &dims[h]));
    ACTORFLOW_RETURN_IF_ERROR(divide_dim(input.dim(w), block_size, &dims[w]));
    dims[ch] = multiply_dim(input.dim(ch), block_size * block_size);
  } else {
    dims[h] = multiply_dim(input.dim(h), block_size);
    dims[w] = multiply_dim(input.dim(w), block_size);
    ACTORFLOW_RETURN_IF_ERROR(divide_dim(input.dim(ch), block_size * block_size, &dims[ch]));
  }
  if (vect) dims[4] = 4;  // MakeShapeFromFormat: the inner channel dimension is 4
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  return {};
}

// -- builders ------------------------------------------------------------------------------

// A vector of [before, after] pairs as the Const `name` in the current name scope: int32
// unless a value needs int64, as convert_to_tensor makes it.
Output pairs_constant(Graph& g, const std::vector<std::array<std::int64_t, 2>>& pairs,
                      std::string_view name) {
  std::vector<std::int64_t> flat;
  for (const auto& p : pairs) flat.insert(flat.end(), p.begin(), p.end());
  const Tensor as_list = detail::index_tensor(flat);
  return g.constant(as_list.reshaped(Shape{static_cast<std::int64_t>(pairs.size()), 2}), name);
}

// The op `make(name)` builds, named `name` (default `type`), after `consts()` made its Consts
// inside the op's name scope, as op_def_library converts Python lists.
template <class Consts, class Make>
Output with_constants(const char* type, Graph& g, std::string_view name, Consts&& consts,
                      Make&& make) {
  const std::string op_name = g.unique_name(name.empty() ? type : name);
  {
    auto scope = g.name_scope(op_name + "/");
    consts(g);
  }
  return make(op_name + "/");
}

// SpaceToBatchND or BatchToSpaceND of `input` with its index inputs.
Output nd_op(const char* type, const char* third_attr, const Output& input,
             const Output& block_shape, const Output& third, std::string_view name) {
  return input.graph()
      .create_op(type, {input, block_shape, third},
                 {{"T", input.dtype()},
                  {"Tblock_shape", block_shape.dtype()},
                  {third_attr, third.dtype()}},
                 name.empty() ? type : name)
      .output(0);
}

// SpaceToBatch or BatchToSpace of `input` with its paddings (crops) and block_size.
Output v1_op(const char* type, const char* index_attr, const Output& input, const Output& pairs,
             std::int64_t block_size, std::string_view name) {
  return input.graph()
      .create_op(type, {input, pairs},
                 {{"T", input.dtype()}, {index_attr, pairs.dtype()}, {"block_size", block_size}},
                 name.empty() ? type : name)
      .output(0);
}

// SpaceToDepth or DepthToSpace.
Output depth_op(const char* type, const Output& input, std::int64_t block_size,
                std::string_view data_format, std::string_view name) {
  return input.graph()
      .create_op(type, {input},
                 {{"T", input.dtype()},
                  {"block_size", block_size},
                  {"data_format", std::string(data_format)}},
                 name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_space_batch_ops(OpRegistry& r) {
  r.add({"SpaceToBatchND", infer_nd});
  r.add({"BatchToSpaceND", infer_nd});
  r.add({"SpaceToBatch", infer_v1});
  r.add({"BatchToSpace", infer_v1});
  r.add({"SpaceToDepth", infer_depth});
  r.add({"DepthToSpace", infer_depth});
}

}  // namespace detail

Output space_to_batch_nd(const Output& input, const Output& block_shape, const Output& paddings,
                         std::string_view name) {
  return nd_op("SpaceToBatchND", "Tpaddings", input, block_shape, paddings, name);
}

Output space_to_batch_nd(const Output& input, const std::vector<std::int64_t>& block_shape,
                         const std::vector<std::array<std::int64_t, 2>>& paddings,
                         std::string_view name) {
  Output b, p;
  return with_constants(
      "SpaceToBatchND", input.graph(), name,
      [&](Graph& g) {
        b = g.constant(detail::index_tensor(block_shape), "block_shape");
        p = pairs_constant(g, paddings, "paddings");
      },
      [&](std::string_view n) { return space_to_batch_nd(input, b, p, n); });
}

Output batch_to_space_nd(const Output& input, const Output& block_shape, const Output& crops,
                         std::string_view name) {
  return nd_op("BatchToSpaceND", "Tcrops", input, block_shape, crops, name);
}

Output batch_to_space_nd(const Output& input, const std::vector<std::int64_t>& block_shape,
                         const std::vector<std::array<std::int64_t, 2>>& crops,
                         std::string_view name) {
  Output b, c;
  return with_constants(
      "BatchToSpaceND", input.graph(), name,
      [&](Graph& g) {
        b = g.constant(detail::index_tensor(block_shape), "block_shape");
        c = pairs_constant(g, crops, "crops");
      },
      [&](std::string_view n) { return batch_to_space_nd(input, b, c, n); });
}

Output space_to_batch(const Output& input, const Output& paddings, std::int64_t block_size,
                      std::string_view name) {
  return v1_op("SpaceToBatch", "Tpaddings", input, paddings, block_size, name);
}

Output space_to_batch(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
                      std::int64_t block_size, std::string_view name) {
  Output p;
  return with_constants(
      "SpaceToBatch", input.graph(), name,
      [&](Graph& g) { p = pairs_constant(g, paddings, "paddings"); },
      [&](std::string_view n) { return space_to_batch(input, p, block_size, n); });
}

Output batch_to_space(const Output& input, const Output& crops, std::int64_t block_size,
                      std::string_view name) {
  return v1_op("BatchToSpace", "Tidx", input, crops, block_size, name);
}

Output batch_to_space(const Output& input, const std::vector<std::array<std::int64_t, 2>>& crops,
                      std::int64_t block_size, std::string_view name) {
  Output c;
  return with_constants(
      "BatchToSpace", input.graph(), name, [&](Graph& g) { c = pairs_constant(g, crops, "crops"); },
      [&](std::string_view n) { return batch_to_space(input, c, block_size, n); });
}

Output space_to_depth(const Output& input, std::int64_t block_size, std::string_view data_format,
                      std::string_view name) {
  return depth_op("SpaceToDepth", input, block_size, data_format, name);
}

Output depth_to_space(const Output& input, std::int64_t block_size, std::string_view data_format,
                      std::string_view name) {
  return depth_op("DepthToSpace", input, block_size, data_format, name);
}

}  // namespace af
