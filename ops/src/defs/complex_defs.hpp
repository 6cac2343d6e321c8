#pragma once

// What the definitions of the complex ops (complex_ops.cpp) and the FFTs (fft_ops.cpp) share:
// the part and complex dtypes, their pairing, a type attribute with its default and the
// builders' node maker. Private to the ops module.
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"

namespace af::detail::complex_defs {

/// The parts' dtypes (Complex's T, Real's Tout, RFFT's Treal).
inline const std::vector<DType> kPartTypes = {DType::float32, DType::float64};
/// The complex dtypes.
inline const std::vector<DType> kComplexTypes = {DType::complex64, DType::complex128};

/// The complex dtype of parts of dtype `t` (complex128 for float64, else complex64).
inline DType complex_of(DType t) {
  return t == DType::float64 ? DType::complex128 : DType::complex64;
}
/// The parts' dtype of complex dtype `t` (float64 for complex128, else float32).
inline DType part_of(DType t) { return t == DType::complex128 ? DType::float64 : DType::float32; }

/// The type attribute `attr` of the node, or `fallback` (its default) when it has none.
inline DType type_attr(const InferenceContext& c, const char* attr, DType fallback) {
  const DType* t = c.node.attr<DType>(attr);
  return t ? *t : fallback;
}

/// Output 0 of a new node `type` on `inputs` with `attrs`, named `name` or `default_name`.
inline Output make_op(const char* type, const std::vector<Output>& inputs, AttrMap attrs,
                      std::string_view name, std::string_view default_name) {
  Graph& g = inputs[0].graph();
  return g.create_op(type, inputs, std::move(attrs), name.empty() ? default_name : name).output(0);
}

}  // namespace af::detail::complex_defs
