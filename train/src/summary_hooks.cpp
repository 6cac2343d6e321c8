// SummarySaverHook (tensorflow/python/training/basic_session_run_hooks.py).
#include "actorflow/train/summary_hooks.hpp"

#include "actorflow/formats/summary_ops.hpp"
#include "actorflow/ops/errors.hpp"
#include "hook_helpers.hpp"

namespace af::train {

SummarySaverHook::SummarySaverHook(std::optional<std::int64_t> save_steps,
                                   std::optional<double> save_secs,
                                   std::shared_ptr<summary::FileWriter> writer, Output summary_op)
    : save_steps_(save_steps),
      save_secs_(save_secs),
      writer_(std::move(writer)),
      summary_op_(std::move(summary_op)) {
  if (save_steps_.has_value() == save_secs_.has_value())
    throw InvalidArgumentError(
        invalid_argument("exactly one of save_steps or save_secs should be provided"));
  if (!writer_) throw InvalidArgumentError(invalid_argument("SummarySaverHook needs a FileWriter"));
}

void SummarySaverHook::begin(Graph& g) {
  global_step_ = detail::require_global_step(g, "SummarySaverHook");
  if (!summary_op_.valid())
    if (auto merged = summary::merge_all(g)) summary_op_ = *merged;
}

std::vector<Output> SummarySaverHook::before_run(SessionRunContext&) {
  // TensorFlow's timer: due on the first run, then once the steps or seconds have passed.
  requested_ =
      summary_op_.valid() &&
      (!last_step_ ||
       (save_steps_ ? next_step_ && *next_step_ >= *last_step_ + *save_steps_
                    : Clock::now() - last_time_ >= std::chrono::duration<double>(*save_secs_)));
  if (requested_) return {global_step_, summary_op_};
  return {global_step_};
}

void SummarySaverHook::after_run(SessionRunContext&, const std::vector<Tensor>& values) {
  const Tensor& s = values.at(0);
  const std::int64_t stale =
      s.dtype() == DType::int64 ? s.scalar<std::int64_t>() : s.scalar<std::int32_t>();
  const std::int64_t step = stale + 1;  // the run's update has happened
  if (!started_) {
    writer_->add_session_log(summary::FileWriter::SessionStatus::start, step);
    started_ = true;
  }
  if (requested_ && values.size() > 1) {
    writer_->add_summary(values[1].scalar<std::string>(), step);
    last_step_ = step;
    last_time_ = Clock::now();
  }
  next_step_ = step + 1;
}

void SummarySaverHook::end(Session&) { writer_->flush(); }

}  // namespace af::train
