// Numbers to strings and strings to numbers and buckets: AsString, StringToNumber,
// StringToHashBucket and StringToHashBucketStrong. CPU kernels with TensorFlow's semantics
// and messages (as_string_op.cc, string_to_number_op.cc with tsl's numbers.cc and absl's
// SimpleAtoi/SimpleAtof, string_to_hash_bucket_op.cc with lib/hash/hash.cc Hash64 and
// highwayhash's SipHash-2-4). Their definitions are in ops/src/defs/string_ops.cpp;
// StringToHashBucketFast is in string_hash_ops.cpp.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "tf_hash.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

bool ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view strip_ascii_space(std::string_view s) {
  while (!s.empty() && ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

// -- AsString -----------------------------------------------------------------------------

// AsString: each element printed as absl::StrFormat("%<fill>*.*<conv>", width, precision, v)
// (printf's conversions: d for signed, u for unsigned integers; f, e or g for floats, bfloat16
// through float; s for strings, a string passed through when no width is set); bools print
// "true" and "false" whatever the width.
class AsStringOp : public OpKernel {
 public:
  AsStringOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = init(c); }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (dtype_ == DType::string && width_ <= 0) {
      ctx.set_output(0, input);
      return;
    }
    Tensor& out = ctx.allocate_output(0, DType::string, input.shape());
    std::string* o = out.data<std::string>();
    const Index n = input.num_elements();
    switch (dtype_) {
      case DType::boolean:
        for (Index i = 0; i < n; ++i) o[i] = input.data<bool>()[i] ? "true" : "false";
        break;
      case DType::string:
        for (Index i = 0; i < n; ++i) o[i] = format_string(input.data<std::string>()[i]);
        break;
      case DType::float32:
        for (Index i = 0; i < n; ++i) o[i] = print(static_cast<double>(input.data<float>()[i]));
        break;
      case DType::float64:
        for (Index i = 0; i < n; ++i) o[i] = print(input.data<double>()[i]);
        break;
      case DType::bfloat16:
        for (Index i = 0; i < n; ++i)
          o[i] = print(static_cast<double>(static_cast<float>(input.data<bfloat16_t>()[i])));
        break;
      case DType::int32:
        for (Index i = 0; i < n; ++i) o[i] = print(input.data<std::int32_t>()[i]);
        break;
      case DType::int64:
        for (Index i = 0; i < n; ++i)
          o[i] = print(static_cast<long long>(input.data<std::int64_t>()[i]));
        break;
      case DType::uint8:
        for (Index i = 0; i < n; ++i)
          o[i] = print(static_cast<unsigned>(input.data<std::uint8_t>()[i]));
        break;
      default:
        ctx.fail(invalid_argument("Cannot encode input of type " +
                                  std::string(data_type_string(dtype_))));
    }
  }

 private:
  Status init(OpKernelConstruction& c) {
    bool scientific = false, shortest = false;
    std::string fill;
    std::int64_t precision = -1, width = -1;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &dtype_));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("precision", &precision));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("scientific", &scientific));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("shortest", &shortest));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("width", &width));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("fill", &fill));
    precision_ = static_cast<int>(precision);
    width_ = static_cast<int>(width);
    const bool floating =
        dtype_ == DType::float32 || dtype_ == DType::float64 || dtype_ == DType::bfloat16;
    const std::string type_name(data_type_string(dtype_));
    if (dtype_ != DType::string && !floating) {
      if (scientific || shortest)
        return invalid_argument("scientific and shortest format not supported for datatype " +
                                type_name);
      if (precision_ >= 0)
        return invalid_argument("precision not supported for datatype " + type_name);
    }
    if (fill.size() > 1) return invalid_argument("Fill string must be one or fewer characters");
    if (scientific && shortest)
      return invalid_argument("Cannot select both scientific and shortest notation");
    if (!fill.empty() && std::string_view(" +-0#").find(fill[0]) == std::string_view::npos)
      return invalid_argument("Fill argument not supported: \"" + fill + "\"");
    fill_ = fill;
    if (width_ <= -1) width_ = 0;
    char conversion = 'd';
    switch (dtype_) {
      case DType::string:
      case DType::boolean:
        return {};
      case DType::uint8:
        conversion = 'u';
        break;
      case DType::int32:
        break;
      case DType::int64:
        format_ = "%" + fill_ + "*.*lld";
        return {};
      default:
        if (!floating)
          return invalid_argument("Type not supported: " + std::string(data_type_string(dtype_)));
        conversion = shortest ? 'g' : scientific ? 'e' : 'f';
    }
    format_ = "%" + fill_ + "*.*" + conversion;
    return {};
  }

  template <class V>
  std::string print(V value) const {
    char small[64];
    const int n = std::snprintf(small, sizeof small, format_.c_str(), width_, precision_, value);
    if (n < static_cast<int>(sizeof small)) return std::string(small, static_cast<std::size_t>(n));
    std::string out(static_cast<std::size_t>(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), format_.c_str(), width_, precision_, value);
    out.resize(static_cast<std::size_t>(n));
    return out;
  }

  // "%*.*s" of a string (which may hold NULs): the first `precision` bytes, padded to `width`
  // with spaces, on the right with the '-' flag (the other flags do not apply to strings).
  std::string format_string(const std::string& s) const {
    std::string out = precision_ >= 0 && static_cast<std::size_t>(precision_) < s.size()
                          ? s.substr(0, static_cast<std::size_t>(precision_))
                          : s;
    if (out.size() < static_cast<std::size_t>(width_)) {
      const std::string pad(static_cast<std::size_t>(width_) - out.size(), ' ');
      out = fill_ == "-" ? out + pad : pad + out;
    }
    return out;
  }

  DType dtype_ = DType::invalid;
  int precision_ = -1;
  int width_ = -1;
  std::string fill_;
  std::string format_;
};

// -- StringToNumber -----------------------------------------------------------------------

// absl::SimpleAtoi: ASCII whitespace around an optional sign and decimal digits; false on
// overflow (and for a '-' before an unsigned number).
template <class T>
bool parse_integer(std::string_view s, T* out) {
  s = strip_ascii_space(s);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  if (std::is_unsigned_v<T> && negative) return false;
  T value = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const T digit = static_cast<T>(c - '0');
    if (negative) {
      if (value < (std::numeric_limits<T>::min() + digit) / 10) return false;
      value = static_cast<T>(value * 10 - digit);
    } else {
      if (value > (std::numeric_limits<T>::max() - digit) / 10) return false;
      value = static_cast<T>(value * 10 + digit);
    }
  }
  *out = value;
  return true;
}

// absl::SimpleAtof / SimpleAtod: ASCII whitespace around a number absl::from_chars reads
// whole: an optional '+' (not before '-') or '-', then decimal (".5", "5.", "1e5"), hex after
// "0x" ("0x1.8p3"), or inf, infinity, nan, nan(...) in any case. Overflow gives an infinity,
// underflow zero or a subnormal.
template <class T>
bool parse_float(std::string_view s, T* out) {
  s = strip_ascii_space(s);
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return false;
  }
  bool negative = false;
  if (!s.empty() && s.front() == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  auto format = std::chars_format::general;
  std::string_view digits = s;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    format = std::chars_format::hex;
    digits.remove_prefix(2);
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) return false;
  } else if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
    return false;
  }
  T value = 0;
  const auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), value, format);
  if (ec == std::errc::invalid_argument || ptr != digits.data() + digits.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves the value unset; strtod/strtof give the infinity or the underflow.
    const std::string copy = (format == std::chars_format::hex ? "0x" : "") + std::string(digits);
    if constexpr (std::is_same_v<T, float>)
      value = std::strtof(copy.c_str(), nullptr);
    else
      value = std::strtod(copy.c_str(), nullptr);
  }
  *out = negative ? -value : value;
  return true;
}

// StringToNumber: each string parsed as out_type; "StringToNumberOp could not correctly
// convert string: <string>" for one that does not parse whole.
template <class T>
class StringToNumberOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, input.shape());
    for (Index i = 0; i < input.num_elements(); ++i) {
      const std::string& s = input.data<std::string>()[i];
      bool ok = false;
      if constexpr (std::is_floating_point_v<T>)
        ok = parse_float(s, &out.data<T>()[i]);
      else
        ok = parse_integer(s, &out.data<T>()[i]);
      // TensorFlow's message prints the string's c_str(): up to a NUL.
      if (!ok)
        return invalid_argument("StringToNumberOp could not correctly convert string: " +
                                std::string(s.c_str()));
    }
    return {};
  }
};

// -- StringToHashBucket and StringToHashBucketStrong --------------------------------------

std::uint64_t rotl(std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

// SipHash-2-4 of `s` under the 128-bit key {k0, k1} (TensorFlow's StrongKeyedHash through
// highwayhash's SipHashState).
std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, const std::string& s) {
  std::uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
  std::uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
  auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  };
  const char* data = s.data();
  std::size_t n = s.size();
  for (; n >= 8; n -= 8, data += 8) {
    const std::uint64_t m = detail::load_le64(data);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  std::uint64_t last = static_cast<std::uint64_t>(s.size() & 0xff) << 56;
  for (std::size_t j = 0; j < n; ++j)
    last |= static_cast<std::uint64_t>(static_cast<unsigned char>(data[j])) << (8 * j);
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int k = 0; k < 4; ++k) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

// StringToHashBucket (Hash64) and StringToHashBucketStrong (SipHash-2-4 keyed by the two
// int64s of attr key): the hash modulo num_buckets, as int64.
class StringToHashBucketOp : public OpKernel {
 public:
  StringToHashBucketOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    strong_ = c.def.op == "StringToHashBucketStrong";
    *s = c.get_attr("num_buckets", &num_buckets_);
    if (!s->ok() || !strong_) return;
    std::vector<std::int64_t> key;
    *s = c.get_attr("key", &key);
    if (!s->ok()) return;
    if (key.size() != 2) {
      *s = invalid_argument("Key must have 2 elements");
      return;
    }
    key_[0] = static_cast<std::uint64_t>(key[0]);
    key_[1] = static_cast<std::uint64_t>(key[1]);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 4096;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output_for_overwrite(0, DType::int64, input.shape());
    const std::string* in = input.data<std::string>();
    const auto buckets = static_cast<std::uint64_t>(num_buckets_);
    for (Index i = 0; i < input.num_elements(); ++i) {
      const std::uint64_t h =
          strong_ ? siphash24(key_[0], key_[1], in[i]) : detail::tf_hash64(in[i]);
      out.data<std::int64_t>()[i] = static_cast<std::int64_t>(h % buckets);
    }
  }

 private:
  bool strong_ = false;
  std::int64_t num_buckets_ = 1;
  std::uint64_t key_[2] = {0, 0};
};

}  // namespace

namespace detail {

void register_string_conversion_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<AsStringOp>(
      "AsString", "CPU",
      {{"T",
        {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8, DType::bfloat16,
         DType::boolean, DType::string}}}));
  r.add(make_kernel_def<StringToNumberOp<float>>("StringToNumber", "CPU",
                                                 {{"out_type", {DType::float32}}}));
  r.add(make_kernel_def<StringToNumberOp<double>>("StringToNumber", "CPU",
                                                  {{"out_type", {DType::float64}}}));
  r.add(make_kernel_def<StringToNumberOp<std::int32_t>>("StringToNumber", "CPU",
                                                        {{"out_type", {DType::int32}}}));
  r.add(make_kernel_def<StringToNumberOp<std::int64_t>>("StringToNumber", "CPU",
                                                        {{"out_type", {DType::int64}}}));
  r.add(make_kernel_def<StringToNumberOp<std::uint32_t>>("StringToNumber", "CPU",
                                                         {{"out_type", {DType::uint32}}}));
  r.add(make_kernel_def<StringToNumberOp<std::uint64_t>>("StringToNumber", "CPU",
                                                         {{"out_type", {DType::uint64}}}));
  r.add(make_kernel_def<StringToHashBucketOp>("StringToHashBucket", "CPU"));
  r.add(make_kernel_def<StringToHashBucketOp>("StringToHashBucketStrong", "CPU"));
}

}  // namespace detail

}  // namespace af
