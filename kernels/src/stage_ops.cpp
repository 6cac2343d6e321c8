// Stage, Unstage, StagePeek, StageSize and StageClear: the staging area of TensorFlow's
// stage_op.cc (`tf.contrib.staging.StagingArea`, data_flow_ops.StagingArea), a FIFO of
// tuples shared by name in a container, bounded by a capacity and a memory limit when they
// are set. A put that does not fit, a get of an empty area and a peek past its end wait
// holding no thread: the waiting kernel is suspended in its device actor and resumed there
// when another step makes room or adds an element, or failed by its step's cancellation
// (deadline, session closed). Unlike TensorFlow's, a get whose step then fails puts its
// tuple back at the front, as the queues' dequeues do: a failed step loses nothing. The
// definitions are in ops/src/defs/stage_ops.cpp.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/stall_watch.hpp"
#include "kernel_helpers.hpp"
#include "staging_wait.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Tuple = std::vector<Tensor>;

// The staging area: TensorFlow's Buffer, with its waits as queued callbacks.
class StagingBuffer : public ResourceBase {
 public:
  using Got = std::function<void(StatusOr<Tuple>)>;
  using Put = std::function<void(Status)>;

  StagingBuffer(std::int64_t capacity, std::int64_t memory_limit)
      : capacity_(static_cast<std::size_t>(capacity)),
        memory_limit_(static_cast<std::size_t>(memory_limit)) {}

  std::string debug_string() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return "Staging size: " + std::to_string(buf_.size());
  }

  // Inserts `tuple` once it fits (at once when the area is unbounded); `done` runs once,
  // outside the lock.
  void put(Tuple tuple, std::uint64_t id, Put done) {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      puts_.push_back({id, std::move(tuple), std::move(done)});
      serve(ready);
    });
  }

  // Takes the front tuple (`peek`: copies tuple `index`) once there is one.
  void get(std::uint64_t id, Got done) { wait_for(id, -1, std::move(done)); }
  void peek(std::uint64_t id, std::size_t index, Got done) {
    wait_for(id, static_cast<std::int64_t>(index), std::move(done));
  }

  // Ends the waiting put, get or peek `id` with `why` (nothing when it is done already).
  void cancel(std::uint64_t id, const Status& why) {
    std::function<void()> fire;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fire = detail::take_waiting(puts_, id, why);
      if (!fire) fire = detail::take_waiting(takes_, id, why);
    }
    if (fire) fire();
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return buf_.size();
  }

  void clear() {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      buf_.clear();
      bytes_ = 0;
      serve(ready);
    });
  }

  // Puts a tuple a get took back at the front (the rollback of a failed step).
  void restore(Tuple tuple) {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      bytes_ += detail::staging_bytes(tuple);
      buf_.push_front(std::move(tuple));
      serve(ready);
    });
  }

 private:
  struct PendingPut {
    std::uint64_t id;
    Tuple tuple;
    Put done;
  };
  struct PendingTake {
    std::uint64_t id;
    std::int64_t index;  // -1: a get
    Got done;
  };

  void wait_for(std::uint64_t id, std::int64_t index, Got done) {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      takes_.push_back({id, index, std::move(done)});
      serve(ready);
    });
  }

  bool bounded() const { return capacity_ > 0 || memory_limit_ > 0; }

  bool fits(std::size_t bytes) const {
    if (!bounded()) return true;
    const bool memory_ok = memory_limit_ == 0 || bytes + bytes_ <= memory_limit_;
    const bool capacity_ok = capacity_ == 0 || buf_.size() < capacity_;
    return memory_ok && capacity_ok;
  }

  // Under the lock: admits the waiting puts that fit (in order) and answers the takes that
  // can be (gets in order, peeks whose index exists), until nothing moves; `ready` gets the
  // callbacks to run after unlocking.
  void serve(detail::Fired& ready) {
    for (bool moved = true; moved;) {
      moved = false;
      for (auto it = puts_.begin(); it != puts_.end();) {
        const std::size_t bytes = detail::staging_bytes(it->tuple);
        if (!fits(bytes)) {
          ++it;
          continue;
        }
        bytes_ += bytes;
        buf_.push_back(std::move(it->tuple));
        ready.push_back([done = std::move(it->done)] { done(Status{}); });
        it = puts_.erase(it);
        moved = true;
      }
      for (auto it = takes_.begin(); it != takes_.end();) {
        if (it->index < 0 && !buf_.empty()) {
          Tuple tuple = std::move(buf_.front());
          buf_.pop_front();
          bytes_ -= detail::staging_bytes(tuple);
          ready.push_back(
              [done = std::move(it->done), t = std::move(tuple)]() mutable { done(std::move(t)); });
          it = takes_.erase(it);
          moved = true;
        } else if (it->index >= 0 && static_cast<std::size_t>(it->index) < buf_.size()) {
          ready.push_back(
              [done = std::move(it->done),
               t = buf_[static_cast<std::size_t>(it->index)]]() mutable { done(std::move(t)); });
          it = takes_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }

  const std::size_t capacity_;
  const std::size_t memory_limit_;
  std::size_t bytes_ = 0;
  mutable std::mutex mu_;
  std::deque<Tuple> buf_;
  std::deque<PendingPut> puts_;
  std::deque<PendingTake> takes_;
};

// What every staging kernel reads: the area's settings and where it is shared.
class StageKernel : public OpKernel {
 public:
  StageKernel(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("capacity", &capacity_);
    c.get_attr("memory_limit", &memory_limit_);
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
  }

 protected:
  // The area (created by the first kernel to run); named by shared_name, else the node.
  StatusOr<std::shared_ptr<StagingBuffer>> buffer(OpKernelContext& ctx) const {
    if (!ctx.resource_mgr) return internal("no resource manager for " + name());
    std::shared_ptr<StagingBuffer> buf;
    const std::int64_t capacity = capacity_, memory_limit = memory_limit_;
    Status s = ctx.resource_mgr->lookup_or_create<StagingBuffer>(
        container_, shared_name_.empty() ? name() : shared_name_, &buf,
        [&](std::shared_ptr<StagingBuffer>* out) -> Status {
          *out = std::make_shared<StagingBuffer>(capacity, memory_limit);
          return {};
        });
    if (!s.ok()) return s;
    return buf;
  }

  // The area's name, as its ops share it.
  std::string area_name() const { return shared_name_.empty() ? name() : shared_name_; }

  // A wait a stall report (and a test) can see: "stage" for a put, "unstage" for a get or
  // a peek, on the area's name.
  StallWatchScope watch(const char* kind, OpKernelContext& ctx,
                        const std::shared_ptr<StagingBuffer>& buf) const {
    return StallWatchScope(StallingWait{kind, area_name(), std::string(ctx.device_name),
                                        ctx.step->step_id(), -1,
                                        [weak = std::weak_ptr<StagingBuffer>(buf)] {
                                          auto b = weak.lock();
                                          return b ? b->debug_string() : std::string("(gone)");
                                        }});
  }

  std::int64_t capacity_ = 0;
  std::int64_t memory_limit_ = 0;
  std::string container_;
  std::string shared_name_;
};

// The kernels that may wait: they run as coroutines only.
class AsyncStageKernel : public StageKernel {
 public:
  using StageKernel::StageKernel;
  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }
};

// Stage(values): puts the tuple, waiting for room in a bounded area.
class StageOp : public AsyncStageKernel {
 public:
  using AsyncStageKernel::AsyncStageKernel;
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    StatusOr<std::shared_ptr<StagingBuffer>> buf = buffer(ctx);
    if (!buf.ok()) {
      ctx.fail(buf.status());
      co_return;
    }
    Tuple tuple;
    for (int i = 0; i < ctx.num_inputs(); ++i) tuple.push_back(ctx.input(i));
    const std::size_t bytes = detail::staging_bytes(tuple);
    if (memory_limit_ > 0 && bytes > static_cast<std::size_t>(memory_limit_)) {
      ctx.fail(Status(Code::resource_exhausted,
                      "Attempted to insert tensors with combined size of '" +
                          std::to_string(bytes) +
                          "' bytes into Staging Area with a memory limit of '" +
                          std::to_string(memory_limit_) + "'."));
      co_return;
    }
    StallWatchScope watching = watch("stage", ctx, *buf);
    // The awaitable is a named local: GCC 12 mishandles a lambda temporary inside a co_await
    // expression (the frame's copy of it is not the one the awaiter calls).
    Async<Status> putting = detail::staging_wait<Status>(
        ctx.step, *buf, [t = std::move(tuple)](StagingBuffer& b, std::uint64_t id, auto done) {
          b.put(t, id, std::move(done));  // shares the buffers
        });
    const Status s = co_await std::move(putting);
    watching.end();
    if (!s.ok()) ctx.fail(s);
  }
};

// Unstage (`peek`: false) and StagePeek (true): the front tuple, or tuple `index`.
template <bool kPeek>
class UnstageOp : public AsyncStageKernel {
 public:
  using AsyncStageKernel::AsyncStageKernel;
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    StatusOr<std::shared_ptr<StagingBuffer>> buf = buffer(ctx);
    if (!buf.ok()) {
      ctx.fail(buf.status());
      co_return;
    }
    std::size_t index = 0;
    if constexpr (kPeek) {
      const Tensor& i = ctx.input(0);
      if (!i.shape().is_scalar()) {
        ctx.fail(invalid_argument("index must be scalar"));
        co_return;
      }
      index = static_cast<std::size_t>(i.scalar<std::int32_t>());
    }
    StallWatchScope watching = watch("unstage", ctx, *buf);
    Async<StatusOr<Tuple>> taking = detail::staging_wait<StatusOr<Tuple>>(
        ctx.step, *buf, [index](StagingBuffer& b, std::uint64_t id, auto done) {
          if constexpr (kPeek)
            b.peek(id, index, std::move(done));
          else
            b.get(id, std::move(done));
        });
    StatusOr<Tuple> got = co_await std::move(taking);
    watching.end();
    if (!got.ok()) {
      ctx.fail(got.status());
      co_return;
    }
    Tuple tuple = std::move(got).value();
    // Should this step fail after all, the tuple goes back: a failed step takes nothing.
    if (!kPeek) ctx.step->add_rollback([b = *buf, tuple] { b->restore(tuple); });
    if (tuple.size() != static_cast<std::size_t>(ctx.num_outputs())) {
      ctx.fail(invalid_argument("Mismatch stage/unstage: " + std::to_string(tuple.size()) +
                                " vs. " + std::to_string(ctx.num_outputs())));
      co_return;
    }
    for (std::size_t i = 0; i < tuple.size(); ++i)
      ctx.set_output(static_cast<int>(i), std::move(tuple[i]));
  }
};

// StageSize: the number of tuples, int32.
class StageSizeOp : public StageKernel {
 public:
  using StageKernel::StageKernel;
  void compute(OpKernelContext& ctx) override {
    StatusOr<std::shared_ptr<StagingBuffer>> buf = buffer(ctx);
    if (!buf.ok()) return ctx.fail(buf.status());
    ctx.set_output(0, Tensor(static_cast<std::int32_t>((*buf)->size())));
  }
};

// StageClear: drops every tuple (waiting puts may then enter).
class StageClearOp : public StageKernel {
 public:
  using StageKernel::StageKernel;
  void compute(OpKernelContext& ctx) override {
    StatusOr<std::shared_ptr<StagingBuffer>> buf = buffer(ctx);
    if (!buf.ok()) return ctx.fail(buf.status());
    (*buf)->clear();
  }
};

}  // namespace

namespace detail {

void register_map_stage_kernels(KernelRegistry& r);  // map_stage_ops.cpp
void register_barrier_kernels(KernelRegistry& r);    // barrier_ops.cpp

void register_stage_kernels(KernelRegistry& r) {
  register_map_stage_kernels(r);
  register_barrier_kernels(r);
  r.add(make_kernel_def<StageOp>("Stage", "CPU"));
  r.add(make_kernel_def<UnstageOp<false>>("Unstage", "CPU"));
  r.add(make_kernel_def<UnstageOp<true>>("StagePeek", "CPU"));
  r.add(make_kernel_def<StageSizeOp>("StageSize", "CPU"));
  r.add(make_kernel_def<StageClearOp>("StageClear", "CPU"));
}

}  // namespace detail

}  // namespace af
