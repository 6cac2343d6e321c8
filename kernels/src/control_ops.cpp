// Const, Placeholder, Identity, IdentityN, NoOp, _Send, _Recv and _Delay: CPU kernels. Their
// definitions (shape functions, builders) are in ops/src/defs/control_ops.cpp.
#include <chrono>

#include "actorflow/ops/kernel.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

const std::vector<DType> kAllTypes = {
    DType::float32, DType::float64,   DType::int32,     DType::int64,    DType::uint8,
    DType::boolean, DType::string,    DType::bfloat16,  DType::resource, DType::variant,
    DType::float16, DType::int8,      DType::int16,     DType::uint16,   DType::uint32,
    DType::uint64,  DType::complex64, DType::complex128};

// TensorFlow's TensorShape rendering in "You must feed" messages: "[?,3]".
std::string feed_shape_string(const PartialShape& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ",";
    out += s.dim(i) < 0 ? std::string("?") : std::to_string(s.dim(i));
  }
  return out + "]";
}

class ConstOp : public OpKernel {
 public:
  ConstOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("value", &value_); }
  void compute(OpKernelContext& ctx) override { ctx.set_output(0, value_); }

 private:
  Tensor value_;
};

class PlaceholderOp : public OpKernel {
 public:
  PlaceholderOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
    if (s->ok()) c.get_attr("shape", &shape_);
  }
  void compute(OpKernelContext& ctx) override {
    std::string msg = "You must feed a value for placeholder tensor '" + name() + "' with dtype " +
                      std::string(data_type_string(dtype_));
    if (shape_.rank_known()) msg += " and shape " + feed_shape_string(shape_);
    ctx.fail(invalid_argument(msg + "\n\t [[{{node " + name() + "}}]]"));
  }

 private:
  DType dtype_ = DType::invalid;
  PartialShape shape_;
};

class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override { ctx.set_output(0, ctx.input(0)); }
};

class IdentityNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
  }
};

class NoOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext&) override {}
};

class SendOp : public OpKernel {
 public:
  SendOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("key", &key_); }
  void compute(OpKernelContext& ctx) override {
    if (!ctx.step) return ctx.fail(internal("_Send without a rendezvous in " + name()));
    ctx.step->send(key_, ctx.input(0));
  }

 private:
  std::string key_;
};

// The asynchronous half of a cross-device edge: waits in the rendezvous without holding a
// thread; resumes in the device actor when the value (or the step's abort) arrives.
class RecvOp : public OpKernel {
 public:
  RecvOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("key", &key_); }
  void compute(OpKernelContext& ctx) override {
    ctx.fail(internal("_Recv is asynchronous: " + name()));
  }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    if (!ctx.step) {
      ctx.fail(internal("_Recv without a rendezvous in " + name()));
      co_return;
    }
    StatusOr<Tensor> value = co_await ctx.step->recv(key_);
    if (!value.ok()) {
      ctx.fail(value.status());
      co_return;
    }
    ctx.set_output(0, std::move(*value));
  }

 private:
  std::string key_;
};

class DelayOp : public OpKernel {
 public:
  DelayOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("delay_us", &delay_us_);
  }
  void compute(OpKernelContext& ctx) override {
    ctx.fail(internal("_Delay is asynchronous: " + name()));
  }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    if (!ctx.step) {
      ctx.fail(internal("_Delay outside a step: " + name()));
      co_return;
    }
    Status s = co_await ctx.step->sleep(std::chrono::microseconds(delay_us_));
    if (!s.ok()) {
      ctx.fail(s);
      co_return;
    }
    ctx.set_output(0, ctx.input(0));
  }

 private:
  std::int64_t delay_us_ = 0;
};

}  // namespace

namespace detail {

void register_control_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ConstOp>("Const", "CPU"));
  r.add(make_kernel_def<PlaceholderOp>("Placeholder", "CPU"));
  r.add(make_kernel_def<IdentityOp>("Identity", "CPU", {{"T", kAllTypes}}));
  r.add(make_kernel_def<IdentityNOp>("IdentityN", "CPU"));
  r.add(make_kernel_def<NoOpKernel>("NoOp", "CPU"));
  r.add(make_kernel_def<SendOp>("_Send", "CPU"));
  r.add(make_kernel_def<RecvOp>("_Recv", "CPU"));
  r.add(make_kernel_def<DelayOp>("_Delay", "CPU"));
}

}  // namespace detail

}  // namespace af
