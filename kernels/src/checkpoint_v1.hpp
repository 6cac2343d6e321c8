#pragma once

// What the V1 checkpoint kernels (checkpoint_v1_ops.cpp) share with RestoreV2
// (checkpoint_ops.cpp), which reads a V1 checkpoint when its prefix has no `.index` file.
#include <string>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/tensor_slice_checkpoint.hpp"

namespace af::detail {

/// RestoreTensor: the tensor `name` of `reader`'s checkpoint, or the slice of it that the
/// shape-and-slice `spec` names ("" for all of it), checked to be of `dtype`. Errors
/// (TensorFlow's texts): NotFound "Tensor name \"N\" not found in checkpoint files P";
/// InvalidArgument "Expected to restore a tensor of type float, got a tensor of type int32
/// instead: tensor_name = N", "Shape in shape_and_slice spec does not match the shape in the
/// save file: [4,3], save file shape: [4,2]", a spec's parse error; those of
/// `TensorSliceReader::lookup_slice`.
StatusOr<Tensor> restore_v1_tensor(const TensorSliceReader& reader, const std::string& name,
                                   const std::string& spec, DType dtype);

/// Registers Save, SaveSlices, Restore, RestoreSlice and ShardedFilespec.
void register_checkpoint_v1_kernels(KernelRegistry& r);

}  // namespace af::detail
