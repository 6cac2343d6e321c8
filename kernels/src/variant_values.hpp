#pragma once

// The values variant tensors hold (TensorFlow's TensorList and data::OptionalVariant) and the
// element-wise helpers their ZerosLike and AddN share; private to the kernels module. The
// list kernels are in list_ops.cpp, the optional ones in variant_ops.cpp.
#include <memory>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/variant.hpp"

namespace af::detail {

/// TensorFlow's TensorList: the tensors of a list (an uninitialized tensor where Reserve,
/// Resize or a scatter left a hole), the shape every element must be compatible with, the
/// element dtype and the most elements a push may make (-1: unbounded).
class TensorList final : public VariantValue {
 public:
  std::vector<Tensor> tensors;           ///< the elements
  PartialShape element_shape;            ///< what every element's shape is compatible with
  DType element_dtype = DType::invalid;  ///< the elements' dtype
  int max_num_elements = -1;             ///< the capacity TensorListPushBack respects; -1 none

  /// `"tensorflow::TensorList"`.
  std::string_view type_name() const override { return "tensorflow::TensorList"; }
  /// `"TensorList"`, as TensorFlow prints one.
  std::string debug_string() const override { return "TensorList"; }
  /// The same list with each initialized element replaced by zeros of its shape.
  std::shared_ptr<const VariantValue> zeros_like() const override;
  /// The element-wise sum with another list of the same dtype, length and compatible
  /// element shape (holes take the other list's element).
  std::shared_ptr<const VariantValue> add(const VariantValue& other) const override;
};

/// TensorFlow's data::OptionalVariant: no value, or a tuple of tensors.
class OptionalValue final : public VariantValue {
 public:
  bool has_value = false;          ///< whether the optional holds components
  std::vector<Tensor> components;  ///< the value (empty without one)

  /// `"tensorflow::data::Optional"`.
  std::string_view type_name() const override { return "tensorflow::data::Optional"; }
  /// `"OptionalVariant<None>"` or `"OptionalVariant<Value>"`.
  std::string debug_string() const override;
  /// An optional without a value, or one of zeros shaped like the components.
  std::shared_ptr<const VariantValue> zeros_like() const override;
  /// The component-wise sum with another optional; both or neither must hold a value.
  std::shared_ptr<const VariantValue> add(const VariantValue& other) const override;
};

/// A tensor in a variant (TensorFlow's `Variant` holding a `Tensor`): the three parts of a
/// SparseTensor serialized with out_type variant, as tf.data carries them.
class TensorValue final : public VariantValue {
 public:
  explicit TensorValue(Tensor t) : tensor(std::move(t)) {}
  Tensor tensor;  ///< the value

  /// `"tensorflow::Tensor"`.
  std::string_view type_name() const override { return "tensorflow::Tensor"; }
  /// `"Tensor<[shape]>"`.
  std::string debug_string() const override { return "Tensor<" + tensor.shape().to_string() + ">"; }
  /// Throws InvalidArgumentError: a serialized SparseTensor has no zeros.
  std::shared_ptr<const VariantValue> zeros_like() const override;
  /// Throws InvalidArgumentError: serialized SparseTensors do not add.
  std::shared_ptr<const VariantValue> add(const VariantValue& other) const override;
};

/// TensorFlow's ZerosLikeTensor: zeros of `t`'s dtype and shape (variant elements through
/// their value's `zeros_like`); an uninitialized tensor stays uninitialized. Throws
/// InvalidArgumentError for a dtype without zeros (resource).
Tensor zeros_like_tensor(const Tensor& t);

/// TensorFlow's BinaryAddTensors: `a + b` for tensors of one dtype and shape (variants
/// through their values' `add`); an uninitialized operand yields the other. Throws
/// InvalidArgumentError on a dtype or shape mismatch or a dtype without addition.
Tensor add_tensors(const Tensor& a, const Tensor& b);

/// The list in input `index` of `ctx` (TensorFlow's GetInputList): InvalidArgument unless
/// it is a scalar variant holding a TensorList.
Status input_list(const OpKernelContext& ctx, int index, const TensorList** list);

/// TensorFlow's TensorShapeFromTensor: an int32 or int64 vector of dimensions (-1 for an
/// unknown one), or the scalar -1 for an unknown rank.
Status partial_shape_from_tensor(const Tensor& t, PartialShape* out);

/// TensorFlow's PartialTensorShape::DebugString, as its list and optional kernels print
/// shapes: `"[2,?]"`, `"<unknown>"`.
std::string shape_debug_string(const PartialShape& s);

/// True when the fully known `shape` fits `partial` (TensorFlow's IsCompatibleWith).
bool shape_fits(const PartialShape& partial, const Shape& shape);

}  // namespace af::detail
