#pragma once

// A local cluster of one app's processes (actorflow-dist-train, actorflow-wide-deep): `ps`
// parameter servers and `workers` workers on loopback ports picked for the test, each a
// child process with its own log; the workers get the common flags.
#include <sys/wait.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "free_port.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace af::test {

struct AppCluster {
  std::string binary;
  std::string spec;
  std::vector<std::string> common;
  TempDir dir{"af_cluster"};
  ProcessGroup group;

  AppCluster(std::string app, int ps, int workers, std::vector<std::string> flags)
      : binary(std::move(app)), common(std::move(flags)) {
    const auto tasks = [](int n) {
      std::string list;
      for (int k = 0; k < n; ++k)
        list += std::string(k ? ", " : "") + "\"127.0.0.1:" + std::to_string(free_port()) + "\"";
      return list;
    };
    spec = "{\"ps\": [" + tasks(ps) + "], \"worker\": [" + tasks(workers) + "]}";
  }

  /// Starts task `task` of `job` (workers with the common flags, then `extra`), its output
  /// in `log_name`; returns its index in the group.
  std::size_t start(const std::string& job, int task, const std::string& log_name,
                    const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {binary,   "--cluster",         spec, "--job", job,
                                     "--task", std::to_string(task)};
    if (job == "worker") args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return group.spawn(args, (dir.path / log_name).string());
  }

  /// Waits until child `i`'s log matches `pattern`; returns the last match's first group
  /// ("" when it has none), or nullopt when `limit` passed or the child exited first.
  std::optional<std::string> wait_for(std::size_t i, const std::string& pattern,
                                      std::chrono::seconds limit) {
    const std::regex re(pattern);
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      const std::string log = group.log(i);
      std::optional<std::string> last;
      for (auto it = std::sregex_iterator(log.begin(), log.end(), re); it != std::sregex_iterator();
           ++it)
        last = it->size() > 1 ? (*it)[1].str() : std::string();
      if (last) return last;
      if (group.wait(i, std::chrono::milliseconds(0)) != -1) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return std::nullopt;
  }

  /// Waits for child `i` to exit; true when it exited with status 0. `last_exit()` says how
  /// it ended otherwise.
  bool exits_cleanly(std::size_t i, std::chrono::seconds limit) {
    const int status = group.wait(i, limit);
    last_exit_ = status == -1          ? "still running, or reaped before"
                 : WIFEXITED(status)   ? "exit status " + std::to_string(WEXITSTATUS(status))
                 : WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                       : "wait status " + std::to_string(status);
    return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

  /// How the child of the last `exits_cleanly` call ended ("exit status 1", "killed by
  /// signal 11", ...).
  const std::string& last_exit() const { return last_exit_; }

 private:
  std::string last_exit_;
};

}  // namespace af::test
