// ExpandDims, Squeeze, Rank, ShapeN, ZerosLike, OnesLike, StopGradient and PreventGradient:
// CPU kernels. Registered from transform_ops.cpp; their definitions (shape functions,
// graph-building functions) are in ops/src/defs/transform_shape_ops.cpp.
//
// The kernels follow TensorFlow 1.x (tensorflow/core/kernels/shape_ops.h, constant_op.cc,
// identity_op.cc); messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/transform_defs.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;

using detail::kIndexTypes;
using detail::kNumericTypes;
using detail::kValueTypes;

using detail::node_suffix;

using detail::first_index;

// StopGradient, PreventGradient (and TensorFlow's Identity): the input is the output.
class IdentityLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

// -- ExpandDims ---------------------------------------------------------------------------

class ExpandDimsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.dtype() == DType::variant)  // as TensorFlow's kernel: tf.stack of one list
      return ctx.fail(
          invalid_argument("ExpandDims on Variant not supported" + node_suffix(name())));
    if (ctx.input(1).num_elements() != 1)
      return ctx.fail(
          invalid_argument("'dim' must be a tensor with a single value" + node_suffix(name())));
    Index dim = first_index(ctx.input(1));
    const int rank = input.rank();
    if (dim < -1 - rank || dim > rank)
      return ctx.fail(invalid_argument("Tried to expand dim index " + std::to_string(dim) +
                                       " for tensor with " + std::to_string(rank) + " dimensions." +
                                       node_suffix(name())));
    if (dim < 0) dim += rank + 1;
    std::vector<std::int64_t> dims(input.shape().dims().begin(), input.shape().dims().end());
    dims.insert(dims.begin() + dim, 1);
    ctx.set_output(0, input.reshaped(Shape(std::move(dims))));
  }
};

// -- Squeeze ------------------------------------------------------------------------------

class SqueezeOp : public OpKernel {
 public:
  SqueezeOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::vector<std::int64_t> dims;
    c.get_attr("squeeze_dims", &dims);
    squeeze_dims_.insert(dims.begin(), dims.end());
    (void)s;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.dtype() == DType::variant)
      return ctx.fail(invalid_argument("Squeeze on Variant not supported" + node_suffix(name())));
    const int rank = input.rank();
    std::set<Index> wrapped;
    for (Index dim : squeeze_dims_) {
      if (dim < -rank || dim >= rank)
        return ctx.fail(invalid_argument("Tried to squeeze dim index " + std::to_string(dim) +
                                         " for tensor with " + std::to_string(rank) +
                                         " dimensions." + node_suffix(name())));
      wrapped.insert(dim < 0 ? dim + rank : dim);
    }
    std::vector<std::int64_t> dims;
    for (int i = 0; i < rank; ++i) {
      const Index existing = input.shape().dim(i);
      if (!wrapped.empty()) {
        if (wrapped.count(i)) {
          if (existing != 1)
            return ctx.fail(invalid_argument("Can not squeeze dim[" + std::to_string(i) +
                                             "], expected a dimension of 1, got " +
                                             std::to_string(existing) + node_suffix(name())));
        } else {
          dims.push_back(existing);
        }
      } else if (existing != 1) {
        dims.push_back(existing);
      }
    }
    ctx.set_output(0, input.reshaped(Shape(std::move(dims))));
  }

 private:
  std::set<Index> squeeze_dims_;
};

// -- Rank and ShapeN ----------------------------------------------------------------------

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    ctx.set_output(0, Tensor(static_cast<std::int32_t>(ctx.input(0).rank())));
  }
};

class ShapeNOp : public OpKernel {
 public:
  ShapeNOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("out_type", &out_type_);
  }

  void compute(OpKernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Shape& shape = ctx.input(i).shape();
      if (out_type_ == DType::int64) {
        ctx.set_output(i, Tensor::from_vector(std::vector<std::int64_t>(shape.dims())));
        continue;
      }
      std::vector<std::int32_t> dims;
      for (int j = 0; j < shape.rank(); ++j) {
        if (shape.dim(j) > std::numeric_limits<std::int32_t>::max())
          return ctx.fail(invalid_argument(
              "ShapeN output type is 32-bit but shape " + std::to_string(i) + " dim " +
              std::to_string(j) + " is " + std::to_string(shape.dim(j)) + node_suffix(name())));
        dims.push_back(static_cast<std::int32_t>(shape.dim(j)));
      }
      ctx.set_output(i, Tensor::from_vector(dims));
    }
  }

 private:
  DType out_type_ = DType::int32;
};

// -- ZerosLike and OnesLike ---------------------------------------------------------------

class ZerosLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    ctx.allocate_output(0, x.dtype(), x.shape());  // zero-filled, "" for strings
  }
};

class OnesLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    Tensor& out = ctx.allocate_output(0, x.dtype(), x.shape());
    visit_numeric_dtype(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T one;
      if constexpr (is_half_like_v<T>)
        one = T(1.0f);
      else
        one = T(1);
      auto o = out.flat<T>();
      std::fill(o.begin(), o.end(), one);
    });
  }
};

}  // namespace

namespace detail {

void register_transform_shape_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ExpandDimsOp>("ExpandDims", "CPU",
                                      {{"T", detail::kMovableTypes}, {"Tdim", kIndexTypes}}));
  r.add(make_kernel_def<SqueezeOp>("Squeeze", "CPU", {{"T", detail::kMovableTypes}}));
  r.add(make_kernel_def<RankOp>("Rank", "CPU", {{"T", kValueTypes}}));
  r.add(
      make_kernel_def<ShapeNOp>("ShapeN", "CPU", {{"T", kValueTypes}, {"out_type", kIndexTypes}}));
  r.add(make_kernel_def<ZerosLikeOp>("ZerosLike", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<OnesLikeOp>("OnesLike", "CPU", {{"T", kNumericTypes}}));
  r.add(make_kernel_def<IdentityLikeOp>("StopGradient", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<IdentityLikeOp>("PreventGradient", "CPU", {{"T", kValueTypes}}));
}

}  // namespace detail

}  // namespace af
