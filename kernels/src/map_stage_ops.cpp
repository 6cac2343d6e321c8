// MapStage, MapPeek, MapUnstage, MapUnstageNoKey, MapSize, MapIncompleteSize, MapClear and
// their Ordered forms: the keyed staging area of TensorFlow's map_stage_op.cc
// (data_flow_ops.MapStagingArea). Tuples are staged under int64 keys, a tuple's components
// possibly in several puts (an incomplete tuple waits aside until every component came);
// a pop takes some or all components of a key's tuple, `MapUnstageNoKey` the first key's
// (the smallest in the ordered area). As the FIFO area (stage_ops.cpp), a put that would pass
// the capacity or memory limit, a pop or peek of a key not there yet and a pop of an empty
// area wait holding no thread, end with their step's cancellation, and a pop whose step
// fails puts its components back. The memory count is exact (TensorFlow's counts only the
// last component of an incomplete put and subtracts a peek's bytes, which can wedge a
// limited area). The definitions are in ops/src/defs/map_stage_ops.cpp.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/stall_watch.hpp"
#include "kernel_helpers.hpp"
#include "staging_wait.hpp"

namespace af {

namespace {

using Tuple = std::vector<Tensor>;
using Indices = std::vector<std::int32_t>;

// What a pop or peek gives: the key and the components asked for.
struct Taken {
  std::int64_t key = 0;
  Tuple values;
};

enum class TakeKind { peek, pop, pop_any };

// TensorFlow's StagingMap: complete tuples in `map_` (ordered or hashed by key), incomplete
// ones aside, with the waits as queued callbacks.
template <bool Ordered>
class StagingMap : public ResourceBase {
 public:
  using Got = std::function<void(StatusOr<Taken>)>;
  using Put = std::function<void(Status)>;

  StagingMap(std::size_t components, std::int64_t capacity, std::int64_t memory_limit)
      : components_(components),
        capacity_(static_cast<std::size_t>(capacity)),
        memory_limit_(static_cast<std::size_t>(memory_limit)) {}

  std::string debug_string() const override { return "StagingMap"; }

  // Stages `values` at `indices` of `key`'s tuple once it fits; `done` runs once outside the
  // lock with the put's status.
  void put(std::uint64_t id, std::int64_t key, Indices indices, Tuple values, Put done) {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      const bool complete = indices.size() == components_;
      const std::size_t bytes = detail::staging_bytes(values);
      if (memory_limit_ > 0 && bytes > memory_limit_) {
        ready.push_back([done = std::move(done), bytes, limit = memory_limit_] {
          done(Status(Code::resource_exhausted,
                      "Attempted to insert tensors with combined size of '" +
                          std::to_string(bytes) +
                          "' bytes into Staging Area with a memory limit of '" +
                          std::to_string(limit) + "'."));
        });
      } else {
        puts_.push_back(
            {id, key, std::move(indices), std::move(values), bytes, complete, std::move(done)});
        serve(ready);
      }
    });
  }

  // Peeks or pops `indices` of `key`'s tuple (pop_any: of the first key's) once there is one.
  void take(std::uint64_t id, TakeKind kind, std::int64_t key, Indices indices, Got done) {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      takes_.push_back({id, kind, key, std::move(indices), std::move(done)});
      serve(ready);
    });
  }

  // Ends the waiting put or take `id` with `why` (nothing when it is done already).
  void cancel(std::uint64_t id, const Status& why) {
    std::function<void()> fire;
    {
      std::lock_guard<std::mutex> lock(mu_);
      fire = detail::take_waiting(puts_, id, why);
      if (!fire) fire = detail::take_waiting(takes_, id, why);
    }
    if (fire) fire();
  }

  // Puts components a pop took back (the rollback of a failed step).
  void restore(std::int64_t key, const Indices& indices, const Tuple& values) {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      auto& tuple = map_[key];
      tuple.resize(std::max(tuple.size(), components_));
      for (std::size_t i = 0; i < indices.size() && i < values.size(); ++i)
        if (static_cast<std::size_t>(indices[i]) < tuple.size())
          tuple[static_cast<std::size_t>(indices[i])] = values[i];
      bytes_ += detail::staging_bytes(values);
      serve(ready);
    });
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return map_.size();
  }
  std::size_t incomplete_size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return incomplete_.size();
  }
  void clear() {
    detail::locked_then_fire(mu_, [&](detail::Fired& ready) {
      map_.clear();
      incomplete_.clear();
      bytes_ = 0;
      serve(ready);
    });
  }

 private:
  using OptionalTuple = std::vector<std::optional<Tensor>>;
  using Map = std::conditional_t<Ordered, std::map<std::int64_t, OptionalTuple>,
                                 std::unordered_map<std::int64_t, OptionalTuple>>;

  struct PendingPut {
    std::uint64_t id;
    std::int64_t key;
    Indices indices;
    Tuple values;
    std::size_t bytes;
    bool complete;
    Put done;
  };
  struct PendingTake {
    std::uint64_t id;
    TakeKind kind;
    std::int64_t key;
    Indices indices;
    Got done;
  };

  Status out_of_bounds(std::int64_t key, std::size_t index) const {
    return invalid_argument("Index '" + std::to_string(index) + "' for key '" +
                            std::to_string(key) + "' was out of bounds '" +
                            std::to_string(components_) + "'.");
  }

  bool fits(const PendingPut& p) const {
    const bool memory_ok = memory_limit_ == 0 || p.bytes + bytes_ <= memory_limit_;
    // An incomplete put waits for memory only, as TensorFlow's.
    const bool capacity_ok = !p.complete || capacity_ == 0 || map_.size() < capacity_;
    return memory_ok && capacity_ok;
  }

  // TensorFlow's put_complete / put_incomplete; the bytes count once staged.
  Status apply(PendingPut& p) {
    if (p.complete) {
      OptionalTuple tuple(p.values.begin(), p.values.end());
      if (map_.emplace(p.key, std::move(tuple)).second) bytes_ += p.bytes;
      return {};
    }
    auto it = incomplete_.find(p.key);
    if (it == incomplete_.end()) {
      OptionalTuple fresh(components_);
      for (std::size_t i = 0; i < p.indices.size(); ++i) {
        const auto index = static_cast<std::size_t>(p.indices[i]);
        if (index >= components_) return out_of_bounds(p.key, index);
        fresh[index] = std::move(p.values[i]);
      }
      incomplete_.emplace(p.key, std::move(fresh));
      bytes_ += p.bytes;
      return {};
    }
    OptionalTuple& present = it->second;
    for (std::size_t i = 0; i < p.indices.size(); ++i) {
      const auto index = static_cast<std::size_t>(p.indices[i]);
      if (index >= components_) return out_of_bounds(p.key, index);
      if (present[index].has_value())
        return invalid_argument("The tensor for index '" + std::to_string(index) + "' for key '" +
                                std::to_string(p.key) + "' was already initialized '" +
                                std::to_string(components_) + "'.");
      present[index] = std::move(p.values[i]);
    }
    bytes_ += p.bytes;
    const bool complete = std::all_of(present.begin(), present.end(),
                                      [](const std::optional<Tensor>& v) { return v.has_value(); });
    if (complete) {
      map_.emplace(p.key, std::move(present));
      incomplete_.erase(it);
    }
    return {};
  }

  // copy_or_move_tensors: the components at `indices` of the tuple at `it` (moved out of
  // it for a pop, which drops the key once nothing is left).
  StatusOr<Taken> take_from(typename Map::iterator it, const Indices& indices, bool copy) {
    Taken out{it->first, {}};
    for (std::int32_t i : indices) {
      const auto index = static_cast<std::size_t>(i);
      if (index >= components_ || index >= it->second.size())
        return out_of_bounds(it->first, index);
      std::optional<Tensor>& slot = it->second[index];
      if (!slot.has_value())
        return invalid_argument("Tensor at index '" + std::to_string(index) + "' for key '" +
                                std::to_string(it->first) + "' has already been removed.");
      out.values.push_back(*slot);
      if (!copy) slot.reset();
    }
    if (!copy) {
      bytes_ -= std::min(bytes_, detail::staging_bytes(out.values));
      if (std::none_of(it->second.begin(), it->second.end(),
                       [](const std::optional<Tensor>& v) { return v.has_value(); }))
        map_.erase(it);
    }
    return out;
  }

  // Under the lock: admits the waiting puts that fit (in order) and answers the takes that
  // can be, until nothing moves; `ready` gets the callbacks to run after unlocking.
  void serve(detail::Fired& ready) {
    for (bool moved = true; moved;) {
      moved = false;
      for (auto it = puts_.begin(); it != puts_.end();) {
        if (!fits(*it)) {
          ++it;
          continue;
        }
        Status s = apply(*it);
        ready.push_back([done = std::move(it->done), s] { done(s); });
        it = puts_.erase(it);
        moved = true;
      }
      for (auto it = takes_.begin(); it != takes_.end();) {
        typename Map::iterator found = map_.end();
        if (it->kind == TakeKind::pop_any)
          found = map_.begin();
        else
          found = map_.find(it->key);
        if (found == map_.end()) {
          ++it;
          continue;
        }
        StatusOr<Taken> r = take_from(found, it->indices, it->kind == TakeKind::peek);
        ready.push_back(
            [done = std::move(it->done), r = std::move(r)]() mutable { done(std::move(r)); });
        moved = moved || it->kind != TakeKind::peek;
        it = takes_.erase(it);
      }
    }
  }

  const std::size_t components_;
  const std::size_t capacity_;
  const std::size_t memory_limit_;
  std::size_t bytes_ = 0;
  mutable std::mutex mu_;
  Map map_;
  std::unordered_map<std::int64_t, OptionalTuple> incomplete_;
  std::deque<PendingPut> puts_;
  std::deque<PendingTake> takes_;
};

// What every map staging kernel reads, and the area it shares.
template <bool Ordered>
class MapKernel : public OpKernel {
 public:
  MapKernel(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("capacity", &capacity_);
    c.get_attr("memory_limit", &memory_limit_);
    c.get_attr("container", &container_);
    c.get_attr("shared_name", &shared_name_);
    c.get_attr("dtypes", &dtypes_);
  }

 protected:
  using Area = StagingMap<Ordered>;

  std::string area_name() const { return shared_name_.empty() ? name() : shared_name_; }

  // The area, created by the first kernel to run with its dtypes, as TensorFlow's.
  StatusOr<std::shared_ptr<Area>> area(OpKernelContext& ctx) const {
    if (!ctx.resource_mgr) return internal("no resource manager for " + name());
    std::shared_ptr<Area> a;
    const std::size_t n = dtypes_.size();
    const std::int64_t capacity = capacity_, memory_limit = memory_limit_;
    Status s = ctx.resource_mgr->lookup_or_create<Area>(
        container_, area_name(), &a, [&](std::shared_ptr<Area>* out) -> Status {
          *out = std::make_shared<Area>(n, capacity, memory_limit);
          return {};
        });
    if (!s.ok()) return s;
    return a;
  }

  // The int32 indices of input `i`, which must increase strictly.
  static StatusOr<Indices> indices_of(const Tensor& t) {
    const std::int32_t* p = t.data<std::int32_t>();
    Indices out(p, p + t.num_elements());
    for (std::size_t i = 1; i < out.size(); ++i)
      if (out[i - 1] >= out[i]) return invalid_argument("Indices are not strictly ordered");
    return out;
  }

  StallWatchScope watch(const char* kind, OpKernelContext& ctx) const {
    return StallWatchScope(StallingWait{kind, area_name(), std::string(ctx.device_name),
                                        ctx.step->step_id(), -1,
                                        [] { return std::string("StagingMap"); }});
  }

  std::int64_t capacity_ = 0;
  std::int64_t memory_limit_ = 0;
  std::string container_;
  std::string shared_name_;
  std::vector<DType> dtypes_;
};

// An int64 key (one element).
StatusOr<std::int64_t> key_of(const Tensor& t) {
  if (t.dtype() != DType::int64 || t.num_elements() != 1)
    return invalid_argument("key must be one int64, got shape " + t.shape().to_string());
  return t.data<std::int64_t>()[0];
}

// (Ordered)MapStage(key, indices, values).
template <bool Ordered>
class MapStageOp : public MapKernel<Ordered> {
  using Base = MapKernel<Ordered>;

 public:
  using Base::Base;
  void compute(OpKernelContext& ctx) override {
    ctx.fail(internal(this->name() + " is asynchronous"));
  }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    auto a = this->area(ctx);
    StatusOr<std::int64_t> key = key_of(ctx.input(0));
    StatusOr<Indices> indices = Base::indices_of(ctx.input(1));
    Status bad = !a.ok() ? a.status() : !key.ok() ? key.status() : indices.status();
    if (!bad.ok()) {
      ctx.fail(bad);
      co_return;
    }
    Tuple values;
    for (int i = 2; i < ctx.num_inputs(); ++i) values.push_back(ctx.input(i));
    StallWatchScope watching = this->watch("stage", ctx);
    Async<Status> putting = detail::staging_wait<Status>(
        ctx.step, *a,
        [k = *key, ix = *indices, v = std::move(values)](auto& area, std::uint64_t id, auto done) {
          area.put(id, k, ix, v, std::move(done));
        });
    const Status s = co_await std::move(putting);
    watching.end();
    if (!s.ok()) ctx.fail(s);
  }
};

// (Ordered)MapPeek(key, indices), MapUnstage(key, indices) and MapUnstageNoKey(indices).
template <bool Ordered, TakeKind kKind>
class MapTakeOp : public MapKernel<Ordered> {
  using Base = MapKernel<Ordered>;

 public:
  using Base::Base;
  void compute(OpKernelContext& ctx) override {
    ctx.fail(internal(this->name() + " is asynchronous"));
  }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    constexpr bool kKeyed = kKind != TakeKind::pop_any;
    auto a = this->area(ctx);
    StatusOr<std::int64_t> key = kKeyed ? key_of(ctx.input(0)) : StatusOr<std::int64_t>(0);
    StatusOr<Indices> indices = Base::indices_of(ctx.input(kKeyed ? 1 : 0));
    Status bad = !a.ok() ? a.status() : !key.ok() ? key.status() : indices.status();
    if (!bad.ok()) {
      ctx.fail(bad);
      co_return;
    }
    StallWatchScope watching = this->watch("unstage", ctx);
    Async<StatusOr<Taken>> taking = detail::staging_wait<StatusOr<Taken>>(
        ctx.step, *a, [k = *key, ix = *indices](auto& area, std::uint64_t id, auto done) {
          area.take(id, kKind, k, ix, std::move(done));
        });
    StatusOr<Taken> got = co_await std::move(taking);
    watching.end();
    if (!got.ok()) {
      ctx.fail(got.status());
      co_return;
    }
    Taken taken = std::move(got).value();
    if constexpr (kKind != TakeKind::peek)
      ctx.step->add_rollback(
          [area = *a, k = taken.key, ix = *indices, v = taken.values] { area->restore(k, ix, v); });
    const int first = kKeyed ? 0 : 1;
    if (taken.values.size() != indices->size() ||
        static_cast<int>(taken.values.size()) + first != ctx.num_outputs()) {
      ctx.fail(
          invalid_argument("output/indices size mismatch: " + std::to_string(taken.values.size()) +
                           " vs. " + std::to_string(indices->size())));
      co_return;
    }
    if (!kKeyed) ctx.set_output(0, Tensor(taken.key));
    for (std::size_t i = 0; i < taken.values.size(); ++i)
      ctx.set_output(static_cast<int>(i) + first, std::move(taken.values[i]));
  }
};

// (Ordered)MapSize, MapIncompleteSize (int32) and MapClear.
template <bool Ordered, int kWhat>  // 0 size, 1 incomplete size, 2 clear
class MapStateOp : public MapKernel<Ordered> {
 public:
  using MapKernel<Ordered>::MapKernel;
  void compute(OpKernelContext& ctx) override {
    auto a = this->area(ctx);
    if (!a.ok()) return ctx.fail(a.status());
    if constexpr (kWhat == 0) ctx.set_output(0, Tensor(static_cast<std::int32_t>((*a)->size())));
    if constexpr (kWhat == 1)
      ctx.set_output(0, Tensor(static_cast<std::int32_t>((*a)->incomplete_size())));
    if constexpr (kWhat == 2) (*a)->clear();
  }
};

template <bool Ordered>
void register_forms(KernelRegistry& r) {
  const std::string p = Ordered ? "OrderedMap" : "Map";
  r.add(make_kernel_def<MapStageOp<Ordered>>(p + "Stage", "CPU"));
  r.add(make_kernel_def<MapTakeOp<Ordered, TakeKind::peek>>(p + "Peek", "CPU"));
  r.add(make_kernel_def<MapTakeOp<Ordered, TakeKind::pop>>(p + "Unstage", "CPU"));
  r.add(make_kernel_def<MapTakeOp<Ordered, TakeKind::pop_any>>(p + "UnstageNoKey", "CPU"));
  r.add(make_kernel_def<MapStateOp<Ordered, 0>>(p + "Size", "CPU"));
  r.add(make_kernel_def<MapStateOp<Ordered, 1>>(p + "IncompleteSize", "CPU"));
  r.add(make_kernel_def<MapStateOp<Ordered, 2>>(p + "Clear", "CPU"));
}

}  // namespace

namespace detail {

/// The keyed staging kernels (called by register_stage_kernels, stage_ops.cpp).
void register_map_stage_kernels(KernelRegistry& r) {
  register_forms<false>(r);
  register_forms<true>(r);
}

}  // namespace detail

}  // namespace af
