// StridedSlice and StridedSliceGrad, and the slice assignments StridedSliceAssign,
// ResourceStridedSliceAssign and TensorStridedSliceUpdate: CPU kernels. Registered from
// transform_ops.cpp; their definitions (shape functions, graph-building functions) are in
// ops/src/defs/strided_slice_ops.cpp.
//
// The kernels and the StridedSlice shape function share one validation, TensorFlow 1.x's
// ValidateStridedSliceOp (actorflow/ops/detail/strided_slice_shapes.hpp). The kernels follow
// tensorflow/core/kernels/strided_slice_op.cc (and strided_slice_op.h's
// StridedSliceAssignBCast for a value that broadcasts); messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/detail/strided_slice_shapes.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"

namespace af {

namespace {

using Index = std::int64_t;

// Tensors holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;
// Views share a buffer only at offsets that keep TensorFlow's (Eigen's) alignment.
constexpr Index kAlignmentBytes = 64;
// TensorFlow's kernel handles processing shapes of up to 8 dimensions.
constexpr int kMaxProcessingDims = 8;

using detail::DenseSlice;
using detail::elements;
using detail::for_each_strided_row;
using detail::index_values;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::node_suffix;
using detail::row_major_strides;
using detail::validate_strided_slice;
using detail::visit_storage;

std::vector<Index> dims_of(const Shape& shape) {
  return {shape.dims().begin(), shape.dims().end()};
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
  for_each_strided_row(dims, steps, start, [&](Index o, Index offset) {
    for (Index j = 0; j < inner; ++j) visit(o + j, offset + j * inner_step);
  });
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
      const E* in = elements<E>(input);
      E* o = elements<E>(out);
      for_each_strided(block.dims, block.steps, block.start,
                       [&](Index i, Index from) { o[i] = in[from]; });
    });
  }

 private:
  StridedSliceMasks masks_;
};

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
      const E* in = elements<E>(dy);
      E* o = elements<E>(out);
      for_each_strided(block.dims, block.steps, block.start,
                       [&](Index i, Index to) { o[to] = in[i]; });
    });
  }

 private:
  StridedSliceMasks masks_;
};

// -- the slice assignments ------------------------------------------------------------------

// StridedSliceAssignBCast's IsValid: `value` aligned right against `final_dims`, each of its
// dimensions equal or 1, and those it has beyond the slice's rank 1.
bool broadcasts_to(const Shape& value, const std::vector<Index>& final_dims) {
  const auto r = static_cast<Index>(final_dims.size());
  const Index s = value.rank();
  for (Index j = 0; j < s; ++j) {
    const Index v = value.dim(static_cast<int>(j)), k = j - (s - r);
    if (v != 1 && (k < 0 || v != final_dims[static_cast<std::size_t>(k)])) return false;
  }
  return true;
}

// For each element of the slice (row-major over `final_dims`), the element of `value` that
// broadcasts to it.
std::vector<Index> broadcast_sources(const Shape& value, const std::vector<Index>& final_dims) {
  const auto r = static_cast<Index>(final_dims.size());
  const Index s = value.rank();
  const std::vector<Index> value_strides = row_major_strides(value);
  std::vector<Index> steps(static_cast<std::size_t>(r), 0);
  for (Index k = 0; k < r; ++k) {
    const Index j = k + (s - r);
    if (j >= 0 && value.dim(static_cast<int>(j)) != 1)
      steps[static_cast<std::size_t>(k)] = value_strides[static_cast<std::size_t>(j)];
  }
  std::vector<Index> sources;
  sources.reserve(static_cast<std::size_t>(Shape(final_dims).num_elements()));
  if (r == 0) return {0};
  for_each_strided(final_dims, steps, 0, [&](Index, Index from) { sources.push_back(from); });
  return sources;
}

// Writes `value` into the slice of `lhs` the bounds and masks select (StridedSliceAssignOp
// after it found its l-value). `writable()` makes `lhs` safe to write (a copy of a buffer a
// reader still holds) once the checks passed.
template <class Writable>
Status assign_slice(OpKernelContext& ctx, const StridedSliceMasks& masks, Tensor& lhs,
                    Writable&& writable) {
  DenseSlice slice;
  ACTORFLOW_RETURN_IF_ERROR(validate_strided_slice(&ctx.input(1), &ctx.input(2), ctx.input(3),
                                                   dims_of(lhs.shape()), masks, &slice));
  if (Shape(slice.processing_dims).num_elements() == 0) return {};
  const Tensor& value = ctx.input(4);
  if (!broadcasts_to(value.shape(), slice.final_dims))
    return invalid_argument("Cannot broadcast input shape " + value.shape().to_string() +
                            " into final shape " + Shape(slice.final_dims).to_string());
  if (static_cast<int>(slice.processing_dims.size()) > kMaxProcessingDims)
    return unimplemented("Unhandled input dimensions " +
                         std::to_string(slice.processing_dims.size()));
  writable();
  const StridedBlock block = block_of(lhs.shape(), slice);
  const bool same = value.num_elements() == Shape(slice.final_dims).num_elements();
  const std::vector<Index> sources =
      same ? std::vector<Index>{} : broadcast_sources(value.shape(), slice.final_dims);
  visit_storage(lhs.dtype(), [&](auto tag) {
    using E = decltype(tag);
    const E* in = elements<E>(value);
    E* o = elements<E>(lhs);
    for_each_strided(block.dims, block.steps, block.start, [&](Index i, Index to) {
      o[to] = in[same ? i : sources[static_cast<std::size_t>(i)]];
    });
  });
  return {};
}

enum class SliceTarget { ref, resource, tensor };

// StridedSliceAssign (a reference variable, output the reference), ResourceStridedSliceAssign
// (a resource variable, no output) and TensorStridedSliceUpdate (a copy of the input).
template <SliceTarget Target>
class StridedSliceAssignOp : public detail::StatusKernel {
 public:
  explicit StridedSliceAssignOp(OpKernelConstruction& c)
      : StatusKernel(c), masks_(strided_slice_masks(c.def)) {}

 protected:
  Status run(OpKernelContext& ctx) override {
    const DType t = ctx.input(4).dtype();
    if constexpr (Target == SliceTarget::tensor) {
      const Tensor& input = ctx.input(0);
      Tensor out = input;
      ACTORFLOW_RETURN_IF_ERROR(assign_slice(ctx, masks_, out, [&] { out = input.deep_copy(); }));
      ctx.set_output(0, std::move(out));
      return {};
    } else {
      std::vector<Var*> vars;
      ACTORFLOW_RETURN_IF_ERROR(detail::variable_inputs(ctx, 1, t, false, &vars));
      ACTORFLOW_RETURN_IF_ERROR(vars[0]->update([&](Tensor& lhs) -> Status {
        if (lhs.dtype() != t)
          return invalid_argument("l-value dtype " + std::string(data_type_string(lhs.dtype())) +
                                  " does not match r-value dtype " +
                                  std::string(data_type_string(t)));
        return assign_slice(ctx, masks_, lhs, [&] {
          if (!lhs.sole_owner()) lhs = lhs.deep_copy();
        });
      }));
      if constexpr (Target == SliceTarget::ref) ctx.set_output(0, ctx.input(0));
      return {};
    }
  }

 private:
  StridedSliceMasks masks_;
};

}  // namespace

namespace detail {

void register_strided_slice_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<StridedSliceOp>("StridedSlice", "CPU",
                                        {{"T", kValueTypes}, {"Index", kIndexTypes}}));
  r.add(make_kernel_def<StridedSliceGradOp>("StridedSliceGrad", "CPU",
                                            {{"T", kValueTypes}, {"Index", kIndexTypes}}));
  r.add(make_kernel_def<StridedSliceAssignOp<SliceTarget::ref>>(
      "StridedSliceAssign", "CPU", {{"T", kValueTypes}, {"Index", kIndexTypes}}));
  r.add(make_kernel_def<StridedSliceAssignOp<SliceTarget::resource>>(
      "ResourceStridedSliceAssign", "CPU", {{"T", kValueTypes}, {"Index", kIndexTypes}}));
  r.add(make_kernel_def<StridedSliceAssignOp<SliceTarget::tensor>>(
      "TensorStridedSliceUpdate", "CPU", {{"T", kValueTypes}, {"Index", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
