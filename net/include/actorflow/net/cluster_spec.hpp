#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace af {

/// A cluster: jobs of tasks, each task a `host:port` address (TensorFlow's
/// `tf.train.ClusterSpec`). Jobs may be dense (a list: task i is the i-th address) or sparse
/// (explicit task indices). Lookups of unknown jobs or tasks throw InvalidArgumentError in
/// TensorFlow's words ("No such job in cluster: 'ps'").
class ClusterSpec {
 public:
  /// Task index -> `host:port` of one job.
  using Tasks = std::map<int, std::string>;

  /// An empty cluster (no jobs).
  ClusterSpec() = default;
  /// Dense jobs: `{"ps": {"127.0.0.1:2221"}, "worker": {"127.0.0.1:2222", "127.0.0.1:2223"}}`.
  /// Throws InvalidArgumentError for an invalid job name or address (both constructors).
  ClusterSpec(const std::map<std::string, std::vector<std::string>>&
                  jobs);  // NOLINT: implicit like TF's dict
  /// Sparse jobs: `{"worker": {{1, "127.0.0.1:2223"}}}`.
  ClusterSpec(std::map<std::string, Tasks> jobs);  // NOLINT

  /// Parses `{"ps": ["host:port", ...], "worker": {"1": "host:port"}}`. Throws
  /// InvalidArgumentError naming the job and task for malformed input.
  static ClusterSpec from_json(std::string_view json);
  /// Dense jobs as lists, sparse ones as objects keyed by task index.
  std::string to_json(int indent = -1) const;

  /// Job names, sorted.
  std::vector<std::string> jobs() const;
  /// The number of tasks of `job`; throws InvalidArgumentError for an unknown job.
  int num_tasks(const std::string& job) const;
  /// Task indices of `job`, ascending.
  std::vector<int> task_indices(const std::string& job) const;
  /// The address of task `task` of `job`; throws InvalidArgumentError when there is none.
  const std::string& task_address(const std::string& job, int task) const;
  /// The tasks of `job`; throws InvalidArgumentError ("No such job in cluster: 'ps'").
  const Tasks& job_tasks(const std::string& job) const;
  /// Every job's tasks.
  const std::map<std::string, Tasks>& as_map() const noexcept { return jobs_; }
  /// True when the cluster has no jobs.
  bool empty() const noexcept { return jobs_.empty(); }
  friend bool operator==(const ClusterSpec&, const ClusterSpec&) = default;

  /// Splits `host:port` (`[v6]:port` for IPv6); throws InvalidArgumentError naming the
  /// address when the port is missing or not in 0..65535.
  static std::pair<std::string, std::uint16_t> split_address(const std::string& address);

 private:
  void validate() const;
  std::map<std::string, Tasks> jobs_;
};

}  // namespace af
