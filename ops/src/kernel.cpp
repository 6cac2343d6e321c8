#include "actorflow/ops/kernel.hpp"

#include <algorithm>
#include <set>

#include "standard_ops.hpp"

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

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry;  // never destroyed: registrations outlive static destructors
    register_standard_kernels(*r);
    return r;
  }();
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

void register_standard_kernels(KernelRegistry& r) {
  detail::register_control_kernels(r);
  detail::register_state_kernels(r);
  detail::register_array_kernels(r);
  detail::register_math_kernels(r);
  detail::register_matmul_kernels(r);
  detail::register_reduction_kernels(r);
  detail::register_random_kernels(r);
  detail::register_parsing_kernels(r);
  detail::register_input_kernels(r);
  detail::register_nn_kernels(r);
  detail::register_cwise_kernels(r);
  detail::register_transform_kernels(r);
  detail::register_nn_grad_kernels(r);
  detail::register_training_kernels(r);
  detail::register_checkpoint_kernels(r);
  detail::register_segment_kernels(r);
  detail::register_accumulator_kernels(r);
  detail::register_compat_v2_kernels(r);
}

}  // namespace af
