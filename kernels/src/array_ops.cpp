// Reshape, Pack, ConcatV2, Fill, Cast, Unique and ListDiff: CPU kernels. Their definitions (shape
// functions, graph-building functions) are in ops/src/defs/array_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "actorflow/ops/detail/array_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;

// Every type a tensor of values may have (resources excluded), the index types and Cast's.
using detail::kCastTypes;
using detail::kIndexTypes;
using detail::kValueTypes;

// Casts of more elements than this are worth a pool thread.
constexpr Index kExpensiveCastElements = 256 * 1024;

using detail::copy_elements;
using detail::index_values;
using detail::node_suffix;

// -- Reshape ------------------------------------------------------------------------------

// Resolves the requested sizes of a Reshape (one may be -1) against `num_elements` values;
// the errors are TensorFlow's ReshapeOp messages.
Status resolve_reshape(const Shape& input, const std::vector<Index>& sizes, Shape* out) {
  Index product = 1;  // of the known, non-zero sizes
  int unknown = -1;
  bool has_zero = false;
  std::vector<std::int64_t> dims(sizes.begin(), sizes.end());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const Index size = sizes[i];
    if (size == -1) {
      if (unknown >= 0)
        return invalid_argument("Only one input size may be -1, not both " +
                                std::to_string(unknown) + " and " + std::to_string(i));
      unknown = static_cast<int>(i);
    } else if (size < 0) {
      return invalid_argument("Size " + std::to_string(i) + " must be non-negative, not " +
                              std::to_string(size));
    } else if (size == 0) {
      has_zero = true;
    } else {
      product *= size;
    }
  }
  const Index n = input.num_elements();
  if (unknown >= 0) {
    // As TensorFlow: with a zero in the requested sizes, zero input dims are not counted, so
    // the other dimensions can still be inferred.
    Index counted = 1;
    bool input_has_zero = false;
    for (auto d : input.dims()) {
      if (d > 0 || !has_zero)
        counted *= d;
      else
        input_has_zero = true;
    }
    const Index missing = product > 0 ? counted / product : 0;
    if (!input_has_zero && product * missing != counted)
      return invalid_argument("Input to reshape is a tensor with " + std::to_string(counted) +
                              " values, but the requested shape requires a multiple of " +
                              std::to_string(product));
    dims[static_cast<std::size_t>(unknown)] = missing;
  } else {
    const Index requested = has_zero ? 0 : product;
    if (requested != n)
      return invalid_argument("Input to reshape is a tensor with " + std::to_string(n) +
                              " values, but the requested shape has " + std::to_string(requested));
  }
  *out = Shape(std::move(dims));
  return {};
}

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& sizes = ctx.input(1);
    if (sizes.rank() != 1)
      return ctx.fail(invalid_argument("sizes input must be 1-D, not " + sizes.shape().to_string() +
                                       node_suffix(name())));
    Shape shape;
    Status s = resolve_reshape(x.shape(), index_values(sizes), &shape);
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    ctx.set_output(0, x.reshaped(std::move(shape)));  // shares the buffer, as TensorFlow does
  }
};

// -- Pack ---------------------------------------------------------------------------------

class PackOp : public OpKernel {
 public:
  PackOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::int64_t axis = 0;
    c.get_attr("axis", &axis);
    axis_ = axis;
    (void)s;
  }

  void compute(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs();
    if (n == 0)
      return ctx.fail(invalid_argument("Pack needs at least one input" + node_suffix(name())));
    const Tensor& first = ctx.input(0);
    for (int i = 1; i < n; ++i)
      if (ctx.input(i).shape() != first.shape())
        return ctx.fail(invalid_argument(
            "Shapes of all inputs must match: values[0].shape = " + first.shape().to_string() +
            " != values[" + std::to_string(i) + "].shape = " + ctx.input(i).shape().to_string() +
            node_suffix(name())));
    const int out_rank = first.rank() + 1;
    Index axis = axis_ < 0 ? axis_ + out_rank : axis_;
    if (axis < 0 || axis >= out_rank)
      return ctx.fail(invalid_argument("axis = " + std::to_string(axis_) + " not in [" +
                                       std::to_string(-out_rank) + ", " + std::to_string(out_rank) +
                                       ")" + node_suffix(name())));
    std::vector<std::int64_t> dims = first.shape().dims();
    dims.insert(dims.begin() + axis, n);
    Index before = 1, after = 1;
    for (int d = 0; d < first.rank(); ++d) (d < axis ? before : after) *= first.shape().dim(d);
    Tensor& out = ctx.allocate_output(0, first.dtype(), Shape(std::move(dims)));
    for (Index b = 0; b < before; ++b)
      for (int i = 0; i < n; ++i)
        copy_elements(ctx.input(i), b * after, out, (b * n + i) * after, after);
  }

 private:
  Index axis_ = 0;
};

// -- ConcatV2 -----------------------------------------------------------------------------

// ConcatV2(values..., axis) and TensorFlow's first Concat(concat_dim, values...).
class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction& c) : OpKernel(c), v1_(c.def.op == "Concat") {}

  void compute(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs() - 1;
    const int first_value = v1_ ? 1 : 0;
    const auto value = [&](int i) -> const Tensor& { return ctx.input(first_value + i); };
    if (n < 1)
      return ctx.fail(invalid_argument("ConcatV2 needs at least one value" + node_suffix(name())));
    const Tensor& axis_tensor = ctx.input(v1_ ? 0 : n);
    if (axis_tensor.num_elements() != 1 || axis_tensor.rank() != 0)
      return ctx.fail(
          invalid_argument("Concat dim tensor should be a scalar integer, but got shape " +
                           axis_tensor.shape().to_string() + node_suffix(name())));
    const Tensor& first = value(0);
    const int rank = first.rank();
    Index axis = index_values(axis_tensor)[0];
    if (axis < -rank || axis >= rank)
      return ctx.fail(
          invalid_argument("ConcatOp : Expected concatenating dimensions in the range [" +
                           std::to_string(-rank) + ", " + std::to_string(rank) + "), but got " +
                           std::to_string(axis) + node_suffix(name())));
    if (axis < 0) axis += rank;
    const int ax = static_cast<int>(axis);
    Index axis_total = 0;
    for (int i = 0; i < n; ++i) {
      const Shape& s = value(i).shape();
      if (s.rank() != rank)
        return ctx.fail(
            invalid_argument("ConcatOp : Ranks of all input tensors should match: shape[0] = " +
                             first.shape().to_string() + " vs. shape[" + std::to_string(i) +
                             "] = " + s.to_string() + node_suffix(name())));
      for (int d = 0; d < rank; ++d)
        if (d != ax && s.dim(d) != first.shape().dim(d))
          return ctx.fail(invalid_argument(
              "ConcatOp : Dimension " + std::to_string(d) +
              " in both shapes must be equal: shape[0] = " + first.shape().to_string() +
              " vs. shape[" + std::to_string(i) + "] = " + s.to_string() + node_suffix(name())));
      axis_total += s.dim(ax);
    }
    std::vector<std::int64_t> dims = first.shape().dims();
    dims[static_cast<std::size_t>(ax)] = axis_total;
    Index before = 1, after = 1;
    for (int d = 0; d < ax; ++d) before *= dims[static_cast<std::size_t>(d)];
    for (int d = ax + 1; d < rank; ++d) after *= dims[static_cast<std::size_t>(d)];
    Tensor& out = ctx.allocate_output(0, first.dtype(), Shape(std::move(dims)));
    const Index row = axis_total * after;
    for (Index b = 0; b < before; ++b) {
      Index offset = b * row;
      for (int i = 0; i < n; ++i) {
        const Index slab = value(i).shape().dim(ax) * after;
        copy_elements(value(i), b * slab, out, offset, slab);
        offset += slab;
      }
    }
  }

 private:
  bool v1_;
};

// -- Fill ---------------------------------------------------------------------------------

class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    if (ctx.num_inputs() != 2) return false;
    Index n = 1;
    for (Index d : index_values(ctx.input(0))) n *= std::max<Index>(d, 0);
    return n > kExpensiveCastElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& dims = ctx.input(0);
    const Tensor& value = ctx.input(1);
    if (dims.rank() != 1)
      return ctx.fail(invalid_argument("dims must be a vector, got shape " +
                                       dims.shape().to_string() + node_suffix(name())));
    if (value.rank() != 0)
      return ctx.fail(invalid_argument("value must be a scalar, got shape " +
                                       value.shape().to_string() + node_suffix(name())));
    std::vector<std::int64_t> sizes = index_values(dims);
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] < 0)
        return ctx.fail(invalid_argument("Dimension " + std::to_string(sizes[i]) + " must be >= 0" +
                                         node_suffix(name())));
    Tensor& out = ctx.allocate_output(0, value.dtype(), Shape(std::move(sizes)));
    if (value.dtype() == DType::string) {
      auto o = out.flat<std::string>();
      std::fill(o.begin(), o.end(), value.data<std::string>()[0]);
      return;
    }
    visit_numeric_dtype(value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      auto o = out.flat<T>();
      std::fill(o.begin(), o.end(), value.data<T>()[0]);
    });
  }
};

// -- Cast ---------------------------------------------------------------------------------

// Float to integer as x86's truncating conversions (which TensorFlow's CPU kernels compile
// to): NaN and out-of-range values become the type's minimum; the types narrower than 32 bits
// go through int32 and uint32 through int64 (keeping the low bits), and uint64 is GCC's
// sequence around 2^63.
template <class D>
D float_to_integer(double x) {
  if constexpr (sizeof(D) < 4) {
    return static_cast<D>(static_cast<std::uint32_t>(float_to_integer<std::int32_t>(x)));
  } else if constexpr (std::is_same_v<D, std::uint32_t>) {
    return static_cast<D>(static_cast<std::uint64_t>(float_to_integer<std::int64_t>(x)));
  } else if constexpr (std::is_same_v<D, std::uint64_t>) {
    constexpr double two63 = 9223372036854775808.0;
    if (x < two63) return static_cast<std::uint64_t>(float_to_integer<std::int64_t>(x));
    return static_cast<std::uint64_t>(float_to_integer<std::int64_t>(x - two63)) ^
           (std::uint64_t{1} << 63);
  } else {
    constexpr double lo = static_cast<double>(std::numeric_limits<D>::min());
    if (!(x >= lo && x < -lo)) return std::numeric_limits<D>::min();
    return static_cast<D>(x);
  }
}

// TensorFlow's Cast of one element (Eigen's scalar casts): complex to real keeps the real
// part, real to complex has a zero imaginary part.
template <class D, class S>
D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (is_half_like_v<S>) {
    return convert<D>(static_cast<float>(v));
  } else if constexpr (is_complex_v<S>) {
    if constexpr (is_complex_v<D>)
      return D(static_cast<typename D::value_type>(v.real()),
               static_cast<typename D::value_type>(v.imag()));
    else
      return convert<D>(v.real());
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (is_half_like_v<D>) {
    // Wider types go through float, as TensorFlow's conversions do.
    return D(static_cast<float>(v));
  } else if constexpr (is_complex_v<D>) {
    return D(static_cast<typename D::value_type>(v), 0);
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    return float_to_integer<D>(static_cast<double>(v));
  } else {
    return static_cast<D>(v);  // integer to integer wraps (C++20), anything to float rounds
  }
}

class CastOp : public OpKernel {
 public:
  CastOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("SrcT", &src_);
    if (s->ok()) *s = c.get_attr("DstT", &dst_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 1 && ctx.input(0).num_elements() > kExpensiveCastElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (src_ == dst_) return ctx.set_output(0, x);
    Tensor& out = ctx.allocate_output_for_overwrite(0, dst_, x.shape());
    visit_numeric_dtype(src_, [&](auto src_tag) {
      using S = decltype(src_tag);
      visit_numeric_dtype(dst_, [&](auto dst_tag) {
        using D = decltype(dst_tag);
        const S* in = x.data<S>();
        D* o = out.data<D>();
        const Index n = x.num_elements();
        for (Index i = 0; i < n; ++i) o[i] = convert<D>(in[i]);
      });
    });
  }

 private:
  DType src_ = DType::invalid;
  DType dst_ = DType::invalid;
};

// Unique (unique_op.cc): the distinct values in the order they first occur, and for each
// element its value's position. Values compare as the type's == does (0.0 and -0.0 are one
// value; every NaN is its own).
class UniqueOp : public OpKernel {
 public:
  UniqueOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("out_idx", &out_idx_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 1)
      return ctx.fail(
          invalid_argument("unique expects a 1D vector." + detail::node_suffix(name())));
    const Index n = x.num_elements();
    Tensor idx(out_idx_, Shape{n}, Tensor::for_overwrite);
    std::vector<Index> first;  // the element each distinct value first occurs at
    auto set_idx = [&](Index i, Index v) {
      if (out_idx_ == DType::int64)
        idx.data<std::int64_t>()[i] = v;
      else
        idx.data<std::int32_t>()[i] = static_cast<std::int32_t>(v);
    };
    auto run = [&](auto key_of) {
      using Key = decltype(key_of(Index{0}));
      std::unordered_map<Key, Index, detail::ValueHash> seen;
      seen.reserve(static_cast<std::size_t>(n));
      for (Index i = 0; i < n; ++i) {
        auto [it, inserted] = seen.emplace(key_of(i), static_cast<Index>(first.size()));
        if (inserted) first.push_back(i);
        set_idx(i, it->second);
      }
    };
    if (x.dtype() == DType::string) {
      const std::string* s = x.data<std::string>();
      run([s](Index i) { return s[i]; });
    } else {
      visit_numeric_dtype(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* v = x.data<T>();
        if constexpr (is_half_like_v<T>)
          run([v](Index i) { return static_cast<float>(v[i]); });
        else
          run([v](Index i) { return v[i]; });
      });
    }
    Tensor y(x.dtype(), Shape{static_cast<Index>(first.size())}, Tensor::for_overwrite);
    for (std::size_t j = 0; j < first.size(); ++j)
      detail::copy_elements(x, first[j], y, static_cast<Index>(j), 1);
    ctx.set_output(0, std::move(y));
    ctx.set_output(1, std::move(idx));
  }

 private:
  DType out_idx_ = DType::int32;
};

// ListDiff (listdiff_op.cc): the elements of vector x that are not in vector y, in x's order
// with repeats kept, and their positions in x. Values compare as Unique's do.
class ListDiffOp : public OpKernel {
 public:
  ListDiffOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("out_idx", &out_idx_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.rank() != 1)
      return ctx.fail(invalid_argument("x should be a 1D vector." + detail::node_suffix(name())));
    if (y.rank() != 1)
      return ctx.fail(invalid_argument("y should be a 1D vector." + detail::node_suffix(name())));
    std::vector<Index> kept;
    auto run = [&](auto key_of_x, auto key_of_y) {
      using Key = decltype(key_of_x(Index{0}));
      std::unordered_set<Key, detail::ValueHash> in_y;
      for (Index i = 0; i < y.num_elements(); ++i) in_y.insert(key_of_y(i));
      for (Index i = 0; i < x.num_elements(); ++i)
        if (!in_y.contains(key_of_x(i))) kept.push_back(i);
    };
    if (x.dtype() == DType::string) {
      const std::string* xs = x.data<std::string>();
      const std::string* ys = y.data<std::string>();
      run([xs](Index i) { return xs[i]; }, [ys](Index i) { return ys[i]; });
    } else {
      visit_numeric_dtype(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        const T* xv = x.data<T>();
        const T* yv = y.data<T>();
        if constexpr (is_half_like_v<T>)
          run([xv](Index i) { return static_cast<float>(xv[i]); },
              [yv](Index i) { return static_cast<float>(yv[i]); });
        else
          run([xv](Index i) { return xv[i]; }, [yv](Index i) { return yv[i]; });
      });
    }
    const auto n = static_cast<Index>(kept.size());
    Tensor out(x.dtype(), Shape{n}, Tensor::for_overwrite);
    Tensor idx(out_idx_, Shape{n}, Tensor::for_overwrite);
    for (Index j = 0; j < n; ++j) {
      const Index i = kept[static_cast<std::size_t>(j)];
      detail::copy_elements(x, i, out, j, 1);
      if (out_idx_ == DType::int64)
        idx.data<std::int64_t>()[j] = i;
      else
        idx.data<std::int32_t>()[j] = static_cast<std::int32_t>(i);
    }
    ctx.set_output(0, std::move(out));
    ctx.set_output(1, std::move(idx));
  }

 private:
  DType out_idx_ = DType::int32;
};

}  // namespace

namespace detail {

void register_array_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ListDiffOp>("ListDiff", "CPU",
                                    {{"T", kValueTypes}, {"out_idx", kIndexTypes}}));
  r.add(make_kernel_def<UniqueOp>("Unique", "CPU", {{"T", kValueTypes}, {"out_idx", kIndexTypes}}));
  r.add(make_kernel_def<ReshapeOp>("Reshape", "CPU",
                                   {{"T", detail::kMovableTypes}, {"Tshape", kIndexTypes}}));
  r.add(make_kernel_def<PackOp>("Pack", "CPU", {{"T", detail::kMovableTypes}}));
  r.add(make_kernel_def<ConcatOp>("ConcatV2", "CPU", {{"T", kValueTypes}, {"Tidx", kIndexTypes}}));
  r.add(make_kernel_def<ConcatOp>("Concat", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<FillOp>("Fill", "CPU", {{"T", kValueTypes}, {"index_type", kIndexTypes}}));
  r.add(make_kernel_def<CastOp>("Cast", "CPU", {{"SrcT", kCastTypes}, {"DstT", kCastTypes}}));
}

}  // namespace detail

}  // namespace af
