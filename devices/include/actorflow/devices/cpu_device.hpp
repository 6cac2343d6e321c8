#pragma once

#include <memory>

#include "actorflow/actors/device.hpp"

namespace af {

/// The CPU device (`/device:CPU:N`): kernels run inline in its actor or on the inter-op
/// pool; multi-threaded kernels use the intra-op pool. Pools are the process-wide ones
/// unless `SessionConfig::use_per_session_threads`.
class CpuDevice : public Device {
 public:
  /// A CPU device running its kernels on `pools` (shared with other devices).
  CpuDevice(DeviceAttributes attributes, std::shared_ptr<ThreadPools> pools);
  /// Drops the device's resources first, while its pools still run: a resource may own
  /// threads that use them (a prefetching dataset iterator's workers).
  ~CpuDevice() override;
  /// Runs `fn` on the inter-op pool.
  void schedule(std::function<void()> fn) override;
  /// The intra-op pool's Eigen device.
  Eigen::ThreadPoolDevice* intra_op_device() noexcept override;
  /// Threads of the intra-op pool.
  int intra_op_threads() const noexcept override;
  /// Threads of the inter-op pool.
  int inter_op_threads() const noexcept override;

 private:
  std::shared_ptr<ThreadPools> pools_;
};

/// Registers the CPU device factory (idempotent). Returns true.
bool register_cpu_device_factory();

namespace detail {
// Including this header registers the CPU device in every program that does.
inline const bool cpu_device_registered = register_cpu_device_factory();
}  // namespace detail

}  // namespace af
