#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af {

/// A stateful object that outlives steps: variables, queues, readers (TF's `ResourceBase`).
class ResourceBase {
 public:
  /// Destroyed when the last tensor, kernel or manager holding it lets go.
  virtual ~ResourceBase() = default;
  /// A short description for error messages and `/status`.
  virtual std::string debug_string() const = 0;
};

/// A variable's storage. Thread-safe: kernels on different threads may read and assign.
class Var : public ResourceBase {
 public:
  /// `declared_shape` is the VariableV2's `shape` attribute (unknown when absent): Assign with
  /// `validate_shape` checks a first value against it, as TensorFlow does.
  Var(std::string name, DType dtype, PartialShape declared_shape = {})
      : name_(std::move(name)), dtype_(dtype), declared_shape_(std::move(declared_shape)) {}

  /// A resource variable's storage (VarHandleOp, named by its `shared_name` in `container`):
  /// reading it before its first assignment fails as TensorFlow's ReadVariableOp does,
  /// FailedPrecondition "Could not find variable NAME. ...".
  static std::shared_ptr<Var> resource(std::string name, std::string container, DType dtype,
                                       PartialShape declared_shape) {
    auto v = std::make_shared<Var>(std::move(name), dtype, std::move(declared_shape));
    v->resource_container_ = std::move(container);
    return v;
  }
  /// True for a resource variable's storage.
  bool is_resource() const noexcept { return !resource_container_.empty(); }

  /// The variable's name.
  const std::string& name() const noexcept { return name_; }
  /// The value's dtype.
  DType dtype() const noexcept { return dtype_; }
  /// The shape declared on the VariableV2 node (unknown when absent).
  const PartialShape& declared_shape() const noexcept { return declared_shape_; }

  /// Reads the value; FailedPrecondition "Attempting to use uninitialized value NAME" when
  /// the variable was never assigned (a resource variable's: "Could not find variable NAME").
  Status read(Tensor* out) const;
  /// Replaces the value.
  void assign(Tensor value);
  /// Runs `f` on the value under the variable's lock (for assign_add / assign_sub, Scatter*).
  /// Before the first assignment: FailedPrecondition "Attempting to use uninitialized value
  /// NAME", or for a resource variable NotFound "Resource CONTAINER/NAME/N10tensorflow3VarE
  /// does not exist." (TensorFlow's failed lookup).
  Status update(const std::function<Status(Tensor&)>& f);
  /// True once a value was assigned.
  bool is_initialized() const;

  /// Names the variable.
  std::string debug_string() const override;

 private:
  mutable std::mutex mu_;
  std::string name_;
  DType dtype_;
  PartialShape declared_shape_;
  std::string resource_container_;
  Tensor value_;

  Status uninitialized() const;
};

/// Runs `f` with the values of every variable of `vars` bound, each under its variable's lock,
/// taken in the order given (callers keep one order per op type, so two such updates cannot
/// deadlock): the Apply* optimizer kernels update a variable and its slots this way. A
/// variable listed twice is locked once, both entries bound to its value.
/// Without calling `f` when one of them is uninitialized: FailedPrecondition "Attempting to
/// use uninitialized value NAME", or for a resource variable Internal "Invalid variable
/// reference." (TensorFlow's ResourceApply* kernels say so).
Status update_together(const std::vector<Var*>& vars,
                       const std::function<Status(std::vector<Tensor*>&)>& f);

/// Resources keyed by (container, name) (TF's `ResourceMgr`). Thread-safe.
class ResourceMgr {
 public:
  /// An empty manager; an empty container name means `default_container`.
  explicit ResourceMgr(std::string default_container = "localhost")
      : default_container_(std::move(default_container)) {}

  /// The container used for an empty container name.
  const std::string& default_container() const noexcept { return default_container_; }

  /// Returns the resource at (container, name), creating it with `create` if absent.
  /// InvalidArgument when a resource of another type sits there; `create`'s error otherwise
  /// (nothing is stored). `create` runs under the manager's lock: it must not use this manager.
  /// `create` is any callable `Status(std::shared_ptr<T>*)` (a lambda is not wrapped in a
  /// std::function: a lookup that finds the resource allocates nothing).
  template <class T, class Create>
  Status lookup_or_create(const std::string& container, const std::string& name,
                          std::shared_ptr<T>* out, Create&& create) {
    std::lock_guard<std::mutex> guard(mu_);
    auto key = std::make_pair(container.empty() ? default_container_ : container, name);
    auto it = resources_.find(key);
    if (it != resources_.end()) {
      *out = std::dynamic_pointer_cast<T>(it->second);
      if (!*out)
        return invalid_argument("Resource " + key.first + "/" + name +
                                " exists with another type: " + it->second->debug_string());
      return {};
    }
    ACTORFLOW_RETURN_IF_ERROR(create(out));
    resources_.emplace(std::move(key), *out);
    return {};
  }

  /// Returns the resource at (container, name) or NotFound (InvalidArgument when it has
  /// another type).
  template <class T>
  Status lookup(const std::string& container, const std::string& name,
                std::shared_ptr<T>* out) const {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = resources_.find({container.empty() ? default_container_ : container, name});
    if (it == resources_.end())
      return not_found("Resource " + container + "/" + name + " does not exist.");
    *out = std::dynamic_pointer_cast<T>(it->second);
    if (!*out) return invalid_argument("Resource " + container + "/" + name + " has another type");
    return {};
  }

  /// Drops every resource of `container`; returns how many were dropped.
  std::size_t cleanup(const std::string& container);
  /// Drops everything.
  void clear();
  /// (container, name, description) of every resource, sorted.
  std::vector<std::tuple<std::string, std::string, std::string>> list() const;

 private:
  mutable std::mutex mu_;
  std::string default_container_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<ResourceBase>> resources_;
};

}  // namespace af
