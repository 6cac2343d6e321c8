#pragma once

// TensorFlow's OpDef type constraints: the dtypes each type attribute of an op allows
// (ops/src/defs/op_def_types.inc, generated from TensorFlow 2.21 by
// scripts/peers/make_op_def_types.py), for the op definitions' shape functions to accept and
// refuse node types as TensorFlow's OpDef validation does.
#include <string_view>
#include <vector>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/status.hpp"

namespace af::detail {

/// The dtypes TensorFlow's OpDef of `op` allows for type attribute `attr`, in the OpDef's
/// order; empty when the attribute takes any type or TensorFlow has no such op or attribute.
const std::vector<DType>& op_def_types(std::string_view op, std::string_view attr = "T");

/// OK when op_def_types(op, attr) is empty or holds `t`; else TensorFlow's "Value for attr
/// 'T' of int16 is not in the list of allowed values: float, double, ..." naming the OpDef's
/// whole list (quantized types included).
Status check_op_def_type(DType t, std::string_view op, const char* attr = "T");

}  // namespace af::detail
