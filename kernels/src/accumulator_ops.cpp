// Gradient accumulators (TensorFlow's conditional_accumulator_base.cc,
// typed_conditional_accumulator_base.h, conditional_accumulator.h and
// conditional_accumulator_base_op.h): the protocol both kinds share (accumulator.hpp), the
// dense accumulator, and the CPU kernels of ConditionalAccumulator, AccumulatorApplyGradient,
// AccumulatorTakeGradient, AccumulatorSetGlobalStep and AccumulatorNumAccumulated (the last
// two serve sparse accumulators too) and of their resource-handle forms
// (ResourceConditionalAccumulator, ResourceAccumulatorApplyGradient, ...). The sparse accumulator
// is in sparse_accumulator_ops.cpp; the definitions (shape functions) and the graph API of
// data_flow_ops.hpp are in ops/src/defs/accumulator_ops.cpp.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "accumulator.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/logging.hpp"
#include "actorflow/ops/stall_watch.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace detail {

// -- the protocol both kinds share --------------------------------------------------------------

namespace {
std::atomic<std::uint64_t> g_next_take_id{1};
std::atomic<std::int64_t> g_unique_accumulator_ids{0};
}  // namespace

std::uint64_t next_take_id() { return g_next_take_id.fetch_add(1); }
std::int64_t next_accumulator_number() { return g_unique_accumulator_ids.fetch_add(1); }

std::string AccumulatorBase::debug_string() const {
  std::lock_guard<std::mutex> guard(mu_);
  return "Accumulator " + name_ + " (" + std::string(dtype_name(dtype_)) + ", " +
         shape_.to_string() + ", step " + std::to_string(global_step_) + ", " +
         std::to_string(counter_) + " in)";
}

Status AccumulatorBase::apply(std::int64_t local_step, const std::string& replica,
                              const std::function<Status()>& add) {
  {
    std::lock_guard<std::mutex> guard(mu_);
    auto& last = replicas_[replica];
    last = std::max(last, local_step);
    if (local_step >= global_step_) {
      ACTORFLOW_RETURN_IF_ERROR(add());
      ++counter_;
    }
  }
  flush();
  return {};
}

void AccumulatorBase::take(std::int32_t n, std::uint64_t id, Done done) {
  {
    std::lock_guard<std::mutex> guard(mu_);
    attempts_.push_back({id, n, std::move(done)});
  }
  flush();
}

void AccumulatorBase::cancel(std::uint64_t id, const Status& why) {
  Done done;
  {
    std::lock_guard<std::mutex> guard(mu_);
    for (auto it = attempts_.begin(); it != attempts_.end(); ++it) {
      if (it->id != id) continue;
      done = std::move(it->done);
      attempts_.erase(it);
      break;
    }
  }
  if (done) done(why);
  flush();
}

void AccumulatorBase::set_global_step(std::int64_t step) {
  std::lock_guard<std::mutex> guard(mu_);
  if (step < global_step_)
    log_info("Attempt to set current_global_step_ to smaller value: current_global_step_ = " +
             std::to_string(global_step_) + " >= " + std::to_string(step) +
             " = new_global_step (accumulator " + name_ + ").");
  global_step_ = step;
}

std::int32_t AccumulatorBase::num_accumulated() const {
  std::lock_guard<std::mutex> guard(mu_);
  return static_cast<std::int32_t>(counter_);
}

std::int64_t AccumulatorBase::global_step() const {
  std::lock_guard<std::mutex> guard(mu_);
  return global_step_;
}

std::string AccumulatorBase::missing(std::int32_t required) const {
  std::lock_guard<std::mutex> guard(mu_);
  std::string out = std::to_string(counter_) + " of " + std::to_string(required) +
                    " gradients for global step " + std::to_string(global_step_);
  std::string behind;
  for (const auto& [replica, last] : replicas_)
    if (last < global_step_)
      behind += (behind.empty() ? "" : ", ") + (replica.empty() ? "this task" : replica);
  return out + (behind.empty() ? "; no replica that applied before is behind"
                               : "; none yet from " + behind);
}

void AccumulatorBase::flush() {
  std::vector<std::pair<Done, std::vector<Tensor>>> ready;
  {
    std::lock_guard<std::mutex> guard(mu_);
    while (!attempts_.empty() && counter_ >= attempts_.front().required) {
      ++global_step_;  // TakeGradLockedHelper: the take implicitly moves the step on
      ready.emplace_back(std::move(attempts_.front().done), take_sum());
      counter_ = 0;
      attempts_.pop_front();
    }
  }
  for (auto& [done, value] : ready) done(std::move(value));
}

std::optional<std::int64_t> step_input(OpKernelContext& ctx, int i, const char* what) {
  const Tensor& step = ctx.input(i);
  if (!step.shape().is_scalar()) {
    ctx.fail(invalid_argument(std::string("Argument ") + what + " must be scalar, but had shape " +
                              step.shape().to_string()));
    return std::nullopt;
  }
  return step.scalar<std::int64_t>();
}

AccumulatorOpBase::AccumulatorOpBase(OpKernelConstruction& c, Status* s, Make make)
    : OpKernel(c), make_(std::move(make)) {
  *s = c.get_attr("dtype", &dtype_);
  if (!s->ok()) return;
  c.get_attr("shape", &shape_);
  c.get_attr("container", &container_);
  c.get_attr("shared_name", &shared_name_);
  std::string reduction = "MEAN";
  c.get_attr("reduction_type", &reduction);
  mean_ = reduction == "MEAN";
}

void AccumulatorOpBase::compute(OpKernelContext& ctx) {
  std::lock_guard<std::mutex> guard(mu_);
  if (!acc_) {
    if (!ctx.resource_mgr) return ctx.fail(internal("no resource manager for " + name()));
    // As ResourceOpKernel: an unshared accumulator gets a name of its own.
    const std::string key = shared_name_.empty()
                                ? "_" + std::to_string(next_accumulator_number()) + "_" + name()
                                : shared_name_;
    std::shared_ptr<AccumulatorBase> acc;
    Status s = ctx.resource_mgr->lookup_or_create<AccumulatorBase>(
        container_, key, &acc, [&](std::shared_ptr<AccumulatorBase>* out) -> Status {
          *out = make_(key, dtype_, shape_, mean_);
          return {};
        });
    if (!s.ok()) return ctx.fail(s);
    // A shared name already taken by the other kind of accumulator.
    const std::shared_ptr<AccumulatorBase> probe = make_(key, dtype_, shape_, mean_);
    if (typeid(*acc) != typeid(*probe))
      return ctx.fail(invalid_argument("Shared accumulator '" + key + "' is a " +
                                       acc->debug_string() + ", not what " + name() + " (" +
                                       type() + ") makes"));
    if (acc->dtype() != dtype_)
      return ctx.fail(invalid_argument(
          "Shared accumulator '" + key + "' has dtype " + std::string(dtype_name(acc->dtype())) +
          " but requested dtype was " + std::string(dtype_name(dtype_))));
    acc_ = std::move(acc);
  }
  ctx.set_output(0, Tensor::from_resource(acc_));
}

namespace {

/// Waits for the take `n` of `acc`; the kernel resumes in its device actor.
Async<StatusOr<std::vector<Tensor>>> take_from(StepServices* step,
                                               std::shared_ptr<AccumulatorBase> acc,
                                               std::int32_t n) {
  return {[step, acc = std::move(acc), n](Completion<StatusOr<std::vector<Tensor>>> c) {
    auto post = step->poster();
    auto token = std::make_shared<std::uint64_t>(0);
    const std::uint64_t id = next_take_id();
    acc->take(n, id, [post, c, step, token](StatusOr<std::vector<Tensor>> r) {
      post([c, step, token, r = std::move(r)]() mutable {
        if (*token) step->remove_cancel_hook(*token);
        c(std::move(r));
      });
    });
    *token = step->add_cancel_hook([acc, id](const Status& why) {
      acc->cancel(id, why.code() == Code::deadline_exceeded
                          ? why
                          : cancelled("TakeGrad operation was cancelled"));
    });
  }};
}

}  // namespace

AsyncKernelTask take_gradient(OpKernelContext& ctx, std::shared_ptr<AccumulatorBase> acc) {
  if (!acc) co_return;  // the kernel failed already
  const Tensor& n = ctx.input(1);
  if (!n.shape().is_scalar()) {
    ctx.fail(invalid_argument("Argument num_required must be scalar, but had shape " +
                              n.shape().to_string()));
    co_return;
  }
  const std::int32_t required = n.scalar<std::int32_t>();
  if (required <= 0) {
    ctx.fail(invalid_argument("Argument num_required must be positive, but was " +
                              std::to_string(required)));
    co_return;
  }
  if (!ctx.step) {
    ctx.fail(internal(ctx.node_name() + " runs only inside a step"));
    co_return;
  }
  // A take that waits long is what a stall report names the missing replicas of.
  StallWatchScope watch(
      StallingWait{"take", acc->name(), std::string(ctx.device_name), ctx.step->step_id(),
                   acc->global_step(), [weak = std::weak_ptr<AccumulatorBase>(acc), required] {
                     auto a = weak.lock();
                     return a ? a->missing(required) : std::string("(accumulator gone)");
                   }});
  StatusOr<std::vector<Tensor>> r = co_await take_from(ctx.step, acc, required);
  watch.end();
  if (!r.ok()) {
    ctx.fail(r.status());
    co_return;
  }
  std::vector<Tensor> outputs = std::move(r).value();
  for (std::size_t i = 0; i < outputs.size(); ++i)
    ctx.set_output(static_cast<int>(i), std::move(outputs[i]));
}

// -- the dense accumulator ------------------------------------------------------------------------

namespace {

/// TensorFlow's ConditionalAccumulator<CPUDevice, T>, any float dtype.
class Accumulator final : public AccumulatorBase {
 public:
  using AccumulatorBase::AccumulatorBase;

  /// Validates and adds `grad` (under the base's lock).
  Status add(const Tensor& grad) {
    ACTORFLOW_RETURN_IF_ERROR(validate_shape(grad.shape()));
    if (count() == 0) {
      sum_ = grad.deep_copy();
    } else {
      add_into(sum_, grad);
    }
    return {};
  }

 protected:
  std::vector<Tensor> take_sum() override {
    if (mean()) divide(sum_, count());
    std::vector<Tensor> out{std::move(sum_)};
    sum_ = Tensor();
    return out;
  }

 private:
  Status validate_shape(const Shape& s) const {
    if (count() > 0 && sum_.shape() != s)
      return invalid_argument("Shape mismatch: expected " + sum_.shape().to_string() + ", got " +
                              s.to_string());
    if (!declared_shape().is_compatible_with(PartialShape(s)))
      return invalid_argument("Shape mismatch: expected " +
                              inference_shape_string(declared_shape()) + ", got " + s.to_string());
    return {};
  }
  /// Element-wise `sum = op(sum, g)` (or with a scalar) in the gradients' dtype; bfloat16
  /// computes in float32 and rounds back, as TensorFlow's Eigen kernels do.
  template <class T, class Op>
  static void update_typed(Tensor& sum, const Tensor* g, double scalar, Op op) {
    using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
    T* out = sum.data<T>();
    const T* in = g ? g->data<T>() : nullptr;
    for (std::int64_t i = 0, n = sum.num_elements(); i < n; ++i)
      out[i] = T(op(Wide(out[i]), in ? Wide(in[i]) : static_cast<Wide>(scalar)));
  }
  template <class Op>
  void update(Tensor& sum, const Tensor* g, double scalar, Op op) const {
    switch (dtype()) {
      case DType::float64:
        return update_typed<double>(sum, g, scalar, op);
      case DType::bfloat16:
        return update_typed<bfloat16_t>(sum, g, scalar, op);
      default:
        return update_typed<float>(sum, g, scalar, op);
    }
  }
  void add_into(Tensor& sum, const Tensor& g) const {
    update(sum, &g, 0, [](auto a, auto b) { return a + b; });
  }
  void divide(Tensor& sum, std::int64_t count) const {
    update(sum, nullptr, static_cast<double>(count), [](auto a, auto b) { return a / b; });
  }

  Tensor sum_;
};

class AccumulatorOp : public AccumulatorOpBase {
 public:
  AccumulatorOp(OpKernelConstruction& c, Status* s)
      : AccumulatorOpBase(c, s,
                          [](const std::string& key, DType dtype, const PartialShape& shape,
                             bool mean) -> std::shared_ptr<AccumulatorBase> {
                            return std::make_shared<Accumulator>(key, dtype, shape, mean);
                          }) {}
};

class ApplyGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    auto acc = accumulator_input<Accumulator>(ctx, "ConditionalAccumulator");
    if (!acc) return;
    const auto step = step_input(ctx, 1, "local_step");
    if (!step) return;
    const Tensor& grad = ctx.input(2);
    if (grad.dtype() != acc->dtype())
      return ctx.fail(invalid_argument(
          "Gradient of " + name() + " has dtype " + std::string(dtype_name(grad.dtype())) +
          " but the accumulator holds " + std::string(dtype_name(acc->dtype()))));
    Status s = acc->apply(*step, ctx.step ? ctx.step->client_task() : std::string(),
                          [&] { return acc->add(grad); });
    if (!s.ok()) ctx.fail(s);
  }
};

// The two below serve both kinds (TensorFlow's take a ConditionalAccumulatorBase).
class SetGlobalStepOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    auto acc = accumulator_input<AccumulatorBase>(ctx, "ConditionalAccumulator");
    if (!acc) return;
    if (const auto step = step_input(ctx, 1, "new_global_step")) acc->set_global_step(*step);
  }
};

class NumAccumulatedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    auto acc = accumulator_input<AccumulatorBase>(ctx, "ConditionalAccumulator");
    if (!acc) return;
    ctx.set_output(0, Tensor(acc->num_accumulated()));
  }
};

class TakeGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    return take_gradient(ctx, accumulator_input<Accumulator>(ctx, "ConditionalAccumulator"));
  }
};

}  // namespace

void register_accumulator_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<AccumulatorOp>("ConditionalAccumulator", "CPU"));
  r.add(make_kernel_def<ApplyGradientOp>("AccumulatorApplyGradient", "CPU"));
  r.add(make_kernel_def<TakeGradientOp>("AccumulatorTakeGradient", "CPU"));
  r.add(make_kernel_def<SetGlobalStepOp>("AccumulatorSetGlobalStep", "CPU"));
  r.add(make_kernel_def<NumAccumulatedOp>("AccumulatorNumAccumulated", "CPU"));
  r.add(make_kernel_def<AccumulatorOp>("ResourceConditionalAccumulator", "CPU"));
  r.add(make_kernel_def<ApplyGradientOp>("ResourceAccumulatorApplyGradient", "CPU"));
  r.add(make_kernel_def<TakeGradientOp>("ResourceAccumulatorTakeGradient", "CPU"));
  r.add(make_kernel_def<SetGlobalStepOp>("ResourceAccumulatorSetGlobalStep", "CPU"));
  r.add(make_kernel_def<NumAccumulatedOp>("ResourceAccumulatorNumAccumulated", "CPU"));
}

}  // namespace detail

}  // namespace af
