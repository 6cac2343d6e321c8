#pragma once

// The CPU kernels: TensorFlow's op kernels for the standard ops (kernels/src), registered in
// `af::KernelRegistry::global()`. The ops' definitions (shape functions, builders) are the ops
// module's; this module only computes.
#include "actorflow/ops/kernel.hpp"

namespace af {

/// Registers the CPU kernels of the standard ops in `KernelRegistry::global()` now, if that
/// has not happened yet; thread-safe. Including this header is enough for a program's
/// registry to hold them from its first use; this call is for code that wants them sooner.
void register_cpu_kernels();

namespace detail {
/// Adds the CPU kernels to `r` (the module's function; run once, by `KernelRegistry`).
void add_cpu_kernels(KernelRegistry& r);
// Including this header adds the CPU kernels' module in every program that does (the
// runtime does); they register on the registry's first use, after static initialisation.
inline const bool cpu_kernels_added = KernelRegistry::add_module(&add_cpu_kernels);
}  // namespace detail

}  // namespace af
