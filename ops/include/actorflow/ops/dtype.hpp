#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>

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
  float16,      ///< `tf.float16` (half_t, IEEE binary16)
  int8,         ///< `tf.int8`
  int16,        ///< `tf.int16`
  uint16,       ///< `tf.uint16`
  uint32,       ///< `tf.uint32`
  uint64,       ///< `tf.uint64`
  complex64,    ///< `tf.complex64` (std::complex<float>)
  complex128,   ///< `tf.complex128` (std::complex<double>)
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
inline constexpr DType float16 = DType::float16;
inline constexpr DType int8 = DType::int8;
inline constexpr DType int16 = DType::int16;
inline constexpr DType uint16 = DType::uint16;
inline constexpr DType uint32 = DType::uint32;
inline constexpr DType uint64 = DType::uint64;
inline constexpr DType complex64 = DType::complex64;
inline constexpr DType complex128 = DType::complex128;

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

/// True for float32, float64, bfloat16 and float16.
bool is_floating(DType t) noexcept;

/// True for the signed and unsigned integer types (int8 ... uint64).
bool is_integer(DType t) noexcept;

/// True for complex64 and complex128.
bool is_complex(DType t) noexcept;

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

/// IEEE 754 binary16 (TensorFlow's `half`, `tf.float16`). Conversion from float rounds to
/// nearest even (Eigen's algorithm, as TensorFlow's CPU kernels convert); values at or above
/// 65520 in magnitude become infinity; NaN stays NaN.
struct half_t {
  std::uint16_t bits = 0;  ///< the raw bits

  /// Zero.
  half_t() = default;
  /// `f` rounded to nearest even.
  explicit half_t(float f) noexcept : bits(round_to_half(f)) {}

  /// The exact float value.
  explicit operator float() const noexcept {
    constexpr std::uint32_t kShiftedExp = 0x7c00u << 13;
    std::uint32_t u = (static_cast<std::uint32_t>(bits) & 0x7fffu) << 13;
    const std::uint32_t exp = kShiftedExp & u;
    u += (127u - 15u) << 23;
    float f;
    if (exp == kShiftedExp) {
      u += (128u - 16u) << 23;  // Inf or NaN
      std::memcpy(&f, &u, sizeof f);
    } else if (exp == 0) {  // zero or subnormal: renormalise through float arithmetic
      u += 1u << 23;
      std::memcpy(&f, &u, sizeof f);
      constexpr std::uint32_t kMagicBits = 113u << 23;
      float magic;
      std::memcpy(&magic, &kMagicBits, sizeof magic);
      f -= magic;
    } else {
      std::memcpy(&f, &u, sizeof f);
    }
    std::uint32_t out;
    std::memcpy(&out, &f, sizeof out);
    out |= (static_cast<std::uint32_t>(bits) & 0x8000u) << 16;
    std::memcpy(&f, &out, sizeof f);
    return f;
  }

  /// The bits of `f` rounded to nearest even.
  static std::uint16_t round_to_half(float f) noexcept {
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    const std::uint32_t sign = u & 0x80000000u;
    u ^= sign;
    std::uint16_t out;
    if (u >= (127u + 16u) << 23) {  // at least 65536, Inf or NaN
      out = u > 0x7f800000u ? 0x7e00 : 0x7c00;
    } else if (u < (113u << 23)) {  // below 2^-14: a subnormal half or zero
      constexpr std::uint32_t kDenormMagicBits = ((127u - 15u) + (23u - 10u) + 1u) << 23;
      float v, magic;
      std::memcpy(&v, &u, sizeof v);
      std::memcpy(&magic, &kDenormMagicBits, sizeof magic);
      v += magic;  // the float addition rounds to nearest even
      std::uint32_t r;
      std::memcpy(&r, &v, sizeof r);
      out = static_cast<std::uint16_t>(r - kDenormMagicBits);
    } else {
      const std::uint32_t mant_odd = (u >> 13) & 1u;
      u += ((15u - 127u) << 23) + 0xfffu;  // rebias (wraps as unsigned) and round
      u += mant_odd;
      out = static_cast<std::uint16_t>(u >> 13);
    }
    return static_cast<std::uint16_t>(out | (sign >> 16));
  }

  /// Compares the float values (NaN != NaN, 0 == -0).
  friend bool operator==(half_t a, half_t b) noexcept {
    return static_cast<float>(a) == static_cast<float>(b);
  }
};

/// `tf.complex64`'s element type.
using complex64_t = std::complex<float>;
/// `tf.complex128`'s element type.
using complex128_t = std::complex<double>;

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
template <>
struct dtype_of<half_t> {
  static constexpr DType value = DType::float16;
};
template <>
struct dtype_of<std::int8_t> {
  static constexpr DType value = DType::int8;
};
template <>
struct dtype_of<std::int16_t> {
  static constexpr DType value = DType::int16;
};
template <>
struct dtype_of<std::uint16_t> {
  static constexpr DType value = DType::uint16;
};
template <>
struct dtype_of<std::uint32_t> {
  static constexpr DType value = DType::uint32;
};
template <>
struct dtype_of<std::uint64_t> {
  static constexpr DType value = DType::uint64;
};
template <>
struct dtype_of<complex64_t> {
  static constexpr DType value = DType::complex64;
};
template <>
struct dtype_of<complex128_t> {
  static constexpr DType value = DType::complex128;
};
/// True for the 16-bit floating-point element types (bfloat16_t, half_t), which TensorFlow's
/// CPU kernels compute with in float.
template <class T>
inline constexpr bool is_half_like_v = std::is_same_v<T, bfloat16_t> || std::is_same_v<T, half_t>;

/// True for complex64_t and complex128_t.
template <class T>
inline constexpr bool is_complex_v =
    std::is_same_v<T, complex64_t> || std::is_same_v<T, complex128_t>;

/// `dtype_of<T>::value`.
template <class T>
inline constexpr DType dtype_of_v = dtype_of<T>::value;

/// Calls `f(T{})` with the C++ element type of `t` for the numeric and bool types (complex
/// included); returns false (without calling) for string, resource, variant and invalid.
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
    case DType::float16:
      f(half_t{});
      return true;
    case DType::int8:
      f(std::int8_t{});
      return true;
    case DType::int16:
      f(std::int16_t{});
      return true;
    case DType::uint16:
      f(std::uint16_t{});
      return true;
    case DType::uint32:
      f(std::uint32_t{});
      return true;
    case DType::uint64:
      f(std::uint64_t{});
      return true;
    case DType::complex64:
      f(complex64_t{});
      return true;
    case DType::complex128:
      f(complex128_t{});
      return true;
    default:
      return false;
  }
}

}  // namespace af

/// The limits of the 16-bit floating-point types, as Eigen's and ml_dtypes' (values in the
/// type itself; `digits` counts the implicit bit).
template <>
class std::numeric_limits<af::half_t> {
  static af::half_t of(std::uint16_t bits) noexcept {
    af::half_t h;
    h.bits = bits;
    return h;
  }

 public:
  static constexpr bool is_specialized = true;  ///< yes
  static constexpr bool is_signed = true;       ///< yes
  static constexpr bool is_integer = false;     ///< no
  static constexpr bool has_infinity = true;    ///< yes
  static constexpr bool has_quiet_NaN = true;   ///< yes
  static constexpr int digits = 11;             ///< 10 fraction bits and the implicit one
  static af::half_t min() noexcept { return of(0x0400); }         ///< 2^-14
  static af::half_t lowest() noexcept { return of(0xfbff); }      ///< -65504
  static af::half_t max() noexcept { return of(0x7bff); }         ///< 65504
  static af::half_t epsilon() noexcept { return of(0x1400); }     ///< 2^-10
  static af::half_t infinity() noexcept { return of(0x7c00); }    ///< +inf
  static af::half_t quiet_NaN() noexcept { return of(0x7e00); }   ///< a NaN
  static af::half_t denorm_min() noexcept { return of(0x0001); }  ///< 2^-24
};

/// As above for bfloat16.
template <>
class std::numeric_limits<af::bfloat16_t> {
  static af::bfloat16_t of(std::uint16_t bits) noexcept {
    af::bfloat16_t b;
    b.bits = bits;
    return b;
  }

 public:
  static constexpr bool is_specialized = true;  ///< yes
  static constexpr bool is_signed = true;       ///< yes
  static constexpr bool is_integer = false;     ///< no
  static constexpr bool has_infinity = true;    ///< yes
  static constexpr bool has_quiet_NaN = true;   ///< yes
  static constexpr int digits = 8;              ///< 7 fraction bits and the implicit one
  static af::bfloat16_t min() noexcept { return of(0x0080); }         ///< 2^-126
  static af::bfloat16_t lowest() noexcept { return of(0xff7f); }      ///< about -3.39e38
  static af::bfloat16_t max() noexcept { return of(0x7f7f); }         ///< about 3.39e38
  static af::bfloat16_t epsilon() noexcept { return of(0x3c00); }     ///< 2^-7
  static af::bfloat16_t infinity() noexcept { return of(0x7f80); }    ///< +inf
  static af::bfloat16_t quiet_NaN() noexcept { return of(0x7fc0); }   ///< a NaN
  static af::bfloat16_t denorm_min() noexcept { return of(0x0001); }  ///< 2^-133
};
