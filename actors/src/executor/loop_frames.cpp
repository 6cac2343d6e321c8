// While loops in a partition's execution: which frame each node runs in (assign_frames),
// and how tensors move between frames and iterations while a step runs (TensorFlow's
// executor: FindOrCreateChildFrame, AddLoopInv, IncrementIteration, CleanupIterations,
// DeleteFrame). See loop_frames.hpp and docs/control-flow.md.
#include "executor/loop_frames.hpp"

#include <deque>
#include <map>
#include <string>

#include "executor/partition_execution.hpp"

namespace af::detail {

namespace {

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

std::string frame_label(const ExecutorImpl& impl, int frame) {
  return frame == 0 ? std::string("the root frame")
                    : "frame " + in_quotes(impl.frames[static_cast<std::size_t>(frame)].name);
}

}  // namespace

Status assign_frames(ExecutorImpl& impl) {
  auto& items = impl.items;
  const std::size_t n = items.size();
  impl.frames.assign(1, {});
  bool any_enter = false;
  for (const auto& item : items) any_enter |= item.is_enter;
  if (!any_enter) {
    // The common case: one frame, where a node's local id is its id.
    ExecutorImpl::FrameInfo& root = impl.frames[0];
    for (std::size_t i = 0; i < n; ++i) {
      auto& item = items[i];
      if (item.is_exit || item.is_next_iteration)
        return invalid_argument("Node " + in_quotes(item.node->def.name) + " is a while loop's " +
                                item.node->def.op + " but no Enter leads to it");
      item.frame = 0;
      item.local_id = static_cast<int>(i);
      root.nodes.push_back(static_cast<int>(i));
      root.initial_pending.push_back(item.initial_pending);
      root.num_inputs += item.num_inputs;
    }
    impl.has_loops = false;
    return {};
  }
  // Breadth first from the nodes without inputs (TensorFlow's BuildControlFlowInfo).
  std::vector<int> frame_of(n, -1);
  std::map<std::string, int> by_name;
  std::deque<int> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (items[i].initial_pending == 0) {
      frame_of[i] = 0;
      ready.push_back(static_cast<int>(i));
    }
  while (!ready.empty()) {
    const int u = ready.front();
    ready.pop_front();
    auto& item = items[static_cast<std::size_t>(u)];
    const int fu = frame_of[static_cast<std::size_t>(u)];
    int out = fu;
    if (item.is_enter) {
      const auto* name = item.node->def.attr<std::string>("frame_name");
      if (name == nullptr || name->empty())
        return invalid_argument("Enter " + in_quotes(item.node->def.name) + " has no frame_name");
      auto [it, fresh] = by_name.emplace(*name, static_cast<int>(impl.frames.size()));
      if (fresh) {
        ExecutorImpl::FrameInfo f;
        f.name = *name;
        f.parent = fu;
        const auto* p = item.node->def.attr<std::int64_t>("parallel_iterations");
        f.parallel_iterations = p != nullptr && *p > 0 ? static_cast<int>(*p) : 10;
        impl.frames.push_back(std::move(f));
      } else if (impl.frames[static_cast<std::size_t>(it->second)].parent != fu) {
        return invalid_argument(
            "Enter " + in_quotes(item.node->def.name) + " enters frame " + in_quotes(*name) +
            " from " + frame_label(impl, fu) + ", other Enters of it from " +
            frame_label(impl, impl.frames[static_cast<std::size_t>(it->second)].parent));
      }
      ++impl.frames[static_cast<std::size_t>(it->second)].num_enters;
      const auto* constant = item.node->def.attr<bool>("is_constant");
      item.is_constant_enter = constant != nullptr && *constant;
      item.child_frame = it->second;
      out = it->second;
    } else if (item.is_exit) {
      if (fu == 0)
        return invalid_argument("Exit " + in_quotes(item.node->def.name) +
                                " is outside every while loop");
      out = impl.frames[static_cast<std::size_t>(fu)].parent;
    }
    auto reach = [&](int dst) -> Status {
      auto& f = frame_of[static_cast<std::size_t>(dst)];
      if (f < 0) {
        f = out;
        ready.push_back(dst);
      } else if (f != out) {
        return invalid_argument(
            "Node " + in_quotes(items[static_cast<std::size_t>(dst)].node->def.name) +
            " has inputs from two frames: " + frame_label(impl, f) + " and, through " +
            in_quotes(item.node->def.name) + ", " + frame_label(impl, out) +
            " (a tensor must enter a while loop through an Enter and leave it "
            "through an Exit)");
      }
      return {};
    };
    for (const auto& edges : item.out_edges)
      for (auto [dst, slot] : edges) ACTORFLOW_RETURN_IF_ERROR(reach(dst));
    for (int dst : item.control_out) ACTORFLOW_RETURN_IF_ERROR(reach(dst));
  }
  for (std::size_t i = 0; i < n; ++i) {
    auto& item = items[i];
    const std::string& name = item.node->def.name;
    if (frame_of[i] < 0)
      return invalid_argument("Node " + in_quotes(name) +
                              " lies on a cycle that no Enter leads into (a malformed while loop)");
    item.frame = frame_of[i];
    if (item.frame == 0 && item.is_next_iteration)
      return invalid_argument("NextIteration " + in_quotes(name) + " is outside every while loop");
    if (item.frame == 0) continue;
    const std::string where = " inside while loop frame " +
                              in_quotes(impl.frames[static_cast<std::size_t>(item.frame)].name);
    // An Exit's outputs are in the frame its loop was entered from: the root's can be fetched.
    const bool outputs_in_root =
        item.is_exit && impl.frames[static_cast<std::size_t>(item.frame)].parent == 0;
    if (!item.fetches.empty() && !outputs_in_root)
      return invalid_argument("Fetching " + in_quotes(name) + where +
                              " is not supported: fetch the value the loop's Exit returns");
    if (item.is_send || item.is_recv)
      return invalid_argument("Node " + in_quotes(name) + where +
                              " crosses devices: actorflow runs each while loop on one device");
  }
  for (std::size_t i = 0; i < n; ++i) {
    auto& item = items[i];
    auto& f = impl.frames[static_cast<std::size_t>(item.frame)];
    item.local_id = static_cast<int>(f.nodes.size());
    item.input_start = f.num_inputs;
    f.num_inputs += item.num_inputs;
    f.nodes.push_back(static_cast<int>(i));
    f.initial_pending.push_back(item.initial_pending);
  }
  impl.has_loops = true;
  return {};
}

// -- PartitionExecution's frames --------------------------------------------------------------

void PartitionExecution::init_iteration(IterState& s, int frame) {
  const auto& info = impl_->frames[static_cast<std::size_t>(frame)];
  s.pending = info.initial_pending;
  s.inputs.assign(static_cast<std::size_t>(info.num_inputs), Tensor());
  if (!tracks_deadness_) return;
  s.flow.assign(info.nodes.size(), 0);
  s.merge_controls.assign(info.nodes.size(), 0);
  for (std::size_t l = 0; l < info.nodes.size(); ++l) {
    const auto& item = impl_->items[static_cast<std::size_t>(info.nodes[l])];
    if (!item.is_merge) continue;
    s.pending[l] = item.num_inputs;
    s.merge_controls[l] = item.num_control;
  }
}

FrameState& PartitionExecution::child_frame(IterState& from, int frame) {
  auto& slot = frames_[{&from, frame}];
  if (slot) return *slot;
  const auto& info = impl_->frames[static_cast<std::size_t>(frame)];
  slot = std::make_unique<FrameState>();
  slot->info = frame;
  slot->parent_iter = &from;
  slot->num_pending_inputs = info.num_enters;
  auto first = std::make_unique<IterState>();
  first->frame = slot.get();
  init_iteration(*first, frame);
  slot->iterations.push_back(std::move(first));
  ++from.outstanding_frames;
  return *slot;
}

void PartitionExecution::enter_frame(int id, IterState& from, std::vector<Tensor>& outputs,
                                     bool dead) {
  const auto& item = impl_->items[static_cast<std::size_t>(id)];
  FrameState& child = child_frame(from, item.child_frame);
  if (item.is_constant_enter) {
    // A loop invariant reaches every iteration, those running and those to come.
    Tensor value = dead ? Tensor::dead() : std::move(outputs[0]);
    for (std::int64_t i = child.first_iter; i <= child.iteration_count; ++i) {
      std::vector<Tensor> copy{value};
      activate(item, *child.get(i), copy, dead, true);
    }
    child.invariants.emplace_back(id, std::move(value));
  } else {
    // Iteration 0 waits for every Enter of the frame, so it is still there.
    activate(item, *child.get(0), outputs, dead, true);
  }
  if (--child.num_pending_inputs == 0 && child.first_iter == 0) cleanup(child, 0);
}

IterState* PartitionExecution::next_iteration(int id, IterState& from,
                                              std::vector<Tensor>& outputs) {
  FrameState& f = *from.frame;
  if (from.iter == f.iteration_count) {
    if (f.num_outstanding_iterations ==
        impl_->frames[static_cast<std::size_t>(f.info)].parallel_iterations) {
      // parallel_iterations are running: the value waits for the oldest to finish.
      f.next_iter_roots.emplace_back(id, std::move(outputs[0]));
      return nullptr;
    }
    increment_iteration(f);
  }
  return f.get(from.iter + 1);
}

void PartitionExecution::increment_iteration(FrameState& f) {
  ++f.iteration_count;
  auto next = std::make_unique<IterState>();
  next->frame = &f;
  next->iter = f.iteration_count;
  init_iteration(*next, f.info);
  IterState& s = *next;
  f.iterations.push_back(std::move(next));
  ++f.num_outstanding_iterations;
  f.dead_exits.clear();
  auto roots = std::move(f.next_iter_roots);
  f.next_iter_roots.clear();
  for (auto& [id, value] : roots) {
    std::vector<Tensor> out{std::move(value)};
    activate(impl_->items[static_cast<std::size_t>(id)], s, out, false, false);
  }
  for (const auto& [id, value] : f.invariants) {
    std::vector<Tensor> copy{value};
    activate(impl_->items[static_cast<std::size_t>(id)], s, copy, value.is_dead(), true);
  }
}

void PartitionExecution::node_done(IterState& s) {
  --s.outstanding_ops;
  if (s.frame == &root_frame_ || s.outstanding_ops > 0 || s.outstanding_frames > 0) return;
  cleanup(*s.frame, s.iter);
}

bool PartitionExecution::iteration_done(FrameState& f, std::int64_t i) {
  IterState* s = f.get(i);
  if (s == nullptr || s->outstanding_ops > 0 || s->outstanding_frames > 0) return false;
  // Iteration 0 waits for every Enter; a later one for the one before it.
  return i == 0 ? f.num_pending_inputs == 0 : i - 1 < f.first_iter;
}

void PartitionExecution::cleanup(FrameState& f, std::int64_t i) {
  if (&f == &root_frame_) return;
  for (std::int64_t cur = i; cur <= f.iteration_count && iteration_done(f, cur); ++cur) {
    f.iterations.erase(f.iterations.begin());
    ++f.first_iter;
    --f.num_outstanding_iterations;
    // An iteration held back by parallel_iterations can start now.
    if (!f.next_iter_roots.empty()) increment_iteration(f);
  }
  if (f.num_pending_inputs == 0 && f.num_outstanding_iterations == 0) finish_frame(f);
}

void PartitionExecution::finish_frame(FrameState& f) {
  IterState& parent = *f.parent_iter;
  // A loop that never ran (its Enters dead) leaves its Exits dead in the enclosing frame.
  for (int id : f.dead_exits) {
    const auto& item = impl_->items[static_cast<std::size_t>(id)];
    // A fetched Exit of a loop that never ran: TensorFlow's error for a dead fetch.
    for (const auto& [fetch, output] : item.fetches)
      if (!deliver_fetch(item, fetch, Tensor::dead())) return;
    std::vector<Tensor> dead(item.node->output_types.size(), Tensor::dead());
    activate(item, parent, dead, true, false);
  }
  --parent.outstanding_frames;
  frames_.erase({&parent, f.info});  // f is gone
  if (parent.outstanding_ops == 0 && parent.outstanding_frames == 0)
    cleanup(*parent.frame, parent.iter);
}

}  // namespace af::detail
