#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/actors/coordinator.hpp"
#include "actorflow/actors/session.hpp"
#include "actorflow/actors/step_stats.hpp"
#include "actorflow/formats/event_file.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/train/saver.hpp"

/// Monitored training sessions (TensorFlow's monitored_session.py, session_manager.py and
/// basic_session_run_hooks.py): a Scaffold, hooks, the chief's initialise-or-restore, the
/// other workers' wait for a ready model, checkpoints, and recovery from a lost task.
namespace af::train {

class SyncReplicasOptimizer;

/// `tf.report_uninitialized_variables`: a 1-D string tensor of the names of the variables of
/// `var_list` (default: global and local variables) that hold no value, built as TensorFlow
/// does (IsVariableInitialized per variable, stacked, negated, boolean_mask of the names) under
/// the name scope `name`; an empty string constant when there are no variables.
Output report_uninitialized_variables(Graph& g, std::optional<std::vector<Variable>> var_list = {},
                                      std::string_view name = "report_uninitialized_variables");

/// What a monitored session needs to initialise a model (`tf.train.Scaffold`). Fields left
/// empty are built by `finalize` as TensorFlow's defaults.
struct Scaffold {
  std::optional<Operation> init_op;  ///< default: global_variables_initializer
  std::optional<Output> ready_op;    ///< default: report_uninitialized_variables (global + local)
  /// Default: report_uninitialized_variables of the global variables.
  std::optional<Output> ready_for_local_init_op;
  /// default: local_variables_initializer, grouped with tables_initializer when the graph
  /// has table initializers (TensorFlow's Scaffold.default_local_init_op)
  std::optional<Operation> local_init_op;
  /// Default: a sharded Saver of every global variable (allow_empty), as TensorFlow's.
  std::shared_ptr<Saver> saver;

  /// Builds the missing pieces in `g` (idempotent).
  void finalize(Graph& g);
};

/// What hooks see of a run (`SessionRunContext`, with `run_values.run_metadata`).
class SessionRunContext {
 public:
  SessionRunContext(Session& session, const std::vector<Output>& fetches)
      : session_(session), fetches_(fetches) {}
  /// The session the run goes to.
  Session& session() const noexcept { return session_; }
  /// The fetches the caller asked for.
  const std::vector<Output>& original_fetches() const noexcept { return fetches_; }
  /// Asks the monitored session to stop after this run.
  void request_stop() noexcept { stop_ = true; }
  /// True once a hook asked to stop.
  bool stop_requested() const noexcept { return stop_; }
  /// In `after_run`: the run's step stats when it was traced (a hook's `trace` or the
  /// caller's RunOptions), else null.
  const RunMetadata* run_metadata() const noexcept { return metadata_; }
  /// Sets what `run_metadata` returns (the monitored session does, before `after_run`).
  void set_run_metadata(const RunMetadata* metadata) noexcept { metadata_ = metadata; }

 private:
  Session& session_;
  const std::vector<Output>& fetches_;
  bool stop_ = false;
  const RunMetadata* metadata_ = nullptr;
};

/// What a hook adds to the next run (`tf.train.SessionRunArgs`).
struct SessionRunArgs {
  /// Tensors to fetch with it; their values go to the hook's `after_run`, in this order.
  std::vector<Output> fetches;
  /// Values to feed. A tensor fed by two hooks, or by a hook and the caller, makes the run fail
  /// with InvalidArgumentError "Same tensor is fed by two hooks. Conflict(s): ['x:0']" (or
  /// "... by a SessionRunHook and user. ...").
  FeedDict feeds;
  /// Trace the run (TensorFlow's FULL_TRACE): `SessionRunContext::run_metadata` holds its
  /// step stats in `after_run`.
  bool trace = false;
};

/// A hook into a monitored session's life (`tf.train.SessionRunHook`). The defaults do
/// nothing.
class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;
  /// Before the session is created; may add ops to `g`.
  virtual void begin(Graph& /*g*/) {}
  /// After each (re-)creation of the session, with the coordinator of its threads.
  virtual void after_create_session(Session& /*session*/, Coordinator& /*coord*/) {}
  /// Extra tensors to fetch with the next run.
  virtual std::vector<Output> before_run(SessionRunContext& /*ctx*/) { return {}; }
  /// What to add to the next run: by default `before_run`'s fetches. Hooks that feed or
  /// trace override this one instead.
  virtual SessionRunArgs before_run_args(SessionRunContext& ctx) { return {before_run(ctx)}; }
  /// The values of the extra fetches of `before_run`.
  virtual void after_run(SessionRunContext& /*ctx*/, const std::vector<Tensor>& /*values*/) {}
  /// When the monitored session closes normally (not after an error).
  virtual void end(Session& /*session*/) {}
};

/// `tf.train.StopAtStepHook`: requests a stop once the global step reaches `last_step`, or
/// `num_steps` past its value when the session was created. Exactly one must be given
/// (InvalidArgumentError otherwise).
class StopAtStepHook : public SessionRunHook {
 public:
  StopAtStepHook(std::optional<std::int64_t> num_steps, std::optional<std::int64_t> last_step = {});
  void begin(Graph& g) override;
  void after_create_session(Session& session, Coordinator& coord) override;
  std::vector<Output> before_run(SessionRunContext& ctx) override;
  void after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) override;

 private:
  std::optional<std::int64_t> num_steps_, last_step_;
  Output global_step_;
};

/// `tf.train.CheckpointSaverHook`: saves `<checkpoint_dir>/model.ckpt-<global_step>` (and its
/// `.meta`) when the session is created, then every `save_steps` global steps or `save_secs`
/// seconds, and at the end unless the last save was at the final step. Exactly one of the two
/// must be given. When the session is created it also writes `<checkpoint_dir>/graph.pbtxt`
/// and, given a `writer`, the graph and the meta graph into its events file.
class CheckpointSaverHook : public SessionRunHook {
 public:
  CheckpointSaverHook(std::string checkpoint_dir, std::optional<double> save_secs,
                      std::optional<std::int64_t> save_steps, std::shared_ptr<Saver> saver,
                      std::string checkpoint_basename = "model.ckpt",
                      std::shared_ptr<summary::FileWriter> writer = nullptr);
  void begin(Graph& g) override;
  void after_create_session(Session& session, Coordinator& coord) override;
  std::vector<Output> before_run(SessionRunContext& ctx) override;
  void after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) override;
  void end(Session& session) override;

 private:
  void save(Session& session, std::int64_t step);
  std::string checkpoint_dir_, basename_;
  std::optional<double> save_secs_;
  std::optional<std::int64_t> save_steps_;
  std::shared_ptr<Saver> saver_;
  std::shared_ptr<summary::FileWriter> writer_;
  Graph* graph_ = nullptr;
  Output global_step_;
  std::optional<std::int64_t> last_saved_step_;
  std::chrono::steady_clock::time_point last_saved_time_;
};

/// `tf.train.StepCounterHook` with the loss: every `every_n_steps` global steps it logs a
/// progress line "global_step/sec: R, global_step = S, loss = L" through `af::log_info`
/// (`loss` may be invalid) and, given a `writer`, the scalar summary "global_step/sec" at that
/// step. Warns, as TensorFlow does, when the global step has not moved for 20 runs (normal on
/// SyncReplicas workers).
class StepCounterHook : public SessionRunHook {
 public:
  explicit StepCounterHook(std::int64_t every_n_steps = 100, Output loss = {},
                           std::shared_ptr<summary::FileWriter> writer = nullptr);
  void begin(Graph& g) override;
  std::vector<Output> before_run(SessionRunContext& ctx) override;
  void after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) override;
  /// The last rate logged (global steps per second), 0 before the first line.
  double last_rate() const noexcept { return last_rate_; }

 private:
  std::int64_t every_n_;
  Output loss_, global_step_;
  std::shared_ptr<summary::FileWriter> writer_;
  std::optional<std::int64_t> last_step_;
  std::chrono::steady_clock::time_point last_time_;
  int unchanged_runs_ = 0;
  double last_rate_ = 0;
};

/// The SyncReplicasOptimizer's hook (`make_session_run_hook(is_chief, num_tokens)`): checks
/// the model is ready for local init, runs chief_init_op (chief) or local_step_init_op, and
/// on the chief puts the initial tokens in the queue and starts the chief's queue runner.
std::shared_ptr<SessionRunHook> make_sync_replicas_hook(SyncReplicasOptimizer& sync, bool is_chief,
                                                        int num_tokens = -1);

/// Options of `MonitoredTrainingSession` (TensorFlow's defaults, except the waits).
struct MonitoredTrainingSessionOptions {
  std::string master;          ///< "" = in-process; "caf://host:port" = a task of a cluster
  bool is_chief = true;        ///< the chief initialises or restores and saves checkpoints
  std::string checkpoint_dir;  ///< where checkpoints are restored from and saved to ("" = none)
  Scaffold scaffold;           ///< init/ready ops and the Saver (defaults built)
  std::vector<std::shared_ptr<SessionRunHook>> hooks;             ///< every worker's hooks
  std::vector<std::shared_ptr<SessionRunHook>> chief_only_hooks;  ///< the chief's only
  /// Checkpoint every N seconds (600 when neither this nor steps is given).
  std::optional<double> save_checkpoint_secs;
  std::optional<std::int64_t> save_checkpoint_steps;  ///< checkpoint every N global steps
  std::int64_t log_step_count_steps = 100;            ///< StepCounterHook period (0 = no such hook)
  /// The chief's SummarySaverHook writes the graph's merged summaries every N global steps
  /// (0 = none, unless save_summaries_secs), into `summary_dir`.
  std::int64_t save_summaries_steps = 100;
  /// ... or every N seconds instead (wins over save_summaries_steps).
  std::optional<double> save_summaries_secs;
  /// Where the chief's events file goes (the graph, summaries, global_step/sec); empty: the
  /// checkpoint_dir; both empty: none.
  std::string summary_dir;
  SessionConfig config;  ///< the session's configuration
  /// How long a non-chief waits for the chief to make the model ready.
  std::chrono::milliseconds max_wait = std::chrono::hours(2);
  /// How long a non-chief sleeps between readiness checks (TensorFlow: 30 s).
  std::chrono::milliseconds recovery_wait = std::chrono::seconds(30);
  /// How long `close` waits for the coordinator's threads.
  std::chrono::milliseconds stop_grace_period = std::chrono::seconds(120);
};

/// `tf.train.MonitoredTrainingSession`: creates the session as the chief or a worker (see
/// MonitoredTrainingSessionOptions), runs the hooks around each run, and recovers: when a run
/// fails with Aborted or Unavailable (a task was lost) it closes the session, creates it again
/// (the chief restores the latest checkpoint; workers wait for a ready model) and runs again.
/// A task lost while a session is being created (Aborted or Unavailable) makes a new attempt
/// after `recovery_wait`, as TensorFlow's `_RecoverableSession` does.
class MonitoredSession {
 public:
  /// Creates the session at once. Throws RuntimeError-like InternalError "Init operations did
  /// not make model ready" when the chief's init leaves variables uninitialized, and
  /// DeadlineExceededError "Session was not ready after waiting N secs." on a worker.
  MonitoredSession(Graph& g, MonitoredTrainingSessionOptions options);
  ~MonitoredSession();
  MonitoredSession(const MonitoredSession&) = delete;
  MonitoredSession& operator=(const MonitoredSession&) = delete;

  /// One run with the hooks; returns the values of `fetches`.
  std::vector<Tensor> run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const RunOptions& options = {});
  /// One run of `target` with the hooks.
  void run(const Operation& target, const FeedDict& feeds = {}, const RunOptions& options = {});
  /// One run evaluating `fetches` and running `targets` (a train op with its loss), with the
  /// hooks.
  std::vector<Tensor> run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation>& targets, const RunOptions& options = {});
  /// True once a hook or the coordinator asked to stop.
  bool should_stop() const;
  /// Runs the hooks' `end`, stops the coordinator and closes the session. Idempotent.
  void close();
  /// The underlying session (valid until the next recovery or close).
  Session& raw_session();
  /// How many times the session was created (1 + recoveries).
  int sessions_created() const noexcept { return sessions_created_; }

 private:
  std::vector<Tensor> run_with_hooks(const std::vector<Output>& fetches, const FeedDict& feeds,
                                     const std::vector<Operation>& targets,
                                     const RunOptions& options);
  void create_session();
  void close_session();
  Graph& g_;
  MonitoredTrainingSessionOptions options_;
  std::vector<std::shared_ptr<SessionRunHook>> hooks_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<Coordinator> coord_;
  std::vector<Runner> runners_;
  bool stop_ = false;
  bool closed_ = false;
  int sessions_created_ = 0;
};

/// `tf.train.MonitoredTrainingSession(...)`.
std::unique_ptr<MonitoredSession> MonitoredTrainingSession(
    Graph& g, MonitoredTrainingSessionOptions options = {});

}  // namespace af::train
