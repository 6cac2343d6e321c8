// The run's machine-readable record (`actorflow-bench --json FILE`): what each benchmark
// measured, beside its baseline, with the machine and the commit.
#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench_util.hpp"

namespace af::bench {

namespace {

std::mutex& rows_mu() {
  static std::mutex mu;
  return mu;
}

std::vector<BenchRow>& rows() {
  static std::vector<BenchRow> all;
  return all;
}

nlohmann::json summary(const std::vector<double>& v) {
  if (v.empty()) return nullptr;
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {{"median", median_of(v)}, {"min", *lo}, {"max", *hi}, {"runs", v.size()}};
}

}  // namespace

PairRatio record(BenchRow row) {
  const PairRatio r = pair_ratio(row.ours, row.baseline);
  std::lock_guard<std::mutex> lock(rows_mu());
  rows().push_back(std::move(row));
  return r;
}

PinnedProcess::PinnedProcess(int cpus, bool last) {
  cpu_set_t allowed, pinned;
  CPU_ZERO(&pinned);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  std::vector<int> chosen;
  for (int i = 0; i < CPU_SETSIZE && static_cast<int>(chosen.size()) < cpus; ++i) {
    const int c = last ? CPU_SETSIZE - 1 - i : i;
    if (CPU_ISSET(c, &allowed)) chosen.push_back(c);
  }
  std::sort(chosen.begin(), chosen.end());
  for (int c : chosen) {
    CPU_SET(c, &pinned);
    text_ += (text_.empty() ? "" : ",") + std::to_string(c);
  }
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return;
  while (dirent* e = ::readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
    cpu_set_t own;
    if (tid <= 0 || ::sched_getaffinity(tid, sizeof own, &own) != 0) continue;
    if (::sched_setaffinity(tid, sizeof pinned, &pinned) == 0) saved_.emplace_back(tid, own);
  }
  ::closedir(dir);
}

PinnedProcess::~PinnedProcess() {
  for (auto& [tid, own] : saved_) ::sched_setaffinity(tid, sizeof own, &own);
}

std::string machine_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
}

bool write_results_json(const std::string& path, const std::string& commit) {
  nlohmann::json out;
  out["machine"] = machine_description();
  out["commit"] = commit;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  out["date"] = date;
  auto& list = out["rows"] = nlohmann::json::array();
  std::lock_guard<std::mutex> lock(rows_mu());
  for (const auto& row : rows()) {
    nlohmann::json j{{"id", row.id},
                     {"what", row.what},
                     {"unit", row.unit},
                     {"ours", summary(row.ours)},
                     {"target", row.target}};
    j["ours_values"] = row.ours;
    if (!row.baseline.empty()) {
      j["baseline"] = summary(row.baseline);
      j["baseline_values"] = row.baseline;
      j["baseline_what"] = row.baseline_what;
      const PairRatio r = pair_ratio(row.ours, row.baseline);
      j["pair_ratio"] = {{"median", r.median}, {"min", r.min}, {"max", r.max}, {"pairs", r.pairs}};
    }
    list.push_back(std::move(j));
  }
  std::ofstream file(path);
  file << out.dump(2) << "\n";
  if (!file) {
    std::fprintf(stderr, "actorflow-bench: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

bool merge_results_json(const std::string& path) {
  std::ifstream file(path);
  const nlohmann::json in = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (in.is_discarded() || !in.contains("rows") || !in["rows"].is_array()) {
    std::fprintf(stderr, "actorflow-bench: no rows to merge in %s\n", path.c_str());
    return false;
  }
  for (const auto& j : in["rows"]) {
    BenchRow row;
    row.id = j.value("id", "");
    row.what = j.value("what", "");
    row.unit = j.value("unit", "");
    row.target = j.value("target", "");
    row.baseline_what = j.value("baseline_what", "");
    row.ours = j.value("ours_values", std::vector<double>{});
    row.baseline = j.value("baseline_values", std::vector<double>{});
    record(std::move(row));
  }
  return true;
}

}  // namespace af::bench
