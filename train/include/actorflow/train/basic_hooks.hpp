#pragma once

// The rest of TensorFlow's basic_session_run_hooks.py for monitored sessions: the
// SecondOrStepTimer, LoggingTensorHook, NanTensorHook, GlobalStepWaiterHook, FinalOpsHook,
// FeedFnHook and ProfilerHook.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/formats/event_file.hpp"
#include "actorflow/train/monitored_session.hpp"

namespace af::train {

/// `tf.train.SecondOrStepTimer`: triggers at most once every `every_secs` seconds or every
/// `every_steps` steps (exactly one; InvalidArgumentError "Either every_secs or every_steps
/// should be provided." or "Can not provide both every_secs and every_steps." otherwise).
class SecondOrStepTimer {
 public:
  SecondOrStepTimer(std::optional<double> every_secs, std::optional<std::int64_t> every_steps);
  /// Forgets the last trigger.
  void reset();
  /// True before the first trigger, false for the step that triggered last, else whether
  /// `every_secs` passed or `step` is `every_steps` past the last trigger.
  bool should_trigger_for_step(std::int64_t step) const;
  /// Records a trigger at `step` now; returns the seconds and steps since the previous one
  /// (nullopt for the first).
  std::optional<std::pair<double, std::int64_t>> update_last_triggered_step(std::int64_t step);
  /// The step of the last trigger (nullopt before the first).
  std::optional<std::int64_t> last_triggered_step() const noexcept { return last_step_; }

 private:
  std::optional<double> every_secs_;
  std::optional<std::int64_t> every_steps_;
  std::optional<std::int64_t> last_step_;
  std::chrono::steady_clock::time_point last_time_;
};

/// How often a LoggingTensorHook logs (TensorFlow's arguments).
struct LoggingTensorHookOptions {
  std::optional<std::int64_t> every_n_iter;  ///< every N runs of this session (counted here)
  std::optional<double> every_n_secs;        ///< ... or every N seconds
  bool at_end = false;                       ///< also once more when the session ends
  /// Makes the line from (tag, value) pairs in tag order; default "tag = value, ..." with
  /// " (S.SSS sec)" since the last line.
  std::function<std::string(const std::vector<std::pair<std::string, Tensor>>&)> formatter;
};

/// `tf.train.LoggingTensorHook`: logs the values of tensors through `af::log_info` on the
/// first run and then as `options` says (values as NumPy prints them). InvalidArgumentError
/// "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided." or
/// "invalid every_n_iter=N." for bad options.
class LoggingTensorHook : public SessionRunHook {
 public:
  /// Tags to tensors, logged in the tags' order (a dict in TensorFlow).
  LoggingTensorHook(std::map<std::string, Output> tensors, LoggingTensorHookOptions options);
  /// Tensors by name ("loss" means "loss:0"), logged in this order under these names;
  /// `begin` resolves them in its graph (NotFoundError for a missing one, InvalidArgumentError
  /// "Name x is ambiguous, as this `Operation` has multiple outputs (at least 2)." for an op
  /// name of a multi-output op).
  LoggingTensorHook(std::vector<std::string> names, LoggingTensorHookOptions options);
  void begin(Graph& g) override;
  std::vector<Output> before_run(SessionRunContext& ctx) override;
  void after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) override;
  void end(Session& session) override;

 private:
  void log(const std::vector<Tensor>& values);
  std::vector<std::string> tags_;
  std::vector<Output> tensors_;
  LoggingTensorHookOptions options_;
  std::optional<SecondOrStepTimer> timer_;  // none: only at the end
  std::int64_t iter_count_ = 0;
  bool should_trigger_ = false;
  bool by_name_ = false;  // tensors_ come from tags_ in `begin`
};

/// `tf.train.NanLossDuringTrainingError`, thrown by a NanTensorHook: "NaN loss during
/// training."
class NanLossDuringTrainingError : public std::runtime_error {
 public:
  NanLossDuringTrainingError() : std::runtime_error("NaN loss during training.") {}
};

/// `tf.train.NanTensorHook`: fetches `loss` with every run; when it is NaN, logs "Model
/// diverged with loss = NaN." and throws NanLossDuringTrainingError from the run, or, with
/// `fail_on_nan_loss` false, asks the session to stop.
class NanTensorHook : public SessionRunHook {
 public:
  explicit NanTensorHook(Output loss, bool fail_on_nan_loss = true);
  std::vector<Output> before_run(SessionRunContext& ctx) override;
  void after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) override;

 private:
  Output loss_;
  bool fail_;
};

/// `tf.train.GlobalStepWaiterHook`: the first run waits until the global step reaches
/// `wait_until_step` (reading it every `poll`, TensorFlow's 0.5 s), logging "Waiting for global
/// step N before starting training."; it starts workers gradually in a cluster. `begin`
/// throws FailedPreconditionError without a global step.
class GlobalStepWaiterHook : public SessionRunHook {
 public:
  explicit GlobalStepWaiterHook(std::int64_t wait_until_step,
                                std::chrono::milliseconds poll = std::chrono::milliseconds(500));
  void begin(Graph& g) override;
  std::vector<Output> before_run(SessionRunContext& ctx) override;

 private:
  std::int64_t wait_until_;
  std::chrono::milliseconds poll_;
  Output global_step_;
  bool started_ = false;
};

/// `tf.train.FinalOpsHook`: runs `final_ops` (with `feeds`) when the session ends normally;
/// `final_ops_values` returns what they gave. An OutOfRange error there is logged with
/// TensorFlow's warning about ops that read input, and rethrown.
class FinalOpsHook : public SessionRunHook {
 public:
  explicit FinalOpsHook(std::vector<Output> final_ops, FeedDict feeds = {});
  void end(Session& session) override;
  /// The values of `final_ops` once the session ended (empty before).
  const std::vector<Tensor>& final_ops_values() const noexcept { return values_; }

 private:
  std::vector<Output> ops_;
  FeedDict feeds_;
  std::vector<Tensor> values_;
};

/// `tf.train.FeedFnHook`: feeds what `feed_fn` returns to every run.
class FeedFnHook : public SessionRunHook {
 public:
  explicit FeedFnHook(std::function<FeedDict()> feed_fn);
  SessionRunArgs before_run_args(SessionRunContext& ctx) override;

 private:
  std::function<FeedDict()> feed_fn_;
};

/// `tf.train.ProfilerHook`: traces a run every `save_steps` global steps or `save_secs`
/// seconds (exactly one; not the first run) and writes its step stats as
/// `<output_dir>/timeline-<global step>.json` (Chrome trace format) and, as a
/// TaggedRunMetadata "step_<global step>", into an events file in `output_dir` that
/// TensorBoard's graph dashboard reads (compute time per node). `begin` throws
/// FailedPreconditionError without a global step.
class ProfilerHook : public SessionRunHook {
 public:
  ProfilerHook(std::optional<std::int64_t> save_steps, std::optional<double> save_secs,
               std::string output_dir = ".");
  void begin(Graph& g) override;
  SessionRunArgs before_run_args(SessionRunContext& ctx) override;
  void after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) override;
  void end(Session& session) override;

 private:
  std::string output_dir_;
  SecondOrStepTimer timer_;
  std::shared_ptr<summary::FileWriter> writer_;
  Output global_step_;
  std::optional<std::int64_t> next_step_;
  bool request_ = false;
};

}  // namespace af::train
