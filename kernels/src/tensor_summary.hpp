#pragma once

// Tensor::SummarizeValue (tensorflow/core/framework/tensor.cc) and the printing of one element
// under it (PrintOneElement, strings::StrCat of a number, absl::Utf8SafeCEscape): what Print
// and StringFormat show of a tensor. Private to the kernels module.
#include <cstdint>
#include <string>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// strings::StrCat of a float (FloatToBuffer): "nan" or "-nan"; else "%.6g", or "%.9g" when
/// that does not read back as the value. TensorFlow's kernels run with denormals flushed to
/// zero (and read as zero), so a subnormal prints as a signed 0.
std::string format_float(float v);

/// strings::StrCat of a double (DoubleToBuffer): "%.15g", or "%.17g" when that does not read
/// back; NaN and subnormals as format_float prints them.
std::string format_double(double v);

/// absl::Utf8SafeCEscape: \n \r \t \" \' \\ by name, the other ASCII control bytes (below 0x20,
/// and 0x7f) as three-digit octal, bytes from 0x80 as they are.
std::string utf8_safe_c_escape(const std::string& s);

/// PrintOneElement: element `i` (flat, in range) of `t`. Floats, doubles and bfloat16 (as the
/// float it is) as StrCat prints them, integers in decimal (uint8 too), bools as 1 and 0,
/// strings escaped (utf8_safe_c_escape) and, with `print_v2`, in double quotes; "?" for other
/// dtypes.
std::string format_element(const Tensor& t, Index i, bool print_v2);

/// Tensor::SummarizeValue(max_entries, print_v2): at most `max_entries` elements of `t` (all
/// for a negative value). Without `print_v2` (Print, logging_ops.cc) the first of them in
/// row-major order, each dimension but the innermost bracketed while elements remain, "..."
/// where an inner row is cut short and after a cut-off tensor. With `print_v2` (StringFormat)
/// the first and last min(max_entries, elements) entries of every dimension, "..." between
/// them, dimensions spaced as PrintDimSpacing (an empty tensor of rank 2 and up shows "[\n
/// ...]"). A scalar is its element, or "..." when max_entries is 0. Variants ("<...>" each)
/// and resources ("?") print flat, bracketed with `print_v2` unless scalar.
std::string summarize_value(const Tensor& t, std::int64_t max_entries, bool print_v2);

}  // namespace af::detail
