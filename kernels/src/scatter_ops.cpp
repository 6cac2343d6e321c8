// Scatter{Update,Add,Sub,Mul,Div,Min,Max} and their ResourceScatter* twins: CPU kernels
// (TensorFlow 1.x's scatter_op.cc, scatter_functor.h and resource_variable_ops.cc). Row by
// row under the variable's lock, in the order of the indices; the first index out of range
// stops the update with the rows before it written, as TensorFlow's CPU functor does. The
// ops' definitions are in ops/src/defs/scatter_ops.cpp.
//
// A variable's buffer may still be shared with a read in flight (a fetch, a Gather's input):
// then the update writes a copy and swaps it in, so the reader keeps the value it read.
// Otherwise the rows are written in place: a step that touches a few rows of a large table
// costs those rows, not the table.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"

namespace af {

namespace {

using detail::Index;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::node_suffix;

enum class Kind { update, add, sub, mul, div, min, max };

// TensorFlow 2.21's types: Add, Sub, Mul and Div of every number, Min and Max of the real ones.
const std::vector<DType> kNumberTypes = detail::dtypes_of(detail::NumberTypes{});
const std::vector<DType> kRealTypes = detail::dtypes_of(detail::RealNumberTypes{});

template <Kind K, class T>
inline Status combine(T& dst, T src) {
  if constexpr (is_half_like_v<T>) {  // one operation in float, rounded (Eigen's half)
    float d = static_cast<float>(dst);
    Status s = combine<K, float>(d, static_cast<float>(src));
    dst = T(d);
    return s;
  } else if constexpr (K == Kind::update) {
    dst = src;
  } else if constexpr (K == Kind::add) {
    dst += src;
  } else if constexpr (K == Kind::sub) {
    dst -= src;
  } else if constexpr (K == Kind::mul) {
    dst *= src;
  } else if constexpr (K == Kind::div) {
    if constexpr (std::is_integral_v<T>) {
      if (src == 0) return invalid_argument("Integer division by zero");
    }
    dst /= src;
  } else if constexpr (is_complex_v<T>) {
    // No ordering: Min and Max are not registered for complex numbers.
  } else if constexpr (K == Kind::min) {
    dst = std::min(dst, src);
  } else {
    dst = std::max(dst, src);
  }
  return {};
}

// `ValidShapes`: updates are a scalar or of shape indices.shape + params.shape[1:].
bool valid_shapes(const Shape& params, const Shape& indices, const Shape& updates) {
  if (updates.rank() == 0) return true;
  if (updates.rank() != indices.rank() + params.rank() - 1) return false;
  for (int d = 0; d < indices.rank(); ++d)
    if (updates.dim(d) != indices.dim(d)) return false;
  for (int d = 1; d < params.rank(); ++d)
    if (updates.dim(indices.rank() + d - 1) != params.dim(d)) return false;
  return true;
}

template <class I>
Index index_at(const Tensor& indices, Index i) {
  return static_cast<Index>(indices.data<I>()[i]);
}

template <Kind K, bool Resource>
class ScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 2 && ctx.input(2).num_elements() > 64 * 1024;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    std::vector<Var*> vars;
    Status in = detail::variable_inputs(ctx, 1, updates.dtype(), Resource, &vars);
    if (!in.ok()) return ctx.fail(in);
    Var* var = vars[0];
    Status s = var->update([&](Tensor& params) { return apply(params, indices, updates); });
    if (!s.ok()) {
      if (s.code() != Code::invalid_argument) s = s.with_context(node_suffix(name()));
      return ctx.fail(s);
    }
    if (!Resource) ctx.set_output(0, ctx.input(0));
  }

 private:
  Status apply(Tensor& params, const Tensor& indices, const Tensor& updates) const {
    if (params.rank() < 1)
      return invalid_argument("params must be at least 1-D, got shape " +
                              params.shape().to_string() + node_suffix(name()));
    if (!valid_shapes(params.shape(), indices.shape(), updates.shape()))
      return invalid_argument(
          "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
          "got updates.shape " +
          updates.shape().to_string() + ", indices.shape " + indices.shape().to_string() +
          ", params.shape " + params.shape().to_string() + node_suffix(name()));
    const Index n = indices.num_elements();
    if (n == 0) return {};
    if (!params.sole_owner()) params = params.deep_copy();
    const Index limit = params.shape().dim(0);
    Index row = 1;
    for (int d = 1; d < params.rank(); ++d) row *= params.shape().dim(d);
    const bool scalar = updates.rank() == 0;
    Status s;
    auto run = [&](auto index_tag) {
      using I = decltype(index_tag);
      for (Index i = 0; i < n; ++i) {
        const Index index = index_at<I>(indices, i);
        if (index < 0 || index >= limit) {
          s = invalid_argument("indices" + detail::slice_debug_string(indices.shape(), i) + " = " +
                               std::to_string(index) + " is not in [0, " + std::to_string(limit) +
                               ")" + node_suffix(name()));
          return;
        }
        s = row_update(params, index * row, updates, scalar ? -1 : i * row, row);
        if (!s.ok()) {
          s = s.with_context(node_suffix(name()));
          return;
        }
      }
    };
    if (indices.dtype() == DType::int64)
      run(std::int64_t{});
    else
      run(std::int32_t{});
    return s;
  }

  // Updates `count` elements of `params` from `dst`, with the updates from `src` (-1: the
  // scalar update, for every element).
  static Status row_update(Tensor& params, Index dst, const Tensor& updates, Index src,
                           Index count) {
    if constexpr (K == Kind::update) {
      if (src >= 0) {
        detail::copy_elements(updates, src, params, dst, count);
        return {};
      }
      if (params.dtype() == DType::string) {
        for (Index j = 0; j < count; ++j) detail::copy_elements(updates, 0, params, dst + j, 1);
        return {};
      }
    }
    Status s;
    visit_numeric_dtype(params.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        T* p = params.data<T>() + dst;
        const T* u = updates.data<T>();
        for (Index j = 0; j < count && s.ok(); ++j)
          s = combine<K, T>(p[j], u[src >= 0 ? src + j : 0]);
      } else if constexpr (K == Kind::update) {
        T* p = params.data<T>() + dst;
        const T u = updates.data<T>()[0];
        for (Index j = 0; j < count; ++j) p[j] = u;
      }
    });
    return s;
  }
};

template <Kind K>
void register_scatter(KernelRegistry& r, const char* kind, const std::vector<DType>& types) {
  r.add(make_kernel_def<ScatterOp<K, false>>(std::string("Scatter") + kind, "CPU",
                                             {{"T", types}, {"Tindices", kIndexTypes}}));
  r.add(make_kernel_def<ScatterOp<K, true>>(std::string("ResourceScatter") + kind, "CPU",
                                            {{"dtype", types}, {"Tindices", kIndexTypes}}));
}

}  // namespace

namespace detail {

void register_scatter_kernels(KernelRegistry& r) {
  register_scatter<Kind::update>(r, "Update", kValueTypes);
  register_scatter<Kind::add>(r, "Add", kNumberTypes);
  register_scatter<Kind::sub>(r, "Sub", kNumberTypes);
  register_scatter<Kind::mul>(r, "Mul", kNumberTypes);
  register_scatter<Kind::div>(r, "Div", kNumberTypes);
  register_scatter<Kind::min>(r, "Min", kRealTypes);
  register_scatter<Kind::max>(r, "Max", kRealTypes);
}

}  // namespace detail

}  // namespace af
