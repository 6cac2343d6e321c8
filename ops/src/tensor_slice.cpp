// TensorSlice and "shape and slice" specs (TensorFlow's tensor_slice.cc,
// saved_tensor_slice_util.cc and tensor_slice_util.h), and SaveSliceInfo's spec.
#include "actorflow/ops/tensor_slice.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af {

namespace {

// Splits on `sep`, dropping empty pieces when `skip_empty` (str_util::SkipEmpty).
std::vector<std::string_view> split(std::string_view s, char sep, bool skip_empty) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = s.find(sep, begin);
    const std::string_view piece =
        s.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    if (!piece.empty() || !skip_empty) out.push_back(piece);
    if (end == std::string_view::npos) return out;
    begin = end + 1;
  }
}

// strings::safe_strto64: the whole text (blanks around it allowed) is one int64.
bool parse_int64(std::string_view s, std::int64_t* out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

TensorSlice::TensorSlice(int rank)
    : starts_(static_cast<std::size_t>(rank), 0),
      lengths_(static_cast<std::size_t>(rank), kFullExtent) {}

TensorSlice::TensorSlice(std::vector<std::int64_t> starts, std::vector<std::int64_t> lengths)
    : starts_(std::move(starts)), lengths_(std::move(lengths)) {}

StatusOr<TensorSlice> TensorSlice::parse(std::string_view text) {
  TensorSlice slice;
  for (std::string_view item : split(text, ':', true)) {
    std::int64_t s = 0, l = kFullExtent;
    if (item != "-") {
      const auto pair = split(item, ',', true);
      if (pair.size() != 2 || !parse_int64(pair[0], &s) || !parse_int64(pair[1], &l))
        return invalid_argument("Expected a pair of numbers or '-' but got '" + std::string(item) +
                                "': string = " + std::string(text));
      if (s < 0 || l <= 0)
        return invalid_argument(
            "Expected non-negative start and positive length but got start = " + std::to_string(s) +
            ", length = " + std::to_string(l) + ": string = " + std::string(text));
    }
    slice.starts_.push_back(s);
    slice.lengths_.push_back(l);
  }
  return slice;
}

bool TensorSlice::is_full() const noexcept {
  return std::all_of(lengths_.begin(), lengths_.end(),
                     [](std::int64_t l) { return l == kFullExtent; });
}

StatusOr<Shape> TensorSlice::slice_shape(const Shape& full) const {
  if (full.rank() != rank())
    return internal("Mismatching ranks: shape = " + full.to_string() + ", slice = " + to_string());
  std::vector<std::int64_t> dims;
  for (int d = 0; d < rank(); ++d) {
    if (is_full_at(d)) {
      dims.push_back(full.dim(d));
    } else if (start(d) + length(d) <= full.dim(d)) {
      dims.push_back(length(d));
    } else {
      return internal("Extent in dimension " + std::to_string(d) +
                      " out of bounds: shape = " + full.to_string() + ", slice = " + to_string());
    }
  }
  return Shape(dims);
}

bool TensorSlice::intersect(const TensorSlice& other, TensorSlice* result) const {
  if (rank() != other.rank()) return false;
  TensorSlice out(rank());
  for (int d = 0; d < rank(); ++d) {
    const auto i = static_cast<std::size_t>(d);
    if (is_full_at(d)) {
      out.starts_[i] = other.start(d);
      out.lengths_[i] = other.length(d);
    } else if (other.is_full_at(d)) {
      out.starts_[i] = start(d);
      out.lengths_[i] = length(d);
    } else {
      const std::int64_t s = std::max(start(d), other.start(d));
      const std::int64_t l = std::min(start(d) + length(d), other.start(d) + other.length(d)) - s;
      if (l <= 0) {
        if (result) *result = TensorSlice();
        return false;
      }
      out.starts_[i] = s;
      out.lengths_[i] = l;
    }
  }
  if (result) *result = std::move(out);
  return true;
}

std::string TensorSlice::to_string() const {
  std::string out;
  for (int d = 0; d < rank(); ++d) {
    if (d) out += ':';
    out += is_full_at(d) ? std::string("-")
                         : std::to_string(start(d)) + "," + std::to_string(length(d));
  }
  return out;
}

StatusOr<ShapeAndSlice> parse_shape_and_slice(std::string_view spec) {
  std::vector<std::string_view> splits = split(spec, ' ', false);
  if (splits.size() < 2)
    return invalid_argument("Need least two elements in shape_and_slice specification: " +
                            std::string(spec));
  ShapeAndSlice out;
  StatusOr<TensorSlice> slice = TensorSlice::parse(splits.back());
  if (!slice.ok()) return slice.status();
  out.slice = std::move(*slice);
  splits.pop_back();
  std::vector<std::int64_t> dims;
  for (std::string_view s : splits) {
    std::int64_t dim = 0;
    if (!parse_int64(s, &dim))
      return invalid_argument("Non numerical dimension in shape_and_slice: " + std::string(spec));
    if (dim < 0)
      return invalid_argument("Negative dimension in shape_and_slice: " + std::string(spec));
    dims.push_back(dim);
  }
  out.full_shape = Shape(dims);
  StatusOr<Shape> shape = out.slice.slice_shape(out.full_shape);
  if (!shape.ok()) return shape.status();
  out.slice_shape = std::move(*shape);
  return out;
}

bool copy_slice_data(const Shape& full_shape, const TensorSlice& src_slice, const Tensor& src,
                     const TensorSlice& dst_slice, Tensor& dst) {
  TensorSlice common;
  if (!src_slice.intersect(dst_slice, &common)) return false;
  const int rank = full_shape.rank();
  // Each slice's box in the full tensor: [lo, lo + len) per dimension.
  auto lo = [&](const TensorSlice& s, int d) { return s.is_full_at(d) ? 0 : s.start(d); };
  auto len = [&](const TensorSlice& s, int d) {
    return s.is_full_at(d) ? full_shape.dim(d) : s.length(d);
  };
  if (rank == 0) {
    if (src.dtype() == DType::string)
      dst.data<std::string>()[0] = src.data<std::string>()[0];
    else
      std::memcpy(dst.raw_data(), src.raw_data(), dtype_size(src.dtype()));
    return true;
  }
  for (int d = 0; d < rank; ++d)
    if (len(common, d) == 0) return true;
  // Row-major strides (in elements) of both buffers.
  std::vector<std::int64_t> src_stride(static_cast<std::size_t>(rank), 1);
  std::vector<std::int64_t> dst_stride(static_cast<std::size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d) {
    const auto i = static_cast<std::size_t>(d);
    src_stride[i] = src_stride[i + 1] * len(src_slice, d + 1);
    dst_stride[i] = dst_stride[i + 1] * len(dst_slice, d + 1);
  }
  const std::int64_t run = len(common, rank - 1);  // contiguous in both along the last dim
  const bool strings = src.dtype() == DType::string;
  const std::size_t element = strings ? 0 : dtype_size(src.dtype());
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);  // within `common`
  for (;;) {
    std::int64_t s = 0, t = 0;
    for (int d = 0; d < rank; ++d) {
      const auto i = static_cast<std::size_t>(d);
      const std::int64_t at = lo(common, d) + index[i];
      s += (at - lo(src_slice, d)) * src_stride[i];
      t += (at - lo(dst_slice, d)) * dst_stride[i];
    }
    if (strings) {
      std::copy_n(src.data<std::string>() + s, run, dst.data<std::string>() + t);
    } else {
      std::memcpy(static_cast<char*>(dst.raw_data()) + static_cast<std::size_t>(t) * element,
                  static_cast<const char*>(src.raw_data()) + static_cast<std::size_t>(s) * element,
                  static_cast<std::size_t>(run) * element);
    }
    int d = rank - 2;
    for (; d >= 0; --d) {
      const auto i = static_cast<std::size_t>(d);
      if (++index[i] < len(common, d)) break;
      index[i] = 0;
    }
    if (d < 0) return true;
  }
}

std::string SaveSliceInfo::spec() const {
  std::string out;
  for (std::size_t i = 0; i < full_shape.size(); ++i)
    out += (i ? " " : "") + std::to_string(full_shape[i]);
  out += " ";
  for (std::size_t i = 0; i < var_offset.size(); ++i)
    out += (i ? ":" : "") + std::to_string(var_offset[i]) + "," + std::to_string(var_shape[i]);
  return out;
}

}  // namespace af
