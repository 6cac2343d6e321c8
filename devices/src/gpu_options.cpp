#include "actorflow/devices/gpu_options.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <set>

#include "actorflow/devices/gpu_device.hpp"

namespace af {

std::size_t min_system_memory(std::size_t available) noexcept {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  if (available < (std::size_t{1} << 31)) return 225 * kMiB;
  return std::max<std::size_t>(300 * kMiB,
                               static_cast<std::size_t>(static_cast<double>(available) * 0.06));
}

StatusOr<std::size_t> gpu_memory_limit(const GPUOptions& options, std::size_t total,
                                       std::size_t free) {
  const double fraction = options.per_process_gpu_memory_fraction;
  if (!(fraction >= 0.0 && fraction <= 1.0))
    return invalid_argument("gpu_options.per_process_gpu_memory_fraction must be in [0, 1], got " +
                            std::to_string(fraction));
  if (fraction > 0.0) return static_cast<std::size_t>(static_cast<double>(total) * fraction);
  const std::size_t reserve = min_system_memory(free);
  return free > reserve ? free - reserve : std::size_t{0};
}

StatusOr<std::vector<int>> visible_gpu_ids(const std::string& list, int count) {
  std::vector<int> ids;
  if (list.empty()) {
    for (int i = 0; i < count; ++i) ids.push_back(i);
    return ids;
  }
  std::set<int> seen;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string entry = list.substr(start, comma - start);
    int id = -1;
    auto [end, ec] = std::from_chars(entry.data(), entry.data() + entry.size(), id);
    if (entry.empty() || ec != std::errc() || end != entry.data() + entry.size() || id < 0)
      return invalid_argument("Could not parse entry in 'visible_device_list': '" + entry +
                              "'. visible_device_list = " + list);
    if (id >= count)
      return invalid_argument("'visible_device_list' listed an invalid GPU id '" +
                              std::to_string(id) + "' but visible device count is " +
                              std::to_string(count));
    if (!seen.insert(id).second)
      return invalid_argument("visible_device_list contained a duplicate entry: " + list);
    ids.push_back(id);
    start = comma + 1;
  }
  return ids;
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%zu B", bytes);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

#ifndef ACTORFLOW_HAVE_CUDA
// A build without CUDA: no GPU devices (the CUDA build defines these in src/cuda/).
std::vector<GpuInfo> list_gpus() { return {}; }
std::string gpu_unavailable_reason() { return "actorflow was built without CUDA"; }
bool built_with_cuda() noexcept { return false; }
bool register_gpu_device_factory() { return false; }
Tensor pinned_host_tensor(DType dtype, const Shape& shape) {
  return Tensor(dtype, shape, Tensor::for_overwrite);
}
#endif

}  // namespace af
