#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>

namespace af {

/// Element types of tensors (TensorFlow's `DataType`).
enum class DType : std::uint8_t {
  invalid = 0,  ///< no dtype: an uninitialized tensor
  float32,      ///< `tf.float32` (C++ float)
  float64,      ///< `tf.float64` (double)
  int32,        ///< `tf.int32`
  int64,        ///< `tf.int64`
  uint8,        ///< `tf.uint8`
  boolean,      ///< `tf.bool` (C++ bool, one byte)
  string,       ///< `tf.string`: byte strings (std::string elements)
  bfloat16,     ///< `tf.bfloat16` (bfloat16_t)
  resource,     ///< internal: a reference to a resource such as a variable (TF's `*_ref`)
  variant,      ///< `tf.variant`: elements are `af::Variant` values (tensor lists, optionals)
};

/// Short names of the DTypes, as `tf.float32`.
inline constexpr DType float32 = DType::float32;
inline constexpr DType float64 = DType::float64;
inline constexpr DType int32 = DType::int32;
inline constexpr DType int64 = DType::int64;
inline constexpr DType uint8 = DType::uint8;
inline constexpr DType boolean = DType::boolean;
inline constexpr DType string = DType::string;
inline constexpr DType bfloat16 = DType::bfloat16;

/// Returns the Python name of `t` (`"float32"`, `"int32"`, `"string"`), as `tf.float32.name`.
std::string_view dtype_name(DType t) noexcept;

/// Returns TensorFlow's `DataTypeString` of `t` (`"float"`, `"double"`, `"int32"`), as used
/// in TensorFlow's kernel error messages.
std::string_view data_type_string(DType t) noexcept;

/// Parses either spelling (`"float32"` or `"float"`); returns `DType::invalid` otherwise.
DType dtype_from_string(std::string_view name) noexcept;

/// Returns the size of one element in bytes; 0 for `string`, `resource`, `variant` and
/// `invalid`.
std::size_t dtype_size(DType t) noexcept;

/// True for float32, float64 and bfloat16.
bool is_floating(DType t) noexcept;

/// True for int32, int64 and uint8.
bool is_integer(DType t) noexcept;

/// Prints `dtype_name(t)`.
std::ostream& operator<<(std::ostream& os, DType t);

/// Brain floating point: the upper 16 bits of an IEEE float32. Conversion from float
/// rounds to nearest even, as TensorFlow's `bfloat16` does; NaN stays NaN.
struct bfloat16_t {
  std::uint16_t bits = 0;  ///< the raw bits

  /// Zero.
  bfloat16_t() = default;
  /// `f` rounded to nearest even.
  explicit bfloat16_t(float f) noexcept : bits(round_to_bfloat16(f)) {}

  /// The exact float value.
  explicit operator float() const noexcept {
    std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }

  /// The bits of `f` rounded to nearest even (any NaN becomes the quiet NaN 0x7fc0).
  static std::uint16_t round_to_bfloat16(float f) noexcept {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) return 0x7fc0;  // NaN
    std::uint32_t lsb = (u >> 16) & 1u;
    u += 0x7fffu + lsb;
    return static_cast<std::uint16_t>(u >> 16);
  }

  /// Compares the float values (NaN != NaN, 0 == -0).
  friend bool operator==(bfloat16_t a, bfloat16_t b) noexcept {
    return static_cast<float>(a) == static_cast<float>(b);
  }
};

/// Maps a C++ element type to its DType.
template <class T>
struct dtype_of;
/// The mappings (no others: using another type fails to compile).
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::float32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::float64;
};
template <>
struct dtype_of<std::int32_t> {
  static constexpr DType value = DType::int32;
};
template <>
struct dtype_of<std::int64_t> {
  static constexpr DType value = DType::int64;
};
template <>
struct dtype_of<std::uint8_t> {
  static constexpr DType value = DType::uint8;
};
template <>
struct dtype_of<bool> {
  static constexpr DType value = DType::boolean;
};
template <>
struct dtype_of<std::string> {
  static constexpr DType value = DType::string;
};
template <>
struct dtype_of<bfloat16_t> {
  static constexpr DType value = DType::bfloat16;
};
/// `dtype_of<T>::value`.
template <class T>
inline constexpr DType dtype_of_v = dtype_of<T>::value;

/// Calls `f(T{})` with the C++ element type of `t` for the numeric and bool types;
/// returns false (without calling) for string, resource, variant and invalid.
template <class F>
bool visit_numeric_dtype(DType t, F&& f) {
  switch (t) {
    case DType::float32:
      f(float{});
      return true;
    case DType::float64:
      f(double{});
      return true;
    case DType::int32:
      f(std::int32_t{});
      return true;
    case DType::int64:
      f(std::int64_t{});
      return true;
    case DType::uint8:
      f(std::uint8_t{});
      return true;
    case DType::boolean:
      f(bool{});
      return true;
    case DType::bfloat16:
      f(bfloat16_t{});
      return true;
    default:
      return false;
  }
}

}  // namespace af
