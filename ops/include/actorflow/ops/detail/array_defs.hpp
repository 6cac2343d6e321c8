#pragma once

// What the array ops' definitions (ops/src/defs/array_ops.cpp) and their CPU kernels
// (kernels/src/array_ops.cpp) share: the types Cast converts between.
#include <vector>

#include "actorflow/ops/dtype.hpp"

namespace af::detail {

/// The types Cast converts between: Cast's shape function rejects a SrcT or DstT outside
/// them (Unimplemented), and its CPU kernel is registered for them.
inline const std::vector<DType> kCastTypes = {
    DType::float32, DType::float64,  DType::int32,   DType::int64,     DType::uint8,
    DType::boolean, DType::bfloat16, DType::float16, DType::int8,      DType::int16,
    DType::uint16,  DType::uint32,   DType::uint64,  DType::complex64, DType::complex128};

}  // namespace af::detail
