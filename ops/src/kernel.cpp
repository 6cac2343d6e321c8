#include "actorflow/ops/kernel.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <vector>

namespace af {

Tensor& OpKernelContext::allocate_output(int i, DType dtype, Shape shape) {
  auto& slot = outputs_.at(static_cast<std::size_t>(i));
  slot = Tensor(dtype, std::move(shape));
  return slot;
}

Tensor& OpKernelContext::allocate_output_for_overwrite(int i, DType dtype, Shape shape) {
  auto& slot = outputs_.at(static_cast<std::size_t>(i));
  slot = Tensor(dtype, std::move(shape), Tensor::for_overwrite);
  return slot;
}

AsyncKernelTask OpKernel::compute_async(OpKernelContext& ctx) {
  ctx.fail(internal("kernel " + name_ + " (" + type_ + ") is not asynchronous"));
  co_return;
}

namespace {

/// Kernel modules added but not yet run (`KernelRegistry::add_module`). Their functions run
/// on the first `global()` after static initialisation, when the type lists and tables they
/// read are initialised whatever the order of the program's translation units.
struct PendingModules {
  std::mutex mu;
  std::vector<void (*)(KernelRegistry&)> fns;
  std::atomic<bool> any{false};
};

PendingModules& pending_modules() {
  static auto* pending = new PendingModules;  // never destroyed, as the registry
  return *pending;
}

}  // namespace

bool KernelRegistry::add_module(void (*fn)(KernelRegistry&)) {
  PendingModules& pending = pending_modules();
  std::lock_guard<std::mutex> guard(pending.mu);
  pending.fns.push_back(fn);
  pending.any.store(true, std::memory_order_release);
  return true;
}

KernelRegistry& KernelRegistry::global() {
  // Never destroyed: registrations outlive static destructors. The kernel modules fill it
  // (the CPU kernels' module, the GPU device's kernels).
  static KernelRegistry* registry = new KernelRegistry;
  PendingModules& pending = pending_modules();
  if (pending.any.load(std::memory_order_acquire)) {
    // Callers wait until every pending module has registered: none sees a partial registry.
    std::lock_guard<std::mutex> guard(pending.mu);
    for (std::size_t i = 0; i < pending.fns.size(); ++i) pending.fns[i](*registry);
    pending.fns.clear();
    pending.any.store(false, std::memory_order_release);
  }
  return *registry;
}

void KernelRegistry::add(KernelDef def) {
  std::lock_guard<std::mutex> guard(mu_);
  auto op = def.op;
  kernels_.emplace(std::move(op), std::move(def));
}

namespace {

bool satisfies(const KernelDef& k, const NodeDef& def) {
  for (auto& [attr, allowed] : k.constraints) {
    const DType* t = def.attr<DType>(attr);
    if (!t) return false;
    if (std::find(allowed.begin(), allowed.end(), *t) == allowed.end()) return false;
  }
  return true;
}

}  // namespace

std::vector<KernelDef> KernelRegistry::kernels_for(const std::string& op,
                                                   const std::string& device_type) const {
  std::lock_guard<std::mutex> guard(mu_);
  std::vector<KernelDef> out;
  auto [begin, end] = kernels_.equal_range(op);
  for (auto it = begin; it != end; ++it)
    if (it->second.device_type == device_type) out.push_back(it->second);
  return out;
}

const KernelDef* KernelRegistry::find(const NodeDef& def, const std::string& device_type) const {
  std::lock_guard<std::mutex> guard(mu_);
  auto [begin, end] = kernels_.equal_range(def.op);
  for (auto it = begin; it != end; ++it)
    if (it->second.device_type == device_type && satisfies(it->second, def)) return &it->second;
  return nullptr;
}

std::vector<std::string> KernelRegistry::supported_device_types(const NodeDef& def) const {
  std::lock_guard<std::mutex> guard(mu_);
  std::set<std::string> types;
  auto [begin, end] = kernels_.equal_range(def.op);
  for (auto it = begin; it != end; ++it)
    if (satisfies(it->second, def)) types.insert(it->second.device_type);
  return {types.begin(), types.end()};
}

Status KernelRegistry::create(OpKernelConstruction& c, std::unique_ptr<OpKernel>* out) const {
  const KernelDef* k = find(c.def, c.device_type);
  if (!k)
    return not_found("No registered '" + c.def.op + "' OpKernel for " + c.device_type +
                     " devices compatible with node " + c.def.name + "\n" +
                     registered_kernels_string(c.def.op));
  Status s;
  *out = k->factory(c, &s);
  if (!s.ok()) return Status(s.code(), s.message() + " [[node " + c.def.name + "]]");
  return {};
}

std::string KernelRegistry::registered_kernels_string(const std::string& op) const {
  std::lock_guard<std::mutex> guard(mu_);
  std::string out = "Registered kernels:";
  auto [begin, end] = kernels_.equal_range(op);
  if (begin == end) return out + "\n  <no registered kernels>";
  for (auto it = begin; it != end; ++it) {
    out += "\n  device='" + it->second.device_type + "'";
    for (auto& [attr, allowed] : it->second.constraints) {
      out += "; " + attr + " in [";
      for (std::size_t i = 0; i < allowed.size(); ++i) {
        if (i) out += ", ";
        std::string name(data_type_string(allowed[i]));
        for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        out += "DT_" + name;
      }
      out += "]";
    }
  }
  return out;
}

}  // namespace af
