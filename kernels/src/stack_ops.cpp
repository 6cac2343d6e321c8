// StackV2, StackPushV2, StackPopV2, StackCloseV2: CPU kernels, as TensorFlow's stack_ops.cc.
// A StackV2 makes a new stack each time it runs (once per step, outside the loops that use
// it), whose handle the loops take through constant Enters: the forward loop pushes a value
// per iteration, the gradient loop pops them in reverse. Definitions: ops/src/defs/stack_ops.cpp.
#include <atomic>
#include <mutex>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

/// A stack of tensors (TensorFlow's Stack resource); thread-safe.
class Stack final : public ResourceBase {
 public:
  Stack(std::string name, DType elem_type, std::int64_t max_size)
      : name_(std::move(name)), elem_type_(elem_type), max_size_(max_size) {}

  std::string debug_string() const override { return "Stack[" + name_ + "]"; }

  Status push(const Tensor& value) {
    std::lock_guard<std::mutex> guard(mu_);
    if (closed_) return invalid_argument(debug_string() + " has already been closed.");
    if (value.dtype() != elem_type_)
      return invalid_argument(debug_string() + " holds " +
                              std::string(data_type_string(elem_type_)) + ", not " +
                              std::string(data_type_string(value.dtype())));
    if (max_size_ >= 0 && static_cast<std::int64_t>(items_.size()) >= max_size_)
      return invalid_argument(debug_string() + " overflowed its max_size (" +
                              std::to_string(max_size_) + ")");
    items_.push_back(value);
    return {};
  }

  Status pop(Tensor* out) {
    std::lock_guard<std::mutex> guard(mu_);
    if (closed_) return invalid_argument(debug_string() + " has already been closed.");
    if (items_.empty()) return invalid_argument(debug_string() + " is empty.");
    *out = std::move(items_.back());
    items_.pop_back();
    return {};
  }

  void close() {
    std::lock_guard<std::mutex> guard(mu_);
    closed_ = true;
    items_.clear();
  }

 private:
  const std::string name_;
  const DType elem_type_;
  const std::int64_t max_size_;
  std::mutex mu_;
  std::vector<Tensor> items_;
  bool closed_ = false;
};

Stack* stack_of(OpKernelContext& ctx) {
  auto* s = dynamic_cast<Stack*>(
      ctx.input(0).dtype() == DType::resource ? ctx.input(0).resource().get() : nullptr);
  if (s == nullptr) ctx.fail(invalid_argument("Input 0 of " + ctx.def().name + " is not a stack"));
  return s;
}

class StackOp : public OpKernel {
 public:
  StackOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("elem_type", &elem_type_);
    c.get_attr("stack_name", &stack_name_);
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& max_size = ctx.input(0);
    if (max_size.dtype() != DType::int32 || max_size.rank() != 0)
      return ctx.fail(invalid_argument("max_size must be an int32 scalar, got shape " +
                                       max_size.shape().to_string()));
    // As TensorFlow, each stack's name is made unique by a counter.
    static std::atomic<std::int64_t> counter{0};
    const std::string unique =
        (stack_name_.empty() ? name() : stack_name_) + "_" + std::to_string(counter.fetch_add(1));
    ctx.set_output(0, Tensor::from_resource(std::make_shared<Stack>(
                          unique, elem_type_, max_size.scalar<std::int32_t>())));
  }

 private:
  DType elem_type_ = DType::invalid;
  std::string stack_name_;
};

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    Stack* stack = stack_of(ctx);
    if (stack == nullptr) return;
    if (Status s = stack->push(ctx.input(1)); !s.ok()) return ctx.fail(s);
    ctx.set_output(0, ctx.input(1));
  }
};

class StackPopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    Stack* stack = stack_of(ctx);
    if (stack == nullptr) return;
    Tensor value;
    if (Status s = stack->pop(&value); !s.ok()) return ctx.fail(s);
    ctx.set_output(0, std::move(value));
  }
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    if (Stack* stack = stack_of(ctx)) stack->close();
  }
};

}  // namespace

namespace detail {

void register_stack_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<StackOp>("StackV2", "CPU"));
  r.add(make_kernel_def<StackPushOp>("StackPushV2", "CPU"));
  r.add(make_kernel_def<StackPopOp>("StackPopV2", "CPU"));
  r.add(make_kernel_def<StackCloseOp>("StackCloseV2", "CPU"));
}

}  // namespace detail

}  // namespace af
