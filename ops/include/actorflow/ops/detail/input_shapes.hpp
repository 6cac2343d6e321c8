#pragma once

// What the input producers' ops share between their definitions
// (ops/src/defs/input_ops.cpp) and their CPU kernels (kernels/src/input_ops.cpp): Range's
// types and size computation (shape function and kernel) and the reading of index scalars.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// The types Range takes (attr Tidx): the shape function's allowed list and the kernel's
/// registered types.
inline const std::vector<DType> kRangeTypes = {DType::float32, DType::float64, DType::int32,
                                               DType::int64};

/// The single value of an int32 or int64 tensor, widened.
inline Index index_scalar(const Tensor& t) {
  return t.dtype() == DType::int64 ? t.data<std::int64_t>()[0] : t.data<std::int32_t>()[0];
}

/// TensorFlow 1.x's StrCat of a number: integers in decimal, floats as FloatToBuffer /
/// DoubleToBuffer render them (%g with FLT_DIG / DBL_DIG digits, more when that does not
/// read back as the same value).
template <class T>
std::string number_string(T v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    constexpr bool is_float = std::is_same_v<T, float>;
    const int digits = is_float ? FLT_DIG : DBL_DIG;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, static_cast<double>(v));
    const bool round_trips = is_float ? std::strtof(buffer, nullptr) == static_cast<float>(v)
                                      : std::strtod(buffer, nullptr) == static_cast<double>(v);
    if (!round_trips)
      std::snprintf(buffer, sizeof buffer, "%.*g", digits + (is_float ? 3 : 2),
                    static_cast<double>(v));
    return buffer;
  }
}

/// Calls `f(T{})` with the C++ type of a Range dtype (int32, int64, float, double); nothing
/// for other dtypes.
template <class F>
void visit_range_dtype(DType t, F&& f) {
  switch (t) {
    case DType::int32:
      f(std::int32_t{});
      break;
    case DType::int64:
      f(std::int64_t{});
      break;
    case DType::float32:
      f(float{});
      break;
    case DType::float64:
      f(double{});
      break;
    default:
      break;
  }
}

/// The number of elements of range(start, limit, delta), or the error TensorFlow's RangeSize
/// (shape function) and RangeOp (kernel) report. `kernel` selects the kernel's spelling of
/// the zero-delta message.
template <class T>
Status range_size(T start, T limit, T delta, bool kernel, Index* size) {
  if (delta == T(0))
    return invalid_argument(kernel ? "Requires delta != 0: " + number_string(delta)
                                   : std::string("Requires delta != 0"));
  if (delta > T(0) && start > limit)
    return invalid_argument("Requires start <= limit when delta > 0: " + number_string(start) +
                            "/" + number_string(limit));
  if (delta < T(0) && start < limit)
    return invalid_argument("Requires start >= limit when delta < 0: " + number_string(start) +
                            "/" + number_string(limit));
  if constexpr (std::is_integral_v<T>) {
    // ceil(|limit - start| / |delta|), in unsigned arithmetic so that no extreme overflows.
    const auto wide = [](T v) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)); };
    const std::uint64_t distance =
        start <= limit ? wide(limit) - wide(start) : wide(start) - wide(limit);
    const std::uint64_t step = delta > 0 ? wide(delta) : std::uint64_t{0} - wide(delta);
    *size = static_cast<Index>(distance / step + (distance % step != 0 ? 1 : 0));
  } else {
    const T count = std::ceil(std::abs((limit - start) / delta));
    // TensorFlow 2's guard: a NaN or huge count is no shape.
    if (!(count <= static_cast<T>(std::numeric_limits<Index>::max())))
      return invalid_argument("Requires ((limit - start) / delta) <= " +
                              std::to_string(std::numeric_limits<Index>::max()));
    *size = static_cast<Index>(count);
  }
  return {};
}

}  // namespace af::detail
