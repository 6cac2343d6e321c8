// The optional ops (OptionalFromValue, OptionalNone, OptionalHasValue, OptionalGetValue) and
// ZerosLike and AddN of variant tensors (tensor lists, optionals): CPU kernels, as
// TensorFlow's optional_ops.cc and its variant ZEROS_LIKE / ADD ops. Definitions:
// ops/src/defs/optional_ops.cpp (ZerosLike and AddN: transform_shape_ops.cpp,
// cwise_aggregate_ops.cpp).
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "variant_values.hpp"

namespace af {

namespace {

using detail::OptionalValue;
using detail::StatusKernel;

// Input 0 as an optional (TensorFlow's messages name the op).
Status input_optional(const OpKernelContext& ctx, const OptionalValue** out) {
  const Tensor& t = ctx.input(0);
  const std::string what = "Input to " + ctx.def().op + " must be a";
  if (t.dtype() != DType::variant || t.rank() != 0)
    return invalid_argument(what + " scalar tensor containing an OptionalVariant object.");
  *out = t.data<Variant>()[0].get<OptionalValue>();
  if (*out == nullptr) return invalid_argument(what + "n OptionalVariant object.");
  return {};
}

class OptionalFromValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    auto value = std::make_shared<OptionalValue>();
    value->has_value = true;
    for (int i = 0; i < ctx.num_inputs(); ++i) value->components.push_back(ctx.input(i));
    ctx.set_output(0, variant_scalar(std::move(value)));
  }
};

class OptionalNoneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    ctx.set_output(0, variant_scalar(std::make_shared<OptionalValue>()));
  }
};

class OptionalHasValueOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  Status run(OpKernelContext& ctx) override {
    const OptionalValue* o = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(input_optional(ctx, &o));
    ctx.set_output(0, Tensor(o->has_value));
    return {};
  }
};

class OptionalGetValueOp : public StatusKernel {
 public:
  OptionalGetValueOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("output_types", &types_);
    if (s->ok()) *s = c.get_attr("output_shapes", &shapes_);
  }
  Status run(OpKernelContext& ctx) override {
    const OptionalValue* o = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(input_optional(ctx, &o));
    if (!o->has_value) return invalid_argument("The given optional does not have a value.");
    const std::string mismatch = "The given optional does not match the expected ";
    if (o->components.size() != types_.size())
      return invalid_argument(mismatch +
                              "number of components. Expected: " + std::to_string(types_.size()) +
                              ". Actual: " + std::to_string(o->components.size()) + ".");
    for (std::size_t i = 0; i < types_.size(); ++i) {
      const Tensor& t = o->components[i];
      const std::string at = "component " + std::to_string(i) + ". Expected: ";
      if (t.dtype() != types_[i])
        return invalid_argument(mismatch + "type for " + at +
                                std::string(data_type_string(types_[i])) +
                                ". Actual: " + std::string(data_type_string(t.dtype())) + ".");
      if (i < shapes_.size() && !shapes_[i].is_compatible_with(PartialShape(t.shape())))
        return invalid_argument(mismatch + "shape for " + at +
                                detail::shape_debug_string(shapes_[i]) +
                                ". Actual: " + t.shape().to_string() + ".");
      ctx.set_output(static_cast<int>(i), t);
    }
    return {};
  }

 private:
  std::vector<DType> types_;
  std::vector<PartialShape> shapes_;
};

// ZerosLike of a variant tensor: each element's value's zeros (TensorFlow's
// ZEROS_LIKE_VARIANT_UNARY_OP).
class VariantZerosLikeOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  Status run(OpKernelContext& ctx) override {
    try {
      ctx.set_output(0, detail::zeros_like_tensor(ctx.input(0)));
    } catch (const Error& e) {
      return e.status();
    }
    return {};
  }
};

// AddN of variant tensors: the element-wise sum through the values' `add` (TensorFlow's
// ADD_VARIANT_BINARY_OP), as gradients of lists and optionals are aggregated.
class VariantAddNOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  Status run(OpKernelContext& ctx) override {
    try {
      Tensor sum = ctx.input(0);
      for (int i = 1; i < ctx.num_inputs(); ++i) sum = detail::add_tensors(sum, ctx.input(i));
      ctx.set_output(0, std::move(sum));
    } catch (const Error& e) {
      return e.status();
    }
    return {};
  }
};

}  // namespace

namespace detail {

void register_variant_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<OptionalFromValueOp>("OptionalFromValue", "CPU"));
  r.add(make_kernel_def<OptionalNoneOp>("OptionalNone", "CPU"));
  r.add(make_kernel_def<OptionalHasValueOp>("OptionalHasValue", "CPU"));
  r.add(make_kernel_def<OptionalGetValueOp>("OptionalGetValue", "CPU"));
  r.add(make_kernel_def<VariantZerosLikeOp>("ZerosLike", "CPU", {{"T", {DType::variant}}}));
  r.add(make_kernel_def<VariantAddNOp>("AddN", "CPU", {{"T", {DType::variant}}}));
}

}  // namespace detail

}  // namespace af
