// UniqueWithCounts, UniqueV2, UniqueWithCountsV2, Bincount, DenseBincount, RandomUniformInt
// and Multinomial: CPU kernels with TensorFlow's checks and messages (unique_op.cc,
// bincount_op.cc, random_op.cc, multinomial_op.cc). Their definitions are in
// ops/src/defs/misc_math_ops.cpp.
//
// RandomUniformInt reproduces TensorFlow's CPU values for a given (seed, seed2): Philox4x32-10,
// 256 samples reserved per output element, UniformDistribution<PhiloxRandom, int32/int64>
// (`lo + sample % (hi - lo)`, four int32 or two int64 per Philox call). Multinomial follows
// TensorFlow's CPU functor for an unsharded batch: one generator from the reserved stretch,
// two 32-bit samples (a double in [0, 1)) per draw, rows one after another.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "kernel_helpers.hpp"
#include "random_distributions.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::GuardedPhiloxRandom;
using detail::Index;
using detail::index_values;
using detail::kIndexTypes;
using detail::PhiloxUniformInt;
using detail::shape_from_tensor;
using detail::SingleSampleAdapter;
using detail::StatusKernel;

// Writes `v` as element `i` of an int32 or int64 tensor.
void set_index(Tensor& t, Index i, Index v) {
  if (t.dtype() == DType::int64)
    t.data<std::int64_t>()[i] = v;
  else
    t.data<std::int32_t>()[i] = static_cast<std::int32_t>(v);
}

// -- Unique -------------------------------------------------------------------------------

// The slices of a tensor viewed as [outer, dim, inner] along its middle dimension, hashed
// and compared element by element as TensorFlow's UniqueOp does (NaN never equals itself; 0
// and -0 are one value; bfloat16 through float).
template <class V>
struct SliceKeys {
  const V* data;
  Index outer, dim, inner;

  std::size_t hash(Index j) const {
    std::size_t h = 0;
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < inner; ++i)
        h = h * 1000003u ^ detail::ValueHash()(data[(o * dim + j) * inner + i]);
    return h;
  }
  bool equal(Index a, Index b) const {
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < inner; ++i)
        if (!(data[(o * dim + a) * inner + i] == data[(o * dim + b) * inner + i])) return false;
    return true;
  }
};

// The distinct slices of `keys` in order of first occurrence: `first[k]` the slice the k-th
// distinct one first appears at, `index[j]` the distinct slice slice j equals.
template <class V>
void find_unique(const SliceKeys<V>& keys, std::vector<Index>* first, std::vector<Index>* index) {
  auto hash = [&keys](Index j) { return keys.hash(j); };
  auto eq = [&keys](Index a, Index b) { return keys.equal(a, b); };
  std::unordered_map<Index, Index, decltype(hash), decltype(eq)> seen(
      static_cast<std::size_t>(keys.dim), hash, eq);
  index->resize(static_cast<std::size_t>(keys.dim));
  for (Index j = 0; j < keys.dim; ++j) {
    auto [it, inserted] = seen.emplace(j, static_cast<Index>(first->size()));
    if (inserted) first->push_back(j);
    (*index)[static_cast<std::size_t>(j)] = it->second;
  }
}

// UniqueWithCounts(x), UniqueV2(x, axis) and UniqueWithCountsV2(x, axis): the distinct
// elements of a vector (or distinct slices along `axis`) in order of first occurrence, each
// element's (slice's) position among them and, with counts, how often each occurs.
class UniqueOp : public StatusKernel {
 public:
  UniqueOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("out_idx", &out_idx_);
    with_counts_ = c.def.op == "UniqueWithCounts" || c.def.op == "UniqueWithCountsV2";
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Index outer = 1, dim = 0, inner = 1;
    int axis = 0;
    bool along_axis = false;
    if (ctx.num_inputs() == 2) {
      const Tensor& axis_t = ctx.input(1);
      if (axis_t.rank() != 1) return invalid_argument("axis expects a 1D vector.");
      if (axis_t.num_elements() > 1)
        return invalid_argument("axis does not support input tensors larger than 1 elements");
      if (axis_t.num_elements() == 1) {
        Index a = index_values(axis_t)[0];
        if (a < 0) a += x.rank();
        if (a < 0 || a >= x.rank())
          return invalid_argument("axis has to be between [0, " + std::to_string(x.rank()) + ")");
        axis = static_cast<int>(a);
        along_axis = true;
      }
    }
    if (!along_axis) {
      if (x.rank() != 1) return invalid_argument("unique expects a 1D vector.");
      dim = x.num_elements();
    } else {
      for (int d = 0; d < axis; ++d) outer *= x.shape().dim(d);
      dim = x.shape().dim(axis);
      for (int d = axis + 1; d < x.rank(); ++d) inner *= x.shape().dim(d);
    }
    std::vector<Index> first, index;
    if (x.dtype() == DType::string) {
      find_unique(SliceKeys<std::string>{x.data<std::string>(), outer, dim, inner}, &first, &index);
    } else {
      visit_numeric_dtype(x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (is_half_like_v<T>) {
          const Index n = x.num_elements();
          std::vector<float> wide(static_cast<std::size_t>(n));
          for (Index i = 0; i < n; ++i)
            wide[static_cast<std::size_t>(i)] = static_cast<float>(x.data<T>()[i]);
          find_unique(SliceKeys<float>{wide.data(), outer, dim, inner}, &first, &index);
        } else {
          find_unique(SliceKeys<T>{x.data<T>(), outer, dim, inner}, &first, &index);
        }
      });
    }
    const auto uniques = static_cast<Index>(first.size());
    std::vector<std::int64_t> y_dims = {uniques};
    if (along_axis) {
      y_dims = x.shape().dims();
      y_dims[static_cast<std::size_t>(axis)] = uniques;
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), Shape(std::move(y_dims)));
    for (Index o = 0; o < outer; ++o)
      for (Index k = 0; k < uniques; ++k)
        detail::copy_elements(x, (o * dim + first[static_cast<std::size_t>(k)]) * inner, y,
                              (o * uniques + k) * inner, inner);
    Tensor& idx = ctx.allocate_output(1, out_idx_, Shape{dim});
    for (Index j = 0; j < dim; ++j) set_index(idx, j, index[static_cast<std::size_t>(j)]);
    if (with_counts_) {
      std::vector<Index> counts(static_cast<std::size_t>(uniques), 0);
      for (Index k : index) ++counts[static_cast<std::size_t>(k)];
      Tensor& count = ctx.allocate_output(2, out_idx_, Shape{uniques});
      for (Index k = 0; k < uniques; ++k) set_index(count, k, counts[static_cast<std::size_t>(k)]);
    }
    return {};
  }

 private:
  DType out_idx_ = DType::int32;
  bool with_counts_ = false;
};

// -- Bincount -----------------------------------------------------------------------------

// Adds each value of `arr` (int32 or int64) below `size` to its bin of `out` (row `row` of
// `size` bins): its weight, or 1 without weights; with `binary_output` a bin holds 1 once hit.
template <class T>
Status bin_values(const std::vector<Index>& arr, const Tensor& weights, Index size,
                  bool binary_output, T* out) {
  for (Index v : arr)
    if (v < 0) return invalid_argument("Input arr must be non-negative!");
  const bool weighted = weights.num_elements() > 0;
  const T* w = weighted ? weights.data<T>() : nullptr;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const Index v = arr[i];
    if (v >= size) continue;
    if (binary_output)
      out[v] = T(1);
    else
      out[v] += weighted ? w[i] : T(1);
  }
  return {};
}

// Bincount(arr, size, weights): counts (or summed weights) of the int32 values of `arr` in
// [0, size); larger values are dropped.
template <class T>
class BincountOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& arr = ctx.input(0);
    const Tensor& size_tensor = ctx.input(1);
    const Tensor& weights = ctx.input(2);
    if (size_tensor.rank() != 0)
      return invalid_argument("Shape must be rank 0 but is rank " +
                              std::to_string(size_tensor.rank()));
    const Index size = index_values(size_tensor)[0];
    if (size < 0)
      return invalid_argument("size (" + std::to_string(size) + ") must be non-negative");
    if (weights.num_elements() > 0 && weights.num_elements() != arr.num_elements())
      return invalid_argument("Input indices and weights must have the same size.");
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape{size});
    T* o = out.data<T>();
    std::fill(o, o + size, T(0));
    return bin_values(index_values(arr), weights, size, false, o);
  }
};

// DenseBincount(input, size, weights; binary_output): Bincount of a vector (a scalar counts
// as one value) to [size], or of each row of a matrix to [rows, size].
template <class T>
class DenseBincountOp : public StatusKernel {
 public:
  DenseBincountOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (!c.get_attr("binary_output", &binary_output_).ok()) binary_output_ = false;
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& size_tensor = ctx.input(1);
    const Tensor& weights = ctx.input(2);
    if (data.rank() > 2)
      return invalid_argument("Shape must be at most rank 2 but is rank " +
                              std::to_string(data.rank()));
    if (size_tensor.rank() != 0)
      return invalid_argument("Shape must be rank 0 but is rank " +
                              std::to_string(size_tensor.rank()));
    if (!(weights.shape() == data.shape() || weights.num_elements() == 0))
      return invalid_argument(
          "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it "
          "acts as all weights equal to 1. Received " +
          weights.shape().to_string());
    const Index size = index_values(size_tensor)[0];
    if (size < 0)
      return invalid_argument("size (" + std::to_string(size) + ") must be non-negative");
    const std::vector<Index> values = index_values(data);
    if (data.rank() <= 1) {
      T* o = ctx.allocate_output(0, dtype_of_v<T>, Shape{size}).template data<T>();
      std::fill(o, o + size, T(0));
      return bin_values(values, weights, size, binary_output_, o);
    }
    const Index rows = data.shape().dim(0), cols = data.shape().dim(1);
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, Shape{rows, size});
    T* o = out.data<T>();
    std::fill(o, o + rows * size, T(0));
    for (Index v : values)
      if (v < 0) return invalid_argument("Input arr must be non-negative!");
    const bool weighted = weights.num_elements() > 0;
    for (Index r = 0; r < rows; ++r) {
      for (Index c = 0; c < cols; ++c) {
        const Index v = values[static_cast<std::size_t>(r * cols + c)];
        if (v >= size) continue;
        if (binary_output_)
          o[r * size + v] = T(1);
        else
          o[r * size + v] += weighted ? weights.data<T>()[r * cols + c] : T(1);
      }
    }
    return {};
  }

 private:
  bool binary_output_ = false;
};

// -- random integers and categorical samples ----------------------------------------------

// RandomUniformInt(shape, minval, maxval; seed, seed2): integers uniform in [minval, maxval)
// as TensorFlow's UniformDistribution<PhiloxRandom, T> (`lo + sample % range`, a slight bias
// for ranges that do not divide 2^32 or 2^64, as TensorFlow).
template <class T>
class RandomUniformIntOp : public StatusKernel {
 public:
  RandomUniformIntOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = generator_.init(c);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& minval = ctx.input(1);
    const Tensor& maxval = ctx.input(2);
    if (minval.rank() != 0)
      return invalid_argument("minval must be 0-D, got shape " + minval.shape().to_string());
    if (maxval.rank() != 0)
      return invalid_argument("maxval must be 0-D, got shape " + maxval.shape().to_string());
    Shape shape;
    ACTORFLOW_RETURN_IF_ERROR(shape_from_tensor(ctx.input(0), &shape));
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, shape);
    const Index n = out.num_elements();
    if (n == 0) return {};
    const T lo = minval.data<T>()[0], hi = maxval.data<T>()[0];
    if (!(lo < hi))
      return invalid_argument("Need minval < maxval, got " + std::to_string(lo) +
                              " >= " + std::to_string(hi));
    PhiloxRandom gen = generator_.reserve_samples128(static_cast<std::uint64_t>(n) * 256);
    detail::fill_philox_random(PhiloxUniformInt<T>{lo, hi}, gen, out.data<T>(), n);
    return {};
  }

 private:
  GuardedPhiloxRandom generator_;
};

// Multinomial(logits, num_samples; seed, seed2, output_dtype): `num_samples` class indices
// per row of `logits` [batch, classes], drawn by inverting the unnormalised CDF of
// exp(logit - max) over the finite logits (non-finite ones are never drawn), as TensorFlow's
// CPU functor.
template <class T>
class MultinomialOp : public StatusKernel {
 public:
  MultinomialOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (!c.get_attr("output_dtype", &output_dtype_).ok()) output_dtype_ = DType::int64;
    *s = generator_.init(c);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > 0;
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    Index num_samples = 0;
    ACTORFLOW_RETURN_IF_ERROR(detail::check_multinomial_inputs(logits, ctx.input(1), &num_samples));
    const Index batch = logits.shape().dim(0);
    Tensor& out = ctx.allocate_output(0, output_dtype_, Shape{batch, num_samples});
    if (out.num_elements() == 0) return {};
    // CPU draws doubles, two 32-bit samples each: 2 * ceil4(num_samples) per row, 256 times.
    const Index per_row = (num_samples + 3) / 4 * 4 * 2;
    PhiloxRandom gen =
        generator_.reserve_samples128(static_cast<std::uint64_t>(batch * per_row) * 256);
    SingleSampleAdapter single(&gen);
    detail::draw_multinomial<T>(logits, num_samples, single, out);
    return {};
  }

 private:
  DType output_dtype_ = DType::int64;
  GuardedPhiloxRandom generator_;
};

}  // namespace

namespace detail {

void register_misc_math_count_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<UniqueOp>("UniqueWithCounts", "CPU",
                                  {{"T", kValueTypes}, {"out_idx", kIndexTypes}}));
  for (const char* op : {"UniqueV2", "UniqueWithCountsV2"})
    r.add(make_kernel_def<UniqueOp>(
        op, "CPU", {{"T", kValueTypes}, {"Taxis", kIndexTypes}, {"out_idx", kIndexTypes}}));
  register_for_types_on<BincountOp, float, double, std::int32_t, std::int64_t>(r, "Bincount", "T");
  register_for_types_on<DenseBincountOp, float, double, std::int32_t, std::int64_t>(
      r, "DenseBincount", "T", {{"Tidx", kIndexTypes}});
  register_for_types_on<RandomUniformIntOp, std::int32_t, std::int64_t>(
      r, "RandomUniformInt", "Tout", {{"T", kIndexTypes}});
  register_for_types_on<MultinomialOp, float, double, bfloat16_t>(r, "Multinomial", "T",
                                                                  {{"output_dtype", kIndexTypes}});
}

}  // namespace detail

}  // namespace af
