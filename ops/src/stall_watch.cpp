#include "actorflow/ops/stall_watch.hpp"

#include <algorithm>

namespace af {

StallWatch& StallWatch::global() {
  static auto* watch = new StallWatch();  // never destroyed: kernels may end waits at exit
  return *watch;
}

std::uint64_t StallWatch::begin(StallingWait wait) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::uint64_t id = next_++;
  waits_.emplace(id, Entry{std::move(wait), std::chrono::steady_clock::now()});
  return id;
}

void StallWatch::end(std::uint64_t id) {
  std::function<std::string()> dropped;  // destroyed outside the lock (it may hold resources)
  std::lock_guard<std::mutex> lock(mu_);
  auto it = waits_.find(id);
  if (it == waits_.end()) return;
  dropped = std::move(it->second.wait.waiting_for);
  waits_.erase(it);
}

std::vector<StallWatch::Stalled> StallWatch::stalled(const std::string& device_prefix,
                                                     std::chrono::milliseconds period) const {
  std::vector<std::pair<Stalled, std::function<std::string()>>> found;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    for (const auto& [id, e] : waits_) {
      if (now - e.since < period ||
          e.wait.device.compare(0, device_prefix.size(), device_prefix) != 0)
        continue;
      Stalled s;
      s.kind = e.wait.kind;
      s.what = e.wait.what;
      s.device = e.wait.device;
      s.step_id = e.wait.step_id;
      s.global_step = e.wait.global_step;
      s.waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - e.since);
      s.id = id;
      found.emplace_back(std::move(s), e.wait.waiting_for);
    }
  }
  std::vector<Stalled> out;
  out.reserve(found.size());
  for (auto& [s, describe] : found) {
    if (describe) s.waiting_for = describe();
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(),
            [](const Stalled& a, const Stalled& b) { return a.waited > b.waited; });
  return out;
}

std::size_t StallWatch::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waits_.size();
}

}  // namespace af
