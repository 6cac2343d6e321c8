// Bitcast, DataFormatDimMap, DataFormatVecPermute, UnravelIndex, LowerBound, UpperBound,
// NthElement, InplaceAdd, InplaceSub, InplaceUpdate, Empty, ParallelConcat, GuaranteeConst and
// CheckNumericsV2: CPU kernels with TensorFlow's checks and messages (tensorflow/c/kernels/
// bitcast_op.cc, data_format_ops.cc, unravel_index_op.cc, searchsorted_op.cc,
// nth_element_op.cc, inplace_ops.cc, guarantee_const_op.cc, check_numerics_op.cc). Their
// definitions are in ops/src/defs/array_more_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/tf_datatype.hpp"
#include "actorflow/ops/kernel.hpp"
#include "cwise_ops_common.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::node_suffix;
using detail::StatusKernel;
// A number that orders and computes as T does (bfloat16 through float).
using cwise::to_compute;

// The real types of TensorFlow's TF_CALL_REAL_NUMBER_TYPES that actorflow has.
const std::vector<DType> kRealTypes = {DType::float32, DType::float64, DType::int32,
                                       DType::int64,   DType::uint8,   DType::bfloat16};

// -- Bitcast --------------------------------------------------------------------------------

using detail::tf_enum;

// Bitcast(input; T, type): the input's bytes read as `type`. A smaller output type adds a
// last dimension of in_size / out_size; a larger one needs (and removes) a last dimension of
// out_size / in_size. TensorFlow shares the buffer; this copies it.
class BitcastOp : public StatusKernel {
 public:
  BitcastOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("T", &in_type_);
    if (s->ok()) *s = c.get_attr("type", &out_type_);
    if (!s->ok()) return;
    in_size_ = static_cast<Index>(dtype_size(in_type_));
    out_size_ = static_cast<Index>(dtype_size(out_type_));
    if (in_size_ == 0 || out_size_ == 0 ||
        std::max(in_size_, out_size_) % std::min(in_size_, out_size_) != 0)
      *s = invalid_argument("cannot convert between datatype " + std::to_string(tf_enum(in_type_)) +
                            " and " + std::to_string(tf_enum(out_type_)) + node_suffix(c.def.name));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int rank = input.rank();
    if (!(in_size_ >= out_size_ ||
          (rank > 0 && input.shape().dim(rank - 1) == out_size_ / in_size_)))
      return invalid_argument("Cannot bitcast from " + std::to_string(tf_enum(in_type_)) + " to " +
                              std::to_string(tf_enum(out_type_)));
    std::vector<std::int64_t> dims = input.shape().dims();
    if (out_size_ < in_size_)
      dims.push_back(in_size_ / out_size_);
    else if (out_size_ > in_size_)
      dims.pop_back();
    Tensor& out = ctx.allocate_output_for_overwrite(0, out_type_, Shape(std::move(dims)));
    if (input.total_bytes() > 0) std::memcpy(out.raw_data(), input.raw_data(), input.total_bytes());
    return {};
  }

 private:
  DType in_type_ = DType::invalid, out_type_ = DType::invalid;
  Index in_size_ = 0, out_size_ = 0;
};

// -- DataFormatDimMap and DataFormatVecPermute ----------------------------------------------

// IsValidPermutation: `dst` names each character of `src` (which has no repeats) once.
bool is_valid_permutation(const std::string& src, const std::string& dst) {
  if (src.size() != dst.size()) return false;
  for (std::size_t i = 0; i < src.size(); ++i) {
    if (src.find(src[i]) != i) return false;
    if (std::count(dst.begin(), dst.end(), src[i]) != 1) return false;
  }
  return true;
}

// The constructor checks both kernels share: formats of 4 or 5 characters, one a permutation
// of the other.
Status read_formats(OpKernelConstruction& c, std::string* src, std::string* dst) {
  *src = "NHWC";
  *dst = "NCHW";
  c.get_attr("src_format", src);
  c.get_attr("dst_format", dst);
  if (src->size() != 4 && src->size() != 5)
    return invalid_argument("Source format must be of length 4 or 5, received src_format = " +
                            *src + node_suffix(c.def.name));
  if (dst->size() != 4 && dst->size() != 5)
    return invalid_argument("Destination format must be of length 4 or 5, received dst_format = " +
                            *dst + node_suffix(c.def.name));
  if (!is_valid_permutation(*src, *dst))
    return invalid_argument("Destination and source format must determine a permutation, got " +
                            *src + " and " + *dst + node_suffix(c.def.name));
  return {};
}

// DataFormatDimMap(x): each dimension index of src_format (negative ones counted from the
// end) mapped to its index in dst_format. As TensorFlow's functor, x is taken modulo the
// rank after adding it (wrapping as the integer type does), and whatever is not 0 .. rank-2
// then maps as the last dimension.
template <class T>
class DataFormatDimMapOp : public StatusKernel {
 public:
  DataFormatDimMapOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::string src, dst;
    *s = read_formats(c, &src, &dst);
    if (!s->ok()) return;
    for (char ch : src) dst_index_.push_back(static_cast<T>(dst.find(ch)));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, x.shape());
    const T n = static_cast<T>(dst_index_.size());
    const T* in = x.data<T>();
    T* out = y.data<T>();
    using U = std::make_unsigned_t<T>;
    for (Index i = 0, e = x.num_elements(); i < e; ++i) {
      const T m = static_cast<T>(static_cast<U>(in[i]) + static_cast<U>(n)) % n;
      out[i] = dst_index_[static_cast<std::size_t>(m >= 0 && m < n ? m : n - 1)];
    }
    return {};
  }

 private:
  std::vector<T> dst_index_;
};

// DataFormatVecPermute(x): a vector of one value per dimension (or an [n, 2] matrix of
// pairs) reordered from src_format to dst_format. A vector or matrix of rank - 2 entries
// holds the spatial dimensions only (H and W, and D for 5-character formats).
template <class T>
class DataFormatVecPermuteOp : public StatusKernel {
 public:
  DataFormatVecPermuteOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_formats(c, &src_, &dst_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const std::string shape = x.shape().to_string();
    if (x.rank() != 1 && x.rank() != 2)
      return invalid_argument("input must be a vector or 2D tensor, but got shape " + shape);
    const Index full = static_cast<Index>(src_.size()), spatial = full - 2;
    const std::string sizes = std::to_string(spatial) + " or " + std::to_string(full);
    const Index rows = x.shape().dim(0);
    if (x.rank() == 1 && rows != spatial && rows != full)
      return invalid_argument("1D input must be of size " + sizes + ", but got shape " + shape);
    if (x.rank() == 2) {
      if (rows != spatial && rows != full)
        return invalid_argument("First dimension of 2D input must be of size " + sizes +
                                ", but got shape " + shape);
      if (x.shape().dim(1) != 2)
        return invalid_argument("Second dimension of 2D input must be of size 2, but got shape " +
                                shape);
    }
    std::string src = src_, dst = dst_;
    if (rows == spatial) {
      auto keep_spatial = [spatial](std::string& format) {
        format.erase(std::remove_if(format.begin(), format.end(),
                                    [spatial](char d) {
                                      return d != 'H' && d != 'W' && (spatial == 2 || d != 'D');
                                    }),
                     format.end());
      };
      keep_spatial(src);
      keep_spatial(dst);
      if (static_cast<Index>(src.size()) != spatial || static_cast<Index>(dst.size()) != spatial)
        return invalid_argument(spatial == 3
                                    ? "Format specifier must contain D, H and W for 2D case"
                                    : "Format specifier must contain H and W for 2D case");
    }
    Tensor& y = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, x.shape());
    const Index width = x.rank() == 2 ? 2 : 1;
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (std::size_t j = 0; j < dst.size(); ++j) {
      const Index from = static_cast<Index>(src.find(dst[j]));
      std::copy_n(in + from * width, width, out + static_cast<Index>(j) * width);
    }
    return {};
  }

 private:
  std::string src_, dst_;
};

// -- UnravelIndex ---------------------------------------------------------------------------

// UnravelIndex(indices, dims): the coordinates of each flat index in an array of shape
// `dims`, one row per dimension ([ndims] for a scalar index, [ndims, n] for a vector). As
// TensorFlow's kernel, indices at or past the product of dims are refused and negative ones
// go through C++'s % and / unchanged.
template <class T>
class UnravelIndexOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    if (indices.rank() > 1)
      return invalid_argument("The indices can only be scalar or vector, got \"" +
                              indices.shape().to_string() + "\"");
    if (indices.num_elements() == 0)
      return invalid_argument("received empty tensor indices: Tensor<type: " +
                              std::string(data_type_string(indices.dtype())) +
                              " shape: " + indices.shape().to_string() + " values: >");
    const Tensor& dims_t = ctx.input(1);
    if (dims_t.rank() != 1)
      return invalid_argument("The indices can only be 1-D, got \"" + dims_t.shape().to_string() +
                              "\"");
    const T* dims = dims_t.data<T>();
    const Index ndims = dims_t.num_elements();
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    double prod = 1;
    for (Index i = 0; i < ndims; ++i) {
      if (dims[i] == 0)
        return invalid_argument(
            "Input dims cannot contain a dim of zero, but dims contains zero at index " +
            std::to_string(i));
      if (dims[i] < 0)
        return invalid_argument("Input dims cannot be negative. Got dim = " +
                                std::to_string(dims[i]) + " at index " + std::to_string(i));
      if (prod > static_cast<double>(limit / static_cast<std::uint64_t>(dims[i]))) {
        std::string listed;
        for (Index k = 0; k < ndims; ++k) listed += (k ? " " : "") + std::to_string(dims[k]);
        return invalid_argument("Input dims product is causing integer overflow: (" + listed + ")");
      }
      prod *= static_cast<double>(dims[i]);
    }
    // strides[i]: the product of dims[i:]; shifted[i]: of dims[i+1:].
    std::vector<T> strides(static_cast<std::size_t>(ndims)), shifted(strides.size());
    T running = 1;
    for (Index i = ndims - 1; i >= 0; --i) {
      shifted[static_cast<std::size_t>(i)] = running;
      running = static_cast<T>(running * dims[i]);
      strides[static_cast<std::size_t>(i)] = running;
    }
    const T total = running;
    const T* idx = indices.data<T>();
    const Index n = indices.num_elements();
    for (Index j = 0; j < n; ++j)
      if (!(idx[j] < total)) return invalid_argument("index is out of bound as with dims");
    Tensor& out = ctx.allocate_output_for_overwrite(
        0, dtype_of_v<T>, indices.rank() == 0 ? Shape{ndims} : Shape{ndims, n});
    T* o = out.data<T>();
    for (Index i = 0; i < ndims; ++i)
      for (Index j = 0; j < n; ++j)
        o[i * n + j] = static_cast<T>(idx[j] % strides[static_cast<std::size_t>(i)] /
                                      shifted[static_cast<std::size_t>(i)]);
    return {};
  }
};

// -- LowerBound and UpperBound --------------------------------------------------------------

// LowerBound / UpperBound(sorted_inputs, values; out_type): for each row b and value v of
// values[b], std::lower_bound (or upper_bound) of v in sorted_inputs[b].
template <class T, bool Upper>
class SearchSortedOp : public StatusKernel {
 public:
  SearchSortedOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    out_type_ = DType::int32;
    c.get_attr("out_type", &out_type_);
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& sorted = ctx.input(0);
    const Tensor& values = ctx.input(1);
    if (sorted.rank() != 2)
      return invalid_argument("Shape must be rank 2 but is rank " + std::to_string(sorted.rank()) +
                              " for `sorted_inputs` argument");
    if (values.rank() != 2)
      return invalid_argument("Shape must be rank 2 but is rank " + std::to_string(values.rank()) +
                              " for `values` argument");
    if (sorted.shape().dim(0) != values.shape().dim(0))
      return invalid_argument("Leading dim_size of both tensors must match.");
    if (values.num_elements() >= std::numeric_limits<std::int32_t>::max())
      return invalid_argument("values tensor size must less than INT_MAX");
    Tensor& out = ctx.allocate_output_for_overwrite(0, out_type_, values.shape());
    const Index batch = sorted.shape().dim(0), num_inputs = sorted.shape().dim(1),
                num_values = values.shape().dim(1);
    std::vector<decltype(to_compute(T()))> row(static_cast<std::size_t>(num_inputs));
    const T* s = sorted.data<T>();
    const T* v = values.data<T>();
    for (Index b = 0; b < batch; ++b) {
      for (Index i = 0; i < num_inputs; ++i)
        row[static_cast<std::size_t>(i)] = to_compute(s[b * num_inputs + i]);
      for (Index i = 0; i < num_values; ++i) {
        const auto value = to_compute(v[b * num_values + i]);
        const auto at = Upper ? std::upper_bound(row.begin(), row.end(), value)
                              : std::lower_bound(row.begin(), row.end(), value);
        const Index pos = at - row.begin();
        if (out_type_ == DType::int64)
          out.data<std::int64_t>()[b * num_values + i] = pos;
        else
          out.data<std::int32_t>()[b * num_values + i] = static_cast<std::int32_t>(pos);
      }
    }
    return {};
  }

 private:
  DType out_type_ = DType::int32;
};

template <class T>
using LowerBoundOp = SearchSortedOp<T, false>;
template <class T>
using UpperBoundOp = SearchSortedOp<T, true>;

// -- NthElement -----------------------------------------------------------------------------

// NthElement(input, n; reverse): the n-th smallest (largest with reverse) entry of each row
// of the last dimension, as std::nth_element places it.
template <class T>
class NthElementOp : public StatusKernel {
 public:
  NthElementOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    c.get_attr("reverse", &reverse_);
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& n_t = ctx.input(1);
    if (n_t.rank() != 0)
      return invalid_argument("N must be scalar but has rank " + std::to_string(n_t.rank()));
    Index n = n_t.data<std::int32_t>()[0];
    if (n < 0) return invalid_argument("n must be non-negative but is " + std::to_string(n));
    const Tensor& input = ctx.input(0);
    const int rank = input.rank();
    if (rank < 1)
      return invalid_argument("Input must be at least rank 1 but is rank " + std::to_string(rank));
    const Index last = input.shape().dim(rank - 1);
    if (last <= n)
      return invalid_argument("Input must have last dimension > n = " + std::to_string(n));
    if (reverse_) n = last - n - 1;
    std::vector<std::int64_t> dims = input.shape().dims();
    dims.pop_back();
    Tensor& out = ctx.allocate_output_for_overwrite(0, dtype_of_v<T>, Shape(std::move(dims)));
    const Index rows = out.num_elements();
    const T* in = input.data<T>();
    T* o = out.data<T>();
    std::vector<decltype(to_compute(T()))> buf(static_cast<std::size_t>(last));
    for (Index r = 0; r < rows; ++r) {
      for (Index i = 0; i < last; ++i)
        buf[static_cast<std::size_t>(i)] = to_compute(in[r * last + i]);
      std::nth_element(buf.begin(), buf.begin() + n, buf.end());
      o[r] = static_cast<T>(buf[static_cast<std::size_t>(n)]);
    }
    return {};
  }

 private:
  bool reverse_ = false;
};

// -- InplaceAdd, InplaceSub and InplaceUpdate -----------------------------------------------

enum class InplaceKind { update, add, sub };

// The arithmetic of InplaceAdd / InplaceSub on `count` elements: y[i] op= v[i].
template <InplaceKind Kind, class T>
void combine_row(const T* v, T* y, Index count) {
  for (Index i = 0; i < count; ++i) {
    if constexpr (is_half_like_v<T>)
      y[i] = T(Kind == InplaceKind::add ? static_cast<float>(y[i]) + static_cast<float>(v[i])
                                        : static_cast<float>(y[i]) - static_cast<float>(v[i]));
    else if constexpr (std::is_same_v<T, bool>)
      y[i] = v[i];  // unreachable: bool refused before
    else
      y[i] = static_cast<T>(Kind == InplaceKind::add ? y[i] + v[i] : y[i] - v[i]);
  }
}

// InplaceUpdate / InplaceAdd / InplaceSub(x, i, v): x with rows i[j] set to (or plus, minus)
// v[j]; indices are taken modulo x's first dimension. TensorFlow writes into x's buffer; this
// writes into a copy.
template <InplaceKind Kind>
class InplaceOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& i = ctx.input(1);
    const Tensor& v = ctx.input(2);
    if (i.rank() != 1) return invalid_argument("i must be a vector. " + i.shape().to_string());
    if (x.rank() != v.rank())
      return invalid_argument("x and v shape doesn't match (ranks differ): " +
                              x.shape().to_string() + " vs. " + v.shape().to_string());
    for (int d = 1; d < x.rank(); ++d)
      if (x.shape().dim(d) != v.shape().dim(d))
        return invalid_argument("x and v shape doesn't match at index " + std::to_string(d) +
                                " : " + x.shape().to_string() + " vs. " + v.shape().to_string());
    if (v.rank() == 0 || i.shape().dim(0) != v.shape().dim(0))
      return invalid_argument("i and x shape doesn't match at index 0: " + i.shape().to_string() +
                              " vs. " + v.shape().to_string());
    Tensor y = x.deep_copy();
    if (x.num_elements() > 0 && v.num_elements() > 0) {
      if (Kind != InplaceKind::update &&
          (x.dtype() == DType::boolean || x.dtype() == DType::string))
        return invalid_argument("Unsupported data type: " +
                                std::string(data_type_string(x.dtype())));
      const Index rows = x.shape().dim(0), width = x.num_elements() / rows;
      const std::int32_t* index = i.data<std::int32_t>();
      for (Index j = 0, n = i.num_elements(); j < n; ++j) {
        const Index r = (index[j] % rows + rows) % rows;
        if constexpr (Kind == InplaceKind::update) {
          detail::copy_elements(v, j * width, y, r * width, width);
        } else {
          visit_numeric_dtype(x.dtype(), [&](auto zero) {
            using T = decltype(zero);
            combine_row<Kind>(v.data<T>() + j * width, y.data<T>() + r * width, width);
          });
        }
      }
    }
    ctx.set_output(0, std::move(y));
    return {};
  }
};

// -- Empty ----------------------------------------------------------------------------------

// Empty(shape; dtype, init): a tensor of `shape`. TensorFlow leaves it uninitialized unless
// `init`; here it is always zeros (empty strings).
class EmptyOp : public StatusKernel {
 public:
  EmptyOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& shape = ctx.input(0);
    if (shape.rank() != 1)
      return invalid_argument("shape must be a vector of int32, got shape " +
                              shape.shape().to_string());
    const std::vector<Index> dims = index_values(shape);
    for (Index d : dims)
      if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    ctx.allocate_output(0, dtype_, Shape(std::vector<std::int64_t>(dims.begin(), dims.end())));
    return {};
  }

 private:
  DType dtype_ = DType::float32;
};

// -- ParallelConcat -------------------------------------------------------------------------

// ParallelConcat(values; shape): the output of the `shape` attr with row k the single row of
// values[k] (what TensorFlow's rewrite into _ParallelConcatStart and one _ParallelConcatUpdate
// per input computes, with their checks). Rows past the inputs are zeros (TensorFlow leaves
// them uninitialized).
class ParallelConcatOp : public StatusKernel {
 public:
  ParallelConcatOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("shape", &shape_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const std::optional<Shape> shape = shape_.to_shape();
    if (!shape) return invalid_argument("shape attr must be fully defined.");
    Tensor& out = ctx.allocate_output(0, ctx.input(0).dtype(), *shape);
    for (int loc = 0; loc < ctx.num_inputs(); ++loc) {
      const Tensor& update = ctx.input(loc);
      if (out.rank() < 1) return invalid_argument("value should be at least rank 1.");
      if (out.shape().dim(0) <= loc)
        return invalid_argument("0th dimension of value = " + std::to_string(out.shape().dim(0)) +
                                " must be greater than loc_ = " + std::to_string(loc));
      if (out.rank() != update.rank())
        return invalid_argument("value and update shape doesn't match: " + out.shape().to_string() +
                                " vs. " + update.shape().to_string());
      for (int d = 1; d < out.rank(); ++d)
        if (out.shape().dim(d) != update.shape().dim(d))
          return invalid_argument("value and update shape doesn't match " +
                                  out.shape().to_string() + " vs. " + update.shape().to_string());
      if (update.shape().dim(0) != 1)
        return invalid_argument("update shape doesn't match: " + update.shape().to_string());
      const Index width = update.num_elements();
      detail::copy_elements(update, 0, out, loc * width, width);
    }
    return {};
  }

 private:
  PartialShape shape_;
};

// -- GuaranteeConst and CheckNumericsV2 -----------------------------------------------------

// GuaranteeConst(input): the input itself (a promise to the runtime that it is constant).
class GuaranteeConstOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

// CheckNumericsV2(tensor; message): the tensor itself; fails with InvalidArgument
// "<message> : Tensor had -Inf, +Inf, and NaN values" naming what it found (one of them, "A
// and B", or all three) when an element is not finite.
template <class T>
class CheckNumericsV2Op : public StatusKernel {
 public:
  CheckNumericsV2Op(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("message", &message_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const T* xp = x.data<T>();
    bool negative_inf = false, positive_inf = false, nan = false;
    for (Index i = 0, n = x.num_elements(); i < n; ++i) {
      const auto v = to_compute(xp[i]);
      if (std::isnan(v))
        nan = true;
      else if (std::isinf(v))
        (v < 0 ? negative_inf : positive_inf) = true;
    }
    if (negative_inf || positive_inf || nan) {
      std::vector<std::string> found;
      if (negative_inf) found.emplace_back("-Inf");
      if (positive_inf) found.emplace_back("+Inf");
      if (nan) found.emplace_back("NaN");
      const std::string what = found.size() == 3 ? found[0] + ", " + found[1] + ", and " + found[2]
                               : found.size() == 2 ? found[0] + " and " + found[1]
                                                   : found[0];
      return invalid_argument(message_ + " : Tensor had " + what + " values");
    }
    ctx.set_output(0, x);
    return {};
  }

 private:
  std::string message_;
};

// -- registration ---------------------------------------------------------------------------

template <template <class> class Kernel, class... Ts>
void register_real(KernelRegistry& r, const char* op) {
  detail::register_for_types<Kernel, Ts...>(r, op);
}

template <template <class> class Kernel, class... Ts>
void register_search(KernelRegistry& r, const char* op, detail::TypeList<Ts...> /*types*/) {
  (r.add(make_kernel_def<Kernel<Ts>>(op, "CPU",
                                     {{"T", {dtype_of_v<Ts>}}, {"out_type", detail::kIndexTypes}})),
   ...);
}

}  // namespace

namespace detail {

void register_array_more_kernels(KernelRegistry& r) {
  using std::int32_t;
  using std::int64_t;
  using std::uint8_t;
  r.add(make_kernel_def<BitcastOp>("Bitcast", "CPU", {{"T", kRealTypes}, {"type", kRealTypes}}));
  register_real<DataFormatDimMapOp, int32_t, int64_t>(r, "DataFormatDimMap");
  register_real<DataFormatVecPermuteOp, int32_t, int64_t>(r, "DataFormatVecPermute");
  r.add(
      make_kernel_def<UnravelIndexOp<int32_t>>("UnravelIndex", "CPU", {{"Tidx", {DType::int32}}}));
  r.add(
      make_kernel_def<UnravelIndexOp<int64_t>>("UnravelIndex", "CPU", {{"Tidx", {DType::int64}}}));
  // TensorFlow 2.21's: every real number type.
  register_search<LowerBoundOp>(r, "LowerBound", RealNumberTypes{});
  register_search<UpperBoundOp>(r, "UpperBound", RealNumberTypes{});
  register_for_list<NthElementOp>(r, "NthElement", RealNumberTypes{});
  // TensorFlow registers the in-place ops for every type; adding and subtracting refuse bool
  // and string when they run ("Unsupported data type: bool").
  r.add(make_kernel_def<InplaceOp<InplaceKind::update>>("InplaceUpdate", "CPU",
                                                        {{"T", kValueTypes}}));
  r.add(make_kernel_def<InplaceOp<InplaceKind::add>>("InplaceAdd", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<InplaceOp<InplaceKind::sub>>("InplaceSub", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<EmptyOp>("Empty", "CPU", {{"dtype", kValueTypes}}));
  r.add(make_kernel_def<ParallelConcatOp>("ParallelConcat", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<GuaranteeConstOp>("GuaranteeConst", "CPU", {{"T", kMovableTypes}}));
  register_real<CheckNumericsV2Op, float, double, half_t, bfloat16_t>(r, "CheckNumericsV2");
}

}  // namespace detail

}  // namespace af
