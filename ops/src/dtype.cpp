#include "actorflow/ops/dtype.hpp"

namespace af {

namespace {

// Every dtype with its Python name, TensorFlow's DataTypeString and element size.
struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::string_view tf_name;
  std::size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::float32, "float32", "float", 4},
    {DType::float64, "float64", "double", 8},
    {DType::int32, "int32", "int32", 4},
    {DType::int64, "int64", "int64", 8},
    {DType::uint8, "uint8", "uint8", 1},
    {DType::boolean, "bool", "bool", 1},
    {DType::string, "string", "string", 0},
    {DType::bfloat16, "bfloat16", "bfloat16", 2},
    {DType::resource, "resource", "resource", 0},
    {DType::variant, "variant", "variant", 0},
    {DType::float16, "float16", "half", 2},
    {DType::int8, "int8", "int8", 1},
    {DType::int16, "int16", "int16", 2},
    {DType::uint16, "uint16", "uint16", 2},
    {DType::uint32, "uint32", "uint32", 4},
    {DType::uint64, "uint64", "uint64", 8},
    {DType::complex64, "complex64", "complex64", 8},
    {DType::complex128, "complex128", "complex128", 16},
};

const DTypeInfo* info(DType t) noexcept {
  for (const DTypeInfo& i : kDTypes)
    if (i.dtype == t) return &i;
  return nullptr;
}

}  // namespace

std::string_view dtype_name(DType t) noexcept {
  const DTypeInfo* i = info(t);
  return i ? i->name : "invalid";
}

std::string_view data_type_string(DType t) noexcept {
  const DTypeInfo* i = info(t);
  return i ? i->tf_name : "invalid";
}

DType dtype_from_string(std::string_view name) noexcept {
  for (const DTypeInfo& i : kDTypes)
    if (name == i.name || name == i.tf_name) return i.dtype;
  return DType::invalid;
}

std::size_t dtype_size(DType t) noexcept {
  const DTypeInfo* i = info(t);
  return i ? i->size : 0;
}

bool is_floating(DType t) noexcept {
  return t == DType::float32 || t == DType::float64 || t == DType::bfloat16 || t == DType::float16;
}

bool is_integer(DType t) noexcept {
  switch (t) {
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::int64:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64:
      return true;
    default:
      return false;
  }
}

bool is_complex(DType t) noexcept { return t == DType::complex64 || t == DType::complex128; }

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

}  // namespace af
