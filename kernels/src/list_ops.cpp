// TensorFlow's tensor-list ops (list_kernels.cc): CPU kernels. A list is a scalar variant
// tensor holding a TensorList (variant_values.hpp). Lists are values: a kernel that "changes"
// one outputs a new list, except that when it holds the only reference to its input list it
// changes that one in place and forwards it (TensorFlow's input forwarding), so that a loop
// pushing one element per iteration stays linear. TensorFlow 2's while_v2 keeps the forward
// loop's intermediates for the gradient loop in such lists, and tf.TensorArray is made of
// them under control flow v2. Definitions: ops/src/defs/list_ops.cpp.
#include <algorithm>
#include <atomic>

#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "variant_values.hpp"

namespace af {

namespace {

using detail::input_list;
using detail::partial_shape_from_tensor;
using detail::shape_fits;
const auto& debug_string = detail::shape_debug_string;
using detail::StatusKernel;
using detail::TensorList;

std::string type_string(DType t) { return std::string(data_type_string(t)); }

// True when this kernel holds the only reference to variant tensor `t` and to each of its
// values, so that they may change in place (TensorFlow's input forwarding).
bool held_alone(const Tensor& t) {
  if (!t.sole_owner()) return false;
  const Variant* v = t.data<Variant>();
  for (std::int64_t k = 0; k < t.num_elements(); ++k)
    if (v[k].value().use_count() != 1) return false;
  // use_count() is a relaxed read: order it after the releases of the other readers.
  std::atomic_thread_fence(std::memory_order_acquire);
  return true;
}

// The list output 0 is to hold: the input list itself, forwarded, when this kernel holds the
// only reference to it; otherwise a new copy of it.
TensorList* writable_list(OpKernelContext& ctx, const TensorList& in) {
  const Tensor& t = ctx.input(0);
  if (held_alone(t)) {
    ctx.set_output(0, t);
    return const_cast<TensorList*>(&in);  // made non-const; nobody else can see it
  }
  auto copy = std::make_shared<TensorList>(in);
  TensorList* out = copy.get();
  ctx.set_output(0, variant_scalar(std::move(copy)));
  return out;
}

// A new list in output `i`.
TensorList* new_list(OpKernelContext& ctx, int i, DType element_dtype, PartialShape shape) {
  auto list = std::make_shared<TensorList>();
  list->element_dtype = element_dtype;
  list->element_shape = std::move(shape);
  TensorList* out = list.get();
  ctx.set_output(i, variant_scalar(std::move(list)));
  return out;
}

Status check_dtype(DType op, const TensorList& l) {
  if (op != l.element_dtype)
    return invalid_argument("Invalid data types; op elements " + type_string(op) +
                            " but list elements " + type_string(l.element_dtype));
  return {};
}

Status scalar_int32(const Tensor& t, const char* what, std::int32_t* out) {
  if (t.dtype() != DType::int32 || t.num_elements() != 1)
    return invalid_argument(std::string(what) + " must be an int32 scalar, got " +
                            std::string(dtype_name(t.dtype())) + " of shape " +
                            t.shape().to_string());
  *out = t.data<std::int32_t>()[0];
  return {};
}

// TensorFlow's GetElementShapeFromInput: input `index` merged with the list's element shape.
Status element_shape_input(const OpKernelContext& ctx, const TensorList& l, int index,
                           PartialShape* out) {
  PartialShape given;
  ACTORFLOW_RETURN_IF_ERROR(partial_shape_from_tensor(ctx.input(index), &given));
  return given.merge_with(l.element_shape, out);
}

// `shape` merged with the shapes of the initialized elements (those at `indices`, or all),
// when the list's own element shape does not settle it.
Status merge_element_shapes(const TensorList& l, const std::vector<std::int64_t>* indices,
                            PartialShape* shape) {
  if (l.element_shape.fully_defined()) return {};
  auto merge = [&](const Tensor& t) -> Status {
    if (!t.is_initialized()) return {};
    PartialShape merged;
    ACTORFLOW_RETURN_IF_ERROR(shape->merge_with(PartialShape(t.shape()), &merged));
    *shape = std::move(merged);
    return {};
  };
  if (indices == nullptr) {
    for (const auto& t : l.tensors) ACTORFLOW_RETURN_IF_ERROR(merge(t));
  } else {
    for (auto i : *indices)
      if (i >= 0 && i < static_cast<std::int64_t>(l.tensors.size()))
        ACTORFLOW_RETURN_IF_ERROR(merge(l.tensors[static_cast<std::size_t>(i)]));
  }
  return {};
}

// The row-major concatenation of `parts` (holes read as zeros of `hole_shape`) into a tensor
// of `shape`: stacking elements, gathering them and concatenating along dimension 0 alike.
Tensor concat_elements(DType dtype, const Shape& shape, const std::vector<const Tensor*>& parts,
                       const std::vector<Shape>& hole_shapes) {
  Tensor out(dtype, shape, Tensor::for_overwrite);
  std::int64_t offset = 0;
  detail::visit_storage(dtype, [&](auto tag) {
    using E = decltype(tag);
    E* dst = detail::elements<E>(out);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (parts[i] != nullptr) {
        const E* src = detail::elements<E>(*parts[i]);
        std::copy(src, src + parts[i]->num_elements(), dst + offset);
        offset += parts[i]->num_elements();
      } else {
        const std::int64_t n = hole_shapes[i].num_elements();
        std::fill(dst + offset, dst + offset + n, E{});
        offset += n;
      }
    }
  });
  return out;
}

// Element `i` of `t` along dimension 0, as a tensor of its own (rows are views of `t`).
std::vector<Tensor> rows_of(const Tensor& t) {
  std::vector<Tensor> rows;
  rows.reserve(static_cast<std::size_t>(t.shape().dim(0)));
  for (std::int64_t i = 0; i < t.shape().dim(0); ++i) rows.push_back(t.slice(i));
  return rows;
}

// An element a kernel copies: of the list's dtype where it is set (kernels read elements
// through their raw bytes).
Status check_element(const Tensor& t, DType dtype, std::int64_t index) {
  if (t.is_initialized() && t.dtype() != dtype)
    return invalid_argument("List element " + std::to_string(index) + " is " +
                            type_string(t.dtype()) + ", the list holds " + type_string(dtype));
  return {};
}

Status check_vector_or_higher(const Tensor& t) {
  if (t.rank() < 1)
    return invalid_argument("Tensor must be at least a vector, but saw shape: " +
                            t.shape().to_string());
  return {};
}

Shape drop_first_dim(const Shape& s) {
  Shape out = s;
  out.mutable_dims().erase_front();
  return out;
}

// -- kernels ----------------------------------------------------------------------------------

// A kernel reading attr element_dtype.
class ListKernel : public StatusKernel {
 public:
  ListKernel(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (c.def.attr<DType>("element_dtype")) *s = c.get_attr("element_dtype", &element_dtype_);
  }

 protected:
  /// The list in input 0, of this kernel's element_dtype.
  Status typed_input_list(const OpKernelContext& ctx, const TensorList** l) const {
    ACTORFLOW_RETURN_IF_ERROR(input_list(ctx, 0, l));
    return check_dtype(element_dtype_, **l);
  }

  DType element_dtype_ = DType::invalid;
};

class EmptyTensorListOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status run(OpKernelContext& ctx) override {
    const Tensor& max = ctx.input(1);
    if (max.rank() != 0)
      return invalid_argument("max_num_elements expected to be a scalar but got shape: " +
                              max.shape().to_string());
    std::int32_t max_num_elements = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int32(max, "max_num_elements", &max_num_elements));
    PartialShape shape;
    ACTORFLOW_RETURN_IF_ERROR(partial_shape_from_tensor(ctx.input(0), &shape));
    new_list(ctx, 0, element_dtype_, std::move(shape))->max_num_elements = max_num_elements;
    return {};
  }
};

class TensorListReserveOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status run(OpKernelContext& ctx) override {
    PartialShape shape;
    ACTORFLOW_RETURN_IF_ERROR(partial_shape_from_tensor(ctx.input(0), &shape));
    std::int32_t n = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int32(ctx.input(1), "num_elements", &n));
    if (n < 0)
      return invalid_argument(
          "The num_elements to reserve must be a non negative number, but got " +
          std::to_string(n));
    new_list(ctx, 0, element_dtype_, std::move(shape))->tensors.resize(static_cast<std::size_t>(n));
    return {};
  }
};

class TensorListPushBackOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status run(OpKernelContext& ctx) override {
    const Tensor& item = ctx.input(1);
    if (item.dtype() != element_dtype_)
      return invalid_argument("Invalid data types; list elements " + type_string(element_dtype_) +
                              " but tried to append " + type_string(item.dtype()));
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(input_list(ctx, 0, &l));
    if (!shape_fits(l->element_shape, item.shape()))
      return invalid_argument(
          "Tried to append a tensor with incompatible shape to a list. Op element shape: " +
          item.shape().to_string() + " list shape: " + debug_string(l->element_shape));
    ACTORFLOW_RETURN_IF_ERROR(check_dtype(element_dtype_, *l));
    if (l->max_num_elements != -1 &&
        static_cast<std::int64_t>(l->tensors.size()) >= l->max_num_elements)
      return invalid_argument(
          "Tried to push item into a full list list size: " + std::to_string(l->tensors.size()) +
          " max_num_elements: " + std::to_string(l->max_num_elements));
    writable_list(ctx, *l)->tensors.push_back(item);
    return {};
  }
};

// A vector of lists and a tensor whose rows go one onto each (the vectorized TensorListPushBack
// of TensorFlow's pfor). The lists change in place when this kernel holds the only reference
// to the vector and to each of them.
class TensorListPushBackBatchOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status run(OpKernelContext& ctx) override {
    const Tensor& handles = ctx.input(0);
    const Tensor& items = ctx.input(1);
    if (items.dtype() != element_dtype_)
      return invalid_argument("Invalid data types; list elements " + type_string(element_dtype_) +
                              " but tried to append " + type_string(items.dtype()));
    if (items.rank() < 1)
      return invalid_argument("Expected tensor to be at least a vector, but saw shape: " +
                              items.shape().to_string());
    if (handles.dtype() != DType::variant)
      return invalid_argument("Expected input_handles dtype to be Variant, but saw: " +
                              type_string(handles.dtype()));
    if (handles.rank() != 1)
      return invalid_argument("Expected input_handles to be a vector, but saw shape: " +
                              handles.shape().to_string());
    const std::int64_t batch = handles.num_elements();
    if (items.shape().dim(0) != batch)
      return invalid_argument("Expected tensor.shape[0] == input_handles.size, but saw " +
                              std::to_string(items.shape().dim(0)) + " vs. " +
                              std::to_string(batch));
    const Shape element_shape = drop_first_dim(items.shape());
    const Variant* in = handles.data<Variant>();
    for (std::int64_t b = 0; b < batch; ++b) {
      const TensorList* l = in[b].get<TensorList>();
      const std::string at = std::to_string(b);
      if (l == nullptr)
        return invalid_argument("Input handle at index " + at + " is not a list. Saw: '" +
                                in[b].debug_string() + "'");
      if (!shape_fits(l->element_shape, element_shape))
        return invalid_argument(
            "Tried to append a tensor with incompatible shape to a list at index " + at +
            ". Op element shape: " + element_shape.to_string() +
            " list shape: " + debug_string(l->element_shape));
      if (l->element_dtype != element_dtype_)
        return invalid_argument("Invalid data type at index " + at + "; op elements " +
                                type_string(element_dtype_) + " but list elements " +
                                type_string(l->element_dtype));
    }
    const bool in_place = held_alone(handles);
    Tensor out = in_place ? handles : Tensor(DType::variant, handles.shape());
    const std::vector<Tensor> rows = rows_of(items);
    for (std::int64_t b = 0; b < batch; ++b) {
      const TensorList* l = in[b].get<TensorList>();
      TensorList* list = const_cast<TensorList*>(l);  // in place: nobody else can see it
      if (!in_place) {
        auto copy = std::make_shared<TensorList>(*l);
        list = copy.get();
        out.data<Variant>()[b] = Variant(std::move(copy));
      }
      list->tensors.push_back(rows[static_cast<std::size_t>(b)]);
    }
    ctx.set_output(0, std::move(out));
    return {};
  }
};

class TensorListPopBackOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(typed_input_list(ctx, &l));
    if (l->tensors.empty()) return invalid_argument("Trying to pop from an empty list.");
    Tensor item = l->tensors.back();
    if (!item.is_initialized()) {
      PartialShape shape;
      ACTORFLOW_RETURN_IF_ERROR(element_shape_input(ctx, *l, 1, &shape));
      auto full = shape.to_shape();
      if (!full)
        return invalid_argument(
            "Trying to read an uninitialized tensor but element_shape is not fully defined." +
            debug_string(shape));
      item = Tensor(element_dtype_, *full);
    }
    writable_list(ctx, *l)->tensors.pop_back();
    ctx.set_output(1, std::move(item));
    return {};
  }
};

class TensorListLengthOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(input_list(ctx, 0, &l));
    ctx.set_output(0, Tensor(static_cast<std::int32_t>(l->tensors.size())));
    return {};
  }
};

class TensorListElementShapeOp : public StatusKernel {
 public:
  TensorListElementShapeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("shape_type", &shape_type_);
  }
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(input_list(ctx, 0, &l));
    const bool known = l->element_shape.rank_known();
    Tensor& out = ctx.allocate_output(
        0, shape_type_,
        known ? Shape{static_cast<std::int64_t>(l->element_shape.rank())} : Shape{});
    for (std::int64_t i = 0; i < out.num_elements(); ++i) {
      const std::int64_t d = known ? l->element_shape.dim(static_cast<int>(i)) : -1;
      if (shape_type_ == DType::int32)
        out.data<std::int32_t>()[i] = static_cast<std::int32_t>(d);
      else
        out.data<std::int64_t>()[i] = d;
    }
    return {};
  }

 private:
  DType shape_type_ = DType::int32;
};

class TensorListResizeOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(input_list(ctx, 0, &l));
    std::int32_t size = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int32(ctx.input(1), "size", &size));
    if (size < 0)
      return invalid_argument("TensorListSlice expects size to be non-negative. Got: " +
                              std::to_string(size));
    writable_list(ctx, *l)->tensors.resize(static_cast<std::size_t>(size));
    return {};
  }
};

class TensorListGetItemOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(typed_input_list(ctx, &l));
    std::int32_t index = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int32(ctx.input(1), "index", &index));
    if (index < 0 || index >= static_cast<std::int64_t>(l->tensors.size()))
      return invalid_argument("Trying to access element " + std::to_string(index) +
                              " in a list with " + std::to_string(l->tensors.size()) +
                              " elements.");
    const Tensor& item = l->tensors[static_cast<std::size_t>(index)];
    if (item.is_initialized()) {
      ctx.set_output(0, item);
      return {};
    }
    PartialShape shape;
    ACTORFLOW_RETURN_IF_ERROR(element_shape_input(ctx, *l, 2, &shape));
    if (!shape.fully_defined())
      ACTORFLOW_RETURN_IF_ERROR(merge_element_shapes(*l, nullptr, &shape));
    auto full = shape.to_shape();
    if (!full)
      return invalid_argument(
          "Trying to read an uninitialized tensor but element_shape is not fully defined: " +
          debug_string(shape) + " and no list element is set.");
    ctx.set_output(0, Tensor(element_dtype_, *full));
    return {};
  }
};

class TensorListSetItemOp : public ListKernel {
 public:
  TensorListSetItemOp(OpKernelConstruction& c, Status* s) : ListKernel(c, s) {
    c.get_attr("resize_if_index_out_of_bounds", &resize_);
  }
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(typed_input_list(ctx, &l));
    std::int32_t index = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int32(ctx.input(1), "index", &index));
    const auto size = static_cast<std::int64_t>(l->tensors.size());
    if (index < 0 || (!resize_ && index >= size))
      return invalid_argument("Trying to modify element " + std::to_string(index) +
                              " in a list with " + std::to_string(size) + " elements.");
    const Tensor& item = ctx.input(2);
    if (item.dtype() != element_dtype_)
      return invalid_argument("Invalid data types; list elements " + type_string(element_dtype_) +
                              " but tried to set " + type_string(item.dtype()));
    if (!shape_fits(l->element_shape, item.shape()))
      return invalid_argument(
          "Tried to set a tensor with incompatible shape at a list index. Item element shape: " +
          item.shape().to_string() + " list shape: " + debug_string(l->element_shape));
    TensorList* out = writable_list(ctx, *l);
    if (index >= size) out->tensors.resize(static_cast<std::size_t>(index) + 1);
    out->tensors[static_cast<std::size_t>(index)] = item;
    return {};
  }

 private:
  bool resize_ = false;
};

// TensorListStack and TensorListGather: the elements (all, or those at `indices`) stacked
// along a new dimension 0.
class TensorListStackOp : public ListKernel {
 public:
  TensorListStackOp(OpKernelConstruction& c, Status* s) : ListKernel(c, s) {
    c.get_attr("num_elements", &num_elements_);
    gather_ = c.def.op == "TensorListGather";
  }
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(typed_input_list(ctx, &l));
    std::vector<std::int64_t> indices;
    if (gather_) {
      const Tensor& idx = ctx.input(1);
      if (idx.dtype() != DType::int32)
        return invalid_argument("indices must be int32, got " + type_string(idx.dtype()));
      for (auto i : idx.flat<std::int32_t>()) indices.push_back(i);
    } else {
      if (num_elements_ != -1 && static_cast<std::int64_t>(l->tensors.size()) != num_elements_)
        return invalid_argument("Operation expected a list with " + std::to_string(num_elements_) +
                                " elements but got a list with " +
                                std::to_string(l->tensors.size()) + " elements.");
      for (std::size_t i = 0; i < l->tensors.size(); ++i)
        indices.push_back(static_cast<std::int64_t>(i));
    }
    PartialShape shape;
    ACTORFLOW_RETURN_IF_ERROR(element_shape_input(ctx, *l, gather_ ? 2 : 1, &shape));
    if (!shape.fully_defined() && indices.empty())
      return invalid_argument(std::string(gather_ ? "Tried to gather 0-elements from a list"
                                                  : "Tried to stack elements of an empty list") +
                              " with non-fully-defined element_shape: " + debug_string(shape));
    ACTORFLOW_RETURN_IF_ERROR(merge_element_shapes(*l, &indices, &shape));
    auto element = shape.to_shape();
    if (!element)
      return invalid_argument(std::string(gather_ ? "Tried to gather uninitialized tensors from "
                                                    "a list with"
                                                  : "Tried to stack list which only contains "
                                                    "uninitialized tensors and has a") +
                              " non-fully-defined element_shape: " + debug_string(shape));
    std::vector<const Tensor*> parts;
    for (auto i : indices) {
      if (i < 0 || i >= static_cast<std::int64_t>(l->tensors.size()))
        return invalid_argument("Index " + std::to_string(i) + " out o range; list only has " +
                                std::to_string(l->tensors.size()) + " elements.");
      const Tensor& t = l->tensors[static_cast<std::size_t>(i)];
      ACTORFLOW_RETURN_IF_ERROR(check_element(t, element_dtype_, static_cast<std::int64_t>(i)));
      if (t.is_initialized() && t.shape() != *element)
        return invalid_argument("Shapes " + debug_string(shape) + " and " + t.shape().to_string() +
                                " are not compatible");
      parts.push_back(t.is_initialized() ? &t : nullptr);
    }
    Shape out_shape{static_cast<std::int64_t>(indices.size())};
    for (auto d : element->dims()) out_shape.mutable_dims().push_back(d);
    ctx.set_output(0, concat_elements(element_dtype_, out_shape, parts,
                                      std::vector<Shape>(parts.size(), *element)));
    return {};
  }

 private:
  std::int64_t num_elements_ = -1;
  bool gather_ = false;
};

class TensorListFromTensorOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  Status run(OpKernelContext& ctx) override {
    PartialShape shape;
    ACTORFLOW_RETURN_IF_ERROR(partial_shape_from_tensor(ctx.input(1), &shape));
    const Tensor& t = ctx.input(0);
    ACTORFLOW_RETURN_IF_ERROR(check_vector_or_higher(t));
    const Shape element = drop_first_dim(t.shape());
    if (!shape_fits(shape, element))
      return invalid_argument("Specified a list with shape " + debug_string(shape) +
                              " from a tensor with shape " + element.to_string());
    new_list(ctx, 0, t.dtype(), std::move(shape))->tensors = rows_of(t);
    return {};
  }
};

// TensorListScatter, TensorListScatterV2 (a new list) and TensorListScatterIntoExistingList:
// row k of the tensor becomes element indices[k].
class TensorListScatterOp : public StatusKernel {
 public:
  explicit TensorListScatterOp(OpKernelConstruction& c, Status*)
      : StatusKernel(c), into_existing_(c.def.op == "TensorListScatterIntoExistingList") {}
  Status run(OpKernelContext& ctx) override {
    const int first = into_existing_ ? 1 : 0;
    const Tensor& t = ctx.input(first);
    const Tensor& indices = ctx.input(first + 1);
    ACTORFLOW_RETURN_IF_ERROR(check_vector_or_higher(t));
    if (indices.dtype() != DType::int32 || indices.rank() != 1)
      return invalid_argument("Expected indices to be a vector, but received shape: " +
                              indices.shape().to_string());
    if (indices.num_elements() != t.shape().dim(0))
      return invalid_argument(into_existing_
                                  ? "Expected len(indices) == tensor.shape[0], but saw: " +
                                        std::to_string(indices.num_elements()) + " vs. " +
                                        std::to_string(t.shape().dim(0))
                                  : "Invalid number of rows in input tensor. Expected: " +
                                        std::to_string(indices.num_elements()) +
                                        " Actual: " + std::to_string(t.shape().dim(0)));
    std::int32_t num_elements = -1;
    if (!into_existing_ && ctx.num_inputs() >= 4)
      ACTORFLOW_RETURN_IF_ERROR(scalar_int32(ctx.input(3), "num_elements", &num_elements));
    if (num_elements < -1)
      return invalid_argument("TensorListScatter expects num_elements >= -1, found: " +
                              std::to_string(num_elements));
    std::int64_t highest = -1;
    for (auto i : indices.flat<std::int32_t>()) {
      if (i < 0) return invalid_argument("Indices in TensorListScatter must all be non-negative.");
      if (num_elements != -1 && i >= num_elements)
        return invalid_argument("TensorListScatter: Trying to scatter at index " +
                                std::to_string(i) + " in list with size " +
                                std::to_string(num_elements));
      highest = std::max<std::int64_t>(highest, i);
    }
    TensorList* out = nullptr;
    if (into_existing_) {
      const TensorList* l = nullptr;
      ACTORFLOW_RETURN_IF_ERROR(input_list(ctx, 0, &l));
      if (t.dtype() != l->element_dtype)
        return invalid_argument("Invalid data types; input tensor type: " + type_string(t.dtype()) +
                                " list element_type: " + type_string(l->element_dtype));
      out = writable_list(ctx, *l);
    } else {
      PartialShape shape;
      ACTORFLOW_RETURN_IF_ERROR(partial_shape_from_tensor(ctx.input(2), &shape));
      const Shape element = drop_first_dim(t.shape());
      if (!shape_fits(shape, element))
        return invalid_argument("Specified a list with shape " + debug_string(shape) +
                                " from a tensor with shape " + element.to_string());
      out = new_list(ctx, 0, t.dtype(), std::move(shape));
      out->tensors.resize(static_cast<std::size_t>(std::max<std::int64_t>(num_elements, 0)));
    }
    if (highest + 1 > static_cast<std::int64_t>(out->tensors.size()))
      out->tensors.resize(static_cast<std::size_t>(highest + 1));
    auto idx = indices.flat<std::int32_t>();
    for (std::size_t k = 0; k < idx.size(); ++k)
      out->tensors[static_cast<std::size_t>(idx[k])] = t.slice(static_cast<std::int64_t>(k));
    return {};
  }

 private:
  const bool into_existing_;
};

// TensorListSplit: rows [start, start + lengths[k]) of the tensor become element k.
class TensorListSplitOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  Status run(OpKernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    PartialShape shape;
    ACTORFLOW_RETURN_IF_ERROR(partial_shape_from_tensor(ctx.input(1), &shape));
    if (shape.rank_known() && shape.rank() < 1)
      return invalid_argument(
          "TensorListSplit requires element_shape to be at least of rank 1, but saw: " +
          debug_string(shape));
    ACTORFLOW_RETURN_IF_ERROR(check_vector_or_higher(t));
    const Shape rest = drop_first_dim(t.shape());
    if (shape.rank_known()) {
      std::vector<std::int64_t> dims(shape.dims().begin() + 1, shape.dims().end());
      if (!shape_fits(PartialShape(std::move(dims)), rest))
        return invalid_argument("tensor shape " + t.shape().to_string() +
                                " is not compatible with element_shape " + debug_string(shape));
    }
    const Tensor& lengths = ctx.input(2);
    if (lengths.dtype() != DType::int64 || lengths.rank() != 1)
      return invalid_argument("Expected lengths to be a vector, received shape: " +
                              lengths.shape().to_string());
    TensorList* out = new_list(ctx, 0, t.dtype(), std::move(shape));
    std::int64_t start = 0;
    for (auto length : lengths.flat<std::int64_t>()) {
      if (length < 0)
        return invalid_argument("Invalid value in lengths: " + std::to_string(length));
      const std::int64_t end = start + length;
      if (end > t.shape().dim(0))
        return invalid_argument("Attempting to slice [" + std::to_string(start) + ", " +
                                std::to_string(end) + "] from tensor with length " +
                                std::to_string(t.shape().dim(0)));
      out->tensors.push_back(t.slice_rows(start, end));
      start = end;
    }
    if (start != t.shape().dim(0))
      return invalid_argument(
          "Unused values in tensor. Length of tensor: " + std::to_string(t.shape().dim(0)) +
          " Values used: " + std::to_string(start));
    return {};
  }
};

// TensorListConcat and TensorListConcatV2: the elements concatenated along dimension 0, and
// each element's length there.
class TensorListConcatOp : public ListKernel {
 public:
  TensorListConcatOp(OpKernelConstruction& c, Status* s) : ListKernel(c, s) {
    PartialShape attr;
    if (c.get_attr("element_shape", &attr).ok() && attr.rank_known() && attr.rank() >= 1)
      rest_ = PartialShape(std::vector<std::int64_t>(attr.dims().begin() + 1, attr.dims().end()));
  }
  Status run(OpKernelContext& ctx) override {
    const TensorList* l = nullptr;
    ACTORFLOW_RETURN_IF_ERROR(typed_input_list(ctx, &l));
    PartialShape rest = rest_;
    std::int64_t first_dim = -1;
    if (ctx.num_inputs() > 1) {  // V2: element_shape and leading_dims inputs
      PartialShape shape;
      ACTORFLOW_RETURN_IF_ERROR(element_shape_input(ctx, *l, 1, &shape));
      if (shape.rank_known() && shape.rank() < 1)
        return invalid_argument(
            "Concat requires elements to be at least vectors, found scalars instead.");
      if (shape.rank_known()) {
        first_dim = shape.dim(0);
        rest =
            PartialShape(std::vector<std::int64_t>(shape.dims().begin() + 1, shape.dims().end()));
      } else {
        rest = PartialShape::unknown();
      }
    }
    if (l->tensors.empty() && !rest.fully_defined())
      return invalid_argument(
          "All except the first dimension must be fully defined when concating an empty "
          "tensor list. element_shape: " +
          debug_string(rest));
    if (!l->element_shape.fully_defined()) {
      bool check = first_dim == -1;
      std::int64_t inferred = first_dim;
      for (std::size_t i = 0; i < l->tensors.size(); ++i) {
        const Tensor& t = l->tensors[i];
        if (!t.is_initialized()) continue;
        if (t.rank() < 1)
          return invalid_argument("Concat saw a scalar shape at index " + std::to_string(i) +
                                  " but requires at least vectors.");
        PartialShape merged;
        ACTORFLOW_RETURN_IF_ERROR(
            rest.merge_with(PartialShape(drop_first_dim(t.shape())), &merged));
        rest = std::move(merged);
        if (first_dim != -1 && first_dim != t.shape().dim(0))
          return invalid_argument(
              "First entry of element_shape input does not match the first dim of list element "
              "at index: " +
              std::to_string(i) + " Expected: " + std::to_string(first_dim) +
              " Actual: " + std::to_string(t.shape().dim(0)));
        if (check) {
          if (inferred == -1) {
            inferred = t.shape().dim(0);
          } else if (inferred != t.shape().dim(0)) {
            inferred = -1;
            check = false;
          }
        }
      }
      first_dim = inferred;
    }
    auto rest_shape = rest.to_shape();
    if (!rest_shape)
      return invalid_argument(
          "Trying to concat list with only uninitialized tensors but "
          "element_shape_except_first_dim_ is not fully defined: " +
          debug_string(rest));
    Tensor lengths(DType::int64, Shape{static_cast<std::int64_t>(l->tensors.size())});
    std::vector<const Tensor*> parts;
    std::vector<Shape> hole_shapes;
    std::int64_t leading = 0;
    for (std::size_t i = 0; i < l->tensors.size(); ++i) {
      const Tensor& t = l->tensors[i];
      ACTORFLOW_RETURN_IF_ERROR(check_element(t, element_dtype_, static_cast<std::int64_t>(i)));
      std::int64_t dim = 0;
      if (t.is_initialized()) {
        if (t.rank() < 1)
          return invalid_argument("Concat saw a scalar shape at index " + std::to_string(i) +
                                  " but requires at least vectors.");
        if (drop_first_dim(t.shape()) != *rest_shape)
          return invalid_argument("Shapes " + debug_string(rest) + " and " +
                                  drop_first_dim(t.shape()).to_string() + " are not compatible");
        dim = t.shape().dim(0);
      } else {
        const Tensor* leading_dims = ctx.num_inputs() > 2 ? &ctx.input(2) : nullptr;
        const bool listed =
            leading_dims && static_cast<std::int64_t>(i) < leading_dims->num_elements();
        if (!listed && first_dim != -1) {
          dim = first_dim;
        } else if (leading_dims == nullptr) {
          return invalid_argument(
              "Concating lists with uninitialized tensors is not supported in this version of "
              "TensorListConcat. Consider updating your GraphDef to run the newer version.");
        } else if (!listed) {
          return invalid_argument("List contains uninitialized tensor at index " +
                                  std::to_string(i) + " but leading_dims has only " +
                                  std::to_string(leading_dims->num_elements()) + " elements.");
        } else if (leading_dims->dtype() != DType::int64) {
          return invalid_argument("leading_dims must be int64, got " +
                                  type_string(leading_dims->dtype()));
        } else {
          dim = leading_dims->data<std::int64_t>()[i];
          if (dim < 0)
            return invalid_argument("Dimension " + std::to_string(dim) + " must be >= 0");
        }
      }
      Shape hole{dim};
      for (auto d : rest_shape->dims()) hole.mutable_dims().push_back(d);
      parts.push_back(t.is_initialized() ? &t : nullptr);
      hole_shapes.push_back(std::move(hole));
      lengths.data<std::int64_t>()[i] = dim;
      leading += dim;
    }
    Shape out_shape{leading};
    for (auto d : rest_shape->dims()) out_shape.mutable_dims().push_back(d);
    ctx.set_output(0, concat_elements(element_dtype_, out_shape, parts, hole_shapes));
    ctx.set_output(1, std::move(lengths));
    return {};
  }

 private:
  PartialShape rest_;  // attr element_shape without its first dimension (TensorListConcat)
};

class TensorListConcatListsOp : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status run(OpKernelContext& ctx) override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != DType::variant || b.dtype() != DType::variant || a.shape() != b.shape())
      return invalid_argument("Incompatible input TensorList tensor shapes: " +
                              a.shape().to_string() + " vs. " + b.shape().to_string());
    Tensor out(DType::variant, a.shape());
    for (std::int64_t k = 0; k < a.num_elements(); ++k) {
      const auto* la = a.data<Variant>()[k].get<TensorList>();
      const auto* lb = b.data<Variant>()[k].get<TensorList>();
      if (la == nullptr || lb == nullptr)
        return invalid_argument(std::string(la == nullptr ? "input_a" : "input_b") +
                                " is not a TensorList at index " + std::to_string(k) + ".  Saw: '" +
                                (la == nullptr ? a : b).data<Variant>()[k].debug_string() + "'");
      for (const auto* l : {la, lb})
        if (l->element_dtype != element_dtype_)
          return invalid_argument(
              std::string(l == la ? "input_a[" : "input_b[") + std::to_string(k) +
              "].dtype != element_dtype.  Saw: " + type_string(l->element_dtype) + " vs. " +
              type_string(element_dtype_));
      if (!(la->element_shape == lb->element_shape))
        return invalid_argument(
            "input_a and input_b TensorList element shapes are not identical at index " +
            std::to_string(k) + ".  Saw " + debug_string(la->element_shape) + " vs. " +
            debug_string(lb->element_shape));
      auto joined = std::make_shared<TensorList>(*la);
      joined->tensors.insert(joined->tensors.end(), lb->tensors.begin(), lb->tensors.end());
      out.data<Variant>()[k] = Variant(std::move(joined));
    }
    ctx.set_output(0, std::move(out));
    return {};
  }
};

}  // namespace

namespace detail {

void register_list_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<EmptyTensorListOp>("EmptyTensorList", "CPU"));
  r.add(make_kernel_def<TensorListReserveOp>("TensorListReserve", "CPU"));
  r.add(make_kernel_def<TensorListPushBackOp>("TensorListPushBack", "CPU"));
  r.add(make_kernel_def<TensorListPushBackBatchOp>("TensorListPushBackBatch", "CPU"));
  r.add(make_kernel_def<TensorListPopBackOp>("TensorListPopBack", "CPU"));
  r.add(make_kernel_def<TensorListLengthOp>("TensorListLength", "CPU"));
  r.add(make_kernel_def<TensorListElementShapeOp>("TensorListElementShape", "CPU"));
  r.add(make_kernel_def<TensorListResizeOp>("TensorListResize", "CPU"));
  r.add(make_kernel_def<TensorListGetItemOp>("TensorListGetItem", "CPU"));
  r.add(make_kernel_def<TensorListSetItemOp>("TensorListSetItem", "CPU"));
  r.add(make_kernel_def<TensorListStackOp>("TensorListStack", "CPU"));
  r.add(make_kernel_def<TensorListStackOp>("TensorListGather", "CPU"));
  r.add(make_kernel_def<TensorListFromTensorOp>("TensorListFromTensor", "CPU"));
  for (const char* op :
       {"TensorListScatter", "TensorListScatterV2", "TensorListScatterIntoExistingList"})
    r.add(make_kernel_def<TensorListScatterOp>(op, "CPU"));
  r.add(make_kernel_def<TensorListSplitOp>("TensorListSplit", "CPU"));
  r.add(make_kernel_def<TensorListConcatOp>("TensorListConcat", "CPU"));
  r.add(make_kernel_def<TensorListConcatOp>("TensorListConcatV2", "CPU"));
  r.add(make_kernel_def<TensorListConcatListsOp>("TensorListConcatLists", "CPU"));
}

}  // namespace detail

}  // namespace af
