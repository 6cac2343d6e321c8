// Tensors kept in the session between runs (TensorFlow's session_ops.cc, session_state.h):
// GetSessionHandle and GetSessionHandleV2 keep a tensor and output its handle
// "<node>;<id>;<device>" (V2: as a resource handle), GetSessionTensor gives the tensor a
// string handle names, DeleteSessionTensor drops it. The store is a resource of the
// session's device (the ops of one handle run on its device, as tf.get_session_tensor and
// tf.delete_session_tensor place them). Unlike TensorFlow, which commits a run's tensors to
// the session when the run succeeds and only those whose handle it fetched, a tensor is kept
// as soon as its GetSessionHandle runs. The definitions are in
// ops/src/defs/session_tensor_ops.cpp.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::StatusKernel;

// The tensors of one session on one device, by handle (SessionState).
class SessionTensorStore final : public ResourceBase {
 public:
  std::string debug_string() const override {
    std::lock_guard<std::mutex> guard(mu_);
    return "session tensor store (" + std::to_string(tensors_.size()) + " tensors)";
  }
  // GetNewId and AddTensor: the handle of `value` kept under the node `name` on `device`.
  std::string add(const std::string& name, std::string_view device, Tensor value) {
    std::lock_guard<std::mutex> guard(mu_);
    std::string handle = name + ";" + std::to_string(next_id_++) + ";" + std::string(device);
    tensors_[handle] = std::move(value);
    return handle;
  }
  Status get(const std::string& handle, Tensor* out) const {
    std::lock_guard<std::mutex> guard(mu_);
    const auto it = tensors_.find(handle);
    if (it == tensors_.end()) return missing(handle);
    *out = it->second;
    return {};
  }
  Status erase(const std::string& handle) {
    std::lock_guard<std::mutex> guard(mu_);
    if (tensors_.erase(handle) == 0) return missing(handle);
    return {};
  }

 private:
  static Status missing(const std::string& handle) {
    return invalid_argument("The tensor with handle '" + handle + "' is not in the session store.");
  }

  mutable std::mutex mu_;
  std::int64_t next_id_ = 0;
  std::map<std::string, Tensor> tensors_;
};

Status store_of(OpKernelContext& ctx, const char* op, std::shared_ptr<SessionTensorStore>* out) {
  if (ctx.resource_mgr == nullptr)
    return failed_precondition(std::string(op) + " called on null session state");
  return ctx.resource_mgr->lookup_or_create<SessionTensorStore>(
      "", "_session_tensors", out, [](std::shared_ptr<SessionTensorStore>* made) -> Status {
        *made = std::make_shared<SessionTensorStore>();
        return {};
      });
}

// GetSessionHandle(value) -> string handle; GetSessionHandleV2(value) -> resource handle.
template <bool V2>
class GetSessionHandleOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::shared_ptr<SessionTensorStore> store;
    ACTORFLOW_RETURN_IF_ERROR(store_of(ctx, "GetSessionHandle", &store));
    const std::string handle = store->add(name(), ctx.device_name, ctx.input(0));
    if constexpr (V2) {
      ctx.set_output(0, Tensor::from_resource(std::make_shared<HandleName>(handle)));
    } else {
      ctx.set_output(0, Tensor(handle));
    }
    return {};
  }

 private:
  // What a V2 handle points at: the string handle, for its readers.
  struct HandleName final : ResourceBase {
    explicit HandleName(std::string h) : handle(std::move(h)) {}
    std::string debug_string() const override { return handle; }
    std::string handle;
  };
};

// The string handle of input 0: a scalar.
Status handle_input(const OpKernelContext& ctx, std::string* out) {
  const Tensor& h = ctx.input(0);
  if (h.dtype() != DType::string || h.rank() != 0)
    return invalid_argument("handle must be a string scalar, got shape " + h.shape().to_string());
  *out = h.scalar<std::string>();
  return {};
}

// GetSessionTensor(handle; dtype) -> the tensor the handle names.
class GetSessionTensorOp : public StatusKernel {
 public:
  GetSessionTensorOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("dtype", &dtype_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::string handle;
    ACTORFLOW_RETURN_IF_ERROR(handle_input(ctx, &handle));
    std::shared_ptr<SessionTensorStore> store;
    ACTORFLOW_RETURN_IF_ERROR(store_of(ctx, "GetSessionTensor", &store));
    Tensor value;
    ACTORFLOW_RETURN_IF_ERROR(store->get(handle, &value));
    if (value.dtype() != dtype_)
      return invalid_argument("The tensor with handle '" + handle + "' is " +
                              std::string(data_type_string(value.dtype())) + ", not " +
                              std::string(data_type_string(dtype_)));
    ctx.set_output(0, std::move(value));
    return {};
  }

 private:
  DType dtype_ = DType::invalid;
};

// DeleteSessionTensor(handle): drops the tensor.
class DeleteSessionTensorOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    std::string handle;
    ACTORFLOW_RETURN_IF_ERROR(handle_input(ctx, &handle));
    std::shared_ptr<SessionTensorStore> store;
    ACTORFLOW_RETURN_IF_ERROR(store_of(ctx, "DeleteSessionTensor", &store));
    return store->erase(handle);
  }
};

}  // namespace

namespace detail {

/// The session-tensor ops' kernels (called by register_state_kernels, state_ops.cpp).
void register_session_tensor_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<GetSessionHandleOp<false>>("GetSessionHandle", "CPU"));
  r.add(make_kernel_def<GetSessionHandleOp<true>>("GetSessionHandleV2", "CPU"));
  r.add(make_kernel_def<GetSessionTensorOp>("GetSessionTensor", "CPU"));
  r.add(make_kernel_def<DeleteSessionTensorOp>("DeleteSessionTensor", "CPU"));
}

}  // namespace detail

}  // namespace af
