#pragma once

// The command line of every actorflow app, through CLI11 (Debian's libcli11-dev):
// `--help`, typed and validated flags, and `--config FILE.json` / `--dump-config` the same
// way in each app. A config file holds the settings `--dump-config` prints, keyed by the
// long flag names with '_' for '-' (`{"heartbeat_ms": 500}` sets `--heartbeat-ms`); flags on
// the command line win over the file. CLI11 is header-only: what every app shares (the
// parser, the JSON config format, the help layout) is compiled once, in cli.cpp.
#include <CLI/CLI.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af::apps {

/// A validator for integer flags in [low, high]: "--task: expected an integer >= 0, got 'x'".
CLI::Validator integer_in(long long low, long long high = std::numeric_limits<long long>::max());

/// A validator for real flags greater than zero.
CLI::Validator positive_real();

/// An app's command line: `App app("actorflow-x", "what it does")`, options added on
/// `app.cli`, then `if (auto code = app.parse(argc, argv)) return *code;`.
struct App {
  CLI::App cli;
  std::string program;

  /// The parser with `--help`, `--config FILE.json` and `--dump-config` in place.
  App(std::string program_name, std::string description);
  /// Out of line, as the constructor: CLI::App has no key function, and a TU that destroys
  /// one emits its vtable and with it most of CLI11's parser (a minute of compile per app).
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  /// Parses the command line. Returns the exit code when the app should stop now: 0 after
  /// --help or --dump-config, 2 after a bad flag or value (the message names it).
  std::optional<int> parse(int argc, char** argv);

 private:
  bool dump_config_ = false;
};

/// The exit code a cluster manager's restart policy retries: Kubeflow's TFJob (`restartPolicy:
/// ExitCode`) restarts a replica whose code is 128 or more and fails the job on 1-127.
inline constexpr int kExitRetryable = 138;

/// The exit code for a training process stopped by `code`: kExitRetryable for what a restart
/// can cure (a peer unavailable or restarted, a step aborted or past its deadline, a
/// cancelled session), 1 for the rest (bad input, a bug: restarting would fail again).
inline int exit_code_for(af::Code code) {
  switch (code) {
    case af::Code::unavailable:
    case af::Code::aborted:
    case af::Code::deadline_exceeded:
    case af::Code::cancelled:
      return kExitRetryable;
    default:
      return 1;
  }
}

/// Prints "`who`: <code>: <message>" to stderr (the code as TensorFlow's Status prints
/// it, e.g. RESOURCE_EXHAUSTED), noting when the failure is transient, and returns
/// `exit_code_for` the error's code: a training program's last words.
int report_failure(const std::string& who, const af::Status& status);

/// A `--cluster` value: inline JSON (starting with '{') or the path of a file holding it,
/// returned as compact JSON. Throws std::runtime_error naming the flag for an unreadable
/// file or malformed JSON.
std::string cluster_json(const std::string& value);

/// TensorFlow's TF_CONFIG environment variable (`{"cluster": {...}, "task": {"type": "worker",
/// "index": 1}}`, as cluster managers, Kubernetes operators and Slurm scripts set it): fills
/// `cluster` (as JSON), `job` and `task` where the command line left them unset (empty, or
/// a negative task). Returns whether TF_CONFIG was set. Throws std::runtime_error naming
/// TF_CONFIG when it is not such a JSON object.
bool apply_tf_config(std::string& cluster, std::string& job, int& task);

/// The non-empty items of `list` between `sep`s: "a,,b," -> {"a", "b"}; for flags that take a
/// list in one value (`--devices D1,D2`), which then dumps and reads back as one string.
std::vector<std::string> split_list(const std::string& list, char sep = ',');

}  // namespace af::apps
