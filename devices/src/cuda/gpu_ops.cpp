// GPU kernels: element-wise math, BiasAdd and the activation gradients, AddN,
// ZerosLike/OnesLike, reductions, Cast, Const, random ops, variables' updates, Fill, Tile,
// the shape ops, and the cross-device edges (_Send, _Recv) with their copies, on
// actorflow's own CUDA kernels (gpu_kernels.cu). MatMul, cuDNN, pooling and the losses are in
// gpu_nn_ops.cpp, the optimizers' updates in gpu_training_ops.cpp.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <random>

#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/resource.hpp"
#include "gpu_op_kernel.hpp"

namespace af::gpu {

// launch_reduce with the scratch memory it asks for. The scratch goes back to the allocator
// when this returns, with the kernels still queued: only later work on the compute stream
// (ordered after them) or a copy ordered after it (copy_from_host) can reuse it.
Status reduce_on_device(GpuDeviceContext& g, ReduceKind kind, DType t, const void* in, void* out,
                        std::int64_t outer, std::int64_t reduce, std::int64_t inner, double scale,
                        const char* what) {
  Tensor scratch;
  if (std::size_t bytes = reduce_scratch_bytes(elem_type(t), outer, reduce, inner); bytes > 0)
    ACTORFLOW_RETURN_IF_ERROR(
        g.allocate(DType::uint8, Shape{static_cast<std::int64_t>(bytes)}, &scratch));
  return launch(launch_reduce(kind, elem_type(t), in, out, outer, reduce, inner, scale,
                              scratch.is_initialized() ? scratch.raw_data() : nullptr, g.stream()),
                what);
}

namespace {

// -- element-wise -----------------------------------------------------------------------------

StatusOr<BroadcastPlan> broadcast_plan(const Shape& a, const Shape& b, Shape* out) {
  const int rank = std::max(a.rank(), b.rank());
  if (rank > kMaxBroadcastRank)
    return unimplemented("GPU broadcasting supports rank <= " + std::to_string(kMaxBroadcastRank));
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank));
  BroadcastPlan plan;
  plan.rank = rank;
  std::int64_t a_stride = 1, b_stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int ad = d - (rank - a.rank()), bd = d - (rank - b.rank());
    const std::int64_t x = ad >= 0 ? a.dim(ad) : 1, y = bd >= 0 ? b.dim(bd) : 1;
    if (x != y && x != 1 && y != 1)
      return invalid_argument("Incompatible shapes: " + a.to_string() + " vs. " + b.to_string());
    const std::int64_t o = x == 1 ? y : x;
    dims[static_cast<std::size_t>(d)] = o;
    plan.dims[d] = o;
    plan.a_strides[d] = x == 1 && o != 1 ? 0 : a_stride;
    plan.b_strides[d] = y == 1 && o != 1 ? 0 : b_stride;
    a_stride *= x;
    b_stride *= y;
  }
  *out = Shape(std::move(dims));
  return plan;
}

template <BinaryKind Kind>
class GpuBinaryOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor a, b;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &a));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &b));
    Shape shape;
    auto plan = broadcast_plan(a.shape(), b.shape(), &shape);
    if (!plan.ok()) return plan.status();
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, a.dtype(), shape, &out));
    return launch(launch_binary(Kind, elem_type(a.dtype()), a.raw_data(), b.raw_data(),
                                out->raw_data(), shape.num_elements(), *plan, g.stream()),
                  "binary kernel");
  }
};

template <UnaryKind Kind>
class GpuUnaryOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), x.shape(), &out));
    return launch(launch_unary(Kind, elem_type(x.dtype()), x.raw_data(), out->raw_data(),
                               x.num_elements(), g.stream()),
                  "unary kernel");
  }
};

class GpuBiasAddOp : public GpuOpKernel {
 public:
  GpuBiasAddOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC")
      *s = invalid_argument("BiasAdd on GPU supports data_format NHWC, got " + format);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x, bias;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &bias));
    if (x.rank() < 2)
      return invalid_argument("Input tensor must be at least 2D: " + x.shape().to_string());
    if (bias.rank() != 1) return invalid_argument("Biases must be 1D: " + bias.shape().to_string());
    const std::int64_t channels = x.shape().dim(x.rank() - 1);
    if (bias.num_elements() != channels)
      return invalid_argument(
          "Must provide as many biases as the last dimension of the input tensor: " +
          bias.shape().to_string() + " vs. " + x.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), x.shape(), &out));
    return launch(
        launch_bias_add(elem_type(x.dtype()), x.raw_data(), bias.raw_data(), out->raw_data(),
                        x.num_elements(), std::max<std::int64_t>(channels, 1), g.stream()),
        "bias_add kernel");
  }
};

// ReluGrad(gradients, features), SigmoidGrad(y, dy), TanhGrad(y, dy): both operands of one shape.
template <ActivationGradKind Kind>
class GpuActivationGradOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor a, b;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &a));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &b));
    if (a.shape() != b.shape()) {
      if constexpr (Kind == ActivationGradKind::relu)
        return invalid_argument("gradients and features must have the same shape: " +
                                a.shape().to_string() + " vs " + b.shape().to_string());
      else
        return invalid_argument("Incompatible shapes: " + a.shape().to_string() + " vs. " +
                                b.shape().to_string());
    }
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, a.dtype(), a.shape(), &out));
    return launch(launch_activation_grad(Kind, elem_type(a.dtype()), a.raw_data(), b.raw_data(),
                                         out->raw_data(), a.num_elements(), g.stream()),
                  "activation gradient kernel");
  }
};

// The sum over every dimension but the last (channels): one [1, rows, channels] reduction.
class GpuBiasAddGradOp : public GpuOpKernel {
 public:
  GpuBiasAddGradOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC")
      *s = invalid_argument("BiasAddGrad on GPU supports data_format NHWC, got " + format);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor dy;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &dy));
    if (dy.rank() < 2)
      return invalid_argument("Input tensor must be at least 2D: " + dy.shape().to_string());
    const std::int64_t channels = dy.shape().dim(dy.rank() - 1);
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, dy.dtype(), Shape{channels}, &out));
    if (channels == 0) return {};
    if (dy.num_elements() == 0)
      return launch(launch_fill(elem_type(dy.dtype()), 0, out->raw_data(), channels, g.stream()),
                    "fill kernel");
    return reduce_on_device(g, ReduceKind::sum, dy.dtype(), dy.raw_data(), out->raw_data(), 1,
                            dy.num_elements() / channels, channels, 1.0, "bias_add_grad kernel");
  }
};

// Sums the inputs left to right, one element-wise addition per input after the first.
class GpuAddNOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    const int num = ctx.num_inputs();
    if (num == 0) return invalid_argument("AddN needs at least one input");
    std::vector<Tensor> inputs(static_cast<std::size_t>(num));
    for (int i = 0; i < num; ++i) {
      ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, i, &inputs[static_cast<std::size_t>(i)]));
      if (inputs[static_cast<std::size_t>(i)].shape() != inputs[0].shape())
        return invalid_argument("Inputs to operation " + name() + " of type " + type() +
                                " must have the same size and shape.  Input 0: " +
                                inputs[0].shape().to_string() + " != input " + std::to_string(i) +
                                ": " + inputs[static_cast<std::size_t>(i)].shape().to_string());
    }
    if (num == 1) {
      ctx.set_output(0, inputs[0]);
      return {};
    }
    const Shape& shape = inputs[0].shape();
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, inputs[0].dtype(), shape, &out));
    const ElemType t = elem_type(inputs[0].dtype());
    const std::int64_t n = shape.num_elements();
    // Same-shape operands as one flat dimension (any rank).
    BroadcastPlan flat;
    flat.rank = 1;
    flat.dims[0] = n;
    flat.a_strides[0] = 1;
    flat.b_strides[0] = 1;
    ACTORFLOW_RETURN_IF_ERROR(
        launch(launch_binary(BinaryKind::add, t, inputs[0].raw_data(), inputs[1].raw_data(),
                             out->raw_data(), n, flat, g.stream()),
               "add_n kernel"));
    // Element i of the output is read and written by the same thread: accumulating in place is
    // safe.
    for (std::size_t i = 2; i < inputs.size(); ++i)
      ACTORFLOW_RETURN_IF_ERROR(
          launch(launch_binary(BinaryKind::add, t, out->raw_data(), inputs[i].raw_data(),
                               out->raw_data(), n, flat, g.stream()),
                 "add_n kernel"));
    return {};
  }
};

// ZerosLike (Value 0) and OnesLike (Value 1): only the input's dtype and shape are read.
template <int Value>
class GpuFillLikeOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    const Tensor& x = ctx.input(0);
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), x.shape(), &out));
    return launch(
        launch_fill(elem_type(x.dtype()), Value, out->raw_data(), out->num_elements(), g.stream()),
        "fill kernel");
  }
};

// -- reductions ----------------------------------------------------------------------------------

class GpuReductionOp : public GpuOpKernel {
 public:
  GpuReductionOp(OpKernelConstruction& c, Status*, ReduceKind kind, bool mean)
      : GpuOpKernel(c), kind_(kind), mean_(mean) {
    c.get_attr("keep_dims", &keep_dims_);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    const Tensor& axes = ctx.input(1);  // int32, host memory
    const int rank = x.rank();
    std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
    for (auto a : axes.flat<std::int32_t>()) {
      if (a < -rank || a >= rank)
        return invalid_argument("Invalid reduction dimension " + std::to_string(a) +
                                " for input with " + std::to_string(rank) + " dimensions.");
      reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    }
    std::vector<std::int64_t> out_dims;
    std::int64_t count = 1;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[static_cast<std::size_t>(d)])
        out_dims.push_back(x.shape().dim(d));
      else if (keep_dims_)
        out_dims.push_back(1);
      if (reduced[static_cast<std::size_t>(d)]) count *= x.shape().dim(d);
    }
    // Collapse into alternating kept/reduced groups, then reduce the groups last to first,
    // each pass an [outer, reduce, inner] reduction.
    std::vector<std::pair<std::int64_t, bool>> groups;
    for (int d = 0; d < rank; ++d) {
      const bool r = reduced[static_cast<std::size_t>(d)];
      if (!groups.empty() && groups.back().second == r)
        groups.back().first *= x.shape().dim(d);
      else
        groups.emplace_back(x.shape().dim(d), r);
    }
    Tensor current = x;
    int passes_left = static_cast<int>(
        std::count_if(groups.begin(), groups.end(), [](auto& gr) { return gr.second; }));
    if (passes_left == 0 || x.num_elements() == 0 || count <= 1) {
      // Nothing (or only size-1 dimensions) reduced; an empty reduction is the identity value.
      Tensor* out = nullptr;
      ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), Shape(out_dims), &out));
      if (out->num_elements() == 0) return {};
      if (x.num_elements() == 0)
        return invalid_argument("reduction of an empty tensor on GPU: place it on the CPU");
      return launch(cudaMemcpyAsync(out->raw_data(), x.raw_data(), out->total_bytes(),
                                    cudaMemcpyDeviceToDevice, g.stream()),
                    "reduction copy");
    }
    for (int gi = static_cast<int>(groups.size()) - 1; gi >= 0; --gi) {
      if (!groups[static_cast<std::size_t>(gi)].second) continue;
      std::int64_t outer = 1, inner = 1;
      for (int k = 0; k < gi; ++k) outer *= groups[static_cast<std::size_t>(k)].first;
      for (std::size_t k = static_cast<std::size_t>(gi) + 1; k < groups.size(); ++k)
        inner *= groups[k].first;
      const std::int64_t reduce = groups[static_cast<std::size_t>(gi)].first;
      Tensor next;
      const bool last = --passes_left == 0;
      if (last) {
        Tensor* out = nullptr;
        ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), Shape(out_dims), &out));
        next = *out;
      } else {
        ACTORFLOW_RETURN_IF_ERROR(g.allocate(x.dtype(), Shape{outer * inner}, &next));
      }
      const double scale = last && mean_ ? 1.0 / static_cast<double>(count) : 1.0;
      ACTORFLOW_RETURN_IF_ERROR(reduce_on_device(g, kind_, x.dtype(), current.raw_data(),
                                                 next.raw_data(), outer, reduce, inner, scale,
                                                 "reduction kernel"));
      groups[static_cast<std::size_t>(gi)].first = 1;
      current = next;
    }
    return {};
  }

 private:
  ReduceKind kind_;
  bool mean_;
  bool keep_dims_ = false;
};

// -- Cast, Const, random ------------------------------------------------------------------------

class GpuCastOp : public GpuOpKernel {
 public:
  GpuCastOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) { *s = c.get_attr("DstT", &to_); }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, to_, x.shape(), &out));
    return launch(launch_cast(elem_type(x.dtype()), elem_type(to_), x.raw_data(), out->raw_data(),
                              x.num_elements(), g.stream()),
                  "cast kernel");
  }

 private:
  DType to_ = DType::invalid;
};

// A constant copied into device memory on first use and kept (int32 stays on the host).
class GpuConstOp : public GpuOpKernel {
 public:
  GpuConstOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    *s = c.get_attr("value", &value_);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    std::lock_guard<std::mutex> guard(mu_);
    if (!cached_.is_initialized()) ACTORFLOW_RETURN_IF_ERROR(g.to_device(value_, &cached_));
    ctx.set_output(0, cached_);
    return {};
  }

 private:
  Tensor value_;
  std::mutex mu_;
  Tensor cached_;
};

template <RandomKind Kind>
class GpuRandomOp : public GpuOpKernel {
 public:
  GpuRandomOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
    std::int64_t seed = 0, seed2 = 0;
    c.get_attr("seed", &seed);
    c.get_attr("seed2", &seed2);
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      auto new64 = [&rd] { return (static_cast<std::uint64_t>(rd()) << 32) | rd(); };
      generator_ = PhiloxRandom(new64(), new64());
    } else {
      generator_ =
          PhiloxRandom(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed2));
    }
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    const Tensor& shape_t = ctx.input(0);  // int32, host memory
    if (shape_t.rank() != 1)
      return invalid_argument("shape must be a vector of {int32,int64}, got shape " +
                              shape_t.shape().to_string());
    std::vector<std::int64_t> dims;
    for (auto d : shape_t.flat<std::int32_t>()) {
      if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
      dims.push_back(d);
    }
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, dtype_, Shape(dims), &out));
    PhiloxRandom gen;
    {
      // GuardedPhiloxRandom: every run reserves 256 samples per output element.
      std::lock_guard<std::mutex> guard(mu_);
      gen = generator_;
      generator_.skip(static_cast<std::uint64_t>(out->num_elements()) * 256);
    }
    return launch(
        launch_philox_random(Kind, elem_type(dtype_), gen.key().data(), gen.counter().data(),
                             out->raw_data(), out->num_elements(), g.stream()),
        "philox kernel");
  }

 private:
  DType dtype_ = DType::invalid;
  std::mutex mu_;
  PhiloxRandom generator_;
};

// -- variables --------------------------------------------------------------------------------

template <BinaryKind Kind>
class GpuAssignUpdateOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    auto* var = dynamic_cast<Var*>(ctx.input_ref(0).get());
    if (var == nullptr) return invalid_argument(type() + " needs a variable reference as input 0");
    Tensor delta;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &delta));
    ACTORFLOW_RETURN_IF_ERROR(var->update([&](Tensor& value) -> Status {
      if (value.shape() != delta.shape())
        return invalid_argument("Must have the same shape: " + value.shape().to_string() + " vs " +
                                delta.shape().to_string());
      Tensor old;
      ACTORFLOW_RETURN_IF_ERROR(g.to_device(value, &old));
      Tensor next;
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(value.dtype(), value.shape(), &next));
      Shape shape;
      auto plan = broadcast_plan(old.shape(), delta.shape(), &shape);
      if (!plan.ok()) return plan.status();
      ACTORFLOW_RETURN_IF_ERROR(
          launch(launch_binary(Kind, elem_type(old.dtype()), old.raw_data(), delta.raw_data(),
                               next.raw_data(), shape.num_elements(), *plan, g.stream()),
                 "assign update kernel"));
      value = next;
      return {};
    }));
    ctx.set_output(0, ctx.input(0));
    return {};
  }
};

// Fill(dims, value): dims (int32) in host memory, the scalar broadcast on the device (the
// zeros of large optimizer slots, which live beside their variable).
class GpuFillOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    const Tensor& dims = ctx.input(0);
    if (dims.rank() != 1)
      return invalid_argument("dims must be a vector, got shape " + dims.shape().to_string());
    Tensor value;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &value));
    if (value.rank() != 0)
      return invalid_argument("value must be a scalar, got shape " + value.shape().to_string());
    std::vector<std::int64_t> sizes;
    for (std::int32_t d : dims.flat<std::int32_t>()) {
      if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
      sizes.push_back(d);
    }
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(
        g.allocate_output(ctx, 0, value.dtype(), Shape(std::move(sizes)), &out));
    return launch(launch_broadcast_scalar(dtype_size(value.dtype()), value.raw_data(),
                                          out->raw_data(), out->num_elements(), g.stream()),
                  "fill kernel");
  }
};

// Tile(input, multiples): multiples (int32) in host memory.
class GpuTileOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    const Tensor& multiples = ctx.input(1);
    if (multiples.rank() != 1)
      return invalid_argument("Expected multiples to be 1-D, but got shape " +
                              multiples.shape().to_string());
    if (x.rank() != multiples.num_elements())
      return invalid_argument("Expected multiples argument to be a vector of length " +
                              std::to_string(x.rank()) + " but got length " +
                              std::to_string(multiples.num_elements()));
    if (x.rank() > kMaxTileRank)
      return unimplemented("Tile on GPU supports rank <= " + std::to_string(kMaxTileRank));
    if (x.rank() == 0) {
      ctx.set_output(0, x);
      return {};
    }
    TilePlan plan;
    plan.rank = x.rank();
    std::vector<std::int64_t> out_dims;
    auto m = multiples.flat<std::int32_t>();
    std::int64_t stride = 1;
    for (int d = x.rank() - 1; d >= 0; --d) {
      if (m[d] < 0)
        return invalid_argument("Expected multiples[" + std::to_string(d) + "] >= 0, but got " +
                                std::to_string(m[d]));
      plan.in_dims[d] = x.shape().dim(d);
      plan.out_dims[d] = x.shape().dim(d) * m[d];
      plan.in_strides[d] = stride;
      stride *= x.shape().dim(d);
    }
    out_dims.assign(plan.out_dims, plan.out_dims + plan.rank);
    Shape out_shape(std::move(out_dims));
    if (out_shape == x.shape()) {
      ctx.set_output(0, x);
      return {};
    }
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), out_shape, &out));
    return launch(launch_tile(dtype_size(x.dtype()), x.raw_data(), out->raw_data(),
                              out_shape.num_elements(), plan, g.stream()),
                  "tile kernel");
  }
};

// -- cross-device edges --------------------------------------------------------------------------

// Resumes `c` inside the kernel's device actor whichever thread the copy finishes on.
Async<StatusOr<Tensor>> copy(OpKernelContext& ctx, GpuDeviceContext& g, const Tensor& value,
                             bool to_host) {
  return {[&ctx, &g, value, to_host](Completion<StatusOr<Tensor>> c) {
    auto post = ctx.step->poster();
    auto done = [post, c](StatusOr<Tensor> r) { post([c, r]() mutable { c(std::move(r)); }); };
    if (to_host)
      g.owner->copy_to_host(value, done);
    else
      g.owner->copy_from_host(value, done);
  }};
}

GpuDeviceContext* gpu_context(OpKernelContext& ctx) {
  return dynamic_cast<GpuDeviceContext*>(ctx.device_context);
}

// The GPU half of a cross-device edge: the value leaves the GPU as a host tensor, copied
// on the device-to-host stream while later kernels run.
class GpuSendOp : public OpKernel {
 public:
  GpuSendOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("key", &key_); }
  void compute(OpKernelContext& ctx) override {
    ctx.fail(internal("_Send on GPU is asynchronous: " + name()));
  }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    GpuDeviceContext* g = gpu_context(ctx);
    if (!ctx.step || !g) {
      ctx.fail(internal("_Send on GPU without a rendezvous or GPU context in " + name()));
      co_return;
    }
    StatusOr<Tensor> host = co_await copy(ctx, *g, ctx.input(0), true);
    if (!host.ok()) {
      ctx.fail(host.status());
      co_return;
    }
    ctx.step->send(key_, std::move(*host));
  }

 private:
  std::string key_;
};

class GpuRecvOp : public OpKernel {
 public:
  GpuRecvOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("key", &key_); }
  void compute(OpKernelContext& ctx) override {
    ctx.fail(internal("_Recv on GPU is asynchronous: " + name()));
  }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    GpuDeviceContext* g = gpu_context(ctx);
    if (!ctx.step || !g) {
      ctx.fail(internal("_Recv on GPU without a rendezvous or GPU context in " + name()));
      co_return;
    }
    StatusOr<Tensor> value = co_await ctx.step->recv(key_);
    if (!value.ok()) {
      ctx.fail(value.status());
      co_return;
    }
    if (value->is_dead()) {  // the untaken side of a cond: nothing to copy
      ctx.set_output(0, Tensor::dead());
      co_return;
    }
    StatusOr<Tensor> device = co_await copy(ctx, *g, *value, false);
    if (!device.ok()) {
      ctx.fail(device.status());
      co_return;
    }
    ctx.set_output(0, std::move(*device));
  }

 private:
  std::string key_;
};

// Switch on a GPU: the data stays where it is; the bool predicate, in device memory when a
// GPU op made or received it, is read on the host first (TensorFlow's HostMemory("pred")).
class GpuSwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    ctx.fail(internal("Switch on GPU is asynchronous: " + name()));
  }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    Tensor pred = ctx.input(1);
    if (pred.on_device()) {
      GpuDeviceContext* g = gpu_context(ctx);
      if (!ctx.step || !g) {
        ctx.fail(internal("Switch on GPU without a GPU context in " + name()));
        co_return;
      }
      StatusOr<Tensor> host = co_await copy(ctx, *g, pred, true);
      if (!host.ok()) {
        ctx.fail(host.status());
        co_return;
      }
      pred = std::move(*host);
    }
    if (pred.dtype() != DType::boolean || pred.rank() != 0) {
      ctx.fail(invalid_argument("The second input must be a scalar, but it has shape " +
                                pred.shape().to_string()));
      co_return;
    }
    const int taken = pred.data<bool>()[0] ? 1 : 0;
    ctx.set_output(taken, ctx.input(0));
    ctx.set_output(1 - taken, Tensor::dead());
  }
};

// -- registration ---------------------------------------------------------------------------------

template <ReduceKind Kind, bool Mean>
class GpuReduction : public GpuReductionOp {
 public:
  GpuReduction(OpKernelConstruction& c, Status* s) : GpuReductionOp(c, s, Kind, Mean) {}
};

}  // namespace

void register_gpu_kernels(KernelRegistry& r) {
  // Kernels that never touch element memory run as they do on the CPU.
  for (const char* op :
       {"Identity", "IdentityN", "NoOp", "VariableV2", "Assign", "Placeholder", "StopGradient",
        "PreventGradient", "Squeeze", "Merge", "RefMerge", "ControlTrigger", "Enter", "RefEnter",
        "Exit", "RefExit", "NextIteration", "RefNextIteration", "LoopCond"})
    for (KernelDef def : r.kernels_for(op, "CPU")) {
      def.device_type = "GPU";
      r.add(std::move(def));
    }
  // Those that read shapes or index tensors, with the index tensors int32 (which a GPU device
  // keeps in host memory, as TensorFlow's HostMemory arguments): reshapes share the buffer,
  // shape ops write int32 host tensors.
  const std::vector<std::pair<const char*, const char*>> int32_index_ops = {
      {"Reshape", "Tshape"},         {"ExpandDims", "Tdim"}, {"Shape", "out_type"},
      {"Size", "out_type"},          {"ShapeN", "out_type"}, {"Rank", nullptr},
      {"BroadcastGradientArgs", "T"}};
  for (const auto& [op, index_attr] : int32_index_ops)
    for (KernelDef def : r.kernels_for(op, "CPU")) {
      def.device_type = "GPU";
      if (index_attr != nullptr)
        for (auto& [attr, types] : def.constraints)
          if (attr == index_attr) types = {DType::int32};
      r.add(std::move(def));
    }
  register_gpu_nn_kernels(r);
  register_gpu_training_kernels(r);
  add<GpuConstOp>(r, "Const");
  add<GpuSendOp>(r, "_Send");
  add<GpuRecvOp>(r, "_Recv");
  for (const char* op : {"Switch", "RefSwitch"})
    for (const KernelDef& def : r.kernels_for(op, "CPU")) add<GpuSwitchOp>(r, op, def.constraints);
  const std::vector<DType> arithmetic = {DType::float32, DType::float64, DType::bfloat16,
                                         DType::int64};
  add<GpuBinaryOp<BinaryKind::add>>(r, "Add", {{"T", arithmetic}});
  add<GpuBinaryOp<BinaryKind::add>>(r, "AddV2", {{"T", arithmetic}});
  add<GpuBinaryOp<BinaryKind::sub>>(r, "Sub", {{"T", arithmetic}});
  add<GpuBinaryOp<BinaryKind::mul>>(r, "Mul", {{"T", arithmetic}});
  add<GpuBinaryOp<BinaryKind::div>>(r, "RealDiv", {{"T", kFloat}});
  add<GpuBinaryOp<BinaryKind::div>>(r, "Div", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::neg>>(r, "Neg", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::relu>>(r, "Relu", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::sigmoid>>(r, "Sigmoid", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::tanh>>(r, "Tanh", {{"T", kFloat}});
  add<GpuBiasAddOp>(r, "BiasAdd", {{"T", kFloat}});
  const std::vector<DType>& float_or_double = kFloatOrDouble;
  add<GpuUnaryOp<UnaryKind::square>>(r, "Square", {{"T", float_or_double}});
  add<GpuUnaryOp<UnaryKind::sqrt>>(r, "Sqrt", {{"T", float_or_double}});
  add<GpuUnaryOp<UnaryKind::rsqrt>>(r, "Rsqrt", {{"T", float_or_double}});
  add<GpuUnaryOp<UnaryKind::exp>>(r, "Exp", {{"T", float_or_double}});
  add<GpuUnaryOp<UnaryKind::log>>(r, "Log", {{"T", float_or_double}});
  add<GpuUnaryOp<UnaryKind::reciprocal>>(r, "Reciprocal", {{"T", float_or_double}});
  add<GpuActivationGradOp<ActivationGradKind::relu>>(r, "ReluGrad", {{"T", float_or_double}});
  add<GpuActivationGradOp<ActivationGradKind::sigmoid>>(r, "SigmoidGrad", {{"T", float_or_double}});
  add<GpuActivationGradOp<ActivationGradKind::tanh>>(r, "TanhGrad", {{"T", float_or_double}});
  add<GpuBiasAddGradOp>(r, "BiasAddGrad", {{"T", float_or_double}});
  add<GpuAddNOp>(r, "AddN", {{"T", float_or_double}});
  const std::vector<DType> fillable = {DType::float32, DType::float64, DType::bfloat16,
                                       DType::int64};
  add<GpuFillLikeOp<0>>(r, "ZerosLike", {{"T", fillable}});
  add<GpuFillLikeOp<1>>(r, "OnesLike", {{"T", fillable}});
  add<GpuReduction<ReduceKind::sum, false>>(r, "Sum", {{"T", kFloat}, {"Tidx", {DType::int32}}});
  add<GpuReduction<ReduceKind::sum, true>>(r, "Mean", {{"T", kFloat}, {"Tidx", {DType::int32}}});
  add<GpuReduction<ReduceKind::max, false>>(r, "Max", {{"T", kFloat}, {"Tidx", {DType::int32}}});
  const std::vector<DType> castable = {DType::float32, DType::float64, DType::bfloat16,
                                       DType::int64,   DType::uint8,   DType::boolean};
  add<GpuCastOp>(r, "Cast", {{"SrcT", castable}, {"DstT", castable}});
  add<GpuRandomOp<RandomKind::uniform>>(r, "RandomUniform",
                                        {{"dtype", kFloat}, {"T", {DType::int32}}});
  add<GpuRandomOp<RandomKind::normal>>(r, "RandomStandardNormal",
                                       {{"dtype", kFloat}, {"T", {DType::int32}}});
  add<GpuAssignUpdateOp<BinaryKind::add>>(r, "AssignAdd", {{"T", arithmetic}});
  add<GpuAssignUpdateOp<BinaryKind::sub>>(r, "AssignSub", {{"T", arithmetic}});
  const std::vector<DType> tileable = {DType::float32, DType::float64, DType::bfloat16,
                                       DType::int64,   DType::uint8,   DType::boolean};
  add<GpuTileOp>(r, "Tile", {{"T", tileable}, {"Tmultiples", {DType::int32}}});
  add<GpuFillOp>(r, "Fill", {{"T", tileable}, {"index_type", {DType::int32}}});
}

}  // namespace af::gpu
