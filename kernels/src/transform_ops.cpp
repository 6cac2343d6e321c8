// Tile, Transpose, InvertPermutation, Slice and Unpack: CPU kernels. Their definitions (shape
// functions, graph-building functions) are in ops/src/defs/transform_ops.cpp. The kernels of the
// shape-only ops (ExpandDims, Squeeze, Rank, ShapeN, ZerosLike, OnesLike, StopGradient,
// PreventGradient) live in transform_shape_ops.cpp; those of OneHot, ConcatOffset and DecodeRaw
// in transform_encode_ops.cpp; those of StridedSlice and StridedSliceGrad in
// strided_slice_ops.cpp.
//
// The kernels follow TensorFlow 1.x (tensorflow/core/kernels/tile_ops.cc, transpose_op.cc,
// slice_op.cc, unpack_op.cc); messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace detail {
// transform_shape_ops.cpp
void register_transform_shape_kernels(KernelRegistry& r);
// transform_encode_ops.cpp
void register_transform_encode_kernels(KernelRegistry& r);
// strided_slice_ops.cpp
void register_strided_slice_kernels(KernelRegistry& r);
}  // namespace detail

namespace {

using Index = std::int64_t;

// Tensors holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;
// Views share a buffer only at offsets that keep TensorFlow's (Eigen's) alignment.
constexpr Index kAlignmentBytes = 64;

using detail::elements;
using detail::for_each_strided_row;
using detail::index_values;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::node_suffix;
using detail::row_major_strides;
using detail::visit_storage;

// Copies the elements `in[sum_k coord_k * strides[k]]` for every coordinate of `dims` (all
// positive), in row-major order, to `out`. Transpose, Tile, Slice and Unpack are this copy
// with their own dims and strides.
template <class E>
void strided_copy(const E* in, const std::vector<Index>& dims, const std::vector<Index>& strides,
                  E* out) {
  if (dims.empty()) {
    out[0] = in[0];
    return;
  }
  const std::size_t r = dims.size();
  const Index inner = dims[r - 1];
  const Index inner_stride = strides[r - 1];
  for_each_strided_row(dims, strides, 0, [&](Index o, Index src) {
    if (inner_stride == 1) {
      std::copy(in + src, in + src + inner, out + o);
    } else {
      for (Index j = 0; j < inner; ++j) out[o + j] = in[src + j * inner_stride];
    }
  });
}

// strided_copy of the elements of `in` from element `offset` on into `out` (of in's dtype).
void copy_strided(const Tensor& in, Index offset, const std::vector<Index>& dims,
                  const std::vector<Index>& strides, Tensor& out) {
  visit_storage(in.dtype(), [&](auto tag) {
    using E = decltype(tag);
    strided_copy(elements<E>(in) + offset, dims, strides, elements<E>(out));
  });
}

// True when a view starting `offset` elements into a tensor of `dtype` keeps the alignment
// TensorFlow requires before it shares a buffer.
bool aligned_offset(DType dtype, Index offset) {
  if (dtype == DType::string) return true;
  return (offset * static_cast<Index>(dtype_size(dtype))) % kAlignmentBytes == 0;
}

// The base of the kernels below that move input 0's elements (Tile, Transpose, Slice,
// Unpack): worth a pool thread beyond kExpensiveElements of them.
class MovingKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }
};

// -- Tile ---------------------------------------------------------------------------------

class TileOp : public MovingKernel {
 public:
  using MovingKernel::MovingKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& multiples = ctx.input(1);
    if (multiples.rank() != 1)
      return ctx.fail(invalid_argument("Expected multiples to be 1-D, but got shape " +
                                       multiples.shape().to_string() + node_suffix(name())));
    if (input.rank() != multiples.num_elements())
      return ctx.fail(invalid_argument(
          "Expected multiples argument to be a vector of length " + std::to_string(input.rank()) +
          " but got length " + std::to_string(multiples.shape().dim(0)) + node_suffix(name())));
    if (input.rank() == 0) return ctx.set_output(0, input);
    const std::vector<Index> m = index_values(multiples);
    std::vector<std::int64_t> out_dims;
    for (int i = 0; i < input.rank(); ++i) {
      if (m[static_cast<std::size_t>(i)] < 0)
        return ctx.fail(
            invalid_argument("Expected multiples[" + std::to_string(i) + "] >= 0, but got " +
                             std::to_string(m[static_cast<std::size_t>(i)]) + node_suffix(name())));
      out_dims.push_back(input.shape().dim(i) * m[static_cast<std::size_t>(i)]);
    }
    Shape out_shape(std::move(out_dims));
    if (out_shape == input.shape()) return ctx.set_output(0, input);
    Tensor& out = ctx.allocate_output(0, input.dtype(), out_shape);
    if (out.num_elements() == 0) return;
    // The output seen as [m0, d0, m1, d1, ...]: stride 0 repeats, the input's strides walk.
    const std::vector<Index> in_strides = row_major_strides(input.shape());
    std::vector<Index> dims, strides;
    for (int i = 0; i < input.rank(); ++i) {
      dims.push_back(m[static_cast<std::size_t>(i)]);
      strides.push_back(0);
      dims.push_back(input.shape().dim(i));
      strides.push_back(in_strides[static_cast<std::size_t>(i)]);
    }
    copy_strided(input, 0, dims, strides, out);
  }
};

// -- Transpose ----------------------------------------------------------------------------

// TensorFlow's internal::NonSingletonDimensionsAlign: the permutation keeps the order of the
// dimensions larger than 1, so the output is the input's buffer with another shape.
bool non_singleton_dimensions_align(const Shape& shape, const std::vector<int>& perm) {
  int last = -1;
  for (int d : perm) {
    if (shape.dim(d) == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

class TransposeOp : public MovingKernel {
 public:
  using MovingKernel::MovingKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& perm_tensor = ctx.input(1);
    if (perm_tensor.rank() != 1)
      return ctx.fail(invalid_argument("perm must be rank 1, got shape " +
                                       perm_tensor.shape().to_string() + node_suffix(name())));
    const int dims = input.rank();
    if (perm_tensor.num_elements() != dims)
      return ctx.fail(
          invalid_argument("transpose expects a vector of size " + std::to_string(dims) +
                           ". But input(1) is a vector of size " +
                           std::to_string(perm_tensor.num_elements()) + node_suffix(name())));
    std::vector<int> perm;
    for (Index p : index_values(perm_tensor)) perm.push_back(static_cast<int>(p));
    std::vector<bool> seen(static_cast<std::size_t>(dims), false);
    std::vector<std::int64_t> out_dims;
    bool is_identity = true;
    for (int i = 0; i < dims; ++i) {
      const int d = perm[static_cast<std::size_t>(i)];
      if (d < 0 || d >= dims)
        return ctx.fail(invalid_argument(std::to_string(d) + " is out of range [0 .. " +
                                         std::to_string(dims) + ")" + node_suffix(name())));
      seen[static_cast<std::size_t>(d)] = true;
      out_dims.push_back(input.shape().dim(d));
      is_identity &= d == i;
    }
    for (int i = 0; i < dims; ++i) {
      if (seen[static_cast<std::size_t>(i)]) continue;
      std::string joined;
      for (std::size_t k = 0; k < perm.size(); ++k)
        joined += (k ? "," : "") + std::to_string(perm[k]);
      return ctx.fail(invalid_argument(std::to_string(i) + " is missing from {" + joined + "}." +
                                       node_suffix(name())));
    }
    Shape out_shape(std::move(out_dims));
    // 0-D, 1-D and identity transposes, and those moving only dimensions of size 1, keep
    // the buffer (TensorFlow forwards or reshapes the input).
    if (dims <= 1 || is_identity) return ctx.set_output(0, input);
    if (non_singleton_dimensions_align(input.shape(), perm))
      return ctx.set_output(0, input.reshaped(std::move(out_shape)));
    Tensor& out = ctx.allocate_output(0, input.dtype(), out_shape);
    if (out.num_elements() == 0) return;
    const std::vector<Index> in_strides = row_major_strides(input.shape());
    std::vector<Index> strides;
    for (int d : perm) strides.push_back(in_strides[static_cast<std::size_t>(d)]);
    std::vector<Index> shape_dims(out.shape().dims().begin(), out.shape().dims().end());
    copy_strided(input, 0, shape_dims, strides, out);
  }
};

// -- InvertPermutation --------------------------------------------------------------------

// inv[p[i]] = i for a permutation p of 0 .. n-1 (the permutation undoing a Transpose).
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 1)
      return ctx.fail(
          invalid_argument("invert_permutation expects a 1D vector." + node_suffix(name())));
    const Index n = input.num_elements();
    if (n > std::numeric_limits<std::int32_t>::max())
      return ctx.fail(
          invalid_argument("permutation of nonnegative int32s must have <= int32 max elements" +
                           node_suffix(name())));
    const std::vector<Index> perm = index_values(input);
    std::vector<Index> inverse(static_cast<std::size_t>(n), -1);
    for (Index i = 0; i < n; ++i) {
      const Index d = perm[static_cast<std::size_t>(i)];
      if (d < 0 || d >= n)
        return ctx.fail(invalid_argument(std::to_string(d) + " is not between 0 and " +
                                         std::to_string(n) + node_suffix(name())));
      if (inverse[static_cast<std::size_t>(d)] != -1)
        return ctx.fail(invalid_argument(std::to_string(d) + " is duplicated in the input." +
                                         node_suffix(name())));
      inverse[static_cast<std::size_t>(d)] = i;
    }
    if (input.dtype() == DType::int64) return ctx.set_output(0, Tensor::from_vector(inverse));
    ctx.set_output(0,
                   Tensor::from_vector(std::vector<std::int32_t>(inverse.begin(), inverse.end())));
  }
};

// -- Slice --------------------------------------------------------------------------------

class SliceOp : public MovingKernel {
 public:
  using MovingKernel::MovingKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& begin_tensor = ctx.input(1);
    const Tensor& size_tensor = ctx.input(2);
    const int dims = input.rank();
    if (begin_tensor.rank() != 1 || size_tensor.rank() != 1 ||
        begin_tensor.num_elements() != dims || size_tensor.num_elements() != dims)
      return ctx.fail(invalid_argument(
          "Expected begin and size arguments to be 1-D tensors of size " + std::to_string(dims) +
          ", but got shapes " + begin_tensor.shape().to_string() + " and " +
          size_tensor.shape().to_string() + " instead." + node_suffix(name())));
    const std::vector<Index> begin = index_values(begin_tensor);
    std::vector<Index> size = index_values(size_tensor);
    bool is_identity = true;
    bool slice_dim0 = true;
    for (int i = 0; i < dims; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const Index dim = input.shape().dim(i);
      if (size[k] == -1) size[k] = dim - begin[k];  // -1: everything from begin on
      const Index b = begin[k];
      const Index s = size[k];
      const std::string n = std::to_string(i);
      if (dim == 0) {
        if (b != 0 || s != 0)
          return ctx.fail(invalid_argument("Expected begin[" + n + "] == 0 (got " +
                                           std::to_string(b) + ") and size[" + n + "] == 0 (got " +
                                           std::to_string(s) + ") when input.dim_size(" + n +
                                           ") == 0" + node_suffix(name())));
      } else {
        if (b < 0 || b > dim)
          return ctx.fail(invalid_argument("Expected begin[" + n + "] in [0, " +
                                           std::to_string(dim) + "], but got " + std::to_string(b) +
                                           node_suffix(name())));
        if (s < 0 || b + s > dim)
          return ctx.fail(invalid_argument("Expected size[" + n + "] in [0, " +
                                           std::to_string(dim - b) + "], but got " +
                                           std::to_string(s) + node_suffix(name())));
      }
      const bool take_all = b == 0 && s == dim;
      is_identity &= take_all;
      slice_dim0 &= i == 0 || take_all;
    }
    if (is_identity) return ctx.set_output(0, input);
    const Index row =
        dims > 0 && input.shape().dim(0) > 0 ? input.num_elements() / input.shape().dim(0) : 0;
    if (slice_dim0 && aligned_offset(input.dtype(), begin[0] * row))
      return ctx.set_output(0, input.slice_rows(begin[0], begin[0] + size[0]));
    Tensor& out = ctx.allocate_output(0, input.dtype(), Shape(std::vector<std::int64_t>(size)));
    if (out.num_elements() == 0) return;
    const std::vector<Index> strides = row_major_strides(input.shape());
    Index offset = 0;
    for (int i = 0; i < dims; ++i)
      offset += begin[static_cast<std::size_t>(i)] * strides[static_cast<std::size_t>(i)];
    copy_strided(input, offset, size, strides, out);
  }
};

// -- Unpack -------------------------------------------------------------------------------

class UnpackOp : public MovingKernel {
 public:
  UnpackOp(OpKernelConstruction& c, Status* s) : MovingKernel(c) {
    *s = c.get_attr("axis", &axis_);
    if (s->ok()) *s = c.get_attr("num", &num_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const int rank = input.rank();
    Index axis = axis_ < 0 ? axis_ + rank : axis_;
    if (axis < 0 || axis >= rank)
      return ctx.fail(invalid_argument("axis = " + std::to_string(axis_) + " not in [" +
                                       std::to_string(-rank) + ", " + std::to_string(rank) + ")" +
                                       node_suffix(name())));
    const int ax = static_cast<int>(axis);
    if (input.shape().dim(ax) != num_)
      return ctx.fail(invalid_argument("Input shape axis " + std::to_string(ax) + " must equal " +
                                       std::to_string(num_) + ", got shape " +
                                       input.shape().to_string() + node_suffix(name())));
    std::vector<std::int64_t> out_dims(input.shape().dims().begin(), input.shape().dims().end());
    out_dims.erase(out_dims.begin() + ax);
    const Shape out_shape(std::move(out_dims));
    const Index out_size = out_shape.num_elements();
    if (ax == 0 && (out_size == 0 || aligned_offset(input.dtype(), out_size))) {
      // Aligned rows of the input are the outputs (TensorFlow shares the buffer too).
      for (int i = 0; i < num_; ++i) ctx.set_output(i, input.slice(i));
      return;
    }
    Index before = 1, after = 1;
    for (int d = 0; d < ax; ++d) before *= input.shape().dim(d);
    for (int d = ax + 1; d < rank; ++d) after *= input.shape().dim(d);
    for (int i = 0; i < num_; ++i) {
      Tensor& out = ctx.allocate_output(i, input.dtype(), out_shape);
      if (out_size == 0) continue;
      copy_strided(input, i * after, {before, after}, {num_ * after, 1}, out);
    }
  }

 private:
  std::int64_t axis_ = 0;
  std::int64_t num_ = 0;
};

}  // namespace

namespace detail {

void register_transform_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<TileOp>("Tile", "CPU", {{"T", kValueTypes}, {"Tmultiples", kIndexTypes}}));
  r.add(make_kernel_def<TransposeOp>("Transpose", "CPU",
                                     {{"T", kValueTypes}, {"Tperm", kIndexTypes}}));
  r.add(make_kernel_def<InvertPermutationOp>("InvertPermutation", "CPU", {{"T", kIndexTypes}}));
  r.add(make_kernel_def<SliceOp>("Slice", "CPU", {{"T", kValueTypes}, {"Index", kIndexTypes}}));
  r.add(make_kernel_def<UnpackOp>("Unpack", "CPU", {{"T", detail::kMovableTypes}}));
  register_transform_shape_kernels(r);
  register_transform_encode_kernels(r);
  register_strided_slice_kernels(r);
}

}  // namespace detail

}  // namespace af
