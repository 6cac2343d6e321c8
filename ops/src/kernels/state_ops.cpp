// Reference variables (VariableV2, Assign, AssignAdd, AssignSub, IsVariableInitialized) and
// resource variables (VarHandleOp, ReadVariableOp, AssignVariableOp, Assign{Add,Sub}VariableOp,
// VarIsInitializedOp, as tf.compat.v1 builds them in TensorFlow 2): ops, shape functions,
// kernels and builders. Both kinds keep their value in a `Var`; a resource handle is a
// resource tensor that the executor passes on without reading it.
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/resource_variable_ops.hpp"
#include "kernel_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::node_suffix;

const std::vector<DType> kVariableTypes = {DType::float32, DType::float64, DType::int32,
                                           DType::int64,   DType::uint8,   DType::boolean,
                                           DType::string,  DType::bfloat16};
const std::vector<DType> kNumberTypes = {DType::float32, DType::float64, DType::int32,
                                         DType::int64,   DType::uint8,   DType::bfloat16};

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
            if constexpr (std::is_same_v<T, bfloat16_t>)
              o[i] = bfloat16_t(Add ? static_cast<float>(a[i]) + static_cast<float>(b[i])
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
      if (s.code() == Code::failed_precondition) s = s.with_context(node_suffix(name()));
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

Status expect_handle(InferenceContext& c, int inputs) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(inputs));
  if (c.input_types[0] != DType::resource)
    return invalid_argument("Input 'resource' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[0])) +
                            " that does not match expected type of resource.");
  return {};
}

// Assign{,Add,Sub}VariableOp: a value of the attr's dtype, whose shape fits the variable's.
Status infer_assign_variable(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 2));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
  if (c.input_types[1] != t)
    return invalid_argument("Input 'value' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[1])) +
                            " that does not match type " + std::string(data_type_string(t)) +
                            " of argument 'dtype'.");
  bool validate = c.node.op != "AssignVariableOp";
  if (auto v = c.node.attr<bool>("validate_shape")) validate = validate || *v;
  PartialShape merged;
  if (validate && !c.input_handle_shapes[0].merge_with(c.input_shapes[1], &merged).ok())
    return invalid_argument("Trying to assign to variable with tensor with wrong shape. Expected " +
                            c.input_handle_shapes[0].to_string() + " got " +
                            c.input_shapes[1].to_string());
  return {};
}

Status infer_assign(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  if (c.input_types[0] != c.input_types[1])
    return invalid_argument("Input 'value' of '" + c.node.op + "' Op has type " +
                            std::string(dtype_name(c.input_types[1])) +
                            " that does not match type " +
                            std::string(dtype_name(c.input_types[0])) + " of argument 'ref'.");
  bool validate = true;
  if (auto v = c.node.attr<bool>("validate_shape")) validate = *v;
  PartialShape out = c.input_shapes[1];
  if (validate || c.node.op != "Assign") {
    PartialShape merged;
    Status s = c.input_shapes[0].merge_with(c.input_shapes[1], &merged);
    if (!s.ok())
      return invalid_argument("Shapes must be equal rank, but are " +
                              std::to_string(c.input_shapes[0].rank()) + " and " +
                              std::to_string(c.input_shapes[1].rank()));
    out = merged;
  }
  c.add_output(c.input_types[0], out, /*is_ref=*/true);
  return {};
}

Output assign_like(const char* type, const char* default_name, const Output& ref,
                   const Output& value, std::string_view name, bool locking_attrs) {
  AttrMap attrs{{"T", ref.dtype()}, {"use_locking", false}};
  if (locking_attrs) attrs["validate_shape"] = true;
  // Updates of a variable are colocated with it (as TensorFlow's state_ops do via ref edges).
  auto colocate = ref.graph().colocate_with(ref.op());
  return ref.graph()
      .create_op(type, {ref, value}, attrs, name.empty() ? default_name : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_state_ops(OpRegistry& r) {
  r.add({"VariableV2",
         [](InferenceContext& c) -> Status {
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
           PartialShape s;
           c.get_attr("shape", &s);
           c.add_output(t, s, /*is_ref=*/true);
           return {};
         },
         true});
  r.add({"Assign", infer_assign, true, {0}});
  r.add({"AssignAdd", infer_assign, true, {0}});
  r.add({"AssignSub", infer_assign, true, {0}});
  r.add({"IsVariableInitialized",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
           c.add_output(DType::boolean, PartialShape(Shape{}));
           return {};
         },
         true,
         {0}});
  // A resource handle travels as a reference edge: its consumers are colocated with the
  // VarHandleOp (as TensorFlow's placer colocates a resource's users) and get it unread.
  r.add({"VarHandleOp",
         [](InferenceContext& c) -> Status {
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
           PartialShape s;
           c.get_attr("shape", &s);
           c.add_output(DType::resource, PartialShape(Shape{}), /*is_ref=*/true);
           c.output_handle_shapes = {s};
           return {};
         },
         true});
  r.add({"ReadVariableOp",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 1));
           DType t = DType::invalid;
           ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dtype", &t));
           c.add_output(t, c.input_handle_shapes[0]);
           return {};
         },
         true,
         {0}});
  r.add({"AssignVariableOp", infer_assign_variable, true, {0}});
  r.add({"AssignAddVariableOp", infer_assign_variable, true, {0}});
  r.add({"AssignSubVariableOp", infer_assign_variable, true, {0}});
  r.add({"VarIsInitializedOp",
         [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(expect_handle(c, 1));
           c.add_output(DType::boolean, PartialShape(Shape{}));
           return {};
         },
         true,
         {0}});
}

void register_state_kernels(KernelRegistry& r) {
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
}

}  // namespace detail

Output assign(const Output& ref, const Output& value, std::string_view name) {
  return assign_like("Assign", "Assign", ref, value, name, true);
}
Output assign_add(const Output& ref, const Output& delta, std::string_view name) {
  return assign_like("AssignAdd", "AssignAdd", ref, delta, name, false);
}
Output is_variable_initialized(const Output& ref, std::string_view name) {
  if (ref.dtype() == DType::resource)
    return var_is_initialized_op(ref, name.empty() ? "VarIsInitializedOp" : name);
  return ref.graph()
      .create_op("IsVariableInitialized", {ref}, {{"dtype", ref.dtype()}},
                 name.empty() ? "IsVariableInitialized" : name)
      .output(0);
}

Output assign_sub(const Output& ref, const Output& delta, std::string_view name) {
  return assign_like("AssignSub", "AssignSub", ref, delta, name, false);
}

Output var_handle_op(Graph& g, DType dtype, const PartialShape& shape, std::string_view shared_name,
                     std::string_view name, std::string_view container) {
  // An empty shared_name is the node's own name (the kernel's default, as VariableV2's).
  AttrMap attrs{{"dtype", dtype},
                {"shape", shape},
                {"container", std::string(container)},
                {"shared_name", std::string(shared_name)},
                {"allowed_devices", std::vector<std::string>{}}};
  return g.create_op("VarHandleOp", {}, std::move(attrs), name.empty() ? "VarHandleOp" : name)
      .output(0);
}

Output read_variable_op(const Output& handle, DType dtype, std::string_view name) {
  return handle.graph()
      .create_op("ReadVariableOp", {handle}, {{"dtype", dtype}},
                 name.empty() ? "ReadVariableOp" : name)
      .output(0);
}

Operation assign_variable_op(const Output& handle, const Output& value, std::string_view name,
                             bool validate_shape) {
  return handle.graph().create_op("AssignVariableOp", {handle, value},
                                  {{"dtype", value.dtype()}, {"validate_shape", validate_shape}},
                                  name.empty() ? "AssignVariableOp" : name);
}

Operation assign_add_variable_op(const Output& handle, const Output& delta, std::string_view name) {
  return handle.graph().create_op("AssignAddVariableOp", {handle, delta},
                                  {{"dtype", delta.dtype()}},
                                  name.empty() ? "AssignAddVariableOp" : name);
}

Operation assign_sub_variable_op(const Output& handle, const Output& delta, std::string_view name) {
  return handle.graph().create_op("AssignSubVariableOp", {handle, delta},
                                  {{"dtype", delta.dtype()}},
                                  name.empty() ? "AssignSubVariableOp" : name);
}

Output var_is_initialized_op(const Output& handle, std::string_view name) {
  return handle.graph()
      .create_op("VarIsInitializedOp", {handle}, {}, name.empty() ? "VarIsInitializedOp" : name)
      .output(0);
}

}  // namespace af
