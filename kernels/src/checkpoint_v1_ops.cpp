// Save, SaveSlices, Restore, RestoreSlice and ShardedFilespec (TensorFlow's save_op.cc,
// restore_op.cc, save_restore_tensor.cc): CPU kernels over the V1 checkpoint format
// (actorflow/ops/tensor_slice_checkpoint.hpp), and the V1 path of RestoreV2
// (checkpoint_ops.cpp) for a prefix without a V2 index. The ops' definitions are in
// ops/src/defs/checkpoint_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/tensor_slice_checkpoint.hpp"
#include "checkpoint_v1.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::node_suffix;

// "Input 0 (filename) must be a string scalar; got a tensor of N elements" unless `t` holds
// one element.
Status one_element(const Tensor& t, int index, const std::string& what) {
  if (t.num_elements() == 1) return {};
  return invalid_argument("Input " + std::to_string(index) + " (" + what +
                          ") must be a string scalar; got a tensor of " +
                          std::to_string(t.num_elements()) + " elements");
}

// A kernel whose work returns a Status, failing the step with it and the node's name; it
// reads or writes files, so it runs on a pool thread.
class CheckpointKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& /*ctx*/) const override { return true; }

  void compute(OpKernelContext& ctx) override {
    Status s = run(ctx);
    if (!s.ok()) ctx.fail(s.with_context(node_suffix(name())));
  }

 protected:
  virtual Status run(OpKernelContext& ctx) = 0;
};

// SaveTensors: Save(filename, tensor_names, data) and SaveSlices(filename, tensor_names,
// shapes_and_slices, data) write one V1 file, the tensors in name order.
template <bool kSlices>
class SaveOp : public CheckpointKernel {
 public:
  using CheckpointKernel::CheckpointKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    ACTORFLOW_RETURN_IF_ERROR(one_element(ctx.input(0), 0, "filename"));
    const int fixed = kSlices ? 3 : 2;
    const Tensor& names_t = ctx.input(1);
    const auto n = static_cast<std::size_t>(names_t.num_elements());
    const std::string* names = names_t.data<std::string>();
    const std::string* specs = nullptr;
    if (kSlices) {
      const Tensor& specs_t = ctx.input(2);
      if (specs_t.num_elements() != names_t.num_elements())
        return invalid_argument("Expected " + std::to_string(n) +
                                " elements for the tensor shapes and slices but got " +
                                std::to_string(specs_t.num_elements()));
      specs = specs_t.data<std::string>();
    }
    if (ctx.num_inputs() != static_cast<int>(n) + fixed)
      return invalid_argument("Expected totally " + std::to_string(n + fixed) +
                              " inputs as input #1 (which is a string tensor of saved names) "
                              "contains " +
                              std::to_string(n) + " names, but received " +
                              std::to_string(ctx.num_inputs()) + " inputs");
    TensorSliceWriter writer(ctx.input(0).data<std::string>()[0]);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return names[a] < names[b]; });
    for (std::size_t i : order) {
      const Tensor& input = ctx.input(static_cast<int>(i) + fixed);
      Shape shape = input.shape();
      TensorSlice slice(input.rank());
      if (specs && !specs[i].empty()) {
        StatusOr<ShapeAndSlice> spec = parse_shape_and_slice(specs[i]);
        if (!spec.ok()) return spec.status();
        if (spec->slice_shape != input.shape())
          return invalid_argument(
              "Slice in shape_and_slice specification does not match the shape of the tensor "
              "to  save: " +
              specs[i] + ", tensor: " + input.shape().to_string());
        shape = spec->full_shape;
        slice = spec->slice;
      }
      ACTORFLOW_RETURN_IF_ERROR(writer.add(names[i], shape, slice, input));
    }
    return writer.finish();
  }
};

// RestoreTensor: Restore(file_pattern, tensor_name) and RestoreSlice(file_pattern,
// tensor_name, shape_and_slice) read one tensor (or slice) of a V1 checkpoint.
template <bool kSlice>
class RestoreOp : public CheckpointKernel {
 public:
  RestoreOp(OpKernelConstruction& c, Status* s) : CheckpointKernel(c) {
    *s = c.get_attr("dt", &dt_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    ACTORFLOW_RETURN_IF_ERROR(one_element(ctx.input(0), 0, "file_pattern"));
    ACTORFLOW_RETURN_IF_ERROR(one_element(ctx.input(1), 1, "tensor_name"));
    if (kSlice && ctx.input(2).num_elements() != 1)
      return invalid_argument("Expected 1 element for the tensor shape and slice but got " +
                              std::to_string(ctx.input(2).num_elements()));
    TensorSliceReader reader(ctx.input(0).data<std::string>()[0]);
    ACTORFLOW_RETURN_IF_ERROR(reader.status());
    const std::string spec = kSlice ? ctx.input(2).data<std::string>()[0] : std::string();
    StatusOr<Tensor> value =
        detail::restore_v1_tensor(reader, ctx.input(1).data<std::string>()[0], spec, dt_);
    if (!value.ok()) return value.status();
    ctx.set_output(0, std::move(*value));
    return {};
  }

 private:
  DType dt_ = DType::invalid;
};

// ShardedFilespec(basename, num_shards): "<basename>-?????-of-<num_shards as %05d>".
class ShardedFilespecOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor &base = ctx.input(0), &shards = ctx.input(1);
    for (const Tensor* t : {&base, &shards})
      if (t->num_elements() != 1)
        return ctx.fail(invalid_argument("ShardedFilespec expects scalars, got a tensor of shape " +
                                         t->shape().to_string()));
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, "-????\?-of-%05d", shards.data<std::int32_t>()[0]);
    ctx.allocate_output(0, DType::string, Shape{}).data<std::string>()[0] =
        base.data<std::string>()[0] + suffix;
  }
};

}  // namespace

namespace detail {

StatusOr<Tensor> restore_v1_tensor(const TensorSliceReader& reader, const std::string& name,
                                   const std::string& spec, DType dtype) {
  StatusOr<BundleEntryInfo> info = reader.lookup_dtype_and_shape(name);
  if (!info.ok()) return info.status();
  if (info->tf_dtype != tf_data_type(dtype))
    return invalid_argument("Expected to restore a tensor of type " +
                            tf_data_type_string(tf_data_type(dtype)) + ", got a tensor of type " +
                            tf_data_type_string(info->tf_dtype) +
                            " instead: tensor_name = " + name);
  TensorSlice slice(info->shape.rank());
  if (!spec.empty()) {
    StatusOr<ShapeAndSlice> parsed = parse_shape_and_slice(spec);
    if (!parsed.ok()) return parsed.status();
    if (parsed->full_shape != info->shape)
      return invalid_argument(
          "Shape in shape_and_slice spec does not match the shape in the save file: " +
          parsed->full_shape.to_string() + ", save file shape: " + info->shape.to_string());
    slice = parsed->slice;
  }
  return reader.lookup_slice(name, slice);
}

void register_checkpoint_v1_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SaveOp<false>>("Save", "CPU"));
  r.add(make_kernel_def<SaveOp<true>>("SaveSlices", "CPU"));
  r.add(make_kernel_def<RestoreOp<false>>("Restore", "CPU"));
  r.add(make_kernel_def<RestoreOp<true>>("RestoreSlice", "CPU"));
  r.add(make_kernel_def<ShardedFilespecOp>("ShardedFilespec", "CPU"));
}

}  // namespace detail

}  // namespace af
