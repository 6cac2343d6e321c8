#include "actorflow/actors/step_stats.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "actorflow/ops/errors.hpp"

namespace af {

namespace {

/// `/job:ps/replica:0/task:0` of a full device name; the name itself when it has no task.
std::string task_of(const std::string& device) {
  auto pos = device.find("/device:");
  return pos == std::string::npos ? device : device.substr(0, pos);
}

/// `CPU:0` of a full device name.
std::string short_device(const std::string& device) {
  auto pos = device.find("/device:");
  return pos == std::string::npos ? device : device.substr(pos + 8);
}

}  // namespace

std::string RunMetadata::chrome_trace() const {
  using nlohmann::json;
  json events = json::array();
  std::map<std::string, int> pids;  // by task
  for (auto& s : step_stats) pids.emplace(task_of(s.device), 0);
  int next_pid = 1;
  for (auto& [task, pid] : pids) {
    pid = next_pid++;
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", pid},
                      {"tid", 0},
                      {"args", {{"name", task}}}});
  }
  auto pid_of = [&](const NodeExecStats& s) { return pids[task_of(s.device)]; };
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
  std::map<const NodeExecStats*, int> placed;  // event -> its tid
  int next_tid = 1;
  for (auto* s : sorted) {
    auto& device_lanes = lanes[s->device];
    std::size_t chosen = device_lanes.size();
    for (std::size_t i = 0; i < device_lanes.size(); ++i) {
      auto& lane = device_lanes[i];
      if (!s->async && lane.thread != s->thread_id) continue;
      if (s->async && lane.label.rfind("async", 0) != 0) continue;
      while (!lane.open_ends.empty() && lane.open_ends.back() <= s->start_us)
        lane.open_ends.pop_back();
      if (lane.open_ends.empty() || s->end_us <= lane.open_ends.back()) {
        chosen = i;
        break;
      }
    }
    if (chosen == device_lanes.size()) {
      std::string label =
          short_device(s->device) + (s->async ? " async kernels " + std::to_string(chosen)
                                              : " thread " + std::to_string(s->thread_id % 100000));
      device_lanes.push_back({s->thread_id, label, {}});
    }
    auto& lane = device_lanes[chosen];
    while (!lane.open_ends.empty() && lane.open_ends.back() <= s->start_us)
      lane.open_ends.pop_back();
    lane.open_ends.push_back(s->end_us);
    auto key = std::make_pair(s->device, chosen);
    auto [it, fresh] = tids.emplace(key, next_tid);
    if (fresh) {
      ++next_tid;
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", pid_of(*s)},
                        {"tid", it->second},
                        {"args", {{"name", lane.label}}}});
    }
    placed[s] = it->second;
    events.push_back({{"ph", "X"},
                      {"name", s->node_name},
                      {"cat", s->op},
                      {"pid", pid_of(*s)},
                      {"tid", it->second},
                      {"ts", s->start_us},
                      {"dur", std::max<std::int64_t>(0, s->end_us - s->start_us)},
                      {"args", {{"op", s->op}, {"device", s->device}, {"async", s->async}}}});
  }
  // Flow arrows for tensors crossing tasks: from the end of the _Send to the end of the
  // _Recv that took it.
  std::map<std::string, const NodeExecStats*> sends;
  for (auto& s : step_stats)
    if (s.op == "_Send" && !s.transfer.empty()) sends[s.transfer] = &s;
  int flow_id = 1;
  for (auto& r : step_stats) {
    if (r.op != "_Recv" || r.transfer.empty()) continue;
    auto it = sends.find(r.transfer);
    if (it == sends.end() || task_of(it->second->device) == task_of(r.device)) continue;
    const NodeExecStats& snd = *it->second;
    events.push_back({{"ph", "s"},
                      {"name", "tensor"},
                      {"cat", "transfer"},
                      {"id", flow_id},
                      {"pid", pid_of(snd)},
                      {"tid", placed[&snd]},
                      {"ts", snd.end_us},
                      {"args", {{"key", r.transfer}}}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"name", "tensor"},
                      {"cat", "transfer"},
                      {"id", flow_id},
                      {"pid", pid_of(r)},
                      {"tid", placed[&r]},
                      {"ts", std::max(r.end_us, snd.end_us)}});
    ++flow_id;
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
