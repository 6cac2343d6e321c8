#include "actorflow/ops/placer.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <unordered_map>

namespace af {

int device_type_priority(const std::string& device_type) {
  if (device_type == "GPU") return 210;
  if (device_type == "CPU") return 100;
  return 50;
}

namespace {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    return parent[static_cast<std::size_t>(x)] == x
               ? x
               : parent[static_cast<std::size_t>(x)] = find(parent[static_cast<std::size_t>(x)]);
  }
  void unite(int a, int b) { parent[static_cast<std::size_t>(find(a))] = find(b); }
};

std::string join_names(const std::vector<const DeviceAttributes*>& devices) {
  std::string out;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (i) out += ", ";
    out += devices[i]->name;
  }
  return out;
}

}  // namespace

Status place_nodes(const std::vector<const Node*>& nodes,
                   const std::vector<DeviceAttributes>& devices, const PlacerOptions& options,
                   const KernelRegistry& kernels, Placement* placement,
                   std::vector<std::string>* newly_placed) {
  if (devices.empty()) return internal("place_nodes: no devices");
  std::unordered_map<std::string, int> index;
  for (std::size_t i = 0; i < nodes.size(); ++i) index[nodes[i]->name()] = static_cast<int>(i);
  UnionFind groups(nodes.size());
  // Colocation constraints: explicit `_class` groups and reference edges.
  std::unordered_map<std::string, int> group_anchor;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node* n = nodes[i];
    for (auto& target : n->colocation_names()) {
      auto [it, fresh] = group_anchor.emplace(target, static_cast<int>(i));
      if (!fresh) groups.unite(static_cast<int>(i), it->second);
      if (auto t = index.find(target); t != index.end())
        groups.unite(static_cast<int>(i), t->second);
    }
    for (std::size_t k = 0; k < n->inputs().size(); ++k) {
      if (!n->input_is_ref(static_cast<int>(k))) continue;
      if (auto t = index.find(n->inputs()[k].node()->name()); t != index.end())
        groups.unite(static_cast<int>(i), t->second);
    }
  }
  std::map<int, std::vector<int>> members;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    members[groups.find(static_cast<int>(i))].push_back(static_cast<int>(i));

  std::vector<const DeviceAttributes*> sorted;
  for (auto& d : devices) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) {
    int pa = device_type_priority(a->device_type), pb = device_type_priority(b->device_type);
    if (pa != pb) return pa > pb;
    return a->name < b->name;
  });

  // The devices a group may go to, best first (TensorFlow's ColocationGraph::GetDevicesForNode).
  auto candidates_for = [&](const std::vector<int>& group,
                            std::vector<const DeviceAttributes*>& candidates) -> Status {
    // The requested specs of the group, merged.
    DeviceSpec spec;
    const Node* pinned = nullptr;
    for (int i : group) {
      const Node* n = nodes[static_cast<std::size_t>(i)];
      if (n->def().device.empty()) continue;
      DeviceSpec requested;
      Status s = DeviceSpec::parse(n->def().device, &requested);
      if (!s.ok()) return s.with_context(" (device of node '" + n->name() + "')");
      s = spec.merge_compatible(requested, options.allow_soft_placement);
      if (!s.ok())
        return invalid_argument("Cannot colocate nodes '" + n->name() + "' and '" +
                                (pinned ? pinned->name() : n->name()) + "': " + s.message());
      if (!pinned) pinned = n;
    }
    // Device types with a kernel for every member.
    std::set<std::string> supported;
    bool first = true;
    for (int i : group) {
      auto types = kernels.supported_device_types(nodes[static_cast<std::size_t>(i)]->def());
      std::set<std::string> t(types.begin(), types.end());
      if (first) {
        supported = t;
        first = false;
      } else {
        std::set<std::string> both;
        std::set_intersection(supported.begin(), supported.end(), t.begin(), t.end(),
                              std::inserter(both, both.begin()));
        supported = both;
      }
    }
    // Omitted parts of the spec match any device (TensorFlow's placer): the first in
    // `sorted` order is the default, so an unpinned node goes to the cluster's first device
    // whichever task is the master.
    const DeviceSpec requested_spec = spec;
    const Node* blame = pinned ? pinned : nodes[static_cast<std::size_t>(group.front())];
    std::vector<const DeviceAttributes*> matching, with_kernel;
    candidates.clear();
    for (auto* d : sorted) {
      bool kernel = supported.count(d->device_type) > 0;
      bool match = spec.matches(d->spec());
      if (match) matching.push_back(d);
      if (kernel) with_kernel.push_back(d);
      if (match && kernel) candidates.push_back(d);
    }
    if (candidates.empty() && !spec.empty() && options.allow_soft_placement) {
      // Soft placement: keep job/replica/task, drop the device type and index.
      DeviceSpec relaxed = spec;
      relaxed.device_type.reset();
      relaxed.device_index.reset();
      for (auto* d : with_kernel)
        if (relaxed.matches(d->spec())) candidates.push_back(d);
    }
    if (candidates.empty()) {
      if (with_kernel.empty())
        return invalid_argument("Cannot assign a device for operation " + blame->name() +
                                ": No OpKernel was registered to support Op '" + blame->type() +
                                "' used by {{node " + blame->name() + "}} with these attrs.\n" +
                                kernels.registered_kernels_string(blame->type()));
      std::string why;
      if (matching.empty()) {
        std::vector<const DeviceAttributes*> all;
        for (auto* d : sorted) all.push_back(d);
        why =
            "because no devices matching that specification are registered in this process; "
            "available devices: " +
            join_names(all);
      } else {
        why = "because no supported kernel for " +
              requested_spec.device_type.value_or(std::string("the requested")) +
              " devices is available.";
      }
      return invalid_argument(
          "Cannot assign a device for operation " + blame->name() +
          ": Could not satisfy explicit device specification '" + requested_spec.to_string() +
          "' " + why + "\nDevices with a kernel for this operation: " + join_names(with_kernel) +
          "\n" + kernels.registered_kernels_string(blame->type()));
    }
    return {};
  };

  // Groups in graph order of their first member (TensorFlow walks the nodes in order).
  std::vector<const std::vector<int>*> ordered;
  for (auto& [root, group] : members) ordered.push_back(&group);
  std::sort(ordered.begin(), ordered.end(),
            [](auto* a, auto* b) { return a->front() < b->front(); });
  auto node_at = [&](int i) { return nodes[static_cast<std::size_t>(i)]; };
  auto assign = [&](const std::vector<int>& group, const std::string& device) {
    for (int i : group) {
      const Node* n = node_at(i);
      if (placement->emplace(n->name(), device).second && newly_placed)
        newly_placed->push_back(n->name());
    }
  };
  auto placed_on = [&](const std::string& name) -> const std::string* {
    auto it = placement->find(name);
    return it == placement->end() ? nullptr : &it->second;
  };
  auto among = [](const std::vector<const DeviceAttributes*>& candidates,
                  const std::string& device) {
    return std::any_of(candidates.begin(), candidates.end(),
                       [&](auto* d) { return d->name == device; });
  };
  // TensorFlow's placer.cc heuristics: a generator (no inputs, one non-reference output)
  // goes with its consumers when they all share a device it may use (second pass); a
  // metadata op (Shape, ShapeN, Size, Rank) goes with its input.
  auto is_generator = [](const Node* n) {
    return n->inputs().empty() && n->num_outputs() == 1 && !n->output_is_ref(0);
  };
  auto is_metadata = [](const Node* n) {
    const std::string& t = n->type();
    return t == "Shape" || t == "ShapeN" || t == "Size" || t == "Rank";
  };
  std::vector<const std::vector<int>*> generators;
  // The consumers of each deferred generator (one entry per input edge, in node order), found
  // in one pass over the nodes once the first pass has deferred them all.
  std::unordered_map<const Node*, std::vector<const Node*>> generator_consumers;
  auto collect_generator_consumers = [&] {
    for (const auto* group : generators) generator_consumers[node_at(group->front())];
    for (const Node* n : nodes)
      for (auto& in : n->inputs())
        if (auto it = generator_consumers.find(in.node()); it != generator_consumers.end())
          it->second.push_back(n);
  };
  std::vector<const DeviceAttributes*> candidates;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) collect_generator_consumers();
    for (const auto* group_ptr : pass == 0 ? ordered : generators) {
      const auto& group = *group_ptr;
      // 1. A node placed in an earlier run stays (and pulls its group along).
      std::string chosen;
      for (int i : group)
        if (auto* d = placed_on(node_at(i)->name()); chosen.empty() && d) chosen = *d;
      // Colocation targets outside this subgraph that were placed before.
      for (int i : group)
        for (auto& target : node_at(i)->colocation_names())
          if (auto* d = placed_on(target); chosen.empty() && d) chosen = *d;
      if (!chosen.empty()) {
        assign(group, chosen);
        continue;
      }
      const Node* single = group.size() == 1 ? node_at(group.front()) : nullptr;
      if (pass == 0 && single && is_generator(single)) {
        generators.push_back(group_ptr);
        continue;
      }
      ACTORFLOW_RETURN_IF_ERROR(candidates_for(group, candidates));
      chosen = candidates.front()->name;
      if (single && pass == 0 && is_metadata(single) && !single->inputs().empty()) {
        if (auto* d = placed_on(single->inputs().front().node()->name());
            d && among(candidates, *d))
          chosen = *d;
      } else if (single && pass == 1) {
        const std::string* shared = nullptr;
        bool same = true, any = false;
        for (const Node* n : generator_consumers[single]) {
          const std::string* d = placed_on(n->name());
          any = true;
          same = same && d && (!shared || *shared == *d);
          if (d && !shared) shared = d;
        }
        if (any && same && shared && among(candidates, *shared)) chosen = *shared;
      }
      assign(group, chosen);
    }
  }
  return {};
}

}  // namespace af
