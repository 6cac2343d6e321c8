// TensorFlow's tensor-list ops (list_ops.cc): definitions (shape functions). A list is a
// scalar variant; the element shape of what comes out of one is known where the op's
// element_shape input is a constant, else unknown. Graphs TensorFlow 2 writes with control
// flow v2 hold them: while_v2 keeps the forward loop's intermediates for the gradient loop in
// lists, and tf.TensorArray is made of them. CPU kernels: kernels/src/list_ops.cpp.
#include "actorflow/ops/detail/shape_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::with_rank;

// The element shape input `i` gives when it is a constant (-1 as a scalar: unknown rank).
PartialShape element_shape_input(const InferenceContext& c, int i) {
  const Tensor* v = c.input_values[static_cast<std::size_t>(i)];
  if (v == nullptr || v->rank() > 1) return PartialShape::unknown();
  if (v->rank() == 0) return PartialShape::unknown();
  std::vector<std::int64_t> dims = detail::index_values(*v);
  for (auto d : dims)
    if (d < -1) return PartialShape::unknown();  // the kernel says what is wrong
  return PartialShape(std::move(dims));
}

Status expect_list(const InferenceContext& c, int i) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(i, DType::variant));
  return with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0);
}

Status expect_scalar(const InferenceContext& c, int i, DType t) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(i, t));
  return with_rank(c.input_shapes[static_cast<std::size_t>(i)], 0);
}

// element_shape inputs take attr shape_type (int32 or int64), or int32 where there is none.
Status expect_shape_input(const InferenceContext& c, int i) {
  DType t = DType::int32;
  if (c.node.attr<DType>("shape_type")) ACTORFLOW_RETURN_IF_ERROR(c.get_attr("shape_type", &t));
  if (t != DType::int32 && t != DType::int64)
    return invalid_argument("shape_type must be int32 or int64, got " + std::string(dtype_name(t)));
  return c.expect_input_type(i, t);
}

DType element_dtype(const InferenceContext& c, Status* s) {
  DType t = DType::invalid;
  *s = c.get_attr("element_dtype", &t);
  return t;
}

void add_list_output(InferenceContext& c) { c.add_output(DType::variant, PartialShape(Shape{})); }

// EmptyTensorList(element_shape, max_num_elements: int32), TensorListReserve(element_shape,
// num_elements: int32) -> handle.
Status infer_new_list(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  Status s;
  element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  ACTORFLOW_RETURN_IF_ERROR(expect_shape_input(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(expect_scalar(c, 1, DType::int32));
  add_list_output(c);
  return {};
}

// TensorListPushBack(input_handle, tensor: element_dtype) -> output_handle.
Status infer_push_back(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, t));
  add_list_output(c);
  return {};
}

// TensorListPushBackBatch(input_handles: variant vector, tensor: element_dtype, at least a
// vector with one row per list) -> output_handles, shaped as input_handles.
Status infer_push_back_batch(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::variant));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, t));
  const PartialShape& handles = c.input_shapes[0];
  const PartialShape& tensor = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(handles, 1));
  if (tensor.rank_known() && tensor.rank() < 1)
    return invalid_argument("Shape must be at least rank 1 but is rank " +
                            std::to_string(tensor.rank()));
  PartialShape batch = handles;
  if (tensor.rank_known())
    ACTORFLOW_RETURN_IF_ERROR(handles.merge_with(PartialShape({tensor.dim(0)}), &batch));
  c.add_output(DType::variant, std::move(batch));
  return {};
}

// TensorListPopBack(input_handle, element_shape: int32) -> output_handle, tensor.
Status infer_pop_back(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  add_list_output(c);
  c.add_output(t, element_shape_input(c, 1));
  return {};
}

// TensorListLength(input_handle) -> length: int32 scalar.
Status infer_length(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  c.add_output(DType::int32, PartialShape(Shape{}));
  return {};
}

// TensorListElementShape(input_handle) -> element_shape: shape_type (a vector, or the
// scalar -1 for an unknown rank).
Status infer_element_shape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  DType t = DType::int32;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("shape_type", &t));
  c.add_output(t, PartialShape::unknown());
  return {};
}

// TensorListResize(input_handle, size: int32) -> output_handle.
Status infer_resize(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(expect_scalar(c, 1, DType::int32));
  add_list_output(c);
  return {};
}

// TensorListGetItem(input_handle, index: int32, element_shape: int32) -> item.
Status infer_get_item(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int32));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  c.add_output(t, element_shape_input(c, 2));
  return {};
}

// TensorListSetItem(input_handle, index: int32, item: element_dtype) -> output_handle.
Status infer_set_item(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, t));
  add_list_output(c);
  return {};
}

// [leading] + element shape, or unknown where the element shape's rank is.
PartialShape with_leading(std::int64_t leading, const PartialShape& element) {
  if (!element.rank_known()) return PartialShape::unknown();
  std::vector<std::int64_t> dims{leading};
  dims.insert(dims.end(), element.dims().begin(), element.dims().end());
  return PartialShape(std::move(dims));
}

// TensorListStack(input_handle, element_shape: int32) -> tensor: [num_elements] + element.
Status infer_stack(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  std::int64_t n = -1;
  if (c.node.attr<std::int64_t>("num_elements"))
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num_elements", &n));
  c.add_output(t, with_leading(n, element_shape_input(c, 1)));
  return {};
}

// TensorListGather(input_handle, indices: int32, element_shape: int32) -> values.
Status infer_gather(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int32));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  // The indices are read flat: as many rows as they have elements.
  const PartialShape& idx = c.input_shapes[1];
  const std::int64_t rows = idx.fully_defined() ? idx.num_elements() : -1;
  c.add_output(t, with_leading(rows, element_shape_input(c, 2)));
  return {};
}

// TensorListFromTensor(tensor, element_shape), TensorListScatter(tensor, indices: int32,
// element_shape), TensorListScatterV2(..., num_elements: int32), TensorListSplit(tensor,
// element_shape, lengths: int64) -> output_handle.
Status infer_from_tensor(InferenceContext& c) {
  const std::string& op = c.node.op;
  const int n = op == "TensorListFromTensor" ? 2 : op == "TensorListScatterV2" ? 4 : 3;
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(n));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank_at_least(c.input_shapes[0], 1));
  const int shape_input = op == "TensorListFromTensor" || op == "TensorListSplit" ? 1 : 2;
  ACTORFLOW_RETURN_IF_ERROR(expect_shape_input(c, shape_input));
  if (op == "TensorListSplit") ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int64));
  if (op == "TensorListScatter" || op == "TensorListScatterV2")
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  if (op == "TensorListScatterV2") ACTORFLOW_RETURN_IF_ERROR(expect_scalar(c, 3, DType::int32));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("element_dtype", &t));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, t));
  add_list_output(c);
  return {};
}

// TensorListScatterIntoExistingList(input_handle, tensor, indices: int32) -> output_handle.
Status infer_scatter_into(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, t));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int32));
  add_list_output(c);
  return {};
}

// TensorListConcat(input_handle) and TensorListConcatV2(input_handle, element_shape,
// leading_dims: int64) -> tensor, lengths: int64 vector.
Status infer_concat(InferenceContext& c) {
  const bool v2 = c.node.op == "TensorListConcatV2";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(v2 ? 3 : 1));
  ACTORFLOW_RETURN_IF_ERROR(expect_list(c, 0));
  if (v2) {
    ACTORFLOW_RETURN_IF_ERROR(expect_shape_input(c, 1));
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(2, DType::int64));
  }
  Status s;
  const DType t = element_dtype(c, &s);
  ACTORFLOW_RETURN_IF_ERROR(s);
  PartialShape element = v2 ? element_shape_input(c, 1) : PartialShape::unknown();
  if (!v2 && c.node.attr<PartialShape>("element_shape"))
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("element_shape", &element));
  if (element.rank_known() && element.rank() >= 1) {
    std::vector<std::int64_t> dims = element.dims();
    dims[0] = -1;  // the sum of the elements' first dimensions
    c.add_output(t, PartialShape(std::move(dims)));
  } else {
    c.add_output(t, PartialShape::unknown());
  }
  c.add_output(DType::int64, PartialShape{-1});
  return {};
}

// TensorListConcatLists(input_a, input_b) -> output: lists of one shape.
Status infer_concat_lists(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::variant));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::variant));
  PartialShape merged;
  ACTORFLOW_RETURN_IF_ERROR(c.input_shapes[0].merge_with(c.input_shapes[1], &merged));
  c.add_output(DType::variant, std::move(merged));
  return {};
}

}  // namespace

namespace detail {

void register_list_ops(OpRegistry& r) {
  r.add({"EmptyTensorList", infer_new_list});
  r.add({"TensorListReserve", infer_new_list});
  r.add({"TensorListPushBack", infer_push_back});
  r.add({"TensorListPushBackBatch", infer_push_back_batch});
  r.add({"TensorListPopBack", infer_pop_back});
  r.add({"TensorListLength", infer_length});
  r.add({"TensorListElementShape", infer_element_shape});
  r.add({"TensorListResize", infer_resize});
  r.add({"TensorListGetItem", infer_get_item});
  r.add({"TensorListSetItem", infer_set_item});
  r.add({"TensorListStack", infer_stack});
  r.add({"TensorListGather", infer_gather});
  for (const char* op :
       {"TensorListFromTensor", "TensorListScatter", "TensorListScatterV2", "TensorListSplit"})
    r.add({op, infer_from_tensor});
  r.add({"TensorListScatterIntoExistingList", infer_scatter_into});
  r.add({"TensorListConcat", infer_concat});
  r.add({"TensorListConcatV2", infer_concat});
  r.add({"TensorListConcatLists", infer_concat_lists});
}

}  // namespace detail

}  // namespace af
