// A partition's executable form (ExecutorImpl): its kernels and edge tables, built once per
// (session, feeds, fetches, targets) and shared by every step that runs the partition.
#include "actorflow/actors/detail/step_protocol.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "executor/loop_frames.hpp"

namespace af::detail {

Status ExecutorImpl::create(PartitionPlan plan, std::shared_ptr<Device> device,
                            std::shared_ptr<ExecutorImpl>* out, const std::string& kernel_scope) {
  auto impl = std::make_shared<ExecutorImpl>();
  impl->plan = std::move(plan);
  impl->device = std::move(device);
  impl->kernel_scope = kernel_scope;
  auto& nodes = impl->plan.nodes;
  impl->items.resize(nodes.size());
  int slot = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto& item = impl->items[i];
    const ExecNode& n = nodes[i];
    item.node = &n;
    item.input_start = slot;
    item.num_inputs = static_cast<int>(n.inputs.size());
    slot += item.num_inputs;
    item.num_control = static_cast<int>(n.control_inputs.size());
    item.initial_pending = item.num_inputs + item.num_control;
    item.is_merge = n.def.op == "Merge" || n.def.op == "RefMerge";
    item.is_send = n.def.op == "_Send";
    item.is_recv = n.def.op == "_Recv";
    item.is_control_trigger = n.def.op == "ControlTrigger";
    item.is_enter = n.def.op == "Enter" || n.def.op == "RefEnter";
    item.is_exit = n.def.op == "Exit" || n.def.op == "RefExit";
    item.is_next_iteration = n.def.op == "NextIteration" || n.def.op == "RefNextIteration";
    if (item.is_merge || n.def.op == "Switch" || n.def.op == "RefSwitch" || item.is_enter ||
        item.is_exit || item.is_next_iteration)
      impl->has_control_flow = true;
    item.out_edges.resize(n.output_types.size());
    for (std::size_t k = 0; k < n.input_types.size(); ++k)
      if (n.input_types[k] != DType::resource && !n.input_is_ref[k]) item.needs_deref = true;
    if (n.def.op == "_Feed") continue;
    OpKernelConstruction c{n.def, n.input_types, n.output_types, impl->device->device_type(),
                           impl->device->name()};
    // Stateful kernels (queues, readers, variables) are one per session and device, shared
    // by every plan, as TensorFlow's OpSegment shares them between executors.
    const OpDef* op = OpRegistry::global().find(n.def.op);
    Status s = impl->device->find_or_create_kernel(
        kernel_scope + n.def.name, op && op->stateful, &item.kernel,
        [&](std::unique_ptr<OpKernel>* out) { return KernelRegistry::global().create(c, out); });
    if (!s.ok()) return s;
    item.is_async = item.kernel->is_async();
  }
  impl->total_inputs = slot;
  impl->inline_ok = impl->device && !impl->device->is_accelerator();
  // A GPU partition can run on the waiting thread too: its kernels only enqueue work, and its
  // copies and the end-of-step sync complete through callbacks posted to the wait loop.
  impl->waiting_ok = impl->device != nullptr;
  for (auto& item : impl->items) {
    const std::string& op = item.node->def.op;
    if (item.is_async || op == "_Send" || op == "_Recv") impl->inline_ok = false;
    if (op == "_Send" || op == "_Recv") impl->waiting_ok = false;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const ExecNode& n = nodes[i];
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      auto [src, output] = n.inputs[k];
      impl->items[static_cast<std::size_t>(src)]
          .out_edges[static_cast<std::size_t>(output)]
          .push_back({static_cast<int>(i), static_cast<int>(k)});
    }
    for (int c : n.control_inputs)
      impl->items[static_cast<std::size_t>(c)].control_out.push_back(static_cast<int>(i));
    if (impl->items[i].initial_pending == 0) impl->initial_ready.push_back(static_cast<int>(i));
  }
  for (auto& f : impl->plan.fetches)
    impl->items[static_cast<std::size_t>(f.node)].fetches.push_back({f.fetch_index, f.output});
  // While loops: each node's frame (a partition without loops has only the root).
  if (Status s = assign_frames(*impl); !s.ok()) return s;
  impl->total_inputs = impl->frames[0].num_inputs;
  // A loop may run for long: never to its end on a thread that must not block.
  if (impl->has_loops) impl->inline_ok = false;
  *out = std::move(impl);
  return {};
}

}  // namespace af::detail
