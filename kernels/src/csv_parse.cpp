#include "csv_parse.hpp"

#include <charconv>
#include <cstring>
#include <limits>
#include <system_error>
#include <utility>

namespace af::csv {

namespace {

// isspace in the "C" locale, which is also double-conversion's whitespace for ASCII.
constexpr bool is_space(char c) noexcept { return c == ' ' || (c >= '\t' && c <= '\r'); }
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_hex_digit(char c) noexcept {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// TensorFlow's kFastToBufferSize: safe_strtof/safe_strtod reject texts this long or longer.
constexpr std::size_t kFastToBufferSize = 32;

// The end of the run of decimal digits starting at `i`.
std::size_t skip_digits(std::string_view text, std::size_t i) noexcept {
  while (i < text.size() && is_digit(text[i])) ++i;
  return i;
}

// Case-insensitive equality with a lower-case ASCII word.
bool equals_lower(std::string_view text, std::string_view lower) noexcept {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (static_cast<char>(text[i] | 0x20) != lower[i]) return false;
  return true;
}

// True for double-conversion's decimal syntax without sign: digits, an optional fraction
// and an optional exponent, with at least one mantissa digit ("1.", ".5", "1.e5").
bool is_decimal(std::string_view r) noexcept {
  const std::size_t n = r.size();
  const std::size_t integer_end = skip_digits(r, 0);
  std::size_t i = integer_end;
  bool mantissa_digits = integer_end > 0;
  if (i < n && r[i] == '.') {
    const std::size_t fraction_end = skip_digits(r, i + 1);
    mantissa_digits = mantissa_digits || fraction_end > i + 1;
    i = fraction_end;
  }
  if (!mantissa_digits) return false;
  if (i < n && (r[i] == 'e' || r[i] == 'E')) {
    ++i;
    if (i < n && (r[i] == '+' || r[i] == '-')) ++i;
    if (i >= n || !is_digit(r[i])) return false;
    i = skip_digits(r, i);
  }
  return i == n;
}

// For a valid decimal (is_decimal) that from_chars found out of range: true when it is too
// large (the value rounds to infinity), false when it is too small (it rounds to zero).
bool decimal_overflows(std::string_view r) noexcept {
  // The value is 0.d1d2... * 10^(scale + exponent) with d1 its first non-zero digit.
  long scale = 0;
  bool nonzero_seen = false;
  std::size_t i = 0;
  const std::size_t n = r.size();
  for (; i < n && is_digit(r[i]); ++i) {
    if (!nonzero_seen && r[i] == '0') continue;
    nonzero_seen = true;
    ++scale;
  }
  if (i < n && r[i] == '.')
    for (++i; i < n && is_digit(r[i]); ++i) {
      if (nonzero_seen) continue;
      if (r[i] == '0')
        --scale;
      else
        nonzero_seen = true;
    }
  long exponent = 0;
  if (i < n && (r[i] == 'e' || r[i] == 'E')) {
    ++i;
    const bool negative = i < n && r[i] == '-';
    if (i < n && (r[i] == '+' || r[i] == '-')) ++i;
    for (; i < n && is_digit(r[i]); ++i)
      if (exponent < 1'000'000) exponent = exponent * 10 + (r[i] - '0');
    if (negative) exponent = -exponent;
  }
  return scale + exponent > 0;
}

template <class T>
bool parse_floating(std::string_view text, T* value) noexcept {
  if (text.empty() || text.size() >= kFastToBufferSize) return false;
  std::size_t begin = 0, end = text.size();
  while (begin < end && is_space(text[begin])) ++begin;
  if (begin == end) {
    // double-conversion's empty_string_value, with the spaces counted as processed.
    *value = T(0);
    return true;
  }
  while (is_space(text[end - 1])) --end;
  bool negative = false;
  if (text[begin] == '+' || text[begin] == '-') {
    negative = text[begin] == '-';
    if (++begin == end) return false;
  }
  const std::string_view body = text.substr(begin, end - begin);
  T result{};
  const char first = static_cast<char>(body[0] | 0x20);
  if (first == 'i') {
    if (!equals_lower(body, "inf")) return false;
    result = std::numeric_limits<T>::infinity();
  } else if (first == 'n') {
    if (!equals_lower(body, "nan")) return false;
    result = std::numeric_limits<T>::quiet_NaN();
  } else if (body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    // Hexadecimal integers only (ALLOW_HEX without ALLOW_HEX_FLOATS), rounded to nearest.
    const std::string_view digits = body.substr(2);
    if (digits.empty()) return false;
    for (char c : digits)
      if (!is_hex_digit(c)) return false;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result,
                                     std::chars_format::hex);
    if (ec == std::errc::result_out_of_range)
      result = std::numeric_limits<T>::infinity();
    else if (ec != std::errc() || ptr != digits.data() + digits.size())
      return false;
  } else {
    if (!is_decimal(body)) return false;
    auto [ptr, ec] =
        std::from_chars(body.data(), body.data() + body.size(), result, std::chars_format::general);
    if (ec == std::errc::result_out_of_range)
      result = decimal_overflows(body) ? std::numeric_limits<T>::infinity() : T(0);
    else if (ec != std::errc() || ptr != body.data() + body.size())
      return false;
  }
  *value = negative ? -result : result;
  return true;
}

}  // namespace

std::string_view split_error_message(SplitError error) noexcept {
  switch (error) {
    case SplitError::none:
      return {};
    case SplitError::quote_in_unquoted_field:
      return "Unquoted fields cannot have quotes/CRLFs inside";
    case SplitError::unescaped_quote:
      return "Quote inside a string has to be escaped by another quote";
    case SplitError::unterminated_quoted_field:
      return "Quoted field has to end with quote followed by delim or end";
  }
  return {};
}

RecordSplitter::RecordSplitter(SplitOptions options) : options_(std::move(options)) {
  stops_unquoted_[static_cast<unsigned char>(options_.delim)] = true;
  stops_unquoted_[static_cast<unsigned char>('\n')] = true;
  stops_unquoted_[static_cast<unsigned char>('\r')] = true;
  if (options_.use_quote_delim) stops_unquoted_[static_cast<unsigned char>('"')] = true;
}

SplitError RecordSplitter::split(std::string_view record, SplitBuffers& buffers) const {
  auto& fields = buffers.fields;
  fields.clear();
  const std::size_t n = record.size();
  if (n == 0) return SplitError::none;
  // Collapsing doubled quotes never makes a field longer, so `n` bytes hold every field of
  // the record and the views into scratch stay valid while it fills.
  if (buffers.scratch.size() < n) buffers.scratch.resize(n);
  char* const scratch = buffers.scratch.data();
  std::size_t scratch_used = 0;
  const char* const p = record.data();
  const char delim = options_.delim;
  const std::vector<std::int64_t>& select = options_.select_cols;
  const bool select_all = select.empty();
  std::size_t selector = 0;
  std::int64_t parsed = 0;
  std::size_t i = 0;
  while (i < n) {
    if (p[i] == '\n' || p[i] == '\r') {
      ++i;
      continue;
    }
    const bool include = select_all || select[selector] == parsed;
    std::string_view field;
    if (options_.use_quote_delim && p[i] == '"') {
      ++i;
      // The field ends at a quote followed by the delimiter, or at the last byte; a doubled
      // quote stands for one. Bytes are copied to scratch only once a doubled quote shows up.
      std::size_t pending = i;  // first byte not yet copied to scratch
      const std::size_t scratch_begin = scratch_used;
      bool in_scratch = false;
      while (i < n - 1) {
        const void* quote = std::memchr(p + i, '"', n - 1 - i);
        if (quote == nullptr) {
          i = n - 1;
          break;
        }
        i = static_cast<std::size_t>(static_cast<const char*>(quote) - p);
        if (p[i + 1] == delim) break;
        if (p[i + 1] != '"') return SplitError::unescaped_quote;
        if (include) {
          std::memcpy(scratch + scratch_used, p + pending, i + 1 - pending);
          scratch_used += i + 1 - pending;
          in_scratch = true;
        }
        i += 2;
        pending = i;
      }
      if (!(i < n && p[i] == '"' && (i == n - 1 || p[i + 1] == delim)))
        return SplitError::unterminated_quoted_field;
      if (include) {
        if (in_scratch) {
          std::memcpy(scratch + scratch_used, p + pending, i - pending);
          scratch_used += i - pending;
          field = std::string_view(scratch + scratch_begin, scratch_used - scratch_begin);
        } else {
          field = record.substr(pending, i - pending);
        }
      }
      i += 2;
    } else {
      const std::size_t start = i;
      while (i < n && !stops_unquoted_[static_cast<unsigned char>(p[i])]) ++i;
      if (i < n && p[i] != delim) return SplitError::quote_in_unquoted_field;
      if (include) field = record.substr(start, i - start);
      ++i;
    }
    ++parsed;
    if (include) {
      fields.push_back(field);
      if (++selector == select.size()) return SplitError::none;
    }
  }
  // A record ending with the delimiter has an empty last field.
  const bool include = select_all || select[selector] == parsed;
  if (include && p[n - 1] == delim) fields.emplace_back();
  return SplitError::none;
}

bool parse_int32(std::string_view text, std::int32_t* value) noexcept {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n && is_space(text[i])) ++i;
  const bool negative = i < n && text[i] == '-';
  if (negative) ++i;
  if (i >= n || !is_digit(text[i])) return false;
  const std::int64_t limit = negative ? std::int64_t{1} << 31 : (std::int64_t{1} << 31) - 1;
  std::int64_t result = 0;
  do {
    result = result * 10 + (text[i] - '0');
    if (result > limit) return false;
    ++i;
  } while (i < n && is_digit(text[i]));
  while (i < n && is_space(text[i])) ++i;
  if (i != n) return false;
  *value = static_cast<std::int32_t>(negative ? -result : result);
  return true;
}

bool parse_int64(std::string_view text, std::int64_t* value) noexcept {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n && is_space(text[i])) ++i;
  const bool negative = i < n && text[i] == '-';
  if (negative) ++i;
  if (i >= n || !is_digit(text[i])) return false;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  std::uint64_t result = 0;
  do {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (result > (limit - digit) / 10) return false;
    result = result * 10 + digit;
    ++i;
  } while (i < n && is_digit(text[i]));
  while (i < n && is_space(text[i])) ++i;
  if (i != n) return false;
  *value = negative ? static_cast<std::int64_t>(0 - result) : static_cast<std::int64_t>(result);
  return true;
}

bool parse_float(std::string_view text, float* value) noexcept {
  return parse_floating(text, value);
}

bool parse_double(std::string_view text, double* value) noexcept {
  return parse_floating(text, value);
}

}  // namespace af::csv
