#pragma once

// What the definitions of the image ops (image_proc_ops.cpp, image_more_ops.cpp,
// image_box_ops.cpp) share: op_def_library's check of a fixed-type input, TensorFlow's
// SetOutputToSizedImage, and the int32 Const of two values their builders make of a size.
// Private to the ops module.
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace af::detail::imaging {

/// Input `i` must have dtype `t` (a fixed-type input): op_def_library's message.
inline Status fixed_input(const InferenceContext& c, int i, const char* arg, DType t) {
  if (c.input_types[static_cast<std::size_t>(i)] == t) return {};
  return invalid_argument(cwise::fixed_type_mismatch_message(
      c.node.op, arg, c.input_types[static_cast<std::size_t>(i)], t));
}

/// SetOutputToSizedImage: [batch, size[0], size[1], channels] of `dtype`, `size` the int32
/// vector of two at input `size_input` (its values when it is a Const).
inline Status set_output_to_sized_image(InferenceContext& c, std::int64_t batch, int size_input,
                                        std::int64_t channels, DType dtype) {
  const auto at = static_cast<std::size_t>(size_input);
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[at], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_value(dim_of(c.input_shapes[at], 0), 2));
  std::int64_t height = -1, width = -1;
  if (const Tensor* size = c.input_values[at]) {
    const std::vector<std::int64_t> v = index_values(*size);
    for (std::int64_t d : v)
      if (d < -1) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    height = v[0];
    width = v[1];
  }
  c.add_output(dtype, PartialShape{batch, height, width, channels});
  return {};
}

/// Throws InvalidArgumentError "Value <v> of <const_name> does not fit int32" unless both
/// values fit int32.
inline void check_int32_pair(const std::array<std::int64_t, 2>& values, const char* const_name) {
  for (std::int64_t v : values)
    if (v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max())
      throw InvalidArgumentError(invalid_argument("Value " + std::to_string(v) + " of " +
                                                  const_name + " does not fit int32"));
}

/// The int32 Const `const_name` of two values (check_int32_pair) in the scope `op_name`
/// ("<op>/"), as Python's op_def_library converts a list.
inline Output int32_pair_const(Graph& g, const std::string& op_name, const char* const_name,
                               const std::array<std::int64_t, 2>& values) {
  check_int32_pair(values, const_name);
  auto scope = g.name_scope(op_name);
  return g.constant(
      Tensor::from_vector(std::vector<std::int32_t>{static_cast<std::int32_t>(values[0]),
                                                    static_cast<std::int32_t>(values[1])}),
      const_name);
}

}  // namespace af::detail::imaging
