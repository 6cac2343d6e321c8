#pragma once

// TensorFlow's DataType enum values (types.proto) of actorflow's dtypes: what TensorProtos
// carry and what TensorFlow's C API kernels and Bitcast's shape function print in their
// messages. Shared by the kernels module (array_more_ops.cpp, serialize_io_ops.cpp) and
// ops/src/defs/array_more_ops.cpp.
#include "actorflow/ops/dtype.hpp"

namespace af::detail {

/// TensorFlow's DataType enum value of `t` (DT_FLOAT = 1, ...); 0 (DT_INVALID) for invalid.
inline int tf_enum(DType t) {
  switch (t) {
    case DType::float32:
      return 1;
    case DType::float64:
      return 2;
    case DType::int32:
      return 3;
    case DType::uint8:
      return 4;
    case DType::string:
      return 7;
    case DType::int64:
      return 9;
    case DType::boolean:
      return 10;
    case DType::bfloat16:
      return 14;
    case DType::resource:
      return 20;
    case DType::variant:
      return 21;
    case DType::invalid:
      break;
  }
  return 0;
}

}  // namespace af::detail
