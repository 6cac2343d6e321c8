#include "actorflow/devices/cpu_device.hpp"

#include "actorflow/actors/session.hpp"

namespace af {

CpuDevice::CpuDevice(DeviceAttributes attributes, std::shared_ptr<ThreadPools> pools)
    : Device(std::move(attributes)), pools_(std::move(pools)) {}

CpuDevice::~CpuDevice() { resource_mgr().clear(); }

void CpuDevice::schedule(std::function<void()> fn) { pools_->schedule(std::move(fn)); }

Eigen::ThreadPoolDevice* CpuDevice::intra_op_device() noexcept { return pools_->intra_op_device(); }

int CpuDevice::intra_op_threads() const noexcept { return pools_->intra_op_threads(); }
int CpuDevice::inter_op_threads() const noexcept { return pools_->inter_op_threads(); }

namespace {

class CpuDeviceFactory : public DeviceFactory {
 public:
  void create_devices(Runtime& runtime, const SessionConfig& config, const std::string& prefix,
                      std::vector<std::unique_ptr<Device>>* out) override {
    int count = 1;
    if (auto it = config.device_count.find("CPU"); it != config.device_count.end())
      count = std::max(1, it->second);  // a session always has CPU:0
    auto pools = config.use_per_session_threads
                     ? std::make_shared<ThreadPools>(config.inter_op_parallelism_threads,
                                                     config.intra_op_parallelism_threads)
                     : runtime.shared_pools(config.inter_op_parallelism_threads,
                                            config.intra_op_parallelism_threads);
    for (int i = 0; i < count; ++i) {
      DeviceAttributes attrs;
      attrs.name = prefix + "/device:CPU:" + std::to_string(i);
      attrs.device_type = "CPU";
      attrs.description = "host CPU";
      out->push_back(std::make_unique<CpuDevice>(attrs, pools));
    }
  }
};

}  // namespace

bool register_cpu_device_factory() {
  DeviceFactory::register_factory("CPU", 100, std::make_unique<CpuDeviceFactory>());
  return true;
}

}  // namespace af
