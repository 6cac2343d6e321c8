// Reference variables (VariableV2, Assign, AssignAdd, AssignSub, IsVariableInitialized) and
// resource variables (VarHandleOp, ReadVariableOp, AssignVariableOp, Assign{Add,Sub}VariableOp,
// VarIsInitializedOp, ResourceGather, VariableShape, as tf.compat.v1 builds them in TensorFlow
// 2): CPU kernels. Both kinds
// keep their value in a `Var`; a resource handle is a resource tensor that the executor passes
// on without reading it. Their definitions (shape functions, builders) are in
// ops/src/defs/state_ops.cpp.
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"

namespace af {

namespace {

using detail::node_suffix;

// A variable holds any type of values (resources excluded).
const std::vector<DType>& kVariableTypes = detail::kValueTypes;
// AssignAdd and AssignSub (and their resource forms): every number, as TensorFlow's.
const std::vector<DType> kNumberTypes = detail::dtypes_of(detail::NumberTypes{});

// VariableV2 (Resource = false): a reference to the variable `shared_name` (default: the
// node's name), made on first use; a second VariableV2 of another dtype on the same resource
// fails. VarHandleOp (Resource = true): the handle of the resource variable `shared_name`,
// made on first use and uninitialized until an AssignVariableOp; any dtype may look it up
// (a ReadVariableOp of the wrong one fails).
template <bool Resource>
class VariableOp : public OpKernel {
 public:
  VariableOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
    c.get_attr("shape", &shape_);
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
    if (shared_name_.empty()) shared_name_ = c.def.name;
  }
  void compute(OpKernelContext& ctx) override {
    if (!ctx.resource_mgr) return ctx.fail(internal("no resource manager for " + name()));
    const std::string container =
        container_.empty() ? ctx.resource_mgr->default_container() : container_;
    std::shared_ptr<Var> var;
    Status s = ctx.resource_mgr->lookup_or_create<Var>(
        container_, shared_name_, &var, [&](std::shared_ptr<Var>* out) -> Status {
          *out = Resource ? Var::resource(shared_name_, container, dtype_, shape_)
                          : std::make_shared<Var>(name(), dtype_, shape_);
          return {};
        });
    if (!s.ok()) return ctx.fail(s);
    if (!Resource && var->dtype() != dtype_)
      return ctx.fail(invalid_argument(
          "Variable " + name() + " has dtype " + std::string(dtype_name(dtype_)) +
          " but the shared resource has " + std::string(dtype_name(var->dtype()))));
    ctx.set_output(0, Tensor::from_resource(var));
  }

 private:
  DType dtype_ = DType::invalid;
  PartialShape shape_;
  std::string container_;
  std::string shared_name_;
};

Var* var_of(OpKernelContext& ctx) {
  auto r = ctx.input_ref(0);
  auto* v = dynamic_cast<Var*>(r.get());
  if (!v) ctx.fail(invalid_argument("Input 0 of " + ctx.node_name() + " is not a variable"));
  return v;
}

/// IsVariableInitialized: whether the variable behind the reference holds a value.
class IsVariableInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    auto* v = dynamic_cast<Var*>(ctx.input_ref(0).get());
    ctx.set_output(0, Tensor(v != nullptr && v->is_initialized()));
  }
};

class AssignOp : public OpKernel {
 public:
  AssignOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    c.get_attr("validate_shape", &validate_shape_);
    (void)s;
  }
  void compute(OpKernelContext& ctx) override {
    Var* var = var_of(ctx);
    if (!var) return;
    const Tensor& value = ctx.input(1);
    if (validate_shape_) {
      // Against the current value, or before the first assignment the declared shape.
      Tensor old;
      std::optional<Shape> lhs;
      if (var->read(&old).ok())
        lhs = old.shape();
      else if (var->declared_shape().rank_known() && var->declared_shape().fully_defined())
        lhs = var->declared_shape().to_shape();
      if (lhs && *lhs != value.shape())
        return ctx.fail(invalid_argument(
            "Assign requires shapes of both tensors to match. lhs shape= " + lhs->to_string() +
            " rhs shape= " + value.shape().to_string() + "\n\t [[{{node " + name() + "}}]]"));
    }
    var->assign(value);
    ctx.set_output(0, ctx.input(0));
  }

 private:
  bool validate_shape_ = true;
};

// AssignAdd / AssignSub (reference, outputs the reference) and AssignAddVariableOp /
// AssignSubVariableOp (resource handle, no output).
template <bool Add, bool Resource = false>
class AssignUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    Var* var = var_of(ctx);
    if (!var) return;
    if (Resource && var->dtype() != ctx.input(1).dtype())
      return ctx.fail(invalid_argument("Trying to assign variable with wrong dtype. Expected " +
                                       std::string(data_type_string(var->dtype())) + " got " +
                                       std::string(data_type_string(ctx.input(1).dtype())) +
                                       node_suffix(name())));
    const Tensor& delta = ctx.input(1);
    Status s = var->update([&](Tensor& value) -> Status {
      if (value.shape() != delta.shape())
        return invalid_argument("Cannot update variable with shape " + value.shape().to_string() +
                                " using a Tensor with shape " + delta.shape().to_string() +
                                ", shapes must be equal.\n\t [[{{node " + name() + "}}]]");
      Tensor out(value.dtype(), value.shape());
      visit_numeric_dtype(value.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_same_v<T, bool>) {
          return;
        } else {
          auto a = value.flat<T>();
          auto b = delta.flat<T>();
          T* o = out.data<T>();
          for (std::size_t i = 0; i < a.size(); ++i) {
            if constexpr (is_half_like_v<T>)
              o[i] = T(Add ? static_cast<float>(a[i]) + static_cast<float>(b[i])
                           : static_cast<float>(a[i]) - static_cast<float>(b[i]));
            else
              o[i] = static_cast<T>(Add ? a[i] + b[i] : a[i] - b[i]);
          }
        }
      });
      value = std::move(out);
      return {};
    });
    if (!s.ok()) {
      if (s.code() != Code::invalid_argument) s = s.with_context(node_suffix(name()));
      return ctx.fail(s);
    }
    if (!Resource) ctx.set_output(0, ctx.input(0));
  }
};

/// ReadVariableOp: the variable's value (shared, never copied: updates write a new buffer).
class ReadVariableOp : public OpKernel {
 public:
  ReadVariableOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
  }
  void compute(OpKernelContext& ctx) override {
    Var* var = var_of(ctx);
    if (!var) return;
    Tensor value;
    Status s = var->read(&value);
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    if (value.dtype() != dtype_)
      return ctx.fail(invalid_argument("Trying to read variable with wrong dtype. Expected " +
                                       std::string(data_type_string(dtype_)) + " got " +
                                       std::string(data_type_string(value.dtype())) +
                                       node_suffix(name())));
    ctx.set_output(0, std::move(value));
  }

 private:
  DType dtype_ = DType::invalid;
};

/// AssignVariableOp: replaces the value (its shape may change unless `validate_shape`).
class AssignVariableOp : public OpKernel {
 public:
  AssignVariableOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("validate_shape", &validate_shape_);
  }
  void compute(OpKernelContext& ctx) override {
    Var* var = var_of(ctx);
    if (!var) return;
    const Tensor& value = ctx.input(1);
    if (var->dtype() != value.dtype())
      return ctx.fail(invalid_argument("Trying to assign variable with wrong dtype. Expected " +
                                       std::string(data_type_string(var->dtype())) + " got " +
                                       std::string(data_type_string(value.dtype())) +
                                       node_suffix(name())));
    Tensor old;
    if (validate_shape_ && var->read(&old).ok() && old.shape() != value.shape())
      return ctx.fail(invalid_argument(
          "Trying to assign to variable with tensor with wrong shape. Expected " +
          old.shape().to_string() + " got " + value.shape().to_string() + node_suffix(name())));
    var->assign(value);
  }

 private:
  bool validate_shape_ = false;
};

/// VarIsInitializedOp: whether the resource variable holds a value.
class VarIsInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    auto* v = dynamic_cast<Var*>(ctx.input_ref(0).get());
    ctx.set_output(0, Tensor(v != nullptr && v->is_initialized()));
  }
};

/// DisableCopyOnRead: TensorFlow's variables copy their buffer on a read while sparse updates
/// run (copy-on-read mode) until this turns it off; reads here never share a buffer that an
/// update writes, so it only checks that the handle names a variable.
class DisableCopyOnReadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override {
    if (!dynamic_cast<Var*>(ctx.input_ref(0).get()))
      ctx.fail(not_found("node '" + ctx.node_name() + "': input 0 is not a variable"));
  }
};

/// ResourceGather: the rows `indices` names, read under the variable's lock.
class ResourceGatherOp : public OpKernel {
 public:
  ResourceGatherOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
  }
  void compute(OpKernelContext& ctx) override {
    std::vector<Var*> vars;
    Status in = detail::variable_inputs(ctx, 1, dtype_, true, &vars);
    if (!in.ok()) return ctx.fail(in);
    const Tensor& indices = ctx.input(1);
    Status s = vars[0]->update([&](Tensor& params) -> Status {
      if (params.rank() < 1)
        return invalid_argument("params must be at least 1 dimensional" + node_suffix(name()));
      detail::gather_output(ctx, params, indices, 0, name());
      return {};
    });
    if (!s.ok()) {
      if (s.code() != Code::invalid_argument) s = s.with_context(node_suffix(name()));
      return ctx.fail(s);
    }
  }

 private:
  DType dtype_ = DType::invalid;
};

/// VariableShape: the shape of the variable's current value.
class VariableShapeOp : public OpKernel {
 public:
  VariableShapeOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("out_type", &out_type_);
  }
  void compute(OpKernelContext& ctx) override {
    Var* var = var_of(ctx);
    if (!var) return;
    Shape shape;
    Status s = var->update([&](Tensor& value) -> Status {
      shape = value.shape();
      return {};
    });
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    Tensor& out = ctx.allocate_output(0, out_type_, Shape{shape.rank()});
    for (int d = 0; d < shape.rank(); ++d) {
      if (out_type_ == DType::int64)
        out.data<std::int64_t>()[d] = shape.dim(d);
      else
        out.data<std::int32_t>()[d] = static_cast<std::int32_t>(shape.dim(d));
    }
  }

 private:
  DType out_type_ = DType::int32;
};

}  // namespace

namespace detail {

void register_session_tensor_kernels(KernelRegistry& r);  // session_tensor_ops.cpp

void register_state_kernels(KernelRegistry& r) {
  register_session_tensor_kernels(r);
  r.add(make_kernel_def<VariableOp<false>>("VariableV2", "CPU", {{"dtype", kVariableTypes}}));
  r.add(make_kernel_def<AssignOp>("Assign", "CPU", {{"T", kVariableTypes}}));
  r.add(make_kernel_def<AssignUpdateOp<true>>("AssignAdd", "CPU", {{"T", kNumberTypes}}));
  r.add(make_kernel_def<AssignUpdateOp<false>>("AssignSub", "CPU", {{"T", kNumberTypes}}));
  r.add(make_kernel_def<IsVariableInitializedOp>("IsVariableInitialized", "CPU",
                                                 {{"dtype", kVariableTypes}}));
  r.add(make_kernel_def<VariableOp<true>>("VarHandleOp", "CPU", {{"dtype", kVariableTypes}}));
  r.add(make_kernel_def<ReadVariableOp>("ReadVariableOp", "CPU", {{"dtype", kVariableTypes}}));
  r.add(make_kernel_def<AssignVariableOp>("AssignVariableOp", "CPU", {{"dtype", kVariableTypes}}));
  r.add(make_kernel_def<AssignUpdateOp<true, true>>("AssignAddVariableOp", "CPU",
                                                    {{"dtype", kNumberTypes}}));
  r.add(make_kernel_def<AssignUpdateOp<false, true>>("AssignSubVariableOp", "CPU",
                                                     {{"dtype", kNumberTypes}}));
  r.add(make_kernel_def<VarIsInitializedOp>("VarIsInitializedOp", "CPU", {}));
  r.add(make_kernel_def<DisableCopyOnReadOp>("DisableCopyOnRead", "CPU", {}));
  r.add(make_kernel_def<ResourceGatherOp>("ResourceGather", "CPU", {{"dtype", kVariableTypes}}));
  r.add(make_kernel_def<VariableShapeOp>("VariableShape", "CPU", {}));
}

}  // namespace detail

}  // namespace af
