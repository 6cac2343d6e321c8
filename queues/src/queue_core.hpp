#pragma once

// The state machine of one queue (TensorFlow's QueueBase + FIFOQueue / RandomShuffleQueue /
// PaddingFIFOQueue / PriorityQueue), single-threaded: it lives inside a queue actor, which
// serialises every call. Pending enqueues and dequeues are attempts served strictly in
// arrival order, exactly as TensorFlow's `FlushUnlocked` serves them. Unlike TensorFlow, an
// attempt that is cancelled or times out gives back the elements it had reserved, so a
// failed dequeue never consumes anything.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/queues/queue_spec.hpp"

namespace af::detail {

/// One queue element or one batch: a tensor per component.
using Tuple = std::vector<Tensor>;

/// The outcome of an attempt: a status and, for dequeues, the components.
struct QueueReply {
  Status status;
  Tuple components;
};

/// Where an attempt's outcome goes: called once, inside the queue actor. If the last
/// reference dies unfired (the queue actor quit before answering, a message was dropped),
/// it fires with Cancelled. One allocation per call (`make_reply`).
class ReplyOnce {
 public:
  virtual ~ReplyOnce() = default;
  void operator()(QueueReply r) {
    if (!std::exchange(fired_, true)) deliver(std::move(r));
  }
  bool fired() const noexcept { return fired_; }

 protected:
  virtual void deliver(QueueReply r) = 0;
  /// For the final class's destructor.
  void fire_cancelled() {
    if (!std::exchange(fired_, true))
      deliver({cancelled("the queue was closed down before it answered"), {}});
  }

 private:
  bool fired_ = false;
};

template <class F>
class ReplyOnceFn final : public ReplyOnce {
 public:
  explicit ReplyOnceFn(F f) : fn_(std::move(f)) {}
  ~ReplyOnceFn() override { fire_cancelled(); }

 private:
  void deliver(QueueReply r) override { fn_(std::move(r)); }
  F fn_;
};

/// A reply that calls `f(QueueReply)` once.
template <class F>
std::shared_ptr<ReplyOnce> make_reply(F f) {
  return std::make_shared<ReplyOnceFn<F>>(std::move(f));
}

/// A shared reference to a ReplyOnce, called like a function.
class ReplyFn {
 public:
  ReplyFn() = default;
  ReplyFn(std::shared_ptr<ReplyOnce> r) : r_(std::move(r)) {}  // NOLINT: implicit by design
  void operator()(QueueReply r) const {
    if (r_) (*r_)(std::move(r));
  }
  bool pending() const noexcept { return r_ && !r_->fired(); }

 private:
  std::shared_ptr<ReplyOnce> r_;
};

/// Rows `[begin, begin + count)` of a batch (`batched`: each component has a leading batch
/// dimension), or one element (`!batched`, count 1). Stores keep enqueue_many batches whole
/// in such ranges, so a dequeue_many that lines up with them is a view, not a copy. A range
/// owns its tuple until it is split (`share`): a batch that goes in and out whole costs no
/// allocation of its own.
struct Rows {
  Tuple owned;                          ///< the tuple, while no other range refers to it
  std::shared_ptr<const Tuple> shared;  ///< the tuple, once shared between ranges
  std::int64_t begin = 0;
  std::int64_t count = 1;
  bool batched = false;

  static Rows whole(Tuple t, std::int64_t count, bool batched) {
    Rows r;
    r.owned = std::move(t);
    r.count = count;
    r.batched = batched;
    return r;
  }
  static Rows part(std::shared_ptr<const Tuple> t, std::int64_t begin, std::int64_t count) {
    Rows r;
    r.shared = std::move(t);
    r.begin = begin;
    r.count = count;
    r.batched = true;
    return r;
  }

  const Tuple& components() const noexcept { return shared ? *shared : owned; }
  /// The tuple as a shared reference, for ranges split off this one.
  const std::shared_ptr<const Tuple>& share() {
    if (!shared) shared = std::make_shared<const Tuple>(std::move(owned));
    return shared;
  }
  /// Whether the range is its whole, unshared tuple (it can be moved out as it is).
  bool is_whole() const noexcept {
    return !shared &&
           (!batched || (begin == 0 && !owned.empty() && owned[0].shape().dim(0) == count));
  }
  /// Row `i` of the range as an element (views of the batch).
  Tuple element(std::int64_t i) const;
};

/// Where elements sit between enqueue and dequeue; one implementation per queue kind.
class ElementStore {
 public:
  virtual ~ElementStore() = default;
  virtual std::int64_t size() const = 0;
  virtual void push(Rows rows) = 0;
  /// Puts rows back where the next dequeue finds them first (FIFO) or anywhere.
  virtual void push_front(Rows rows) = 0;
  /// Takes between 1 and `max` rows (at most size()). Not empty.
  virtual Rows pop(std::int64_t max) = 0;
};

/// The queue itself; see the file comment. Not thread-safe.
class QueueCore {
 public:
  /// `spec` must be valid (`QueueSpec::validate`).
  explicit QueueCore(QueueSpec spec);

  const QueueSpec& spec() const noexcept { return spec_; }
  const std::string& name() const noexcept { return spec_.name; }
  std::int64_t size() const noexcept { return store_->size(); }
  bool is_closed() const noexcept { return closed_; }
  /// Pending enqueue and dequeue attempts.
  std::size_t pending_enqueues() const noexcept { return enqueue_attempts_.size(); }
  std::size_t pending_dequeues() const noexcept { return dequeue_attempts_.size(); }

  /// Checks one element against dtypes and shapes (errors name the queue and component).
  Status validate_tuple(const Tuple& element) const;
  /// Checks a batch (`enqueue_many`): dtypes, [n] + shape, equal batch sizes.
  Status validate_many_tuple(const Tuple& batch) const;

  // -- attempts: `done` runs once, maybe before the call returns ---------------------------

  void enqueue(std::uint64_t id, Tuple element, ReplyFn done);
  /// Zero rows complete at once; rows enter one by one as capacity frees up.
  void enqueue_many(std::uint64_t id, Tuple batch, ReplyFn done);
  void dequeue(std::uint64_t id, ReplyFn done);
  /// `allow_small_batch` = `dequeue_up_to`: after close, returns what is left.
  void dequeue_many(std::uint64_t id, std::int64_t n, bool allow_small_batch, ReplyFn done);
  /// Plain close waits behind pending enqueues (they finish); `cancel_pending_enqueues`
  /// fails them with Cancelled and closes at once.
  void close(std::uint64_t id, bool cancel_pending_enqueues, ReplyFn done);

  /// Ends the pending attempt `id` with `why` (Cancelled, DeadlineExceeded), giving back
  /// reserved elements. Returns false when no such attempt is pending (it completed).
  bool cancel(std::uint64_t id, const Status& why);

  /// Puts dequeued components back (a dequeue whose step failed): `many` = batches.
  /// Ignores capacity and close, as TensorFlow's restore of a partial batch does.
  void restore(const Tuple& components, bool many);

  /// Fails every pending attempt with `why` (the queue is going away).
  void fail_all(const Status& why);

 private:
  enum class RunResult { no_progress, progress, complete };
  enum class AttemptKind { enqueue, enqueue_many, dequeue, dequeue_many, close };

  struct Attempt {
    AttemptKind kind;
    std::uint64_t id = 0;
    std::int64_t requested = 0;  ///< elements still to enqueue / dequeue
    bool allow_small_batch = false;
    Tuple input;                                ///< the element or batch to enqueue
    std::shared_ptr<const Tuple> shared_input;  ///< `input`, once part of it is queued
    std::vector<Rows> taken;                    ///< rows a dequeue_many has reserved
    std::int64_t reserved = 0;                  ///< how many rows `taken` holds
    Status status;
    Tuple output;
    ReplyFn done;
  };

  /// Pending attempts in order: a vector whose popped slots are reused, so a steady stream
  /// of attempts allocates nothing (a std::deque allocates a block for every two).
  class AttemptQueue {
   public:
    using iterator = std::vector<Attempt>::iterator;
    bool empty() const noexcept { return head_ == items_.size(); }
    std::size_t size() const noexcept { return items_.size() - head_; }
    Attempt& front() { return items_[head_]; }
    iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
    iterator end() { return items_.end(); }
    void push_back(Attempt a) {
      if (head_ > 0 && head_ * 2 >= items_.size()) {  // reclaim the popped front
        items_.erase(items_.begin(), begin());
        head_ = 0;
      }
      items_.push_back(std::move(a));
    }
    void pop_front() {
      items_[head_] = Attempt{};  // releases its tensors and reply now
      if (++head_ == items_.size()) clear();
    }
    void erase(iterator it) { items_.erase(it); }
    void clear() {
      items_.clear();  // keeps the capacity
      head_ = 0;
    }

   private:
    std::vector<Attempt> items_;
    std::size_t head_ = 0;
  };

  RunResult run_enqueue(Attempt& a);
  RunResult run_dequeue(Attempt& a);
  void give_back(Attempt& a);
  Tuple assemble(std::span<const Rows> taken, std::int64_t n) const;
  Shape many_out_shape(std::size_t component, std::int64_t n) const;
  void flush();
  bool try_attempts(AttemptQueue& attempts, bool enqueue_side,
                    std::vector<std::pair<ReplyFn, QueueReply>>* finished);
  std::string prefix() const;  ///< "FIFOQueue 'name'"
  std::string where() const;   ///< " (FIFOQueue 'name')", for error messages

  QueueSpec spec_;
  std::int64_t capacity_;
  std::unique_ptr<ElementStore> store_;
  bool closed_ = false;
  bool flushing_ = false;
  AttemptQueue enqueue_attempts_;
  AttemptQueue dequeue_attempts_;
  /// flush()'s list of finished attempts, kept to reuse its capacity.
  std::vector<std::pair<ReplyFn, QueueReply>> finished_;
};

}  // namespace af::detail
