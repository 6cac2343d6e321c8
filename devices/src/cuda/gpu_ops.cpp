// GPU kernels: element-wise math, BiasAdd, reductions, Cast, random ops, pooling and the
// training ops (activation gradients, BiasAddGrad, AddN, ZerosLike/OnesLike, sparse softmax
// cross entropy, the ApplyGradientDescent/ApplyMomentum/ApplyAdam updates) on actorflow's
// own CUDA kernels (gpu_kernels.cu); MatMul on cuBLAS; Conv2D, its gradients
// and Softmax on cuDNN; Const, _Send and _Recv with their copies. Every kernel enqueues on
// the device's compute stream and returns at once (stream order keeps dependent kernels
// in order); the partition finishes when the stream has caught up (GpuDevice::sync).
// int32 tensors stay in host memory on a GPU device (TensorFlow's HostMemory convention):
// shapes, axes and sizes arrive readable by the host.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <random>

#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/resource.hpp"
#include "cuda_check.hpp"
#include "cuda_libraries.hpp"
#include "gpu_device.hpp"
#include "gpu_kernels.hpp"

namespace af::gpu {

namespace {

ElemType elem_type(DType t) {
  switch (t) {
    case DType::float32: return ElemType::f32;
    case DType::float64: return ElemType::f64;
    case DType::bfloat16: return ElemType::bf16;
    case DType::int64: return ElemType::i64;
    case DType::uint8: return ElemType::u8;
    default: return ElemType::boolean;
  }
}

/// A kernel whose work runs on the GPU: `compute_gpu` enqueues it and returns.
class GpuOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) final {
    auto* g = dynamic_cast<GpuDeviceContext*>(ctx.device_context);
    if (g == nullptr) return ctx.fail(internal("GPU kernel " + type() + " ran without a GPU device context"));
    cudaSetDevice(g->state().cuda_id);
    Status s = compute_gpu(ctx, *g);
    if (!s.ok()) ctx.fail(s);
  }
  virtual Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) = 0;

 protected:
  // Input `i` in device memory (a host tensor is copied in on the compute stream).
  static Status device_input(OpKernelContext& ctx, GpuDeviceContext& g, int i, Tensor* out) {
    return g.to_device(ctx.input(i), out);
  }
};

Status launch(cudaError_t e, const char* what) { return cuda_status(e, what, __FILE__, __LINE__); }

// launch_reduce with the scratch memory it asks for. The scratch goes back to the allocator
// when this returns, with the kernels still queued: only later work on the compute stream
// (ordered after them) or a copy ordered after it (copy_from_host) can reuse it.
Status reduce_on_device(GpuDeviceContext& g, ReduceKind kind, DType t, const void* in, void* out, std::int64_t outer,
                        std::int64_t reduce, std::int64_t inner, double scale, const char* what) {
  Tensor scratch;
  if (std::size_t bytes = reduce_scratch_bytes(elem_type(t), outer, reduce, inner); bytes > 0)
    ACTORFLOW_RETURN_IF_ERROR(g.allocate(DType::uint8, Shape{static_cast<std::int64_t>(bytes)}, &scratch));
  return launch(launch_reduce(kind, elem_type(t), in, out, outer, reduce, inner, scale,
                              scratch.is_initialized() ? scratch.raw_data() : nullptr, g.stream()),
                what);
}

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
    return launch(launch_binary(Kind, elem_type(a.dtype()), a.raw_data(), b.raw_data(), out->raw_data(),
                                shape.num_elements(), *plan, g.stream()),
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
    return launch(launch_unary(Kind, elem_type(x.dtype()), x.raw_data(), out->raw_data(), x.num_elements(), g.stream()),
                  "unary kernel");
  }
};

class GpuBiasAddOp : public GpuOpKernel {
 public:
  GpuBiasAddOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC") *s = invalid_argument("BiasAdd on GPU supports data_format NHWC, got " + format);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x, bias;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &bias));
    if (x.rank() < 2) return invalid_argument("Input tensor must be at least 2D: " + x.shape().to_string());
    if (bias.rank() != 1) return invalid_argument("Biases must be 1D: " + bias.shape().to_string());
    const std::int64_t channels = x.shape().dim(x.rank() - 1);
    if (bias.num_elements() != channels)
      return invalid_argument("Must provide as many biases as the last dimension of the input tensor: " +
                              bias.shape().to_string() + " vs. " + x.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), x.shape(), &out));
    return launch(launch_bias_add(elem_type(x.dtype()), x.raw_data(), bias.raw_data(), out->raw_data(),
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
        return invalid_argument("gradients and features must have the same shape: " + a.shape().to_string() + " vs " +
                                b.shape().to_string());
      else
        return invalid_argument("Incompatible shapes: " + a.shape().to_string() + " vs. " + b.shape().to_string());
    }
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, a.dtype(), a.shape(), &out));
    return launch(launch_activation_grad(Kind, elem_type(a.dtype()), a.raw_data(), b.raw_data(), out->raw_data(),
                                         a.num_elements(), g.stream()),
                  "activation gradient kernel");
  }
};

// The sum over every dimension but the last (channels): one [1, rows, channels] reduction.
class GpuBiasAddGradOp : public GpuOpKernel {
 public:
  GpuBiasAddGradOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC") *s = invalid_argument("BiasAddGrad on GPU supports data_format NHWC, got " + format);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor dy;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &dy));
    if (dy.rank() < 2) return invalid_argument("Input tensor must be at least 2D: " + dy.shape().to_string());
    const std::int64_t channels = dy.shape().dim(dy.rank() - 1);
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, dy.dtype(), Shape{channels}, &out));
    if (channels == 0) return {};
    if (dy.num_elements() == 0) return launch(launch_fill(elem_type(dy.dtype()), 0, out->raw_data(), channels, g.stream()),
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
                                " must have the same size and shape.  Input 0: " + inputs[0].shape().to_string() +
                                " != input " + std::to_string(i) + ": " +
                                inputs[static_cast<std::size_t>(i)].shape().to_string());
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
    ACTORFLOW_RETURN_IF_ERROR(launch(
        launch_binary(BinaryKind::add, t, inputs[0].raw_data(), inputs[1].raw_data(), out->raw_data(), n, flat, g.stream()),
        "add_n kernel"));
    // Element i of the output is read and written by the same thread: accumulating in place is safe.
    for (std::size_t i = 2; i < inputs.size(); ++i)
      ACTORFLOW_RETURN_IF_ERROR(launch(
          launch_binary(BinaryKind::add, t, out->raw_data(), inputs[i].raw_data(), out->raw_data(), n, flat, g.stream()),
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
    return launch(launch_fill(elem_type(x.dtype()), Value, out->raw_data(), out->num_elements(), g.stream()),
                  "fill kernel");
  }
};

// SparseSoftmaxCrossEntropyWithLogits with int32 labels: they stay in host memory on a GPU
// device, so they are checked here as the CPU kernel checks them, then widened to int64 and
// copied in.
class GpuSoftmaxXentOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor logits, labels;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &logits));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &labels));
    if (logits.rank() != 2 || labels.rank() != 2)
      return invalid_argument("logits and labels must be 2-dimensional: logits_size=" + logits.shape().to_string() +
                              " labels_size=" + labels.shape().to_string());
    if (logits.shape() != labels.shape())
      return invalid_argument("logits and labels must be broadcastable: logits_size=" + logits.shape().to_string() +
                              " labels_size=" + labels.shape().to_string());
    const std::int64_t rows = logits.shape().dim(0), cols = logits.shape().dim(1);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, logits.dtype(), Shape{rows}, &loss));
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 1, logits.dtype(), logits.shape(), &backprop));
    if (rows == 0) return {};
    if (cols == 0)
      return launch(launch_fill(elem_type(logits.dtype()), 0, loss->raw_data(), rows, g.stream()), "fill kernel");
    return launch(launch_softmax_xent(elem_type(logits.dtype()), logits.raw_data(), labels.raw_data(), loss->raw_data(),
                                      backprop->raw_data(), rows, cols, g.stream()),
                  "softmax cross entropy kernel");
  }
};

class GpuLogSoftmaxOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    if (x.rank() < 1) return invalid_argument("logits must have >= 1 dimension, got " + x.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), x.shape(), &out));
    const std::int64_t cols = x.shape().dim(x.rank() - 1);
    if (cols == 0 || x.num_elements() == 0) return {};
    return launch(launch_log_softmax(elem_type(x.dtype()), x.raw_data(), out->raw_data(), x.num_elements() / cols,
                                     cols, g.stream()),
                  "log_softmax kernel");
  }
};

// L2Loss: sum(x^2) / 2, the halved squares summed by the reduction kernels.
class GpuL2LossOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), Shape{}, &out));
    const std::int64_t n = x.num_elements();
    if (n == 0) return launch(launch_fill(elem_type(x.dtype()), 0, out->raw_data(), 1, g.stream()), "fill kernel");
    Tensor squares;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate(x.dtype(), x.shape(), &squares));
    ACTORFLOW_RETURN_IF_ERROR(
        launch(launch_half_square(elem_type(x.dtype()), x.raw_data(), squares.raw_data(), n, g.stream()), "l2_loss kernel"));
    return reduce_on_device(g, ReduceKind::sum, x.dtype(), squares.raw_data(), out->raw_data(), 1, n, 1, 1.0,
                            "l2_loss reduction");
  }
};

class GpuSparseSoftmaxXentOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor logits;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &logits));
    const Tensor& labels = ctx.input(1);  // int32, host memory
    if (labels.on_device()) return internal("int32 labels of " + name() + " arrived in device memory");
    if (logits.rank() != 2)
      return invalid_argument("logits must be 2-D, but got shape " + logits.shape().to_string());
    if (labels.rank() != 1)
      return invalid_argument("labels must be 1-D, but got shape " + labels.shape().to_string());
    const std::int64_t rows = logits.shape().dim(0), cols = logits.shape().dim(1);
    if (labels.shape().dim(0) != rows)
      return invalid_argument("logits and labels must have the same first dimension, got logits shape " +
                              logits.shape().to_string() + " and labels shape " + labels.shape().to_string());
    if (cols == 0 && rows > 0)
      return invalid_argument("Must have at least one class, but got logits shape " + logits.shape().to_string());
    Tensor wide(DType::int64, Shape{rows});
    const std::int32_t* label = labels.data<std::int32_t>();
    for (std::int64_t r = 0; r < rows; ++r) {
      if (label[r] < 0 || label[r] >= cols) {
        std::string all;
        for (std::int64_t k = 0; k < rows; ++k) all += (k ? " " : "") + std::to_string(label[k]);
        return invalid_argument("Received a label value of " + std::to_string(label[r]) +
                                " which is outside the valid range of [0, " + std::to_string(cols) +
                                ").  Label values: " + all);
      }
      wide.data<std::int64_t>()[r] = label[r];
    }
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, logits.dtype(), Shape{rows}, &loss));
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 1, logits.dtype(), logits.shape(), &backprop));
    if (rows == 0) return {};
    Tensor device_labels;
    ACTORFLOW_RETURN_IF_ERROR(g.to_device(wide, &device_labels));
    return launch(launch_sparse_softmax_xent(elem_type(logits.dtype()), logits.raw_data(),
                                             static_cast<const std::int64_t*>(device_labels.raw_data()),
                                             loss->raw_data(), backprop->raw_data(), rows, cols, g.stream()),
                  "sparse softmax cross entropy kernel");
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
        return invalid_argument("Invalid reduction dimension " + std::to_string(a) + " for input with " +
                                std::to_string(rank) + " dimensions.");
      reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    }
    std::vector<std::int64_t> out_dims;
    std::int64_t count = 1;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[static_cast<std::size_t>(d)]) out_dims.push_back(x.shape().dim(d));
      else if (keep_dims_) out_dims.push_back(1);
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
    int passes_left = static_cast<int>(std::count_if(groups.begin(), groups.end(), [](auto& gr) { return gr.second; }));
    if (passes_left == 0 || x.num_elements() == 0 || count <= 1) {
      // Nothing (or only size-1 dimensions) reduced; an empty reduction is the identity value.
      Tensor* out = nullptr;
      ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), Shape(out_dims), &out));
      if (out->num_elements() == 0) return {};
      if (x.num_elements() == 0)
        return invalid_argument("reduction of an empty tensor on GPU: place it on the CPU");
      return launch(cudaMemcpyAsync(out->raw_data(), x.raw_data(), out->total_bytes(), cudaMemcpyDeviceToDevice,
                                    g.stream()),
                    "reduction copy");
    }
    for (int gi = static_cast<int>(groups.size()) - 1; gi >= 0; --gi) {
      if (!groups[static_cast<std::size_t>(gi)].second) continue;
      std::int64_t outer = 1, inner = 1;
      for (int k = 0; k < gi; ++k) outer *= groups[static_cast<std::size_t>(k)].first;
      for (std::size_t k = static_cast<std::size_t>(gi) + 1; k < groups.size(); ++k) inner *= groups[k].first;
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
      ACTORFLOW_RETURN_IF_ERROR(reduce_on_device(g, kind_, x.dtype(), current.raw_data(), next.raw_data(), outer,
                                                 reduce, inner, scale, "reduction kernel"));
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
    return launch(launch_cast(elem_type(x.dtype()), elem_type(to_), x.raw_data(), out->raw_data(), x.num_elements(),
                              g.stream()),
                  "cast kernel");
  }

 private:
  DType to_ = DType::invalid;
};

// A constant copied into device memory on first use and kept (int32 stays on the host).
class GpuConstOp : public GpuOpKernel {
 public:
  GpuConstOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) { *s = c.get_attr("value", &value_); }
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
      generator_ = PhiloxRandom(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed2));
    }
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    const Tensor& shape_t = ctx.input(0);  // int32, host memory
    if (shape_t.rank() != 1) return invalid_argument("shape must be a vector of {int32,int64}, got shape " + shape_t.shape().to_string());
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
    return launch(launch_philox_random(Kind, elem_type(dtype_), gen.key().data(), gen.counter().data(), out->raw_data(),
                                       out->num_elements(), g.stream()),
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
      ACTORFLOW_RETURN_IF_ERROR(launch(launch_binary(Kind, elem_type(old.dtype()), old.raw_data(), delta.raw_data(),
                                                     next.raw_data(), shape.num_elements(), *plan, g.stream()),
                                       "assign update kernel"));
      value = next;
      return {};
    }));
    ctx.set_output(0, ctx.input(0));
    return {};
  }
};

// -- training updates ---------------------------------------------------------------------------

enum class ApplyKind { gradient_descent, momentum, adagrad, rms_prop, centered_rms_prop, adam };

// The Apply* updates (GradientDescent, Momentum, Adagrad, RMSProp, CenteredRMSProp, Adam)
// with the variable and its slots in device memory, as the CPU kernels of training_ops.cpp: every reference input is locked in input
// order, each new value is written into a fresh device buffer and swapped in under the lock
// (copy on write: tensors fetched or in flight keep the old buffer). The scalar inputs stay
// in device memory and the kernels read them there.
template <ApplyKind Kind>
class GpuApplyOp : public GpuOpKernel {
 public:
  GpuApplyOp(OpKernelConstruction& c, Status*) : GpuOpKernel(c) {
    c.get_attr("use_nesterov", &use_nesterov_);
    c.get_attr("update_slots", &update_slots_);
  }

  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    // Input layout, as layout_of in training_ops.cpp.
    constexpr std::size_t refs = Kind == ApplyKind::gradient_descent                            ? 1
                                 : Kind == ApplyKind::momentum || Kind == ApplyKind::adagrad ? 2
                                 : Kind == ApplyKind::centered_rms_prop                      ? 4
                                                                                             : 3;
    std::vector<std::pair<int, const char*>> scalar_inputs;
    int grad_input = 0;
    if constexpr (Kind == ApplyKind::gradient_descent) {
      scalar_inputs = {{1, "alpha"}};
      grad_input = 2;
    } else if constexpr (Kind == ApplyKind::momentum) {
      scalar_inputs = {{2, "lr"}, {4, "momentum"}};
      grad_input = 3;
    } else if constexpr (Kind == ApplyKind::adagrad) {
      scalar_inputs = {{2, "lr"}};
      grad_input = 3;
    } else if constexpr (Kind == ApplyKind::rms_prop) {
      scalar_inputs = {{3, "lr"}, {4, "rho"}, {5, "momentum"}, {6, "epsilon"}};
      grad_input = 7;
    } else if constexpr (Kind == ApplyKind::centered_rms_prop) {
      scalar_inputs = {{4, "lr"}, {5, "rho"}, {6, "momentum"}, {7, "epsilon"}};
      grad_input = 8;
    } else {
      scalar_inputs = {{3, "beta1_power"}, {4, "beta2_power"}, {5, "lr"}, {6, "beta1"}, {7, "beta2"}, {8, "epsilon"}};
      grad_input = 9;
    }
    std::vector<Var*> vars;
    for (std::size_t i = 0; i < refs; ++i) {
      auto* var = dynamic_cast<Var*>(ctx.input_ref(static_cast<int>(i)).get());
      if (var == nullptr) return invalid_argument("Input " + std::to_string(i) + " of " + name() + " is not a variable");
      vars.push_back(var);
    }
    std::vector<Tensor> scalars(scalar_inputs.size());
    for (std::size_t k = 0; k < scalar_inputs.size(); ++k) {
      ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, scalar_inputs[k].first, &scalars[k]));
      if (scalars[k].rank() != 0)
        return invalid_argument(std::string(scalar_inputs[k].second) + " is not a scalar: " +
                                scalars[k].shape().to_string());
    }
    Tensor grad;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, grad_input, &grad));
    std::vector<Tensor*> values(refs, nullptr);
    ACTORFLOW_RETURN_IF_ERROR(
        with_locked(vars, 0, values, [&]() -> Status { return update(g, values, scalars, grad); }));
    ctx.set_output(0, ctx.input(0));
    return {};
  }

 private:
  // Locks vars[i..] in input order and runs `f` with every value bound.
  template <class F>
  static Status with_locked(const std::vector<Var*>& vars, std::size_t i, std::vector<Tensor*>& values, F&& f) {
    if (i == vars.size()) return f();
    return vars[i]->update([&](Tensor& value) -> Status {
      values[i] = &value;
      return with_locked(vars, i + 1, values, f);
    });
  }

  Status update(GpuDeviceContext& g, std::vector<Tensor*>& values, const std::vector<Tensor>& scalars,
                const Tensor& grad) {
    // The names TensorFlow gives the reference inputs in its error messages.
    static const char* const slot_names[] = {
        "var",
        Kind == ApplyKind::momentum || Kind == ApplyKind::adagrad ? "accum"
        : Kind == ApplyKind::rms_prop                             ? "ms"
        : Kind == ApplyKind::centered_rms_prop                    ? "mg"
                                                                  : "m",
        Kind == ApplyKind::rms_prop ? "mom" : Kind == ApplyKind::centered_rms_prop ? "ms" : "v", "mom"};
    const Shape& shape = values[0]->shape();
    for (std::size_t i = 1; i < values.size(); ++i)
      if (values[i]->shape() != shape)
        return invalid_argument(std::string("var and ") + slot_names[i] + " do not have the same shape" +
                                shape.to_string() + " " + values[i]->shape().to_string());
    if (grad.shape() != shape)
      return invalid_argument("var and grad do not have the same shape" + shape.to_string() + " " +
                              grad.shape().to_string());
    std::vector<Tensor> old(values.size()), fresh(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      ACTORFLOW_RETURN_IF_ERROR(g.to_device(*values[i], &old[i]));
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(values[i]->dtype(), shape, &fresh[i]));
    }
    const ElemType t = elem_type(values[0]->dtype());
    const std::int64_t n = shape.num_elements();
    if constexpr (Kind == ApplyKind::gradient_descent) {
      ACTORFLOW_RETURN_IF_ERROR(launch(launch_apply_gradient_descent(t, old[0].raw_data(), scalars[0].raw_data(),
                                                                     grad.raw_data(), fresh[0].raw_data(), n, g.stream()),
                                       "apply_gradient_descent kernel"));
    } else if constexpr (Kind == ApplyKind::momentum) {
      ACTORFLOW_RETURN_IF_ERROR(launch(launch_apply_momentum(t, old[0].raw_data(), old[1].raw_data(),
                                                             scalars[0].raw_data(), grad.raw_data(), scalars[1].raw_data(),
                                                             fresh[0].raw_data(), fresh[1].raw_data(), n,
                                                             use_nesterov_, g.stream()),
                                       "apply_momentum kernel"));
    } else if constexpr (Kind == ApplyKind::adagrad) {
      ACTORFLOW_RETURN_IF_ERROR(launch(launch_apply_adagrad(t, old[0].raw_data(), old[1].raw_data(), scalars[0].raw_data(),
                                                            grad.raw_data(), fresh[0].raw_data(), fresh[1].raw_data(), n,
                                                            update_slots_, g.stream()),
                                       "apply_adagrad kernel"));
    } else if constexpr (Kind == ApplyKind::rms_prop || Kind == ApplyKind::centered_rms_prop) {
      const RmsPropScalars s{scalars[0].raw_data(), scalars[1].raw_data(), scalars[2].raw_data(), scalars[3].raw_data()};
      constexpr bool centered = Kind == ApplyKind::centered_rms_prop;
      const std::size_t ms = centered ? 2 : 1, mom = centered ? 3 : 2;
      ACTORFLOW_RETURN_IF_ERROR(launch(
          launch_apply_rms_prop(t, old[0].raw_data(), centered ? old[1].raw_data() : nullptr, old[ms].raw_data(),
                                old[mom].raw_data(), s, grad.raw_data(), fresh[0].raw_data(),
                                centered ? fresh[1].raw_data() : nullptr, fresh[ms].raw_data(), fresh[mom].raw_data(), n,
                                g.stream()),
          "apply_rms_prop kernel"));
    } else {
      const AdamScalars s{scalars[0].raw_data(), scalars[1].raw_data(), scalars[2].raw_data(),
                          scalars[3].raw_data(), scalars[4].raw_data(), scalars[5].raw_data()};
      ACTORFLOW_RETURN_IF_ERROR(launch(launch_apply_adam(t, old[0].raw_data(), old[1].raw_data(), old[2].raw_data(), s,
                                                         grad.raw_data(), fresh[0].raw_data(), fresh[1].raw_data(),
                                                         fresh[2].raw_data(), n, use_nesterov_, g.stream()),
                                       "apply_adam kernel"));
    }
    for (std::size_t i = 0; i < values.size(); ++i) *values[i] = fresh[i];
    return {};
  }

  bool use_nesterov_ = false;
  bool update_slots_ = true;
};

// -- MatMul (cuBLAS) ------------------------------------------------------------------------------

class GpuMatMulOp : public GpuOpKernel {
 public:
  GpuMatMulOp(OpKernelConstruction& c, Status*) : GpuOpKernel(c) {
    c.get_attr("transpose_a", &ta_);
    c.get_attr("transpose_b", &tb_);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor a, b;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &a));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &b));
    if (a.rank() != 2 || b.rank() != 2)
      return invalid_argument("In[0] and In[1] must be matrices: " + a.shape().to_string() + " " + b.shape().to_string());
    const std::int64_t m = a.shape().dim(ta_ ? 1 : 0), k = a.shape().dim(ta_ ? 0 : 1);
    const std::int64_t kb = b.shape().dim(tb_ ? 1 : 0), n = b.shape().dim(tb_ ? 0 : 1);
    if (k != kb)
      return invalid_argument("Matrix size-incompatible: In[0]: " + a.shape().to_string() + ", In[1]: " +
                              b.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, a.dtype(), Shape{m, n}, &out));
    if (m == 0 || n == 0) return {};
    if (k == 0) return launch(cudaMemsetAsync(out->raw_data(), 0, out->total_bytes(), g.stream()), "matmul zero fill");
    // Row-major C = A B is column-major C^T = B^T A^T.
    const cublasOperation_t op_a = ta_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = tb_ ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int lda = static_cast<int>(a.shape().dim(1)), ldb = static_cast<int>(b.shape().dim(1));
    const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
    std::lock_guard<std::mutex> guard(g.state().library_mu);
    cublasHandle_t h = g.state().cublas;
    switch (a.dtype()) {
      case DType::float32: {
        const float one = 1, zero = 0;
        return ACTORFLOW_CUBLAS(cuda_libraries().cublasSgemm_v2(h, op_b, op_a, N, M, K, &one, static_cast<const float*>(b.raw_data()), ldb,
                                            static_cast<const float*>(a.raw_data()), lda, &zero,
                                            static_cast<float*>(out->raw_data()), N));
      }
      case DType::float64: {
        const double one = 1, zero = 0;
        return ACTORFLOW_CUBLAS(cuda_libraries().cublasDgemm_v2(h, op_b, op_a, N, M, K, &one, static_cast<const double*>(b.raw_data()), ldb,
                                            static_cast<const double*>(a.raw_data()), lda, &zero,
                                            static_cast<double*>(out->raw_data()), N));
      }
      case DType::bfloat16: {
        const float one = 1, zero = 0;
        return ACTORFLOW_CUBLAS(cuda_libraries().cublasGemmEx(h, op_b, op_a, N, M, K, &one, b.raw_data(), CUDA_R_16BF, ldb, a.raw_data(),
                                             CUDA_R_16BF, lda, &zero, out->raw_data(), CUDA_R_16BF, N,
                                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      }
      default:
        return invalid_argument("MatMul on GPU does not support " + std::string(dtype_name(a.dtype())));
    }
  }

 private:
  bool ta_ = false, tb_ = false;
};

// -- cuDNN ----------------------------------------------------------------------------------------

cudnnDataType_t cudnn_type(DType t) { return t == DType::float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

// Owns cuDNN descriptors for one call.
struct Descriptors {
  std::vector<cudnnTensorDescriptor_t> tensors;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ~Descriptors() {
    for (auto d : tensors) cuda_libraries().cudnnDestroyTensorDescriptor(d);
    if (filter) cuda_libraries().cudnnDestroyFilterDescriptor(filter);
    if (conv) cuda_libraries().cudnnDestroyConvolutionDescriptor(conv);
  }
  Status nhwc(DType t, std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, cudnnTensorDescriptor_t* out) {
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnCreateTensorDescriptor(out)));
    tensors.push_back(*out);
    return ACTORFLOW_CUDNN(cuda_libraries().cudnnSetTensor4dDescriptor(*out, CUDNN_TENSOR_NHWC, cudnn_type(t), static_cast<int>(n),
                                                      static_cast<int>(c), static_cast<int>(h), static_cast<int>(w)));
  }
};

class GpuSoftmaxOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    if (x.rank() < 1) return invalid_argument("logits must have >= 1 dimension, got " + x.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), x.shape(), &out));
    const std::int64_t cols = x.shape().dim(x.rank() - 1);
    if (x.num_elements() == 0) return {};
    const std::int64_t rows = x.num_elements() / cols;
    Descriptors d;
    cudnnTensorDescriptor_t desc;
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnCreateTensorDescriptor(&desc)));
    d.tensors.push_back(desc);
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnSetTensor4dDescriptor(
        desc, CUDNN_TENSOR_NCHW, cudnn_type(x.dtype()), static_cast<int>(rows), static_cast<int>(cols), 1, 1)));
    std::lock_guard<std::mutex> guard(g.state().library_mu);
    const double one_d = 1, zero_d = 0;
    const float one_f = 1, zero_f = 0;
    const void* one = x.dtype() == DType::float64 ? static_cast<const void*>(&one_d) : &one_f;
    const void* zero = x.dtype() == DType::float64 ? static_cast<const void*>(&zero_d) : &zero_f;
    return ACTORFLOW_CUDNN(cuda_libraries().cudnnSoftmaxForward(g.state().cudnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, one,
                                               desc, x.raw_data(), zero, desc, out->raw_data()));
  }
};

// Conv2D and its gradients on cuDNN with NHWC data and KRSC (OHWI) filters; the HWIO filter
// is transposed for cuDNN, and the odd half of SAME padding is made explicit.
class GpuConvBase : public GpuOpKernel {
 public:
  GpuConvBase(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    *s = c.get_attr("strides", &strides_);
    if (s->ok()) *s = c.get_attr("padding", &padding_);
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (s->ok() && format != "NHWC") *s = invalid_argument(type() + " on GPU supports data_format NHWC, got " + format);
    if (auto d = c.def.attr<std::vector<std::int64_t>>("dilations"))
      for (auto v : *d)
        if (s->ok() && v != 1) *s = unimplemented(type() + " on GPU supports dilations of 1");
  }

 protected:
  struct Setup {
    Conv2DGeometry geo;
    std::int64_t extra_rows = 0, extra_cols = 0;  // the odd half of SAME padding, after
  };

  StatusOr<Setup> setup(const Shape& input, const Shape& filter) const {
    auto geo = conv2d_geometry(input, filter, strides_, padding_);
    if (!geo.ok()) return geo.status();
    Setup s{*geo};
    if (padding_ == "SAME") {
      const std::int64_t total_r = std::max<std::int64_t>(0, (s.geo.out_rows - 1) * s.geo.stride_rows + s.geo.filter_rows - s.geo.in_rows);
      const std::int64_t total_c = std::max<std::int64_t>(0, (s.geo.out_cols - 1) * s.geo.stride_cols + s.geo.filter_cols - s.geo.in_cols);
      s.extra_rows = total_r - 2 * s.geo.pad_rows;
      s.extra_cols = total_c - 2 * s.geo.pad_cols;
    }
    return s;
  }

  // HWIO <-> OHWI through a 4-D transpose done as a pad-free copy kernel: element
  // (h, w, i, o) of HWIO goes to (o, h, w, i).
  static Status transpose_filter(GpuDeviceContext& g, const Tensor& from, bool to_ohwi, const Shape& hwio, Tensor* out);

  Status describe(Descriptors& d, const Setup& s, DType t, cudnnTensorDescriptor_t* x, cudnnTensorDescriptor_t* y) {
    const auto& geo = s.geo;
    ACTORFLOW_RETURN_IF_ERROR(d.nhwc(t, geo.batch, geo.in_rows + s.extra_rows, geo.in_cols + s.extra_cols, geo.in_depth, x));
    ACTORFLOW_RETURN_IF_ERROR(d.nhwc(t, geo.batch, geo.out_rows, geo.out_cols, geo.out_depth, y));
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnCreateFilterDescriptor(&d.filter)));
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnSetFilter4dDescriptor(
        d.filter, cudnn_type(t), CUDNN_TENSOR_NHWC, static_cast<int>(geo.out_depth), static_cast<int>(geo.in_depth),
        static_cast<int>(geo.filter_rows), static_cast<int>(geo.filter_cols))));
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnCreateConvolutionDescriptor(&d.conv)));
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnSetConvolution2dDescriptor(
        d.conv, static_cast<int>(geo.pad_rows), static_cast<int>(geo.pad_cols), static_cast<int>(geo.stride_rows),
        static_cast<int>(geo.stride_cols), 1, 1, CUDNN_CROSS_CORRELATION, cudnn_type(t))));
    return ACTORFLOW_CUDNN(cuda_libraries().cudnnSetConvolutionMathType(d.conv, CUDNN_DEFAULT_MATH));
  }

  // The layer's key in GpuState::conv_algorithms.
  std::string algorithm_key(const char* kind, const Setup& s, DType t) const {
    const auto& g = s.geo;
    std::string key = kind;
    for (std::int64_t v : {g.batch, g.in_rows, g.in_cols, g.in_depth, g.out_depth, g.filter_rows, g.filter_cols,
                           g.stride_rows, g.stride_cols, g.pad_rows, g.pad_cols, s.extra_rows, s.extra_cols,
                           static_cast<std::int64_t>(t)}) {
      key += ',';
      key += std::to_string(v);
    }
    return key;
  }

  // Runs `run(algorithm)` with the first algorithm of cuDNN's heuristic (`heuristic(perf,
  // &found)`) that succeeds with a workspace that fits, remembered per layer shape (as
  // TensorFlow's autotune map, without timing runs). With `library_mu` held.
  template <class Perf, class Heuristic, class Run>
  static Status run_with_algorithm(GpuDeviceContext& g, const std::string& key, Heuristic heuristic, Run run,
                                   const char* what) {
    auto& cache = g.state().conv_algorithms;
    if (auto it = cache.find(key); it != cache.end() && g.state().ensure_workspace(it->second.second).ok())
      return run(static_cast<decltype(Perf::algo)>(it->second.first));
    Perf perf[8];
    int found = 0;
    ACTORFLOW_RETURN_IF_ERROR(heuristic(perf, &found));
    for (int i = 0; i < found; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS || !g.state().ensure_workspace(perf[i].memory).ok()) continue;
      cache[key] = {static_cast<int>(perf[i].algo), perf[i].memory};
      return run(perf[i].algo);
    }
    return resource_exhausted(std::string("no cuDNN ") + what + " algorithm fits in the memory left on " + g.device_name());
  }

  std::vector<std::int64_t> strides_;
  std::string padding_;
};

Status GpuConvBase::transpose_filter(GpuDeviceContext& g, const Tensor& from, bool to_ohwi, const Shape& hwio,
                                     Tensor* out) {
  const std::int64_t H = hwio.dim(0), W = hwio.dim(1), I = hwio.dim(2), O = hwio.dim(3);
  ACTORFLOW_RETURN_IF_ERROR(g.allocate(from.dtype(), to_ohwi ? Shape{O, H, W, I} : hwio, out));
  // HWIO viewed as a [H*W*I, O] matrix; OHWI is its transpose [O, H*W*I]: a cuBLAS geam.
  const int rows = static_cast<int>(H * W * I), cols = static_cast<int>(O);
  std::lock_guard<std::mutex> guard(g.state().library_mu);
  const int m = to_ohwi ? rows : cols, n = to_ohwi ? cols : rows;  // column-major result m x n
  if (from.dtype() == DType::float64) {
    const double one = 1, zero = 0;
    return ACTORFLOW_CUBLAS(cuda_libraries().cublasDgeam(g.state().cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                                        static_cast<const double*>(from.raw_data()), n, &zero,
                                        static_cast<const double*>(from.raw_data()), m,
                                        static_cast<double*>(out->raw_data()), m));
  }
  const float one = 1, zero = 0;
  return ACTORFLOW_CUBLAS(cuda_libraries().cublasSgeam(g.state().cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                                      static_cast<const float*>(from.raw_data()), n, &zero,
                                      static_cast<const float*>(from.raw_data()), m,
                                      static_cast<float*>(out->raw_data()), m));
}

const void* one_of(DType t) {
  static const double d = 1;
  static const float f = 1;
  return t == DType::float64 ? static_cast<const void*>(&d) : &f;
}
const void* zero_of(DType t) {
  static const double d = 0;
  static const float f = 0;
  return t == DType::float64 ? static_cast<const void*>(&d) : &f;
}

class GpuConv2DOp : public GpuConvBase {
 public:
  using GpuConvBase::GpuConvBase;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x, w;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &w));
    auto s = setup(x.shape(), w.shape());
    if (!s.ok()) return s.status();
    const auto& geo = s->geo;
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), Shape{geo.batch, geo.out_rows, geo.out_cols, geo.out_depth}, &out));
    if (out->num_elements() == 0) return {};
    Tensor input = x;
    if (s->extra_rows || s->extra_cols) {
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(x.dtype(), Shape{geo.batch, geo.in_rows + s->extra_rows, geo.in_cols + s->extra_cols, geo.in_depth}, &input));
      ACTORFLOW_RETURN_IF_ERROR(launch(launch_pad_nhwc(elem_type(x.dtype()), x.raw_data(), input.raw_data(), geo.batch, geo.in_rows,
                                                       geo.in_cols, geo.in_depth, s->extra_rows, s->extra_cols, false, g.stream()),
                                       "pad kernel"));
    }
    Tensor filter;
    ACTORFLOW_RETURN_IF_ERROR(transpose_filter(g, w, true, w.shape(), &filter));
    Descriptors d;
    cudnnTensorDescriptor_t xd, yd;
    ACTORFLOW_RETURN_IF_ERROR(describe(d, *s, x.dtype(), &xd, &yd));
    std::lock_guard<std::mutex> guard(g.state().library_mu);
    const auto& cudnn = cuda_libraries();
    return run_with_algorithm<cudnnConvolutionFwdAlgoPerf_t>(
        g, algorithm_key("forward", *s, x.dtype()),
        [&](cudnnConvolutionFwdAlgoPerf_t* perf, int* found) {
          return ACTORFLOW_CUDNN(cudnn.cudnnGetConvolutionForwardAlgorithm_v7(g.state().cudnn, xd, d.filter, d.conv, yd,
                                                                              8, found, perf));
        },
        [&](cudnnConvolutionFwdAlgo_t algo) {
          return ACTORFLOW_CUDNN(cudnn.cudnnConvolutionForward(
              g.state().cudnn, one_of(x.dtype()), xd, input.raw_data(), d.filter, filter.raw_data(), d.conv, algo,
              g.state().workspace, g.state().workspace_bytes, zero_of(x.dtype()), yd, out->raw_data()));
        },
        "forward convolution");
  }
};

class GpuConv2DBackpropInputOp : public GpuConvBase {
 public:
  using GpuConvBase::GpuConvBase;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    const Tensor& sizes = ctx.input(0);  // int32, host memory
    if (sizes.num_elements() != 4) return invalid_argument("input_sizes must hold 4 values");
    auto v = sizes.flat<std::int32_t>();
    const Shape input_shape{v[0], v[1], v[2], v[3]};
    Tensor w, dy;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &w));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 2, &dy));
    auto s = setup(input_shape, w.shape());
    if (!s.ok()) return s.status();
    const auto& geo = s->geo;
    if (dy.shape() != Shape{geo.batch, geo.out_rows, geo.out_cols, geo.out_depth})
      return invalid_argument("Conv2DBackpropInput: Size of out_backprop doesn't match computed: actual = " +
                              dy.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, w.dtype(), input_shape, &out));
    if (out->num_elements() == 0) return {};
    const bool padded = s->extra_rows || s->extra_cols;
    Tensor dx = *out;
    if (padded)
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(w.dtype(), Shape{geo.batch, geo.in_rows + s->extra_rows, geo.in_cols + s->extra_cols, geo.in_depth}, &dx));
    Tensor filter;
    ACTORFLOW_RETURN_IF_ERROR(transpose_filter(g, w, true, w.shape(), &filter));
    Descriptors d;
    cudnnTensorDescriptor_t xd, yd;
    ACTORFLOW_RETURN_IF_ERROR(describe(d, *s, w.dtype(), &xd, &yd));
    {
      std::lock_guard<std::mutex> guard(g.state().library_mu);
      const auto& cudnn = cuda_libraries();
      ACTORFLOW_RETURN_IF_ERROR(run_with_algorithm<cudnnConvolutionBwdDataAlgoPerf_t>(
          g, algorithm_key("backward data", *s, w.dtype()),
          [&](cudnnConvolutionBwdDataAlgoPerf_t* perf, int* found) {
            return ACTORFLOW_CUDNN(cudnn.cudnnGetConvolutionBackwardDataAlgorithm_v7(g.state().cudnn, d.filter, yd,
                                                                                     d.conv, xd, 8, found, perf));
          },
          [&](cudnnConvolutionBwdDataAlgo_t algo) {
            return ACTORFLOW_CUDNN(cudnn.cudnnConvolutionBackwardData(
                g.state().cudnn, one_of(w.dtype()), d.filter, filter.raw_data(), yd, dy.raw_data(), d.conv, algo,
                g.state().workspace, g.state().workspace_bytes, zero_of(w.dtype()), xd, dx.raw_data()));
          },
          "backward-data"));
    }
    if (!padded) return {};
    return launch(launch_pad_nhwc(elem_type(w.dtype()), dx.raw_data(), out->raw_data(), geo.batch, geo.in_rows, geo.in_cols,
                                  geo.in_depth, s->extra_rows, s->extra_cols, true, g.stream()),
                  "crop kernel");
  }
};

class GpuConv2DBackpropFilterOp : public GpuConvBase {
 public:
  using GpuConvBase::GpuConvBase;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x, dy;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    const Tensor& sizes = ctx.input(1);  // int32, host memory
    if (sizes.num_elements() != 4) return invalid_argument("filter_sizes must hold 4 values");
    auto v = sizes.flat<std::int32_t>();
    const Shape filter_shape{v[0], v[1], v[2], v[3]};
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 2, &dy));
    auto s = setup(x.shape(), filter_shape);
    if (!s.ok()) return s.status();
    const auto& geo = s->geo;
    if (dy.shape() != Shape{geo.batch, geo.out_rows, geo.out_cols, geo.out_depth})
      return invalid_argument("Conv2DBackpropFilter: Size of out_backprop doesn't match computed: actual = " +
                              dy.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), filter_shape, &out));
    if (out->num_elements() == 0) return {};
    Tensor input = x;
    if (s->extra_rows || s->extra_cols) {
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(x.dtype(), Shape{geo.batch, geo.in_rows + s->extra_rows, geo.in_cols + s->extra_cols, geo.in_depth}, &input));
      ACTORFLOW_RETURN_IF_ERROR(launch(launch_pad_nhwc(elem_type(x.dtype()), x.raw_data(), input.raw_data(), geo.batch, geo.in_rows,
                                                       geo.in_cols, geo.in_depth, s->extra_rows, s->extra_cols, false, g.stream()),
                                       "pad kernel"));
    }
    Tensor ohwi;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate(x.dtype(), Shape{geo.out_depth, geo.filter_rows, geo.filter_cols, geo.in_depth}, &ohwi));
    Descriptors d;
    cudnnTensorDescriptor_t xd, yd;
    ACTORFLOW_RETURN_IF_ERROR(describe(d, *s, x.dtype(), &xd, &yd));
    {
      std::lock_guard<std::mutex> guard(g.state().library_mu);
      const auto& cudnn = cuda_libraries();
      ACTORFLOW_RETURN_IF_ERROR(run_with_algorithm<cudnnConvolutionBwdFilterAlgoPerf_t>(
          g, algorithm_key("backward filter", *s, x.dtype()),
          [&](cudnnConvolutionBwdFilterAlgoPerf_t* perf, int* found) {
            return ACTORFLOW_CUDNN(cudnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7(g.state().cudnn, xd, yd, d.conv,
                                                                                       d.filter, 8, found, perf));
          },
          [&](cudnnConvolutionBwdFilterAlgo_t algo) {
            return ACTORFLOW_CUDNN(cudnn.cudnnConvolutionBackwardFilter(
                g.state().cudnn, one_of(x.dtype()), xd, input.raw_data(), yd, dy.raw_data(), d.conv, algo,
                g.state().workspace, g.state().workspace_bytes, zero_of(x.dtype()), d.filter, ohwi.raw_data()));
          },
          "backward-filter"));
    }
    // OHWI -> HWIO: the inverse transpose into the output.
    Tensor hwio;
    ACTORFLOW_RETURN_IF_ERROR(transpose_filter(g, ohwi, false, filter_shape, &hwio));
    ctx.set_output(0, hwio);
    return {};
  }
};

// -- pooling -----------------------------------------------------------------------------------

template <bool Max>
class GpuPoolOp : public GpuOpKernel {
 public:
  GpuPoolOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    *s = c.get_attr("ksize", &ksize_);
    if (s->ok()) *s = c.get_attr("strides", &strides_);
    if (s->ok()) *s = c.get_attr("padding", &padding_);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    auto geo = pool2d_geometry(x.shape(), ksize_, strides_, padding_);
    if (!geo.ok()) return geo.status();
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), Shape{geo->batch, geo->out_rows, geo->out_cols, geo->depth}, &out));
    PoolPlan p{geo->batch, geo->in_rows, geo->in_cols, geo->depth, geo->out_rows, geo->out_cols, geo->window_rows,
               geo->window_cols, geo->stride_rows, geo->stride_cols, geo->pad_rows, geo->pad_cols};
    return launch(launch_pool2d(Max, elem_type(x.dtype()), x.raw_data(), out->raw_data(), p, g.stream()), "pool kernel");
  }

 private:
  std::vector<std::int64_t> ksize_, strides_;
  std::string padding_;
};

// MaxPoolGrad(orig_input, orig_output, grad) and AvgPoolGrad(orig_input_shape, grad), NHWC.
template <bool Max>
class GpuPoolGradOp : public GpuOpKernel {
 public:
  GpuPoolGradOp(OpKernelConstruction& c, Status* s) : GpuOpKernel(c) {
    *s = c.get_attr("ksize", &ksize_);
    if (s->ok()) *s = c.get_attr("strides", &strides_);
    if (s->ok()) *s = c.get_attr("padding", &padding_);
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (s->ok() && format != "NHWC") *s = invalid_argument(type() + " on GPU supports data_format NHWC, got " + format);
  }
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor input, grad;
    Shape input_shape;
    if constexpr (Max) {
      ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &input));
      ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 2, &grad));
      if (input.rank() != 4) return invalid_argument("tensor_in must be 4-dimensional");
      input_shape = input.shape();
    } else {
      const Tensor& sizes = ctx.input(0);  // int32, host memory
      if (sizes.rank() != 1 || sizes.num_elements() != 4)
        return invalid_argument("out_backprop must be 1-dimensional and 4 elements");
      auto v = sizes.flat<std::int32_t>();
      input_shape = Shape{v[0], v[1], v[2], v[3]};
      ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &grad));
    }
    auto geo = pool2d_geometry(input_shape, ksize_, strides_, padding_);
    if (!geo.ok()) return geo.status();
    const Shape out_shape{geo->batch, geo->out_rows, geo->out_cols, geo->depth};
    if (grad.shape() != out_shape)
      return invalid_argument("Expected grad shape to be " + out_shape.to_string() + ", but got " +
                              grad.shape().to_string());
    Tensor* dx = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, grad.dtype(), input_shape, &dx));
    PoolPlan p{geo->batch, geo->in_rows, geo->in_cols, geo->depth, geo->out_rows, geo->out_cols, geo->window_rows,
               geo->window_cols, geo->stride_rows, geo->stride_cols, geo->pad_rows, geo->pad_cols};
    if constexpr (Max)
      return launch(launch_max_pool_grad(elem_type(grad.dtype()), input.raw_data(), grad.raw_data(), dx->raw_data(), p,
                                         g.stream()),
                    "max_pool_grad kernel");
    else
      return launch(launch_avg_pool_grad(elem_type(grad.dtype()), grad.raw_data(), dx->raw_data(), p, g.stream()),
                    "avg_pool_grad kernel");
  }

 private:
  std::vector<std::int64_t> ksize_, strides_;
  std::string padding_;
};

// Fill(dims, value): dims (int32) in host memory, the scalar broadcast on the device (the
// zeros of large optimizer slots, which live beside their variable).
class GpuFillOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    const Tensor& dims = ctx.input(0);
    if (dims.rank() != 1) return invalid_argument("dims must be a vector, got shape " + dims.shape().to_string());
    Tensor value;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &value));
    if (value.rank() != 0) return invalid_argument("value must be a scalar, got shape " + value.shape().to_string());
    std::vector<std::int64_t> sizes;
    for (std::int32_t d : dims.flat<std::int32_t>()) {
      if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
      sizes.push_back(d);
    }
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, value.dtype(), Shape(std::move(sizes)), &out));
    return launch(launch_broadcast_scalar(dtype_size(value.dtype()), value.raw_data(), out->raw_data(),
                                          out->num_elements(), g.stream()),
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
      return invalid_argument("Expected multiples to be 1-D, but got shape " + multiples.shape().to_string());
    if (x.rank() != multiples.num_elements())
      return invalid_argument("Expected multiples argument to be a vector of length " + std::to_string(x.rank()) +
                              " but got length " + std::to_string(multiples.num_elements()));
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
        return invalid_argument("Expected multiples[" + std::to_string(d) + "] >= 0, but got " + std::to_string(m[d]));
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
    return launch(launch_tile(dtype_size(x.dtype()), x.raw_data(), out->raw_data(), out_shape.num_elements(), plan,
                              g.stream()),
                  "tile kernel");
  }
};

// -- cross-device edges --------------------------------------------------------------------------

// Resumes `c` inside the kernel's device actor whichever thread the copy finishes on.
Async<StatusOr<Tensor>> copy(OpKernelContext& ctx, GpuDeviceContext& g, const Tensor& value, bool to_host) {
  return {[&ctx, &g, value, to_host](Completion<StatusOr<Tensor>> c) {
    auto post = ctx.step->poster();
    auto done = [post, c](StatusOr<Tensor> r) { post([c, r]() mutable { c(std::move(r)); }); };
    if (to_host)
      g.owner->copy_to_host(value, done);
    else
      g.owner->copy_from_host(value, done);
  }};
}

GpuDeviceContext* gpu_context(OpKernelContext& ctx) { return dynamic_cast<GpuDeviceContext*>(ctx.device_context); }

// The GPU half of a cross-device edge: the value leaves the GPU as a host tensor, copied
// on the device-to-host stream while later kernels run.
class GpuSendOp : public OpKernel {
 public:
  GpuSendOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("key", &key_); }
  void compute(OpKernelContext& ctx) override { ctx.fail(internal("_Send on GPU is asynchronous: " + name())); }
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
  void compute(OpKernelContext& ctx) override { ctx.fail(internal("_Recv on GPU is asynchronous: " + name())); }
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

// -- registration ---------------------------------------------------------------------------------

const std::vector<DType> kFloat = {DType::float32, DType::float64, DType::bfloat16};

template <class K>
void add(KernelRegistry& r, const std::string& op, std::vector<std::pair<std::string, std::vector<DType>>> c = {}) {
  r.add(make_kernel_def<K>(op, "GPU", std::move(c)));
}

template <ReduceKind Kind, bool Mean>
class GpuReduction : public GpuReductionOp {
 public:
  GpuReduction(OpKernelConstruction& c, Status* s) : GpuReductionOp(c, s, Kind, Mean) {}
};

}  // namespace

void register_gpu_kernels(KernelRegistry& r) {
  // Kernels that never touch element memory run as they do on the CPU.
  for (const char* op : {"Identity", "NoOp", "VariableV2", "Assign", "Placeholder", "StopGradient", "PreventGradient",
                         "Squeeze"})
    for (KernelDef def : r.kernels_for(op, "CPU")) {
      def.device_type = "GPU";
      r.add(std::move(def));
    }
  // Those that read shapes or index tensors, with the index tensors int32 (which a GPU device
  // keeps in host memory, as TensorFlow's HostMemory arguments): reshapes share the buffer,
  // shape ops write int32 host tensors.
  const std::vector<std::pair<const char*, const char*>> int32_index_ops = {
      {"Reshape", "Tshape"}, {"ExpandDims", "Tdim"}, {"Shape", "out_type"}, {"Size", "out_type"},
      {"ShapeN", "out_type"}, {"Rank", nullptr}, {"BroadcastGradientArgs", "T"}};
  for (const auto& [op, index_attr] : int32_index_ops)
    for (KernelDef def : r.kernels_for(op, "CPU")) {
      def.device_type = "GPU";
      if (index_attr != nullptr)
        for (auto& [attr, types] : def.constraints)
          if (attr == index_attr) types = {DType::int32};
      r.add(std::move(def));
    }
  add<GpuConstOp>(r, "Const");
  add<GpuSendOp>(r, "_Send");
  add<GpuRecvOp>(r, "_Recv");
  const std::vector<DType> arithmetic = {DType::float32, DType::float64, DType::bfloat16, DType::int64};
  add<GpuBinaryOp<BinaryKind::add>>(r, "Add", {{"T", arithmetic}});
  add<GpuBinaryOp<BinaryKind::sub>>(r, "Sub", {{"T", arithmetic}});
  add<GpuBinaryOp<BinaryKind::mul>>(r, "Mul", {{"T", arithmetic}});
  add<GpuBinaryOp<BinaryKind::div>>(r, "RealDiv", {{"T", kFloat}});
  add<GpuBinaryOp<BinaryKind::div>>(r, "Div", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::neg>>(r, "Neg", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::relu>>(r, "Relu", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::sigmoid>>(r, "Sigmoid", {{"T", kFloat}});
  add<GpuUnaryOp<UnaryKind::tanh>>(r, "Tanh", {{"T", kFloat}});
  add<GpuBiasAddOp>(r, "BiasAdd", {{"T", kFloat}});
  const std::vector<DType> float_or_double = {DType::float32, DType::float64};
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
  add<GpuSoftmaxXentOp>(r, "SoftmaxCrossEntropyWithLogits", {{"T", float_or_double}});
  add<GpuLogSoftmaxOp>(r, "LogSoftmax", {{"T", float_or_double}});
  add<GpuL2LossOp>(r, "L2Loss", {{"T", float_or_double}});
  add<GpuSparseSoftmaxXentOp>(r, "SparseSoftmaxCrossEntropyWithLogits",
                              {{"T", float_or_double}, {"Tlabels", {DType::int32}}});
  const std::vector<DType> fillable = {DType::float32, DType::float64, DType::bfloat16, DType::int64};
  add<GpuFillLikeOp<0>>(r, "ZerosLike", {{"T", fillable}});
  add<GpuFillLikeOp<1>>(r, "OnesLike", {{"T", fillable}});
  add<GpuApplyOp<ApplyKind::gradient_descent>>(r, "ApplyGradientDescent", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::momentum>>(r, "ApplyMomentum", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::adagrad>>(r, "ApplyAdagrad", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::rms_prop>>(r, "ApplyRMSProp", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::centered_rms_prop>>(r, "ApplyCenteredRMSProp", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::adam>>(r, "ApplyAdam", {{"T", float_or_double}});
  add<GpuReduction<ReduceKind::sum, false>>(r, "Sum", {{"T", kFloat}, {"Tidx", {DType::int32}}});
  add<GpuReduction<ReduceKind::sum, true>>(r, "Mean", {{"T", kFloat}, {"Tidx", {DType::int32}}});
  add<GpuReduction<ReduceKind::max, false>>(r, "Max", {{"T", kFloat}, {"Tidx", {DType::int32}}});
  const std::vector<DType> castable = {DType::float32, DType::float64, DType::bfloat16, DType::int64, DType::uint8,
                                       DType::boolean};
  add<GpuCastOp>(r, "Cast", {{"SrcT", castable}, {"DstT", castable}});
  add<GpuRandomOp<RandomKind::uniform>>(r, "RandomUniform", {{"dtype", kFloat}, {"T", {DType::int32}}});
  add<GpuRandomOp<RandomKind::normal>>(r, "RandomStandardNormal", {{"dtype", kFloat}, {"T", {DType::int32}}});
  add<GpuAssignUpdateOp<BinaryKind::add>>(r, "AssignAdd", {{"T", arithmetic}});
  add<GpuAssignUpdateOp<BinaryKind::sub>>(r, "AssignSub", {{"T", arithmetic}});
  add<GpuMatMulOp>(r, "MatMul", {{"T", kFloat}});
  add<GpuSoftmaxOp>(r, "Softmax", {{"T", {DType::float32, DType::float64}}});
  add<GpuConv2DOp>(r, "Conv2D", {{"T", {DType::float32, DType::float64}}});
  add<GpuConv2DBackpropInputOp>(r, "Conv2DBackpropInput", {{"T", {DType::float32, DType::float64}}});
  add<GpuConv2DBackpropFilterOp>(r, "Conv2DBackpropFilter", {{"T", {DType::float32, DType::float64}}});
  add<GpuPoolOp<true>>(r, "MaxPool", {{"T", kFloat}});
  add<GpuPoolOp<false>>(r, "AvgPool", {{"T", kFloat}});
  add<GpuPoolGradOp<true>>(r, "MaxPoolGrad", {{"T", float_or_double}});
  add<GpuPoolGradOp<false>>(r, "AvgPoolGrad", {{"T", float_or_double}});
  const std::vector<DType> tileable = {DType::float32, DType::float64, DType::bfloat16, DType::int64, DType::uint8,
                                       DType::boolean};
  add<GpuTileOp>(r, "Tile", {{"T", tileable}, {"Tmultiples", {DType::int32}}});
  add<GpuFillOp>(r, "Fill", {{"T", tileable}, {"index_type", {DType::int32}}});
}

}  // namespace af::gpu
