// The optimizers' sparse updates (TensorFlow 1.x's training_ops.cc): SparseApplyAdagrad,
// SparseApplyMomentum, SparseApplyRMSProp and SparseApplyCenteredRMSProp, and their
// ResourceSparseApply* twins. Each updates only the rows of the variable and its slots that
// `indices` names, in order (duplicates are applied one after the other: the optimizers sum
// them first), under the locks of the variable and its slots. Rows not named keep their
// values and slots. The arithmetic follows training_ops.cc's Eigen expressions term by term,
// so float32 results are TensorFlow's. The ops' definitions are in
// ops/src/defs/training_ops.cpp, their input layouts in actorflow/ops/detail/training_layout.hpp.
//
// As the dense updates, a buffer still shared with a read in flight is copied before it is
// written; otherwise the rows are written in place.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/training_layout.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"

namespace af {

namespace {

using Index = std::int64_t;

using detail::node_suffix;
using detail::optimizer::Kind;
using detail::optimizer::Layout;
using detail::optimizer::ref_name;
using detail::optimizer::sparse_layout_of;

// The update of variables of element type S, computed in T (float for float16 and
// bfloat16: each named row widened, updated in float and rounded once).
template <Kind K, class S, bool Resource>
class SparseApplyOp : public OpKernel {
  using T = std::conditional_t<is_half_like_v<S>, float, S>;

 public:
  SparseApplyOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("use_nesterov", &use_nesterov_);
    c.get_attr("update_slots", &update_slots_);
  }

  void compute(OpKernelContext& ctx) override {
    const Layout lay = sparse_layout_of(K);
    std::vector<Var*> vars;
    Status in = detail::variable_inputs(ctx, lay.refs, dtype_of<S>::value, Resource, &vars);
    if (!in.ok()) return ctx.fail(in);
    Status s = update_together(
        vars, [&](std::vector<Tensor*>& values) { return update(ctx, lay, values); });
    if (!s.ok()) {
      if (s.code() != Code::invalid_argument) s = s.with_context(node_suffix(name()));
      return ctx.fail(s);
    }
    if (!Resource) ctx.set_output(0, ctx.input(0));
  }

 private:
  // training_ops.cc's checks, in each kernel's order. Adagrad and Momentum: the slots'
  // shapes, the variable's rank, lr ("lr is not a scalar : " for Momentum), the indices'
  // rank, the gradient's inner dimensions and rows, then Adagrad's inner dimension and
  // Momentum's momentum. RMSProp: the scalars first, then as the others.
  Status check(const OpKernelContext& ctx, const Layout& lay,
               const std::vector<Tensor*>& values) const {
    const bool scalars_first = K == Kind::rms_prop || K == Kind::centered_rms_prop;
    auto check_scalar = [&](std::size_t k) -> Status {
      auto [index, scalar_name] = lay.scalars[k];
      const Tensor& t = ctx.input(index);
      if (t.rank() == 0) return {};
      const bool spaced = K == Kind::momentum && k == 0;
      return invalid_argument(std::string(scalar_name) +
                              (spaced ? " is not a scalar : " : " is not a scalar: ") +
                              t.shape().to_string());
    };
    if (scalars_first)
      for (std::size_t k = 0; k < lay.scalars.size(); ++k)
        ACTORFLOW_RETURN_IF_ERROR(check_scalar(k));
    const Shape& var = values[0]->shape();
    for (std::size_t i = 1; i < values.size(); ++i)
      if (values[i]->shape() != var)
        return invalid_argument(std::string("var and ") + ref_name(K, static_cast<int>(i)) +
                                " do not have the same shape" + var.to_string() + " " +
                                values[i]->shape().to_string());
    if (var.rank() < 1) return invalid_argument("var must be at least 1 dimensional");
    if (!scalars_first) ACTORFLOW_RETURN_IF_ERROR(check_scalar(0));
    const Tensor& grad = ctx.input(lay.grad);
    const Tensor& indices = ctx.input(lay.grad + 1);
    if (indices.rank() != 1) return invalid_argument("indices must be one-dimensional");
    if (grad.rank() != var.rank())
      return invalid_argument("var and grad must match in dimension " +
                              std::to_string(std::min(var.rank(), std::max(grad.rank(), 1))));
    for (int d = 1; d < var.rank(); ++d)
      if (var.dim(d) != grad.shape().dim(d))
        return invalid_argument("var and grad must match in dimension " + std::to_string(d));
    if (grad.shape().dim(0) != indices.shape().dim(0))
      return invalid_argument("grad must be the same size as indices in the first dimension.");
    if (K == Kind::adagrad && var.num_elements() / std::max<Index>(var.dim(0), 1) == 0 &&
        var.rank() > 1)
      return invalid_argument("Inner dimension should be greater than zero.");
    if (K == Kind::momentum) ACTORFLOW_RETURN_IF_ERROR(check_scalar(1));
    return {};
  }

  Status update(const OpKernelContext& ctx, const Layout& lay, std::vector<Tensor*>& values) {
    Status s = check(ctx, lay, values);
    if (!s.ok()) return s.with_context(node_suffix(name()));
    std::vector<T> scalars;
    for (auto [index, scalar_name] : lay.scalars)
      scalars.push_back(static_cast<T>(ctx.input(index).template data<S>()[0]));
    const Tensor& grad = ctx.input(lay.grad);
    const Tensor& indices = ctx.input(lay.grad + 1);
    const Index n = indices.shape().dim(0);
    if (n == 0) return {};
    const Index rows = values[0]->shape().dim(0);
    const Index inner = rows == 0 ? 0 : values[0]->num_elements() / rows;
    std::vector<Index> index(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i)
      index[static_cast<std::size_t>(i)] = indices.dtype() == DType::int64
                                               ? indices.data<std::int64_t>()[i]
                                               : indices.data<std::int32_t>()[i];
    auto out_of_range = [&](Index i) {
      return invalid_argument("Index " + std::to_string(index[static_cast<std::size_t>(i)]) +
                              " at offset " + std::to_string(i) + " in indices is out of range" +
                              node_suffix(name()));
    };
    auto bad = [&](Index i) {
      const Index r = index[static_cast<std::size_t>(i)];
      return r < 0 || r >= rows;
    };
    // Momentum checks an index when it reaches it (the rows before a bad one are updated);
    // the others check them all first.
    constexpr bool check_first = K != Kind::momentum;
    if (check_first)
      for (Index i = 0; i < n; ++i)
        if (bad(i)) return out_of_range(i);
    for (Tensor* v : values)
      if (!v->sole_owner()) *v = v->deep_copy();
    if constexpr (is_half_like_v<S>) {
      // Each named row of the variable and its slots, and the gradient's row, in float.
      std::vector<std::vector<float>> rows(values.size(),
                                           std::vector<float>(static_cast<std::size_t>(inner)));
      std::vector<float*> wide;
      for (auto& w : rows) wide.push_back(w.data());
      std::vector<float> g(static_cast<std::size_t>(inner));
      const S* gs = grad.template data<S>();
      for (Index i = 0; i < n; ++i) {
        if (!check_first && bad(i)) return out_of_range(i);
        const Index row = index[static_cast<std::size_t>(i)] * inner;
        for (std::size_t k = 0; k < values.size(); ++k) {
          const S* p = values[k]->template data<S>() + row;
          for (Index e = 0; e < inner; ++e) rows[k][static_cast<std::size_t>(e)] = float(p[e]);
        }
        for (Index e = 0; e < inner; ++e) g[static_cast<std::size_t>(e)] = float(gs[i * inner + e]);
        update_row(wide, 0, scalars, g.data(), inner);
        for (std::size_t k = 0; k < values.size(); ++k) {
          S* p = values[k]->template data<S>() + row;
          for (Index e = 0; e < inner; ++e) p[e] = S(rows[k][static_cast<std::size_t>(e)]);
        }
      }
    } else {
      std::vector<T*> data;
      for (Tensor* v : values) data.push_back(v->template data<T>());
      const T* g = grad.template data<T>();
      for (Index i = 0; i < n; ++i) {
        if (!check_first && bad(i)) return out_of_range(i);
        const Index row = index[static_cast<std::size_t>(i)] * inner;
        update_row(data, row, scalars, g + i * inner, inner);
      }
    }
    return {};
  }

  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  using Row = Eigen::Map<Array>;
  using GradRow = Eigen::Map<const Array>;

  // One row, as training_ops.cc's chip expressions compute it.
  void update_row(const std::vector<T*>& d, Index at, const std::vector<T>& s, const T* gp,
                  Index n) const {
    GradRow g(gp, n);
    Row v(d[0] + at, n);
    if constexpr (K == Kind::adagrad) {
      const T lr = s[0];
      if (n == 1) {
        // The kernel's scalar path when the variable is a vector.
        T& a = d[1][at];
        if (update_slots_) a += gp[0] * gp[0];
        d[0][at] -= lr * gp[0] / std::sqrt(a);
        return;
      }
      Row a(d[1] + at, n);
      if (update_slots_) a += g.square();
      v -= g * lr * a.rsqrt();
    } else if constexpr (K == Kind::momentum) {
      const T lr = s[0], momentum = s[1];
      Row a(d[1] + at, n);
      a = a * momentum + g;
      if (use_nesterov_)
        v -= g * lr + a * (lr * momentum);
      else
        v -= a * lr;
    } else if constexpr (K == Kind::rms_prop) {
      const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
      Row ms(d[1] + at, n), mom(d[2] + at, n);
      ms = ms * rho + g.square() * (T(1) - rho);
      mom = mom * momentum + (ms + epsilon).rsqrt() * lr * g;
      v -= mom;
    } else if constexpr (K == Kind::centered_rms_prop) {
      const T lr = s[0], rho = s[1], momentum = s[2], epsilon = s[3];
      Row mg(d[1] + at, n), ms(d[2] + at, n), mom(d[3] + at, n);
      ms = ms * rho + g.square() * (T(1) - rho);
      mg = mg * rho + g * (T(1) - rho);
      mom = mom * momentum + (ms + epsilon - mg.square()).rsqrt() * lr * g;
      v -= mom;
    }
  }

  bool use_nesterov_ = false;
  bool update_slots_ = true;
};

template <Kind K>
void register_sparse_apply(KernelRegistry& r, const char* type) {
  const std::vector<DType> index_types = detail::kIndexTypes;
  const std::string sparse = std::string("Sparse") + type;
  const std::string resource = std::string("ResourceSparse") + type;
  r.add(make_kernel_def<SparseApplyOp<K, float, false>>(
      sparse, "CPU", {{"T", {DType::float32}}, {"Tindices", index_types}}));
  r.add(make_kernel_def<SparseApplyOp<K, double, false>>(
      sparse, "CPU", {{"T", {DType::float64}}, {"Tindices", index_types}}));
  r.add(make_kernel_def<SparseApplyOp<K, float, true>>(
      resource, "CPU", {{"T", {DType::float32}}, {"Tindices", index_types}}));
  r.add(make_kernel_def<SparseApplyOp<K, double, true>>(
      resource, "CPU", {{"T", {DType::float64}}, {"Tindices", index_types}}));
  // float16 and bfloat16 (RMSProp's: float16 only) and the complex types, as TensorFlow's.
  auto add = [&](auto tag) {
    using S = decltype(tag);
    r.add(make_kernel_def<SparseApplyOp<K, S, false>>(
        sparse, "CPU", {{"T", {dtype_of_v<S>}}, {"Tindices", index_types}}));
    r.add(make_kernel_def<SparseApplyOp<K, S, true>>(
        resource, "CPU", {{"T", {dtype_of_v<S>}}, {"Tindices", index_types}}));
  };
  add(half_t{});
  if constexpr (K != Kind::rms_prop && K != Kind::centered_rms_prop) add(bfloat16_t{});
  add(std::complex<float>{});
  add(std::complex<double>{});
}

}  // namespace

namespace detail {

void register_sparse_training_kernels(KernelRegistry& r) {
  register_sparse_apply<Kind::momentum>(r, "ApplyMomentum");
  register_sparse_apply<Kind::adagrad>(r, "ApplyAdagrad");
  register_sparse_apply<Kind::rms_prop>(r, "ApplyRMSProp");
  register_sparse_apply<Kind::centered_rms_prop>(r, "ApplyCenteredRMSProp");
}

}  // namespace detail

}  // namespace af
