#pragma once

// The CSV record splitter and the number parsers behind DecodeCSV, with TensorFlow 1.x's
// exact semantics (`decode_csv_op.cc`'s ExtractFields, `strings::safe_strto32/64/f/d`).
// Self-contained (standard library only) so that fuzz/csv_fuzzer.cpp compiles it alone.
#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace af::csv {

/// How records are split (DecodeCSV's `field_delim`, `use_quote_delim`, `select_cols`).
struct SplitOptions {
  char delim = ',';
  /// Fields starting with `"` are quoted (RFC 4180); when false, quotes are ordinary bytes.
  bool use_quote_delim = true;
  /// Columns to keep, strictly increasing and non-negative (the kernel checks); empty keeps
  /// all columns.
  std::vector<std::int64_t> select_cols;
};

/// Why a record could not be split. `split_error_message` gives TensorFlow's message.
enum class SplitError : std::uint8_t {
  none = 0,
  /// An unquoted field holds `"` (with quoting on), `\n` or `\r`.
  quote_in_unquoted_field,
  /// A quoted field holds a `"` that is neither doubled nor followed by the delimiter.
  unescaped_quote,
  /// A quoted field does not end with `"` followed by the delimiter or the record's end.
  unterminated_quoted_field,
};

/// TensorFlow's InvalidArgument message for `error` (empty for `none`).
std::string_view split_error_message(SplitError error) noexcept;

/// Reusable storage of one splitting thread: the fields of the last record split, and room
/// for quoted fields whose doubled quotes had to be collapsed.
struct SplitBuffers {
  std::vector<std::string_view> fields;
  std::vector<char> scratch;
};

/// Splits CSV records into fields exactly as TensorFlow's DecodeCSV does, quirks included:
/// `\n` and `\r` at the start of a field are skipped, a trailing delimiter adds an empty
/// last field, and with `select_cols` splitting stops after the last selected column (the
/// rest of the record is not validated).
///
/// Immutable after construction, so one splitter may serve many threads, each with its own
/// SplitBuffers. Splitting allocates only when a record is longer, or has more fields, than
/// any its buffers saw before.
class RecordSplitter {
 public:
  explicit RecordSplitter(SplitOptions options);

  /// Splits `record` into `buffers.fields` (the selected fields only, in order). The views
  /// point into `record` or `buffers.scratch` and stay valid until the next split with the
  /// same buffers. On error the fields are unspecified.
  SplitError split(std::string_view record, SplitBuffers& buffers) const;

  const SplitOptions& options() const noexcept { return options_; }

 private:
  SplitOptions options_;
  /// Bytes that end the scan of an unquoted field: the delimiter, `\n`, `\r`, and `"`
  /// when quoting is on.
  std::array<bool, 256> stops_unquoted_{};
};

/// `strings::safe_strto32`: optional spaces, optional `-`, decimal digits, optional spaces;
/// false on anything else or on overflow (no `+`, no hex).
bool parse_int32(std::string_view text, std::int32_t* value) noexcept;

/// `strings::safe_strto64`, as parse_int32 for 64 bits.
bool parse_int64(std::string_view text, std::int64_t* value) noexcept;

/// `strings::safe_strtof`: double-conversion's StringToFloat with leading and trailing
/// spaces, `0x` hex integers and case-insensitive `inf` / `nan` allowed. Decimal values are
/// correctly rounded; out-of-range values become +-inf or +-0; a text of spaces only is 0.
/// False for texts of 32 bytes or more, as TensorFlow's fixed buffer imposes.
bool parse_float(std::string_view text, float* value) noexcept;

/// `strings::safe_strtod`, as parse_float for double.
bool parse_double(std::string_view text, double* value) noexcept;

/// Parses a plain decimal number at `p` (`-?[0-9]+(\.[0-9]*)?`, or anything std::from_chars
/// takes in its general format) into `*value` and advances `p` past it; false, with `p`
/// unchanged, when no number starts there or it does not fit `T`. Values are exactly
/// std::from_chars's (correctly rounded). Short decimals, the common CSV field, take
/// Clinger's fast path: a mantissa of at most 24 (53) bits divided by an exactly
/// representable power of ten is one correctly rounded IEEE division. Integers of up to
/// 18 digits are summed directly.
template <class T>
inline bool parse_plain_number(const char*& p, const char* end, T* value) noexcept {
  const char* q = p;
  const bool negative = q != end && *q == '-';
  if (negative) ++q;
  const char* const digits = q;
  std::uint64_t m = 0;
  while (q != end && static_cast<unsigned char>(*q - '0') < 10)
    m = m * 10 + static_cast<unsigned>(*q++ - '0');
  std::size_t count = static_cast<std::size_t>(q - digits);
  if constexpr (std::is_integral_v<T>) {
    if (count > 0 && count <= 18 && (q == end || *q != '.')) {
      // Up to 18 digits cannot overflow uint64; range-check against T.
      using U = std::make_unsigned_t<T>;
      const std::uint64_t limit =
          static_cast<std::uint64_t>(std::numeric_limits<T>::max()) + (negative ? 1 : 0);
      if (m <= limit) {
        *value = negative ? static_cast<T>(U(0) - static_cast<U>(m)) : static_cast<T>(m);
        p = q;
        return true;
      }
    }
  } else {
    std::size_t fraction = 0;
    if (q != end && *q == '.') {
      const char* const f = ++q;
      while (q != end && static_cast<unsigned char>(*q - '0') < 10)
        m = m * 10 + static_cast<unsigned>(*q++ - '0');
      fraction = static_cast<std::size_t>(q - f);
      count += fraction;
    }
    constexpr std::uint64_t max_exact = std::uint64_t(1) << std::numeric_limits<T>::digits;
    constexpr std::size_t max_power = std::is_same_v<T, float> ? 10 : 22;
    if (count > 0 && count <= 19 && m <= max_exact && fraction <= max_power &&
        (q == end || (*q != 'e' && *q != 'E'))) {
      static constexpr T powers[] = {T(1e0),  T(1e1),  T(1e2),  T(1e3),  T(1e4),  T(1e5),
                                     T(1e6),  T(1e7),  T(1e8),  T(1e9),  T(1e10), T(1e11),
                                     T(1e12), T(1e13), T(1e14), T(1e15), T(1e16), T(1e17),
                                     T(1e18), T(1e19), T(1e20), T(1e21), T(1e22)};
      const T v = static_cast<T>(m) / powers[fraction];
      *value = negative ? -v : v;
      p = q;
      return true;
    }
  }
  auto [ptr, ec] = std::from_chars(p, end, *value);
  if (ec != std::errc()) return false;
  p = ptr;
  return true;
}

}  // namespace af::csv
