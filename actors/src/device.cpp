#include "actorflow/actors/device.hpp"

#include <algorithm>
#include <mutex>

namespace af {

namespace {

struct FactoryEntry {
  std::string device_type;
  int priority;
  std::unique_ptr<DeviceFactory> factory;
};

std::mutex& factories_mutex() {
  static std::mutex mu;
  return mu;
}

std::vector<FactoryEntry>& factories() {
  static auto* f = new std::vector<FactoryEntry>;  // never destroyed (used at exit)
  return *f;
}

}  // namespace

void DeviceFactory::register_factory(const std::string& device_type, int priority,
                                     std::unique_ptr<DeviceFactory> factory) {
  std::lock_guard<std::mutex> guard(factories_mutex());
  auto& all = factories();
  for (auto& e : all)
    if (e.device_type == device_type) return;
  all.push_back({device_type, priority, std::move(factory)});
  std::stable_sort(all.begin(), all.end(), [](const FactoryEntry& a, const FactoryEntry& b) {
    return a.priority > b.priority;
  });
}

std::vector<std::unique_ptr<Device>> DeviceFactory::create_all(Runtime& runtime,
                                                               const SessionConfig& config,
                                                               const std::string& name_prefix) {
  std::lock_guard<std::mutex> guard(factories_mutex());
  std::vector<std::unique_ptr<Device>> out;
  for (auto& e : factories()) e.factory->create_devices(runtime, config, name_prefix, &out);
  return out;
}

std::vector<std::string> DeviceFactory::device_types() {
  std::lock_guard<std::mutex> guard(factories_mutex());
  std::vector<std::string> out;
  for (auto& e : factories()) out.push_back(e.device_type);
  return out;
}

void Device::forget_kernels(const std::string& prefix) {
  std::lock_guard<std::mutex> lock(kernels_mu_);
  for (auto it = stateful_kernels_.lower_bound(prefix);
       it != stateful_kernels_.end() && it->first.compare(0, prefix.size(), prefix) == 0;)
    it = stateful_kernels_.erase(it);
}

Status Device::find_or_create_kernel(
    const std::string& node_name, bool stateful, std::shared_ptr<OpKernel>* out,
    const std::function<Status(std::unique_ptr<OpKernel>*)>& create) {
  if (!stateful) {
    std::unique_ptr<OpKernel> k;
    ACTORFLOW_RETURN_IF_ERROR(create(&k));
    *out = std::move(k);
    return {};
  }
  std::lock_guard<std::mutex> guard(kernels_mu_);
  auto& slot = stateful_kernels_[node_name];
  if (!slot) {
    std::unique_ptr<OpKernel> k;
    Status s = create(&k);
    if (!s.ok()) {
      stateful_kernels_.erase(node_name);
      return s;
    }
    slot = std::move(k);
  }
  *out = slot;
  return {};
}

}  // namespace af
