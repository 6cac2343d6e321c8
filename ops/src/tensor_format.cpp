// Tensor::to_string: NumPy's `str(ndarray)` (numpy/core/arrayprint.py with the default
// print options: precision 8, floatmode "maxprec", linewidth 75, threshold 1000, edgeitems
// 3), which is what `print(sess.run(x))` shows in TensorFlow 1.x. Rank-0 tensors print as
// NumPy scalars do (`str(np.float32(12.0))` is `12.0`), since `sess.run` returns scalars.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/tensor.hpp"
#include "actorflow/ops/variant.hpp"

namespace af {

namespace {

constexpr int kPrecision = 8;
constexpr std::size_t kLineWidth = 75;
constexpr std::int64_t kThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;

// -- decimal digits ---------------------------------------------------------------------

// A finite value as decimal digits: |value| = 0.d1d2...dn * 10^(exponent + 1), i.e. the
// first digit has weight 10^exponent.
struct Decimal {
  bool negative = false;
  std::string digits;  // no leading zeros except for zero itself ("0")
  int exponent = 0;
};

// Parses the output of std::to_chars in scientific format ("-1.25e-05").
Decimal parse_scientific(std::string_view s) {
  Decimal d;
  if (!s.empty() && s.front() == '-') {
    d.negative = true;
    s.remove_prefix(1);
  }
  auto e = s.find('e');
  for (char c : s.substr(0, e))
    if (c != '.') d.digits += c;
  std::string_view exp = s.substr(e + 1);
  int sign = 1;
  if (exp.front() == '+' || exp.front() == '-') {
    sign = exp.front() == '-' ? -1 : 1;
    exp.remove_prefix(1);
  }
  int value = 0;
  std::from_chars(exp.data(), exp.data() + exp.size(), value);
  d.exponent = sign * value;
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// A float16 element as the formatting code computes with it: its float value, with every
// result of arithmetic rounded back to float16 (NumPy computes a float16 array's ratios in
// float16), and the shortest digits that round-trip in float16.
struct Float16Value {
  float f = 0;
  Float16Value(float v) : f(static_cast<float>(half_t(v))) {}  // NOLINT: a float16 number
  Float16Value(half_t h) : f(static_cast<float>(h)) {}         // NOLINT
  operator float() const { return f; }                         // NOLINT
};

// The shortest digits that round-trip in float16 (Dragon4's "unique" mode for float16):
// the fewest significant digits whose correctly rounded value reads back as the same half.
Decimal shortest(Float16Value v) {
  const std::uint16_t bits = half_t(v.f).bits;
  char buf[64];
  std::to_chars_result r{};
  for (int precision = 0; precision < 9; ++precision) {
    r = std::to_chars(buf, buf + sizeof buf, v.f, std::chars_format::scientific, precision);
    float back = 0;
    std::from_chars(buf, r.ptr, back);
    if (half_t(back).bits == bits) break;
  }
  return parse_scientific(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
}

// The shortest digits that round-trip in T (Dragon4's "unique" mode).
template <class T>
Decimal shortest(T v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return parse_scientific(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
}

// The exact value rounded (half to even) to `significant` digits.
template <class T>
Decimal rounded_significant(T v, int significant) {
  char buf[512];
  auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v),
                         std::chars_format::scientific, significant - 1);
  return parse_scientific(std::string_view(buf, static_cast<std::size_t>(r.ptr - buf)));
}

// The exact value rounded to `fraction` digits after the point.
template <class T>
Decimal rounded_fixed(T v, int fraction) {
  char buf[512];
  auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v), std::chars_format::fixed,
                         fraction);
  std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
  Decimal d;
  if (s.front() == '-') {
    d.negative = true;
    s.remove_prefix(1);
  }
  std::string all;
  std::size_t point = s.find('.');
  std::string_view int_part = s.substr(0, point);
  all += int_part;
  if (point != std::string_view::npos) all += s.substr(point + 1);
  int exponent = static_cast<int>(int_part.size()) - 1;
  std::size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) {
    d.digits = "0";
    d.exponent = 0;
    return d;
  }
  d.digits = all.substr(first);
  d.exponent = exponent - static_cast<int>(first);
  while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
  return d;
}

// NumPy's trim modes: 'k' keeps trailing zeros, '.' trims them but keeps the point,
// '0' keeps one zero after the point, '-' trims zeros and the point.
enum class Trim { keep, dot, one_zero, dot_zeros };

std::string finish_fraction(std::string frac, Trim trim, int min_digits) {
  if (trim != Trim::keep)
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
  if (static_cast<int>(frac.size()) < min_digits)
    frac.append(static_cast<std::size_t>(min_digits) - frac.size(), '0');
  if (frac.empty() && trim == Trim::one_zero) frac = "0";
  return frac;
}

std::string pad_left(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

// Dragon4 positional (np.format_float_positional with unique=True, fractional=True).
// `min_digits` -1 is NumPy's None: the unique digits, zero-padded up to the point. With
// `min_digits` >= 0 (as arrays pass), digits down to 10^-min_digits are exact.
template <class T>
std::string format_positional(T v, int precision, Trim trim, int min_digits = -1,
                              std::size_t left = 0, std::size_t right = 0, bool plus = false) {
  Decimal d = shortest(v);
  const int n = static_cast<int>(d.digits.size());
  // Digits after the point in the unique form; negative when it ends in integer zeros.
  const int frac_digits = n - 1 - d.exponent;
  if (d.digits != "0" && frac_digits > precision)
    d = rounded_fixed(v, precision);
  else if (d.digits != "0" && min_digits >= 0 && frac_digits < min_digits)
    d = rounded_fixed(v, min_digits);
  std::string int_part, frac;
  if (d.digits == "0") {
    int_part = "0";
  } else if (d.exponent >= 0) {
    const auto int_len = static_cast<std::size_t>(d.exponent) + 1;
    int_part = d.digits.substr(0, std::min(int_len, d.digits.size()));
    if (int_part.size() < int_len) int_part.append(int_len - int_part.size(), '0');
    if (d.digits.size() > int_len) frac = d.digits.substr(int_len);
  } else {
    int_part = "0";
    frac = std::string(static_cast<std::size_t>(-d.exponent - 1), '0') + d.digits;
  }
  if (d.negative || plus) int_part.insert(0, d.negative ? "-" : "+");
  frac = finish_fraction(std::move(frac), trim, min_digits);
  std::string out = pad_left(int_part, left);
  if (trim != Trim::dot_zeros || !frac.empty()) out += "." + frac;
  if (frac.size() < right) out.append(right - frac.size(), ' ');
  return out;
}

// Dragon4 scientific (np.format_float_scientific with unique=True).
template <class T>
std::string format_scientific(T v, int precision, Trim trim, int min_digits = -1,
                              std::size_t left = 0, int exp_digits = -1, bool plus = false) {
  Decimal d = shortest(v);
  // Past the unique digits, min_digits prints further exact digits (rounded), as Dragon4 does.
  const int frac_digits = static_cast<int>(d.digits.size()) - 1;
  if (frac_digits > precision)
    d = rounded_significant(v, precision + 1);
  else if (frac_digits < min_digits && d.digits != "0")
    d = rounded_significant(v, min_digits + 1);
  std::string int_part = d.digits.substr(0, 1);
  if (d.negative || plus) int_part.insert(0, d.negative ? "-" : "+");
  std::string frac =
      finish_fraction(d.digits.size() > 1 ? d.digits.substr(1) : std::string(), trim, min_digits);
  std::string out = pad_left(int_part, left);
  if (trim != Trim::dot_zeros || !frac.empty()) out += "." + frac;
  int exponent = d.digits == "0" ? 0 : d.exponent;
  std::string exp = std::to_string(std::abs(exponent));
  const auto width = static_cast<std::size_t>(exp_digits < 0 ? 2 : exp_digits);
  if (exp.size() < width) exp.insert(0, width - exp.size(), '0');
  return out + "e" + (exponent < 0 ? "-" : "+") + exp;
}

// str(np.float32(x)) / str(np.float64(x)).
template <class T>
std::string format_float_scalar(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  const T a = std::abs(v);
  // Compared in double, as NumPy's C code does (float(1e-4) is below 1e-4).
  const auto a_double = static_cast<double>(a);
  if (a == 0 || (a_double >= 1e-4 && a_double < 1e16))
    return format_positional(v, 1000, Trim::one_zero);
  return format_scientific(v, 1000, Trim::dot_zeros);
}

// bfloat16 values print as their float value with six significant digits (`%g`), as
// TensorFlow's and ml_dtypes' bfloat16 scalar types do; NumPy does not align them.
std::string format_bfloat16(bfloat16_t b) {
  const float f = static_cast<float>(b);
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::general, 6);
  return std::string(buf, static_cast<std::size_t>(r.ptr - buf));
}

// Python's repr of a bytes object: b'...' (or b"..." when the bytes hold ' but not ").
std::string bytes_repr(const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos;
  const bool has_double = s.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out = "b";
  out += quote;
  static const char* kHex = "0123456789abcdef";
  for (unsigned char c : s) {
    if (c == static_cast<unsigned char>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += quote;
  return out;
}

// -- element formatters (arrayprint's FloatingFormat, IntegerFormat, BoolFormat) -----------

using ElementFormatter = std::function<std::string(std::int64_t)>;

// NumPy's FloatingFormat in "maxprec" mode, set up from the values that will be shown.
// `plus` is NumPy's sign='+' (a complex number's imaginary parts); `keep` holds `data` alive
// for as long as the formatter lives.
template <class T>
ElementFormatter floating_format(const T* data, const std::vector<std::int64_t>& shown,
                                 bool plus = false, std::shared_ptr<const void> keep = {}) {
  std::vector<T> finite;
  bool has_non_finite = false, has_negative_inf = false;
  for (auto i : shown) {
    T v = data[i];
    if (std::isfinite(v)) {
      finite.push_back(v);
    } else {
      has_non_finite = true;
      has_negative_inf |= plus || (std::isinf(v) && v < 0);
    }
  }
  bool exp_format = false;
  {
    T max_val = 0, min_val = 0;
    bool any = false;
    for (T v : finite) {
      if (v == 0) continue;
      T a = std::abs(v);
      if (!any) {
        max_val = min_val = a;
        any = true;
      }
      max_val = std::max(max_val, a);
      min_val = std::min(min_val, a);
    }
    if (any)
      // The bounds are Python floats (compared in double, as with NumPy 1.x); the ratio is
      // computed in the array's type.
      exp_format = static_cast<double>(max_val) >= 1e8 || static_cast<double>(min_val) < 0.0001 ||
                   static_cast<double>(T(max_val / min_val)) > 1000.0;
  }
  std::size_t left = 0, right = 0;
  int precision = kPrecision, min_digits = 0, exp_size = -1;  // "maxprec": min_digits 0
  Trim trim = Trim::dot;
  if (finite.empty()) {
    // Only NaN and inf: nothing to align but their own widths.
  } else if (exp_format) {
    int max_frac = 0, max_exp = 0;
    for (T v : finite) {
      std::string s = format_scientific(v, kPrecision, Trim::dot, -1, 0, -1, plus);
      auto e = s.find('e'), point = s.find('.');
      left = std::max(left, point);
      max_frac = std::max(max_frac, static_cast<int>(e - point - 1));
      max_exp = std::max(max_exp, static_cast<int>(s.size() - e - 2));
    }
    exp_size = max_exp;
    trim = Trim::keep;
    precision = min_digits = max_frac;
    right = static_cast<std::size_t>(exp_size + 2 + precision);
  } else {
    for (T v : finite) {
      std::string s = format_positional(v, kPrecision, Trim::dot, -1, 0, 0, plus);
      auto point = s.find('.');
      left = std::max(left, point);
      right = std::max(right, s.size() - point - 1);
    }
  }
  if (has_non_finite) {
    const std::size_t offset = right + 1;
    const std::size_t inf_len = 3 + (has_negative_inf ? 1 : 0);
    if (3 > offset) left = std::max(left, 3 - offset);
    if (inf_len > offset) left = std::max(left, inf_len - offset);
  }
  // The init-capture keeps `keep` (and so `data`) alive with the formatter.
  return [=, keep = std::move(keep)](std::int64_t i) -> std::string {
    T v = data[i];
    if (!std::isfinite(v)) {
      const std::string sign = std::isinf(v) && v < 0 ? "-" : (plus ? "+" : "");
      return pad_left(sign + (std::isnan(v) ? "nan" : "inf"), left + right + 1);
    }
    if (exp_format) return format_scientific(v, precision, trim, min_digits, left, exp_size, plus);
    return format_positional(v, precision, trim, min_digits, left, right, plus);
  };
}

// NumPy's ComplexFloatingFormat: the real parts formatted together, the imaginary parts
// together with a sign, then "j" before the imaginary part's padding.
template <class R>
ElementFormatter complex_format(const std::complex<R>* data, std::int64_t n,
                                const std::vector<std::int64_t>& shown) {
  auto parts = std::make_shared<std::vector<R>>(2 * static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    (*parts)[static_cast<std::size_t>(i)] = data[i].real();
    (*parts)[static_cast<std::size_t>(n + i)] = data[i].imag();
  }
  ElementFormatter re = floating_format(parts->data(), shown, false, parts);
  ElementFormatter im = floating_format(parts->data() + n, shown, true, parts);
  return [re, im](std::int64_t i) {
    std::string imag = im(i);
    const std::size_t end = imag.find_last_not_of(' ') + 1;
    return re(i) + imag.insert(end, "j");
  };
}

// str(np.complex64(z)): "(re+imj)" in the shortest digits without a trailing ".0", or "imj"
// when the real part is +0.
template <class R>
std::string format_complex_scalar(std::complex<R> z) {
  auto part = [](R v, bool plus) -> std::string {
    if (std::isnan(v)) return plus ? "+nan" : "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : (plus ? "+inf" : "inf");
    const auto a = static_cast<double>(std::abs(v));
    if (a == 0 || (a >= 1e-4 && a < 1e16))
      return format_positional(v, 1000, Trim::dot_zeros, -1, 0, 0, plus);
    return format_scientific(v, 1000, Trim::dot_zeros, -1, 0, -1, plus);
  };
  if (z.real() == 0 && !std::signbit(z.real())) return part(z.imag(), false) + "j";
  return "(" + part(z.real(), false) + part(z.imag(), true) + "j)";
}

template <class T>
ElementFormatter integer_format(const T* data, const std::vector<std::int64_t>& shown) {
  auto str = [](T v) { return std::to_string(v); };  // int8 and uint8 promote to int
  std::size_t width = 0;
  if (!shown.empty()) {
    T lo = data[shown[0]], hi = data[shown[0]];
    for (auto i : shown) {
      lo = std::min(lo, data[i]);
      hi = std::max(hi, data[i]);
    }
    width = std::max(str(lo).size(), str(hi).size());
  }
  return [=](std::int64_t i) { return pad_left(str(data[i]), width); };
}

// -- layout (arrayprint's _formatArray) -----------------------------------------------------

struct Layout {
  const std::vector<std::int64_t>& dims;
  std::vector<std::int64_t> strides;
  bool summarize;
  const ElementFormatter& format;

  bool summarized(int axis) const { return summarize && 2 * kEdgeItems < dims[axis]; }

  // _extendLine: wraps before `word` when the line would pass `width` (and wrapping helps).
  static void extend_line(std::string& s, std::string& line, const std::string& word,
                          std::size_t width, const std::string& indent) {
    bool wrap = line.size() + word.size() > width;
    if (line.size() <= indent.size()) wrap = false;
    if (wrap) {
      auto end = line.find_last_not_of(' ');
      s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
      line = indent;
    }
    line += word;
  }

  std::string recurse(int axis, std::int64_t offset, const std::string& indent,
                      std::size_t width) const {
    const int rank = static_cast<int>(dims.size());
    if (axis == rank) return format(offset);
    const std::string next_indent = indent + " ";
    const std::size_t next_width = width - 1;
    const std::int64_t len = dims[axis];
    const bool summary = summarized(axis);
    const std::int64_t leading = summary ? kEdgeItems : 0;
    const std::int64_t trailing = summary ? kEdgeItems : len;
    auto child = [&](std::int64_t i) {
      return recurse(axis + 1, offset + i * strides[axis], next_indent, next_width);
    };
    std::string s;
    if (rank - axis == 1) {
      const std::size_t elem_width = width - 1;  // max(len(separator.rstrip()), len(']'))
      std::string line = indent;
      for (std::int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, child(i), elem_width, indent);
        line += " ";
      }
      if (summary) {
        extend_line(s, line, "...", elem_width, indent);
        line += " ";
      }
      for (std::int64_t i = trailing; i > 1; --i) {
        extend_line(s, line, child(len - i), elem_width, indent);
        line += " ";
      }
      extend_line(s, line, child(len - 1), elem_width, indent);
      s += line;
    } else {
      const std::string line_sep(static_cast<std::size_t>(rank - axis - 1), '\n');
      for (std::int64_t i = 0; i < leading; ++i) s += indent + child(i) + line_sep;
      if (summary) s += indent + "..." + line_sep;
      for (std::int64_t i = trailing; i > 1; --i) s += indent + child(len - i) + line_sep;
      s += indent + child(len - 1);
    }
    return "[" + s.substr(indent.size()) + "]";
  }

  // The flat offsets of the elements that will be printed (_leading_trailing).
  void collect(int axis, std::int64_t offset, std::vector<std::int64_t>& out) const {
    if (axis == static_cast<int>(dims.size())) {
      out.push_back(offset);
      return;
    }
    const std::int64_t len = dims[axis];
    for (std::int64_t i = 0; i < len; ++i) {
      if (summarized(axis) && i == kEdgeItems) i = len - kEdgeItems;
      collect(axis + 1, offset + i * strides[axis], out);
    }
  }
};

}  // namespace

std::string Tensor::to_string() const {
  if (!is_initialized()) return "<uninitialized>";
  if (dtype_ == DType::resource) return "<resource>";
  if (rank() == 0) {
    switch (dtype_) {
      case DType::float32:
        return format_float_scalar(*data<float>());
      case DType::float64:
        return format_float_scalar(*data<double>());
      case DType::bfloat16:
        return format_bfloat16(*data<bfloat16_t>());
      case DType::float16:
        return format_float_scalar(Float16Value(*data<half_t>()));
      case DType::complex64:
        return format_complex_scalar(*data<complex64_t>());
      case DType::complex128:
        return format_complex_scalar(*data<complex128_t>());
      case DType::int8:
        return std::to_string(*data<std::int8_t>());
      case DType::int16:
        return std::to_string(*data<std::int16_t>());
      case DType::uint16:
        return std::to_string(*data<std::uint16_t>());
      case DType::uint32:
        return std::to_string(*data<std::uint32_t>());
      case DType::uint64:
        return std::to_string(*data<std::uint64_t>());
      case DType::int32:
        return std::to_string(*data<std::int32_t>());
      case DType::int64:
        return std::to_string(*data<std::int64_t>());
      case DType::uint8:
        return std::to_string(*data<std::uint8_t>());
      case DType::boolean:
        return *data<bool>() ? "True" : "False";
      case DType::string:
        return bytes_repr(*data<std::string>());
      case DType::variant:
        return data<Variant>()->debug_string();
      default:
        return "<unprintable>";
    }
  }
  if (num_elements() == 0) return "[]";

  const auto& dims = shape_.dims();
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (int i = rank() - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  ElementFormatter format;
  Layout layout{dims, strides, num_elements() > kThreshold, format};
  std::vector<std::int64_t> shown;
  layout.collect(0, 0, shown);

  switch (dtype_) {
    case DType::float32:
      format = floating_format(data<float>(), shown);
      break;
    case DType::float64:
      format = floating_format(data<double>(), shown);
      break;
    case DType::int32:
      format = integer_format(data<std::int32_t>(), shown);
      break;
    case DType::int64:
      format = integer_format(data<std::int64_t>(), shown);
      break;
    case DType::uint8:
      format = integer_format(data<std::uint8_t>(), shown);
      break;
    case DType::int8:
      format = integer_format(data<std::int8_t>(), shown);
      break;
    case DType::int16:
      format = integer_format(data<std::int16_t>(), shown);
      break;
    case DType::uint16:
      format = integer_format(data<std::uint16_t>(), shown);
      break;
    case DType::uint32:
      format = integer_format(data<std::uint32_t>(), shown);
      break;
    case DType::uint64:
      format = integer_format(data<std::uint64_t>(), shown);
      break;
    case DType::float16: {
      const half_t* p = data<half_t>();
      auto values = std::make_shared<std::vector<Float16Value>>(p, p + num_elements());
      format = floating_format(values->data(), shown, false, values);
      break;
    }
    case DType::complex64:
      format = complex_format(data<complex64_t>(), num_elements(), shown);
      break;
    case DType::complex128:
      format = complex_format(data<complex128_t>(), num_elements(), shown);
      break;
    case DType::bfloat16: {
      const bfloat16_t* p = data<bfloat16_t>();
      format = [p](std::int64_t i) { return format_bfloat16(p[i]); };
      break;
    }
    case DType::boolean: {
      const bool* p = data<bool>();
      format = [p](std::int64_t i) -> std::string { return p[i] ? " True" : "False"; };
      break;
    }
    case DType::string: {
      const std::string* p = data<std::string>();
      format = [p](std::int64_t i) { return bytes_repr(p[i]); };
      break;
    }
    case DType::variant: {
      const Variant* p = data<Variant>();
      format = [p](std::int64_t i) { return p[i].debug_string(); };
      break;
    }
    default:
      return "<unprintable>";
  }
  // str(ndarray): no prefix, so continuation lines are indented by one space for "[".
  return layout.recurse(0, 0, " ", kLineWidth);
}

}  // namespace af
