// TensorList and OptionalValue (the variant values), and TensorFlow's ZerosLikeTensor and
// BinaryAddTensors, which their ZerosLike and AddN go through.
#include "variant_values.hpp"

#include <type_traits>

#include "actorflow/ops/detail/shape_util.hpp"

namespace af::detail {

Tensor zeros_like_tensor(const Tensor& t) {
  if (!t.is_initialized()) return Tensor();
  if (t.dtype() == DType::resource)
    throw InvalidArgumentError(invalid_argument("ZerosLike of a resource tensor"));
  Tensor out(t.dtype(), t.shape());  // zero-filled; empty strings, empty variants
  if (t.dtype() == DType::variant) {
    auto in = t.flat<Variant>();
    auto o = out.flat<Variant>();
    for (std::size_t i = 0; i < in.size(); ++i)
      if (!in[i].empty()) o[i] = Variant(in[i].value()->zeros_like());
  }
  return out;
}

Tensor add_tensors(const Tensor& a, const Tensor& b) {
  if (!a.is_initialized()) return b;
  if (!b.is_initialized()) return a;
  if (a.dtype() != b.dtype())
    throw InvalidArgumentError(
        invalid_argument("Trying to add two tensors with incompatible element types. One is " +
                         std::string(data_type_string(a.dtype())) + " and the other is " +
                         std::string(data_type_string(b.dtype()))));
  if (a.shape() != b.shape())
    throw InvalidArgumentError(
        invalid_argument("Trying to add two tensors with incompatible element shapes. One is " +
                         a.shape().to_string() + " and the other is " + b.shape().to_string()));
  Tensor out(a.dtype(), a.shape(), Tensor::for_overwrite);
  if (a.dtype() == DType::variant) {
    auto x = a.flat<Variant>(), y = b.flat<Variant>();
    auto o = out.flat<Variant>();
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].empty() || y[i].empty()) {
        o[i] = x[i].empty() ? y[i] : x[i];
      } else if (x[i].value()->type_name() != y[i].value()->type_name()) {
        throw InvalidArgumentError(invalid_argument("Trying to add variants of different types: " +
                                                    x[i].type_name() + " and " + y[i].type_name()));
      } else {
        o[i] = Variant(x[i].value()->add(*y[i].value()));
      }
    }
    return out;
  }
  const bool added = a.dtype() != DType::boolean && visit_numeric_dtype(a.dtype(), [&](auto tag) {
                       using T = decltype(tag);
                       auto x = a.flat<T>(), y = b.flat<T>();
                       auto o = out.flat<T>();
                       for (std::size_t i = 0; i < x.size(); ++i) {
                         if constexpr (is_half_like_v<T>)
                           o[i] = T(static_cast<float>(x[i]) + static_cast<float>(y[i]));
                         else
                           o[i] = static_cast<T>(x[i] + y[i]);
                       }
                     });
  if (!added)
    throw InvalidArgumentError(invalid_argument("Trying to add two tensors of dtype " +
                                                std::string(data_type_string(a.dtype())) +
                                                ", which has no addition"));
  return out;
}

// -- TensorList -------------------------------------------------------------------------------

std::shared_ptr<const VariantValue> TensorList::zeros_like() const {
  auto out = std::make_shared<TensorList>(*this);
  out->max_num_elements = -1;  // as TensorFlow's TensorListZerosLike
  for (auto& t : out->tensors) t = zeros_like_tensor(t);
  return out;
}

std::shared_ptr<const VariantValue> TensorList::add(const VariantValue& other_value) const {
  const auto& other = dynamic_cast<const TensorList&>(other_value);
  if (element_dtype != other.element_dtype)
    throw InvalidArgumentError(
        invalid_argument("Trying to add two lists of tensors of different dtypes. One is " +
                         std::string(data_type_string(element_dtype)) + " and the other is " +
                         std::string(data_type_string(other.element_dtype))));
  auto out = std::make_shared<TensorList>();
  out->element_dtype = element_dtype;
  if (Status s = element_shape.merge_with(other.element_shape, &out->element_shape); !s.ok())
    throw InvalidArgumentError(invalid_argument(
        "Trying to add two lists of tensors with incompatible element shapes. One is " +
        shape_debug_string(element_shape) + " and the other is " +
        shape_debug_string(other.element_shape)));
  if (tensors.size() != other.tensors.size())
    throw InvalidArgumentError(
        invalid_argument("Trying to add two lists of tensors with different lengths. One is " +
                         std::to_string(tensors.size()) + " and the other is " +
                         std::to_string(other.tensors.size())));
  out->tensors.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i)
    out->tensors.push_back(add_tensors(tensors[i], other.tensors[i]));
  return out;
}

// -- OptionalValue ----------------------------------------------------------------------------

std::string OptionalValue::debug_string() const {
  return has_value ? "OptionalVariant<Value>" : "OptionalVariant<None>";
}

std::shared_ptr<const VariantValue> OptionalValue::zeros_like() const {
  auto out = std::make_shared<OptionalValue>();
  out->has_value = has_value;
  for (const auto& t : components) out->components.push_back(zeros_like_tensor(t));
  return out;
}

std::shared_ptr<const VariantValue> OptionalValue::add(const VariantValue& other_value) const {
  const auto& other = dynamic_cast<const OptionalValue&>(other_value);
  if (has_value != other.has_value)
    throw InvalidArgumentError(
        invalid_argument("Cannot add optionals because one has a value and the other doesn't."));
  auto out = std::make_shared<OptionalValue>();
  out->has_value = has_value;
  if (components.size() != other.components.size())
    throw InvalidArgumentError(invalid_argument(
        "Cannot add optionals because they have different numbers of components (" +
        std::to_string(components.size()) + " vs " + std::to_string(other.components.size()) +
        ")."));
  for (std::size_t i = 0; i < components.size(); ++i)
    out->components.push_back(add_tensors(components[i], other.components[i]));
  return out;
}

// -- kernel helpers ---------------------------------------------------------------------------

Status input_list(const OpKernelContext& ctx, int index, const TensorList** list) {
  const Tensor& t = ctx.input(index);
  if (t.dtype() != DType::variant || t.rank() != 0)
    return invalid_argument("Input list must be a scalar saw: " + t.shape().to_string());
  *list = t.data<Variant>()[0].get<TensorList>();
  if (*list == nullptr)
    return invalid_argument("Input handle is not a list. Saw: '" +
                            t.data<Variant>()[0].debug_string() + "'");
  return {};
}

Status partial_shape_from_tensor(const Tensor& t, PartialShape* out) {
  if (t.dtype() != DType::int32 && t.dtype() != DType::int64)
    return invalid_argument("Expected an int32 or int64 shape tensor; found " +
                            std::string(data_type_string(t.dtype())));
  auto dim = [&](std::int64_t i) {
    return t.dtype() == DType::int32 ? std::int64_t{t.data<std::int32_t>()[i]}
                                     : t.data<std::int64_t>()[i];
  };
  if (t.rank() == 0) {
    if (dim(0) != -1)
      return invalid_argument(
          "The only valid scalar shape tensor is the fully unknown shape specified as -1.");
    *out = PartialShape::unknown();
    return {};
  }
  if (t.rank() != 1)
    return invalid_argument("Shape tensor must be a scalar or a vector, got shape " +
                            t.shape().to_string());
  std::vector<std::int64_t> dims;
  for (std::int64_t i = 0; i < t.num_elements(); ++i) {
    if (dim(i) < -1)
      return invalid_argument("Dimension " + std::to_string(dim(i)) + " must be >= -1");
    dims.push_back(dim(i));
  }
  *out = PartialShape(std::move(dims));
  return {};
}

std::string shape_debug_string(const PartialShape& s) {
  return s.rank_known() ? inference_shape_string(s) : std::string("<unknown>");
}

bool shape_fits(const PartialShape& partial, const Shape& shape) {
  return partial.is_compatible_with(PartialShape(shape));
}

std::shared_ptr<const VariantValue> TensorValue::zeros_like() const {
  throw InvalidArgumentError(invalid_argument("a serialized SparseTensor has no zeros"));
}

std::shared_ptr<const VariantValue> TensorValue::add(const VariantValue&) const {
  throw InvalidArgumentError(invalid_argument("serialized SparseTensors cannot be added"));
}

}  // namespace af::detail
