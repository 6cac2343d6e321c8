// RecordInput: TensorFlow's record_input_op.cc and record_yielder.cc. A yielder owns a main
// thread that runs the epochs (find the files, shuffle them by the epoch and the seed, rotate
// them, hand every parallelism-th one to a reader thread, wait for the buffer to drain) and
// the reader threads that read TFRecords and add them, 16 at a time, at random places of the
// shuffling buffer. Those threads are the yielder's own and block as TensorFlow's do; the
// kernel's runs do not: a run is a queued take that the yielder serves from the end of the
// buffer whenever TensorFlow's YieldOne could go on, so a waiting run holds no thread and its
// step's cancellation ends it, putting back what it had taken. Also the builder of
// record_input.hpp.
#include "actorflow/queues/record_input.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/file_system.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/stall_watch.hpp"
#include "actorflow/queues/queues.hpp"
#include "record_io.hpp"
#include "staging_wait.hpp"
#include "tf_hash.hpp"

namespace af {

namespace {

using Records = std::vector<std::string>;

struct YielderOptions {
  std::string file_pattern;
  std::int64_t seed = 0;
  float file_shuffle_shift_ratio = 0;
  std::uint64_t bufsize = 1;
  int parallelism = 1;
  std::string compression_type;
};

// TensorFlow's RecordYielder, its YieldOne turned into queued takes. Its threads hold it:
// `stop` ends them without waiting, so a reader blocked on a file (a pipe nobody writes)
// never holds up the session that closes.
class RecordYielder : public std::enable_shared_from_this<RecordYielder> {
 public:
  using Took = std::function<void(StatusOr<Records>)>;

  explicit RecordYielder(YielderOptions opts)
      : opts_(std::move(opts)), rnd_(static_cast<std::uint64_t>(opts_.seed)) {}

  // Starts the main thread (once, after construction).
  void start() {
    std::thread([self = shared_from_this()] { self->main_loop(); }).detach();
  }

  // Stops the threads as soon as they can stop; pending takes end with Cancelled.
  void stop() {
    detail::locked_then_fire(mu_, [&](detail::Fired& fire) {
      stop_ = true;
      buf_empty_.notify_all();
      buf_not_full_.notify_all();
      for (Take& t : takes_)
        fire.push_back([done = std::move(t.done)] { done(cancelled("RecordInput was closed")); });
      takes_.clear();
    });
  }

  // Takes `n` records once TensorFlow's YieldOne would have yielded them; `done` runs once,
  // outside the lock, on whichever thread served the take.
  void take(std::uint64_t id, std::int64_t n, Took done) {
    detail::locked_then_fire(mu_, [&](detail::Fired& fire) {
      takes_.push_back({id, n, {}, std::move(done)});
      serve(fire);
    });
  }

  // Ends the waiting take `id` with `why`; the records it had go back where they were.
  void cancel(std::uint64_t id, const Status& why) {
    std::function<void()> fire;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = takes_.begin(); it != takes_.end(); ++it) {
        if (it->id != id) continue;
        put_back_locked(std::move(it->got));
        fire = [done = std::move(it->done), why] { done(why); };
        takes_.erase(it);
        break;
      }
    }
    if (fire) fire();
  }

  // Puts the records of a run whose step failed back at the end of the buffer, to be yielded
  // next in the order they were.
  void restore(Records records) {
    detail::locked_then_fire(mu_, [&](detail::Fired& fire) {
      put_back_locked(std::move(records));
      serve(fire);
    });
  }

  // Records in the buffer, for a stall report.
  std::string state() const {
    std::lock_guard<std::mutex> lock(mu_);
    return "RecordInput '" + opts_.file_pattern + "': epoch " + std::to_string(epoch_) + ", " +
           std::to_string(buf_.size()) + " of " + std::to_string(opts_.bufsize) +
           " records buffered";
  }

 private:
  struct Take {
    std::uint64_t id;
    std::int64_t n;
    Records got;
    Took done;
  };

  bool buf_empty() const { return stop_ || buf_.empty(); }
  bool buf_not_full() const { return stop_ || buf_.size() < opts_.bufsize; }
  bool buf_enough() const {
    return stop_ || !status_.ok() || (epoch_end_ && !buf_.empty()) ||
           (!epoch_end_ && buf_.size() >= std::max<std::uint64_t>(1, opts_.bufsize / 2));
  }

  // Under the lock: `records` (taken from the end, first first) back at the end.
  void put_back_locked(Records records) {
    for (auto it = records.rbegin(); it != records.rend(); ++it) buf_.push_back(std::move(*it));
  }

  // Under the lock: YieldOne for the takes in order, while it could go on.
  void serve(detail::Fired& fire) {
    while (!takes_.empty() && buf_enough()) {
      Take& t = takes_.front();
      if (stop_ || !status_.ok()) {
        put_back_locked(std::move(t.got));
        fire.push_back([done = std::move(t.done), why = stop_ ? cancelled("RecordInput was closed")
                                                              : status_] { done(why); });
        takes_.pop_front();
        continue;
      }
      if (static_cast<std::int64_t>(t.got.size()) < t.n) {
        const bool was_full = !buf_not_full();
        t.got.push_back(std::move(buf_.back()));
        buf_.pop_back();
        if (buf_.empty()) buf_empty_.notify_all();
        if (was_full) buf_not_full_.notify_all();
      }
      if (static_cast<std::int64_t>(t.got.size()) == t.n) {
        fire.push_back(
            [done = std::move(t.done), got = std::move(t.got)]() mutable { done(std::move(got)); });
        takes_.pop_front();
      }
    }
  }

  // Notes `s`; whether the readers should stop (closed, or an error).
  bool should_finish(const Status& s, detail::Fired& fire) {
    if (status_.ok() && !s.ok()) {
      status_ = s;
      serve(fire);
    }
    return stop_ || !status_.ok();
  }
  bool should_finish(const Status& s) {
    return detail::locked_then_fire(mu_,
                                    [&](detail::Fired& fire) { return should_finish(s, fire); });
  }

  Status match_files(std::vector<std::string>* files) const {
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = opts_.file_pattern.find(',', start);
      detail::matching_paths(opts_.file_pattern.substr(start, comma - start), files);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (files->empty()) return Status(Code::not_found, "Found no files at " + opts_.file_pattern);
    return {};
  }

  void main_loop() {
    while (true) {
      std::vector<std::string> files;
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++epoch_;
        added_in_epoch_ = 0;
      }
      if (should_finish(match_files(&files))) break;
      // The files shuffled by the epoch and the seed, then rotated left, as TensorFlow's.
      const std::int64_t epoch = epoch_;
      std::mt19937_64 shuffle_rnd(detail::tf_hash64(reinterpret_cast<const char*>(&epoch),
                                                    sizeof(epoch),
                                                    static_cast<std::uint64_t>(opts_.seed)));
      std::shuffle(files.begin(), files.end(), shuffle_rnd);
      if (0 <= opts_.file_shuffle_shift_ratio && opts_.file_shuffle_shift_ratio < 1) {
        const auto shift = static_cast<std::int64_t>(opts_.file_shuffle_shift_ratio *
                                                     static_cast<float>(files.size()));
        std::rotate(files.begin(), files.begin() + shift, files.end());
      }
      const int n = opts_.parallelism;
      std::vector<Status> shard_status(static_cast<std::size_t>(n));
      std::vector<std::thread> shards;
      for (int i = 0; i < n; ++i) {
        std::vector<std::string> mine;
        for (std::size_t j = static_cast<std::size_t>(i); j < files.size();
             j += static_cast<std::size_t>(n))
          mine.push_back(files[j]);
        shards.emplace_back(
            [this, mine = std::move(mine), out = &shard_status[i]] { *out = shard_loop(mine); });
      }
      Status s;
      for (int i = 0; i < n; ++i) {
        shards[static_cast<std::size_t>(i)].join();
        if (s.ok()) s = shard_status[static_cast<std::size_t>(i)];
      }
      const bool finish = detail::locked_then_fire(mu_, [&](detail::Fired& fire) {
        // An epoch smaller than the buffer shrinks it to the epoch, as TensorFlow's does. An
        // epoch of no records ends the yielder (TensorFlow's would start epochs forever).
        if (added_in_epoch_ < opts_.bufsize)
          opts_.bufsize = std::max<std::uint64_t>(added_in_epoch_, 1);
        if (added_in_epoch_ == 0 && s.ok())
          s = Status(Code::out_of_range,
                     "RecordInput: the files at " + opts_.file_pattern + " hold no records");
        if (should_finish(s, fire)) return true;
        // The next epoch starts once the buffer is drained.
        epoch_end_ = true;
        serve(fire);
        return false;
      });
      if (finish) break;
      std::unique_lock<std::mutex> lock(mu_);
      buf_empty_.wait(lock, [this] { return buf_empty(); });
      epoch_end_ = false;
    }
  }

  // Reads `files` in order, adding records 16 at a time.
  Status shard_loop(const std::vector<std::string>& files) {
    constexpr std::size_t kRecords = 16;
    Records values;
    Status status;
    for (const std::string& file : files) {
      if (should_finish(Status{})) break;
      std::unique_ptr<io::RecordReader> reader;
      Status s = io::RecordReader::open(file, opts_.compression_type, &reader);
      if (!s.ok()) {
        status = invalid_argument("Can't open " + file);
        break;
      }
      std::string record;
      while (true) {
        s = reader->read(&record);
        if (s.ok()) {
          values.push_back(std::move(record));
          if (values.size() >= kRecords && add(&values)) {
            status = Status(Code::aborted, "stopped");
            break;
          }
        } else {
          if (s.code() != Code::out_of_range) status = s;
          break;
        }
      }
      if (!status.ok()) break;
    }
    while (!values.empty())
      if (add(&values)) break;
    return status;
  }

  // TensorFlow's Add: once the buffer has room, each record (the last first) goes to a random
  // place, the one there moving to the end. Whether the yielder is closing.
  bool add(Records* values) {
    std::vector<std::function<void()>> fire;
    bool stop;
    {
      std::unique_lock<std::mutex> lock(mu_);
      buf_not_full_.wait(lock, [this] { return buf_not_full(); });
      while (buf_not_full() && !values->empty() && !stop_) {
        const std::uint64_t index = rnd_() % (buf_.size() + 1);
        if (index == buf_.size()) {
          buf_.push_back(std::move(values->back()));
        } else {
          buf_.push_back(std::move(buf_[index]));
          buf_[index] = std::move(values->back());
        }
        values->pop_back();
        ++added_in_epoch_;
      }
      serve(fire);
      stop = stop_;
    }
    for (auto& f : fire) f();
    return stop;
  }

  YielderOptions opts_;
  mutable std::mutex mu_;
  std::condition_variable buf_empty_;
  std::condition_variable buf_not_full_;
  bool stop_ = false;
  Status status_;
  std::mt19937_64 rnd_;
  Records buf_;
  bool epoch_end_ = false;
  std::int64_t epoch_ = 0;
  std::uint64_t added_in_epoch_ = 0;
  std::deque<Take> takes_;
};

[[noreturn]] void refuse(const std::string& message) {
  throw InvalidArgumentError(invalid_argument(message));
}

// The checks the kernel and the builder share; an empty string when the options are fine.
std::string bad_options(std::int64_t batch_size, std::int64_t buffer_size, std::int64_t parallelism,
                        const std::string& compression) {
  if (batch_size < 0)
    return "RecordInput: batch_size must be >= 0, got " + std::to_string(batch_size);
  if (buffer_size < 1)
    return "RecordInput: file_buffer_size must be >= 1, got " + std::to_string(buffer_size);
  if (parallelism < 1)
    return "RecordInput: file_parallelism must be >= 1, got " + std::to_string(parallelism);
  if (compression != "" && compression != "ZLIB" && compression != "GZIP")
    return "RecordInput: unknown compression_type '" + compression +
           "' (expected \"\", \"ZLIB\" or \"GZIP\")";
  return {};
}

// RecordInput: `batch_size` records per run from the kernel's yielder.
class RecordInputOp : public OpKernel {
 public:
  RecordInputOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    YielderOptions o;
    *s = c.get_attr("file_pattern", &o.file_pattern);
    if (!s->ok()) return;
    std::int64_t buffer = 10000, parallelism = 16;
    o.seed = 301;
    c.get_attr("file_random_seed", &o.seed);
    c.get_attr("file_shuffle_shift_ratio", &o.file_shuffle_shift_ratio);
    c.get_attr("file_buffer_size", &buffer);
    c.get_attr("file_parallelism", &parallelism);
    c.get_attr("batch_size", &batch_size_);
    c.get_attr("compression_type", &o.compression_type);
    if (std::string bad = bad_options(batch_size_, buffer, parallelism, o.compression_type);
        !bad.empty()) {
      *s = invalid_argument(bad);
      return;
    }
    o.bufsize = static_cast<std::uint64_t>(buffer);
    o.parallelism = static_cast<int>(parallelism);
    // As TensorFlow's: the readers start with the kernel, before its first run.
    yielder_ = std::make_shared<RecordYielder>(std::move(o));
    yielder_->start();
  }
  ~RecordInputOp() override {
    if (yielder_) yielder_->stop();
  }

  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }

  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    StallWatchScope watching(StallingWait{"take", name(), std::string(ctx.device_name),
                                          ctx.step->step_id(), -1,
                                          [weak = std::weak_ptr<RecordYielder>(yielder_)] {
                                            auto y = weak.lock();
                                            return y ? y->state() : std::string("(gone)");
                                          }});
    Async<StatusOr<Records>> taking = detail::staging_wait<StatusOr<Records>>(
        ctx.step, yielder_,
        [n = batch_size_](RecordYielder& y, std::uint64_t id, auto done) {
          y.take(id, n, std::move(done));
        },
        "RecordInput operation was cancelled");
    StatusOr<Records> got = co_await std::move(taking);
    watching.end();
    if (!got.ok()) {
      ctx.fail(got.status());
      co_return;
    }
    Records records = std::move(got).value();
    // Should this step fail after all, the records go back: a failed step takes nothing.
    ctx.step->add_rollback([y = yielder_, records] { y->restore(records); });
    ctx.set_output(0, Tensor::from_vector(records, Shape{batch_size_}));
  }

 private:
  std::int64_t batch_size_ = 32;
  std::shared_ptr<RecordYielder> yielder_;
};

}  // namespace

namespace detail {

/// RecordInput's op and kernel (called by register_queue_ops_and_kernels).
void register_record_input() {
  OpRegistry::global().add({"RecordInput",
                            [](InferenceContext& c) -> Status {
                              ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(0));
                              c.add_output(DType::string, PartialShape::unknown());
                              return {};
                            },
                            true});
  KernelRegistry::global().add(make_kernel_def<RecordInputOp>("RecordInput", "CPU"));
}

}  // namespace detail

RecordInput::RecordInput(Graph& g, std::string file_pattern, RecordInputOptions options)
    : graph_(&g), file_pattern_(std::move(file_pattern)), options_(std::move(options)) {
  register_queue_ops();
  if (options_.batches && *options_.batches < 1)
    refuse("RecordInput: batches must be >= 1, got " + std::to_string(*options_.batches));
  if (std::string bad = bad_options(options_.batch_size, options_.buffer_size, options_.parallelism,
                                    options_.compression_type);
      !bad.empty())
    refuse(bad);
  if (options_.batches) options_.batch_size *= *options_.batches;
}

Output RecordInput::get_yield_op() const {
  return graph_
      ->create_op("RecordInput", {},
                  {{"file_pattern", file_pattern_},
                   {"file_buffer_size", options_.buffer_size},
                   {"file_parallelism", options_.parallelism},
                   {"file_shuffle_shift_ratio", options_.shift_ratio},
                   {"batch_size", options_.batch_size},
                   {"file_random_seed", options_.seed},
                   {"compression_type", options_.compression_type}},
                  options_.name.empty() ? std::string("RecordInput") : options_.name)
      .output(0);
}

std::vector<std::vector<Output>> RecordInput::get_yield_op_batches() const {
  if (!options_.batches) refuse("RecordInput: get_yield_op_batches needs `batches`");
  const Output records = get_yield_op();
  std::optional<ScopeGuard> scope;
  if (!options_.name.empty()) scope.emplace(graph_->name_scope(options_.name));
  std::vector<std::vector<Output>> lists(static_cast<std::size_t>(*options_.batches));
  const std::vector<Output> parts = split(records, options_.batch_size, 0);
  for (std::size_t i = 0; i < parts.size(); ++i)
    lists[i % lists.size()].push_back(reshape(parts[i], std::vector<std::int64_t>{}));
  return lists;
}

}  // namespace af
