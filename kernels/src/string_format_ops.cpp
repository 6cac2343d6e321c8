// StringFormat (tf.strings.format): the CPU kernel of TensorFlow's string_format_op.cc, the
// template cut at each placeholder (absl::StrSplit) and each input summarized between the
// pieces as Tensor::SummarizeValue(summarize, /*print_v2=*/true) does (tensor.cc). Its
// definition is in ops/src/defs/string_format_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/variant.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

// strings::StrCat of a float (FloatToBuffer): "nan" or "-nan"; else "%.6g", or "%.9g" when
// that does not read back as the value. TensorFlow's kernels run with denormals flushed to
// zero (and read as zero), so a subnormal prints as a signed 0.
std::string format_float(float v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::fpclassify(v) == FP_SUBNORMAL) v = std::copysign(0.0f, v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  if (std::strtof(buf, nullptr) != v)
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

// strings::StrCat of a double (DoubleToBuffer): "%.15g", or "%.17g" when that does not read
// back; NaN and subnormals as for floats.
std::string format_double(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::fpclassify(v) == FP_SUBNORMAL) v = std::copysign(0.0, v);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// PrintOneElement of a string with print_v2: absl::Utf8SafeCEscape in double quotes (\n \r
// \t \" \' \\ by name, other ASCII control bytes as three-digit octal, bytes from 0x80 as
// they are).
std::string quote_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Element `i` of `t` as PrintOneElement(print_v2 = true) prints it: integers in decimal
// (uint8 too), bools as 1 and 0, bfloat16 as the float it is.
std::string format_element(const Tensor& t, Index i) {
  switch (t.dtype()) {
    case DType::float32:
      return format_float(t.data<float>()[i]);
    case DType::bfloat16:
      return format_float(static_cast<float>(t.data<bfloat16_t>()[i]));
    case DType::float64:
      return format_double(t.data<double>()[i]);
    case DType::int32:
      return std::to_string(t.data<std::int32_t>()[i]);
    case DType::int64:
      return std::to_string(t.data<std::int64_t>()[i]);
    case DType::uint8:
      return std::to_string(t.data<std::uint8_t>()[i]);
    case DType::boolean:
      return t.data<bool>()[i] ? "1" : "0";
    case DType::string:
      return quote_string(t.data<std::string>()[i]);
    default:
      return "?";
  }
}

// PrintDimSpacing: between the entries of the innermost dimension one space; between those
// of dimension `dim` of `rank`, rank - dim - 1 newlines and dim + 1 spaces.
void dim_spacing(int dim, int rank, std::string& out) {
  if (dim == rank - 1) {
    out += ' ';
    return;
  }
  out.append(static_cast<std::size_t>(rank - dim - 1), '\n');
  out.append(static_cast<std::size_t>(dim + 1), ' ');
}

// PrintOneDimV2: dimension `dim` of the block at `base`, bracketed; of each dimension the
// first `ends` and the last `ends` entries, "..." between them when more than 2 * ends.
void print_dim(const Tensor& t, int dim, Index ends, Index base, std::string& out) {
  const int rank = t.rank();
  if (dim == rank) {
    out += format_element(t, base);
    return;
  }
  out += '[';
  const Index count = t.shape().dim(dim);
  Index stride = 1;
  for (int d = dim + 1; d < rank; ++d) stride *= t.shape().dim(d);
  const Index start_of_end = std::max(ends, count - ends);
  for (Index i = 0; i < ends && i < count; ++i) {
    if (i > 0) dim_spacing(dim, rank, out);
    print_dim(t, dim + 1, ends, base + stride * i, out);
  }
  if (count > 2 * ends) {
    dim_spacing(dim, rank, out);
    out += "...";
  }
  for (Index i = start_of_end; i < count; ++i) {
    dim_spacing(dim, rank, out);
    print_dim(t, dim + 1, ends, base + stride * i, out);
  }
  out += ']';
}

// Tensor::SummarizeValue(max_entries, print_v2 = true). `limit` = min(max_entries, elements)
// (all for a negative max_entries) bounds the entries shown at each end of every dimension,
// so an empty tensor of rank 2 and up shows "[\n ...]". A scalar is its element, or "..."
// when max_entries is 0. Variants and resources print flat, "<...>" each.
std::string summarize_value(const Tensor& t, std::int64_t max_entries) {
  const Index n = t.num_elements();
  if (max_entries < 0) max_entries = n;
  const Index limit = std::min<Index>(max_entries, n);
  std::string out;
  const DType dt = t.dtype();
  if (dt == DType::variant || dt == DType::resource) {
    if (t.rank() > 0) out += '[';
    for (Index i = 0; i < limit; ++i) {
      if (i > 0) out += ' ';
      out += dt == DType::variant ? "<" + t.data<Variant>()[i].debug_string() + ">" : "?";
    }
    if (max_entries < n) out += "...";
    if (t.rank() > 0) out += ']';
    return out;
  }
  if (t.rank() == 0) {
    for (Index i = 0; i < limit; ++i) out += format_element(t, i);
    if (n > limit) out += "...";
    return out;
  }
  print_dim(t, 0, limit, 0, out);
  return out;
}

// The pieces of `text` between occurrences of `sep`, left to right (absl::StrSplit with a
// string delimiter); an empty `sep` cuts between every byte, and "" is one empty piece.
std::vector<std::string> split_template(const std::string& text, const std::string& sep) {
  std::vector<std::string> pieces;
  if (sep.empty()) {
    if (text.empty()) return {std::string()};
    for (char c : text) pieces.emplace_back(1, c);
    return pieces;
  }
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(sep, from)) != std::string::npos; from = at + sep.size())
    pieces.push_back(text.substr(from, at - from));
  pieces.push_back(text.substr(from));
  return pieces;
}

// StringFormat(inputs: T) -> string scalar: the template's pieces with each input's summary
// between them. Construction fails with InvalidArgument "num placeholders in template and num
// inputs must match: 1 vs. 2" when the template has not one placeholder per input.
class StringFormatOp : public StatusKernel {
 public:
  StringFormatOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::string templ, placeholder;
    if (*s = c.get_attr("template", &templ); !s->ok()) return;
    if (*s = c.get_attr("placeholder", &placeholder); !s->ok()) return;
    if (*s = c.get_attr("summarize", &summarize_); !s->ok()) return;
    pieces_ = split_template(templ, placeholder);
    const auto placeholders = static_cast<std::int64_t>(pieces_.size()) - 1;
    const auto inputs = static_cast<std::int64_t>(c.input_types.size());
    if (placeholders != inputs)
      *s = invalid_argument("num placeholders in template and num inputs must match: " +
                            std::to_string(placeholders) + " vs. " + std::to_string(inputs));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::string msg = pieces_[0];
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      msg += summarize_value(ctx.input(i), summarize_);
      msg += pieces_[static_cast<std::size_t>(i) + 1];
    }
    Tensor& out = ctx.allocate_output(0, DType::string, Shape{});
    out.data<std::string>()[0] = std::move(msg);
    return {};
  }

 private:
  std::int64_t summarize_ = 3;
  std::vector<std::string> pieces_;
};

}  // namespace

namespace detail {

void register_string_format_kernels(KernelRegistry& r) {
  // TensorFlow's CPU kernel takes inputs of every dtype.
  r.add(make_kernel_def<StringFormatOp>("StringFormat", "CPU"));
}

}  // namespace detail

}  // namespace af
