#include "tensor_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "actorflow/ops/variant.hpp"

namespace af::detail {

namespace {

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
    out += format_element(t, base, true);
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

// PrintOneDim: the first `limit` elements in row-major order, each dimension but the
// innermost bracketed while elements remain, "..." where an inner row is cut short.
void print_one_dim(const Tensor& t, int dim, Index limit, Index* index, std::string& out) {
  if (*index >= limit) return;
  const int rank = t.rank();
  const Index count = t.shape().dim(dim);
  if (dim == rank - 1) {
    for (Index i = 0; i < count; ++i) {
      if (*index >= limit) {
        if (dim != 0) out += "...";
        return;
      }
      if (i > 0) out += ' ';
      out += format_element(t, (*index)++, false);
    }
    return;
  }
  for (Index i = 0; i < count; ++i) {
    bool opened = false;
    if (*index < limit) {
      out += '[';
      opened = true;
    }
    print_one_dim(t, dim + 1, limit, index, out);
    if (*index < limit || opened) out += ']';
  }
}

}  // namespace

std::string format_float(float v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::fpclassify(v) == FP_SUBNORMAL) v = std::copysign(0.0f, v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  if (std::strtof(buf, nullptr) != v)
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

std::string format_double(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::fpclassify(v) == FP_SUBNORMAL) v = std::copysign(0.0, v);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  if (std::strtod(buf, nullptr) != v) std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string utf8_safe_c_escape(const std::string& s) {
  std::string out;
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
  return out;
}

std::string format_element(const Tensor& t, Index i, bool print_v2) {
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
    case DType::string: {
      const std::string escaped = utf8_safe_c_escape(t.data<std::string>()[i]);
      return print_v2 ? "\"" + escaped + "\"" : escaped;
    }
    default:
      return "?";
  }
}

std::string summarize_value(const Tensor& t, std::int64_t max_entries, bool print_v2) {
  const Index n = t.num_elements();
  if (max_entries < 0) max_entries = n;
  const Index limit = std::min<Index>(max_entries, n);
  std::string out;
  const DType dt = t.dtype();
  if (dt == DType::variant || dt == DType::resource) {
    const bool bracketed = print_v2 && t.rank() > 0;
    if (bracketed) out += '[';
    for (Index i = 0; i < limit; ++i) {
      if (i > 0) out += ' ';
      out += dt == DType::variant ? "<" + t.data<Variant>()[i].debug_string() + ">" : "?";
    }
    if (max_entries < n) out += "...";
    if (bracketed) out += ']';
    return out;
  }
  if (t.rank() == 0) {
    for (Index i = 0; i < limit; ++i) out += format_element(t, i, print_v2);
    if (n > limit) out += "...";
    return out;
  }
  if (print_v2) {
    print_dim(t, 0, limit, 0, out);
    return out;
  }
  Index index = 0;
  print_one_dim(t, 0, limit, &index, out);
  if (n > limit) out += "...";
  return out;
}

}  // namespace af::detail
