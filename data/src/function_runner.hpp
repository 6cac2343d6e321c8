#pragma once

// Runs the functions datasets apply per element (TensorFlow's CapturedFunction and
// InstantiatedCapturedFunction): the function's body, instantiated once, evaluated node by
// node on the calling thread with the CPU kernels. Private to the data module.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/data/dataset.hpp"
#include "dataset_base.hpp"

namespace af::data::detail {

class FunctionGraph;  // the instantiated body (function_runner.cpp)

/// A function attribute made runnable, once: a dataset kernel holds one and shares it with
/// every dataset it makes (TensorFlow's FunctionLibraryRuntime handle). Thread-safe: calls
/// at once on several threads run copies of the body (its kernels built again), except for a
/// body with a stateful kernel (a random op), whose one instance serves every call as in
/// TensorFlow.
class InstantiatedFunction {
 public:
  /// `f` of the node `node` (named in messages); instantiated on the first `run`.
  InstantiatedFunction(FunctionAttr f, std::string node);
  ~InstantiatedFunction();

  /// Calls the function on `args` into `*out`. Errors name the function, the dataset node
  /// and the body's node that failed; OutOfRange passes as it is.
  Status run(const IteratorEnv& env, const std::vector<Tensor>& args,
             std::vector<Tensor>* out) const;
  /// The function's name.
  const std::string& name() const noexcept { return f_.name; }

 private:
  Status instantiate() const;
  std::unique_ptr<FunctionGraph> take_copy() const;

  FunctionAttr f_;
  std::string where_;
  mutable std::once_flag once_;
  mutable Status instantiated_;
  mutable std::unique_ptr<FunctionGraph> graph_;
  mutable std::unique_ptr<FunctionBody> body_;   // kept to build copies (stateless bodies)
  mutable std::atomic<bool> graph_busy_{false};  // graph_ is in a call (stateless bodies)
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<FunctionGraph>> pool_;  // idle copies
};

/// A function with the inputs it captured (`other_arguments`), as a dataset holds it.
/// Thread-safe: iterators of one dataset may call it at once.
class CapturedFunction {
 public:
  /// `f` with `captured` appended to every call's arguments.
  CapturedFunction(std::shared_ptr<const InstantiatedFunction> f, std::vector<Tensor> captured)
      : f_(std::move(f)), captured_(std::move(captured)) {}

  /// Calls the function on `args`, then the captured inputs, into `*out`.
  Status run(const IteratorEnv& env, std::vector<Tensor> args, std::vector<Tensor>* out) const {
    args.insert(args.end(), captured_.begin(), captured_.end());
    return f_->run(env, args, out);
  }
  /// The function's name.
  const std::string& name() const noexcept { return f_->name(); }

 private:
  std::shared_ptr<const InstantiatedFunction> f_;
  std::vector<Tensor> captured_;
};

/// `f` capturing inputs [`first_captured`, `end_captured`) of `ctx` (its `other_arguments`).
std::shared_ptr<const CapturedFunction> make_captured_function(
    const OpKernelContext& ctx, std::shared_ptr<const InstantiatedFunction> f, int first_captured,
    int end_captured);

}  // namespace af::data::detail
