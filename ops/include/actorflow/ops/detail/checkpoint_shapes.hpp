#pragma once

// What the checkpoint ops' definitions (ops/src/defs/checkpoint_ops.cpp) and their CPU
// kernels (kernels/src/checkpoint_ops.cpp) share: the layout of SaveV2's and RestoreV2's
// inputs.

namespace af::detail {

/// SaveV2's and RestoreV2's fixed inputs: prefix, tensor_names, shape_and_slices; SaveV2's
/// tensors follow them.
constexpr int kFixedInputs = 3;

}  // namespace af::detail
