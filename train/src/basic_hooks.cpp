// SecondOrStepTimer, LoggingTensorHook, NanTensorHook, GlobalStepWaiterHook, FinalOpsHook,
// FeedFnHook and ProfilerHook (tensorflow/python/training/basic_session_run_hooks.py).
#include "actorflow/train/basic_hooks.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <thread>

#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/logging.hpp"
#include "hook_helpers.hpp"

namespace af::train {

namespace {

using Clock = std::chrono::steady_clock;
using detail::require_global_step;
using detail::scalar_step;

// _as_graph_element: "x:1" as it is, "x" as "x:0" unless x has a second output.
Output graph_element(Graph& g, const std::string& name) {
  if (name.find(':') != std::string::npos) return g.output(name);
  Operation op = g.operation(name);
  if (op.num_outputs() > 1)
    throw InvalidArgumentError(invalid_argument(
        "Name " + name + " is ambiguous, as this `Operation` has multiple outputs (at least 2)."));
  return g.output(name + ":0");
}

}  // namespace

// -- SecondOrStepTimer ----------------------------------------------------------------------

SecondOrStepTimer::SecondOrStepTimer(std::optional<double> every_secs,
                                     std::optional<std::int64_t> every_steps)
    : every_secs_(every_secs), every_steps_(every_steps) {
  if (!every_secs_ && !every_steps_)
    throw InvalidArgumentError(
        invalid_argument("Either every_secs or every_steps should be provided."));
  if (every_secs_ && every_steps_)
    throw InvalidArgumentError(
        invalid_argument("Can not provide both every_secs and every_steps."));
}

void SecondOrStepTimer::reset() { last_step_.reset(); }

bool SecondOrStepTimer::should_trigger_for_step(std::int64_t step) const {
  if (!last_step_) return true;
  if (*last_step_ == step) return false;
  if (every_secs_ &&
      std::chrono::duration<double>(Clock::now() - last_time_).count() >= *every_secs_)
    return true;
  return every_steps_ && step >= *last_step_ + *every_steps_;
}

std::optional<std::pair<double, std::int64_t>> SecondOrStepTimer::update_last_triggered_step(
    std::int64_t step) {
  const auto now = Clock::now();
  std::optional<std::pair<double, std::int64_t>> elapsed;
  if (last_step_)
    elapsed.emplace(std::chrono::duration<double>(now - last_time_).count(), step - *last_step_);
  last_step_ = step;
  last_time_ = now;
  return elapsed;
}

// -- LoggingTensorHook ----------------------------------------------------------------------

namespace {

std::optional<SecondOrStepTimer> logging_timer(const LoggingTensorHookOptions& o) {
  const bool only_at_end = o.at_end && !o.every_n_iter && !o.every_n_secs;
  if (!only_at_end && o.every_n_iter.has_value() == o.every_n_secs.has_value())
    throw InvalidArgumentError(
        invalid_argument("either at_end and/or exactly one of every_n_iter and every_n_secs "
                         "must be provided."));
  if (o.every_n_iter && *o.every_n_iter <= 0)
    throw InvalidArgumentError(
        invalid_argument("invalid every_n_iter=" + std::to_string(*o.every_n_iter) + "."));
  if (only_at_end) return std::nullopt;
  return SecondOrStepTimer(o.every_n_secs, o.every_n_iter);
}

}  // namespace

LoggingTensorHook::LoggingTensorHook(std::map<std::string, Output> tensors,
                                     LoggingTensorHookOptions options)
    : options_(std::move(options)), timer_(logging_timer(options_)) {
  for (auto& [tag, t] : tensors) {
    tags_.push_back(tag);
    tensors_.push_back(t);
  }
}

LoggingTensorHook::LoggingTensorHook(std::vector<std::string> names,
                                     LoggingTensorHookOptions options)
    : tags_(std::move(names)),
      options_(std::move(options)),
      timer_(logging_timer(options_)),
      by_name_(true) {}

void LoggingTensorHook::begin(Graph& g) {
  if (timer_) timer_->reset();
  iter_count_ = 0;
  if (by_name_) {  // resolved in each graph the hook begins in, as TensorFlow's begin does
    tensors_.clear();
    for (const auto& name : tags_) tensors_.push_back(graph_element(g, name));
  }
}

std::vector<Output> LoggingTensorHook::before_run(SessionRunContext&) {
  should_trigger_ = timer_ && timer_->should_trigger_for_step(iter_count_);
  if (should_trigger_) return tensors_;
  return {};
}

void LoggingTensorHook::log(const std::vector<Tensor>& values) {
  std::optional<std::pair<double, std::int64_t>> elapsed;
  if (timer_) elapsed = timer_->update_last_triggered_step(iter_count_);
  if (options_.formatter) {
    std::vector<std::pair<std::string, Tensor>> tagged;
    for (std::size_t i = 0; i < tags_.size(); ++i) tagged.emplace_back(tags_[i], values.at(i));
    log_info(options_.formatter(tagged));
    return;
  }
  std::string line;
  for (std::size_t i = 0; i < tags_.size(); ++i)
    line += (i ? ", " : "") + tags_[i] + " = " + values.at(i).to_string();
  if (elapsed) {
    char secs[32];
    std::snprintf(secs, sizeof secs, " (%.3f sec)", elapsed->first);
    line += secs;
  }
  log_info(line);
}

void LoggingTensorHook::after_run(SessionRunContext&, const std::vector<Tensor>& values) {
  if (should_trigger_) log(values);
  ++iter_count_;
}

void LoggingTensorHook::end(Session& session) {
  if (options_.at_end) log(session.run(tensors_));
}

// -- NanTensorHook --------------------------------------------------------------------------

NanTensorHook::NanTensorHook(Output loss, bool fail_on_nan_loss)
    : loss_(std::move(loss)), fail_(fail_on_nan_loss) {}

std::vector<Output> NanTensorHook::before_run(SessionRunContext&) { return {loss_}; }

void NanTensorHook::after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) {
  const Tensor& loss = values.at(0);
  const double v = loss.dtype() == DType::float64 ? loss.scalar<double>()
                                                  : static_cast<double>(loss.scalar<float>());
  if (!std::isnan(v)) return;
  log_info("Model diverged with loss = NaN.");
  if (fail_) throw NanLossDuringTrainingError();
  ctx.request_stop();
}

// -- GlobalStepWaiterHook -------------------------------------------------------------------

GlobalStepWaiterHook::GlobalStepWaiterHook(std::int64_t wait_until_step,
                                           std::chrono::milliseconds poll)
    : wait_until_(wait_until_step), poll_(poll) {}

void GlobalStepWaiterHook::begin(Graph& g) {
  started_ = false;
  global_step_ = require_global_step(g, "_GlobalStepWaiterHook");
}

std::vector<Output> GlobalStepWaiterHook::before_run(SessionRunContext& ctx) {
  if (started_) return {};
  if (wait_until_ <= 0) {
    started_ = true;
    return {};
  }
  log_info("Waiting for global step " + std::to_string(wait_until_) + " before starting training.");
  std::int64_t last_logged = 0;
  for (;;) {
    const std::int64_t step = scalar_step(ctx.session().run(global_step_));
    if (step >= wait_until_) {
      started_ = true;
      return {};
    }
    if (step - last_logged > 1000) {
      log_info("Waiting for global step " + std::to_string(wait_until_) +
               " before starting training. Current step is " + std::to_string(step) + ".");
      last_logged = step;
    }
    std::this_thread::sleep_for(poll_);
  }
}

// -- FinalOpsHook ---------------------------------------------------------------------------

FinalOpsHook::FinalOpsHook(std::vector<Output> final_ops, FeedDict feeds)
    : ops_(std::move(final_ops)), feeds_(std::move(feeds)) {}

void FinalOpsHook::end(Session& session) {
  if (ops_.empty()) return;
  try {
    values_ = session.run(ops_, feeds_);
  } catch (const OutOfRangeError&) {
    log_info(
        "An OutOfRangeError or StopIteration exception is raised by the code in FinalOpsHook. "
        "This typically means the Ops running by the FinalOpsHook have a dependency back to "
        "some input source, which should not happen. For example, for metrics in "
        "tf.estimator.Estimator, all metrics functions return two Ops: `value_op` and  "
        "`update_op`. Estimator.evaluate calls the `update_op` for each batch of the data in "
        "input source and, once it is exhausted, it call the `value_op` to get the metric "
        "values. The `value_op` here should have dependency back to variables reading only, "
        "rather than reading another batch from input. Otherwise, the `value_op`, executed by "
        "`FinalOpsHook`, triggers another data reading, which ends OutOfRangeError/"
        "StopIteration. Please fix that.");
    throw;
  }
}

// -- FeedFnHook -----------------------------------------------------------------------------

FeedFnHook::FeedFnHook(std::function<FeedDict()> feed_fn) : feed_fn_(std::move(feed_fn)) {}

SessionRunArgs FeedFnHook::before_run_args(SessionRunContext&) { return {{}, feed_fn_()}; }

// -- ProfilerHook ---------------------------------------------------------------------------

ProfilerHook::ProfilerHook(std::optional<std::int64_t> save_steps, std::optional<double> save_secs,
                           std::string output_dir)
    : output_dir_(std::move(output_dir)),
      timer_(save_secs, save_steps),
      writer_(std::make_shared<summary::FileWriter>(output_dir_)) {}

void ProfilerHook::begin(Graph& g) {
  next_step_.reset();
  global_step_ = require_global_step(g, "ProfilerHook");
}

SessionRunArgs ProfilerHook::before_run_args(SessionRunContext&) {
  request_ = next_step_ && timer_.should_trigger_for_step(*next_step_);
  return {{global_step_}, {}, request_};
}

void ProfilerHook::after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) {
  const std::int64_t stale = scalar_step(values.at(0));
  if (!next_step_) timer_.update_last_triggered_step(stale);
  std::int64_t step = stale + 1;
  if (request_ && ctx.run_metadata()) {
    step = scalar_step(ctx.session().run(global_step_));
    timer_.update_last_triggered_step(step);
    const std::string path =
        (std::filesystem::path(output_dir_) / ("timeline-" + std::to_string(step) + ".json"))
            .string();
    log_info("Saving timeline for " + std::to_string(step) + " into '" + path + "'.");
    ctx.run_metadata()->write_chrome_trace(path);
    writer_->add_run_metadata(*ctx.run_metadata(), "step_" + std::to_string(step));
    writer_->flush();
  }
  next_step_ = step + 1;
}

void ProfilerHook::end(Session&) { writer_->flush(); }

}  // namespace af::train
