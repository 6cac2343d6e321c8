// DynamicPartition, DynamicStitch and ParallelDynamicStitch: CPU kernels (TensorFlow's
// dynamic_partition_op.cc and dynamic_stitch_op.cc). Rows move as raw elements, so every
// dtype shares one instantiation. Their definitions are in ops/src/defs/partition_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::kValueTypes;
using detail::node_suffix;

// Whether `prefix` is a prefix of `shape`.
bool starts_with(const Shape& shape, const Shape& prefix) {
  if (shape.rank() < prefix.rank()) return false;
  for (int d = 0; d < prefix.rank(); ++d)
    if (shape.dim(d) != prefix.dim(d)) return false;
  return true;
}

// The number of elements of `shape` after its first `skip` dimensions.
Index inner_size(const Shape& shape, int skip) {
  Index n = 1;
  for (int d = skip; d < shape.rank(); ++d) n *= shape.dim(d);
  return n;
}

class DynamicPartitionOp : public OpKernel {
 public:
  DynamicPartitionOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("num_partitions", &num_partitions_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& partitions = ctx.input(1);
    if (!starts_with(data.shape(), partitions.shape()))
      return ctx.fail(invalid_argument(
          "data.shape must start with partitions.shape, got data.shape = " +
          data.shape().to_string() + ", partitions.shape = " + partitions.shape().to_string() +
          node_suffix(name())));
    const Index n = partitions.num_elements();
    const std::int32_t* p = partitions.data<std::int32_t>();
    std::vector<Index> counts(static_cast<std::size_t>(num_partitions_), 0);
    for (Index i = 0; i < n; ++i) {
      if (p[i] < 0 || p[i] >= num_partitions_)
        return ctx.fail(
            invalid_argument("partitions" + detail::slice_debug_string(partitions.shape(), i) +
                             " = " + std::to_string(p[i]) + " is not in [0, " +
                             std::to_string(num_partitions_) + ")" + node_suffix(name())));
      ++counts[static_cast<std::size_t>(p[i])];
    }
    const Index row = inner_size(data.shape(), partitions.rank());
    std::vector<Tensor> outs;
    for (std::int64_t k = 0; k < num_partitions_; ++k) {
      std::vector<std::int64_t> dims{counts[static_cast<std::size_t>(k)]};
      for (int d = partitions.rank(); d < data.rank(); ++d) dims.push_back(data.shape().dim(d));
      outs.emplace_back(data.dtype(), Shape(dims));
    }
    std::vector<Index> next(static_cast<std::size_t>(num_partitions_), 0);
    for (Index i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(p[i]);
      detail::copy_elements(data, i * row, outs[k], next[k]++ * row, row);
    }
    for (std::int64_t k = 0; k < num_partitions_; ++k)
      ctx.set_output(static_cast<int>(k), std::move(outs[static_cast<std::size_t>(k)]));
  }

 private:
  std::int64_t num_partitions_ = 1;
};

class DynamicStitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const int n = ctx.num_inputs() / 2;
    const Tensor& indices0 = ctx.input(0);
    const Tensor& data0 = ctx.input(n);
    Index rows = 0;
    for (int m = 0; m < n; ++m) {
      const Tensor& indices = ctx.input(m);
      const Tensor& data = ctx.input(n + m);
      if (!starts_with(data.shape(), indices.shape()))
        return ctx.fail(
            invalid_argument("data[" + std::to_string(m) + "].shape = " + data.shape().to_string() +
                             " does not start with indices[" + std::to_string(m) +
                             "].shape = " + indices.shape().to_string() + node_suffix(name())));
      if (data.rank() - indices.rank() != data0.rank() - indices0.rank() ||
          inner_size(data.shape(), indices.rank()) != inner_size(data0.shape(), indices0.rank()))
        return ctx.fail(invalid_argument(
            "Need data[0].shape[" + std::to_string(indices0.rank()) + ":] = data[" +
            std::to_string(m) + "].shape[" + std::to_string(indices.rank()) +
            ":], got data[0].shape = " + data0.shape().to_string() + ", data[" + std::to_string(m) +
            "].shape = " + data.shape().to_string() +
            ", indices[0].shape = " + indices0.shape().to_string() + ", indices[" +
            std::to_string(m) + "].shape = " + indices.shape().to_string() + node_suffix(name())));
      for (auto x : indices.flat<std::int32_t>()) {
        if (x < 0)
          return ctx.fail(invalid_argument("indices[" + std::to_string(m) +
                                           "] = " + std::to_string(x) + " is out of range" +
                                           node_suffix(name())));
        rows = std::max<Index>(rows, Index{x} + 1);
      }
    }
    std::vector<std::int64_t> dims{rows};
    for (int d = indices0.rank(); d < data0.rank(); ++d) dims.push_back(data0.shape().dim(d));
    Tensor out(data0.dtype(), Shape(dims));
    const Index row = inner_size(data0.shape(), indices0.rank());
    for (int m = 0; m < n; ++m) {
      const Tensor& data = ctx.input(n + m);
      const auto idx = ctx.input(m).flat<std::int32_t>();
      for (std::size_t i = 0; i < idx.size(); ++i)
        detail::copy_elements(data, static_cast<Index>(i) * row, out, Index{idx[i]} * row, row);
    }
    ctx.set_output(0, std::move(out));
  }
};

}  // namespace

namespace detail {

void register_partition_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<DynamicPartitionOp>("DynamicPartition", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<DynamicStitchOp>("DynamicStitch", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<DynamicStitchOp>("ParallelDynamicStitch", "CPU", {{"T", kValueTypes}}));
}

}  // namespace detail

}  // namespace af
