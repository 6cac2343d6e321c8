// Barrier, BarrierInsertMany, BarrierTakeMany, BarrierClose, BarrierReadySize and
// BarrierIncompleteSize: TensorFlow's barrier (barrier_ops.cc, data_flow_ops.Barrier), a map
// from string keys to tuples whose components come separately. A key whose components have
// all come is ready; ready keys wait in a heap ordered by the index of the insert that first
// brought their key (TensorFlow's PriorityQueue, so equal indices leave in its order). A take
// that finds too few ready keys waits holding no thread: its kernel is suspended in its
// device actor and resumed when an insert, a close or its step's cancellation settles it.
// Where TensorFlow loses elements or waits forever, this barrier does not: a take already
// waiting when the barrier closes is answered as a new one would be (TensorFlow's may hang),
// with the ready keys when it allows a small batch (TensorFlow's drops them); keys an insert
// completed before one of its keys failed stay ready (TensorFlow's drop them); a take whose
// step fails puts its elements back. The definitions are in ops/src/defs/barrier_ops.cpp.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <unordered_map>
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

std::string types_string(const std::vector<DType>& types) {
  std::string out;
  for (std::size_t i = 0; i < types.size(); ++i)
    out += (i ? ", " : "") + std::string(data_type_string(types[i]));
  return out;
}

std::string shapes_string(const std::vector<Shape>& shapes) {
  std::string out = "[";
  for (std::size_t i = 0; i < shapes.size(); ++i) out += (i ? ", " : "") + shapes[i].to_string();
  return out + "]";
}

// Copies `row` (of `row_shape`'s size) into row `i` of `batch`.
void copy_row(const Tensor& row, Tensor& batch, std::int64_t i) {
  const std::int64_t n = row.num_elements();
  if (row.dtype() == DType::string) {
    std::copy_n(row.data<std::string>(), n, batch.data<std::string>() + i * n);
    return;
  }
  const std::size_t bytes = dtype_size(row.dtype()) * static_cast<std::size_t>(n);
  std::memcpy(static_cast<char*>(batch.raw_data()) + static_cast<std::size_t>(i) * bytes,
              row.raw_data(), bytes);
}

// The barrier: TensorFlow's Barrier with its ready PriorityQueue, waits as queued callbacks.
class BarrierResource : public ResourceBase {
 public:
  using Took = std::function<void(StatusOr<Tuple>)>;

  BarrierResource(std::string name, std::vector<DType> types, std::vector<Shape> shapes)
      : name_(std::move(name)), types_(std::move(types)), shapes_(std::move(shapes)) {}

  std::string debug_string() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return "Barrier '" + name_ + "': " + std::to_string(ready_.size()) + " ready, " +
           std::to_string(incomplete_.size()) + " incomplete" + (closed_ ? ", closed" : "");
  }

  const std::string& name() const noexcept { return name_; }
  const std::vector<DType>& types() const noexcept { return types_; }
  const std::vector<Shape>& shapes() const noexcept { return shapes_; }

  // Row i of `values` becomes component `c` of key i; the keys it completes become ready.
  Status insert_many(const Tensor& keys, std::size_t c, const Tensor& values) {
    const std::int64_t n = keys.num_elements();
    if (n > 0 && values.num_elements() == 0)
      return invalid_argument("Tensors with no elements are not supported " + name_ +
                              ": received shape " + values.shape().to_string());
    const std::int64_t rows = values.shape().rank() == 0 ? 1 : values.shape().dim(0);
    if (rows < n)
      return invalid_argument("Barrier " + name_ + ": " + std::to_string(n) + " keys but " +
                              std::to_string(rows) + " rows of values");
    return detail::locked_then_fire(mu_, [&](detail::Fired& fire) -> Status {
      if (closed_ && (cancel_pending_ || (n > 0 && incomplete_.empty())))
        return cancelled(
            "Barrier " + name_ + " is closed.  Pending enqueues cancelled: " +
            std::to_string(cancel_pending_) + ".  Number of new insertions: " + std::to_string(n) +
            ".  Number of incomplete keys: " + std::to_string(incomplete_.size()) + ".");
      Status status;
      bool new_keys = false;
      const std::string* key = keys.data<std::string>();
      for (std::int64_t i = 0; i < n && status.ok(); ++i)
        status = insert_one(key[i], i, c, values.shape().rank() == 0 ? values : values.slice(i),
                            &new_keys);
      // As TensorFlow's: a failed insert does not move the index on.
      if (status.ok() && new_keys && ++input_index_ == std::numeric_limits<std::int64_t>::max())
        status = internal("Barrier has had " + std::to_string(input_index_) +
                          " insertions and can no longer keep track of new ones.");
      serve(fire);
      return status;
    });
  }

  // Takes `n` ready keys once there are (see serve); `done` runs once, outside the lock.
  void take_many(std::uint64_t id, std::int64_t n, bool allow_small_batch, Took done) {
    detail::locked_then_fire(mu_, [&](detail::Fired& fire) {
      takes_.push_back({id, n, allow_small_batch, std::move(done)});
      serve(fire);
    });
  }

  // Ends the waiting take `id` with `why` (nothing when it is done already).
  void cancel(std::uint64_t id, const Status& why) {
    std::function<void()> fire;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fire = detail::take_waiting(takes_, id, why);
    }
    if (fire) fire();
  }

  Status close(bool cancel_pending_enqueues) {
    return detail::locked_then_fire(mu_, [&](detail::Fired& fire) -> Status {
      // A second close may only add the cancellation.
      if (closed_ && (cancel_pending_ || !cancel_pending_enqueues))
        return cancelled("Barrier '" + name_ + "' is already closed.");
      cancel_pending_ = cancel_pending_enqueues;
      closed_ = true;
      if (cancel_pending_) incomplete_.clear();
      serve(fire);
      return Status{};
    });
  }

  // Puts the elements of a take (its outputs) back: a failed step takes nothing.
  void restore(const Tuple& taken) {
    detail::locked_then_fire(mu_, [&](detail::Fired& fire) {
      const std::int64_t n = taken[0].num_elements();
      for (std::int64_t i = 0; i < n; ++i) {
        Element e{taken[0].data<std::int64_t>()[i], taken[1].data<std::string>()[i], {}};
        for (std::size_t c = 0; c < types_.size(); ++c)
          e.values.push_back(taken[c + 2].slice(i).deep_copy());
        ready_.push(std::move(e));
      }
      serve(fire);
    });
  }

  std::int32_t ready_size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<std::int32_t>(ready_.size());
  }
  std::int32_t incomplete_size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<std::int32_t>(incomplete_.size());
  }

 private:
  struct Element {
    std::int64_t index;
    std::string key;
    Tuple values;
  };
  // TensorFlow's ComparePriorityTensorPair: the smallest index leaves first.
  struct Later {
    bool operator()(const Element& a, const Element& b) const { return a.index > b.index; }
  };
  struct Partial {
    std::int64_t index;
    Tuple values;  // an uninitialized tensor: the component has not come
    std::size_t missing;
  };
  struct Take {
    std::uint64_t id;
    std::int64_t n;
    bool allow_small_batch;
    Took done;
  };

  // Under the lock: component `c` of `key` (insertion `i` of the call) becomes `row`.
  Status insert_one(const std::string& key, std::int64_t i, std::size_t c, const Tensor& row,
                    bool* new_keys) {
    auto it = incomplete_.find(key);
    if (it == incomplete_.end() && closed_)
      return cancelled("Barrier " + name_ +
                       " is closed, but attempted to insert a brand new key: " + key +
                       ".  Pending enqueues cancelled: " + std::to_string(cancel_pending_) +
                       ".  Insertion index: " + std::to_string(i) +
                       ".  Number of incomplete keys: " + std::to_string(incomplete_.size()) + ".");
    if (it != incomplete_.end() && it->second.values[c].dtype() != DType::invalid)
      return invalid_argument("Key " + key + " already has a value for component " +
                              std::to_string(c) + " in barrier " + name_);
    if (row.shape() != shapes_[c])
      return invalid_argument("Shape mismatch in tuple component " + std::to_string(c + 2) +
                              ". Expected " + shapes_[c].to_string() + ", got " +
                              row.shape().to_string());
    if (it == incomplete_.end()) {
      *new_keys = true;
      it = incomplete_.emplace(key, Partial{input_index_, Tuple(types_.size()), types_.size()})
               .first;
    }
    it->second.values[c] = row.deep_copy();
    if (--it->second.missing == 0) {
      ready_.push({it->second.index, key, std::move(it->second.values)});
      incomplete_.erase(it);
    }
    return {};
  }

  // Under the lock: answers the waiting takes in order while the first can be answered. Once
  // closed, a take that could never be served fails, and one allowing a small batch takes
  // what is ready, as TensorFlow answers a take that comes after the close.
  void serve(detail::Fired& fire) {
    while (!takes_.empty()) {
      Take& t = takes_.front();
      std::int64_t want = t.n;
      const auto ready = static_cast<std::int64_t>(ready_.size());
      if (closed_) {
        std::int64_t available = ready;
        if (t.allow_small_batch)
          want = std::min(want, ready);
        else
          available += static_cast<std::int64_t>(incomplete_.size());
        if (available < std::max<std::int64_t>(want, 1)) {
          fire.push_back([done = std::move(t.done),
                          why = Status(Code::out_of_range,
                                       "Barrier '" + name_ +
                                           "' is closed and has insufficient elements "
                                           "(requested " +
                                           std::to_string(want) + ", total size " +
                                           std::to_string(available) + ")")] { done(why); });
          takes_.pop_front();
          continue;
        }
      }
      if (ready < want) return;
      fire.push_back(
          [done = std::move(t.done), batch = pop(want)]() mutable { done(std::move(batch)); });
      takes_.pop_front();
    }
  }

  // Under the lock: the first `n` ready elements as batches (indices, keys, values...).
  Tuple pop(std::int64_t n) {
    Tuple batch{Tensor(DType::int64, Shape{n}), Tensor(DType::string, Shape{n})};
    for (std::size_t c = 0; c < types_.size(); ++c) {
      std::vector<std::int64_t> dims{n};
      dims.insert(dims.end(), shapes_[c].dims().begin(), shapes_[c].dims().end());
      batch.emplace_back(types_[c], Shape{dims});
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const Element& e = ready_.top();
      batch[0].data<std::int64_t>()[i] = e.index;
      batch[1].data<std::string>()[i] = e.key;
      for (std::size_t c = 0; c < types_.size(); ++c) copy_row(e.values[c], batch[c + 2], i);
      ready_.pop();
    }
    return batch;
  }

  const std::string name_;
  const std::vector<DType> types_;
  const std::vector<Shape> shapes_;
  mutable std::mutex mu_;
  std::priority_queue<Element, std::vector<Element>, Later> ready_;
  std::unordered_map<std::string, Partial> incomplete_;
  std::deque<Take> takes_;
  bool closed_ = false;
  bool cancel_pending_ = false;
  std::int64_t input_index_ = std::numeric_limits<std::int64_t>::min();
};

std::atomic<std::int64_t> g_barrier_ids{0};

// Barrier: creates the barrier on first run (a shared one in the process-wide resources)
// and outputs its handle.
class BarrierOp : public OpKernel {
 public:
  BarrierOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("component_types", &types_);
    if (!s->ok()) return;
    std::vector<PartialShape> shapes;
    c.get_attr("shapes", &shapes);
    if (shapes.size() != types_.size()) {
      *s = invalid_argument("All of the component shapes must be specified");
      return;
    }
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      // TensorFlow's TensorShape reads an unknown shape as a scalar.
      if (!shapes[i].rank_known()) {
        shapes_.emplace_back();
      } else if (auto shape = shapes[i].to_shape()) {
        shapes_.push_back(*shape);
      } else {
        *s = invalid_argument("Barrier shapes must be fully defined, but component " +
                              std::to_string(i) + " has shape " + shapes[i].to_string());
        return;
      }
    }
    for (DType t : types_)
      if (t != DType::string && dtype_size(t) == 0) {
        *s = unimplemented("Barrier components of dtype " + std::string(data_type_string(t)) +
                           " are not supported");
        return;
      }
    std::int64_t capacity = -1;
    c.get_attr("capacity", &capacity);
    if (capacity != -1) {
      *s = invalid_argument(
          "Barrier only accepts capacity=-1.  Feed the inputs to your Barrier through a queue "
          "to enforce a limited capacity.");
      return;
    }
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
  }

  void compute(OpKernelContext& ctx) override {
    std::lock_guard<std::mutex> guard(mu_);
    if (!barrier_) {
      ResourceMgr* mgr = shared_name_.empty() || !ctx.shared_resource_mgr ? ctx.resource_mgr
                                                                          : ctx.shared_resource_mgr;
      if (!mgr) return ctx.fail(internal("no resource manager for " + name()));
      // As ResourceOpKernel: an unshared barrier gets a name of its own.
      const std::string key = shared_name_.empty()
                                  ? "_" + std::to_string(g_barrier_ids++) + "_" + name()
                                  : shared_name_;
      std::shared_ptr<BarrierResource> barrier;
      Status s = mgr->lookup_or_create<BarrierResource>(
          container_, key, &barrier, [&](std::shared_ptr<BarrierResource>* out) -> Status {
            *out = std::make_shared<BarrierResource>(key, types_, shapes_);
            return {};
          });
      if (!s.ok()) return ctx.fail(s);
      if (barrier->types() != types_)
        return ctx.fail(invalid_argument(
            "Shared barrier '" + key + "' has component types " + types_string(barrier->types()) +
            " but requested component types were " + types_string(types_)));
      if (barrier->shapes() != shapes_)
        return ctx.fail(invalid_argument("Shared barrier '" + key + "' has component shapes " +
                                         shapes_string(barrier->shapes()) +
                                         " but requested component shapes were " +
                                         shapes_string(shapes_)));
      barrier_ = std::move(barrier);
    }
    ctx.set_output(0, Tensor::from_resource(barrier_));
  }

 private:
  std::vector<DType> types_;
  std::vector<Shape> shapes_;
  std::string container_;
  std::string shared_name_;
  std::mutex mu_;
  std::shared_ptr<BarrierResource> barrier_;
};

// The barrier behind input 0, or null (the kernel failed then).
std::shared_ptr<BarrierResource> barrier_input(OpKernelContext& ctx) {
  auto b = std::dynamic_pointer_cast<BarrierResource>(ctx.input(0).resource());
  if (!b) ctx.fail(invalid_argument("Input 0 of " + ctx.node_name() + " is not a barrier handle"));
  return b;
}

// TensorFlow's MatchSignature error, the handle written as its string_ref.
Status signature_mismatch(const std::vector<DType>& have_in, const std::vector<DType>& have_out,
                          const std::vector<DType>& want_in, const std::vector<DType>& want_out) {
  auto side = [](const std::vector<DType>& in, const std::vector<DType>& out) {
    std::string s = "string_ref";
    for (DType t : in) s += ", " + std::string(data_type_string(t));
    return s + "->" + types_string(out);
  };
  return invalid_argument("Signature mismatch, have: " + side(have_in, have_out) +
                          " expected: " + side(want_in, want_out));
}

// BarrierInsertMany(handle, keys, values): sets component `component_index` of the keys.
class InsertManyOp : public OpKernel {
 public:
  InsertManyOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::int64_t index = 0;
    *s = c.get_attr("component_index", &index);
    component_ = index;
  }
  void compute(OpKernelContext& ctx) override {
    auto barrier = barrier_input(ctx);
    if (!barrier) return;
    const auto components = static_cast<std::int64_t>(barrier->types().size());
    if (component_ < 0 || component_ >= components)
      return ctx.fail(invalid_argument("The component ID is out of range " +
                                       std::to_string(component_) +
                                       " > num_components (= " + std::to_string(components) + ")"));
    const auto c = static_cast<std::size_t>(component_);
    const DType t = ctx.input(2).dtype();
    if (ctx.input(1).dtype() != DType::string || t != barrier->types()[c])
      return ctx.fail(signature_mismatch({ctx.input(1).dtype(), t}, {},
                                         {DType::string, barrier->types()[c]}, {}));
    Status s = barrier->insert_many(ctx.input(1), c, ctx.input(2));
    if (!s.ok()) ctx.fail(s);
  }

 private:
  std::int64_t component_ = 0;
};

// BarrierTakeMany(handle, num_elements): indices, keys and the components of that many
// ready keys, waiting for them.
class TakeManyOp : public OpKernel {
 public:
  TakeManyOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("component_types", &types_);
    if (!s->ok()) return;
    std::int64_t timeout = -1;
    c.get_attr("timeout_ms", &timeout);
    if (timeout != -1) {
      *s = invalid_argument("Timeout not supported yet.");
      return;
    }
    c.get_attr("allow_small_batch", &allow_small_batch_);
  }

  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }

  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    auto barrier = barrier_input(ctx);
    if (!barrier) co_return;
    const Tensor& count = ctx.input(1);
    if (!count.shape().is_scalar()) {
      ctx.fail(invalid_argument("num_elements must be a scalar."));
      co_return;
    }
    const std::int32_t n = count.scalar<std::int32_t>();
    if (n < 0) {
      ctx.fail(invalid_argument("TakeManyOp requested " + std::to_string(n) + " < 0 elements"));
      co_return;
    }
    if (barrier->types() != types_) {
      std::vector<DType> have{DType::int64, DType::string}, want = have;
      have.insert(have.end(), types_.begin(), types_.end());
      want.insert(want.end(), barrier->types().begin(), barrier->types().end());
      ctx.fail(signature_mismatch({DType::int32}, have, {DType::int32}, want));
      co_return;
    }
    StallWatchScope watching(StallingWait{"take", barrier->name(), std::string(ctx.device_name),
                                          ctx.step->step_id(), -1,
                                          [weak = std::weak_ptr<BarrierResource>(barrier)] {
                                            auto b = weak.lock();
                                            return b ? b->debug_string() : std::string("(gone)");
                                          }});
    Async<StatusOr<Tuple>> taking = detail::staging_wait<StatusOr<Tuple>>(
        ctx.step, barrier,
        [n, small = allow_small_batch_](BarrierResource& b, std::uint64_t id, auto done) {
          b.take_many(id, n, small, std::move(done));
        },
        "TakeMany operation was cancelled");
    StatusOr<Tuple> got = co_await std::move(taking);
    watching.end();
    if (!got.ok()) {
      ctx.fail(got.status());
      co_return;
    }
    Tuple batch = std::move(got).value();
    // Should this step fail after all, the elements go back: a failed step takes nothing.
    if (batch[0].num_elements() > 0)
      ctx.step->add_rollback([barrier, batch] { barrier->restore(batch); });
    for (std::size_t i = 0; i < batch.size(); ++i)
      ctx.set_output(static_cast<int>(i), std::move(batch[i]));
  }

 private:
  std::vector<DType> types_;
  bool allow_small_batch_ = false;
};

// BarrierClose(handle): no new keys (`cancel_pending_enqueues`: no inserts at all).
class BarrierCloseOp : public OpKernel {
 public:
  BarrierCloseOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("cancel_pending_enqueues", &cancel_);
  }
  void compute(OpKernelContext& ctx) override {
    auto barrier = barrier_input(ctx);
    if (!barrier) return;
    Status s = barrier->close(cancel_);
    if (!s.ok()) ctx.fail(s);
  }

 private:
  bool cancel_ = false;
};

// BarrierReadySize (`kReady`) and BarrierIncompleteSize: an int32 count.
template <bool kReady>
class BarrierSizeOp : public OpKernel {
 public:
  BarrierSizeOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {}
  void compute(OpKernelContext& ctx) override {
    auto barrier = barrier_input(ctx);
    if (!barrier) return;
    ctx.set_output(0, Tensor(kReady ? barrier->ready_size() : barrier->incomplete_size()));
  }
};

}  // namespace

namespace detail {

/// The barrier kernels (called by register_stage_kernels, stage_ops.cpp).
void register_barrier_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<BarrierOp>("Barrier", "CPU"));
  r.add(make_kernel_def<InsertManyOp>("BarrierInsertMany", "CPU"));
  r.add(make_kernel_def<TakeManyOp>("BarrierTakeMany", "CPU"));
  r.add(make_kernel_def<BarrierCloseOp>("BarrierClose", "CPU"));
  r.add(make_kernel_def<BarrierSizeOp<true>>("BarrierReadySize", "CPU"));
  r.add(make_kernel_def<BarrierSizeOp<false>>("BarrierIncompleteSize", "CPU"));
}

}  // namespace detail

}  // namespace af
