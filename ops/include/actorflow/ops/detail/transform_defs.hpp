#pragma once

// What the transform ops' definitions (ops/src/defs/transform_shape_ops.cpp and
// transform_encode_ops.cpp) and their CPU kernels (kernels/src/, same names) share: the
// element types of OnesLike, OneHot and DecodeRaw, and reading an index input's value.
#include <cstdint>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// OnesLike's T: every value type but string. OnesLike has no string kernel (TensorFlow's T
/// list has no string).
inline const std::vector<DType> kNumericTypes = {
    DType::float32, DType::float64,  DType::int32,   DType::int64,     DType::uint8,
    DType::boolean, DType::bfloat16, DType::float16, DType::int8,      DType::int16,
    DType::uint16,  DType::uint32,   DType::uint64,  DType::complex64, DType::complex128};

/// The first value of an int32 or int64 tensor, widened. `t` holds at least one element and
/// is int64 or else int32 (ExpandDims' `dim`, in its shape function and its kernel).
inline Index first_index(const Tensor& t) {
  return t.dtype() == DType::int64 ? t.data<std::int64_t>()[0] : t.data<std::int32_t>()[0];
}

/// OneHot's TI: the types its indices may have.
inline const std::vector<DType> kOneHotIndexTypes = {DType::uint8, DType::int32, DType::int64};
/// DecodeRaw's out_type, as far as actorflow has the types.
inline const std::vector<DType> kDecodeRawTypes = {
    DType::float16,    DType::float32, DType::float64, DType::int32, DType::uint16,
    DType::uint8,      DType::int16,   DType::int8,    DType::int64, DType::complex64,
    DType::complex128, DType::boolean, DType::bfloat16};

}  // namespace af::detail
