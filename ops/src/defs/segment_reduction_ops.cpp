// The definitions of SegmentMean, SegmentMax, SegmentMin, SegmentProd, UnsortedSegmentMax,
// UnsortedSegmentMin and UnsortedSegmentProd: shape functions (TensorFlow's
// SegmentReductionShapeFn and UnsortedSegmentReductionShapeFn in math_ops.cc, with the op
// defs' type lists) and the graph-building functions of sparse_segment_ops.hpp. Registered by
// register_segment_reduction_ops; the kernels are in kernels/src/segment_reduction_ops.cpp,
// the gradients in ops/src/gradients/segment_grad.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_segment_ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::check_index_type;
using detail::index_values;
using detail::python_int;
using detail::with_rank;
using detail::with_rank_at_least;

// Attr T of `op`: TensorFlow's OpDef list (realnumbertype for Max and Min, numbertype for
// Mean and Prod).
Status check_value_type(const std::string& op, DType t) { return detail::check_op_def_type(t, op); }

// TensorFlow's SegmentReductionShapeFn: data at least a vector, segment_ids a vector, the
// output [?] + data.shape[1:] (the number of segments is known only when the op runs, and
// the ids' length is not checked against data's rows here).
Status infer_segment_reduction(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_value_type(c.node.op, c.input_types[0]));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tindices"));
  const PartialShape& data = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(data, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  PartialShape out = PartialShape::unknown();
  if (data.rank_known()) {
    std::vector<std::int64_t> dims = data.dims();
    dims[0] = -1;
    out = PartialShape(std::move(dims));
  }
  c.add_output(c.input_types[0], out);
  return {};
}

// TensorFlow's UnsortedSegmentReductionShapeFn: num_segments a scalar; data's leading dims
// merge with segment_ids' shape; the output [num_segments] + data.shape[rank(ids):], the
// number of segments known when num_segments is a Const. Unknown when either rank is.
// UnsortedSegmentSum's, whose T is any number type its kernels take.
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
  if (data.rank_known()) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(data, ids.rank()));
    for (int d = 0; d < ids.rank(); ++d)
      if (data.dim(d) >= 0 && ids.dim(d) >= 0 && data.dim(d) != ids.dim(d))
        return invalid_argument("Dimensions must be equal, but are " + std::to_string(data.dim(d)) +
                                " and " + std::to_string(ids.dim(d)));
  }
  // MakeDimForScalarInput(2).
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
  std::vector<std::int64_t> dims{num_segments};
  for (int d = ids.rank(); d < data.rank(); ++d) dims.push_back(data.dim(d));
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// The other unsorted reductions: their T checked as TensorFlow's op definitions do.
Status infer_unsorted_segment_reduction(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(check_value_type(c.node.op, c.input_types[0]));
  return infer_unsorted_segment_sum(c);
}

// A sorted reduction `op` (default name: the op type).
Output sorted(const char* op, const Output& data, const Output& segment_ids,
              std::string_view name) {
  return data.graph()
      .create_op(op, {data, segment_ids}, {{"T", data.dtype()}, {"Tindices", segment_ids.dtype()}},
                 name.empty() ? std::string_view(op) : name)
      .output(0);
}

// An unsorted reduction `op` (default name: the op type).
Output unsorted(const char* op, const Output& data, const Output& segment_ids,
                const Output& num_segments, std::string_view name) {
  return data.graph()
      .create_op(op, {data, segment_ids, num_segments},
                 {{"T", data.dtype()},
                  {"Tindices", segment_ids.dtype()},
                  {"Tnumsegments", num_segments.dtype()}},
                 name.empty() ? std::string_view(op) : name)
      .output(0);
}

// An unsorted reduction with `num_segments` as the Const "<op>/num_segments" (int32 unless it
// needs int64), as Python converts the number inside the op's scope.
Output unsorted(const char* op, const Output& data, const Output& segment_ids,
                std::int64_t num_segments, std::string_view name) {
  Graph& g = data.graph();
  const std::string op_name = g.unique_name(name.empty() ? std::string_view(op) : name);
  Output n;
  {
    auto scope = g.name_scope(op_name + "/");
    n = g.constant(python_int(num_segments), "num_segments");
  }
  return unsorted(op, data, segment_ids, n, op_name + "/");
}

}  // namespace

namespace detail {

void register_segment_reduction_ops(OpRegistry& r) {
  for (const char* op : {"SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"})
    r.add({op, infer_segment_reduction});
  for (const char* op : {"UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"})
    r.add({op, infer_unsorted_segment_reduction});
  r.add({"UnsortedSegmentSum", infer_unsorted_segment_sum});
  // tf.strings.unsorted_segment_join: the same shape function, strings in and out (its
  // builder is in string_ngrams_ops.cpp).
  r.add({"UnsortedSegmentJoin", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
           ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
           return infer_unsorted_segment_sum(c);
         }});
}

}  // namespace detail

Output segment_mean(const Output& data, const Output& segment_ids, std::string_view name) {
  return sorted("SegmentMean", data, segment_ids, name);
}

Output segment_max(const Output& data, const Output& segment_ids, std::string_view name) {
  return sorted("SegmentMax", data, segment_ids, name);
}

Output segment_min(const Output& data, const Output& segment_ids, std::string_view name) {
  return sorted("SegmentMin", data, segment_ids, name);
}

Output segment_prod(const Output& data, const Output& segment_ids, std::string_view name) {
  return sorted("SegmentProd", data, segment_ids, name);
}

Output unsorted_segment_max(const Output& data, const Output& segment_ids,
                            const Output& num_segments, std::string_view name) {
  return unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, name);
}

Output unsorted_segment_max(const Output& data, const Output& segment_ids,
                            std::int64_t num_segments, std::string_view name) {
  return unsorted("UnsortedSegmentMax", data, segment_ids, num_segments, name);
}

Output unsorted_segment_min(const Output& data, const Output& segment_ids,
                            const Output& num_segments, std::string_view name) {
  return unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, name);
}

Output unsorted_segment_min(const Output& data, const Output& segment_ids,
                            std::int64_t num_segments, std::string_view name) {
  return unsorted("UnsortedSegmentMin", data, segment_ids, num_segments, name);
}

Output unsorted_segment_prod(const Output& data, const Output& segment_ids,
                             const Output& num_segments, std::string_view name) {
  return unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, name);
}

Output unsorted_segment_prod(const Output& data, const Output& segment_ids,
                             std::int64_t num_segments, std::string_view name) {
  return unsorted("UnsortedSegmentProd", data, segment_ids, num_segments, name);
}

}  // namespace af
