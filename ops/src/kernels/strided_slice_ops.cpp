// StridedSlice and StridedSliceGrad: ops, shape functions, CPU kernels and the graph-building
// functions strided_slice and strided_slice_grad. Registered from transform_ops.cpp.
//
// Both kernels and the StridedSlice shape function share one validation, TensorFlow 1.x's
// ValidateStridedSliceOp (tensorflow/core/util/strided_slice_op.cc): the sparse slice spec
// (one entry per `x[...]` item, with its masks) is expanded to one range per input dimension,
// canonicalised and bounds-checked. The kernels follow tensorflow/core/kernels/
// strided_slice_op.cc, the shape functions tensorflow/core/ops/array_ops.cc; messages are
// TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/ops.hpp"
#include "kernel_util.hpp"

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

using Index = std::int64_t;

// Tensors holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;
// Views share a buffer only at offsets that keep TensorFlow's (Eigen's) alignment.
constexpr Index kAlignmentBytes = 64;
// TensorFlow's kernel handles processing shapes of up to 8 dimensions.
constexpr int kMaxProcessingDims = 8;

using detail::check_attr_type;
using detail::index_values;
using detail::inference_shape_string;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::node_suffix;
using detail::shape_from_shape_tensor;
using detail::with_rank;

// -- the slice specification --------------------------------------------------------------

// Where an output dimension comes from, besides a dimension of the processing shape.
constexpr Index kShrinkAxis = -1;  // none: the dimension is dropped
constexpr Index kNewAxis = -2;     // a new dimension of 1

bool mask_bit(std::int64_t mask, Index i) { return i >= 0 && i < 63 && ((mask >> i) & 1) != 0; }

// A validated slice, one entry per input dimension.
struct DenseSlice {
  std::vector<Index> begin;    // first index taken (canonical when the values are known)
  std::vector<Index> end;      // one past the last, in the direction of the stride
  std::vector<Index> strides;  // never 0
  // The dimensions of the strided block taken from the input, shrunk ones as 1 (-1 unknown).
  std::vector<Index> processing_dims;
  // The output's dimensions: new axes added, shrunk ones dropped (-1 unknown).
  std::vector<Index> final_dims;
  bool is_identity = true;  // the output is the input, reshaped
  bool slice_dim0 = true;   // only dimension 0 is cut, with stride 1: a view of rows
};

// TensorFlow's ValidateStridedSliceOp. `begin_tensor` and `end_tensor` are null where their
// values are unknown (shape inference), and `input_dims` may then hold -1; the kernels pass
// all three. InvalidArgument with TensorFlow's message when the spec does not fit the input.
Status validate_strided_slice(const Tensor* begin_tensor, const Tensor* end_tensor,
                              const Tensor& strides_tensor, const std::vector<Index>& input_dims,
                              const StridedSliceMasks& masks, DenseSlice* slice) {
  const Index sparse_length = strides_tensor.num_elements();
  // The masks are 32-bit in TensorFlow: a spec has fewer than 32 entries.
  const bool begin_is_wrong =
      begin_tensor != nullptr &&
      !(begin_tensor->rank() == 1 && begin_tensor->num_elements() == sparse_length &&
        begin_tensor->num_elements() < 32);
  const bool end_is_wrong = end_tensor != nullptr && !(end_tensor->rank() == 1 &&
                                                       end_tensor->num_elements() == sparse_length);
  if (begin_is_wrong || end_is_wrong || strides_tensor.rank() != 1) {
    if (begin_tensor != nullptr && end_tensor != nullptr)
      return invalid_argument(
          "Expected begin, end, and strides to be 1D equal size tensors, but got shapes " +
          begin_tensor->shape().to_string() + ", " + end_tensor->shape().to_string() + ", and " +
          strides_tensor.shape().to_string() + " instead.");
    return invalid_argument(
        "Expected begin, end, and strides to be 1D equal size tensors, but got shape " +
        strides_tensor.shape().to_string() + " for strides.");
  }
  if (masks.ellipsis_mask != 0 && (masks.ellipsis_mask & (masks.ellipsis_mask - 1)) != 0)
    return invalid_argument("Multiple ellipses in slice spec not allowed");

  // The sparse spec: where its ellipsis is (a spec without one ends with an implicit one)
  // and how many new axes follow it.
  Index ellipsis_index = sparse_length;
  Index new_axes_after_ellipsis = 0;
  for (Index i = 0; i < sparse_length; ++i) {
    if (ellipsis_index < sparse_length && mask_bit(masks.new_axis_mask, i))
      ++new_axes_after_ellipsis;
    if (ellipsis_index == sparse_length && mask_bit(masks.ellipsis_mask, i)) ellipsis_index = i;
  }
  const Index sparse_dims = ellipsis_index == sparse_length ? sparse_length + 1 : sparse_length;

  // The dense spec: one range per input dimension, the ellipsis expanded to whole ranges.
  const auto dims = static_cast<Index>(input_dims.size());
  const auto n = static_cast<std::size_t>(dims);
  slice->begin.assign(n, 0);
  slice->end.assign(n, 0);
  slice->strides.assign(n, 0);
  std::vector<bool> begin_masked(n, false), end_masked(n, false), shrunk(n, false);
  // Per output dimension: the processing dimension it is, kShrinkAxis or kNewAxis.
  std::vector<Index> gather;
  const std::vector<Index> begin_values =
      begin_tensor ? index_values(*begin_tensor) : std::vector<Index>{};
  const std::vector<Index> end_values =
      end_tensor ? index_values(*end_tensor) : std::vector<Index>{};
  const std::vector<Index> stride_values = index_values(strides_tensor);
  Index full = 0;
  for (Index i = 0; i < sparse_dims; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (i == ellipsis_index) {
      const Index next = std::min(dims - (sparse_dims - i) + 1 + new_axes_after_ellipsis, dims);
      for (; full < next; ++full) {
        const auto d = static_cast<std::size_t>(full);
        slice->strides[d] = 1;
        begin_masked[d] = end_masked[d] = true;
        gather.push_back(full);
      }
    } else if (mask_bit(masks.new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims)
        return invalid_argument("Index out of range using input dim " + std::to_string(full) +
                                "; input has only " + std::to_string(dims) + " dims");
      const auto d = static_cast<std::size_t>(full);
      if (begin_tensor) slice->begin[d] = begin_values[k];
      if (end_tensor) slice->end[d] = end_values[k];
      slice->strides[d] = stride_values[k];
      begin_masked[d] = mask_bit(masks.begin_mask, i);
      end_masked[d] = mask_bit(masks.end_mask, i);
      // A shrunk dimension keeps its place in the processing shape but not in the output.
      shrunk[d] = mask_bit(masks.shrink_axis_mask, i);
      gather.push_back(shrunk[d] ? kShrinkAxis : full);
      ++full;
    }
  }

  // Masked and out-of-range bounds made explicit, each dimension's length computed.
  const bool values_known = begin_tensor != nullptr && end_tensor != nullptr;
  slice->is_identity = slice->slice_dim0 = true;
  slice->processing_dims.clear();
  for (Index i = 0; i < dims; ++i) {
    const auto d = static_cast<std::size_t>(i);
    Index& begin = slice->begin[d];
    Index& end = slice->end[d];
    const Index stride = slice->strides[d];
    const Index dim = input_dims[d];
    if (stride == 0) return invalid_argument("strides[" + std::to_string(i) + "] must be non-zero");
    if (dim == -1) {
      slice->processing_dims.push_back(shrunk[d] ? 1 : -1);
      continue;
    }
    // Indices stay within [0, dim] walking forwards, [-1, dim - 1] walking backwards; a
    // masked bound is the end of that range the walk starts (begin) or stops (end) at.
    const Index lowest = stride > 0 ? 0 : -1;
    const Index highest = stride > 0 ? dim : dim - 1;
    auto canonical = [&](Index x, bool masked, bool is_end) {
      if (masked) return (stride > 0) != is_end ? lowest : highest;
      return std::clamp(x < 0 ? dim + x : x, lowest, highest);
    };
    if (shrunk[d] && stride <= 0)
      return invalid_argument("only stride 1 allowed on non-range indexing.");
    const bool whole_range = begin_masked[d] && end_masked[d];
    if (values_known) {
      if (shrunk[d]) {
        // `x[-1]` arrives as begin -1, end 0: the end is begin + 1 once begin is forward.
        begin = begin < 0 ? dim + begin : begin;
        end = begin + 1;
        if (begin < 0 || begin >= dim)
          return invalid_argument("slice index " + std::to_string(begin) + " of dimension " +
                                  std::to_string(i) + " out of bounds.");
      } else {
        begin = canonical(begin, begin_masked[d], false);
        end = canonical(end, end_masked[d], true);
      }
      const bool take_all = stride == 1 && begin == 0 && end == dim;
      slice->is_identity = slice->is_identity && take_all;
      slice->slice_dim0 = slice->slice_dim0 && ((i == 0 && stride == 1) || take_all);
    } else {
      slice->is_identity = slice->is_identity && stride == 1 && whole_range;
      slice->slice_dim0 = slice->slice_dim0 && ((i == 0 && stride == 1) || whole_range);
    }
    std::optional<Index> interval;
    if (values_known) {
      interval = end - begin;
    } else if (shrunk[d]) {
      interval = 1;
    } else if (whole_range && dim > 0) {
      interval = stride < 0 ? -dim : dim;
    }
    if (!interval) {
      slice->processing_dims.push_back(-1);
    } else if (*interval == 0 || ((*interval < 0) != (stride < 0))) {
      slice->processing_dims.push_back(0);  // an empty or backwards interval
    } else {
      slice->processing_dims.push_back(*interval / stride + (*interval % stride != 0 ? 1 : 0));
    }
  }

  slice->final_dims.clear();
  for (Index g : gather) {
    if (g >= 0) {
      slice->final_dims.push_back(slice->processing_dims[static_cast<std::size_t>(g)]);
    } else if (g == kNewAxis) {
      slice->final_dims.push_back(1);
    }
  }
  return {};
}

// -- element copies ------------------------------------------------------------------------

// Calls `f(E{})` with an element type of the size of `t`'s elements (std::string for
// strings): the kernels only move elements.
template <class F>
void visit_storage(DType t, F&& f) {
  if (t == DType::string) return f(std::string{});
  switch (dtype_size(t)) {
    case 1:
      return f(std::uint8_t{});
    case 2:
      return f(std::uint16_t{});
    case 4:
      return f(std::uint32_t{});
    default:
      return f(std::uint64_t{});
  }
}

std::vector<Index> dims_of(const Shape& shape) {
  return {shape.dims().begin(), shape.dims().end()};
}

// Row-major strides of `shape`.
std::vector<Index> row_major_strides(const Shape& shape) {
  std::vector<Index> strides(static_cast<std::size_t>(shape.rank()), 1);
  for (int d = shape.rank() - 2; d >= 0; --d)
    strides[static_cast<std::size_t>(d)] =
        strides[static_cast<std::size_t>(d) + 1] * shape.dim(d + 1);
  return strides;
}

// Visits, in row-major order of the block `dims` (all positive), the offset of each block
// element in a tensor where coordinate k advances by `steps[k]` elements (negative
// walks backwards): `visit(block_index, tensor_offset)`.
template <class Visit>
void for_each_strided(const std::vector<Index>& dims, const std::vector<Index>& steps, Index start,
                      Visit&& visit) {
  const std::size_t rank = dims.size();
  if (rank == 0) return visit(Index{0}, start);
  const Index inner = dims[rank - 1];
  const Index inner_step = steps[rank - 1];
  Index total = 1;
  for (Index d : dims) total *= d;
  std::vector<Index> coord(rank, 0);
  Index offset = start;
  for (Index o = 0; o < total; o += inner) {
    for (Index j = 0; j < inner; ++j) visit(o + j, offset + j * inner_step);
    for (std::size_t k = rank - 1; k-- > 0;) {
      if (++coord[k] < dims[k]) {
        offset += steps[k];
        break;
      }
      coord[k] = 0;
      offset -= steps[k] * (dims[k] - 1);
    }
  }
}

// The block of a tensor of `shape` that `slice` selects: its dims (the processing shape), the
// step in elements along each and the offset of its first element.
struct StridedBlock {
  std::vector<Index> dims, steps;
  Index start = 0;
};

StridedBlock block_of(const Shape& shape, const DenseSlice& slice) {
  StridedBlock block;
  block.dims = slice.processing_dims;
  const std::vector<Index> strides = row_major_strides(shape);
  for (std::size_t d = 0; d < strides.size(); ++d) {
    block.steps.push_back(slice.strides[d] * strides[d]);
    block.start += slice.begin[d] * strides[d];
  }
  return block;
}

// TensorFlow's IsDim0SliceAligned: rows begin..end of `t` may share its buffer.
bool dim0_slice_aligned(const Tensor& t, Index begin, Index end) {
  if (t.dtype() == DType::string) return true;
  const auto bytes = static_cast<Index>(dtype_size(t.dtype()));
  if (t.rank() == 1)
    return (begin * bytes) % kAlignmentBytes == 0 &&
           ((end * bytes) % kAlignmentBytes == 0 || end == t.shape().dim(0));
  if (t.rank() == 0 || t.shape().dim(0) == 0) return false;
  return (t.num_elements() / t.shape().dim(0) * bytes) % kAlignmentBytes == 0;
}

// -- StridedSlice --------------------------------------------------------------------------

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction& c)
      : OpKernel(c), masks_(strided_slice_masks(c.def)) {}

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    DenseSlice slice;
    Status s = validate_strided_slice(&ctx.input(1), &ctx.input(2), ctx.input(3),
                                      dims_of(input.shape()), masks_, &slice);
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    const Shape final_shape(slice.final_dims);
    // A scalar input is always the identity: below, the input has a dimension 0.
    if (slice.is_identity) return ctx.set_output(0, input.reshaped(final_shape));
    if (slice.slice_dim0 && dim0_slice_aligned(input, slice.begin[0], slice.end[0])) {
      // begin[0] > end[0] is an empty slice.
      const Index first = std::min(slice.begin[0], slice.end[0]);
      return ctx.set_output(0, input.slice_rows(first, slice.end[0]).reshaped(final_shape));
    }
    const Shape processing_shape(slice.processing_dims);
    if (processing_shape.num_elements() == 0) {
      ctx.allocate_output(0, input.dtype(), final_shape);
      return;
    }
    if (processing_shape.rank() > kMaxProcessingDims)
      return ctx.fail(unimplemented("Unhandled input dimensions " + std::to_string(input.rank()) +
                                    node_suffix(name())));
    Tensor& out = ctx.allocate_output_for_overwrite(0, input.dtype(), final_shape);
    const StridedBlock block = block_of(input.shape(), slice);
    visit_storage(input.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E* in = static_cast<const E*>(input.raw_data());
      E* o = static_cast<E*>(out.raw_data());
      for_each_strided(block.dims, block.steps, block.start,
                       [&](Index i, Index from) { o[i] = in[from]; });
    });
  }

 private:
  StridedSliceMasks masks_;
};

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

// The gradient of StridedSlice: zeros of the sliced input's shape with `dy` written where the
// slice took its elements.
class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction& c)
      : OpKernel(c), masks_(strided_slice_masks(c.def)) {}

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(4).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& shape_tensor = ctx.input(0);
    if (shape_tensor.rank() != 1)
      return ctx.fail(invalid_argument("shape must be 1-D, got shape.shape = " +
                                       shape_tensor.shape().to_string() + node_suffix(name())));
    const std::vector<Index> input_dims = index_values(shape_tensor);
    for (Index d : input_dims)
      if (d < 0)
        return ctx.fail(invalid_argument("Dimension " + std::to_string(d) + " must be >= 0" +
                                         node_suffix(name())));
    DenseSlice slice;
    Status s = validate_strided_slice(&ctx.input(1), &ctx.input(2), ctx.input(3), input_dims,
                                      masks_, &slice);
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    const Tensor& dy = ctx.input(4);
    const Shape final_shape(slice.final_dims);
    if (dy.shape() != final_shape)
      return ctx.fail(invalid_argument("shape of dy was " + dy.shape().to_string() +
                                       " instead of " + final_shape.to_string() +
                                       node_suffix(name())));
    const Shape input_shape(input_dims);
    // A scalar input: the gradient is dy itself.
    if (input_shape.rank() == 0) return ctx.set_output(0, dy.reshaped(input_shape));
    Tensor& out = ctx.allocate_output(0, dy.dtype(), input_shape);
    if (dy.num_elements() == 0) return;
    const StridedBlock block = block_of(input_shape, slice);
    visit_storage(dy.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E* in = static_cast<const E*>(dy.raw_data());
      E* o = static_cast<E*>(out.raw_data());
      for_each_strided(block.dims, block.steps, block.start,
                       [&](Index i, Index to) { o[to] = in[i]; });
    });
  }

 private:
  StridedSliceMasks masks_;
};

Status infer_strided_slice_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(5));
  ACTORFLOW_RETURN_IF_ERROR(same_index_types(c, {"shape", "begin", "end", "strides"}, 0));
  PartialShape out;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 0, &out));
  c.add_output(c.input_types[4], std::move(out));
  return {};
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

// A Python list of ints as convert_to_tensor makes it: int32 unless a value needs int64.
Tensor index_tensor(const std::vector<std::int64_t>& values) {
  const bool wide = std::any_of(values.begin(), values.end(), [](std::int64_t v) {
    return v > std::numeric_limits<std::int32_t>::max() ||
           v < std::numeric_limits<std::int32_t>::min();
  });
  if (wide) return Tensor::from_vector(values);
  return Tensor::from_vector(std::vector<std::int32_t>(values.begin(), values.end()));
}

}  // namespace

namespace detail {

void register_strided_slice_ops(OpRegistry& r) {
  r.add({"StridedSlice", infer_strided_slice});
  r.add({"StridedSliceGrad", infer_strided_slice_grad});
}

void register_strided_slice_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<StridedSliceOp>("StridedSlice", "CPU",
                                        {{"T", kValueTypes}, {"Index", kIndexTypes}}));
  r.add(make_kernel_def<StridedSliceGradOp>("StridedSliceGrad", "CPU",
                                            {{"T", kValueTypes}, {"Index", kIndexTypes}}));
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

}  // namespace af
