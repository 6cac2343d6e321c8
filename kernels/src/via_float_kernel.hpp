#pragma once

// A float kernel run for float16 and bfloat16: TensorFlow's CPU kernels of these types (the
// convolutions, pools, gradient and loss kernels) compute in float through Eigen's half
// arithmetic; here the op's float kernel computes and its results are rounded once. Private
// to the kernels module.
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"

namespace af::detail {

/// Attribute name -> allowed dtypes: KernelDef::constraints.
using DTypeConstraints = std::vector<std::pair<std::string, std::vector<DType>>>;

/// The elements of `t`, of half-like type `Half`, as floats.
template <class Half>
std::vector<float> widened_values(const Tensor& t) {
  const Half* p = t.data<Half>();
  std::vector<float> out(static_cast<std::size_t>(t.num_elements()));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(p[i]);
  return out;
}

/// A context for a kernel that runs node `def` (which must outlive it) on `inputs` inside the
/// run of `ctx`: the same resources, runtime, step services, pools and device, and ctx's
/// number of outputs (kernels made of other kernels: ViaFloatKernel, array_more_nn_ops.cpp).
inline OpKernelContext sub_context(const OpKernelContext& ctx, const NodeDef& def,
                                   std::vector<Tensor> inputs) {
  OpKernelContext sub(def, std::move(inputs));
  sub.resource_mgr = ctx.resource_mgr;
  sub.shared_resource_mgr = ctx.shared_resource_mgr;
  sub.runtime = ctx.runtime;
  sub.step = ctx.step;
  sub.eigen_device = ctx.eigen_device;
  sub.intra_op_threads = ctx.intra_op_threads;
  sub.device_name = ctx.device_name;
  sub.device_context = ctx.device_context;
  sub.set_num_outputs(ctx.num_outputs());
  return sub;
}

/// A kernel of the half-like type `Half` (half_t, bfloat16_t) made of the op's float kernel
/// (built by `float_kernel`): it sees the node with every `Half` type attr set to float and
/// the `Half` inputs widened to float; its float outputs that the node declares `Half` are
/// rounded to `Half`. Its errors are the float kernel's, naming the same node.
template <class Half>
class ViaFloatKernel : public OpKernel {
 public:
  /// Builds the float kernel for the node with its `Half` attrs read as float.
  ViaFloatKernel(OpKernelConstruction& c, Status* s, const KernelFactory& float_kernel)
      : OpKernel(c), def_(widened(c.def)), output_types_(c.output_types) {
    OpKernelConstruction fc{def_, widened(c.input_types), widened(c.output_types), c.device_type,
                            c.device_name};
    inner_ = float_kernel(fc, s);
  }

  /// The float kernel's estimate (it reads shapes, not elements).
  bool is_expensive(const OpKernelContext& ctx) const override { return inner_->is_expensive(ctx); }

  /// Widens, runs the float kernel in a context of the same step, rounds.
  void compute(OpKernelContext& ctx) override {
    std::vector<Tensor> inputs;
    inputs.reserve(static_cast<std::size_t>(ctx.num_inputs()));
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      inputs.push_back(t.dtype() == kHalf ? convert<Half, float>(t, DType::float32) : t);
    }
    OpKernelContext fctx = sub_context(ctx, def_, std::move(inputs));
    inner_->compute(fctx);
    if (!fctx.ok()) return ctx.fail(fctx.status());
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      const Tensor& t = fctx.outputs()[static_cast<std::size_t>(i)];
      const bool round = static_cast<std::size_t>(i) < output_types_.size() &&
                         output_types_[static_cast<std::size_t>(i)] == kHalf &&
                         t.dtype() == DType::float32;
      ctx.set_output(i, round ? convert<float, Half>(t, kHalf) : t);
    }
  }

 private:
  static constexpr DType kHalf = dtype_of_v<Half>;

  static DType widened(DType t) { return t == kHalf ? DType::float32 : t; }
  static std::vector<DType> widened(std::vector<DType> types) {
    for (DType& t : types) t = widened(t);
    return types;
  }
  static NodeDef widened(const NodeDef& def) {
    NodeDef out = def;
    for (auto& [name, value] : out.attrs) {
      if (auto* t = std::get_if<DType>(&value)) *t = widened(*t);
      if (auto* list = std::get_if<std::vector<DType>>(&value))
        for (DType& t : *list) t = widened(t);
    }
    return out;
  }
  template <class From, class To>
  static Tensor convert(const Tensor& t, DType to) {
    Tensor out(to, t.shape(), Tensor::for_overwrite);
    const From* p = t.data<From>();
    To* q = out.data<To>();
    for (Index i = 0, n = t.num_elements(); i < n; ++i) q[i] = static_cast<To>(p[i]);
    return out;
  }

  NodeDef def_;
  std::vector<DType> output_types_;
  std::unique_ptr<OpKernel> inner_;
};

/// Registers the float kernel `float_kernel` makes for `op` on the CPU for `Half` (float16 or
/// bfloat16) through ViaFloatKernel, constrained on attr `attr` and on `more`.
template <class Half>
void register_via_float(KernelRegistry& r, const std::string& op, const KernelFactory& float_kernel,
                        const char* attr = "T", const DTypeConstraints& more = {}) {
  KernelDef d;
  d.op = op;
  d.device_type = "CPU";
  d.constraints = more;
  d.constraints.push_back({attr, {dtype_of_v<Half>}});
  d.factory = [float_kernel](OpKernelConstruction& c, Status* s) -> std::unique_ptr<OpKernel> {
    return std::make_unique<ViaFloatKernel<Half>>(c, s, float_kernel);
  };
  r.add(std::move(d));
}

/// The same for float16 and bfloat16.
inline void register_via_float(KernelRegistry& r, const std::string& op,
                               const KernelFactory& float_kernel, const char* attr = "T",
                               const DTypeConstraints& more = {}) {
  register_via_float<half_t>(r, op, float_kernel, attr, more);
  register_via_float<bfloat16_t>(r, op, float_kernel, attr, more);
}

/// Kernel<float> and Kernel<double> for `op` (attr "T"), and float16 and bfloat16 through
/// Kernel<float>: the floating-point kernels of an op TensorFlow registers for all four.
template <template <class> class Kernel>
void register_floating(KernelRegistry& r, const std::string& op) {
  r.add(make_kernel_def<Kernel<float>>(op, "CPU", {{"T", {DType::float32}}}));
  r.add(make_kernel_def<Kernel<double>>(op, "CPU", {{"T", {DType::float64}}}));
  register_via_float(r, op, make_kernel_def<Kernel<float>>(op, "CPU").factory);
}

/// register_via_float of kernel class FloatKernel.
template <class FloatKernel>
void register_via_float(KernelRegistry& r, const std::string& op, const char* attr = "T",
                        const DTypeConstraints& more = {}) {
  register_via_float(r, op, make_kernel_def<FloatKernel>(op, "CPU").factory, attr, more);
}

}  // namespace af::detail
