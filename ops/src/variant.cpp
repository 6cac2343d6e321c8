#include "actorflow/ops/variant.hpp"

namespace af {

std::string Variant::type_name() const {
  return value_ ? std::string(value_->type_name()) : std::string("empty");
}

std::string Variant::debug_string() const {
  return value_ ? value_->debug_string() : std::string("[empty variant]");
}

Tensor variant_scalar(std::shared_ptr<const VariantValue> value) {
  Tensor t(DType::variant, Shape{});
  t.data<Variant>()[0] = Variant(std::move(value));
  return t;
}

}  // namespace af
