#pragma once

// Pieces several CPU kernel families share; private to the kernels module (what the kernels
// share with the ops' definitions is in actorflow/ops/detail/). Element moves by element size
// and strided walks (transform, strided-slice, array, input and segment kernels), TensorFlow's
// SliceDebugString, the guarded Philox generator of the random kernels, pooling windows and
// BiasAdd's data_format (nn kernels), and the registration of one kernel template for several
// types.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/variant.hpp"

namespace af::detail {

/// kValueTypes and variant: for the kernels that move elements without reading them and that
/// TensorFlow registers for all types: Pack, Unpack and Reshape build and take apart batches of
/// lists (TensorListPushBackBatch's handles); ExpandDims and Squeeze refuse variants as
/// TensorFlow's kernels do ("ExpandDims on Variant not supported").
inline const std::vector<DType> kMovableTypes = [] {
  std::vector<DType> types = kValueTypes;
  types.push_back(DType::variant);
  return types;
}();

// -- kernels that return a Status ----------------------------------------------------------

/// A kernel written as `Status run(ctx)`: a failed run fails the step with the status and
/// the node named after its message (`node_suffix`), as TensorFlow's OP_REQUIRES does.
class StatusKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) final {
    Status s = run(ctx);
    if (!s.ok()) ctx.fail(s.with_context(node_suffix(name())));
  }

 protected:
  /// The kernel's work; a non-OK status fails the step.
  virtual Status run(OpKernelContext& ctx) = 0;
};

/// std::hash of a value, and of a complex number its two parts' (the keys of Unique, ListDiff
/// and UniqueWithCounts).
struct ValueHash {
  /// The hash of `k`.
  template <class K>
  std::size_t operator()(const K& k) const {
    if constexpr (is_complex_v<K>) {
      const std::hash<typename K::value_type> part;
      return part(k.real()) * 31 + part(k.imag());
    } else {
      return std::hash<K>{}(k);
    }
  }
};

// -- moving elements -----------------------------------------------------------------------

/// Calls `f(E{})` with an element type E of the size of `t`'s elements (std::uint8_t,
/// std::uint16_t, std::uint32_t, std::uint64_t or, for complex128, complex128_t; std::string,
/// Variant): kernels that only
/// move elements need one instantiation per element size.
template <class F>
void visit_storage(DType t, F&& f) {
  if (t == DType::string) return f(std::string{});
  if (t == DType::variant) return f(Variant{});
  switch (dtype_size(t)) {
    case 1:
      return f(std::uint8_t{});
    case 2:
      return f(std::uint16_t{});
    case 4:
      return f(std::uint32_t{});
    case 8:
      return f(std::uint64_t{});
    default:
      return f(complex128_t{});  // 16 bytes
  }
}

/// The elements of `t` as E, an element type visit_storage chose for `t`'s dtype.
template <class E>
const E* elements(const Tensor& t) {
  return static_cast<const E*>(t.raw_data());
}

/// The elements of `t` as E, an element type visit_storage chose for `t`'s dtype.
template <class E>
E* elements(Tensor& t) {
  return static_cast<E*>(t.raw_data());
}

/// The row-major strides of `shape`, in elements (the last dimension's is 1; none for a
/// scalar).
inline std::vector<Index> row_major_strides(const Shape& shape) {
  std::vector<Index> strides(static_cast<std::size_t>(shape.rank()), 1);
  for (int d = shape.rank() - 2; d >= 0; --d)
    strides[static_cast<std::size_t>(d)] =
        strides[static_cast<std::size_t>(d) + 1] * shape.dim(d + 1);
  return strides;
}

/// Walks the block `dims` (at least one dimension, all positive) in row-major order through a
/// tensor in which coordinate k advances `steps[k]` elements (negative: backwards) and the
/// block's first element is at `start`: calls `row(o, offset)` for each innermost row, `o` the
/// block index of its first element and `offset` that element's offset in the tensor (the
/// row's elements follow `steps.back()` apart).
template <class Row>
void for_each_strided_row(const std::vector<Index>& dims, const std::vector<Index>& steps,
                          Index start, Row&& row) {
  const std::size_t rank = dims.size();
  const Index inner = dims[rank - 1];
  Index total = 1;
  for (Index d : dims) total *= d;
  std::vector<Index> coord(rank, 0);
  Index offset = start;
  for (Index o = 0; o < total; o += inner) {
    row(o, offset);
    for (std::size_t k = rank - 1; k-- > 0;) {
      if (++coord[k] < dims[k]) {
        offset += steps[k];
        break;
      }
      coord[k] = 0;
      offset -= steps[k] * (dims[k] - 1);
    }
  }
}

/// Copies `count` elements from `src` at `src_offset` to `dst` at `dst_offset` (both of one
/// dtype; strings and variants element by element, the rest as bytes). Nothing for `count` 0.
inline void copy_elements(const Tensor& src, Index src_offset, Tensor& dst, Index dst_offset,
                          Index count) {
  if (count == 0) return;
  if (src.dtype() == DType::string) {
    const std::string* s = src.data<std::string>() + src_offset;
    std::copy(s, s + count, dst.data<std::string>() + dst_offset);
    return;
  }
  if (src.dtype() == DType::variant) {  // shared values: copied as references, not bytes
    const Variant* v = src.data<Variant>() + src_offset;
    std::copy(v, v + count, dst.data<Variant>() + dst_offset);
    return;
  }
  const auto size = static_cast<Index>(dtype_size(src.dtype()));
  std::memcpy(static_cast<char*>(dst.raw_data()) + dst_offset * size,
              static_cast<const char*>(src.raw_data()) + src_offset * size,
              static_cast<std::size_t>(count * size));
}

/// TensorFlow's SliceDebugString: the multi-index of flat element `flat` of `shape`, "[1,2]"
/// ("" for a scalar), as index errors name an element.
inline std::string slice_debug_string(const Shape& shape, Index flat) {
  const int rank = shape.rank();
  if (rank == 0) return "";
  const std::vector<Index> strides = row_major_strides(shape);
  std::string out = "[";
  Index left = flat;
  for (int i = 0; i < rank; ++i) {
    if (i) out += ",";
    out += std::to_string(left / strides[static_cast<std::size_t>(i)]);
    left %= strides[static_cast<std::size_t>(i)];
  }
  return out + "]";
}

/// GatherV2's and ResourceGather's output 0: the entries of `params` (rank >= 1) along `axis`
/// (in [0, rank)) that `indices` (int32 or int64) names, shape `params.shape[:axis] +
/// indices.shape + params.shape[axis + 1:]`. Fails the kernel with InvalidArgument "indices[1]
/// = 7 is not in [0, 5)" at the first index out of range.
inline void gather_output(OpKernelContext& ctx, const Tensor& params, const Tensor& indices,
                          int axis, const std::string& node) {
  const int rank = params.rank();
  const Index gather_dim = params.shape().dim(axis);
  std::vector<std::int64_t> dims;
  Index outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) {
    dims.push_back(params.shape().dim(d));
    outer *= params.shape().dim(d);
  }
  for (auto d : indices.shape().dims()) dims.push_back(d);
  for (int d = axis + 1; d < rank; ++d) {
    dims.push_back(params.shape().dim(d));
    inner *= params.shape().dim(d);
  }
  const Index n = indices.num_elements();
  std::vector<Index> index(static_cast<std::size_t>(n));
  if (indices.dtype() == DType::int64) {
    auto v = indices.flat<std::int64_t>();
    std::copy(v.begin(), v.end(), index.begin());
  } else {
    auto v = indices.flat<std::int32_t>();
    std::copy(v.begin(), v.end(), index.begin());
  }
  Tensor& out = ctx.allocate_output(0, params.dtype(), Shape(std::move(dims)));
  if (n == 0 || outer == 0 || inner == 0) return;
  for (Index i = 0; i < n; ++i)
    if (index[static_cast<std::size_t>(i)] < 0 || index[static_cast<std::size_t>(i)] >= gather_dim)
      return ctx.fail(invalid_argument("indices" + slice_debug_string(indices.shape(), i) + " = " +
                                       std::to_string(index[static_cast<std::size_t>(i)]) +
                                       " is not in [0, " + std::to_string(gather_dim) + ")" +
                                       node_suffix(node)));
  for (Index o = 0; o < outer; ++o)
    for (Index i = 0; i < n; ++i)
      copy_elements(params, (o * gather_dim + index[static_cast<std::size_t>(i)]) * inner, out,
                    (o * n + i) * inner, inner);
}

// -- random numbers ------------------------------------------------------------------------

/// TensorFlow's SingleSampleAdapter<PhiloxRandom>: the 32-bit samples of the generator `*gen`
/// (which must outlive the adapter), one at a time; a fresh Philox call every four.
class SingleSampleAdapter {
 public:
  /// Draws from `*gen`, starting with its next call.
  explicit SingleSampleAdapter(PhiloxRandom* gen) : gen_(gen) {}
  /// The next 32-bit sample.
  std::uint32_t operator()() {
    if (used_ == 4) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[static_cast<std::size_t>(used_++)];
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::Result block_{};
  int used_ = 4;
};

/// TensorFlow's GuardedPhiloxRandom: the generator of a random kernel, seeded from its attrs
/// "seed" and "seed2", of which each run reserves a stretch under a lock, so successive runs
/// of one kernel continue TensorFlow's sequence.
class GuardedPhiloxRandom {
 public:
  /// Reads attrs "seed" and "seed2" and seeds the generator with them, or with fresh random
  /// seeds (TensorFlow's random::New64()) when both are 0. Returns the first failing
  /// get_attr's status; the generator then stays unseeded (key and counter zero).
  Status init(OpKernelConstruction& c) {
    std::int64_t seed = 0;
    std::int64_t seed2 = 0;
    if (Status s = c.get_attr("seed", &seed); !s.ok()) return s;
    if (Status s = c.get_attr("seed2", &seed2); !s.ok()) return s;
    if (seed == 0 && seed2 == 0) {
      // Unseeded ops get fresh random seeds, as TensorFlow's random::New64().
      std::random_device rd;
      auto new64 = [&rd] { return (static_cast<std::uint64_t>(rd()) << 32) | rd(); };
      generator_ = PhiloxRandom(new64(), new64());
    } else {
      generator_ =
          PhiloxRandom(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed2));
    }
    return {};
  }

  /// GuardedPhiloxRandom::ReserveSamples128: the generator as it stands; the shared one then
  /// skips the `calls` 128-bit Philox calls handed out.
  PhiloxRandom reserve_samples128(std::uint64_t calls) {
    std::lock_guard<std::mutex> lock(mu_);
    PhiloxRandom local = generator_;
    generator_.skip(calls);
    return local;
  }

  /// GuardedPhiloxRandom::ReserveSamples32: whole 128-bit calls covering `samples` 32-bit
  /// words.
  PhiloxRandom reserve_samples32(Index samples) {
    return reserve_samples128(static_cast<std::uint64_t>((samples + 3) / 4));
  }

 private:
  std::mutex mu_;
  PhiloxRandom generator_;
};

// -- nn kernels ----------------------------------------------------------------------------

/// The window of pooling output (oy, ox) clipped to the input: rows [y0, y1), columns
/// [x0, x1).
struct PoolWindow {
  Index y0, y1, x0, x1;
};

/// The window of output (oy, ox) of the pooling `g`, clipped to the input (padding left out).
inline PoolWindow pool_window(const Pool2DGeometry& g, Index oy, Index ox) {
  return {std::max<Index>(0, oy * g.stride_rows - g.pad_rows),
          std::min<Index>(g.in_rows, oy * g.stride_rows - g.pad_rows + g.window_rows),
          std::max<Index>(0, ox * g.stride_cols - g.pad_cols),
          std::min<Index>(g.in_cols, ox * g.stride_cols - g.pad_cols + g.window_cols)};
}

/// BiasAdd's and BiasAddGrad's attr data_format (default "NHWC"): true for "NCHW". Any value
/// but "NHWC" and "NCHW" sets `*s` to TensorFlow's "Invalid data format" (with the node's
/// suffix); otherwise `*s` is left as it is.
inline bool bias_data_format_is_nchw(OpKernelConstruction& c, Status* s) {
  std::string format = "NHWC";
  c.get_attr("data_format", &format);
  if (format != "NHWC" && format != "NCHW")
    *s = invalid_argument("Invalid data format" + node_suffix(c.def.name));
  return format == "NCHW";
}

// -- registration --------------------------------------------------------------------------

/// Registers `Kernel<T>` for `op` on the CPU for each of `Ts` in order, constrained on attr
/// "T" (dtype_of_v<T>).
template <template <class> class Kernel, class... Ts>
void register_for_types(KernelRegistry& r, const std::string& op) {
  (r.add(make_kernel_def<Kernel<Ts>>(op, "CPU", {{"T", {dtype_of_v<Ts>}}})), ...);
}

/// A list of element types: the types one kernel template is registered for.
template <class... Ts>
struct TypeList {};

/// The TypeList of the types of `Lists` in order.
template <class... Lists>
struct ConcatTypes;
template <class... Ts>
struct ConcatTypes<TypeList<Ts...>> {
  using type = TypeList<Ts...>;
};
template <class... Ts, class... Us, class... Rest>
struct ConcatTypes<TypeList<Ts...>, TypeList<Us...>, Rest...> {
  using type = typename ConcatTypes<TypeList<Ts..., Us...>, Rest...>::type;
};
/// The TypeList of the types of `Lists` in order.
template <class... Lists>
using Concat = typename ConcatTypes<Lists...>::type;

// TensorFlow's type groups (register_types.h), as far as actorflow has the types.
/// TF_CALL_FLOAT_TYPES: the real floating-point types.
using FloatTypes = TypeList<float, double, bfloat16_t, half_t>;
/// TF_CALL_COMPLEX_TYPES.
using ComplexTypes = TypeList<complex64_t, complex128_t>;
/// The floating-point and complex types (TensorFlow's unary math: Exp, Log, Sqrt, Tanh...).
using FloatComplexTypes = Concat<FloatTypes, ComplexTypes>;
/// TF_CALL_INTEGRAL_TYPES: the signed and unsigned integers of 8 to 64 bits.
using IntegralTypes = TypeList<std::int32_t, std::int64_t, std::uint8_t, std::int8_t, std::int16_t,
                               std::uint16_t, std::uint32_t, std::uint64_t>;
/// TF_CALL_REAL_NUMBER_TYPES: the floating-point and integral types.
using RealNumberTypes = Concat<FloatTypes, IntegralTypes>;
/// TF_CALL_NUMBER_TYPES: the real number and complex types.
using NumberTypes = Concat<RealNumberTypes, ComplexTypes>;

/// The DTypes of the types of `list`, in order (a kernel's constraint list).
template <class... Ts>
std::vector<DType> dtypes_of(TypeList<Ts...> /*list*/) {
  return {dtype_of_v<Ts>...};
}

/// Calls `f(T{})` for each type T of `list` in order (a registration lambda taking a tag).
template <class... Ts, class F>
void for_each_type(TypeList<Ts...> /*list*/, F&& f) {
  (f(Ts{}), ...);
}

/// Registers `Kernel<T>` for `op` on the CPU for each type of `list` in order, constrained on
/// attr "T" (dtype_of_v<T>).
template <template <class> class Kernel, class... Ts>
void register_for_list(KernelRegistry& r, const std::string& op, TypeList<Ts...> /*list*/) {
  register_for_types<Kernel, Ts...>(r, op);
}

/// Registers `Kernel<T>` for `op` on the CPU for each of `Ts` in order, constrained on
/// `more` and then on attr `attr` (dtype_of_v<T>).
template <template <class> class Kernel, class... Ts>
void register_for_types_on(
    KernelRegistry& r, const char* op, const char* attr,
    const std::vector<std::pair<std::string, std::vector<DType>>>& more = {}) {
  (
      [&] {
        auto constraints = more;
        constraints.push_back({attr, {dtype_of_v<Ts>}});
        r.add(make_kernel_def<Kernel<Ts>>(op, "CPU", std::move(constraints)));
      }(),
      ...);
}

}  // namespace af::detail
