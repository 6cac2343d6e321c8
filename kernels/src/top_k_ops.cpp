// TopK, TopKV2, InTopK and InTopKV2: CPU kernels with TensorFlow's checks and messages
// (topk_op.cc, in_topk_op.cc). Their definitions are in ops/src/defs/top_k_ops.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::StatusKernel;

// The value of element `i` as a number that orders as T does (bfloat16 through float).
template <class T>
auto value_at(const T* v, Index i) {
  if constexpr (is_half_like_v<T>)
    return static_cast<float>(v[i]);
  else
    return v[i];
}

template <class V>
bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return std::isnan(v);
  else
    return false;
}

// TopK(input; k) and TopKV2(input, k): the k largest entries of each row of the last
// dimension, largest first, equal values in the order of their indices (TensorFlow's stable
// comparison). NaN ranks above every number (TensorFlow leaves rows with NaN in the order of
// its heap).
template <class T>
class TopKOp : public StatusKernel {
 public:
  TopKOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    // TopK holds k as an attr; TopKV2 takes it as input 1.
    if (!c.get_attr("k", &k_attr_).ok()) k_attr_ = -1;
    if (!c.get_attr("index_type", &index_type_).ok()) index_type_ = DType::int32;
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    Index k = k_attr_;
    if (ctx.num_inputs() >= 2) {
      const Tensor& k_t = ctx.input(1);
      if (k_t.rank() != 0)
        return invalid_argument("k must be scalar, got shape " + k_t.shape().to_string());
      k = index_values(k_t)[0];
    }
    if (k < 0) return invalid_argument("Need k >= 0, got " + std::to_string(k));
    if (input.rank() < 1)
      return invalid_argument("input must be >= 1-D, got shape " + input.shape().to_string());
    const Index cols = input.shape().dim(input.rank() - 1);
    if (cols < k)
      return invalid_argument("input must have at least k columns. Had " + std::to_string(cols) +
                              ", needed " + std::to_string(k));
    std::vector<std::int64_t> dims = input.shape().dims();
    dims.back() = k;
    const Shape out_shape(std::move(dims));
    Tensor& values = ctx.allocate_output(0, dtype_of_v<T>, out_shape);
    Tensor& indices = ctx.allocate_output(1, index_type_, out_shape);
    if (k == 0 || out_shape.num_elements() == 0) return {};
    const Index rows = input.num_elements() / cols;
    const T* in = input.data<T>();
    T* out = values.data<T>();
    std::vector<Index> order(static_cast<std::size_t>(cols));
    for (Index r = 0; r < rows; ++r) {
      const T* row = in + r * cols;
      // a before b: larger (NaN largest), then the lower index.
      auto before = [row](Index a, Index b) {
        const auto va = value_at(row, a), vb = value_at(row, b);
        const bool na = is_nan(va), nb = is_nan(vb);
        if (na != nb) return na;
        if (!na && va != vb) return va > vb;
        return a < b;
      };
      std::iota(order.begin(), order.end(), Index{0});
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (Index j = 0; j < k; ++j) {
        const Index at = order[static_cast<std::size_t>(j)];
        out[r * k + j] = row[at];
        if (index_type_ == DType::int64)
          indices.data<std::int64_t>()[r * k + j] = at;
        else
          indices.data<std::int32_t>()[r * k + j] = static_cast<std::int32_t>(at);
      }
    }
    return {};
  }

 private:
  Index k_attr_ = -1;
  DType index_type_ = DType::int32;
};

// InTopK(predictions, targets; k) and InTopKV2(predictions, targets, k): whether each
// target's prediction is among the k largest of its row (ties count as in); false for a target
// out of range or a row holding a non-finite prediction.
class InTopKOp : public StatusKernel {
 public:
  InTopKOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (!c.get_attr("k", &k_attr_).ok()) k_attr_ = 0;
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& predictions = ctx.input(0);
    const Tensor& targets = ctx.input(1);
    Index k = k_attr_;
    if (ctx.num_inputs() == 3) {
      const Tensor& k_t = ctx.input(2);
      if (k_t.rank() != 0)
        return invalid_argument("k must be 0-D, got shape " + k_t.shape().to_string());
      k = index_values(k_t)[0];
    }
    if (predictions.rank() != 2) return invalid_argument("predictions must be 2-dimensional");
    if (targets.rank() != 1) return invalid_argument("targets must be 1-dimensional");
    const Index batch = predictions.shape().dim(0), classes = predictions.shape().dim(1);
    if (batch != targets.shape().dim(0))
      return invalid_argument("First dimension of predictions " + std::to_string(batch) +
                              " must match length of targets " +
                              std::to_string(targets.shape().dim(0)));
    const std::vector<Index> target = index_values(targets);
    Tensor& out = ctx.allocate_output(0, DType::boolean, Shape{batch});
    const float* p = predictions.data<float>();
    for (Index b = 0; b < batch; ++b) {
      const Index t = target[static_cast<std::size_t>(b)];
      const float* row = p + b * classes;
      bool cannot_say = t < 0 || t >= classes || !std::isfinite(row[t]);
      Index more_probable = 0;
      if (!cannot_say) {
        for (Index i = 0; i < classes; ++i) {
          if (!std::isfinite(row[i])) {
            cannot_say = true;
            break;
          }
          if (row[i] > row[t] && ++more_probable > k) break;
        }
      }
      out.data<bool>()[b] = !cannot_say && more_probable < k;
    }
    return {};
  }

 private:
  Index k_attr_ = 0;
};

template <class... Ts>
void register_top_k(KernelRegistry& r, detail::TypeList<Ts...> /*types*/) {
  for (const char* type : {"TopK", "TopKV2"})
    (r.add(make_kernel_def<TopKOp<Ts>>(type, "CPU", {{"T", {dtype_of_v<Ts>}}})), ...);
}

}  // namespace

namespace detail {

void register_top_k_kernels(KernelRegistry& r) {
  register_top_k(r, RealNumberTypes{});  // TensorFlow 2.21's: every real number
  r.add(make_kernel_def<InTopKOp>("InTopK", "CPU", {{"T", kIndexTypes}}));
  r.add(make_kernel_def<InTopKOp>("InTopKV2", "CPU", {{"T", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
