#pragma once

// Small pieces the ops' shape functions and the CPU kernels (kernels module) share:
// TensorFlow's error renderings, index values, attr and rank checks.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// Element counts, dimensions and index values, widened.
using Index = std::int64_t;

/// The suffix TensorFlow appends to a kernel's error: "\n\t [[{{node NAME}}]]".
inline std::string node_suffix(const std::string& node) { return "\n\t [[{{node " + node + "}}]]"; }

/// TensorFlow's rendering of shapes in shape-function errors: "[2,?]", "?" for unknown rank.
inline std::string inference_shape_string(const PartialShape& s) {
  if (!s.rank_known()) return "?";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ",";
    out += s.dim(i) < 0 ? std::string("?") : std::to_string(s.dim(i));
  }
  return out + "]";
}

/// The values of an integer tensor (8 to 64 bits, signed or not), widened to int64 (uint64
/// values above its range wrap); zeros for other dtypes.
inline std::vector<std::int64_t> index_values(const Tensor& t) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(t.num_elements()));
  switch (t.dtype()) {
    case DType::int64:
      std::copy_n(t.data<std::int64_t>(), out.size(), out.begin());
      break;
    case DType::int32:
      std::copy_n(t.data<std::int32_t>(), out.size(), out.begin());
      break;
    case DType::uint8:
      std::copy_n(t.data<std::uint8_t>(), out.size(), out.begin());
      break;
    case DType::int8:
      std::copy_n(t.data<std::int8_t>(), out.size(), out.begin());
      break;
    case DType::int16:
      std::copy_n(t.data<std::int16_t>(), out.size(), out.begin());
      break;
    case DType::uint16:
      std::copy_n(t.data<std::uint16_t>(), out.size(), out.begin());
      break;
    case DType::uint32:
      std::copy_n(t.data<std::uint32_t>(), out.size(), out.begin());
      break;
    case DType::uint64:
      std::copy_n(t.data<std::uint64_t>(), out.size(), out.begin());
      break;
    default:
      break;
  }
  return out;
}

/// TensorFlow's NodeDef validation message for a type attribute outside its allowed list.
inline Status check_attr_type(DType t, const char* attr, const std::vector<DType>& allowed,
                              const char* allowed_names) {
  if (std::find(allowed.begin(), allowed.end(), t) != allowed.end()) return {};
  return invalid_argument("Value for attr '" + std::string(attr) + "' of " +
                          std::string(data_type_string(t)) +
                          " is not in the list of allowed values: " + allowed_names);
}

/// "float, double, bfloat16": the names of `allowed` as TensorFlow lists allowed types.
inline std::string allowed_types_string(const std::vector<DType>& allowed) {
  std::string out;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    if (i) out += ", ";
    out += data_type_string(allowed[i]);
  }
  return out;
}

/// check_attr_type with the allowed values named by allowed_types_string(allowed): "Value for
/// attr 'T' of int32 is not in the list of allowed values: float, double".
inline Status check_attr_type(DType t, const char* attr, const std::vector<DType>& allowed) {
  return check_attr_type(t, attr, allowed, allowed_types_string(allowed).c_str());
}

/// Every type a tensor of values may have (resources excluded): the types TensorFlow
/// registers its type-generic CPU kernels for.
inline const std::vector<DType> kValueTypes = {
    DType::float32, DType::float64, DType::int32,     DType::int64,
    DType::uint8,   DType::boolean, DType::string,    DType::bfloat16,
    DType::float16, DType::int8,    DType::int16,     DType::uint16,
    DType::uint32,  DType::uint64,  DType::complex64, DType::complex128};
/// The types of index and shape inputs (attrs Index, Tidx, Tshape, ...).
inline const std::vector<DType> kIndexTypes = {DType::int32, DType::int64};

/// check_attr_type for an index attr (Tidx, Tshape, ...): int32 or int64.
inline Status check_index_type(DType t, const char* attr) {
  return check_attr_type(t, attr, kIndexTypes, "int32, int64");
}

/// TensorFlow's op_def_library message for the list input `input` of op `op` given tensors of
/// mixed `types`: "Tensors in list passed to 'values' of 'Pack' Op have types [int32,
/// float32] that don't all match.".
inline std::string list_type_mismatch_message(const std::string& op, const char* input,
                                              const std::vector<DType>& types) {
  std::string out =
      "Tensors in list passed to '" + std::string(input) + "' of '" + op + "' Op have types [";
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (i) out += ", ";
    out += dtype_name(types[i]);
  }
  return out + "] that don't all match.";
}

/// InferenceContext::WithRank: InvalidArgument "Shape must be rank R but is rank K".
inline Status with_rank(const PartialShape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    return invalid_argument("Shape must be rank " + std::to_string(rank) + " but is rank " +
                            std::to_string(s.rank()));
  return {};
}

/// InferenceContext::WithRankAtLeast: InvalidArgument "Shape must be at least rank R but is
/// rank K".
inline Status with_rank_at_least(const PartialShape& s, Index rank) {
  if (s.rank_known() && s.rank() < rank)
    return invalid_argument("Shape must be at least rank " + std::to_string(rank) +
                            " but is rank " + std::to_string(s.rank()));
  return {};
}

/// InferenceContext::WithRankAtMost: InvalidArgument "Shape must be at most rank R but is
/// rank K".
inline Status with_rank_at_most(const PartialShape& s, int rank) {
  if (s.rank_known() && s.rank() > rank)
    return invalid_argument("Shape must be at most rank " + std::to_string(rank) + " but is rank " +
                            std::to_string(s.rank()));
  return {};
}

/// Dimension `i` of `s` (-1 unknown), or -1 when the rank is unknown.
inline Index dim_of(const PartialShape& s, int i) { return s.rank_known() ? s.dim(i) : -1; }

/// InferenceContext::WithValue on a dimension (-1 unknown passes): InvalidArgument
/// "Dimension must be 4 but is 3".
inline Status with_value(Index dim, Index value) {
  if (dim >= 0 && dim != value)
    return invalid_argument("Dimension must be " + std::to_string(value) + " but is " +
                            std::to_string(dim));
  return {};
}

/// InferenceContext::Merge of two dimensions (-1 unknown) into `*out`: InvalidArgument
/// "Dimensions must be equal, but are 3 and 2".
inline Status merge_dims(Index a, Index b, Index* out) {
  if (a >= 0 && b >= 0 && a != b)
    return invalid_argument("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                            std::to_string(b));
  *out = a >= 0 ? a : b;
  return {};
}

/// The shape `[n]` (-1 unknown).
inline PartialShape vector_of(Index n) { return PartialShape(std::vector<std::int64_t>{n}); }

/// InferenceContext::MakeShapeFromShapeTensor: the value of 1-D input `i` as a shape (-1 an
/// unknown dimension), else a shape of the input's length, else unknown.
inline Status shape_from_shape_tensor(const InferenceContext& c, int i, PartialShape* out) {
  const PartialShape& s = c.input_shapes[static_cast<std::size_t>(i)];
  if (Status r = with_rank(s, 1); !r.ok()) return r;
  if (const Tensor* value = c.input_values[static_cast<std::size_t>(i)]) {
    std::vector<std::int64_t> dims = index_values(*value);
    for (auto d : dims)
      if (d < -1)
        return invalid_argument("Invalid value in tensor used for shape: " + std::to_string(d));
    *out = PartialShape(std::move(dims));
  } else if (s.rank_known() && s.dim(0) >= 0) {
    *out = PartialShape::unknown_of_rank(static_cast<int>(s.dim(0)));
  } else {
    *out = PartialShape::unknown();
  }
  return {};
}

/// TensorFlow's UnchangedShape for an op of one input: output 0 has input 0's type and shape.
inline Status infer_unchanged(InferenceContext& c) {
  if (Status s = c.expect_inputs(1); !s.ok()) return s;
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

}  // namespace af::detail
