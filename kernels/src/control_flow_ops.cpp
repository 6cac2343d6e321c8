// Switch, RefSwitch, Merge, RefMerge, ControlTrigger, and the while loop's Enter, Exit,
// NextIteration (and their Ref forms) and LoopCond: CPU kernels. Their definitions are
// in ops/src/defs/control_flow_ops.cpp. Deadness is the executor's: a Switch marks its
// untaken output dead (Tensor::dead()); a Merge runs with only its first live input set
// (partition_execution.cpp), which it forwards with that input's index. The loop ops
// forward their input: where it goes (a frame, an iteration) is the executor's
// (loop_frames.cpp).
#include "actorflow/ops/kernel.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

const std::vector<DType> kAllTypes = {
    DType::float32, DType::float64,   DType::int32,     DType::int64,    DType::uint8,
    DType::boolean, DType::string,    DType::bfloat16,  DType::resource, DType::variant,
    DType::float16, DType::int8,      DType::int16,     DType::uint16,   DType::uint32,
    DType::uint64,  DType::complex64, DType::complex128};

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    const Tensor& pred = ctx.input(1);
    if (pred.dtype() != DType::boolean || pred.rank() != 0)
      return ctx.fail(invalid_argument("The second input must be a scalar, but it has shape " +
                                       pred.shape().to_string()));
    const int taken = pred.data<bool>()[0] ? 1 : 0;
    ctx.set_output(taken, ctx.input(0));
    ctx.set_output(1 - taken, Tensor::dead());
  }
};

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      if (!in.is_initialized()) continue;  // not the live input
      ctx.set_output(0, in);
      ctx.set_output(1, Tensor(static_cast<std::int32_t>(i)));
      return;
    }
    ctx.fail(internal("Merge " + name() + " ran without a live input"));
  }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext&) override {}
};

// Enter, Exit, NextIteration, LoopCond: the input is the output.
class LoopForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

}  // namespace

namespace detail {

void register_control_flow_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SwitchOp>("Switch", "CPU", {{"T", kAllTypes}}));
  r.add(make_kernel_def<SwitchOp>("RefSwitch", "CPU", {{"T", kAllTypes}}));
  r.add(make_kernel_def<MergeOp>("Merge", "CPU", {{"T", kAllTypes}}));
  r.add(make_kernel_def<MergeOp>("RefMerge", "CPU", {{"T", kAllTypes}}));
  r.add(make_kernel_def<ControlTriggerOp>("ControlTrigger", "CPU"));
  for (const char* op :
       {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration"})
    r.add(make_kernel_def<LoopForwardOp>(op, "CPU", {{"T", kAllTypes}}));
  r.add(make_kernel_def<LoopForwardOp>("LoopCond", "CPU"));
}

}  // namespace detail

}  // namespace af
