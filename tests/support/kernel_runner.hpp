#pragma once

// Runs one node's CPU kernel directly, without a session: what the ops' white-box tests use.
#include <boost/test/unit_test.hpp>
#include <memory>
#include <vector>

#include "actorflow/kernels/cpu_kernels.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"

namespace Eigen {
struct ThreadPoolDevice;
}  // namespace Eigen

namespace af::test {

/// The outcome of running one kernel.
struct KernelResult {
  Status status;
  std::vector<Tensor> outputs;
  /// What the kernel's `is_expensive` said for these inputs.
  bool expensive = false;

  const Tensor& out(int i = 0) const { return outputs.at(static_cast<std::size_t>(i)); }
};

/// The CPU kernel of one node, constructed once and run any number of times (stateful
/// kernels such as TruncatedNormal continue their sequence from run to run).
class KernelRunner {
 public:
  explicit KernelRunner(const Operation& node) : node_(node.node()) {
    std::vector<DType> input_types;
    for (auto& in : node_->inputs()) input_types.push_back(in.dtype());
    OpKernelConstruction c{node_->def(), input_types, node_->output_types(), "CPU",
                           "/job:localhost/replica:0/task:0/device:CPU:0"};
    Status created = KernelRegistry::global().create(c, &kernel_);
    BOOST_REQUIRE_MESSAGE(created.ok(), created.to_string());
  }

  /// Runs the kernel: inputs produced by Const nodes take the constant's value, the others
  /// take `given` in order. `device` is the intra-op pool (none: single-threaded) and
  /// `threads` the kernel's intra-op thread count (its pool's size, as the runtime gives).
  KernelResult run(std::vector<Tensor> given = {}, Eigen::ThreadPoolDevice* device = nullptr,
                   int threads = 1) {
    std::vector<Tensor> inputs;
    std::size_t next = 0;
    for (auto& in : node_->inputs()) {
      const Node* producer = in.node();
      if (producer->type() == "Const") {
        inputs.push_back(*producer->def().attr<Tensor>("value"));
      } else {
        BOOST_REQUIRE_LT(next, given.size());
        inputs.push_back(std::move(given[next++]));  // a temporary stays the only holder
      }
    }
    OpKernelContext ctx(node_->def(), std::move(inputs));
    ctx.set_num_outputs(node_->num_outputs());
    ctx.eigen_device = device;
    ctx.intra_op_threads = threads;
    KernelResult result;
    result.expensive = kernel_->is_expensive(ctx);
    kernel_->compute(ctx);
    result.status = ctx.status();
    result.outputs = ctx.outputs();
    return result;
  }

 private:
  const Node* node_;
  std::unique_ptr<OpKernel> kernel_;
};

/// Constructs `node`'s CPU kernel and runs it once (see `KernelRunner::run`).
inline KernelResult run_kernel(const Operation& node, std::vector<Tensor> inputs = {},
                               Eigen::ThreadPoolDevice* device = nullptr, int threads = 1) {
  return KernelRunner(node).run(std::move(inputs), device, threads);
}

/// A tensor of `shape` holding `values` (row-major).
template <class T>
Tensor tensor(std::vector<T> values, Shape shape) {
  return Tensor::from_vector(values, shape);
}

/// Requires that a kernel run succeeded, naming its error otherwise.
inline void require_ok(const KernelResult& r) {
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.to_string());
}

/// Runs `node`'s kernel on `inputs`, requires success and returns its first output.
inline Tensor eval(const Output& node, std::vector<Tensor> inputs = {},
                   Eigen::ThreadPoolDevice* device = nullptr) {
  KernelResult r = run_kernel(node, std::move(inputs), device);
  require_ok(r);
  return r.out();
}

}  // namespace af::test
