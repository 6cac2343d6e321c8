// The string ops of TensorFlow 1.x input pipelines: StringSplit, StringSplitV2, Substr,
// StringLength, StringStrip, StringLower, StringUpper, ReduceJoin, EncodeBase64 and
// DecodeBase64. CPU kernels with TensorFlow's semantics and messages (string_split_op.cc,
// substr_op.cc, string_util.h, string_length_op.cc, string_strip_op.cc, string_lower_op.cc,
// string_upper_op.cc, reduce_join_op.cc, base64_ops.cc and lib/strings/base64.cc). Their
// definitions are in ops/src/defs/string_ops.cpp; AsString, StringToNumber and the hash buckets
// are in string_conversion_ops.cpp, the regular expressions in regex_ops.cpp.
#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// absl::ascii_isspace: what StringStrip, StringSplitV2 (no separator) and the number parsers
// take for whitespace.
bool ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// -- StringSplit and StringSplitV2 ----------------------------------------------------------

// str_util::Split: `str` cut at every byte of `delimiter` (TensorFlow's "delimiter characters");
// an empty `str` gives no tokens. An empty delimiter cuts every byte apart.
std::vector<std::string> split_any_of(const std::string& str, const std::string& delimiter,
                                      bool skip_empty) {
  std::vector<std::string> out;
  if (delimiter.empty()) {
    for (char c : str) out.emplace_back(1, c);
    return out;
  }
  if (str.empty()) return out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = str.find_first_of(delimiter, start);
    std::string token = str.substr(start, end == std::string::npos ? end : end - start);
    if (!(skip_empty && token.empty())) out.push_back(std::move(token));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// SplitV2: Python's str.split. A separator cuts at each occurrence (an empty string gives one
// empty token); no separator splits at runs of whitespace and drops leading and trailing ones.
// After `maxsplit` cuts (when positive) the rest is the last token; 0 gives the whole string.
std::vector<std::string> split_v2(std::string_view text, std::string_view sep, Index maxsplit) {
  std::vector<std::string> out;
  if (maxsplit == 0) {
    out.emplace_back(text);
    return out;
  }
  Index split = 0;
  if (sep.empty()) {
    auto skip_space = [&text] {
      while (!text.empty() && ascii_space(text.front())) text.remove_prefix(1);
    };
    skip_space();
    while (!text.empty()) {
      std::size_t n = 0;
      while (n < text.size() && !ascii_space(text[n])) ++n;
      out.emplace_back(text.substr(0, n));
      text.remove_prefix(n);
      skip_space();
      if (maxsplit > 0 && ++split == maxsplit) {
        out.emplace_back(text);
        return out;
      }
    }
    return out;
  }
  for (std::size_t p = text.find(sep); p != std::string_view::npos; p = text.find(sep)) {
    out.emplace_back(text.substr(0, p));
    text.remove_prefix(p + sep.size());
    if (maxsplit > 0 && ++split == maxsplit) break;
  }
  out.emplace_back(text);
  return out;
}

// StringSplit(input, delimiter) and StringSplitV2(input, sep): the tokens of each string of a
// vector as a SparseTensor (indices [n, 2], values [n], dense shape [batch, most tokens]).
class StringSplitOp : public StatusKernel {
 public:
  StringSplitOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    v2_ = c.def.op == "StringSplitV2";
    if (v2_) {
      *s = c.get_attr("maxsplit", &maxsplit_);
    } else if (!c.get_attr("skip_empty", &skip_empty_).ok()) {
      skip_empty_ = true;  // GraphDefs older than the attr split as skip_empty=True
    }
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 1)
      return invalid_argument("input must be a vector, got shape: " + input.shape().to_string());
    const Tensor& sep = ctx.input(1);
    if (sep.rank() != 0)
      return invalid_argument(std::string(v2_ ? "sep" : "delimiter") +
                              " must be a scalar, got shape: " + sep.shape().to_string());
    const std::string& delimiter = sep.data<std::string>()[0];
    const Index batch = input.num_elements();
    std::vector<std::vector<std::string>> parts(static_cast<std::size_t>(batch));
    Index total = 0, widest = 0;
    for (Index i = 0; i < batch; ++i) {
      const std::string& s = input.data<std::string>()[i];
      auto& p = parts[static_cast<std::size_t>(i)];
      p = v2_ ? split_v2(s, delimiter, maxsplit_) : split_any_of(s, delimiter, skip_empty_);
      total += static_cast<Index>(p.size());
      widest = std::max(widest, static_cast<Index>(p.size()));
    }
    Tensor& indices = ctx.allocate_output(0, DType::int64, Shape{total, 2});
    Tensor& values = ctx.allocate_output(1, DType::string, Shape{total});
    Tensor& shape = ctx.allocate_output(2, DType::int64, Shape{2});
    shape.data<std::int64_t>()[0] = batch;
    shape.data<std::int64_t>()[1] = widest;
    std::int64_t* idx = indices.data<std::int64_t>();
    std::string* val = values.data<std::string>();
    Index c = 0;
    for (Index i = 0; i < batch; ++i) {
      auto& p = parts[static_cast<std::size_t>(i)];
      for (std::size_t j = 0; j < p.size(); ++j, ++c) {
        idx[2 * c] = i;
        idx[2 * c + 1] = static_cast<std::int64_t>(j);
        val[c] = std::move(p[j]);
      }
    }
    return {};
  }

 private:
  bool v2_ = false;
  bool skip_empty_ = true;
  Index maxsplit_ = -1;
};

// -- character units ----------------------------------------------------------------------

// string_util.h IsTrailByte: a UTF-8 continuation byte (10xxxxxx).
bool is_trail_byte(char c) { return static_cast<signed char>(c) < -0x40; }

// ParseCharUnit: true for UTF8_CHAR, false for BYTE.
Status parse_char_unit(const std::string& unit, bool* utf8) {
  if (unit == "BYTE") {
    *utf8 = false;
  } else if (unit == "UTF8_CHAR") {
    *utf8 = true;
  } else {
    return invalid_argument("Invalid unit \"" + unit + "\": Should be one of: BYTE, UTF8_CHAR");
  }
  return {};
}

// ForwardNUTF8CharPositions: moves the byte offset `*pos` forward `n` characters, stopping
// at the end; false when the string ended first.
template <class T>
bool forward_utf8(std::string_view in, T n, T* pos) {
  const auto size = static_cast<T>(in.size());
  T counted = 0;
  while (counted < n && *pos < size) {
    do {
      ++*pos;
    } while (*pos < size && is_trail_byte(in[static_cast<std::size_t>(*pos)]));
    ++counted;
  }
  return counted == n;
}

// BackNUTF8CharPositions: moves `*pos` back `n` characters, stopping at the start.
template <class T>
bool back_utf8(std::string_view in, T n, T* pos) {
  T counted = 0;
  while (counted<n&& * pos> 0) {
    do {
      --*pos;
    } while (is_trail_byte(in[static_cast<std::size_t>(*pos)]) && *pos > 0);
    ++counted;
  }
  return counted == n;
}

// SubstrOp's UpdatePosAndLenForUtf8: turns a position and length in characters into bytes;
// false when the position lies outside the string.
template <class T>
bool utf8_pos_and_len(std::string_view in, T* pos, T* len) {
  if (*pos >= 0) {
    const T chars = *len;
    T byte_pos = 0;
    if (!forward_utf8(in, *pos, &byte_pos)) return false;
    T end = byte_pos;
    forward_utf8(in, chars, &end);  // a length past the end is capped there
    *pos = byte_pos;
    *len = end - byte_pos;
    return true;
  }
  T end = static_cast<T>(in.size());
  T skip = -*pos - *len;
  if (skip < 0) skip = 0;
  if (!back_utf8(in, skip, &end)) return false;
  T start = end;
  if (!back_utf8(in, -*pos - skip, &start)) return false;
  *pos = start;
  *len = end - start;
  return true;
}

// -- Substr -------------------------------------------------------------------------------

// Substr(input, pos, len): substrings, pos and len either scalars, of input's shape, or
// broadcast against it (TensorFlow's kernel broadcasts up to two dimensions).
template <class T>
class SubstrOp : public StatusKernel {
 public:
  SubstrOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::string unit;
    *s = c.get_attr("unit", &unit);
    if (s->ok()) *s = parse_char_unit(unit, &utf8_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& pos = ctx.input(1);
    const Tensor& len = ctx.input(2);
    if (pos.shape() != len.shape())
      return invalid_argument("pos and len should have the same shape, got: " +
                              pos.shape().to_string() + " vs. " + len.shape().to_string());
    const std::string* in = input.data<std::string>();
    const T* p = pos.data<T>();
    const T* l = len.data<T>();
    if (pos.rank() == 0 || input.shape() == pos.shape()) {
      Tensor& out = ctx.allocate_output(0, DType::string, input.shape());
      const bool scalar = pos.rank() == 0;
      for (Index i = 0; i < input.num_elements(); ++i) {
        const Index k = scalar ? 0 : i;
        ACTORFLOW_RETURN_IF_ERROR(one(in[i], p[k], l[k], std::to_string(i), std::to_string(i),
                                      &out.data<std::string>()[i]));
      }
      return {};
    }
    Shape out_shape;
    {
      PartialShape b;
      if (!broadcast_shapes(PartialShape(input.shape()), PartialShape(pos.shape()), &b).ok())
        return invalid_argument("Incompatible shapes: " + input.shape().to_string() + " vs. " +
                                pos.shape().to_string());
      out_shape = *b.to_shape();
    }
    const int rank = out_shape.rank();
    if (rank > 2)
      return unimplemented("Substr broadcast not implemented for " + std::to_string(rank) +
                           " dimensions");
    // Both operands padded to the output's rank; a dimension of 1 repeats.
    auto padded = [rank](const Shape& s) {
      std::vector<Index> dims(static_cast<std::size_t>(rank - s.rank()), 1);
      for (int d = 0; d < s.rank(); ++d) dims.push_back(s.dim(d));
      return dims;
    };
    const std::vector<Index> in_dims = padded(input.shape()), pos_dims = padded(pos.shape());
    const Index rows = rank == 2 ? out_shape.dim(0) : 1;
    const Index cols = out_shape.dim(rank - 1);
    Tensor& out = ctx.allocate_output(0, DType::string, out_shape);
    for (Index i = 0; i < rows; ++i) {
      for (Index j = 0; j < cols; ++j) {
        auto at = [rank, i, j](const std::vector<Index>& dims) {
          const Index c = dims[static_cast<std::size_t>(rank - 1)] > 1 ? j : 0;
          if (rank == 1) return c;
          return (dims[0] > 1 ? i : 0) * dims[1] + c;
        };
        // The one-dimensional loop names index i (here j); the two-dimensional one names
        // (i, j) for bytes and only i for characters.
        const std::string byte_index =
            rank == 1 ? std::to_string(j)
                      : "(" + std::to_string(i) + ", " + std::to_string(j) + ")";
        const std::string char_index = std::to_string(rank == 1 ? j : i);
        const Index k = at(pos_dims);
        ACTORFLOW_RETURN_IF_ERROR(one(in[at(in_dims)], p[k], l[k], byte_index, char_index,
                                      &out.data<std::string>()[i * cols + j]));
      }
    }
    return {};
  }

 private:
  Status one(const std::string& in, T pos, T len, const std::string& byte_index,
             const std::string& char_index, std::string* out) const {
    T byte_pos = pos, byte_len = len;
    if (utf8_) {
      if (!utf8_pos_and_len(std::string_view(in), &byte_pos, &byte_len))
        return invalid_argument("pos " + std::to_string(pos) +
                                " out of range for string at index " + char_index);
    } else {
      if (byte_pos < 0) byte_pos = static_cast<T>(static_cast<T>(in.size()) + byte_pos);
      if (byte_pos < 0 || static_cast<std::uint64_t>(byte_pos) > in.size())
        return invalid_argument("pos " + std::to_string(pos) + " out of range for string b'" + in +
                                "' at index " + byte_index);
    }
    // string_view::substr: a negative length (huge as size_t) runs to the end.
    *out = in.substr(static_cast<std::size_t>(byte_pos), static_cast<std::size_t>(byte_len));
    return {};
  }

  bool utf8_ = false;
};

// -- StringLength, StringStrip, StringLower, StringUpper ----------------------------------

// StringLength: bytes, or UTF-8 characters (the bytes that are not continuation bytes).
class StringLengthOp : public OpKernel {
 public:
  StringLengthOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::string unit;
    *s = c.get_attr("unit", &unit);
    if (s->ok()) *s = parse_char_unit(unit, &utf8_);
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::int32, input.shape());
    for (Index i = 0; i < input.num_elements(); ++i) {
      const std::string& s = input.data<std::string>()[i];
      auto n = static_cast<std::int32_t>(s.size());
      if (utf8_) n -= static_cast<std::int32_t>(std::count_if(s.begin(), s.end(), is_trail_byte));
      out.data<std::int32_t>()[i] = n;
    }
  }

 private:
  bool utf8_ = false;
};

// StringStrip: leading and trailing ASCII whitespace removed.
class StringStripOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::string, input.shape());
    for (Index i = 0; i < input.num_elements(); ++i) {
      std::string_view s = input.data<std::string>()[i];
      while (!s.empty() && ascii_space(s.front())) s.remove_prefix(1);
      while (!s.empty() && ascii_space(s.back())) s.remove_suffix(1);
      out.data<std::string>()[i] = std::string(s);
    }
  }
};

// StringLower and StringUpper: with encoding "", ASCII letters only (absl::AsciiStrToLower),
// other bytes unchanged; with "utf-8", ICU's full case mapping of the string read as UTF-8
// (malformed bytes become U+FFFD), as TensorFlow's kernels (string_lower_op.cc).
class StringCaseOp : public OpKernel {
 public:
  StringCaseOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    upper_ = c.def.op == "StringUpper";
    std::string encoding;
    *s = c.get_attr("encoding", &encoding);
    if (!s->ok()) return;
    utf8_ = encoding == "utf-8";
    if (!utf8_ && !encoding.empty())
      *s = invalid_argument("only utf-8 or '' (no encoding) is supported, received " + encoding);
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::string, input.shape());
    for (Index i = 0; i < input.num_elements(); ++i) {
      const std::string& in = input.data<std::string>()[i];
      std::string& o = out.data<std::string>()[i];
      if (utf8_) {
        icu::UnicodeString text(in.data(), static_cast<std::int32_t>(in.size()), "UTF-8");
        // The root locale: no Turkish or Lithuanian rules whatever the process's locale.
        if (upper_)
          text.toUpper(icu::Locale::getRoot());
        else
          text.toLower(icu::Locale::getRoot());
        text.toUTF8String(o);
        continue;
      }
      o = in;
      for (char& ch : o) {
        if (upper_ && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
        if (!upper_ && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
      }
    }
  }

 private:
  bool upper_ = false;
  bool utf8_ = false;
};

// -- ReduceJoin ---------------------------------------------------------------------------

// ReduceJoin(inputs, reduction_indices): the strings along the reduced dimensions joined with
// `separator`. As TensorFlow's kernel, the dimension listed first varies fastest in the join
// (tf.strings.reduce_join over all axes passes them last to first).
class ReduceJoinOp : public StatusKernel {
 public:
  ReduceJoinOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("keep_dims", &keep_dims_);
    if (s->ok()) *s = c.get_attr("separator", &separator_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Shape& shape = input.shape();
    const int rank = input.rank();
    const Tensor& indices_t = ctx.input(1);
    const std::int32_t* indices = indices_t.data<std::int32_t>();
    const auto count = static_cast<int>(indices_t.num_elements());
    std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
    for (int i = 0; i < count; ++i) {
      const std::int32_t axis = indices[i];
      if (axis < -rank || axis >= rank)
        return out_of_range("Invalid reduction dimension " + std::to_string(axis) +
                            " for input with " + std::to_string(rank) + " dimension(s)");
      const std::int32_t true_axis = axis < 0 ? axis + rank : axis;
      if (reduced[static_cast<std::size_t>(true_axis)])
        return invalid_argument("Duplicate reduction dimension " + std::to_string(axis));
      reduced[static_cast<std::size_t>(true_axis)] = true;
    }
    // GetReducedIndices: the reduced dimensions in reverse order of the input list.
    std::vector<int> reduced_dims, kept_dims;
    for (int i = count - 1; i >= 0; --i)
      reduced_dims.push_back(indices[i] < 0 ? indices[i] + rank : indices[i]);
    std::vector<std::int64_t> out_dims;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[static_cast<std::size_t>(d)]) {
        kept_dims.push_back(d);
        out_dims.push_back(shape.dim(d));
      } else if (keep_dims_) {
        out_dims.push_back(1);
      }
    }
    const std::vector<Index> strides = detail::row_major_strides(shape);
    // LinearSubIndexToFullIndex: the offset of sub-index `index` over `dims` (the last of them
    // varying fastest).
    auto full_index = [&](Index index, const std::vector<int>& dims) {
      Index result = 0;
      for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        result += strides[static_cast<std::size_t>(*it)] * (index % shape.dim(*it));
        index /= shape.dim(*it);
      }
      return result;
    };
    Index per_output = 1;
    for (int d : reduced_dims) per_output *= shape.dim(d);
    Tensor& out = ctx.allocate_output(0, DType::string, Shape(out_dims));
    const std::string* in = input.data<std::string>();
    for (Index o = 0; o < out.num_elements(); ++o) {
      const Index base = full_index(o, kept_dims);
      std::string joined;
      for (Index r = 0; r < per_output; ++r) {
        if (r) joined += separator_;
        joined += in[base + full_index(r, reduced_dims)];
      }
      out.data<std::string>()[o] = std::move(joined);
    }
    return {};
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

// -- EncodeBase64 and DecodeBase64 --------------------------------------------------------

// TensorFlow's web-safe alphabet (RFC 4648 section 5).
constexpr char kBase64Chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// lib/strings/base64.cc Base64Encode: '=' padding only with `pad`.
std::string base64_encode(const std::string& source, bool pad) {
  std::string out;
  out.reserve(4 * (source.size() / 3) + 4);
  const auto* data = reinterpret_cast<const unsigned char*>(source.data());
  std::size_t n = source.size();
  for (; n >= 3; n -= 3, data += 3) {
    out += kBase64Chars[data[0] >> 2];
    out += kBase64Chars[((data[0] & 0x03) << 4) | (data[1] >> 4)];
    out += kBase64Chars[((data[1] & 0x0F) << 2) | (data[2] >> 6)];
    out += kBase64Chars[data[2] & 0x3F];
  }
  if (n == 2) {
    out += kBase64Chars[data[0] >> 2];
    out += kBase64Chars[((data[0] & 0x03) << 4) | (data[1] >> 4)];
    out += kBase64Chars[(data[1] & 0x0F) << 2];
    if (pad) out += '=';
  } else if (n == 1) {
    out += kBase64Chars[data[0] >> 2];
    out += kBase64Chars[(data[0] & 0x03) << 4];
    if (pad) out += "==";
  }
  return out;
}

// The 6-bit value of a web-safe base64 character, or -1.
int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// DecodeThreeChars: four characters into three bytes.
Status decode_quad(const char* codes, std::string* out) {
  std::uint32_t packed = 0;
  for (int k = 0; k < 4; ++k) {
    const int v = base64_value(codes[k]);
    if (v < 0) return invalid_argument("Invalid character found in base64.");
    packed = (packed << 6) | static_cast<std::uint32_t>(v);
  }
  out->push_back(static_cast<char>(packed >> 16));
  out->push_back(static_cast<char>(packed >> 8));
  out->push_back(static_cast<char>(packed));
  return {};
}

// Base64Decode: padded or not; at most two '=' and only at the end of a whole quad.
Status base64_decode(const std::string& data, std::string* out) {
  out->clear();
  if (data.empty()) return {};
  const char* b64 = data.data();
  const char* end = data.data() + data.size();
  for (; end - b64 > 4; b64 += 4) ACTORFLOW_RETURN_IF_ERROR(decode_quad(b64, out));
  if (end - b64 == 4) {
    if (b64[2] == '=' && b64[3] == '=') end -= 2;
    if (b64[2] != '=' && b64[3] == '=') end -= 1;
  }
  const auto remain = static_cast<int>(end - b64);
  if (remain == 1) return invalid_argument("Base64 string length cannot be 1 modulo 4.");
  char tail[4] = {'A', 'A', 'A', 'A'};
  std::memcpy(tail, b64, static_cast<std::size_t>(remain));
  ACTORFLOW_RETURN_IF_ERROR(decode_quad(tail, out));
  out->resize(out->size() - static_cast<std::size_t>(4 - remain));
  return {};
}

class Base64Op : public StatusKernel {
 public:
  Base64Op(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    encode_ = c.def.op == "EncodeBase64";
    *s = encode_ ? c.get_attr("pad", &pad_) : Status{};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, DType::string, input.shape());
    for (Index i = 0; i < input.num_elements(); ++i) {
      const std::string& s = input.data<std::string>()[i];
      if (encode_)
        out.data<std::string>()[i] = base64_encode(s, pad_);
      else
        ACTORFLOW_RETURN_IF_ERROR(base64_decode(s, &out.data<std::string>()[i]));
    }
    return {};
  }

 private:
  bool encode_ = true;
  bool pad_ = false;
};

}  // namespace

namespace detail {

void register_string_ngrams_kernels(KernelRegistry& r);  // string_ngrams_ops.cpp
void register_unicode_kernels(KernelRegistry& r);        // unicode_ops.cpp

void register_string_kernels(KernelRegistry& r) {
  register_string_ngrams_kernels(r);
  register_unicode_kernels(r);
  r.add(make_kernel_def<StringSplitOp>("StringSplit", "CPU"));
  r.add(make_kernel_def<StringSplitOp>("StringSplitV2", "CPU"));
  r.add(make_kernel_def<SubstrOp<std::int32_t>>("Substr", "CPU", {{"T", {DType::int32}}}));
  r.add(make_kernel_def<SubstrOp<std::int64_t>>("Substr", "CPU", {{"T", {DType::int64}}}));
  r.add(make_kernel_def<StringLengthOp>("StringLength", "CPU"));
  r.add(make_kernel_def<StringStripOp>("StringStrip", "CPU"));
  r.add(make_kernel_def<StringCaseOp>("StringLower", "CPU"));
  r.add(make_kernel_def<StringCaseOp>("StringUpper", "CPU"));
  r.add(make_kernel_def<ReduceJoinOp>("ReduceJoin", "CPU"));
  r.add(make_kernel_def<Base64Op>("EncodeBase64", "CPU"));
  r.add(make_kernel_def<Base64Op>("DecodeBase64", "CPU"));
}

}  // namespace detail

}  // namespace af
