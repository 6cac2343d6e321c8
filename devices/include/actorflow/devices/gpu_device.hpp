#pragma once

#include "actorflow/devices/gpu_options.hpp"

namespace af {

/// Registers the GPU device factory (idempotent): sessions then get one `/device:GPU:N`
/// device actor per GPU CUDA shows the process (after `CUDA_VISIBLE_DEVICES` and
/// `gpu_options.visible_device_list`, at most `device_count["GPU"]`), with GPU kernels for
/// element-wise math, MatMul (cuBLAS), Conv2D and its gradients and Softmax (cuDNN),
/// pooling, BiasAdd, reductions, Cast and random ops. Returns false in a build without
/// CUDA, where sessions have no GPU devices. A machine without a GPU just has none.
bool register_gpu_device_factory();

namespace detail {
// Including this header registers the GPU device in every program that does.
inline const bool gpu_device_registered = register_gpu_device_factory();
}  // namespace detail

}  // namespace af
