// DynamicPartition, DynamicStitch and ParallelDynamicStitch (TensorFlow's data_flow_ops.cc):
// shape functions and builders. Their CPU kernels are in kernels/src/partition_ops.cpp, the
// stitch's gradient in ops/src/gradients/array_grad.cpp.
#include "actorflow/ops/partition_ops.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "attr_checks.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// DynamicPartition: partitions (int32) is a prefix of data; each output is [?] + the rest.
Status infer_dynamic_partition(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  std::int64_t n = 0;
  ACTORFLOW_RETURN_IF_ERROR(detail::int_attr_at_least(c, "num_partitions", 1, &n));
  if (c.input_types[1] != DType::int32)
    return invalid_argument("Input 'partitions' of 'DynamicPartition' Op has type " +
                            std::string(data_type_string(c.input_types[1])) +
                            " that does not match expected type of int32.");
  const PartialShape& data = c.input_shapes[0];
  const PartialShape& parts = c.input_shapes[1];
  PartialShape out = PartialShape::unknown();
  if (data.rank_known() && parts.rank_known()) {
    if (data.rank() < parts.rank())
      return invalid_argument("Shape must be at least rank " + std::to_string(parts.rank()) +
                              " but is rank " + std::to_string(data.rank()));
    for (int d = 0; d < parts.rank(); ++d)
      if (data.dim(d) >= 0 && parts.dim(d) >= 0 && data.dim(d) != parts.dim(d))
        return invalid_argument("Dimensions must be equal, but are " + std::to_string(data.dim(d)) +
                                " and " + std::to_string(parts.dim(d)));
    std::vector<std::int64_t> dims{-1};
    for (int d = parts.rank(); d < data.rank(); ++d) dims.push_back(data.dim(d));
    out = PartialShape(std::move(dims));
  }
  for (std::int64_t i = 0; i < n; ++i) c.add_output(c.input_types[0], out);
  return {};
}

// DynamicStitch: N int32 index tensors, then N data tensors of one dtype; the output has
// max(index) + 1 rows when every index is a Const, else an unknown number.
Status infer_dynamic_stitch(InferenceContext& c) {
  const int total = c.num_inputs();
  if (total < 2 || total % 2 != 0)
    return invalid_argument(c.node.op + " needs as many data inputs as index inputs, got " +
                            std::to_string(total) + " inputs");
  const int n = total / 2;
  const DType t = c.input_types[static_cast<std::size_t>(n)];
  std::int64_t max_index = -1;
  bool all_known = true;
  for (int i = 0; i < n; ++i) {
    if (c.input_types[static_cast<std::size_t>(i)] != DType::int32)
      return invalid_argument(
          "Input 'indices' of '" + c.node.op + "' Op has type " +
          std::string(data_type_string(c.input_types[static_cast<std::size_t>(i)])) +
          " that does not match expected type of int32.");
    if (c.input_types[static_cast<std::size_t>(n + i)] != t)
      return invalid_argument(
          "Inputs 'data' of '" + c.node.op + "' Op have types " + std::string(data_type_string(t)) +
          " and " + std::string(data_type_string(c.input_types[static_cast<std::size_t>(n + i)])) +
          " that do not match.");
    if (const Tensor* v = c.input_values[static_cast<std::size_t>(i)]) {
      for (auto x : v->flat<std::int32_t>()) max_index = std::max<std::int64_t>(max_index, x);
    } else {
      all_known = false;
    }
  }
  const PartialShape& indices0 = c.input_shapes[0];
  const PartialShape& data0 = c.input_shapes[static_cast<std::size_t>(n)];
  if (!indices0.rank_known() || !data0.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  std::vector<std::int64_t> dims{all_known ? max_index + 1 : -1};
  for (int d = indices0.rank(); d < data0.rank(); ++d) dims.push_back(data0.dim(d));
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

Output stitch(const char* type, const std::vector<Output>& indices, const std::vector<Output>& data,
              std::string_view name) {
  if (indices.empty() || indices.size() != data.size())
    throw InvalidArgumentError(invalid_argument(std::string(type) + ": " +
                                                std::to_string(indices.size()) + " indices for " +
                                                std::to_string(data.size()) + " data tensors"));
  std::vector<Output> inputs(indices);
  inputs.insert(inputs.end(), data.begin(), data.end());
  return data[0]
      .graph()
      .create_op(type, inputs,
                 {{"N", static_cast<std::int64_t>(indices.size())}, {"T", data[0].dtype()}},
                 name.empty() ? type : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_partition_ops(OpRegistry& r) {
  r.add({"DynamicPartition", infer_dynamic_partition});
  r.add({"DynamicStitch", infer_dynamic_stitch});
  r.add({"ParallelDynamicStitch", infer_dynamic_stitch});
}

}  // namespace detail

std::vector<Output> dynamic_partition(const Output& data, const Output& partitions,
                                      std::int64_t num_partitions, std::string_view name) {
  Operation op = data.graph().create_op("DynamicPartition", {data, partitions},
                                        {{"num_partitions", num_partitions}, {"T", data.dtype()}},
                                        name.empty() ? "DynamicPartition" : name);
  std::vector<Output> out;
  for (int i = 0; i < op.node()->num_outputs(); ++i) out.push_back(op.output(i));
  return out;
}

Output dynamic_stitch(const std::vector<Output>& indices, const std::vector<Output>& data,
                      std::string_view name) {
  return stitch("DynamicStitch", indices, data, name);
}

Output parallel_dynamic_stitch(const std::vector<Output>& indices, const std::vector<Output>& data,
                               std::string_view name) {
  return stitch("ParallelDynamicStitch", indices, data, name);
}

}  // namespace af
