#pragma once

// TensorFlow's NodeDef validation of attribute bounds (`int >= 1` in a REGISTER_OP), which
// the shape functions of several op families (ops/src/defs/*.cpp) run. Private to the ops
// module.
#include <cstdint>
#include <string>

#include "actorflow/ops/op_registry.hpp"

namespace af::detail {

/// Reads int attr `name` into `*value` and refuses one below `minimum` with TensorFlow's
/// "Value for attr 'num_split' of 0 must be at least minimum 1"; a missing attr is
/// InferenceContext::get_attr's error.
inline Status int_attr_at_least(const InferenceContext& c, const char* name, std::int64_t minimum,
                                std::int64_t* value) {
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr(name, value));
  if (*value < minimum)
    return invalid_argument("Value for attr '" + std::string(name) + "' of " +
                            std::to_string(*value) + " must be at least minimum " +
                            std::to_string(minimum));
  return {};
}

}  // namespace af::detail
