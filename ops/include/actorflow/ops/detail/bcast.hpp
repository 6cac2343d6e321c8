#pragma once

// TensorFlow's BCast reduction indices, which the gradient walk
// (ops/src/gradients/gradients.cpp) and the BroadcastGradientArgs kernel (kernels module)
// share. Defined in ops/src/defs/nn_grad_ops.cpp.
#include <cstdint>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af::detail {

/// TensorFlow's BCast reduction indices for a broadcasting binary op of shapes `sx` and
/// `sy`: the axes of the result each side's gradient is summed over. InvalidArgument
/// "Incompatible shapes: [..] vs. [..]" when they do not broadcast.
Status broadcast_reduction_axes(const std::vector<std::int64_t>& sx,
                                const std::vector<std::int64_t>& sy, std::vector<std::int64_t>* rx,
                                std::vector<std::int64_t>* ry);

}  // namespace af::detail
