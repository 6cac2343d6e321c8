// GatherNd, ResourceGatherNd, ScatterNd and TensorScatter{Update,Add,Sub,Max,Min}: CPU kernels with
// TensorFlow's checks and messages (gather_nd_op.cc, scatter_nd_op.cc). An index row of
// `indices` (shape `batch + [K]`) names the slice `x[i0, ..., iK-1]` of `x.shape[K:]`. Their
// definitions are in ops/src/defs/gather_nd_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "scatter_nd_common.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"

namespace af {

namespace {

using detail::copy_elements;
using detail::Index;
using detail::index_values;
using detail::IndexRows;
using detail::kIndexTypes;
using detail::kMaxIndexDepth;
using detail::kValueTypes;
using detail::read_ignore_policy;
using detail::slice_debug_string;
using detail::StatusKernel;

// DoGatherNd's refusal of an index depth over 7 (its functors go up to 7, and so does its
// text, unlike the scatters').
Status gather_nd_depth_error(Index k) {
  return invalid_argument(
      "Only indices.shape[-1] values between 1 and 7 are currently supported.  Requested rank: " +
      std::to_string(k));
}

// DoGatherNd: output 0 is `indices.shape[:-1] + params.shape[K:]`, the slices the index rows
// name; a bad row fails the kernel unless `ignore_bad` (its slice is then zeros).
Status do_gather_nd(OpKernelContext& ctx, const Tensor& params, const Tensor& indices,
                    bool ignore_bad, const std::string& node) {
  if (params.rank() < 1) return invalid_argument("params must be at least a vector");
  if (indices.rank() < 1) return invalid_argument("indices must be at least a vector");
  const Index k = indices.shape().dim(indices.rank() - 1);
  if (k > params.rank())
    return invalid_argument("index innermost dimension length must be <= params rank; saw: " +
                            std::to_string(k) + " vs. " + std::to_string(params.rank()));
  std::vector<std::int64_t> dims = indices.shape().dims();
  dims.pop_back();
  for (int d = static_cast<int>(k); d < params.rank(); ++d) dims.push_back(params.shape().dim(d));
  const IndexRows rows(indices, params.shape());
  // DoGatherNd checks params and the depth only when there is something to gather.
  if (rows.rows > 0 && params.num_elements() == 0)
    return invalid_argument("Requested more than 0 entries, but params is empty.  Params shape: " +
                            params.shape().to_string());
  if (rows.rows > 0 && k > kMaxIndexDepth) return gather_nd_depth_error(k);
  // The CPU functor goes on past a bad row and reports the last one.
  if (rows.last_bad >= 0 && !ignore_bad)
    return invalid_argument(rows.describe(indices, rows.last_bad) +
                            " does not index into param shape " + params.shape().to_string() +
                            ", node name: " + node);
  Tensor& out = ctx.allocate_output(0, params.dtype(), Shape(std::move(dims)));
  for (Index r = 0; r < rows.rows; ++r)
    if (rows.offset(r) >= 0)
      copy_elements(params, rows.offset(r) * rows.slice, out, r * rows.slice, rows.slice);
  return {};
}

// GatherNd(params, indices).
class GatherNdOp : public StatusKernel {
 public:
  GatherNdOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_ignore_policy(c, &ignore_bad_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    return do_gather_nd(ctx, ctx.input(0), ctx.input(1), ignore_bad_, name());
  }

 private:
  bool ignore_bad_ = false;
};

// ResourceGatherNd(resource, indices): GatherNd of the variable's value, read under its lock
// (the gather works on that snapshot; a later write copies the buffer first).
class ResourceGatherNdOp : public StatusKernel {
 public:
  ResourceGatherNdOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::vector<Var*> vars;
    ACTORFLOW_RETURN_IF_ERROR(detail::variable_inputs(ctx, 1, dtype_, true, &vars));
    Tensor params;
    ACTORFLOW_RETURN_IF_ERROR(vars[0]->update([&](Tensor& value) -> Status {
      params = value;
      return {};
    }));
    return do_gather_nd(ctx, params, ctx.input(1), false, name());
  }

 private:
  DType dtype_ = DType::invalid;
};

// -- scatters -------------------------------------------------------------------------------

using Kind = detail::ScatterNdKind;

// TensorFlow's ValidEmptyOutputShape: indices and updates both empty, or all three not.
bool valid_empty_output(Index output, Index indices, Index updates) {
  if (indices == 0 && updates == 0) return true;
  return output != 0 && indices != 0 && updates != 0;
}

Status rank_at_least_one(const Tensor& t, const char* what) {
  if (t.rank() >= 1) return {};
  return invalid_argument(std::string(what) +
                          " shape must have rank at least one. Found:" + t.shape().to_string());
}

// Where `updates` fails to be `indices.shape[:-1] + out.shape[K:]`, as the scatter ops check
// it before DoScatterNd: the leading dims (`outer`), the number of trailing dims
// (`inner_rank`) or one of them (`inner_dim`).
enum class Misfit { none, outer, inner_rank, inner_dim };

Misfit updates_misfit(const Shape& indices, const Shape& updates, const Shape& out) {
  const int outer = indices.rank() - 1;
  for (int i = 0; i < outer; ++i)
    if (i >= updates.rank() || indices.dim(i) != updates.dim(i)) return Misfit::outer;
  const Index ix = indices.dim(outer);
  if (updates.rank() - outer != out.rank() - ix) return Misfit::inner_rank;
  for (int i = 0; i + outer < updates.rank(); ++i)
    if (updates.dim(i + outer) != out.dim(static_cast<int>(ix) + i)) return Misfit::inner_dim;
  return Misfit::none;
}

// DoScatterNd's own checks (PrepareAndValidateInputs, ValidateUpdateShape) once the op's
// have passed; they read 1-D indices as one index per row. The index depth is checked later,
// by scatter_depth, once the output is known to have elements.
Status prepare_scatter(const Shape& out, const Tensor& indices, const Tensor& updates) {
  if (out.rank() < 1)
    return invalid_argument("Output must be at least 1-D, got shape: " + out.to_string());
  if (out.num_elements() == 0 && indices.num_elements() > 0)
    return invalid_argument("Indices and updates specified for empty output.  indices shape: " +
                            indices.shape().to_string());
  const Shape& is = indices.shape();
  const Shape& us = updates.shape();
  if (us.dim(0) != is.dim(0))
    return invalid_argument("Dimensions [0,1) of indices[shape=" + is.to_string() +
                            "] = " + std::to_string(is.dim(0)) +
                            " must match dimensions [0,1) of updates[shape=" + us.to_string() +
                            "] = " + std::to_string(us.dim(0)));
  const Index slice_dim = is.rank() > 1 ? is.dim(is.rank() - 1) : 1;
  const Index batch_dim = is.rank() > 1 ? is.rank() - 1 : 1;
  bool ok = us.rank() >= batch_dim && out.rank() >= slice_dim + (us.rank() - batch_dim) &&
            us.rank() == batch_dim + out.rank() - slice_dim;
  for (Index d = 0; ok && d < batch_dim; ++d)
    ok = us.dim(static_cast<int>(d)) == is.dim(static_cast<int>(d));
  for (Index d = 0; ok && d < us.rank() - batch_dim; ++d)
    ok = us.dim(static_cast<int>(d + batch_dim)) == out.dim(static_cast<int>(d + slice_dim));
  if (!ok)
    return invalid_argument(
        "Must have updates.shape = indices.shape[:batch_dim] + params_shape[slice_dim:], got "
        "updates.shape: " +
        us.to_string() + ", indices.shape: " + is.to_string() +
        ", params_shape: " + out.to_string() + ", slice_dim: " + std::to_string(slice_dim) +
        ", and batch_dim: " + std::to_string(batch_dim));
  return {};
}

// DoScatterNd after allocating a non-empty output: its functors take depths 1..7 (the text
// says 5); 1-D indices count as depth 1.
Status scatter_depth(const Tensor& indices) {
  const Index slice_dim = indices.rank() > 1 ? indices.shape().dim(indices.rank() - 1) : 1;
  if (slice_dim < 1 || slice_dim > kMaxIndexDepth) return detail::scatter_nd_depth_error(slice_dim);
  return {};
}

// Applies `updates` (rows of `slice` elements) to `out` at the rows of `rows`, in order,
// skipping rows out of range. Unless `ignore_bad`, a row out of range fails the op with
// TensorFlow's text naming the last such row (its CPU functor goes on past a bad row and
// keeps the latest); the output is new, so nothing need be written first.
template <Kind K, class T>
Status apply_rows(const IndexRows& rows, const Tensor& indices, const Tensor& updates, Tensor& out,
                  bool ignore_bad) {
  if (rows.last_bad >= 0 && !ignore_bad)
    return invalid_argument(rows.describe(indices, rows.last_bad) + " does not index into shape " +
                            out.shape().to_string());
  for (Index r = 0; r < rows.rows; ++r) {
    const Index at = rows.offset(r);
    if (at < 0) continue;
    if constexpr (K == Kind::update) {
      copy_elements(updates, r * rows.slice, out, at * rows.slice, rows.slice);
    } else {
      const T* src = updates.data<T>() + r * rows.slice;
      T* dst = out.data<T>() + at * rows.slice;
      for (Index e = 0; e < rows.slice; ++e) dst[e] = detail::scatter_nd_combine<K>(dst[e], src[e]);
    }
  }
  return {};
}

// ScatterNd(indices, updates, shape): zeros of `shape` plus the sum of the updates to each
// slice.
template <class T>
class ScatterNdOp : public StatusKernel {
 public:
  ScatterNdOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_ignore_policy(c, &ignore_bad_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& updates = ctx.input(1);
    const Tensor& shape_t = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(rank_at_least_one(indices, "Indices"));
    ACTORFLOW_RETURN_IF_ERROR(rank_at_least_one(updates, "Updates"));
    const std::vector<std::int64_t> dims = index_values(shape_t);
    for (auto d : dims)
      if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    const Shape shape(dims);
    if (!valid_empty_output(shape_t.num_elements(), indices.num_elements(), updates.num_elements()))
      return invalid_argument("Indices and updates specified for empty output shape");
    if (const Misfit m = updates_misfit(indices.shape(), updates.shape(), shape);
        m != Misfit::none) {
      const int outer = indices.rank() - 1;
      if (m == Misfit::outer)
        return invalid_argument("Dimensions [0," + std::to_string(outer) +
                                ") of indices[shape=" + indices.shape().to_string() +
                                "] must match dimensions [0," + std::to_string(outer) +
                                ") of updates[shape=" + updates.shape().to_string() + "]");
      return invalid_argument("Dimensions [" + std::to_string(indices.shape().dim(outer)) + "," +
                              std::to_string(shape.rank()) + ") of input[shape=" +
                              shape.to_string() + "] must match dimensions [" +
                              std::to_string(outer) + "," + std::to_string(updates.rank()) +
                              ") of updates[shape=" + updates.shape().to_string() + "]");
    }
    if (shape_t.rank() != 1) return invalid_argument("Shape must be a vector");
    ACTORFLOW_RETURN_IF_ERROR(prepare_scatter(shape, indices, updates));
    Tensor& out = ctx.allocate_output(0, dtype_of_v<T>, shape);
    if (shape.num_elements() == 0) return {};
    ACTORFLOW_RETURN_IF_ERROR(scatter_depth(indices));
    return apply_rows<Kind::add, T>(IndexRows(indices, shape), indices, updates, out, ignore_bad_);
  }

 private:
  bool ignore_bad_ = false;
};

// TensorScatter{Update,Add,Sub,Max,Min}(tensor, indices, updates): a copy of `tensor` with
// the updates applied to the slices they name, in order.
template <Kind K, class T>
class TensorScatterOp : public StatusKernel {
 public:
  TensorScatterOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = read_ignore_policy(c, &ignore_bad_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& tensor = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(rank_at_least_one(indices, "Indices"));
    ACTORFLOW_RETURN_IF_ERROR(rank_at_least_one(updates, "Updates"));
    const Shape& shape = tensor.shape();
    if (!valid_empty_output(shape.num_elements(), indices.num_elements(), updates.num_elements()))
      return invalid_argument("Indices and updates specified for empty output shape");
    const int outer = indices.rank() - 1;
    switch (updates_misfit(indices.shape(), updates.shape(), shape)) {
      case Misfit::outer:
        return invalid_argument(
            "Outer dimensions of indices and update must match. Indices shape: " +
            indices.shape().to_string() + ", updates shape:" + updates.shape().to_string());
      case Misfit::inner_rank:
        return invalid_argument(
            "Inner dimensions of output shape must match inner dimensions of updates shape. "
            "Output: " +
            shape.to_string() + " updates: " + updates.shape().to_string());
      case Misfit::inner_dim:
        return invalid_argument("The inner " +
                                std::to_string(shape.rank() - indices.shape().dim(outer)) +
                                " dimensions of output.shape=" + shape.to_string() +
                                " must match the inner " + std::to_string(updates.rank() - outer) +
                                " dimensions of updates.shape=" + updates.shape().to_string());
      case Misfit::none:
        break;
    }
    ACTORFLOW_RETURN_IF_ERROR(prepare_scatter(shape, indices, updates));
    Tensor& out = ctx.allocate_output_for_overwrite(0, tensor.dtype(), shape);
    copy_elements(tensor, 0, out, 0, shape.num_elements());
    if (shape.num_elements() == 0) return {};
    ACTORFLOW_RETURN_IF_ERROR(scatter_depth(indices));
    return apply_rows<K, T>(IndexRows(indices, shape), indices, updates, out, ignore_bad_);
  }

 private:
  bool ignore_bad_ = false;
};

template <class T>
using TensorScatterAddOp = TensorScatterOp<Kind::add, T>;
template <class T>
using TensorScatterSubOp = TensorScatterOp<Kind::sub, T>;
template <class T>
using TensorScatterMaxOp = TensorScatterOp<Kind::max, T>;
template <class T>
using TensorScatterMinOp = TensorScatterOp<Kind::min, T>;

// Kernel<T> for op `type` over each T of Ts and both index types.
template <template <class> class Kernel, class... Ts>
void register_indexed(KernelRegistry& r, const char* type, detail::TypeList<Ts...> /*types*/) {
  (r.add(make_kernel_def<Kernel<Ts>>(type, "CPU",
                                     {{"T", {dtype_of_v<Ts>}}, {"Tindices", kIndexTypes}})),
   ...);
}

}  // namespace

namespace detail {

void register_gather_nd_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<GatherNdOp>("GatherNd", "CPU",
                                    {{"Tparams", kValueTypes}, {"Tindices", kIndexTypes}}));
  r.add(make_kernel_def<ResourceGatherNdOp>("ResourceGatherNd", "CPU",
                                            {{"dtype", kValueTypes}, {"Tindices", kIndexTypes}}));
  // TensorScatterUpdate only moves elements: one kernel serves every dtype.
  r.add(make_kernel_def<TensorScatterOp<Kind::update, std::uint8_t>>(
      "TensorScatterUpdate", "CPU", {{"T", kValueTypes}, {"Tindices", kIndexTypes}}));
  // TensorFlow 2.21's types: every number (Max and Min: the real ones).
  register_indexed<ScatterNdOp>(r, "ScatterNd", NumberTypes{});
  register_indexed<TensorScatterAddOp>(r, "TensorScatterAdd", NumberTypes{});
  register_indexed<TensorScatterSubOp>(r, "TensorScatterSub", NumberTypes{});
  register_indexed<TensorScatterMaxOp>(r, "TensorScatterMax", RealNumberTypes{});
  register_indexed<TensorScatterMinOp>(r, "TensorScatterMin", RealNumberTypes{});
}

}  // namespace detail

}  // namespace af
