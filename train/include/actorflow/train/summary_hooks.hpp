#pragma once

// tf.train.SummarySaverHook: the graph's summaries written to TensorBoard's events file
// while a monitored session trains.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "actorflow/formats/event_file.hpp"
#include "actorflow/train/monitored_session.hpp"

namespace af::train {

/// `tf.train.SummarySaverHook`: every `save_steps` global steps or `save_secs` seconds
/// (exactly one; InvalidArgumentError otherwise) it fetches `summary_op` with the run and
/// writes it to `writer` at the run's global step; the first run writes SessionLog START and
/// a summary. Without `summary_op` it uses `merge_all` of the graph's "summaries" collection
/// (and writes only the START record when the graph has none). `end` flushes.
class SummarySaverHook : public SessionRunHook {
 public:
  SummarySaverHook(std::optional<std::int64_t> save_steps, std::optional<double> save_secs,
                   std::shared_ptr<summary::FileWriter> writer, Output summary_op = {});
  void begin(Graph& g) override;
  std::vector<Output> before_run(SessionRunContext& ctx) override;
  void after_run(SessionRunContext& ctx, const std::vector<Tensor>& values) override;
  void end(Session& session) override;

 private:
  using Clock = std::chrono::steady_clock;
  std::optional<std::int64_t> save_steps_;
  std::optional<double> save_secs_;
  std::shared_ptr<summary::FileWriter> writer_;
  Output summary_op_, global_step_;
  bool started_ = false, requested_ = false;
  std::optional<std::int64_t> next_step_, last_step_;
  Clock::time_point last_time_;
};

}  // namespace af::train
