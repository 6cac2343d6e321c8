#include "actorflow/ops/resource.hpp"

namespace af {

Status Var::read(Tensor* out) const {
  std::lock_guard<std::mutex> guard(mu_);
  if (!value_.is_initialized())
    return failed_precondition("Attempting to use uninitialized value " + name_);
  *out = value_;
  return {};
}

void Var::assign(Tensor value) {
  std::lock_guard<std::mutex> guard(mu_);
  value_ = std::move(value);
}

Status Var::update(const std::function<Status(Tensor&)>& f) {
  std::lock_guard<std::mutex> guard(mu_);
  if (!value_.is_initialized())
    return failed_precondition("Attempting to use uninitialized value " + name_);
  return f(value_);
}

bool Var::is_initialized() const {
  std::lock_guard<std::mutex> guard(mu_);
  return value_.is_initialized();
}

std::string Var::debug_string() const {
  return "Variable " + name_ + " (" + std::string(dtype_name(dtype_)) + ")";
}

std::size_t ResourceMgr::cleanup(const std::string& container) {
  std::lock_guard<std::mutex> guard(mu_);
  std::size_t n = 0;
  for (auto it = resources_.begin(); it != resources_.end();) {
    if (it->first.first == container) {
      it = resources_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

void ResourceMgr::clear() {
  std::lock_guard<std::mutex> guard(mu_);
  resources_.clear();
}

std::vector<std::tuple<std::string, std::string, std::string>> ResourceMgr::list() const {
  std::lock_guard<std::mutex> guard(mu_);
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (auto& [key, r] : resources_) out.emplace_back(key.first, key.second, r->debug_string());
  return out;
}

}  // namespace af
