// AccumulateNV2, ConjugateTranspose, BiasAddV1, SparseMatMul, Conv3DBackpropInput,
// Conv3DBackpropFilter, MaxPoolV2, MaxPoolGradV2 and MaxPoolGradGradV2: CPU kernels with
// TensorFlow's checks and messages (sparse_matmul_op.cc, conv_grad_ops_3d.cc,
// maxpooling_op.cc). All but SparseMatMul run the kernel of the op type TensorFlow shares
// theirs with (AddN, Transpose, BiasAdd, Conv3DBackprop*V2, MaxPool, MaxPoolGrad,
// MaxPoolGradGrad) through a Delegate, after the checks that are theirs alone. Their
// definitions are in ops/src/defs/array_more_nn_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "cpu_gemm.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::node_suffix;
using detail::StatusKernel;

constexpr Index kExpensiveElements = 64 * 1024;

// -- running another op type's kernel -------------------------------------------------------

// The CPU kernel of another op type built for this node (same name, so its errors name it)
// with some attrs set: how an op type runs the kernel TensorFlow registers for both.
class Delegate {
 public:
  Delegate() = default;

  // Builds the kernel of `op` for `def` with `attrs` set (added or replaced) on inputs of
  // `input_types`; NotFound or the kernel's construction error when there is none.
  static Status make(const NodeDef& def, const std::string& op, const AttrMap& attrs,
                     std::vector<DType> input_types, std::vector<DType> output_types,
                     Delegate* out) {
    out->def_ = std::make_unique<NodeDef>(def);
    out->def_->op = op;
    for (const auto& [name, value] : attrs) out->def_->attrs[name] = value;
    OpKernelConstruction c{*out->def_, std::move(input_types), std::move(output_types), "CPU", ""};
    Status s = KernelRegistry::global().create(c, &out->kernel_);
    // create() names the node after a construction error, as the creation of the kernel that
    // returns this error as its own will again: the first naming goes.
    const std::string named = " [[node " + def.name + "]]";
    const std::string& m = s.message();
    if (!s.ok() && m.size() >= named.size() &&
        m.compare(m.size() - named.size(), named.size(), named) == 0)
      return Status(s.code(), m.substr(0, m.size() - named.size()));
    return s;
  }

  // The kernel's hint for a run on these inputs.
  bool is_expensive(const OpKernelContext& ctx) const {
    return kernel_ && kernel_->is_expensive(ctx);
  }

  // Runs the kernel on `inputs` in the step of `ctx`: its outputs become ctx's, its error
  // (which names the node already) ctx's.
  void run(OpKernelContext& ctx, std::vector<Tensor> inputs) const {
    OpKernelContext sub = detail::sub_context(ctx, *def_, std::move(inputs));
    kernel_->compute(sub);
    if (!sub.ok()) return ctx.fail(sub.status());
    for (int i = 0; i < ctx.num_outputs(); ++i)
      ctx.set_output(i, std::move(sub.outputs()[static_cast<std::size_t>(i)]));
  }

 private:
  std::unique_ptr<NodeDef> def_;  // outlives the kernel, which may keep a reference
  std::unique_ptr<OpKernel> kernel_;
};

// The inputs of `ctx`, the first `n`.
std::vector<Tensor> inputs_of(const OpKernelContext& ctx, int n) {
  std::vector<Tensor> inputs;
  for (int i = 0; i < n; ++i) inputs.push_back(ctx.input(i));
  return inputs;
}

// A kernel that is another op type's kernel built once for its node, on all its inputs
// (AccumulateNV2 as AddN, ConjugateTranspose of real types as Transpose, BiasAddV1 as an NHWC
// BiasAdd).
class SameKernel : public OpKernel {
 public:
  SameKernel(OpKernelConstruction& c, Status* s, const std::string& op, const AttrMap& attrs)
      : OpKernel(c) {
    *s = Delegate::make(c.def, op, attrs, c.input_types, c.output_types, &delegate_);
  }
  bool is_expensive(const OpKernelContext& ctx) const override {
    return delegate_.is_expensive(ctx);
  }
  void compute(OpKernelContext& ctx) override {
    delegate_.run(ctx, inputs_of(ctx, ctx.num_inputs()));
  }

 private:
  Delegate delegate_;
};

// AccumulateNV2(inputs; shape): the sum of the inputs, as AddN (TensorFlow rewrites it into
// in-place additions to a temporary; the shape attr is not checked against the inputs).
class AccumulateNV2Op : public SameKernel {
 public:
  AccumulateNV2Op(OpKernelConstruction& c, Status* s) : SameKernel(c, s, "AddN", {}) {}
};

// ConjugateTranspose(x, perm): Transpose, and of a complex tensor the conjugates (into a
// tensor of its own: a Transpose by the identity forwards its input).
class ConjugateTransposeOp : public SameKernel {
 public:
  ConjugateTransposeOp(OpKernelConstruction& c, Status* s) : SameKernel(c, s, "Transpose", {}) {}
  void compute(OpKernelContext& ctx) override {
    SameKernel::compute(ctx);
    if (!ctx.status().ok() || ctx.outputs().empty() || !is_complex(ctx.outputs()[0].dtype()))
      return;
    const Tensor t = ctx.outputs()[0];
    Tensor out(t.dtype(), t.shape(), Tensor::for_overwrite);
    visit_numeric_dtype(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (is_complex_v<T>) {
        const T* in = t.data<T>();
        T* o = out.data<T>();
        for (std::int64_t i = 0; i < t.num_elements(); ++i) o[i] = std::conj(in[i]);
      }
    });
    ctx.set_output(0, std::move(out));
  }
};

// BiasAddV1(value, bias): BiasAdd with data_format NHWC.
class BiasAddV1Op : public SameKernel {
 public:
  BiasAddV1Op(OpKernelConstruction& c, Status* s)
      : SameKernel(c, s, "BiasAdd", {{"data_format", std::string("NHWC")}}) {}
};

// -- SparseMatMul ---------------------------------------------------------------------------

// The values of a float or bfloat16 tensor as floats.
std::vector<float> as_floats(const Tensor& t) {
  std::vector<float> out(static_cast<std::size_t>(t.num_elements()));
  if (t.dtype() == DType::bfloat16) {
    const bfloat16_t* p = t.data<bfloat16_t>();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(p[i]);
  } else {
    std::copy_n(t.data<float>(), out.size(), out.begin());
  }
  return out;
}

// SparseMatMul(a, b; transpose_a, transpose_b, a_is_sparse, b_is_sparse): the float product
// op(a) * op(b) of float or bfloat16 matrices, summed in float. The sparsity flags are hints
// to TensorFlow's kernel, which then skips zeros; the product is the same.
class SparseMatMulOp : public StatusKernel {
 public:
  SparseMatMulOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    c.get_attr("transpose_a", &transpose_a_);
    c.get_attr("transpose_b", &transpose_b_);
    *s = {};
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.rank() != 2) return invalid_argument("a is not a matrix");
    if (b.rank() != 2) return invalid_argument("b is not a matrix");
    const Index m = a.shape().dim(transpose_a_ ? 1 : 0), k = a.shape().dim(transpose_a_ ? 0 : 1);
    const Index n = b.shape().dim(transpose_b_ ? 0 : 1), k2 = b.shape().dim(transpose_b_ ? 1 : 0);
    if (k != k2)
      return invalid_argument("Matrix size incompatible: a: " + a.shape().to_string() +
                              ", b: " + b.shape().to_string());
    Tensor& out = ctx.allocate_output(0, DType::float32, Shape{m, n});
    if (m == 0 || n == 0 || k == 0) return {};
    const std::vector<float> left = as_floats(a), right = as_floats(b);
    float* o = out.data<float>();
    const int threads = std::max(1, ctx.intra_op_threads);
    if (detail::cpu_gemm(left.data(), right.data(), o, m, n, k, transpose_a_, transpose_b_, threads,
                         ctx.eigen_device))
      return {};
    std::fill_n(o, m * n, 0.0f);
    for (Index i = 0; i < m; ++i)
      for (Index p = 0; p < k; ++p) {
        const float av = transpose_a_ ? left[static_cast<std::size_t>(p * m + i)]
                                      : left[static_cast<std::size_t>(i * k + p)];
        for (Index j = 0; j < n; ++j)
          o[i * n + j] += av * (transpose_b_ ? right[static_cast<std::size_t>(j * k + p)]
                                             : right[static_cast<std::size_t>(p * n + j)]);
      }
    return {};
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
};

// -- Conv3DBackpropInput and Conv3DBackpropFilter -------------------------------------------

// The shape of `t` as the int32 vector (int64 when a dimension needs it) the V2 ops take.
Tensor shape_vector(const Tensor& t) {
  const std::vector<std::int64_t> dims = t.shape().dims();
  const bool wide = std::any_of(dims.begin(), dims.end(), [](std::int64_t d) {
    return d > std::numeric_limits<std::int32_t>::max();
  });
  if (wide) return Tensor::from_vector(dims);
  return Tensor::from_vector(std::vector<std::int32_t>(dims.begin(), dims.end()));
}

// Conv3DBackpropInput(input, filter, out_backprop) and Conv3DBackpropFilter(input, filter,
// out_backprop), TensorFlow's first versions (NDHWC, no data_format attr): the V2 kernels with
// the sizes taken from the `input` (`Filter`: the `filter`) tensor's shape.
template <bool Filter>
class Conv3DBackpropV1Op : public OpKernel {
 public:
  Conv3DBackpropV1Op(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    const DType t = c.input_types.empty() ? DType::float32 : c.input_types[0];
    std::vector<DType> types = c.input_types;
    if (types.size() == 3) types[Filter ? 1 : 0] = DType::int32;
    AttrMap attrs{{"data_format", std::string("NDHWC")}};
    if (!Filter) attrs["Tshape"] = DType::int32;
    *s = Delegate::make(c.def, Filter ? "Conv3DBackpropFilterV2" : "Conv3DBackpropInputV2", attrs,
                        types, {t}, &delegate_);
  }
  bool is_expensive(const OpKernelContext&) const override { return true; }
  void compute(OpKernelContext& ctx) override {
    std::vector<Tensor> inputs = inputs_of(ctx, 3);
    Tensor& sized = inputs[Filter ? 1 : 0];
    sized = shape_vector(sized);  // the V2 kernels read int32 and int64 sizes alike
    delegate_.run(ctx, std::move(inputs));
  }

 private:
  Delegate delegate_;
};

// -- MaxPoolV2, MaxPoolGradV2 and MaxPoolGradGradV2 -----------------------------------------

// The ksize and strides inputs of a V2 pooling op.
struct PoolWindowInputs {
  std::vector<std::int64_t> ksize, strides;
};

// Reads ksize (input `at`) and strides (input `at + 1`) and makes MaxPoolingGradOp's checks
// of them (`strides_word`: "stride" in MaxPoolV2's message, "strides" in the gradients').
StatusOr<PoolWindowInputs> read_window_inputs(const OpKernelContext& ctx, int at,
                                              const char* strides_word) {
  PoolWindowInputs w{index_values(ctx.input(at)), index_values(ctx.input(at + 1))};
  if (w.ksize.size() != 4)
    return invalid_argument("Sliding window ksize field must specify 4 dimensions");
  if (w.strides.size() != 4)
    return invalid_argument(std::string("Sliding window ") + strides_word +
                            " field must specify 4 dimensions");
  return w;
}

// PoolParameters::forward_output_shape of an NHWC input: GetWindowedOutputSize of both
// spatial dimensions (TensorFlow checks no window size there).
StatusOr<Shape> pool_output_shape(const Shape& input, const PoolWindowInputs& w,
                                  const std::string& padding) {
  std::vector<std::int64_t> dims{input.dim(0), 0, 0, input.dim(3)};
  for (int d = 1; d <= 2; ++d) {
    const Index in = input.dim(d), window = w.ksize[static_cast<std::size_t>(d)],
                stride = w.strides[static_cast<std::size_t>(d)];
    if (stride <= 0)
      return invalid_argument("Stride must be > 0, but got " + std::to_string(stride));
    const Index out =
        padding == "VALID" ? (in - window + stride) / stride : (in + stride - 1) / stride;
    if (out < 0)
      return invalid_argument("Computed output size would be negative: " + std::to_string(out) +
                              " [input_size: " + std::to_string(in) + ", effective_filter_size: " +
                              std::to_string(window) + ", stride: " + std::to_string(stride) + "]");
    dims[static_cast<std::size_t>(d)] = out;
  }
  return Shape(std::move(dims));
}

// What the three V2 kernels share: their node, the MaxPool-family op type whose kernel they
// run with ksize and strides as attrs, and the construction of that kernel.
class MaxPoolV2Base : public OpKernel {
 public:
  MaxPoolV2Base(OpKernelConstruction& c, std::string op)
      : OpKernel(c),
        def_(c.def),
        op_(std::move(op)),
        input_types_(c.input_types),
        output_types_(c.output_types) {
    padding_ = "VALID";
    c.get_attr("padding", &padding_);
    if (input_types_.size() >= 2) input_types_.resize(input_types_.size() - 2);  // the windows
  }
  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() > 0 && ctx.input(0).num_elements() > kExpensiveElements;
  }

 protected:
  // The kernel of op_ for windows `w` (its construction errors, such as the data format's).
  Status delegate(const PoolWindowInputs& w, Delegate* out) const {
    return Delegate::make(def_, op_, {{"ksize", w.ksize}, {"strides", w.strides}}, input_types_,
                          output_types_, out);
  }
  // The kernel for windows `w`, built on the first run with them and kept while the runs
  // bring the same windows (a graph's windows are usually constants): no NodeDef copy and
  // kernel construction per run. Runs of other steps may share it meanwhile.
  StatusOr<std::shared_ptr<const Delegate>> delegate_for(const PoolWindowInputs& w) {
    std::lock_guard lock(mu_);
    if (!cached_ || cached_window_.ksize != w.ksize || cached_window_.strides != w.strides) {
      auto made = std::make_shared<Delegate>();
      ACTORFLOW_RETURN_IF_ERROR(delegate(w, made.get()));
      cached_ = std::move(made);
      cached_window_ = w;
    }
    return cached_;
  }
  // Fails ctx with `s` naming the node.
  void fail(OpKernelContext& ctx, const Status& s) const {
    ctx.fail(s.with_context(node_suffix(name())));
  }

  NodeDef def_;
  std::string op_, padding_;
  std::vector<DType> input_types_, output_types_;

 private:
  std::mutex mu_;
  PoolWindowInputs cached_window_;
  std::shared_ptr<const Delegate> cached_;
};

// MaxPoolV2(input, ksize, strides): MaxPool with the window taken from its inputs, after
// MaxPoolingV2Op's checks of them.
class MaxPoolV2Op : public MaxPoolV2Base {
 public:
  MaxPoolV2Op(OpKernelConstruction& c, Status* s) : MaxPoolV2Base(c, "MaxPool") {
    std::string format = "NHWC";
    c.get_attr("data_format", &format);
    if (format != "NHWC" && format != "NCHW_VECT_C") {
      *s = invalid_argument("MaxPoolingV2Op only supports NHWC or NCHW_VECT_C. Got: " + format +
                            node_suffix(c.def.name));
      return;
    }
    Delegate probe;  // MaxPool's own constructor checks (NCHW_VECT_C on the CPU)
    *s = delegate({{1, 1, 1, 1}, {1, 1, 1, 1}}, &probe);
  }
  void compute(OpKernelContext& ctx) override {
    auto w = read_window_inputs(ctx, 1, "stride");
    if (!w.ok()) return fail(ctx, w.status());
    for (auto k : w->ksize)
      if (k <= 0) return fail(ctx, invalid_argument("Sliding window ksize must be positive."));
    if (w->ksize[0] != 1 || w->strides[0] != 1)
      return fail(ctx, unimplemented("Pooling is not yet supported on the batch dimension."));
    const Tensor& input = ctx.input(0);
    if (input.rank() != 4)
      return fail(ctx, invalid_argument("tensor_in_shape must have 2 spatial dimensions. " +
                                        std::to_string(input.rank()) + " 0"));
    if (w->ksize[3] != 1 && (w->ksize[1] != 1 || w->ksize[2] != 1))
      return fail(ctx, unimplemented("MaxPooling supports exactly one of pooling across depth "
                                     "or pooling across width/height."));
    if (w->ksize[3] != 1 && w->ksize[3] != w->strides[3])
      return fail(
          ctx, unimplemented("Depthwise max pooling requires the depth window to equal the depth "
                             "stride"));
    if (w->ksize[3] != 1 && input.shape().dim(3) % w->ksize[3] != 0)
      return fail(ctx, unimplemented("Depthwise max pooling requires the depth window to evenly "
                                     "divide the input depth"));
    auto pool = delegate_for(*w);
    if (!pool.ok()) return ctx.fail(pool.status());
    (*pool)->run(ctx, {input});
  }
};

// MaxPoolGradV2 / MaxPoolGradGradV2 (orig_input, orig_output, grad, ksize, strides):
// MaxPoolGrad / MaxPoolGradGrad with the window taken from its inputs, after
// MaxPoolingGradOp's / MaxPoolingGradGradOp's checks.
template <bool kGradGrad>
class MaxPoolGradV2Op : public MaxPoolV2Base {
 public:
  MaxPoolGradV2Op(OpKernelConstruction& c, Status* s)
      : MaxPoolV2Base(c, kGradGrad ? "MaxPoolGradGrad" : "MaxPoolGrad") {
    Delegate probe;  // the delegate's constructor checks (NHWC only on the CPU)
    *s = delegate({{1, 1, 1, 1}, {1, 1, 1, 1}}, &probe);
  }
  void compute(OpKernelContext& ctx) override {
    if (ctx.input(0).rank() != 4)
      return fail(ctx, invalid_argument("tensor_in must be 4-dimensional"));
    if (ctx.input(1).rank() != 4)
      return fail(ctx, invalid_argument("tensor_out must be 4-dimensional"));
    if (ctx.input(2).rank() != 4)
      return fail(ctx, invalid_argument(kGradGrad ? "out_grad_backprop must be 4-dimensional"
                                                  : "out_backprop must be 4-dimensional"));
    auto w = read_window_inputs(ctx, 3, "strides");
    if (!w.ok()) return fail(ctx, w.status());
    if (w->ksize[0] != 1 || w->strides[0] != 1)
      return fail(ctx, unimplemented("Pooling is not yet supported on the batch dimension."));
    if (w->ksize[3] != 1 || w->strides[3] != 1)
      return fail(ctx,
                  unimplemented("MaxPoolingGrad is not yet supported on the depth dimension."));
    auto out_shape = pool_output_shape(ctx.input(0).shape(), *w, padding_);
    if (!out_shape.ok()) return fail(ctx, out_shape.status());
    if (ctx.input(1).shape() != *out_shape)
      return fail(ctx,
                  invalid_argument("Expected orig_output shape to be " + out_shape->to_string() +
                                   ", but got " + ctx.input(1).shape().to_string()));
    auto grad = delegate_for(*w);
    if (!grad.ok()) return ctx.fail(grad.status());
    (*grad)->run(ctx, inputs_of(ctx, 3));
  }
};

// -- registration ---------------------------------------------------------------------------

template <class Kernel>
void register_on(KernelRegistry& r, const char* op, const std::vector<DType>& types,
                 std::vector<std::pair<std::string, std::vector<DType>>> more = {}) {
  more.emplace(more.begin(), "T", types);
  r.add(make_kernel_def<Kernel>(op, "CPU", std::move(more)));
}

}  // namespace

namespace detail {

void register_array_more_nn_kernels(KernelRegistry& r) {
  const std::vector<DType> floats = {DType::float32, DType::float64};
  const std::vector<DType> real = {DType::float32, DType::float64, DType::int32,
                                   DType::int64,   DType::uint8,   DType::bfloat16};
  // The types the shared kernels are registered for (cwise_aggregate_ops.cpp,
  // transform_ops.cpp, nn_ops.cpp, nn_grad_ops.cpp, patches_pool_ops.cpp, conv3d_ops.cpp).
  register_on<AccumulateNV2Op>(r, "AccumulateNV2", real);
  register_on<ConjugateTransposeOp>(r, "ConjugateTranspose", kValueTypes, {{"Tperm", kIndexTypes}});
  // BiasAddV1: every type of the BiasAdd kernel it delegates to (TF_CALL_NUMBER_TYPES).
  register_on<BiasAddV1Op>(
      r, "BiasAddV1",
      {DType::float32, DType::float64, DType::bfloat16, DType::float16, DType::int8, DType::int16,
       DType::int32, DType::int64, DType::uint8, DType::uint16, DType::uint32, DType::uint64,
       DType::complex64, DType::complex128});
  r.add(make_kernel_def<SparseMatMulOp>(
      "SparseMatMul", "CPU",
      {{"Ta", {DType::float32, DType::bfloat16}}, {"Tb", {DType::float32, DType::bfloat16}}}));
  // float16 too: the V2 kernels they delegate to take it.
  const std::vector<DType> conv3d = {DType::float32, DType::float64, DType::float16};
  register_on<Conv3DBackpropV1Op<false>>(r, "Conv3DBackpropInput", conv3d);
  register_on<Conv3DBackpropV1Op<true>>(r, "Conv3DBackpropFilter", conv3d);
  // The types of the MaxPool, MaxPoolGrad and MaxPoolGradGrad kernels they delegate to.
  register_on<MaxPoolV2Op>(r, "MaxPoolV2",
                           {DType::float32, DType::float64, DType::int8, DType::int16, DType::int32,
                            DType::int64, DType::uint8, DType::uint16});
  const std::vector<DType> real_numbers = {
      DType::float32, DType::float64, DType::int8,   DType::int16,  DType::int32,
      DType::int64,   DType::uint8,   DType::uint16, DType::uint32, DType::uint64};
  register_on<MaxPoolGradV2Op<false>>(r, "MaxPoolGradV2", real_numbers);
  std::vector<DType> grad_grad = real_numbers;
  grad_grad.push_back(DType::bfloat16);
  register_on<MaxPoolGradV2Op<true>>(r, "MaxPoolGradGradV2", grad_grad);
  // float16 (and bfloat16) through the float kernels.
  register_via_float<MaxPoolV2Op>(r, "MaxPoolV2");
  register_via_float<MaxPoolGradV2Op<false>>(r, "MaxPoolGradV2");
  register_via_float<half_t>(r, "MaxPoolGradGradV2",
                             make_kernel_def<MaxPoolGradV2Op<true>>("", "").factory);
}

}  // namespace detail

}  // namespace af
