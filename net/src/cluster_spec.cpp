// ClusterSpec: TensorFlow's tf.train.ClusterSpec (python/training/server_lib.py).
#include "actorflow/net/cluster_spec.hpp"

#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

#include "actorflow/ops/errors.hpp"

namespace af {

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

bool valid_job_name(const std::string& job) {
  // As device names parse them (DeviceNameUtils): [A-Za-z][_A-Za-z0-9]*.
  if (job.empty() || !std::isalpha(static_cast<unsigned char>(job[0]))) return false;
  for (char c : job)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

ClusterSpec::ClusterSpec(const std::map<std::string, std::vector<std::string>>& jobs) {
  for (const auto& [job, addresses] : jobs) {
    Tasks& tasks = jobs_[job];
    for (std::size_t i = 0; i < addresses.size(); ++i) tasks[static_cast<int>(i)] = addresses[i];
  }
  validate();
}

ClusterSpec::ClusterSpec(std::map<std::string, Tasks> jobs) : jobs_(std::move(jobs)) { validate(); }

void ClusterSpec::validate() const {
  for (const auto& [job, tasks] : jobs_) {
    if (!valid_job_name(job))
      invalid("ClusterSpec: job name " + quoted(job) +
              " is not a valid name ([A-Za-z][_A-Za-z0-9]*)");
    for (const auto& [task, address] : tasks) {
      if (task < 0)
        invalid("ClusterSpec: job " + quoted(job) + " has a negative task index " +
                std::to_string(task));
      try {
        split_address(address);
      } catch (const InvalidArgumentError& e) {
        invalid("ClusterSpec: job " + quoted(job) + " task " + std::to_string(task) + ": " +
                e.what());
      }
    }
  }
}

std::pair<std::string, std::uint16_t> ClusterSpec::split_address(const std::string& address) {
  std::string host;
  std::string_view port;
  if (!address.empty() && address[0] == '[') {
    auto close = address.find(']');
    if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':')
      invalid("address " + quoted(address) + " is not [host]:port");
    host = address.substr(1, close - 1);
    port = std::string_view(address).substr(close + 2);
  } else {
    auto colon = address.rfind(':');
    if (colon == std::string::npos || address.find(':') != colon)
      invalid("address " + quoted(address) + " is not host:port");
    host = address.substr(0, colon);
    port = std::string_view(address).substr(colon + 1);
  }
  unsigned value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (host.empty() || port.empty() || ec != std::errc() || end != port.data() + port.size() ||
      value > 65535)
    invalid("address " + quoted(address) + " needs a host and a port in 0..65535");
  return {host, static_cast<std::uint16_t>(value)};
}

ClusterSpec ClusterSpec::from_json(std::string_view text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    invalid(std::string("ClusterSpec JSON: ") + e.what());
  }
  if (!doc.is_object())
    invalid(
        "ClusterSpec JSON: expected an object of jobs, e.g. {\"worker\": [\"127.0.0.1:2222\"]}");
  std::map<std::string, Tasks> jobs;
  for (auto& [job, value] : doc.items()) {
    Tasks& tasks = jobs[job];
    if (value.is_array()) {
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string())
          invalid("ClusterSpec JSON: job " + quoted(job) + " task " + std::to_string(i) +
                  ": address must be a string");
        tasks[static_cast<int>(i)] = value[i].get<std::string>();
      }
    } else if (value.is_object()) {
      for (auto& [index, address] : value.items()) {
        int task = -1;
        auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), task);
        if (ec != std::errc() || end != index.data() + index.size() || task < 0)
          invalid("ClusterSpec JSON: job " + quoted(job) + ": task index " + quoted(index) +
                  " is not a non-negative integer");
        if (!address.is_string())
          invalid("ClusterSpec JSON: job " + quoted(job) + " task " + index +
                  ": address must be a string");
        tasks[task] = address.get<std::string>();
      }
    } else {
      invalid("ClusterSpec JSON: job " + quoted(job) +
              " must be a list of addresses or an object {task: address}");
    }
  }
  return ClusterSpec(std::move(jobs));
}

std::string ClusterSpec::to_json(int indent) const {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [job, tasks] : jobs_) {
    bool dense = true;
    int expect = 0;
    for (const auto& [task, address] : tasks) dense = dense && task == expect++;
    if (dense) {
      auto list = nlohmann::json::array();
      for (const auto& [task, address] : tasks) list.push_back(address);
      doc[job] = list;
    } else {
      auto map = nlohmann::json::object();
      for (const auto& [task, address] : tasks) map[std::to_string(task)] = address;
      doc[job] = map;
    }
  }
  return doc.dump(indent);
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> out;
  for (const auto& [job, tasks] : jobs_) out.push_back(job);
  return out;
}

const ClusterSpec::Tasks& ClusterSpec::job_tasks(const std::string& job) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) invalid("No such job in cluster: " + quoted(job));
  return it->second;
}

int ClusterSpec::num_tasks(const std::string& job) const {
  return static_cast<int>(job_tasks(job).size());
}

std::vector<int> ClusterSpec::task_indices(const std::string& job) const {
  std::vector<int> out;
  for (const auto& [task, address] : job_tasks(job)) out.push_back(task);
  return out;
}

const std::string& ClusterSpec::task_address(const std::string& job, int task) const {
  const Tasks& tasks = job_tasks(job);
  auto it = tasks.find(task);
  if (it == tasks.end())
    invalid("No task with index " + std::to_string(task) + " in job " + quoted(job));
  return it->second;
}

}  // namespace af
