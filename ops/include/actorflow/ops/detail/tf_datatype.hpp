#pragma once

// TensorFlow's DataType enum values (types.proto) of actorflow's dtypes: what TensorProtos,
// tensor bundles and GraphDefs carry and what TensorFlow's C API kernels and Bitcast's shape
// function print in their messages. One table, read both ways.
#include <utility>

#include "actorflow/ops/dtype.hpp"

namespace af::detail {

/// actorflow's dtypes and TensorFlow's DataType numbers.
inline constexpr std::pair<DType, int> kTfDataTypes[] = {
    {DType::float32, 1},     {DType::float64, 2},  {DType::int32, 3},     {DType::uint8, 4},
    {DType::int16, 5},       {DType::int8, 6},     {DType::string, 7},    {DType::complex64, 8},
    {DType::int64, 9},       {DType::boolean, 10}, {DType::bfloat16, 14}, {DType::uint16, 17},
    {DType::complex128, 18}, {DType::float16, 19}, {DType::resource, 20}, {DType::variant, 21},
    {DType::uint32, 22},     {DType::uint64, 23}};

/// TensorFlow's DataType enum value of `t` (DT_FLOAT = 1, ...); 0 (DT_INVALID) for invalid.
constexpr int tf_enum(DType t) noexcept {
  for (auto [dtype, number] : kTfDataTypes)
    if (dtype == t) return number;
  return 0;
}

/// The dtype of TensorFlow's DataType `number`; invalid for DT_INVALID, the reference types
/// and the types actorflow lacks (the quantized ones).
constexpr DType dtype_of_tf_enum(int number) noexcept {
  for (auto [dtype, n] : kTfDataTypes)
    if (n == number) return dtype;
  return DType::invalid;
}

}  // namespace af::detail
