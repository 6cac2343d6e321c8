#include "actorflow/ops/execution_plan.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "actorflow/ops/op_registry.hpp"

namespace af {

namespace {

struct Builder {
  PartitionPlan plan;
  std::unordered_map<std::string, int> index;  // node name -> local index

  int add(ExecNode n) {
    int i = static_cast<int>(plan.nodes.size());
    index[n.def.name] = i;
    plan.nodes.push_back(std::move(n));
    return i;
  }
};

ExecNode exec_node_of(const Node* n) {
  ExecNode e;
  e.def = n->def();
  e.output_types = n->output_types();
  for (std::size_t i = 0; i < n->inputs().size(); ++i) {
    e.input_types.push_back(n->inputs()[i].dtype());
    e.input_is_ref.push_back(n->input_is_ref(static_cast<int>(i)));
  }
  return e;
}

/// Where each fed tensor's value comes from (its index in the feeds); records the feeds'
/// types, shapes and names in `out`.
Status index_feeds(const std::vector<Output>& feeds, std::map<Output, int>* fed,
                   ExecutionPlan* out) {
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    if (!fed->emplace(feeds[i], static_cast<int>(i)).second)
      return invalid_argument(feeds[i].name() + " fed more than once.");
    out->feed_types.push_back(feeds[i].dtype());
    out->feed_shapes.push_back(feeds[i].shape());
    out->feed_names.push_back(feeds[i].name());
  }
  return {};
}

/// True for a while loop's back edge: a NextIteration's value into a Merge.
bool is_back_edge(const Node* consumer, const Node* producer) {
  return (consumer->type() == "Merge" || consumer->type() == "RefMerge") &&
         (producer->type() == "NextIteration" || producer->type() == "RefNextIteration");
}

/// `needed` in a topological order that leaves out loops' back edges, the lowest id first
/// among the ready nodes: id order where the graph was built in order, and a graph whose
/// later nodes feed earlier ones' control inputs (a gradient loop's stack pushes) sorted.
/// Nodes left on a cycle come last in id order: the partitioner takes a data edge back to one
/// as a loop's back edge (the executor refuses one no Enter leads into) and reports a control
/// edge back, or a data edge back across devices.
std::vector<const Node*> topological_order(const std::set<const Node*>& needed,
                                           const std::map<Output, int>& fed) {
  std::unordered_map<const Node*, int> waiting;
  std::unordered_map<const Node*, std::vector<const Node*>> consumers;
  for (const Node* n : needed) {
    int count = 0;
    auto edge = [&](const Node* p) {
      if (!needed.count(p)) return;
      consumers[p].push_back(n);
      ++count;
    };
    for (auto& in : n->inputs())
      if (!fed.count(in) && !is_back_edge(n, in.node())) edge(in.node());
    for (auto* c : n->control_inputs()) edge(c);
    waiting[n] = count;
  }
  auto later = [](const Node* a, const Node* b) { return a->id() > b->id(); };
  std::priority_queue<const Node*, std::vector<const Node*>, decltype(later)> ready(later);
  for (const Node* n : needed)
    if (waiting[n] == 0) ready.push(n);
  std::vector<const Node*> order;
  std::unordered_set<const Node*> placed;
  while (!ready.empty()) {
    const Node* n = ready.top();
    ready.pop();
    order.push_back(n);
    placed.insert(n);
    for (const Node* c : consumers[n])
      if (--waiting[c] == 0) ready.push(c);
  }
  if (order.size() < needed.size()) {
    std::vector<const Node*> rest;
    for (const Node* n : needed)
      if (!placed.count(n)) rest.push_back(n);
    std::sort(rest.begin(), rest.end(), [](auto* a, auto* b) { return a->id() < b->id(); });
    order.insert(order.end(), rest.begin(), rest.end());
  }
  return order;
}

/// Prune: the nodes the fetches and targets need, walking back from them and stopping at
/// fed tensors, in topological order. A fetch of a fed tensor is answered from the feed
/// (`out->fetch_from_feed`).
std::vector<const Node*> prune(const std::map<Output, int>& fed, const std::vector<Output>& fetches,
                               const std::vector<Operation>& targets, ExecutionPlan* out) {
  std::set<const Node*> needed;
  std::vector<const Node*> stack;
  out->fetch_from_feed.assign(fetches.size(), -1);
  for (std::size_t k = 0; k < fetches.size(); ++k) {
    if (auto it = fed.find(fetches[k]); it != fed.end()) {
      out->fetch_from_feed[k] = it->second;
      continue;
    }
    stack.push_back(fetches[k].node());
  }
  for (auto& t : targets) stack.push_back(t.node());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!needed.insert(n).second) continue;
    for (auto& in : n->inputs())
      if (!fed.count(in)) stack.push_back(in.node());
    for (auto* c : n->control_inputs()) stack.push_back(c);
  }
  return topological_order(needed, fed);
}

/// Place: like TensorFlow's GraphExecutionState, the placer runs over every node not placed
/// yet (not only the pruned subgraph), so each node is placed and logged once, on the first
/// run after it was created.
Status place_new_nodes(const Graph& g, const std::vector<DeviceAttributes>& devices,
                       const PlacerOptions& options, Placement* placement, ExecutionPlan* out) {
  std::vector<const Node*> unplaced;
  for (auto* n : g.nodes_locked())
    if (!placement->count(n->name())) unplaced.push_back(n);
  if (unplaced.empty()) return {};
  std::vector<std::string> newly;
  ACTORFLOW_RETURN_IF_ERROR(
      place_nodes(unplaced, devices, options, KernelRegistry::global(), placement, &newly));
  std::set<std::string> fresh(newly.begin(), newly.end());
  for (auto* n : unplaced)
    if (fresh.count(n->name())) out->newly_placed.push_back(n->name());
  return {};
}

/// Partition: one plan per device; each edge between devices becomes a _Send on the
/// producer's device and a _Recv on the consumer's (one per tensor and device), each control
/// edge between devices a Const trigger sent the same way. Nodes are added in topological
/// order, so each partition stays topologically sorted.
class Partitioner {
 public:
  Partitioner(const std::map<Output, int>& fed, const Placement& placement)
      : fed(fed), placement(placement) {}

  void add(const Node* n) {
    const std::string& dev = device_of(n);
    ExecNode e = exec_node_of(n);
    e.def.device = dev;
    std::vector<std::size_t> back;
    for (auto& in : n->inputs()) {
      if (fed.count(in) || parts[device_of(in.node())].index.count(in.node()->name())) {
        e.inputs.push_back(local_input(dev, in));
        continue;
      }
      // A producer added after its consumer: a while loop's back edge (NextIteration ->
      // Merge), taken once every node is added; between devices, a cycle no Enter opened.
      const std::string& src_dev = device_of(in.node());
      if (src_dev == dev)
        back.push_back(e.inputs.size());
      else if (error.ok())
        error = invalid_argument("Node '" + n->name() + "' on " + dev + " takes '" + in.name() +
                                 "' on " + src_dev +
                                 " along a cycle; actorflow runs each while loop on one device");
      e.inputs.emplace_back(-1, 0);
    }
    for (auto* c : n->control_inputs()) {
      if (!parts[device_of(c)].index.count(c->name())) {
        // Topological order puts every control input first unless it is on a cycle.
        if (error.ok())
          error = invalid_argument("Node '" + n->name() + "' waits on '" + c->name() +
                                   "' along a cycle of control edges");
        continue;
      }
      e.control_inputs.push_back(local_control(dev, c));
    }
    const int at = parts[dev].add(std::move(e));
    for (std::size_t k : back) back_edges.push_back({dev, at, k, n->inputs()[k]});
  }

  void add_fetch(int k, const Output& f) {
    const std::string& dev = device_of(f.node());
    parts[dev].plan.fetches.push_back({k, parts[dev].index.at(f.node()->name()), f.index()});
  }

  /// The first cycle found between devices (the plan is not usable then).
  Status error;

  void finish(ExecutionPlan* out) {
    for (const auto& [dev, at, k, in] : back_edges) {
      Builder& b = parts[dev];
      b.plan.nodes[static_cast<std::size_t>(at)].inputs[k] = {b.index.at(in.node()->name()),
                                                              in.index()};
    }
    for (auto& [dev, b] : parts) {
      b.plan.device = dev;
      fuse_reader_decode_csv(b.plan);
      out->partitions.push_back(std::move(b.plan));
    }
  }

 private:
  const std::string& device_of(const Node* n) const { return placement.at(n->name()); }

  /// The node and output that give `in` to a node on `dev`: the feed, the producer on the
  /// same device, or a _Recv from the producer's device.
  std::pair<int, int> local_input(const std::string& dev, const Output& in) {
    Builder& b = parts[dev];
    if (auto f = fed.find(in); f != fed.end()) {
      auto key = std::make_pair(dev, in);
      auto it = feed_nodes.find(key);
      if (it == feed_nodes.end()) {
        ExecNode e;
        e.def.name = "_feed/" + in.node()->name() + "_" + std::to_string(in.index());
        e.def.op = "_Feed";
        e.def.device = dev;
        e.output_types = {in.dtype()};
        e.feed_index = f->second;
        it = feed_nodes.emplace(key, b.add(std::move(e))).first;
      }
      return {it->second, 0};
    }
    const std::string& src_dev = device_of(in.node());
    if (src_dev == dev) return {parts[dev].index.at(in.node()->name()), in.index()};
    // Cross-device edge: _Send on the producer's device, _Recv here (one per tensor+device).
    auto key = std::make_pair(dev, in);
    if (auto it = recv_nodes.find(key); it != recv_nodes.end()) return {it->second, 0};
    std::string tensor_key =
        src_dev + ";" + dev + ";" + in.name() + ";" + std::to_string(edge_counter++);
    Builder& src = parts[src_dev];
    ExecNode send;
    send.def.name = "_send/" + in.node()->name() + "_" + std::to_string(in.index()) + "/" + dev;
    send.def.op = "_Send";
    send.def.device = src_dev;
    send.def.attrs["key"] = tensor_key;
    send.def.attrs["T"] = in.dtype();
    send.inputs = {{src.index.at(in.node()->name()), in.index()}};
    send.input_types = {in.dtype()};
    send.input_is_ref = {false};  // a reference is read on the sending side
    src.add(std::move(send));
    ExecNode recv;
    recv.def.name = "_recv/" + in.node()->name() + "_" + std::to_string(in.index());
    recv.def.op = "_Recv";
    recv.def.device = dev;
    recv.def.attrs["key"] = tensor_key;
    recv.def.attrs["T"] = in.dtype();
    recv.output_types = {in.dtype()};
    int r = b.add(std::move(recv));
    recv_nodes.emplace(key, r);
    return {r, 0};
  }

  /// The node on `dev` a control edge from `src_node` waits for.
  int local_control(const std::string& dev, const Node* src_node) {
    const std::string& src_dev = device_of(src_node);
    if (src_dev == dev) return parts[dev].index.at(src_node->name());
    auto key = std::make_pair(dev, src_node);
    if (auto it = ctrl_recv.find(key); it != ctrl_recv.end()) return it->second;
    std::string tensor_key =
        src_dev + ";" + dev + ";^" + src_node->name() + ";" + std::to_string(edge_counter++);
    Builder& src = parts[src_dev];
    ExecNode trigger;
    trigger.def.name = "_ctrl/" + src_node->name() + "/" + dev;
    trigger.def.op = "Const";
    trigger.def.device = src_dev;
    trigger.def.attrs["value"] = Tensor(0.0f);
    trigger.def.attrs["dtype"] = DType::float32;
    trigger.output_types = {DType::float32};
    trigger.control_inputs = {src.index.at(src_node->name())};
    int t = src.add(std::move(trigger));
    ExecNode send;
    send.def.name = "_send/^" + src_node->name() + "/" + dev;
    send.def.op = "_Send";
    send.def.device = src_dev;
    send.def.attrs["key"] = tensor_key;
    send.def.attrs["T"] = DType::float32;
    send.inputs = {{t, 0}};
    send.input_types = {DType::float32};
    send.input_is_ref = {false};
    src.add(std::move(send));
    ExecNode recv;
    recv.def.name = "_recv/^" + src_node->name();
    recv.def.op = "_Recv";
    recv.def.device = dev;
    recv.def.attrs["key"] = tensor_key;
    recv.def.attrs["T"] = DType::float32;
    recv.output_types = {DType::float32};
    int r = parts[dev].add(std::move(recv));
    ctrl_recv.emplace(key, r);
    return r;
  }

  const std::map<Output, int>& fed;
  const Placement& placement;
  std::map<std::string, Builder> parts;
  std::map<std::pair<std::string, Output>, int> feed_nodes;      // (device, fed tensor) -> node
  std::map<std::pair<std::string, Output>, int> recv_nodes;      // (device, tensor) -> _Recv
  std::map<std::pair<std::string, const Node*>, int> ctrl_recv;  // (device, src) -> _Recv
  struct BackEdge {
    std::string device;
    int node;
    std::size_t input;
    Output value;
  };
  std::vector<BackEdge> back_edges;  // inputs from nodes added after their consumer
  int edge_counter = 0;
};

/// The while loop frame each node's outputs are in ("" outside loops), over the pruned
/// nodes `order`, as the executor assigns frames (actors/src/executor/loop_frames.cpp): an
/// Enter's outputs are in its `frame_name`, an Exit's in the frame its loop was entered
/// from, others' in their node's frame. Empty when no Enter is among them.
std::map<const Node*, std::string> output_frames(const std::vector<const Node*>& order,
                                                 const std::map<Output, int>& fed) {
  std::map<const Node*, std::string> out;
  if (std::none_of(order.begin(), order.end(),
                   [](const Node* n) { return n->type() == "Enter" || n->type() == "RefEnter"; }))
    return out;
  std::map<const Node*, std::vector<const Node*>> users;
  std::vector<const Node*> queue;
  for (const Node* n : order) {
    bool root = n->control_inputs().empty();
    for (const auto& in : n->inputs())
      if (!fed.count(in)) {
        users[in.node()].push_back(n);
        root = false;
      }
    for (const Node* c : n->control_inputs()) users[c].push_back(n);
    if (root) queue.push_back(n);
  }
  std::map<const Node*, std::string> frame;  // the node's own frame
  std::map<std::string, std::string> parent;
  for (const Node* n : queue) frame[n] = "";
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const Node* n = queue[q];
    std::string f = frame[n];
    if (n->type() == "Enter" || n->type() == "RefEnter") {
      const auto* name = n->def().attr<std::string>("frame_name");
      std::string child = name != nullptr ? *name : "";
      parent.emplace(child, f);
      f = child;
    } else if ((n->type() == "Exit" || n->type() == "RefExit") && parent.count(f)) {
      f = parent[f];
    }
    out[n] = f;
    for (const Node* u : users[n])
      if (frame.emplace(u, f).second) queue.push_back(u);
  }
  return out;
}

/// InvalidArgument when an edge inside a while loop joins two devices: the executor runs
/// each loop's frame in one partition.
Status check_loops_on_one_device(const std::vector<const Node*>& order,
                                 const std::map<Output, int>& fed, const Placement& placement) {
  const auto frames = output_frames(order, fed);
  if (frames.empty()) return {};
  auto check = [&](const Node* src, const Node* dst) -> Status {
    auto it = frames.find(src);
    if (it == frames.end() || it->second.empty()) return {};
    const std::string& a = placement.at(src->name());
    const std::string& b = placement.at(dst->name());
    if (a == b) return {};
    return invalid_argument("While loop frame '" + it->second + "' spans devices: '" + dst->name() +
                            "' on " + b + " takes '" + src->name() + "' on " + a +
                            "; actorflow runs each while loop on one device (place the loop's "
                            "ops together)");
  };
  for (const Node* n : order) {
    for (const auto& in : n->inputs())
      if (!fed.count(in)) ACTORFLOW_RETURN_IF_ERROR(check(in.node(), n));
    for (const Node* c : n->control_inputs()) ACTORFLOW_RETURN_IF_ERROR(check(c, n));
  }
  return {};
}

}  // namespace

Status build_execution_plan(const Graph& g, const std::vector<Output>& feeds,
                            const std::vector<Output>& fetches,
                            const std::vector<Operation>& targets,
                            const std::vector<DeviceAttributes>& devices,
                            const PlacerOptions& options, Placement* placement,
                            ExecutionPlan* out) {
  std::map<Output, int> fed;
  ACTORFLOW_RETURN_IF_ERROR(index_feeds(feeds, &fed, out));
  const std::vector<const Node*> order = prune(fed, fetches, targets, out);
  ACTORFLOW_RETURN_IF_ERROR(place_new_nodes(g, devices, options, placement, out));
  ACTORFLOW_RETURN_IF_ERROR(check_loops_on_one_device(order, fed, *placement));
  Partitioner partitioner(fed, *placement);
  for (auto* n : order) partitioner.add(n);
  ACTORFLOW_RETURN_IF_ERROR(partitioner.error);
  for (std::size_t k = 0; k < fetches.size(); ++k)
    if (out->fetch_from_feed[k] < 0) partitioner.add_fetch(static_cast<int>(k), fetches[k]);
  partitioner.finish(out);
  return {};
}

int fuse_reader_decode_csv(PartitionPlan& plan) {
  auto& nodes = plan.nodes;
  const auto n = nodes.size();
  // Uses of every output and control uses of every node; fetched outputs count as uses.
  std::map<std::pair<int, int>, int> uses;
  std::vector<int> control_uses(n, 0);
  for (const auto& node : nodes) {
    for (const auto& in : node.inputs) ++uses[in];
    for (int c : node.control_inputs) ++control_uses[static_cast<std::size_t>(c)];
  }
  for (const auto& f : plan.fetches) ++uses[{f.node, f.output}];
  int fused = 0;
  for (std::size_t d = 0; d < n; ++d) {
    ExecNode& decode = nodes[d];
    if (decode.def.op != "DecodeCSV" || decode.inputs.empty()) continue;
    const auto [r, output] = decode.inputs[0];
    if (output != 1) continue;
    ExecNode& read = nodes[static_cast<std::size_t>(r)];
    if (read.def.op != "ReaderReadV2" && read.def.op != "ReaderReadUpToV2" &&
        read.def.op != "ReaderRead" && read.def.op != "ReaderReadUpTo")
      continue;
    const auto* types = decode.def.attr<std::vector<DType>>("OUT_TYPE");
    const auto* keys_attr = decode.def.attr<bool>("has_keys");
    const bool has_keys = keys_attr != nullptr && *keys_attr;
    if (types == nullptr || decode.inputs.size() != 1 + types->size() + (has_keys ? 1 : 0))
      continue;
    if (has_keys && decode.inputs.back() != std::make_pair(r, 0)) continue;
    // The records (and keys) must go to this DecodeCSV only, and nothing may wait on the read.
    if (uses[{r, 1}] != 1 || uses[{r, 0}] != (has_keys ? 1 : 0) ||
        control_uses[static_cast<std::size_t>(r)] != 0)
      continue;
    ExecNode f;
    f.def = decode.def;
    f.def.op = "_ReaderReadDecodeCSV";
    f.def.attrs.erase("has_keys");
    f.def.attrs["has_keys"] = has_keys;
    f.def.attrs["reader_op"] = read.def.op;
    f.def.attrs["reader_node"] = read.def.name;
    f.inputs = read.inputs;
    f.input_types = read.input_types;
    f.input_is_ref = read.input_is_ref;
    for (std::size_t i = 1; i <= types->size(); ++i) {
      f.inputs.push_back(decode.inputs[i]);
      f.input_types.push_back(decode.input_types[i]);
      f.input_is_ref.push_back(decode.input_is_ref[i]);
    }
    f.output_types = decode.output_types;
    f.control_inputs = read.control_inputs;
    f.control_inputs.insert(f.control_inputs.end(), decode.control_inputs.begin(),
                            decode.control_inputs.end());
    decode = std::move(f);
    // The read's slot stays (indices are positions) as a NoOp that nothing uses.
    ExecNode noop;
    noop.def.name = read.def.name;
    noop.def.op = "NoOp";
    noop.def.device = read.def.device;
    read = std::move(noop);
    ++fused;
  }
  return fused;
}

}  // namespace af
