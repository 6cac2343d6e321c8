#pragma once

// Child processes for integration tests: spawned with their stderr in a log file, and every
// one still running when the group goes away is killed and reaped (no orphans, even when a
// test fails or times out half way).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace af::test {

class ProcessGroup {
 public:
  struct Child {
    pid_t pid = -1;
    std::string log;
  };

  ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;
  ~ProcessGroup() {
    for (auto& c : children_)
      if (c.pid > 0) {
        ::kill(c.pid, SIGCONT);
        ::kill(c.pid, SIGKILL);
        ::waitpid(c.pid, nullptr, 0);
      }
  }

  /// Starts `argv` with stderr and stdout appended to a log file; returns its index.
  std::size_t spawn(const std::vector<std::string>& argv, const std::string& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
    children_.push_back({pid, log});
    return children_.size() - 1;
  }

  pid_t pid(std::size_t i) const { return children_.at(i).pid; }
  void signal(std::size_t i, int sig) {
    // A reaped child has pid -1, and kill(-1, sig) would signal every process there is.
    if (children_.at(i).pid > 0) ::kill(children_.at(i).pid, sig);
  }

  /// Waits up to `limit` for child i to exit; returns its wait status, or -1 if it is still
  /// running (it is then left to the destructor).
  int wait(std::size_t i, std::chrono::milliseconds limit) {
    auto& c = children_.at(i);
    if (c.pid <= 0) return -1;
    auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
      int status = 0;
      pid_t r = ::waitpid(c.pid, &status, WNOHANG);
      if (r == c.pid) {
        c.pid = -1;
        return status;
      }
      if (std::chrono::steady_clock::now() >= until) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  /// Kills child i and reaps it.
  void kill(std::size_t i) {
    auto& c = children_.at(i);
    if (c.pid <= 0) return;
    ::kill(c.pid, SIGKILL);
    ::waitpid(c.pid, nullptr, 0);
    c.pid = -1;
  }

  /// Everything child i wrote so far.
  std::string log(std::size_t i) const {
    std::ifstream in(children_.at(i).log);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::vector<Child> children_;
};

}  // namespace af::test
