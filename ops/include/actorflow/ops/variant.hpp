#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af {

/// What an element of a variant tensor holds (TensorFlow's `Variant` payloads: a tensor
/// list, an optional). A value is immutable once it is in a tensor: kernels that "change" a
/// list build a new value, so every tensor that shares the old one still sees it.
class VariantValue {
 public:
  virtual ~VariantValue() = default;

  /// TensorFlow's type name of the payload (`"tensorflow::TensorList"`), as its errors say.
  virtual std::string_view type_name() const = 0;

  /// A short rendering for printing tensors and error messages.
  virtual std::string debug_string() const = 0;

  /// TensorFlow's `ZerosLike` of the value (its registered ZEROS_LIKE variant op): the same
  /// structure holding zeros. Throws InvalidArgumentError when the value has none.
  virtual std::shared_ptr<const VariantValue> zeros_like() const = 0;

  /// TensorFlow's ADD_VARIANT_BINARY_OP (what `AddN` does with variant inputs): the
  /// element-wise sum with `other`, a value of the same `type_name()`. Throws
  /// InvalidArgumentError when the two do not match.
  virtual std::shared_ptr<const VariantValue> add(const VariantValue& other) const = 0;
};

/// One element of a variant tensor (TensorFlow's `Variant`): a shared, immutable
/// VariantValue, or nothing (a default-constructed element, as in a fresh variant tensor).
class Variant {
 public:
  /// An empty element.
  Variant() = default;
  /// An element holding `value`.
  explicit Variant(std::shared_ptr<const VariantValue> value) noexcept  // null: empty
      : value_(std::move(value)) {}

  /// True when the element holds no value.
  bool empty() const noexcept { return value_ == nullptr; }
  /// The value, or null.
  const std::shared_ptr<const VariantValue>& value() const noexcept { return value_; }
  /// The value as `T`, or null when empty or of another type.
  template <class T>
  const T* get() const noexcept {
    return dynamic_cast<const T*>(value_.get());
  }
  /// The value's type name, or `"empty"`.
  std::string type_name() const;
  /// The value's rendering, or `"[empty variant]"`.
  std::string debug_string() const;

  /// True when both hold the same value object (or are both empty): variant values have no
  /// element-wise equality.
  friend bool operator==(const Variant& a, const Variant& b) noexcept {
    return a.value_ == b.value_;
  }

 private:
  std::shared_ptr<const VariantValue> value_;
};

/// Variant elements map to `DType::variant`.
template <>
struct dtype_of<Variant> {
  static constexpr DType value = DType::variant;
};

/// A scalar variant tensor holding `value`.
Tensor variant_scalar(std::shared_ptr<const VariantValue> value);

/// The value of the scalar variant tensor `t` as `T`; null unless `t` is a one-element
/// variant tensor holding a `T`.
template <class T>
const T* variant_value(const Tensor& t) {
  if (t.dtype() != DType::variant || t.num_elements() != 1) return nullptr;
  return t.data<Variant>()[0].template get<T>();
}

}  // namespace af
