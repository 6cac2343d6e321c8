// GPU kernels of neural-network layers: MatMul on cuBLAS; Softmax, Conv2D and its input and
// filter gradients on cuDNN; pooling and its gradients, the softmax cross-entropies,
// LogSoftmax and L2Loss on actorflow's own kernels (gpu_kernels.cu).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#include "actorflow/ops/nn_ops.hpp"
#include "gpu_op_kernel.hpp"

namespace af::gpu {

namespace {

// SoftmaxCrossEntropyWithLogits with dense labels, as the CPU kernel's xent_rows.
class GpuSoftmaxXentOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor logits, labels;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &logits));
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 1, &labels));
    if (logits.rank() != 2 || labels.rank() != 2)
      return invalid_argument(
          "logits and labels must be 2-dimensional: logits_size=" + logits.shape().to_string() +
          " labels_size=" + labels.shape().to_string());
    if (logits.shape() != labels.shape())
      return invalid_argument(
          "logits and labels must be broadcastable: logits_size=" + logits.shape().to_string() +
          " labels_size=" + labels.shape().to_string());
    const std::int64_t rows = logits.shape().dim(0), cols = logits.shape().dim(1);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, logits.dtype(), Shape{rows}, &loss));
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 1, logits.dtype(), logits.shape(), &backprop));
    if (rows == 0) return {};
    if (cols == 0)
      return launch(launch_fill(elem_type(logits.dtype()), 0, loss->raw_data(), rows, g.stream()),
                    "fill kernel");
    return launch(
        launch_softmax_xent(elem_type(logits.dtype()), logits.raw_data(), labels.raw_data(),
                            loss->raw_data(), backprop->raw_data(), rows, cols, g.stream()),
        "softmax cross entropy kernel");
  }
};

class GpuLogSoftmaxOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    if (x.rank() < 1)
      return invalid_argument("logits must have >= 1 dimension, got " + x.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), x.shape(), &out));
    const std::int64_t cols = x.shape().dim(x.rank() - 1);
    if (cols == 0 || x.num_elements() == 0) return {};
    return launch(launch_log_softmax(elem_type(x.dtype()), x.raw_data(), out->raw_data(),
                                     x.num_elements() / cols, cols, g.stream()),
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
    if (n == 0)
      return launch(launch_fill(elem_type(x.dtype()), 0, out->raw_data(), 1, g.stream()),
                    "fill kernel");
    Tensor squares;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate(x.dtype(), x.shape(), &squares));
    ACTORFLOW_RETURN_IF_ERROR(launch(
        launch_half_square(elem_type(x.dtype()), x.raw_data(), squares.raw_data(), n, g.stream()),
        "l2_loss kernel"));
    return reduce_on_device(g, ReduceKind::sum, x.dtype(), squares.raw_data(), out->raw_data(), 1,
                            n, 1, 1.0, "l2_loss reduction");
  }
};

// SparseSoftmaxCrossEntropyWithLogits with int32 labels: they stay in host memory on a GPU
// device, so they are checked here as the CPU kernel checks them, then widened to int64 and
// copied in.
class GpuSparseSoftmaxXentOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor logits;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &logits));
    const Tensor& labels = ctx.input(1);  // int32, host memory
    if (labels.on_device())
      return internal("int32 labels of " + name() + " arrived in device memory");
    if (logits.rank() != 2)
      return invalid_argument("logits must be 2-D, but got shape " + logits.shape().to_string());
    if (labels.rank() != 1)
      return invalid_argument("labels must be 1-D, but got shape " + labels.shape().to_string());
    const std::int64_t rows = logits.shape().dim(0), cols = logits.shape().dim(1);
    if (labels.shape().dim(0) != rows)
      return invalid_argument(
          "logits and labels must have the same first dimension, got logits shape " +
          logits.shape().to_string() + " and labels shape " + labels.shape().to_string());
    if (cols == 0 && rows > 0)
      return invalid_argument("Must have at least one class, but got logits shape " +
                              logits.shape().to_string());
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
    return launch(
        launch_sparse_softmax_xent(elem_type(logits.dtype()), logits.raw_data(),
                                   static_cast<const std::int64_t*>(device_labels.raw_data()),
                                   loss->raw_data(), backprop->raw_data(), rows, cols, g.stream()),
        "sparse softmax cross entropy kernel");
  }
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
      return invalid_argument("In[0] and In[1] must be matrices: " + a.shape().to_string() + " " +
                              b.shape().to_string());
    const std::int64_t m = a.shape().dim(ta_ ? 1 : 0), k = a.shape().dim(ta_ ? 0 : 1);
    const std::int64_t kb = b.shape().dim(tb_ ? 1 : 0), n = b.shape().dim(tb_ ? 0 : 1);
    if (k != kb)
      return invalid_argument("Matrix size-incompatible: In[0]: " + a.shape().to_string() +
                              ", In[1]: " + b.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, a.dtype(), Shape{m, n}, &out));
    if (m == 0 || n == 0) return {};
    if (k == 0)
      return launch(cudaMemsetAsync(out->raw_data(), 0, out->total_bytes(), g.stream()),
                    "matmul zero fill");
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
        return ACTORFLOW_CUBLAS(cuda_libraries().cublasSgemm_v2(
            h, op_b, op_a, N, M, K, &one, static_cast<const float*>(b.raw_data()), ldb,
            static_cast<const float*>(a.raw_data()), lda, &zero,
            static_cast<float*>(out->raw_data()), N));
      }
      case DType::float64: {
        const double one = 1, zero = 0;
        return ACTORFLOW_CUBLAS(cuda_libraries().cublasDgemm_v2(
            h, op_b, op_a, N, M, K, &one, static_cast<const double*>(b.raw_data()), ldb,
            static_cast<const double*>(a.raw_data()), lda, &zero,
            static_cast<double*>(out->raw_data()), N));
      }
      case DType::bfloat16: {
        const float one = 1, zero = 0;
        return ACTORFLOW_CUBLAS(cuda_libraries().cublasGemmEx(
            h, op_b, op_a, N, M, K, &one, b.raw_data(), CUDA_R_16BF, ldb, a.raw_data(), CUDA_R_16BF,
            lda, &zero, out->raw_data(), CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      }
      default:
        return invalid_argument("MatMul on GPU does not support " +
                                std::string(dtype_name(a.dtype())));
    }
  }

 private:
  bool ta_ = false, tb_ = false;
};

// -- cuDNN ----------------------------------------------------------------------------------------

cudnnDataType_t cudnn_type(DType t) {
  return t == DType::float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
}

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
  Status nhwc(DType t, std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c,
              cudnnTensorDescriptor_t* out) {
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnCreateTensorDescriptor(out)));
    tensors.push_back(*out);
    return ACTORFLOW_CUDNN(cuda_libraries().cudnnSetTensor4dDescriptor(
        *out, CUDNN_TENSOR_NHWC, cudnn_type(t), static_cast<int>(n), static_cast<int>(c),
        static_cast<int>(h), static_cast<int>(w)));
  }
};

class GpuSoftmaxOp : public GpuOpKernel {
 public:
  using GpuOpKernel::GpuOpKernel;
  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    Tensor x;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, 0, &x));
    if (x.rank() < 1)
      return invalid_argument("logits must have >= 1 dimension, got " + x.shape().to_string());
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
        desc, CUDNN_TENSOR_NCHW, cudnn_type(x.dtype()), static_cast<int>(rows),
        static_cast<int>(cols), 1, 1)));
    std::lock_guard<std::mutex> guard(g.state().library_mu);
    const double one_d = 1, zero_d = 0;
    const float one_f = 1, zero_f = 0;
    const void* one = x.dtype() == DType::float64 ? static_cast<const void*>(&one_d) : &one_f;
    const void* zero = x.dtype() == DType::float64 ? static_cast<const void*>(&zero_d) : &zero_f;
    return ACTORFLOW_CUDNN(cuda_libraries().cudnnSoftmaxForward(
        g.state().cudnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, one, desc,
        x.raw_data(), zero, desc, out->raw_data()));
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
    if (s->ok() && format != "NHWC")
      *s = invalid_argument(type() + " on GPU supports data_format NHWC, got " + format);
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
      const std::int64_t total_r = std::max<std::int64_t>(
          0, (s.geo.out_rows - 1) * s.geo.stride_rows + s.geo.filter_rows - s.geo.in_rows);
      const std::int64_t total_c = std::max<std::int64_t>(
          0, (s.geo.out_cols - 1) * s.geo.stride_cols + s.geo.filter_cols - s.geo.in_cols);
      s.extra_rows = total_r - 2 * s.geo.pad_rows;
      s.extra_cols = total_c - 2 * s.geo.pad_cols;
    }
    return s;
  }

  // HWIO <-> OHWI through a 4-D transpose done as a pad-free copy kernel: element
  // (h, w, i, o) of HWIO goes to (o, h, w, i).
  static Status transpose_filter(GpuDeviceContext& g, const Tensor& from, bool to_ohwi,
                                 const Shape& hwio, Tensor* out);

  Status describe(Descriptors& d, const Setup& s, DType t, cudnnTensorDescriptor_t* x,
                  cudnnTensorDescriptor_t* y) {
    const auto& geo = s.geo;
    ACTORFLOW_RETURN_IF_ERROR(d.nhwc(t, geo.batch, geo.in_rows + s.extra_rows,
                                     geo.in_cols + s.extra_cols, geo.in_depth, x));
    ACTORFLOW_RETURN_IF_ERROR(d.nhwc(t, geo.batch, geo.out_rows, geo.out_cols, geo.out_depth, y));
    ACTORFLOW_RETURN_IF_ERROR(
        ACTORFLOW_CUDNN(cuda_libraries().cudnnCreateFilterDescriptor(&d.filter)));
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnSetFilter4dDescriptor(
        d.filter, cudnn_type(t), CUDNN_TENSOR_NHWC, static_cast<int>(geo.out_depth),
        static_cast<int>(geo.in_depth), static_cast<int>(geo.filter_rows),
        static_cast<int>(geo.filter_cols))));
    ACTORFLOW_RETURN_IF_ERROR(
        ACTORFLOW_CUDNN(cuda_libraries().cudnnCreateConvolutionDescriptor(&d.conv)));
    ACTORFLOW_RETURN_IF_ERROR(ACTORFLOW_CUDNN(cuda_libraries().cudnnSetConvolution2dDescriptor(
        d.conv, static_cast<int>(geo.pad_rows), static_cast<int>(geo.pad_cols),
        static_cast<int>(geo.stride_rows), static_cast<int>(geo.stride_cols), 1, 1,
        CUDNN_CROSS_CORRELATION, cudnn_type(t))));
    return ACTORFLOW_CUDNN(
        cuda_libraries().cudnnSetConvolutionMathType(d.conv, CUDNN_DEFAULT_MATH));
  }

  // The layer's key in GpuState::conv_algorithms.
  std::string algorithm_key(const char* kind, const Setup& s, DType t) const {
    const auto& g = s.geo;
    std::string key = kind;
    for (std::int64_t v : {g.batch, g.in_rows, g.in_cols, g.in_depth, g.out_depth, g.filter_rows,
                           g.filter_cols, g.stride_rows, g.stride_cols, g.pad_rows, g.pad_cols,
                           s.extra_rows, s.extra_cols, static_cast<std::int64_t>(t)}) {
      key += ',';
      key += std::to_string(v);
    }
    return key;
  }

  // Runs `run(algorithm)` with the first algorithm of cuDNN's heuristic (`heuristic(perf,
  // &found)`) that succeeds with a workspace that fits, remembered per layer shape (as
  // TensorFlow's autotune map, without timing runs). With `library_mu` held.
  template <class Perf, class Heuristic, class Run>
  static Status run_with_algorithm(GpuDeviceContext& g, const std::string& key, Heuristic heuristic,
                                   Run run, const char* what) {
    auto& cache = g.state().conv_algorithms;
    if (auto it = cache.find(key);
        it != cache.end() && g.state().ensure_workspace(it->second.second).ok())
      return run(static_cast<decltype(Perf::algo)>(it->second.first));
    Perf perf[8];
    int found = 0;
    ACTORFLOW_RETURN_IF_ERROR(heuristic(perf, &found));
    for (int i = 0; i < found; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS ||
          !g.state().ensure_workspace(perf[i].memory).ok())
        continue;
      cache[key] = {static_cast<int>(perf[i].algo), perf[i].memory};
      return run(perf[i].algo);
    }
    return resource_exhausted(std::string("no cuDNN ") + what +
                              " algorithm fits in the memory left on " + g.device_name());
  }

  std::vector<std::int64_t> strides_;
  std::string padding_;
};

Status GpuConvBase::transpose_filter(GpuDeviceContext& g, const Tensor& from, bool to_ohwi,
                                     const Shape& hwio, Tensor* out) {
  const std::int64_t H = hwio.dim(0), W = hwio.dim(1), I = hwio.dim(2), O = hwio.dim(3);
  ACTORFLOW_RETURN_IF_ERROR(g.allocate(from.dtype(), to_ohwi ? Shape{O, H, W, I} : hwio, out));
  // HWIO viewed as a [H*W*I, O] matrix; OHWI is its transpose [O, H*W*I]: a cuBLAS geam.
  const int rows = static_cast<int>(H * W * I), cols = static_cast<int>(O);
  std::lock_guard<std::mutex> guard(g.state().library_mu);
  const int m = to_ohwi ? rows : cols, n = to_ohwi ? cols : rows;  // column-major result m x n
  if (from.dtype() == DType::float64) {
    const double one = 1, zero = 0;
    return ACTORFLOW_CUBLAS(cuda_libraries().cublasDgeam(
        g.state().cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
        static_cast<const double*>(from.raw_data()), n, &zero,
        static_cast<const double*>(from.raw_data()), m, static_cast<double*>(out->raw_data()), m));
  }
  const float one = 1, zero = 0;
  return ACTORFLOW_CUBLAS(cuda_libraries().cublasSgeam(
      g.state().cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
      static_cast<const float*>(from.raw_data()), n, &zero,
      static_cast<const float*>(from.raw_data()), m, static_cast<float*>(out->raw_data()), m));
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
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(
        ctx, 0, x.dtype(), Shape{geo.batch, geo.out_rows, geo.out_cols, geo.out_depth}, &out));
    if (out->num_elements() == 0) return {};
    Tensor input = x;
    if (s->extra_rows || s->extra_cols) {
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(
          x.dtype(),
          Shape{geo.batch, geo.in_rows + s->extra_rows, geo.in_cols + s->extra_cols, geo.in_depth},
          &input));
      ACTORFLOW_RETURN_IF_ERROR(
          launch(launch_pad_nhwc(elem_type(x.dtype()), x.raw_data(), input.raw_data(), geo.batch,
                                 geo.in_rows, geo.in_cols, geo.in_depth, s->extra_rows,
                                 s->extra_cols, false, g.stream()),
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
          return ACTORFLOW_CUDNN(cudnn.cudnnGetConvolutionForwardAlgorithm_v7(
              g.state().cudnn, xd, d.filter, d.conv, yd, 8, found, perf));
        },
        [&](cudnnConvolutionFwdAlgo_t algo) {
          return ACTORFLOW_CUDNN(cudnn.cudnnConvolutionForward(
              g.state().cudnn, one_of(x.dtype()), xd, input.raw_data(), d.filter, filter.raw_data(),
              d.conv, algo, g.state().workspace, g.state().workspace_bytes, zero_of(x.dtype()), yd,
              out->raw_data()));
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
      return invalid_argument(
          "Conv2DBackpropInput: Size of out_backprop doesn't match computed: actual = " +
          dy.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, w.dtype(), input_shape, &out));
    if (out->num_elements() == 0) return {};
    const bool padded = s->extra_rows || s->extra_cols;
    Tensor dx = *out;
    if (padded)
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(
          w.dtype(),
          Shape{geo.batch, geo.in_rows + s->extra_rows, geo.in_cols + s->extra_cols, geo.in_depth},
          &dx));
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
            return ACTORFLOW_CUDNN(cudnn.cudnnGetConvolutionBackwardDataAlgorithm_v7(
                g.state().cudnn, d.filter, yd, d.conv, xd, 8, found, perf));
          },
          [&](cudnnConvolutionBwdDataAlgo_t algo) {
            return ACTORFLOW_CUDNN(cudnn.cudnnConvolutionBackwardData(
                g.state().cudnn, one_of(w.dtype()), d.filter, filter.raw_data(), yd, dy.raw_data(),
                d.conv, algo, g.state().workspace, g.state().workspace_bytes, zero_of(w.dtype()),
                xd, dx.raw_data()));
          },
          "backward-data"));
    }
    if (!padded) return {};
    return launch(launch_pad_nhwc(elem_type(w.dtype()), dx.raw_data(), out->raw_data(), geo.batch,
                                  geo.in_rows, geo.in_cols, geo.in_depth, s->extra_rows,
                                  s->extra_cols, true, g.stream()),
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
      return invalid_argument(
          "Conv2DBackpropFilter: Size of out_backprop doesn't match computed: actual = " +
          dy.shape().to_string());
    Tensor* out = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(ctx, 0, x.dtype(), filter_shape, &out));
    if (out->num_elements() == 0) return {};
    Tensor input = x;
    if (s->extra_rows || s->extra_cols) {
      ACTORFLOW_RETURN_IF_ERROR(g.allocate(
          x.dtype(),
          Shape{geo.batch, geo.in_rows + s->extra_rows, geo.in_cols + s->extra_cols, geo.in_depth},
          &input));
      ACTORFLOW_RETURN_IF_ERROR(
          launch(launch_pad_nhwc(elem_type(x.dtype()), x.raw_data(), input.raw_data(), geo.batch,
                                 geo.in_rows, geo.in_cols, geo.in_depth, s->extra_rows,
                                 s->extra_cols, false, g.stream()),
                 "pad kernel"));
    }
    Tensor ohwi;
    ACTORFLOW_RETURN_IF_ERROR(g.allocate(
        x.dtype(), Shape{geo.out_depth, geo.filter_rows, geo.filter_cols, geo.in_depth}, &ohwi));
    Descriptors d;
    cudnnTensorDescriptor_t xd, yd;
    ACTORFLOW_RETURN_IF_ERROR(describe(d, *s, x.dtype(), &xd, &yd));
    {
      std::lock_guard<std::mutex> guard(g.state().library_mu);
      const auto& cudnn = cuda_libraries();
      ACTORFLOW_RETURN_IF_ERROR(run_with_algorithm<cudnnConvolutionBwdFilterAlgoPerf_t>(
          g, algorithm_key("backward filter", *s, x.dtype()),
          [&](cudnnConvolutionBwdFilterAlgoPerf_t* perf, int* found) {
            return ACTORFLOW_CUDNN(cudnn.cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                g.state().cudnn, xd, yd, d.conv, d.filter, 8, found, perf));
          },
          [&](cudnnConvolutionBwdFilterAlgo_t algo) {
            return ACTORFLOW_CUDNN(cudnn.cudnnConvolutionBackwardFilter(
                g.state().cudnn, one_of(x.dtype()), xd, input.raw_data(), yd, dy.raw_data(), d.conv,
                algo, g.state().workspace, g.state().workspace_bytes, zero_of(x.dtype()), d.filter,
                ohwi.raw_data()));
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
    ACTORFLOW_RETURN_IF_ERROR(g.allocate_output(
        ctx, 0, x.dtype(), Shape{geo->batch, geo->out_rows, geo->out_cols, geo->depth}, &out));
    PoolPlan p{geo->batch,       geo->in_rows,     geo->in_cols,     geo->depth,
               geo->out_rows,    geo->out_cols,    geo->window_rows, geo->window_cols,
               geo->stride_rows, geo->stride_cols, geo->pad_rows,    geo->pad_cols};
    return launch(
        launch_pool2d(Max, elem_type(x.dtype()), x.raw_data(), out->raw_data(), p, g.stream()),
        "pool kernel");
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
    if (s->ok() && format != "NHWC")
      *s = invalid_argument(type() + " on GPU supports data_format NHWC, got " + format);
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
    PoolPlan p{geo->batch,       geo->in_rows,     geo->in_cols,     geo->depth,
               geo->out_rows,    geo->out_cols,    geo->window_rows, geo->window_cols,
               geo->stride_rows, geo->stride_cols, geo->pad_rows,    geo->pad_cols};
    if constexpr (Max)
      return launch(launch_max_pool_grad(elem_type(grad.dtype()), input.raw_data(), grad.raw_data(),
                                         dx->raw_data(), p, g.stream()),
                    "max_pool_grad kernel");
    else
      return launch(launch_avg_pool_grad(elem_type(grad.dtype()), grad.raw_data(), dx->raw_data(),
                                         p, g.stream()),
                    "avg_pool_grad kernel");
  }

 private:
  std::vector<std::int64_t> ksize_, strides_;
  std::string padding_;
};

}  // namespace

void register_gpu_nn_kernels(KernelRegistry& r) {
  const std::vector<DType>& float_or_double = kFloatOrDouble;
  add<GpuSoftmaxXentOp>(r, "SoftmaxCrossEntropyWithLogits", {{"T", float_or_double}});
  add<GpuLogSoftmaxOp>(r, "LogSoftmax", {{"T", float_or_double}});
  add<GpuL2LossOp>(r, "L2Loss", {{"T", float_or_double}});
  add<GpuSparseSoftmaxXentOp>(r, "SparseSoftmaxCrossEntropyWithLogits",
                              {{"T", float_or_double}, {"Tlabels", {DType::int32}}});
  add<GpuMatMulOp>(r, "MatMul", {{"T", kFloat}});
  add<GpuSoftmaxOp>(r, "Softmax", {{"T", {DType::float32, DType::float64}}});
  add<GpuConv2DOp>(r, "Conv2D", {{"T", {DType::float32, DType::float64}}});
  add<GpuConv2DBackpropInputOp>(r, "Conv2DBackpropInput",
                                {{"T", {DType::float32, DType::float64}}});
  add<GpuConv2DBackpropFilterOp>(r, "Conv2DBackpropFilter",
                                 {{"T", {DType::float32, DType::float64}}});
  add<GpuPoolOp<true>>(r, "MaxPool", {{"T", kFloat}});
  add<GpuPoolOp<false>>(r, "AvgPool", {{"T", kFloat}});
  add<GpuPoolGradOp<true>>(r, "MaxPoolGrad", {{"T", float_or_double}});
  add<GpuPoolGradOp<false>>(r, "AvgPoolGrad", {{"T", float_or_double}});
}

}  // namespace af::gpu
