// GPU kernels of the optimizers' Apply* updates (GradientDescent, Momentum, Adagrad,
// RMSProp, CenteredRMSProp, Adam) on actorflow's own kernels (gpu_kernels.cu).
#include <string>
#include <vector>

#include "actorflow/ops/resource.hpp"
#include "gpu_op_kernel.hpp"

namespace af::gpu {

namespace {

// -- training updates ---------------------------------------------------------------------------

enum class ApplyKind { gradient_descent, momentum, adagrad, rms_prop, centered_rms_prop, adam };

// The Apply* updates (GradientDescent, Momentum, Adagrad, RMSProp, CenteredRMSProp, Adam)
// with the variable and its slots in device memory, as the CPU kernels of training_ops.cpp:
// every reference input is locked in input order, each new value is written into a fresh
// device buffer and swapped in under the lock (copy on write: tensors fetched or in flight
// keep the old buffer). The scalar inputs stay in device memory and the kernels read them
// there.
template <ApplyKind Kind>
class GpuApplyOp : public GpuOpKernel {
 public:
  GpuApplyOp(OpKernelConstruction& c, Status*) : GpuOpKernel(c) {
    c.get_attr("use_nesterov", &use_nesterov_);
    c.get_attr("update_slots", &update_slots_);
  }

  Status compute_gpu(OpKernelContext& ctx, GpuDeviceContext& g) override {
    // Input layout, as layout_of in training_ops.cpp.
    constexpr std::size_t refs = Kind == ApplyKind::gradient_descent                         ? 1
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
      scalar_inputs = {{3, "beta1_power"}, {4, "beta2_power"}, {5, "lr"},
                       {6, "beta1"},       {7, "beta2"},       {8, "epsilon"}};
      grad_input = 9;
    }
    std::vector<Var*> vars;
    for (std::size_t i = 0; i < refs; ++i) {
      auto* var = dynamic_cast<Var*>(ctx.input_ref(static_cast<int>(i)).get());
      if (var == nullptr)
        return invalid_argument("Input " + std::to_string(i) + " of " + name() +
                                " is not a variable");
      vars.push_back(var);
    }
    std::vector<Tensor> scalars(scalar_inputs.size());
    for (std::size_t k = 0; k < scalar_inputs.size(); ++k) {
      ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, scalar_inputs[k].first, &scalars[k]));
      if (scalars[k].rank() != 0)
        return invalid_argument(std::string(scalar_inputs[k].second) +
                                " is not a scalar: " + scalars[k].shape().to_string());
    }
    Tensor grad;
    ACTORFLOW_RETURN_IF_ERROR(device_input(ctx, g, grad_input, &grad));
    ACTORFLOW_RETURN_IF_ERROR(update_together(
        vars, [&](std::vector<Tensor*>& values) { return update(g, values, scalars, grad); }));
    ctx.set_output(0, ctx.input(0));
    return {};
  }

 private:
  Status update(GpuDeviceContext& g, std::vector<Tensor*>& values,
                const std::vector<Tensor>& scalars, const Tensor& grad) {
    // The names TensorFlow gives the reference inputs in its error messages.
    static const char* const slot_names[] = {
        "var",
        Kind == ApplyKind::momentum || Kind == ApplyKind::adagrad ? "accum"
        : Kind == ApplyKind::rms_prop                             ? "ms"
        : Kind == ApplyKind::centered_rms_prop                    ? "mg"
                                                                  : "m",
        Kind == ApplyKind::rms_prop            ? "mom"
        : Kind == ApplyKind::centered_rms_prop ? "ms"
                                               : "v",
        "mom"};
    const Shape& shape = values[0]->shape();
    for (std::size_t i = 1; i < values.size(); ++i)
      if (values[i]->shape() != shape)
        return invalid_argument(std::string("var and ") + slot_names[i] +
                                " do not have the same shape" + shape.to_string() + " " +
                                values[i]->shape().to_string());
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
      ACTORFLOW_RETURN_IF_ERROR(
          launch(launch_apply_gradient_descent(t, old[0].raw_data(), scalars[0].raw_data(),
                                               grad.raw_data(), fresh[0].raw_data(), n, g.stream()),
                 "apply_gradient_descent kernel"));
    } else if constexpr (Kind == ApplyKind::momentum) {
      ACTORFLOW_RETURN_IF_ERROR(launch(
          launch_apply_momentum(t, old[0].raw_data(), old[1].raw_data(), scalars[0].raw_data(),
                                grad.raw_data(), scalars[1].raw_data(), fresh[0].raw_data(),
                                fresh[1].raw_data(), n, use_nesterov_, g.stream()),
          "apply_momentum kernel"));
    } else if constexpr (Kind == ApplyKind::adagrad) {
      ACTORFLOW_RETURN_IF_ERROR(
          launch(launch_apply_adagrad(t, old[0].raw_data(), old[1].raw_data(),
                                      scalars[0].raw_data(), grad.raw_data(), fresh[0].raw_data(),
                                      fresh[1].raw_data(), n, update_slots_, g.stream()),
                 "apply_adagrad kernel"));
    } else if constexpr (Kind == ApplyKind::rms_prop || Kind == ApplyKind::centered_rms_prop) {
      const RmsPropScalars s{scalars[0].raw_data(), scalars[1].raw_data(), scalars[2].raw_data(),
                             scalars[3].raw_data()};
      constexpr bool centered = Kind == ApplyKind::centered_rms_prop;
      const std::size_t ms = centered ? 2 : 1, mom = centered ? 3 : 2;
      ACTORFLOW_RETURN_IF_ERROR(launch(
          launch_apply_rms_prop(t, old[0].raw_data(), centered ? old[1].raw_data() : nullptr,
                                old[ms].raw_data(), old[mom].raw_data(), s, grad.raw_data(),
                                fresh[0].raw_data(), centered ? fresh[1].raw_data() : nullptr,
                                fresh[ms].raw_data(), fresh[mom].raw_data(), n, g.stream()),
          "apply_rms_prop kernel"));
    } else {
      const AdamScalars s{scalars[0].raw_data(), scalars[1].raw_data(), scalars[2].raw_data(),
                          scalars[3].raw_data(), scalars[4].raw_data(), scalars[5].raw_data()};
      ACTORFLOW_RETURN_IF_ERROR(
          launch(launch_apply_adam(t, old[0].raw_data(), old[1].raw_data(), old[2].raw_data(), s,
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

}  // namespace

void register_gpu_training_kernels(KernelRegistry& r) {
  const std::vector<DType>& float_or_double = kFloatOrDouble;
  add<GpuApplyOp<ApplyKind::gradient_descent>>(r, "ApplyGradientDescent", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::momentum>>(r, "ApplyMomentum", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::adagrad>>(r, "ApplyAdagrad", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::rms_prop>>(r, "ApplyRMSProp", {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::centered_rms_prop>>(r, "ApplyCenteredRMSProp",
                                                {{"T", float_or_double}});
  add<GpuApplyOp<ApplyKind::adam>>(r, "ApplyAdam", {{"T", float_or_double}});
}

}  // namespace af::gpu
