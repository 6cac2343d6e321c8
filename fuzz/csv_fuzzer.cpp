// libFuzzer target for DecodeCSV's record splitter and number parsers
// (kernels/src/csv_parse.cpp). Besides looking for crashes and sanitizer reports, it
// compares the splitter and the integer parsers with literal transcriptions of TensorFlow's
// code (decode_csv_op.cc's ExtractFields, numbers.cc's safe_strto32/64) and aborts on any
// difference. Built with ACTORFLOW_FUZZ_DOUBLE_CONVERSION (and linked with
// libdouble-conversion), it also compares the float parsers with double-conversion
// configured as TensorFlow's safe_strtof/safe_strtod configure it.
//
// Input: byte 0 picks the options (bit 0: use_quote_delim; bits 1-3: the delimiter; bit 4:
// select columns), byte 1 is a bitmask of the selected columns 0-7, the rest is the record.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "csv_parse.hpp"

#ifdef ACTORFLOW_FUZZ_DOUBLE_CONVERSION
#include <double-conversion/double-conversion.h>
#endif

namespace {

using af::csv::SplitError;

// -- references: TensorFlow's code, transcribed ----------------------------------------

// decode_csv_op.cc ExtractFields; the OP_REQUIRES become error returns.
SplitError reference_split(std::string_view input, char delim, bool use_quote_delim,
                           const std::vector<std::int64_t>& select_cols,
                           std::vector<std::string>* result) {
  const bool select_all_cols = select_cols.empty();
  std::int64_t current_idx = 0;
  std::int64_t num_fields_parsed = 0;
  std::size_t selector_idx = 0;
  if (input.empty()) return SplitError::none;
  while (static_cast<std::size_t>(current_idx) < input.size()) {
    if (input[current_idx] == '\n' || input[current_idx] == '\r') {
      current_idx++;
      continue;
    }
    bool quoted = false;
    const bool include = select_all_cols || select_cols[selector_idx] == num_fields_parsed;
    if (use_quote_delim && input[current_idx] == '"') {
      quoted = true;
      current_idx++;
    }
    std::string field;
    if (!quoted) {
      while (static_cast<std::size_t>(current_idx) < input.size() && input[current_idx] != delim) {
        if (!((!use_quote_delim || input[current_idx] != '"') && input[current_idx] != '\n' &&
              input[current_idx] != '\r'))
          return SplitError::quote_in_unquoted_field;
        if (include) field += input[current_idx];
        current_idx++;
      }
      current_idx++;
    } else {
      while ((static_cast<std::size_t>(current_idx) < input.size() - 1) &&
             (input[current_idx] != '"' || input[current_idx + 1] != delim)) {
        if (input[current_idx] != '"') {
          if (include) field += input[current_idx];
          current_idx++;
        } else {
          if (input[current_idx + 1] != '"') return SplitError::unescaped_quote;
          if (include) field += '"';
          current_idx += 2;
        }
      }
      if (!(static_cast<std::size_t>(current_idx) < input.size() && input[current_idx] == '"' &&
            (static_cast<std::size_t>(current_idx) == input.size() - 1 ||
             input[current_idx + 1] == delim)))
        return SplitError::unterminated_quoted_field;
      current_idx += 2;
    }
    num_fields_parsed++;
    if (include) {
      result->push_back(field);
      selector_idx++;
      if (selector_idx == select_cols.size()) return SplitError::none;
    }
  }
  const bool include = select_all_cols || select_cols[selector_idx] == num_fields_parsed;
  if (include && input[input.size() - 1] == delim) result->push_back(std::string());
  return SplitError::none;
}

char first_char(std::string_view s) { return s.empty() ? '\0' : s[0]; }
bool c_isdigit(char c) { return c >= '0' && c <= '9'; }
bool c_isspace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
void skip_spaces(std::string_view* s) {
  while (c_isspace(first_char(*s))) s->remove_prefix(1);
}

// numbers.cc safe_strto32.
bool reference_strto32(std::string_view str, std::int32_t* value) {
  skip_spaces(&str);
  std::int64_t vmax = 2147483647;
  int sign = 1;
  if (!str.empty() && str[0] == '-') {
    str.remove_prefix(1);
    sign = -1;
    ++vmax;
  }
  if (!c_isdigit(first_char(str))) return false;
  std::int64_t result = 0;
  do {
    result = result * 10 + first_char(str) - '0';
    if (result > vmax) return false;
    str.remove_prefix(1);
  } while (c_isdigit(first_char(str)));
  skip_spaces(&str);
  if (!str.empty()) return false;
  *value = static_cast<std::int32_t>(result * sign);
  return true;
}

// numbers.cc safe_strto64.
bool reference_strto64(std::string_view str, std::int64_t* value) {
  skip_spaces(&str);
  std::int64_t vlimit = INT64_MAX;
  int sign = 1;
  if (!str.empty() && str[0] == '-') {
    str.remove_prefix(1);
    sign = -1;
    vlimit = INT64_MIN;
  }
  if (!c_isdigit(first_char(str))) return false;
  std::int64_t result = 0;
  if (sign == 1) {
    do {
      int digit = first_char(str) - '0';
      if ((vlimit - digit) / 10 < result) return false;
      result = result * 10 + digit;
      str.remove_prefix(1);
    } while (c_isdigit(first_char(str)));
  } else {
    do {
      int digit = first_char(str) - '0';
      if ((vlimit + digit) / 10 > result) return false;
      result = result * 10 - digit;
      str.remove_prefix(1);
    } while (c_isdigit(first_char(str)));
  }
  skip_spaces(&str);
  if (!str.empty()) return false;
  *value = result;
  return true;
}

[[noreturn]] void mismatch(const char* what, std::string_view input) {
  std::fprintf(stderr, "csv_fuzzer: %s differs from TensorFlow's for input of %zu bytes: ", what,
               input.size());
  for (unsigned char c : input) std::fprintf(stderr, "\\x%02x", c);
  std::fprintf(stderr, "\n");
  std::abort();
}

#ifdef ACTORFLOW_FUZZ_DOUBLE_CONVERSION
const double_conversion::StringToDoubleConverter& tensorflow_converter() {
  using C = double_conversion::StringToDoubleConverter;
  static const C converter(C::ALLOW_LEADING_SPACES | C::ALLOW_HEX | C::ALLOW_TRAILING_SPACES |
                               C::ALLOW_CASE_INSENSIBILITY,
                           0., 0., "inf", "nan");
  return converter;
}

bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

void check_floats(std::string_view text) {
  int processed = -1;
  const bool fits = text.size() < 32;
  float expected_f = 0;
  double expected_d = 0;
  bool ok_f = false, ok_d = false;
  if (fits) {
    expected_f = tensorflow_converter().StringToFloat(text.data(), static_cast<int>(text.size()),
                                                      &processed);
    ok_f = processed > 0;
    expected_d = tensorflow_converter().StringToDouble(text.data(), static_cast<int>(text.size()),
                                                       &processed);
    ok_d = processed > 0;
  }
  float f = 0;
  double d = 0;
  if (af::csv::parse_float(text, &f) != ok_f || (ok_f && !same_value(f, expected_f)))
    mismatch("parse_float", text);
  if (af::csv::parse_double(text, &d) != ok_d || (ok_d && !same_value(d, expected_d)))
    mismatch("parse_double", text);
}
#else
void check_floats(std::string_view text) {
  float f = 0;
  double d = 0;
  const bool ok_f = af::csv::parse_float(text, &f);
  const bool ok_d = af::csv::parse_double(text, &d);
  // Both accept the same syntax; only the range differs.
  if (ok_f != ok_d) mismatch("parse_float vs parse_double acceptance", text);
}
#endif

// parse_plain_number (DecodeCSV's one-pass path) must agree with std::from_chars on the
// value's bits and on where the number ends.
template <class T>
void check_plain(std::string_view text) {
  const char* const end = text.data() + text.size();
  const char* p = text.data();
  T value{}, expected{};
  const bool ok = af::csv::parse_plain_number(p, end, &value);
  auto [ptr, ec] = std::from_chars(text.data(), end, expected);
  if (ok != (ec == std::errc())) mismatch("parse_plain_number result", text);
  if (ok && (p != ptr || std::memcmp(&value, &expected, sizeof(T)) != 0))
    mismatch("parse_plain_number value", text);
}

void check_numbers(std::string_view text) {
  check_plain<float>(text);
  check_plain<double>(text);
  check_plain<std::int32_t>(text);
  check_plain<std::int64_t>(text);
  std::int32_t i32 = 0, r32 = 0;
  const bool ok32 = af::csv::parse_int32(text, &i32);
  if (ok32 != reference_strto32(text, &r32) || (ok32 && i32 != r32)) mismatch("parse_int32", text);
  std::int64_t i64 = 0, r64 = 0;
  const bool ok64 = af::csv::parse_int64(text, &i64);
  if (ok64 != reference_strto64(text, &r64) || (ok64 && i64 != r64)) mismatch("parse_int64", text);
  check_floats(text);
}

constexpr char kDelimiters[8] = {',', '\t', '|', ';', ' ', '"', '\n', 'a'};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t flags = data[0];
  const std::uint8_t column_mask = data[1];
  const std::string_view record(reinterpret_cast<const char*>(data + 2), size - 2);

  af::csv::SplitOptions options;
  options.use_quote_delim = (flags & 1) != 0;
  options.delim = kDelimiters[(flags >> 1) & 7];
  if ((flags & 0x10) != 0)
    for (int c = 0; c < 8; ++c)
      if ((column_mask >> c) & 1) options.select_cols.push_back(c);

  // A fresh buffer per input, so that ASan sees reads past the record or stale scratch.
  const std::string owned(record);
  const af::csv::RecordSplitter splitter(options);
  af::csv::SplitBuffers buffers;
  const SplitError error = splitter.split(owned, buffers);
  std::vector<std::string> expected;
  const SplitError expected_error = reference_split(owned, options.delim, options.use_quote_delim,
                                                    options.select_cols, &expected);
  if (error != expected_error) mismatch("split error", record);
  if (error == SplitError::none) {
    if (buffers.fields.size() != expected.size()) mismatch("field count", record);
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (buffers.fields[i] != expected[i]) mismatch("field", record);
    // Reusing the buffers gives the same fields.
    const std::vector<std::string_view> first(buffers.fields.begin(), buffers.fields.end());
    std::vector<std::string> copies(first.begin(), first.end());
    if (splitter.split(owned, buffers) != SplitError::none ||
        buffers.fields.size() != copies.size())
      mismatch("second split", record);
    for (std::size_t i = 0; i < copies.size(); ++i)
      if (buffers.fields[i] != copies[i]) mismatch("second split field", record);
    for (auto field : buffers.fields) check_numbers(field);
  }
  check_numbers(record);
  return 0;
}
