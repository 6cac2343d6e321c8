#pragma once

// What the graph builders of several op families (ops/src/defs/*.cpp) share: the Consts
// that Python's convert_to_tensor makes of ints and int lists. Private to the ops module.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// A Python list of ints as convert_to_tensor makes it: int32 unless a value needs int64
/// (TensorFlow's tensor_util.shape_tensor for a shape's dims).
inline Tensor index_tensor(const std::vector<std::int64_t>& values) {
  const bool wide = std::any_of(values.begin(), values.end(), [](std::int64_t v) {
    return v > std::numeric_limits<std::int32_t>::max() ||
           v < std::numeric_limits<std::int32_t>::min();
  });
  if (wide) return Tensor::from_vector(values);
  return Tensor::from_vector(std::vector<std::int32_t>(values.begin(), values.end()));
}

/// A Python int as convert_to_tensor makes it: int32 when it fits, else int64.
inline Tensor python_int(std::int64_t v) {
  if (v >= std::numeric_limits<std::int32_t>::min() &&
      v <= std::numeric_limits<std::int32_t>::max())
    return Tensor(static_cast<std::int32_t>(v));
  return Tensor(v);
}

}  // namespace af::detail
