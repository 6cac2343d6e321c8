#include "actorflow/actors/step_stats.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "actorflow/ops/errors.hpp"

namespace af {

std::string RunMetadata::chrome_trace() const {
  using nlohmann::json;
  json events = json::array();
  std::map<std::string, int> pids;
  for (auto& s : step_stats) pids.emplace(s.device, 0);
  int next_pid = 1;
  for (auto& [device, pid] : pids) {
    pid = next_pid++;
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0},
                      {"args", {{"name", device}}}});
  }
  // Lanes: per (device, thread) events sorted by start; an event goes to the first lane where
  // it nests in or follows what is open there, so every track holds nested events only.
  struct Lane {
    std::uint64_t thread;
    std::string label;
    std::vector<std::int64_t> open_ends;  // stack of end times
  };
  std::map<std::string, std::vector<Lane>> lanes;
  std::vector<const NodeExecStats*> sorted;
  for (auto& s : step_stats) sorted.push_back(&s);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) {
    if (a->start_us != b->start_us) return a->start_us < b->start_us;
    return a->end_us > b->end_us;  // outer first
  });
  std::map<std::pair<std::string, std::size_t>, int> tids;
  int next_tid = 1;
  for (auto* s : sorted) {
    auto& device_lanes = lanes[s->device];
    std::size_t chosen = device_lanes.size();
    for (std::size_t i = 0; i < device_lanes.size(); ++i) {
      auto& lane = device_lanes[i];
      if (!s->async && lane.thread != s->thread_id) continue;
      if (s->async && lane.label.rfind("async", 0) != 0) continue;
      while (!lane.open_ends.empty() && lane.open_ends.back() <= s->start_us) lane.open_ends.pop_back();
      if (lane.open_ends.empty() || s->end_us <= lane.open_ends.back()) {
        chosen = i;
        break;
      }
    }
    if (chosen == device_lanes.size()) {
      std::string label = s->async ? "async kernels " + std::to_string(chosen)
                                   : "thread " + std::to_string(s->thread_id % 100000);
      device_lanes.push_back({s->thread_id, label, {}});
    }
    auto& lane = device_lanes[chosen];
    while (!lane.open_ends.empty() && lane.open_ends.back() <= s->start_us) lane.open_ends.pop_back();
    lane.open_ends.push_back(s->end_us);
    auto key = std::make_pair(s->device, chosen);
    auto [it, fresh] = tids.emplace(key, next_tid);
    if (fresh) {
      ++next_tid;
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pids[s->device]},
                        {"tid", it->second}, {"args", {{"name", lane.label}}}});
    }
    events.push_back({{"ph", "X"},
                      {"name", s->node_name},
                      {"cat", s->op},
                      {"pid", pids[s->device]},
                      {"tid", it->second},
                      {"ts", s->start_us},
                      {"dur", std::max<std::int64_t>(0, s->end_us - s->start_us)},
                      {"args", {{"op", s->op}, {"device", s->device}, {"async", s->async}}}});
  }
  return json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump(1);
}

void RunMetadata::write_chrome_trace(const std::string& path) const {
  std::ofstream out(path);
  if (!out) throw NotFoundError(af::not_found("cannot open trace file " + path));
  out << chrome_trace();
  if (!out) throw DataLossError(af::data_loss("failed writing trace file " + path));
}

}  // namespace af
