// MonitoredTrainingSession, Scaffold, the standard hooks and report_uninitialized_variables
// (TensorFlow's monitored_session.py, session_manager.py, basic_session_run_hooks.py,
// variables.py).
#include "actorflow/train/monitored_session.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <thread>

#include "actorflow/formats/graph_def.hpp"
#include "actorflow/formats/summary.hpp"
#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "actorflow/ops/lookup_ops.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/queues/queue_runner.hpp"
#include "actorflow/train/meta_graph.hpp"
#include "actorflow/train/summary_hooks.hpp"
#include "actorflow/train/sync_replicas_optimizer.hpp"
#include "actorflow/train/training_util.hpp"
#include "hook_helpers.hpp"

namespace af::train {

using detail::require_global_step;
using detail::scalar_step;

namespace {

using Clock = std::chrono::steady_clock;

/// SessionManager._ready: (true, "") when `op` lists no uninitialized variable; (false, the
/// names or the error) otherwise. Only FailedPrecondition about uninitialized values counts as
/// "not ready"; other errors propagate.
std::pair<bool, std::string> model_ready(Session& sess, const Output& op) {
  try {
    const Tensor names = sess.run(op);
    if (names.num_elements() == 0) return {true, ""};
    std::string list;
    for (const auto& n : names.to_vector<std::string>()) list += (list.empty() ? "" : ", ") + n;
    return {false, "Variables not initialized: " + list};
  } catch (const FailedPreconditionError& e) {
    if (std::string(e.what()).find("uninitialized") == std::string::npos) throw;
    return {false, e.what()};
  }
}

// _raise_if_feeds_intersects: InvalidArgument "<message> Conflict(s): ['x:0', ...]" when a
// tensor is in both.
void refuse_common_feeds(const FeedDict& a, const FeedDict& b, const std::string& message) {
  std::string common;
  for (const auto& [t, v] : b)
    for (const auto& [u, w] : a)
      if (t.name() == u.name()) common += (common.empty() ? "'" : ", '") + t.name() + "'";
  if (!common.empty())
    throw InvalidArgumentError(invalid_argument(message + " Conflict(s): [" + common + "]"));
}

}  // namespace

// -- report_uninitialized_variables -------------------------------------------------------

Output report_uninitialized_variables(Graph& g, std::optional<std::vector<Variable>> var_list,
                                      std::string_view name) {
  std::vector<Variable> vars;
  if (var_list) {
    vars = *var_list;
  } else {
    vars = g.global_variables();
    for (auto& v : g.local_variables()) vars.push_back(v);
  }
  auto scope = g.name_scope(name);
  if (vars.empty()) return g.constant(Tensor(DType::string, Shape{0}), "Const");
  std::vector<Output> initialized;
  std::vector<std::string> names;
  for (const auto& v : vars) {
    initialized.push_back(is_variable_initialized(v.ref()));
    names.push_back(v.name());
  }
  // Run where the names are: the client's task (TensorFlow pins these to /cpu:0).
  const Output mask = logical_not(stack(initialized));
  const Output names_tensor = g.constant(Tensor::from_vector<std::string>(names), "Const");
  return boolean_mask(names_tensor, mask);
}

// -- Scaffold -------------------------------------------------------------------------------

void Scaffold::finalize(Graph& g) {
  if (!init_op) init_op = g.global_variables_initializer();
  if (!ready_op)
    ready_op = report_uninitialized_variables(g, std::nullopt, "report_uninitialized_variables");
  if (!ready_for_local_init_op)
    ready_for_local_init_op =
        report_uninitialized_variables(g, g.global_variables(), "report_uninitialized_variables_1");
  if (!local_init_op) {
    // Scaffold.default_local_init_op: the local variables' initializers and, when the graph
    // has lookup tables, tf.tables_initializer's.
    local_init_op = g.local_variables_initializer();
    if (!g.get_collection(lookup::kTableInitializers).empty())
      local_init_op = g.group({*local_init_op, lookup::tables_initializer(g)}, "group_deps");
  }
  if (!saver)
    saver = std::make_shared<Saver>(g, SaverOptions{.sharded = true, .allow_empty = true});
}

// -- StopAtStepHook -------------------------------------------------------------------------

StopAtStepHook::StopAtStepHook(std::optional<std::int64_t> num_steps,
                               std::optional<std::int64_t> last_step)
    : num_steps_(num_steps), last_step_(last_step) {
  if (num_steps_.has_value() == last_step_.has_value())
    throw InvalidArgumentError(
        invalid_argument("One of num_steps or last_step must be specified."));
}

void StopAtStepHook::begin(Graph& g) { global_step_ = require_global_step(g, "StopAtStepHook"); }

void StopAtStepHook::after_create_session(Session& session, Coordinator&) {
  // As TensorFlow: counted from the first session only, not again after a recovery.
  if (num_steps_ && !last_step_) last_step_ = scalar_step(session.run(global_step_)) + *num_steps_;
}

std::vector<Output> StopAtStepHook::before_run(SessionRunContext&) { return {global_step_}; }

void StopAtStepHook::after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) {
  // The fetched value was read before the run's update: step + 1 is what it is now at most.
  const std::int64_t step = scalar_step(values.at(0)) + 1;
  if (step >= *last_step_) {
    // Re-read: on SyncReplicas workers the step may not have moved.
    if (scalar_step(ctx.session().run(global_step_)) >= *last_step_) ctx.request_stop();
  }
}

// -- CheckpointSaverHook --------------------------------------------------------------------

CheckpointSaverHook::CheckpointSaverHook(std::string checkpoint_dir,
                                         std::optional<double> save_secs,
                                         std::optional<std::int64_t> save_steps,
                                         std::shared_ptr<Saver> saver,
                                         std::string checkpoint_basename,
                                         std::shared_ptr<summary::FileWriter> writer)
    : checkpoint_dir_(std::move(checkpoint_dir)),
      basename_(std::move(checkpoint_basename)),
      save_secs_(save_secs),
      save_steps_(save_steps),
      saver_(std::move(saver)),
      writer_(std::move(writer)) {
  if (save_secs_.has_value() == save_steps_.has_value())
    throw InvalidArgumentError(
        invalid_argument("exactly one of save_secs or save_steps should be provided"));
}

void CheckpointSaverHook::begin(Graph& g) {
  graph_ = &g;
  global_step_ = require_global_step(g, "CheckpointSaverHook");
  if (!saver_) throw InvalidArgumentError(invalid_argument("CheckpointSaverHook needs a Saver"));
}

void CheckpointSaverHook::save(Session& session, std::int64_t step) {
  std::filesystem::create_directories(checkpoint_dir_);
  const std::string path =
      saver_->save(session, (std::filesystem::path(checkpoint_dir_) / basename_).string(), step);
  log_info("Saving checkpoints for " + std::to_string(step) + " into " + path + ".");
  last_saved_step_ = step;
  last_saved_time_ = Clock::now();
}

void CheckpointSaverHook::after_create_session(Session& session, Coordinator&) {
  // As TensorFlow: the graph as text beside the checkpoints, the graph and meta graph for
  // TensorBoard, then a save at once, so a restart finds a checkpoint of the initial model.
  const GraphDef def = export_graph_def(*graph_, true);
  write_graph(def, checkpoint_dir_, "graph.pbtxt");
  if (writer_) {
    writer_->add_graph(serialize_graph_def(def));
    writer_->add_meta_graph(
        serialize_meta_graph_def(export_meta_graph(*graph_, {}, {.saver = saver_.get()})));
  }
  save(session, scalar_step(session.run(global_step_)));
}

std::vector<Output> CheckpointSaverHook::before_run(SessionRunContext&) { return {global_step_}; }

void CheckpointSaverHook::after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) {
  const std::int64_t stale = scalar_step(values.at(0)) + 1;
  const bool due =
      save_steps_ ? (!last_saved_step_ || stale >= *last_saved_step_ + *save_steps_)
                  : Clock::now() - last_saved_time_ >= std::chrono::duration<double>(*save_secs_);
  if (!due) return;
  // As TensorFlow's timer: the stale read only says a save may be due; the real step decides.
  const std::int64_t step = scalar_step(ctx.session().run(global_step_));
  if (last_saved_step_ &&
      (step == *last_saved_step_ || (save_steps_ && step < *last_saved_step_ + *save_steps_)))
    return;
  save(ctx.session(), step);
}

void CheckpointSaverHook::end(Session& session) {
  const std::int64_t step = scalar_step(session.run(global_step_));
  if (!last_saved_step_ || *last_saved_step_ != step) save(session, step);
}

// -- StepCounterHook ------------------------------------------------------------------------

StepCounterHook::StepCounterHook(std::int64_t every_n_steps, Output loss,
                                 std::shared_ptr<summary::FileWriter> writer)
    : every_n_(std::max<std::int64_t>(1, every_n_steps)),
      loss_(std::move(loss)),
      writer_(std::move(writer)) {}

void StepCounterHook::begin(Graph& g) { global_step_ = require_global_step(g, "StepCounterHook"); }

std::vector<Output> StepCounterHook::before_run(SessionRunContext&) {
  if (loss_.valid()) return {global_step_, loss_};
  return {global_step_};
}

void StepCounterHook::after_run(SessionRunContext&, const std::vector<Tensor>& values) {
  const std::int64_t step = scalar_step(values.at(0));
  const auto now = Clock::now();
  if (!last_step_) {
    last_step_ = step;
    last_time_ = now;
    return;
  }
  unchanged_runs_ = step == *last_step_ ? unchanged_runs_ + 1 : 0;
  if (unchanged_runs_ == 20)
    log_info(
        "It seems that global step (tf.train.get_global_step) has not been increased. Current "
        "value (could be "
        "stable): " +
        std::to_string(step) + " vs previous value: " + std::to_string(*last_step_) +
        ". You could increase the global step by passing tf.train.get_global_step() to "
        "Optimizer.apply_gradients "
        "or Optimizer.minimize.");
  if (step - *last_step_ < every_n_) return;
  const double secs = std::chrono::duration<double>(now - last_time_).count();
  last_rate_ = secs > 0 ? static_cast<double>(step - *last_step_) / secs : 0.0;
  std::ostringstream line;
  line << "global_step/sec: " << last_rate_ << ", global_step = " << step;
  if (loss_.valid() && values.size() > 1) line << ", loss = " << values[1].to_string();
  log_info(line.str());
  if (writer_)
    writer_->add_summary(summary::scalar("global_step/sec", static_cast<float>(last_rate_)), step);
  last_step_ = step;
  last_time_ = now;
}

// -- SyncReplicasOptimizer hook ---------------------------------------------------------------

namespace {

class SyncReplicasHook : public SessionRunHook {
 public:
  SyncReplicasHook(SyncReplicasOptimizer& sync, bool is_chief, int num_tokens)
      : sync_(sync), is_chief_(is_chief), num_tokens_(num_tokens) {}

  void begin(Graph& g) override {
    local_init_op_ = is_chief_ ? sync_.chief_init_op() : sync_.local_step_init_op();
    ready_for_local_init_op_ =
        report_uninitialized_variables(g, g.global_variables(), "sync_replicas_ready");
    if (is_chief_) init_tokens_op_ = sync_.get_init_tokens_op(num_tokens_);
  }

  void after_create_session(Session& session, Coordinator& coord) override {
    auto [ready, message] = model_ready(session, ready_for_local_init_op_);
    if (!ready)
      throw InternalError(
          internal("Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                   "Init op: " +
                   local_init_op_.name() + ", error: " + message));
    session.run(local_init_op_);
    if (!is_chief_) return;
    session.run(init_tokens_op_);
    for (auto& r : sync_.get_chief_queue_runner().create_threads(session, coord, /*start=*/true))
      coord.register_runner(r);
  }

 private:
  SyncReplicasOptimizer& sync_;
  bool is_chief_;
  int num_tokens_;
  Operation local_init_op_, init_tokens_op_;
  Output ready_for_local_init_op_;
};

}  // namespace

std::shared_ptr<SessionRunHook> make_sync_replicas_hook(SyncReplicasOptimizer& sync, bool is_chief,
                                                        int num_tokens) {
  return std::make_shared<SyncReplicasHook>(sync, is_chief, num_tokens);
}

// -- MonitoredSession ---------------------------------------------------------------------------

MonitoredSession::MonitoredSession(Graph& g, MonitoredTrainingSessionOptions options)
    : g_(g), options_(std::move(options)) {
  options_.scaffold.finalize(g_);
  // MonitoredTrainingSession's hook order: chief-only hooks, the step counter and the
  // checkpoint saver (chief), then the user's.
  if (options_.is_chief) {
    for (auto& h : options_.chief_only_hooks) hooks_.push_back(h);
    const bool has_step = get_global_step(g_).has_value();
    const std::string summary_dir =
        options_.summary_dir.empty() ? options_.checkpoint_dir : options_.summary_dir;
    std::shared_ptr<summary::FileWriter> writer;
    if (!summary_dir.empty() && has_step)
      writer = std::make_shared<summary::FileWriter>(summary_dir);
    if (options_.log_step_count_steps > 0 && has_step &&
        (writer || !options_.checkpoint_dir.empty()))
      hooks_.push_back(
          std::make_shared<StepCounterHook>(options_.log_step_count_steps, Output(), writer));
    if (writer && (options_.save_summaries_secs || options_.save_summaries_steps > 0))
      hooks_.push_back(std::make_shared<SummarySaverHook>(
          options_.save_summaries_secs ? std::nullopt
                                       : std::optional<std::int64_t>(options_.save_summaries_steps),
          options_.save_summaries_secs, writer));
    if (!options_.checkpoint_dir.empty() && has_step) {
      std::optional<double> secs = options_.save_checkpoint_secs;
      if (!secs && !options_.save_checkpoint_steps) secs = 600.0;
      hooks_.push_back(std::make_shared<CheckpointSaverHook>(
          options_.checkpoint_dir, secs, options_.save_checkpoint_steps, options_.scaffold.saver,
          "model.ckpt", writer));
    }
  }
  for (auto& h : options_.hooks) hooks_.push_back(h);
  for (auto& h : hooks_) h->begin(g_);
  create_session();
}

MonitoredSession::~MonitoredSession() {
  try {
    close_session();
  } catch (...) {
  }
}

void MonitoredSession::create_session() {
  const auto start = Clock::now();
  // One attempt: true once `session_` is ready, false to wait and try again.
  auto attempt = [&]() -> bool {
    const Scaffold& s = options_.scaffold;
    {
      auto session = std::make_unique<Session>(g_, options_.master, options_.config);
      if (options_.is_chief) {
        // SessionManager.prepare_session: restore the latest checkpoint, else initialise.
        std::optional<std::string> latest;
        if (!options_.checkpoint_dir.empty()) latest = latest_checkpoint(options_.checkpoint_dir);
        if (latest) {
          s.saver->restore(*session, *latest);
          if (auto state = get_checkpoint_state(options_.checkpoint_dir))
            s.saver->recover_last_checkpoints(state->all_model_checkpoint_paths);
          log_info("Restoring parameters from " + *latest);
        } else {
          session->run(*s.init_op);
        }
        auto [local_ready, why] = model_ready(*session, *s.ready_for_local_init_op);
        if (local_ready) session->run(*s.local_init_op);
        auto [ready, message] = model_ready(*session, *s.ready_op);
        if (!ready)
          throw InternalError(
              internal("Init operations did not make model ready.  Init op: " + s.init_op->name() +
                       ", init fn: None, local_init_op: " + s.local_init_op->name() +
                       ", error: " + message));
        session_ = std::move(session);
        return true;
      }
      // SessionManager.wait_for_session: local init once the globals are in, then ready_op.
      auto [local_ready, local_why] = model_ready(*session, *s.ready_for_local_init_op);
      std::string why = local_why;
      if (local_ready) {
        session->run(*s.local_init_op);
        auto [ready, message] = model_ready(*session, *s.ready_op);
        if (ready) {
          session_ = std::move(session);
          return true;
        }
        why = message;
      }
      session->close();
      const auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
      if (waited + options_.recovery_wait > options_.max_wait)
        throw DeadlineExceededError(deadline_exceeded("Session was not ready after waiting " +
                                                      std::to_string(waited.count() / 1000) +
                                                      " secs."));
      log_info("Waiting for model to be ready.  Ready_for_local_init_op:  " + why);
      std::this_thread::sleep_for(options_.recovery_wait);
    }
    return false;
  };
  for (;;) {
    try {
      if (attempt()) break;
    } catch (const Error& e) {
      // _RecoverableSession._create_session: a task lost while the session is being made
      // (Aborted, Unavailable) makes a new attempt, after the recovery wait.
      if (e.code() != Code::aborted && e.code() != Code::unavailable) throw;
      log_info(std::string("An error was raised while a session was being created. This may be "
                           "due to a preemption of a connected worker or parameter server. A new "
                           "session will be created. Error: ") +
               e.what());
      std::this_thread::sleep_for(options_.recovery_wait);
    }
  }
  ++sessions_created_;
  coord_ = std::make_unique<Coordinator>();
  for (auto& h : hooks_) h->after_create_session(*session_, *coord_);
}

void MonitoredSession::close_session() {
  if (!session_) return;
  if (coord_) coord_->request_stop();
  session_->close();  // ends waiting steps of the coordinator's threads (queue runners)
  if (coord_) {
    try {
      coord_->join({}, options_.stop_grace_period, /*ignore_live_runners=*/true);
    } catch (const Error&) {
      // An error a queue runner hit while the session closed (Cancelled) is not the run's.
    }
  }
  coord_.reset();
  session_.reset();
}

std::vector<Tensor> MonitoredSession::run_with_hooks(const std::vector<Output>& fetches,
                                                     const FeedDict& feeds,
                                                     const std::vector<Operation>& targets,
                                                     const RunOptions& options) {
  if (closed_)
    throw FailedPreconditionError(failed_precondition("Run called on a closed MonitoredSession."));
  for (;;) {
    try {
      SessionRunContext ctx(*session_, fetches);
      std::vector<Output> all = fetches;
      std::vector<std::pair<std::size_t, std::size_t>> ranges;  // per hook: [begin, end) in `all`
      FeedDict hook_feeds;
      RunOptions run_options = options;
      for (auto& h : hooks_) {
        SessionRunArgs args = h->before_run_args(ctx);
        ranges.emplace_back(all.size(), all.size() + args.fetches.size());
        all.insert(all.end(), args.fetches.begin(), args.fetches.end());
        refuse_common_feeds(hook_feeds, args.feeds, "Same tensor is fed by two hooks.");
        hook_feeds.insert(hook_feeds.end(), args.feeds.begin(), args.feeds.end());
        run_options.trace = run_options.trace || args.trace;
      }
      refuse_common_feeds(feeds, hook_feeds, "Same tensor is fed by a SessionRunHook and user.");
      FeedDict all_feeds = feeds;
      all_feeds.insert(all_feeds.end(), hook_feeds.begin(), hook_feeds.end());
      RunMetadata metadata;
      std::vector<Tensor> values = session_->run(all, all_feeds, targets, run_options,
                                                 run_options.trace ? &metadata : nullptr);
      if (run_options.trace) ctx.set_run_metadata(&metadata);
      for (std::size_t i = 0; i < hooks_.size(); ++i)
        hooks_[i]->after_run(
            ctx,
            std::vector<Tensor>(values.begin() + static_cast<std::ptrdiff_t>(ranges[i].first),
                                values.begin() + static_cast<std::ptrdiff_t>(ranges[i].second)));
      if (ctx.stop_requested()) stop_ = true;
      values.resize(fetches.size());
      return values;
    } catch (const Error& e) {
      // _RecoverableSession: a lost task (Aborted, Unavailable) re-creates the session.
      if (e.code() != Code::aborted && e.code() != Code::unavailable) throw;
      log_info(std::string("An error was raised. This may be due to a preemption in a connected "
                           "worker or parameter "
                           "server. The current session will be closed and a new session will be "
                           "created. Error: ") +
               e.what());
    }
    close_session();
    create_session();
  }
}

std::vector<Tensor> MonitoredSession::run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                          const RunOptions& options) {
  return run_with_hooks(fetches, feeds, {}, options);
}

void MonitoredSession::run(const Operation& target, const FeedDict& feeds,
                           const RunOptions& options) {
  run_with_hooks({}, feeds, {target}, options);
}

std::vector<Tensor> MonitoredSession::run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                          const std::vector<Operation>& targets,
                                          const RunOptions& options) {
  return run_with_hooks(fetches, feeds, targets, options);
}

bool MonitoredSession::should_stop() const {
  return stop_ || closed_ || (coord_ && coord_->should_stop());
}

void MonitoredSession::close() {
  if (closed_) return;
  closed_ = true;
  if (session_)
    for (auto& h : hooks_) h->end(*session_);
  close_session();
}

Session& MonitoredSession::raw_session() {
  if (!session_)
    throw FailedPreconditionError(failed_precondition("The MonitoredSession is closed."));
  return *session_;
}

std::unique_ptr<MonitoredSession> MonitoredTrainingSession(
    Graph& g, MonitoredTrainingSessionOptions options) {
  return std::make_unique<MonitoredSession>(g, std::move(options));
}

}  // namespace af::train
