// Conversions between actorflow's types and the generated code of TensorFlow's messages
// (formats/proto): dtypes, shapes, tensors, attribute values and nodes. Private to the
// formats module. Errors name `where` (a node and attribute, a file) and what is wrong.
#pragma once

#include <string>
#include <string_view>

#include "actorflow/ops/attr_value.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/status_or.hpp"
#include "actorflow/tf/attr_value.pb.h"
#include "actorflow/tf/function.pb.h"
#include "actorflow/tf/graph.pb.h"
#include "actorflow/tf/node_def.pb.h"
#include "actorflow/tf/tensor.pb.h"
#include "actorflow/tf/tensor_shape.pb.h"
#include "actorflow/tf/types.pb.h"

namespace af::tfproto {

/// TensorFlow's DataType of `t` (DT_FLOAT for float32; DT_RESOURCE for resource).
tensorflow::DataType to_proto(DType t);
/// actorflow's dtype of `t`; InvalidArgument "<where>: DT_HALF is not supported by
/// actorflow" for a type it has no kernels for (and for reference types).
StatusOr<DType> from_proto(tensorflow::DataType t, std::string_view where);

/// A TensorShapeProto (unknown_rank, or a dim per dimension with -1 unknown).
void to_proto(const PartialShape& s, tensorflow::TensorShapeProto* out);
/// Refuses sizes below -1.
StatusOr<PartialShape> from_proto(const tensorflow::TensorShapeProto& s, std::string_view where);

/// As Python's `make_tensor_proto`: numeric tensors of more than one element in
/// `tensor_content`, scalars and tensors whose elements are all the same (a splat) as one
/// value of their typed field, bool and string tensors always in the typed fields. A
/// resource tensor is InvalidArgument.
Status to_proto(const Tensor& t, tensorflow::TensorProto* out, std::string_view where);
/// As TensorFlow's `Tensor::FromProto`: a non-empty `tensor_content` holds the raw bytes
/// (its size must match the shape), otherwise the typed field, whose last value repeats when
/// it holds too few (none: zeros); more values than elements is an error.
StatusOr<Tensor> from_proto(const tensorflow::TensorProto& p, std::string_view where);

/// An attribute value. A function (`func`) becomes a FunctionAttr carrying, from `library`
/// (when given), the function and every function it reaches (`function_closure`).
/// Placeholders and lists of tensors, bools or functions have no actorflow form:
/// InvalidArgument naming `where`. An empty list takes the list kind that `attr_name` has
/// in TensorFlow's ops (types for "dtypes", "Tin"...; shapes for "_output_shapes"...;
/// strings for "_class"; ints otherwise).
StatusOr<AttrValue> from_proto(const tensorflow::AttrValue& v, const std::string& attr_name,
                               std::string_view where,
                               const tensorflow::FunctionDefLibrary* library = nullptr);
Status to_proto(const AttrValue& v, tensorflow::AttrValue* out, std::string_view where);

/// The functions of `library` that `root` reaches: itself, the functions its nodes call by
/// op name and those their function attributes name, transitively (names not in the
/// library are left out). Empty when `root` is not in the library.
tensorflow::FunctionDefLibrary function_closure(const tensorflow::FunctionDefLibrary& library,
                                                const std::string& root);

/// A node, attributes included; function attributes carry their closure of `library`.
StatusOr<NodeDef> from_proto(const tensorflow::NodeDef& n,
                             const tensorflow::FunctionDefLibrary* library = nullptr);
Status to_proto(const NodeDef& n, tensorflow::NodeDef* out);

/// A whole GraphDef: nodes and `versions.producer` (into `GraphDef::version`), the function
/// library kept as bytes (and the functions a node names carried by its FunctionAttr; on
/// the way out they join the library). Functional control flow (While, If, calls of the library's
/// functions) is lowered into Enter/Switch/Merge/... first (`lower_functional_ops`), so the
/// nodes are those actorflow runs.
StatusOr<GraphDef> from_proto(const tensorflow::GraphDef& g);
Status to_proto(const GraphDef& g, tensorflow::GraphDef* out);

}  // namespace af::tfproto
