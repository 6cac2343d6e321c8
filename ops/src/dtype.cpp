#include "actorflow/ops/dtype.hpp"

namespace af {

std::string_view dtype_name(DType t) noexcept {
  switch (t) {
    case DType::float32:
      return "float32";
    case DType::float64:
      return "float64";
    case DType::int32:
      return "int32";
    case DType::int64:
      return "int64";
    case DType::uint8:
      return "uint8";
    case DType::boolean:
      return "bool";
    case DType::string:
      return "string";
    case DType::bfloat16:
      return "bfloat16";
    case DType::resource:
      return "resource";
    case DType::variant:
      return "variant";
    case DType::invalid:
      break;
  }
  return "invalid";
}

std::string_view data_type_string(DType t) noexcept {
  switch (t) {
    case DType::float32:
      return "float";
    case DType::float64:
      return "double";
    default:
      return dtype_name(t);
  }
}

DType dtype_from_string(std::string_view name) noexcept {
  for (auto t : {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8,
                 DType::boolean, DType::string, DType::bfloat16, DType::resource, DType::variant}) {
    if (name == dtype_name(t) || name == data_type_string(t)) return t;
  }
  return DType::invalid;
}

std::size_t dtype_size(DType t) noexcept {
  switch (t) {
    case DType::float32:
      return 4;
    case DType::float64:
      return 8;
    case DType::int32:
      return 4;
    case DType::int64:
      return 8;
    case DType::uint8:
      return 1;
    case DType::boolean:
      return 1;
    case DType::bfloat16:
      return 2;
    default:
      return 0;
  }
}

bool is_floating(DType t) noexcept {
  return t == DType::float32 || t == DType::float64 || t == DType::bfloat16;
}

bool is_integer(DType t) noexcept {
  return t == DType::int32 || t == DType::int64 || t == DType::uint8;
}

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

}  // namespace af
