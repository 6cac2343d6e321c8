// The CPU kernels of the sparse update ops of TensorFlow 1.x's training_ops.cc that
// sparse_training_ops.cpp does not cover: SparseApplyFtrl, SparseApplyFtrlV2,
// SparseApplyAdadelta, SparseApplyProximalAdagrad, SparseApplyProximalGradientDescent,
// SparseApplyAdagradDA, SparseApplyAdagradV2, their ResourceSparseApply* twins and
// ResourceSparseApplyKerasMomentum. Each updates the rows of the variable and its slots that
// `indices` names, in order (a row named twice is updated twice), under their locks; rows not
// named keep their values. The checks come in the order and words of training_ops.cc's
// kernels; the row arithmetic is theirs (more_training_kernels.hpp; AdagradDA's below),
// including the separate path the kernels take for rows of one element. The ops' definitions
// are in ops/src/defs/more_training_ops.cpp.
//
// A buffer still shared with a read in flight is copied before it is written.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/more_training_layout.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "half_steps.hpp"
#include "more_training_kernels.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::node_suffix;
using detail::more_optimizer::Check;
using detail::more_optimizer::Flags;
using detail::more_optimizer::Index;
using detail::more_optimizer::Kind;
using detail::more_optimizer::Layout;
using detail::more_optimizer::Req;
using detail::more_optimizer::sgn;
using detail::more_optimizer::sparse_layout_of;

// training_ops.cc's checks of each sparse kernel, in its order.
std::vector<Check> sparse_checks(Kind k) {
  using C = Check;
  const C l1{C::scalar, 1, "l1 regularization strength is not a scalar: "};
  const C l2{C::scalar, 2, "l2 regularization strength is not a scalar: "};
  const C l1_nn{C::scalar, 1,
                "l1 regularization strength is not a non-negative scalar: ", Req::non_negative};
  const C l2_nn{C::scalar, 2,
                "l2 regularization strength is not a non-negative scalar: ", Req::non_negative};
  const C lr_positive{C::scalar, 0, "lr is not a positive scalar: ", Req::positive};
  const C lr{C::scalar, 0, "lr is not a scalar: "};
  const C accum{C::same_shape, 1, "accum"};
  const C rank{C::rank}, indices{C::indices_vector}, dims{C::grad_dims}, rows{C::grad_rows};
  const C inner{C::inner_positive};
  switch (k) {
    case Kind::ftrl:
    case Kind::ftrl_v2: {
      std::vector<C> out = {accum,
                            {C::same_shape, 2, "linear"},
                            rank,
                            indices,
                            lr_positive,
                            l1_nn,
                            l2_nn,
                            {C::scalar, k == Kind::ftrl ? 3 : 4,
                             "lr_power is not a non-positive scalar: ", Req::non_positive},
                            dims,
                            rows,
                            inner};
      if (k == Kind::ftrl_v2)
        out.push_back({C::scalar, 3,
                       "l2 shrinkage regularization strength is not a non-negative scalar: ",
                       Req::non_negative});
      return out;
    }
    case Kind::adadelta:
      return {{C::same_shape, 1, "accum_grad"},
              {C::same_shape, 2, "accum_update"},
              rank,
              lr,
              {C::scalar, 1, "rho is not a scalar: "},
              {C::scalar, 2, "epsilon is not a scalar: "},
              indices,
              dims,
              rows};
    case Kind::proximal_adagrad:
      return {accum, rank, lr_positive, l1_nn, l2_nn, indices, dims, rows, inner};
    case Kind::proximal_gradient_descent:
      return {rank, lr, l1, l2, indices, dims, rows, inner};
    case Kind::adagrad_da:
      return {accum, {C::same_shape, 2, "accum"},
              rank,  indices,
              lr,    l1,
              l2,    {C::scalar, -1, "global_step is not a scalar: "},
              dims,  rows,
              inner};
    case Kind::adagrad_v2:
      return {accum,   rank, lr,   {C::scalar, 1, "epsilon is not a scalar: "},
              indices, dims, rows, inner};
    case Kind::keras_momentum:
      return {accum, rank, {C::scalar, 0, "lr is not a scalar : "},     indices,
              dims,  rows, {C::scalar, 1, "momentum is not a scalar: "}};
    default:
      return {};
  }
}

// SparseApplyAdagradDA's row: its own arrangement of ApplyAdagradDA's formula, and for rows of
// one element the same in double precision.
template <class T>
void adagrad_da_row(T* const* d, const T* g, Index n, const std::vector<T>& s, const Flags& f) {
  T* var = d[0];
  T* ga = d[1];
  T* da = d[2];
  if (!f.scalar_path) {
    const T lr = s[0], l1 = s[1], l2 = s[2];
    const T gs = static_cast<T>(f.global_step);
    const T gs_lr = static_cast<T>(static_cast<double>(gs * lr));
    for (Index j = 0; j < n; ++j) {
      ga[j] += g[j];
      da[j] += g[j] * g[j];
      const T denom = l2 + std::sqrt(da[j]) / gs_lr;
      if (l1 > T(0))
        var[j] = T(-1) * sgn(ga[j]) * std::max(std::abs(ga[j]) / gs - l1, T(0)) / denom;
      else
        var[j] = T(-1) * (ga[j] / gs) / denom;
    }
    return;
  }
  const double lr = s[0], l1 = s[1], l2 = s[2];
  const std::int64_t gs = f.global_step;
  const double gs_l1 = static_cast<double>(gs) * l1;
  const double gs_l2_lr = static_cast<double>(gs) * l2 * lr;
  const double gd = g[0];
  ga[0] = static_cast<T>(static_cast<double>(ga[0]) + gd);
  da[0] = static_cast<T>(static_cast<double>(da[0]) + gd * gd);
  const double denom = gs_l2_lr + static_cast<double>(std::sqrt(da[0]));
  if (l1 > 0)
    var[0] = static_cast<T>(static_cast<double>(sgn(-ga[0])) * lr *
                            std::max(static_cast<double>(std::abs(ga[0])) - gs_l1, 0.0) / denom);
  else
    var[0] = static_cast<T>(static_cast<double>(-ga[0]) * lr / denom);
}

// The update of variables of element type S, computed in T (for float16 and bfloat16,
// HalfSteps: each step in float rounded to the type, as TensorFlow's Eigen half).
template <Kind K, class S, bool Resource>
class MoreSparseApplyOp : public OpKernel {
  using T = std::conditional_t<is_half_like_v<S>, detail::HalfSteps<S>, S>;

 public:
  MoreSparseApplyOp(OpKernelConstruction& c, Status* /*s*/)
      : OpKernel(c), flags_(detail::more_optimizer::read_flags(c, /*sparse=*/true)) {}

  void compute(OpKernelContext& ctx) override {
    const Layout lay = sparse_layout_of(K);
    detail::more_optimizer::compute_update<S>(
        *this, ctx, lay, Resource, checks_, lay.grad + 1,
        [&](std::vector<Tensor*>& values) { return update(ctx, lay, values); });
  }

 private:
  Status update(const OpKernelContext& ctx, const Layout& lay, std::vector<Tensor*>& values) const {
    const Tensor& grad = ctx.input(lay.grad);
    const Tensor& indices = ctx.input(lay.grad + 1);
    const Index n = indices.shape().dim(0);
    if (n == 0) return {};
    Flags f = flags_;
    const std::vector<T> scalars = detail::more_optimizer::read_scalars<S, T>(ctx, lay, K, &f);
    const Index rows = values[0]->shape().dim(0);
    const Index inner = rows == 0 ? 0 : values[0]->num_elements() / rows;
    // Adadelta and KerasMomentum have no path of their own for rows of one element.
    f.scalar_path = inner == 1 && K != Kind::adadelta && K != Kind::keras_momentum;
    std::vector<Index> index(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i)
      index[static_cast<std::size_t>(i)] = indices.dtype() == DType::int64
                                               ? indices.data<std::int64_t>()[i]
                                               : indices.data<std::int32_t>()[i];
    auto bad = [&](Index i) {
      const Index r = index[static_cast<std::size_t>(i)];
      return r < 0 || r >= rows;
    };
    auto out_of_range = [&](Index i) {
      const std::string value = std::to_string(index[static_cast<std::size_t>(i)]);
      if (K == Kind::keras_momentum)
        return invalid_argument("indices[" + std::to_string(i) + "] = " + value +
                                " is not in [0, " + std::to_string(rows) + ")" +
                                node_suffix(name()));
      return invalid_argument("Index " + value + " at offset " + std::to_string(i) +
                              " in indices is out of range" + node_suffix(name()));
    };
    // Adadelta and AdagradV2 check every index first; the others when they reach it (the
    // rows before a bad index are updated).
    constexpr bool check_first = K == Kind::adadelta || K == Kind::adagrad_v2;
    if (check_first)
      for (Index i = 0; i < n; ++i)
        if (bad(i)) return out_of_range(i);
    S* base[3];
    detail::more_optimizer::writable_data(values, base);
    const S* g = grad.template data<S>();
    // float16 and bfloat16: the rows copied into `held` (the variable's, the slots', the
    // gradient's) in HalfSteps, updated and stored back.
    std::vector<T> held[4];
    for (auto& w : held) w.resize(is_half_like_v<S> ? static_cast<std::size_t>(inner) : 0);
    for (Index i = 0; i < n; ++i) {
      if (!check_first && bad(i)) return out_of_range(i);
      const Index at = index[static_cast<std::size_t>(i)] * inner;
      S* row[3] = {base[0] + at, base[1] ? base[1] + at : nullptr,
                   base[2] ? base[2] + at : nullptr};
      if constexpr (is_half_like_v<S>) {
        T* w[3] = {nullptr, nullptr, nullptr};
        for (int k = 0; k < 3 && row[k]; ++k) {
          w[k] = held[k].data();
          std::transform(row[k], row[k] + inner, w[k], [](S v) { return T(v); });
        }
        std::transform(g + i * inner, g + (i + 1) * inner, held[3].data(),
                       [](S v) { return T(v); });
        detail::more_optimizer::update_span<K, T>(w, held[3].data(), inner, scalars, f);
        for (int k = 0; k < 3 && row[k]; ++k)
          std::transform(w[k], w[k] + inner, row[k], [](T v) { return S(v); });
      } else if constexpr (K == Kind::adagrad_da) {
        adagrad_da_row<T>(row, g + i * inner, inner, scalars, f);
      } else {
        detail::more_optimizer::update_span<K, T>(row, g + i * inner, inner, scalars, f);
      }
    }
    return {};
  }

  const std::vector<Check> checks_ = sparse_checks(K);
  Flags flags_;
};

template <Kind K>
void register_sparse_apply(KernelRegistry& r, const char* type, bool ref_form = true) {
  const std::vector<DType> index_types = detail::kIndexTypes;
  const std::string sparse = std::string("Sparse") + type;
  const std::string resource = std::string("ResourceSparse") + type;
  if (ref_form) {
    r.add(make_kernel_def<MoreSparseApplyOp<K, float, false>>(
        sparse, "CPU", {{"T", {DType::float32}}, {"Tindices", index_types}}));
    r.add(make_kernel_def<MoreSparseApplyOp<K, double, false>>(
        sparse, "CPU", {{"T", {DType::float64}}, {"Tindices", index_types}}));
  }
  r.add(make_kernel_def<MoreSparseApplyOp<K, float, true>>(
      resource, "CPU", {{"T", {DType::float32}}, {"Tindices", index_types}}));
  r.add(make_kernel_def<MoreSparseApplyOp<K, double, true>>(
      resource, "CPU", {{"T", {DType::float64}}, {"Tindices", index_types}}));
  // float16 and bfloat16 where TensorFlow has them (not the proximal ones nor AdagradDA).
  if constexpr (K != Kind::proximal_gradient_descent && K != Kind::proximal_adagrad &&
                K != Kind::adagrad_da) {
    auto add = [&](auto tag) {
      using S = decltype(tag);
      if (ref_form)
        r.add(make_kernel_def<MoreSparseApplyOp<K, S, false>>(
            sparse, "CPU", {{"T", {dtype_of_v<S>}}, {"Tindices", index_types}}));
      r.add(make_kernel_def<MoreSparseApplyOp<K, S, true>>(
          resource, "CPU", {{"T", {dtype_of_v<S>}}, {"Tindices", index_types}}));
    };
    add(half_t{});
    add(bfloat16_t{});
    // The complex types where TensorFlow's CPU kernels take them.
    if constexpr (K == Kind::adadelta || K == Kind::adagrad_v2 || K == Kind::keras_momentum) {
      add(std::complex<float>{});
      add(std::complex<double>{});
    }
  }
}

}  // namespace

namespace detail {

void register_more_sparse_training_kernels(KernelRegistry& r) {
  more_optimizer::for_each_op_forms([&]<Kind K>(const more_optimizer::OpForms& op) {
    if constexpr (more_optimizer::has_sparse_forms(K))
      register_sparse_apply<K>(r, op.type, op.ref_form);
  });
}

}  // namespace detail

}  // namespace af
