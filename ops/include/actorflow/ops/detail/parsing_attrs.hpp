#pragma once

// What DecodeCSV's definition (ops/src/defs/parsing_ops.cpp) and its CPU kernel
// (kernels/src/parsing_ops.cpp, CsvDecoder) share: reading its optional attributes.
#include <string>

#include "actorflow/ops/attr_value.hpp"

namespace af::detail {

/// Optional attributes of DecodeCSV; absent ones (a NodeDef written by hand or imported
/// without defaults) take the op's default: attr `name` of `def` if it holds a `T`, else
/// `fallback`.
template <class T>
T attr_or(const NodeDef& def, const std::string& name, T fallback) {
  const T* value = def.attr<T>(name);
  return value != nullptr ? *value : fallback;
}

}  // namespace af::detail
