// StridedSlice and StridedSliceGrad, and the slice assignments StridedSliceAssign (a reference
// variable), ResourceStridedSliceAssign (a resource variable) and TensorStridedSliceUpdate (a
// copy of a tensor): ops, shape functions and the graph-building functions strided_slice,
// strided_slice_grad, strided_slice_assign, resource_strided_slice_assign and
// tensor_strided_slice_update. Registered from transform_ops.cpp; their CPU kernels are in
// kernels/src/strided_slice_ops.cpp.
//
// The StridedSlice shape function and both kernels share one validation, TensorFlow 1.x's
// ValidateStridedSliceOp (actorflow/ops/detail/strided_slice_shapes.hpp). The shape functions
// follow tensorflow/core/ops/array_ops.cc; messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/strided_slice_shapes.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "builder_util.hpp"
#include "standard_ops.hpp"

namespace af {

StridedSliceMasks strided_slice_masks(const NodeDef& def) {
  StridedSliceMasks masks;
  auto read = [&](const char* attr, std::int64_t* out) {
    if (const auto* v = def.attr<std::int64_t>(attr)) *out = *v;
  };
  read("begin_mask", &masks.begin_mask);
  read("end_mask", &masks.end_mask);
  read("ellipsis_mask", &masks.ellipsis_mask);
  read("new_axis_mask", &masks.new_axis_mask);
  read("shrink_axis_mask", &masks.shrink_axis_mask);
  return masks;
}

namespace {

using detail::index_tensor;

using Index = std::int64_t;

using detail::check_attr_type;
using detail::DenseSlice;
using detail::inference_shape_string;
using detail::kIndexTypes;
using detail::shape_from_shape_tensor;
using detail::validate_strided_slice;
using detail::with_rank;

// -- StridedSlice --------------------------------------------------------------------------

// "Dimension 0 in both shapes must be equal" of InferenceContext::Merge on two vectors.
Status merge_lengths(const PartialShape& a, const PartialShape& b, Index* merged) {
  const Index la = a.rank_known() ? a.dim(0) : -1;
  const Index lb = b.rank_known() ? b.dim(0) : -1;
  if (la >= 0 && lb >= 0 && la != lb)
    return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                            std::to_string(la) + " and " + std::to_string(lb) + ". Shapes are " +
                            inference_shape_string(a) + " and " + inference_shape_string(b) + ".");
  *merged = la >= 0 ? la : lb;
  return {};
}

// op_def_library's check that the inputs named `input_names`, input `first` and those after
// it, share one type (attr Index).
Status same_index_types(const InferenceContext& c, const std::vector<const char*>& input_names,
                        int first) {
  for (std::size_t i = 1; i < input_names.size(); ++i) {
    const DType expected = c.input_types[static_cast<std::size_t>(first)];
    const DType got = c.input_types[static_cast<std::size_t>(first) + i];
    if (got != expected)
      return invalid_argument("Input '" + std::string(input_names[i]) + "' of '" + c.node.op +
                              "' Op has type " + std::string(dtype_name(got)) +
                              " that does not match type " + std::string(dtype_name(expected)) +
                              " of argument '" + input_names[0] + "'.");
  }
  return check_attr_type(c.input_types[static_cast<std::size_t>(first)], "Index", kIndexTypes,
                         "int32, int64");
}

// StridedSlice's shape function: the exact output shape where the strides are constant and
// the input's rank known (dimensions unknown where the input's or the bounds are), else an
// unknown shape, as TensorFlow 1.x.
Status infer_strided_slice(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(same_index_types(c, {"begin", "end", "strides"}, 1));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  for (int i = 1; i <= 3; ++i)
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[static_cast<std::size_t>(i)], 1));
  Index begin_end_length = -1, sparse_length = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_lengths(c.input_shapes[1], c.input_shapes[2], &begin_end_length));
  const PartialShape begin_end =
      begin_end_length >= 0 ? PartialShape{begin_end_length} : PartialShape{-1};
  ACTORFLOW_RETURN_IF_ERROR(merge_lengths(begin_end, c.input_shapes[3], &sparse_length));
  const Tensor* strides = c.input_values[3];
  if (!input.rank_known() || sparse_length < 0 || strides == nullptr) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  DenseSlice slice;
  ACTORFLOW_RETURN_IF_ERROR(validate_strided_slice(c.input_values[1], c.input_values[2], *strides,
                                                   input.dims(), strided_slice_masks(c.node),
                                                   &slice));
  c.add_output(t, PartialShape(slice.final_dims));
  return {};
}

// -- StridedSliceGrad ----------------------------------------------------------------------

Status infer_strided_slice_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(same_index_types(c, {"shape", "begin", "end", "strides"}, 0));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 0, &out));
  c.add_output(c.input_types[4], std::move(out));
  return {};
}

// -- the slice assignments ------------------------------------------------------------------

// op_def_library's check that `value` has the type T the op's first input fixed.
Status check_value_type(const InferenceContext& c, DType t, const char* first) {
  if (c.input_types[4] != t)
    return invalid_argument("Input 'value' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[4])) +
                            " that does not match type " + std::string(data_type_string(t)) +
                            " of argument '" + first + "'.");
  return {};
}

// StridedSliceAssign(ref, begin, end, strides, value) -> output_ref and
// TensorStridedSliceUpdate(input, ...) -> output: UnchangedShape.
Status infer_slice_update(InferenceContext& c, bool is_ref) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(same_index_types(c, {"begin", "end", "strides"}, 1));
  ACTORFLOW_RETURN_IF_ERROR(check_value_type(c, c.input_types[0], is_ref ? "ref" : "input"));
  c.add_output(c.input_types[0], c.input_shapes[0], is_ref);
  return {};
}

// ResourceStridedSliceAssign(ref: resource, begin, end, strides, value: T): NoOutputs.
Status infer_resource_slice_assign(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  if (c.input_types[0] != DType::resource)
    return invalid_argument("Input 'ref' of '" + c.node.op + "' Op has type " +
                            std::string(data_type_string(c.input_types[0])) +
                            " that does not match expected type of resource.");
  ACTORFLOW_RETURN_IF_ERROR(same_index_types(c, {"begin", "end", "strides"}, 1));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  return check_value_type(c, t, "T");
}

// -- builder helpers -----------------------------------------------------------------------

AttrMap strided_slice_attrs(DType t, DType index_type, const StridedSliceMasks& masks) {
  return {{"T", t},
          {"Index", index_type},
          {"begin_mask", masks.begin_mask},
          {"end_mask", masks.end_mask},
          {"ellipsis_mask", masks.ellipsis_mask},
          {"new_axis_mask", masks.new_axis_mask},
          {"shrink_axis_mask", masks.shrink_axis_mask}};
}

}  // namespace

namespace detail {

void register_strided_slice_ops(OpRegistry& r) {
  r.add({"StridedSlice", infer_strided_slice});
  r.add({"StridedSliceGrad", infer_strided_slice_grad});
  r.add({"StridedSliceAssign",
         [](InferenceContext& c) { return infer_slice_update(c, true); },
         true,
         {0}});
  r.add({"ResourceStridedSliceAssign", infer_resource_slice_assign, true, {0}});
  r.add({"TensorStridedSliceUpdate",
         [](InferenceContext& c) { return infer_slice_update(c, false); }});
}

}  // namespace detail

Output strided_slice(const Output& input, const Output& begin, const Output& end,
                     const Output& strides, const StridedSliceMasks& masks, std::string_view name) {
  return input.graph()
      .create_op("StridedSlice", {input, begin, end, strides},
                 strided_slice_attrs(input.dtype(), begin.dtype(), masks),
                 name.empty() ? "StridedSlice" : name)
      .output(0);
}

// As TensorFlow 1.x's `_slice_helper`: under the name scope "strided_slice", the packed
// bounds are the Consts "stack", "stack_1" and "stack_2" (int32 ones cast to int64 when
// another needs int64), or one empty int32 Const "Const" for an empty spec; the op takes the
// scope's name.
Output strided_slice(const Output& input, const std::vector<std::int64_t>& begin,
                     const std::vector<std::int64_t>& end, const std::vector<std::int64_t>& strides,
                     const StridedSliceMasks& masks, std::string_view name) {
  Graph& g = input.graph();
  const std::string op_name = g.unique_name(name.empty() ? "strided_slice" : name);
  std::vector<Output> packed;
  {
    auto scope = g.name_scope(op_name + "/");
    if (begin.empty()) {
      Output empty = g.constant(Tensor::from_vector(std::vector<std::int32_t>{}), "Const");
      packed = {empty, empty, empty};
    } else {
      for (const auto* values : {&begin, &end, &strides})
        packed.push_back(g.constant(index_tensor(*values), "stack"));
      const bool wide = std::any_of(packed.begin(), packed.end(),
                                    [](const Output& o) { return o.dtype() == DType::int64; });
      if (wide)
        for (Output& p : packed)
          p = cast(p, DType::int64, "Cast");  // no op for those already int64
    }
  }
  return g
      .create_op("StridedSlice", {input, packed[0], packed[1], packed[2]},
                 strided_slice_attrs(input.dtype(), packed[0].dtype(), masks), op_name + "/")
      .output(0);
}

Output strided_slice_grad(const Output& shape, const Output& begin, const Output& end,
                          const Output& strides, const Output& dy, const StridedSliceMasks& masks,
                          std::string_view name) {
  return shape.graph()
      .create_op("StridedSliceGrad", {shape, begin, end, strides, dy},
                 strided_slice_attrs(dy.dtype(), shape.dtype(), masks),
                 name.empty() ? "StridedSliceGrad" : name)
      .output(0);
}

namespace {

// The ops of the slice assignments: (target, begin, end, strides, value) with T = value's
// dtype.
Operation slice_update(const char* op, const Output& target, const Output& begin, const Output& end,
                       const Output& strides, const Output& value, const StridedSliceMasks& masks,
                       std::string_view name) {
  return target.graph().create_op(op, {target, begin, end, strides, value},
                                  strided_slice_attrs(value.dtype(), begin.dtype(), masks),
                                  name.empty() ? op : name);
}

}  // namespace

Output strided_slice_assign(const Output& ref, const Output& begin, const Output& end,
                            const Output& strides, const Output& value,
                            const StridedSliceMasks& masks, std::string_view name) {
  return slice_update("StridedSliceAssign", ref, begin, end, strides, value, masks, name).output(0);
}

Operation resource_strided_slice_assign(const Output& handle, const Output& begin,
                                        const Output& end, const Output& strides,
                                        const Output& value, const StridedSliceMasks& masks,
                                        std::string_view name) {
  return slice_update("ResourceStridedSliceAssign", handle, begin, end, strides, value, masks,
                      name);
}

Output tensor_strided_slice_update(const Output& input, const Output& begin, const Output& end,
                                   const Output& strides, const Output& value,
                                   const StridedSliceMasks& masks, std::string_view name) {
  return slice_update("TensorStridedSliceUpdate", input, begin, end, strides, value, masks, name)
      .output(0);
}

}  // namespace af
