// What the dense and the sparse gradient accumulators share (TensorFlow's
// conditional_accumulator_base.h/.cc): the global step, the count of gradients in, stale
// gradients dropped, and the takes. A take that finds too few gradients waits as an attempt
// in a FIFO, retried after every apply; a waiting take holds no thread (its kernel is
// suspended in its device actor and resumed there with the result, or by the step's cancel
// hook). accumulator_ops.cpp holds the dense accumulator and the kernels both kinds share;
// sparse_accumulator_ops.cpp the sparse one.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"

namespace af::detail {

/// One accumulator: the protocol of ConditionalAccumulatorBase. Subclasses keep the sum.
class AccumulatorBase : public ResourceBase {
 public:
  /// What a take gets: the outputs of its kernel, or the error that ended it.
  using Done = std::function<void(StatusOr<std::vector<Tensor>>)>;

  AccumulatorBase(std::string name, DType dtype, PartialShape shape, bool mean)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), mean_(mean) {}

  std::string debug_string() const override;
  /// The gradients' dtype.
  DType dtype() const noexcept { return dtype_; }
  /// The shared name.
  const std::string& name() const noexcept { return name_; }

  /// TryApplyGrad: unless `local_step` is stale, runs `add` under the lock (it validates
  /// and adds the gradient; `count()` is how many are in before it) and counts it; then
  /// retries the takes. `replica` (the applying step's client task) is remembered for stall
  /// reports.
  Status apply(std::int64_t local_step, const std::string& replica,
               const std::function<Status()>& add);

  /// TryTakeGrad: queues an attempt for `n` (> 0) gradients; `done` runs once, from the
  /// thread that completes or cancels it (never under the accumulator's lock).
  void take(std::int32_t n, std::uint64_t id, Done done);

  /// Ends the waiting attempt `id` with `why` (nothing when it completed already).
  void cancel(std::uint64_t id, const Status& why);

  /// SetGlobalStep (a smaller value is logged, as TensorFlow does).
  void set_global_step(std::int64_t step);
  /// The number of gradients in for the current step.
  std::int32_t num_accumulated() const;
  /// The current global step.
  std::int64_t global_step() const;

  /// What a take of `required` gradients waits for: how many are in for the current step,
  /// and the replicas that applied before but not yet for it (a stall report's words).
  std::string missing(std::int32_t required) const;

 protected:
  /// The gradients counted so far (under the lock).
  std::int64_t count() const noexcept { return counter_; }
  /// The declared shape and reduction.
  const PartialShape& declared_shape() const noexcept { return shape_; }
  bool mean() const noexcept { return mean_; }
  /// Under the lock, with `count()` gradients in: the take's outputs (averaged when `mean()`);
  /// the sum is then dropped.
  virtual std::vector<Tensor> take_sum() = 0;

 private:
  struct Attempt {
    std::uint64_t id;
    std::int32_t required;
    Done done;
  };
  /// FlushUnlocked: completes the front attempts while enough gradients are in.
  void flush();

  mutable std::mutex mu_;
  std::string name_;
  DType dtype_;
  PartialShape shape_;
  bool mean_;
  std::int64_t counter_ = 0;
  std::int64_t global_step_ = 0;
  std::deque<Attempt> attempts_;
  std::map<std::string, std::int64_t> replicas_;  ///< the last local step each replica applied at
};

/// A fresh id for a take (its cancel hook's key).
std::uint64_t next_take_id();
/// A fresh number for an accumulator without a shared name (ResourceOpKernel's names).
std::int64_t next_accumulator_number();

/// Input 0 of the kernel as an accumulator of type `A` (failing the kernel otherwise).
template <class A>
std::shared_ptr<A> accumulator_input(OpKernelContext& ctx, const char* kind) {
  auto acc = std::dynamic_pointer_cast<A>(ctx.input(0).resource());
  if (!acc)
    ctx.fail(invalid_argument("Input 0 of " + ctx.node_name() + " is not a " + kind + " handle"));
  return acc;
}

/// Input `i`, an int64 scalar named `what` in TensorFlow's message, or nullopt (failed).
std::optional<std::int64_t> step_input(OpKernelContext& ctx, int i, const char* what);

/// The take kernel both kinds share: checks num_required (input 1), waits for the take in
/// the device actor under a stall watch, and sets the outputs. Does nothing for a null
/// `acc` (`accumulator_input` failed the kernel).
AsyncKernelTask take_gradient(OpKernelContext& ctx, std::shared_ptr<AccumulatorBase> acc);

/// The accumulator op both kinds share: finds or creates the accumulator named by the
/// attrs `shared_name`/`container` (a fresh name when unshared) and outputs its handle.
/// `make(key, dtype, shape, mean)` creates it.
class AccumulatorOpBase : public OpKernel {
 public:
  using Make = std::function<std::shared_ptr<AccumulatorBase>(
      const std::string& key, DType dtype, const PartialShape& shape, bool mean)>;
  AccumulatorOpBase(OpKernelConstruction& c, Status* s, Make make);
  void compute(OpKernelContext& ctx) override;

 private:
  Make make_;
  DType dtype_ = DType::invalid;
  PartialShape shape_;
  std::string container_, shared_name_;
  bool mean_ = true;
  std::mutex mu_;
  std::shared_ptr<AccumulatorBase> acc_;
};

/// Registers the sparse accumulator's kernels (sparse_accumulator_ops.cpp).
void register_sparse_accumulator_kernels(KernelRegistry& r);

}  // namespace af::detail
