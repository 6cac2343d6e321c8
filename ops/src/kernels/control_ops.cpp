// Const, Placeholder, Identity, NoOp, _Send, _Recv and _Delay: ops, shape functions,
// kernels and graph-building functions.
#include <chrono>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

const std::vector<DType> kAllTypes = {DType::float32, DType::float64,  DType::int32,
                                      DType::int64,   DType::uint8,    DType::boolean,
                                      DType::string,  DType::bfloat16, DType::resource};

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

Status infer_identity(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  // An identity of a resource handle still names the same variable (TF's handle data).
  if (c.input_types[0] == DType::resource) c.output_handle_shapes = {c.input_handle_shapes[0]};
  return {};
}

}  // namespace

namespace detail {

void register_control_ops(OpRegistry& r) {
  r.add({"Const", [](InferenceContext& c) -> Status {
           Tensor value;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("value", &value));
           c.add_output(value.dtype(), PartialShape(value.shape()));
           return {};
         }});
  r.add({"Placeholder", [](InferenceContext& c) -> Status {
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
           PartialShape s;
           c.get_attr("shape", &s);
           c.add_output(t, s);
           return {};
         }});
  r.add({"Identity", infer_identity});
  r.add({"NoOp", [](InferenceContext&) -> Status { return {}; }});
  r.add({"_Send", [](InferenceContext& c) { return c.expect_inputs(1); }, true});
  r.add({"_Recv",
         [](InferenceContext& c) -> Status {
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
           PartialShape s;
           c.get_attr("shape", &s);
           c.add_output(t, s);
           return {};
         },
         true});
  r.add({"_Delay", infer_identity, true});
}

void register_control_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<ConstOp>("Const", "CPU"));
  r.add(make_kernel_def<PlaceholderOp>("Placeholder", "CPU"));
  r.add(make_kernel_def<IdentityOp>("Identity", "CPU", {{"T", kAllTypes}}));
  r.add(make_kernel_def<NoOpKernel>("NoOp", "CPU"));
  r.add(make_kernel_def<SendOp>("_Send", "CPU"));
  r.add(make_kernel_def<RecvOp>("_Recv", "CPU"));
  r.add(make_kernel_def<DelayOp>("_Delay", "CPU"));
}

}  // namespace detail

Output identity(const Output& x, std::string_view name) {
  return x.graph()
      .create_op("Identity", {x}, {{"T", x.dtype()}}, name.empty() ? "Identity" : name)
      .output(0);
}

Output delay(const Output& x, std::chrono::microseconds d, std::string_view name) {
  return x.graph()
      .create_op("_Delay", {x},
                 {{"T", x.dtype()}, {"delay_us", static_cast<std::int64_t>(d.count())}},
                 name.empty() ? "Delay" : name)
      .output(0);
}

Output scalar_like(const Output& like, double value, std::string_view name) {
  Tensor t;
  switch (like.dtype()) {
    case DType::float64:
      t = Tensor(value);
      break;
    case DType::int32:
      t = Tensor(static_cast<std::int32_t>(value));
      break;
    case DType::int64:
      t = Tensor(static_cast<std::int64_t>(value));
      break;
    case DType::bfloat16:
      t = Tensor(bfloat16_t(static_cast<float>(value)));
      break;
    case DType::uint8: {
      t = Tensor(DType::uint8, Shape{});
      t.data<std::uint8_t>()[0] = static_cast<std::uint8_t>(value);
      break;
    }
    default:
      t = Tensor(static_cast<float>(value));
      break;
  }
  return like.graph().constant(t, name.empty() ? "Const" : name);
}

}  // namespace af
