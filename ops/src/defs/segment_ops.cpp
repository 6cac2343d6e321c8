// The definitions of UnsortedSegmentSum, Pad, Cumsum and Cumprod: shape functions and the
// graph-building functions unsorted_segment_sum, pad, cumsum and cumprod. They are what the
// gradients of GatherV2, Slice, Prod and Cumsum are built from (ops/src/gradients/). Their
// CPU kernels are in kernels/src/segment_ops.cpp.
//
// The shape functions follow TensorFlow 1.x's tensorflow/core/ops/math_ops.cc
// (UnsortedSegmentReductionShapeFn) and array_ops.cc (PadShapeFn); messages are TensorFlow's.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::python_int;

using Index = std::int64_t;

using detail::index_values;

using detail::check_index_type;
using detail::with_rank;

// -- UnsortedSegmentSum -------------------------------------------------------------------

// TensorFlow's UnsortedSegmentReductionShapeFn.
Status infer_unsorted_segment_sum(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[2], "Tnumsegments"));
  const DType t = c.input_types[0];
  const PartialShape& data = c.input_shapes[0];
  const PartialShape& ids = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  if (!ids.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  // MergePrefix(data, segment_ids).
  if (data.rank_known() && data.rank() < ids.rank())
    return invalid_argument("Shape must be at least rank " + std::to_string(ids.rank()) +
                            " but is rank " + std::to_string(data.rank()));
  Index num_segments = -1;
  if (const Tensor* value = c.input_values[2]) {
    num_segments = index_values(*value)[0];
    if (num_segments < 0)
      return invalid_argument(
          "Dimension size, given by scalar input 2, must be non-negative but is " +
          std::to_string(num_segments));
  }
  if (!data.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  for (int d = 0; d < ids.rank(); ++d)
    if (data.dim(d) >= 0 && ids.dim(d) >= 0 && data.dim(d) != ids.dim(d))
      return invalid_argument("Dimensions must be equal, but are " + std::to_string(data.dim(d)) +
                              " and " + std::to_string(ids.dim(d)));
  std::vector<std::int64_t> dims{num_segments};
  for (int d = ids.rank(); d < data.rank(); ++d) dims.push_back(data.dim(d));
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- Pad ----------------------------------------------------------------------------------

// TensorFlow's PadShapeFn.
Status infer_pad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
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

// -- Cumprod ------------------------------------------------------------------------------

Status infer_cumprod(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tidx"));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

}  // namespace

namespace detail {

// sparse_segment_ops.cpp: the sparse segment reductions, their gradients and SegmentSum.
void register_sparse_segment_ops(OpRegistry& r);

void register_segment_ops(OpRegistry& r) {
  register_sparse_segment_ops(r);
  r.add({"UnsortedSegmentSum", infer_unsorted_segment_sum});
  r.add({"Pad", infer_pad});
  r.add({"Cumprod", infer_cumprod});
  r.add({"Cumsum", infer_cumprod});
}

}  // namespace detail

Output unsorted_segment_sum(const Output& data, const Output& segment_ids,
                            const Output& num_segments, std::string_view name) {
  return data.graph()
      .create_op("UnsortedSegmentSum", {data, segment_ids, num_segments},
                 {{"T", data.dtype()},
                  {"Tindices", segment_ids.dtype()},
                  {"Tnumsegments", num_segments.dtype()}},
                 name.empty() ? "UnsortedSegmentSum" : name)
      .output(0);
}

Output unsorted_segment_sum(const Output& data, const Output& segment_ids,
                            std::int64_t num_segments, std::string_view name) {
  Graph& g = data.graph();
  const std::string op_name = g.unique_name(name.empty() ? "UnsortedSegmentSum" : name);
  Output n;
  {
    auto scope = g.name_scope(op_name + "/");
    n = g.constant(python_int(num_segments), "num_segments");
  }
  return unsorted_segment_sum(data, segment_ids, n, op_name + "/");
}

Output pad(const Output& input, const Output& paddings, std::string_view name) {
  return input.graph()
      .create_op("Pad", {input, paddings}, {{"T", input.dtype()}, {"Tpaddings", paddings.dtype()}},
                 name.empty() ? "Pad" : name)
      .output(0);
}

Output pad(const Output& input, const std::vector<std::array<std::int64_t, 2>>& paddings,
           std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Pad" : name);
  std::vector<std::int64_t> flat;
  for (const auto& p : paddings) flat.insert(flat.end(), p.begin(), p.end());
  const bool wide = std::any_of(flat.begin(), flat.end(), [](std::int64_t v) {
    return v > std::numeric_limits<std::int32_t>::max() ||
           v < std::numeric_limits<std::int32_t>::min();
  });
  const Shape shape{static_cast<std::int64_t>(paddings.size()), 2};
  Output p;
  {
    auto scope = g.name_scope(op_name + "/");
    p = g.constant(
        wide ? Tensor::from_vector(flat, shape)
             : Tensor::from_vector(std::vector<std::int32_t>(flat.begin(), flat.end()), shape),
        "paddings");
  }
  return pad(input, p, op_name + "/");
}

namespace {

// A scan op (Cumsum, Cumprod) with its axis as the Const "<op>/axis".
Output scan_op(const char* type, const Output& x, std::int64_t axis, bool exclusive, bool reverse,
               std::string_view name) {
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? type : name);
  Output axis_t;
  {
    auto scope = g.name_scope(op_name + "/");
    axis_t = g.constant(python_int(axis), "axis");
  }
  return g
      .create_op(type, {x, axis_t},
                 {{"T", x.dtype()},
                  {"Tidx", axis_t.dtype()},
                  {"exclusive", exclusive},
                  {"reverse", reverse}},
                 op_name + "/")
      .output(0);
}

}  // namespace

Output cumprod(const Output& x, std::int64_t axis, bool exclusive, bool reverse,
               std::string_view name) {
  return scan_op("Cumprod", x, axis, exclusive, reverse, name);
}
Output cumsum(const Output& x, std::int64_t axis, bool exclusive, bool reverse,
              std::string_view name) {
  return scan_op("Cumsum", x, axis, exclusive, reverse, name);
}

}  // namespace af
