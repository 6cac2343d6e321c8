#pragma once

// TensorFlow's TensorProto encodings, as the serialize_io kernels (serialize_io_ops.cpp,
// sparse_serialize_ops.cpp) need them bit for bit: Tensor::AsProtoTensorContent (raw
// little-endian bytes, strings as port::EncodeStringList), Tensor::AsProtoField for strings,
// and Tensor::FromProto (tensorflow/core/framework/tensor.cc). Private to the kernels module;
// the code lives in serialize_io_ops.cpp.
#include <string>

#include "actorflow/ops/tensor.hpp"
#include "actorflow/tf/tensor.pb.h"

namespace af::detail {

/// Tensor::AsProtoTensorContent then SerializeAsString: dtype, shape and, for a tensor with
/// elements, `tensor_content` (numbers and bools as their bytes; strings as the varint32
/// lengths of all elements followed by all their bytes). `t` is of a value type.
std::string tensor_content_bytes(const Tensor& t);

/// Tensor::AsProtoField then SerializeAsString for a string tensor: one `string_val` per
/// element (SerializeTensor's form for strings).
std::string string_field_bytes(const Tensor& t);

/// How Tensor::FromProto went.
enum class FromProto {
  ok,           ///< `*out` holds the tensor
  invalid,      ///< TensorFlow's FromProto fails (bad shape, DT_INVALID, wrong content size)
  unsupported,  ///< a valid TensorFlow tensor of a dtype actorflow has no tensors of
};

/// Tensor::FromProto of `proto`: a non-empty `tensor_content` holds the raw bytes (which must
/// be exactly the elements' size; strings as port::DecodeStringList), else the typed field,
/// whose last value repeats when it holds too few (none: zeros) and whose extra values are
/// ignored. The shape must be valid for TensorShape: at most 254 dimensions, none negative, no
/// overflow (an unknown_rank flag is ignored). For `unsupported`, `*tf_dtype` is TensorFlow's
/// name of the dtype ("half", "int16", "complex64", ...) and `*out` is left alone.
FromProto tensor_from_proto(const tensorflow::TensorProto& proto, Tensor* out,
                            std::string* tf_dtype);

/// TensorFlow's DataTypeString of a DataType enum value ("float", "half", "variant");
/// "unknown dtype N" outside the enum.
std::string tf_data_type_string(int dtype);

}  // namespace af::detail
