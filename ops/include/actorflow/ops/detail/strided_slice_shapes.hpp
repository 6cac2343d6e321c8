#pragma once

// What StridedSlice's definitions (ops/src/defs/strided_slice_ops.cpp: its shape function) and
// the StridedSlice and StridedSliceGrad CPU kernels (kernels/src/strided_slice_ops.cpp) share:
// TensorFlow 1.x's ValidateStridedSliceOp (tensorflow/core/util/strided_slice_op.cc), which
// expands the sparse slice spec (one entry per `x[...]` item, with its masks) to one range per
// input dimension, canonicalised and bounds-checked; messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::detail {

// -- the slice specification --------------------------------------------------------------

/// Where an output dimension comes from, besides a dimension of the processing shape.
inline constexpr Index kShrinkAxis = -1;  // none: the dimension is dropped
inline constexpr Index kNewAxis = -2;     // a new dimension of 1

/// Bit `i` of a slice mask (false for an `i` outside [0, 63)).
inline bool mask_bit(std::int64_t mask, Index i) {
  return i >= 0 && i < 63 && ((mask >> i) & 1) != 0;
}

/// A validated slice, one entry per input dimension.
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

/// TensorFlow's ValidateStridedSliceOp. `begin_tensor` and `end_tensor` are null where their
/// values are unknown (shape inference), and `input_dims` may then hold -1; the kernels pass
/// all three. InvalidArgument with TensorFlow's message when the spec does not fit the input.
inline Status validate_strided_slice(const Tensor* begin_tensor, const Tensor* end_tensor,
                                     const Tensor& strides_tensor,
                                     const std::vector<Index>& input_dims,
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

}  // namespace af::detail
