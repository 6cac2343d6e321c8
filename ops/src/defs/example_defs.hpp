#pragma once

// What the shape functions and builders of the Example parsers (parse_example_ops.cpp,
// parse_sequence_example_ops.cpp) share. Private to the ops module.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// InvalidArgument unless `t` is a dtype an Example's features have (float, int64, string),
/// in the words of an attr check ("Value for attr 'Tdense' of int32 is not in the list of
/// allowed values: float, int64, string").
inline Status check_feature_type(DType t, const char* attr) {
  if (t == DType::float32 || t == DType::int64 || t == DType::string) return {};
  return invalid_argument("Value for attr '" + std::string(attr) + "' of " +
                          std::string(dtype_name(t)) +
                          " is not in the list of allowed values: float, int64, string");
}

/// A string vector of `values` (the keys and names the parsers take as Consts).
inline Tensor string_vector(const std::vector<std::string>& values) {
  return Tensor::from_vector(values, Shape{static_cast<std::int64_t>(values.size())});
}

}  // namespace af::detail
