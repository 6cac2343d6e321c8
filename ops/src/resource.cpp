#include "actorflow/ops/resource.hpp"

namespace af {

Status Var::uninitialized() const {
  if (!is_resource()) return failed_precondition("Attempting to use uninitialized value " + name_);
  // resource_variable_ops.cc's ReadVariableOp when the lookup fails.
  return failed_precondition(
      "Could not find variable " + name_ +
      ". This could mean that the variable has been deleted. In TF1, it can also mean the "
      "variable is uninitialized. Debug info: container=" +
      resource_container_ + ", status error message=Resource " + resource_container_ + "/" + name_ +
      "/N10tensorflow3VarE does not exist.");
}

Status Var::read(Tensor* out) const {
  std::lock_guard<std::mutex> guard(mu_);
  if (!value_.is_initialized()) return uninitialized();
  *out = value_;
  return {};
}

void Var::assign(Tensor value) {
  std::lock_guard<std::mutex> guard(mu_);
  value_ = std::move(value);
}

Status Var::update(const std::function<Status(Tensor&)>& f) {
  std::lock_guard<std::mutex> guard(mu_);
  if (!value_.is_initialized()) {
    // TensorFlow's LookupResource fails: the resource exists only once assigned.
    if (is_resource())
      return not_found("Resource " + resource_container_ + "/" + name_ +
                       "/N10tensorflow3VarE does not exist.");
    return uninitialized();
  }
  return f(value_);
}

namespace {

Status update_from(const std::vector<Var*>& vars, std::size_t i, std::vector<Tensor*>& values,
                   const std::function<Status(std::vector<Tensor*>&)>& f) {
  if (i == vars.size()) return f(values);
  // A variable named twice (an op given the same variable as var and slot) is locked once.
  for (std::size_t j = 0; j < i; ++j)
    if (vars[j] == vars[i]) {
      values[i] = values[j];
      return update_from(vars, i + 1, values, f);
    }
  return vars[i]->update([&](Tensor& value) -> Status {
    values[i] = &value;
    return update_from(vars, i + 1, values, f);
  });
}

}  // namespace

Status update_together(const std::vector<Var*>& vars,
                       const std::function<Status(std::vector<Tensor*>&)>& f) {
  std::vector<Tensor*> values(vars.size(), nullptr);
  Status s = update_from(vars, 0, values, f);
  // training_op_helpers.h: a resource variable whose lookup fails is "Invalid variable
  // reference." to the ResourceApply* kernels.
  if (s.code() == Code::not_found)
    for (Var* v : vars)
      if (v->is_resource() && !v->is_initialized()) return internal("Invalid variable reference.");
  return s;
}

bool Var::is_initialized() const {
  std::lock_guard<std::mutex> guard(mu_);
  return value_.is_initialized();
}

std::string Var::debug_string() const {
  return "Variable " + name_ + " (" + std::string(dtype_name(dtype_)) + ")";
}

// Both destroy what they remove after releasing the lock: a resource's destructor may wait for
// threads that look resources up here (a prefetching iterator's workers).
std::size_t ResourceMgr::cleanup(const std::string& container) {
  std::vector<std::shared_ptr<ResourceBase>> removed;
  std::lock_guard<std::mutex> guard(mu_);
  for (auto it = resources_.begin(); it != resources_.end();) {
    if (it->first.first == container) {
      removed.push_back(std::move(it->second));
      it = resources_.erase(it);
    } else {
      ++it;
    }
  }
  return removed.size();
}

void ResourceMgr::clear() {
  decltype(resources_) removed;
  {
    std::lock_guard<std::mutex> guard(mu_);
    removed.swap(resources_);
  }
}

std::vector<std::tuple<std::string, std::string, std::string>> ResourceMgr::list() const {
  std::lock_guard<std::mutex> guard(mu_);
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (auto& [key, r] : resources_) out.emplace_back(key.first, key.second, r->debug_string());
  return out;
}

}  // namespace af
