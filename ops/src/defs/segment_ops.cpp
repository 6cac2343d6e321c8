// The definitions of Cumsum and Cumprod, and the graph-building functions
// unsorted_segment_sum, cumsum and cumprod: what the gradients of GatherV2, Prod and Cumsum
// are built from (ops/src/gradients/). Their CPU kernels are in kernels/src/segment_ops.cpp;
// UnsortedSegmentSum's shape function is with the other segment reductions' in
// segment_reduction_ops.cpp, Pad's definition in pad_ops.cpp.
#include <cstdint>
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

using detail::check_index_type;

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
