// SaveV2, RestoreV2 and MergeV2Checkpoints (TensorFlow's save_restore_v2_ops.cc): CPU
// kernels. The files are tensor bundles; RestoreV2 reads V1 checkpoints too
// (checkpoint_v1_ops.cpp). The ops' definitions (shape functions,
// graph-building functions) are in ops/src/defs/checkpoint_ops.cpp.
#define EIGEN_USE_THREADS
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <optional>
#include <string>
#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#include "actorflow/ops/detail/checkpoint_shapes.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/tensor_bundle.hpp"
#include "actorflow/ops/tensor_slice.hpp"
#include "checkpoint_v1.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::kFixedInputs;
using detail::node_suffix;

// -- kernels ----------------------------------------------------------------------------------

// TensorFlow's ValidateInputs, shared by SaveV2 and RestoreV2.
Status validate_inputs(bool is_save_op, const OpKernelContext& ctx) {
  const Tensor& prefix = ctx.input(0);
  const Tensor& tensor_names = ctx.input(1);
  const Tensor& shape_and_slices = ctx.input(2);
  if (prefix.num_elements() != 1)
    return invalid_argument("Input prefix should have a single element, got " +
                            std::to_string(prefix.num_elements()) + " instead.");
  if (tensor_names.rank() != 1 || shape_and_slices.rank() != 1)
    return invalid_argument(
        "Input tensor_names and shape_and_slices should be an 1-D tensors, got " +
        tensor_names.shape().to_string() + " and " + shape_and_slices.shape().to_string() +
        " instead.");
  if (tensor_names.num_elements() != shape_and_slices.num_elements())
    return invalid_argument(
        "tensor_names and shape_and_slices have different number of elements: " +
        std::to_string(tensor_names.num_elements()) + " vs. " +
        std::to_string(shape_and_slices.num_elements()));
  const auto num_tensors = tensor_names.num_elements();
  if (is_save_op && ctx.num_inputs() != num_tensors + kFixedInputs)
    return invalid_argument("Got " + std::to_string(num_tensors) + " tensor names but " +
                            std::to_string(ctx.num_inputs() - kFixedInputs) + " tensors.");
  return {};
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  // Writing files: worth a pool thread rather than the device actor's.
  bool is_expensive(const OpKernelContext& /*ctx*/) const override { return true; }

  void compute(OpKernelContext& ctx) override {
    Status s = save(ctx);
    if (!s.ok()) ctx.fail(s.with_context(node_suffix(name())));
  }

 private:
  Status save(OpKernelContext& ctx) {
    ACTORFLOW_RETURN_IF_ERROR(validate_inputs(true, ctx));
    const std::string prefix = ctx.input(0).data<std::string>()[0];
    const std::string* names = ctx.input(1).data<std::string>();
    const std::string* slices = ctx.input(2).data<std::string>();
    const auto num_tensors = ctx.input(1).num_elements();
    BundleWriter writer(prefix);
    ACTORFLOW_RETURN_IF_ERROR(writer.status());
    for (std::int64_t i = 0; i < num_tensors; ++i) {
      const Tensor& tensor = ctx.input(static_cast<int>(i) + kFixedInputs);
      if (slices[i].empty()) {
        ACTORFLOW_RETURN_IF_ERROR(writer.add(names[i], tensor));
        continue;
      }
      // A part of a partitioned variable: the slice its spec names.
      StatusOr<ShapeAndSlice> spec = parse_shape_and_slice(slices[i]);
      if (!spec.ok()) return spec.status();
      if (spec->slice_shape != tensor.shape())
        return invalid_argument(
            "Slice in shape_and_slice specification does not match the shape of the tensor to "
            " save: " +
            slices[i] + ", tensor: " + tensor.shape().to_string());
      ACTORFLOW_RETURN_IF_ERROR(writer.add_slice(names[i], spec->full_shape, spec->slice, tensor));
    }
    return writer.finish();
  }
};

class RestoreV2Op : public OpKernel {
 public:
  RestoreV2Op(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("dtypes", &dtypes_);
  }

  bool is_expensive(const OpKernelContext& /*ctx*/) const override { return true; }

  void compute(OpKernelContext& ctx) override {
    Status s = restore(ctx);
    if (!s.ok()) ctx.fail(s.with_context(node_suffix(name())));
  }

 private:
  Status restore(OpKernelContext& ctx) {
    const Tensor& tensor_names = ctx.input(1);
    if (tensor_names.num_elements() != static_cast<std::int64_t>(dtypes_.size()))
      return invalid_argument("Got " + std::to_string(tensor_names.num_elements()) +
                              " tensor names, but " + std::to_string(dtypes_.size()) +
                              " expected dtypes.");
    ACTORFLOW_RETURN_IF_ERROR(validate_inputs(false, ctx));
    const std::string prefix = ctx.input(0).data<std::string>()[0];
    const std::string* names = tensor_names.data<std::string>();
    const std::string* slices = ctx.input(2).data<std::string>();
    const auto n = static_cast<std::size_t>(tensor_names.num_elements());

    // As TensorFlow: a prefix without a V2 index is read as a V1 checkpoint (a file or a
    // pattern of shard files), the tensors in the order given.
    std::error_code ec;
    if (!std::filesystem::exists(bundle_index_filename(prefix), ec)) {
      TensorSliceReader v1(prefix);
      ACTORFLOW_RETURN_IF_ERROR(v1.status());
      for (std::size_t i = 0; i < n; ++i) {
        StatusOr<Tensor> value = detail::restore_v1_tensor(v1, names[i], slices[i], dtypes_[i]);
        if (!value.ok()) return value.status();
        ctx.set_output(static_cast<int>(i), std::move(*value));
      }
      return {};
    }
    BundleReader reader(prefix);
    ACTORFLOW_RETURN_IF_ERROR(reader.status());

    // As TensorFlow: names in sorted order, all dtype mismatches reported together.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
    std::string mismatches;
    for (std::size_t i : order) {
      StatusOr<BundleEntryInfo> info = reader.lookup_dtype_and_shape(names[i]);
      if (!info.ok()) return info.status();
      if (tf_data_type(dtypes_[i]) != info->tf_dtype) {
        if (!mismatches.empty()) mismatches += "\n";
        mismatches += "tensor_name = " + names[i] + "; expected dtype " +
                      tf_data_type_string(tf_data_type(dtypes_[i])) +
                      " does not equal original dtype " + tf_data_type_string(info->tf_dtype);
      }
    }
    if (!mismatches.empty()) return invalid_argument(mismatches);

    // The parts of partitioned variables: each spec's slice of a tensor of the same shape,
    // whatever slices the checkpoint holds it in.
    std::vector<std::optional<ShapeAndSlice>> specs(n);
    for (std::size_t i : order) {
      if (slices[i].empty()) continue;
      StatusOr<ShapeAndSlice> spec = parse_shape_and_slice(slices[i]);
      if (!spec.ok()) return spec.status();
      const Shape stored = reader.lookup_dtype_and_shape(names[i])->shape;
      if (stored != spec->full_shape)
        return invalid_argument(
            "tensor_name = " + names[i] + "; shape in shape_and_slice spec " +
            spec->full_shape.to_string() +
            " does not match the shape stored in checkpoint: " + stored.to_string());
      specs[i] = std::move(*spec);
    }
    // Tensors are read (and their checksums computed) on the intra-op threads side by side,
    // as TensorFlow's RestoreTensorsV2 reads large tensors on a pool: one thread reading into
    // fresh memory and checksumming gets half of what the page cache gives.
    // The first error in name order is the one reported, however the reads interleave.
    std::vector<Status> errors(n);
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
      for (std::size_t k; (k = next.fetch_add(1)) < n;) {
        const std::size_t i = order[k];
        StatusOr<Tensor> value =
            specs[i] ? reader.lookup_slice(names[i], specs[i]->slice) : reader.lookup(names[i]);
        if (value.ok())
          ctx.set_output(static_cast<int>(i), std::move(*value));
        else
          errors[k] = value.status();
      }
    };
    Eigen::ThreadPoolDevice* device = ctx.eigen_device;
    const int helpers = device == nullptr || n < 2
                            ? 0
                            : std::min<int>({ctx.intra_op_threads - 1, device->numThreadsInPool(),
                                             static_cast<int>(n) - 1});
    if (helpers > 0) {
      Eigen::Barrier barrier(static_cast<unsigned>(helpers));
      for (int h = 0; h < helpers; ++h) device->enqueue_with_barrier(&barrier, worker);
      worker();
      barrier.Wait();
    } else {
      worker();
    }
    for (const Status& s : errors)
      if (!s.ok()) return s;
    return {};
  }

  std::vector<DType> dtypes_;
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  MergeV2CheckpointsOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    if (auto v = c.def.attr<bool>("delete_old_dirs")) delete_old_dirs_ = *v;
    (void)s;
  }

  bool is_expensive(const OpKernelContext& /*ctx*/) const override { return true; }

  void compute(OpKernelContext& ctx) override {
    Status s = merge(ctx);
    if (!s.ok()) ctx.fail(s.with_context(node_suffix(name())));
  }

 private:
  Status merge(OpKernelContext& ctx) {
    const Tensor& prefixes = ctx.input(0);
    const Tensor& destination = ctx.input(1);
    if (prefixes.rank() != 1)
      return invalid_argument("Input checkpoint_prefixes should be an 1-D tensor, got " +
                              prefixes.shape().to_string() + " instead.");
    if (destination.rank() != 0)
      return invalid_argument("Input destination_prefix should be a scalar tensor, got " +
                              destination.shape().to_string() + " instead.");
    return merge_bundles(prefixes.to_vector<std::string>(), destination.data<std::string>()[0],
                         delete_old_dirs_);
  }

  bool delete_old_dirs_ = true;
};

}  // namespace

namespace detail {

void register_checkpoint_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SaveV2Op>("SaveV2", "CPU"));
  r.add(make_kernel_def<RestoreV2Op>("RestoreV2", "CPU"));
  r.add(make_kernel_def<MergeV2CheckpointsOp>("MergeV2Checkpoints", "CPU"));
  register_checkpoint_v1_kernels(r);
}

}  // namespace detail

}  // namespace af
