#pragma once

// What the definitions of array_more_ops.cpp and array_more_nn_ops.cpp share: the real types
// their kernels take, TensorFlow's name of that list, the check of a list input of one type
// and the one-output graph builder.
// Private to the ops module.
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace af::detail::array_more {

/// The real types actorflow has (TensorFlow's realnumbertypes within them).
inline const std::vector<DType> kRealTypes = {DType::float32, DType::float64, DType::int32,
                                              DType::int64,   DType::uint8,   DType::bfloat16};
/// TensorFlow's names of the real types, as its type-check messages list them.
inline constexpr const char* kRealTypeNames =
    "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64";

/// The inputs, all of the list input `arg`: at least one ("<op> needs at least one input"),
/// all of one type (op_def_library's message).
inline Status check_list_of_one_type(const InferenceContext& c, const char* arg) {
  if (c.num_inputs() < 1) return invalid_argument(c.node.op + " needs at least one input");
  for (DType t : c.input_types)
    if (t != c.input_types[0])
      return invalid_argument(list_type_mismatch_message(c.node.op, arg, c.input_types));
  return {};
}

/// Op `type` of `inputs` (in the graph of the first) with `attrs`, named `name` (or `type`);
/// its output 0.
inline Output make_op(const char* type, const std::vector<Output>& inputs, AttrMap attrs,
                      std::string_view name) {
  return inputs.front()
      .graph()
      .create_op(type, inputs, std::move(attrs), name.empty() ? type : name)
      .output(0);
}

}  // namespace af::detail::array_more
