// Tile, Transpose, InvertPermutation, Slice and Unpack: ops, shape functions, CPU kernels and
// the graph-building functions tile, transpose, invert_permutation, slice and unstack. The
// shape-only ops (ExpandDims, Squeeze, Rank, ShapeN, ZerosLike, OnesLike, StopGradient,
// PreventGradient) live in transform_shape_ops.cpp; OneHot, ConcatOffset and DecodeRaw in
// transform_encode_ops.cpp; StridedSlice and StridedSliceGrad in strided_slice_ops.cpp.
//
// The kernels follow TensorFlow 1.x (tensorflow/core/kernels/tile_ops.cc, transpose_op.cc,
// slice_op.cc, unpack_op.cc) and the shape functions tensorflow/core/ops/array_ops.cc;
// messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "kernel_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace detail {
// transform_shape_ops.cpp
void register_transform_shape_ops(OpRegistry& r);
void register_transform_shape_kernels(KernelRegistry& r);
// transform_encode_ops.cpp
void register_transform_encode_ops(OpRegistry& r);
void register_transform_encode_kernels(KernelRegistry& r);
// strided_slice_ops.cpp
void register_strided_slice_ops(OpRegistry& r);
void register_strided_slice_kernels(KernelRegistry& r);
}  // namespace detail

namespace {

using Index = std::int64_t;

// Tensors holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;
// Views share a buffer only at offsets that keep TensorFlow's (Eigen's) alignment.
constexpr Index kAlignmentBytes = 64;

using detail::node_suffix;

using detail::inference_shape_string;

using detail::index_values;

using detail::check_attr_type;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::shape_from_shape_tensor;
using detail::with_rank;

// InferenceContext::WithValue on a dimension.
Status with_value(Index dim, Index value) {
  if (dim >= 0 && dim != value)
    return invalid_argument("Dimension must be " + std::to_string(value) + " but is " +
                            std::to_string(dim));
  return {};
}

// InferenceContext::Multiply: a zero wins, a one passes the other through.
Index multiply_dims(Index a, Index b) {
  if (a == 0 || b == 1) return a;
  if (b == 0 || a == 1) return b;
  if (a < 0 || b < 0) return -1;
  return a * b;
}

// InferenceContext::Subtract of a possibly unknown `b` from `a`.
Status subtract_dims(Index a, Index b, Index* out) {
  if (b == 0) {
    *out = a;
  } else if (a < 0 || b < 0) {
    *out = -1;
  } else if (a < b) {
    return invalid_argument("Negative dimension size caused by subtracting " + std::to_string(b) +
                            " from " + std::to_string(a));
  } else {
    *out = a - b;
  }
  return {};
}

// The dimension `i` of `s`, or -1 when the rank is unknown.
Index dim_or_unknown(const PartialShape& s, int i) { return s.rank_known() ? s.dim(i) : -1; }

// A shape's element count when all its dimensions are known, else -1.
Index known_num_elements(const PartialShape& s) { return s.num_elements(); }

// Calls `f(E{})` with an element type of the size of `t`'s elements (std::string for
// strings): kernels that only move elements need one instantiation per element size.
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

template <class E>
const E* elements(const Tensor& t) {
  return static_cast<const E*>(t.raw_data());
}

template <class E>
E* elements(Tensor& t) {
  return static_cast<E*>(t.raw_data());
}

// Row-major strides of `shape`.
std::vector<Index> row_major_strides(const Shape& shape) {
  std::vector<Index> strides(static_cast<std::size_t>(shape.rank()), 1);
  for (int d = shape.rank() - 2; d >= 0; --d)
    strides[static_cast<std::size_t>(d)] =
        strides[static_cast<std::size_t>(d) + 1] * shape.dim(d + 1);
  return strides;
}

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
  Index total = 1;
  for (Index d : dims) total *= d;
  std::vector<Index> coord(r, 0);
  Index src = 0;
  for (Index o = 0; o < total; o += inner) {
    if (inner_stride == 1) {
      std::copy(in + src, in + src + inner, out + o);
    } else {
      for (Index j = 0; j < inner; ++j) out[o + j] = in[src + j * inner_stride];
    }
    for (std::size_t k = r - 1; k-- > 0;) {
      if (++coord[k] < dims[k]) {
        src += strides[k];
        break;
      }
      coord[k] = 0;
      src -= strides[k] * (dims[k] - 1);
    }
  }
}

// True when a view starting `offset` elements into a tensor of `dtype` keeps the alignment
// TensorFlow requires before it shares a buffer.
bool aligned_offset(DType dtype, Index offset) {
  if (dtype == DType::string) return true;
  return (offset * static_cast<Index>(dtype_size(dtype))) % kAlignmentBytes == 0;
}

// -- Tile ---------------------------------------------------------------------------------

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }

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
    visit_storage(input.dtype(), [&](auto tag) {
      using E = decltype(tag);
      strided_copy(elements<E>(input), dims, strides, elements<E>(out));
    });
  }
};

Status infer_tile(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Tmultiples", kIndexTypes, "int32, int64"));
  const DType t = c.input_types[0];
  PartialShape input = c.input_shapes[0];
  PartialShape multiples;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 1, &multiples));
  if (input.rank_known()) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(multiples, input.rank()));
    if (!multiples.rank_known()) multiples = PartialShape::unknown_of_rank(input.rank());
  }
  if (!multiples.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  const int rank = multiples.rank();
  ACTORFLOW_RETURN_IF_ERROR(with_rank(input, rank));
  std::vector<std::int64_t> dims;
  for (int i = 0; i < rank; ++i)
    dims.push_back(multiply_dims(dim_or_unknown(input, i), multiples.dim(i)));
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

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

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }

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
    visit_storage(input.dtype(), [&](auto tag) {
      using E = decltype(tag);
      strided_copy(elements<E>(input), shape_dims, strides, elements<E>(out));
    });
  }
};

// TensorFlow's TransposeShapeFn.
Status infer_transpose(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Tperm", kIndexTypes, "int32, int64"));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  const PartialShape& perm_shape = c.input_shapes[1];
  const Tensor* perm = c.input_values[1];
  const Index perm_elems = known_num_elements(perm_shape);
  if (!input.rank_known() && perm_elems < 0 && perm == nullptr) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  Index rank = input.rank_known() ? input.rank()
               : perm_elems >= 0  ? perm_elems
                                  : perm->num_elements();
  if (!input.rank_known() && rank < 2) {
    // A one-element permutation is ambiguous: a scalar or a vector, both unchanged.
    c.add_output(t, input);
    return {};
  }
  ACTORFLOW_RETURN_IF_ERROR(with_rank(perm_shape, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_value(perm_elems, rank));
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank), -1);
  if (perm != nullptr) {
    const std::vector<Index> data = index_values(*perm);
    for (Index i = 0; i < rank; ++i) {
      const Index in_idx = data[static_cast<std::size_t>(i)];
      if (in_idx >= rank || in_idx < -rank)
        return invalid_argument("perm dim " + std::to_string(in_idx) +
                                " is out of range of input rank " + std::to_string(rank));
      // As InferenceContext::Dim, a negative index counts from the end.
      const Index d = in_idx < 0 ? in_idx + rank : in_idx;
      dims[static_cast<std::size_t>(i)] = dim_or_unknown(input, static_cast<int>(d));
    }
  }
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

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

Status infer_invert_permutation(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(c.input_types[0], "T", kIndexTypes, "int32, int64"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  c.add_output(c.input_types[0],
               c.input_shapes[0].rank_known() ? c.input_shapes[0] : PartialShape{-1});
  return {};
}

// -- Slice --------------------------------------------------------------------------------

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }

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
    visit_storage(input.dtype(), [&](auto tag) {
      using E = decltype(tag);
      strided_copy(elements<E>(input) + offset, size, strides, elements<E>(out));
    });
  }
};

// TensorFlow's shape_inference::SliceShape.
Status infer_slice(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  if (c.input_types[1] != c.input_types[2])
    return invalid_argument("Input 'size' of 'Slice' Op has type " +
                            std::string(dtype_name(c.input_types[2])) +
                            " that does not match type " +
                            std::string(dtype_name(c.input_types[1])) + " of argument 'begin'.");
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Index", kIndexTypes, "int32, int64"));
  const DType t = c.input_types[0];
  const PartialShape& input = c.input_shapes[0];
  const PartialShape& begin_shape = c.input_shapes[1];
  const PartialShape& sizes_shape = c.input_shapes[2];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(begin_shape, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(sizes_shape, 1));
  const Index begin_len = dim_or_unknown(begin_shape, 0);
  const Index sizes_len = dim_or_unknown(sizes_shape, 0);
  if (begin_len >= 0 && sizes_len >= 0 && begin_len != sizes_len)
    return invalid_argument("Dimension 0 in both shapes must be equal, but are " +
                            std::to_string(begin_len) + " and " + std::to_string(sizes_len) +
                            ". Shapes are " + inference_shape_string(begin_shape) + " and " +
                            inference_shape_string(sizes_shape) + ".");
  const Index ndims = begin_len >= 0 ? begin_len : sizes_len;
  if (ndims >= 0) ACTORFLOW_RETURN_IF_ERROR(with_rank(input, static_cast<int>(ndims)));
  PartialShape begin_value;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 1, &begin_value));
  if (const Tensor* sizes = c.input_values[2]) {
    const std::vector<Index> size_values = index_values(*sizes);
    const auto n = static_cast<int>(size_values.size());
    ACTORFLOW_RETURN_IF_ERROR(with_rank(begin_value, n));
    std::vector<std::int64_t> dims;
    for (int i = 0; i < n; ++i) {
      const Index dim = dim_or_unknown(input, i);
      const Index s = size_values[static_cast<std::size_t>(i)];
      if (s != -1) {
        if (s < 0)
          return invalid_argument("Out of bounds slicing on dimension " + std::to_string(i) +
                                  " of length " + std::to_string(dim) +
                                  ": sizes vector cannot be < -1, but was " + std::to_string(s));
        dims.push_back(s);
      } else {
        Index rest = -1;
        ACTORFLOW_RETURN_IF_ERROR(subtract_dims(dim, dim_or_unknown(begin_value, i), &rest));
        dims.push_back(rest);
      }
    }
    c.add_output(t, PartialShape(std::move(dims)));
    return {};
  }
  PartialShape sizes_value;
  ACTORFLOW_RETURN_IF_ERROR(shape_from_shape_tensor(c, 2, &sizes_value));
  if (sizes_value.rank_known()) {
    ACTORFLOW_RETURN_IF_ERROR(with_rank(begin_value, sizes_value.rank()));
    c.add_output(t, sizes_value);
  } else {
    c.add_output(t, input.rank_known() ? PartialShape::unknown_of_rank(input.rank())
                                       : PartialShape::unknown());
  }
  return {};
}

// -- Unpack -------------------------------------------------------------------------------

class UnpackOp : public OpKernel {
 public:
  UnpackOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("axis", &axis_);
    if (s->ok()) *s = c.get_attr("num", &num_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
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
      visit_storage(input.dtype(), [&](auto tag) {
        using E = decltype(tag);
        strided_copy(elements<E>(input) + i * after, {before, after}, {num_ * after, 1},
                     elements<E>(out));
      });
    }
  }

 private:
  std::int64_t axis_ = 0;
  std::int64_t num_ = 0;
};

Status infer_unpack(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  std::int64_t num = 0, axis = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num", &num));
  c.get_attr("axis", &axis);
  if (num < 0)
    return invalid_argument("Value for attr 'num' of " + std::to_string(num) +
                            " must be at least minimum 0");
  const DType t = c.input_types[0];
  const PartialShape& s = c.input_shapes[0];
  PartialShape out;
  if (s.rank_known()) {
    const Index rank = s.rank();
    if (axis < -rank || axis >= rank)
      return invalid_argument("Invalid axis: " + std::to_string(axis) + "; must be in [" +
                              std::to_string(-rank) + "," + std::to_string(rank) + ")");
    if (axis < 0) axis += rank;
    ACTORFLOW_RETURN_IF_ERROR(with_value(s.dim(static_cast<int>(axis)), num));
    std::vector<std::int64_t> dims = s.dims();
    dims.erase(dims.begin() + axis);
    out = PartialShape(std::move(dims));
  }
  for (std::int64_t i = 0; i < num; ++i) c.add_output(t, out);
  return {};
}

// -- builder helpers ----------------------------------------------------------------------

// A Python list of ints as convert_to_tensor makes it: int32 unless a value needs int64.
Tensor index_tensor(const std::vector<std::int64_t>& values) {
  const bool wide = std::any_of(values.begin(), values.end(), [](std::int64_t v) {
    return v > std::numeric_limits<std::int32_t>::max() ||
           v < std::numeric_limits<std::int32_t>::min();
  });
  if (wide) return Tensor::from_vector(values);
  return Tensor::from_vector(std::vector<std::int32_t>(values.begin(), values.end()));
}

// Creates op `type` named `name` (default `default_name`) after adding the Consts `consts`
// (input name, value) under its name scope, as op_def_library names converted inputs.
Operation op_with_consts(Graph& g, const std::string& type, std::vector<Output> inputs,
                         const std::vector<std::pair<std::string, Tensor>>& consts, AttrMap attrs,
                         std::string_view name, std::string_view default_name) {
  const std::string op_name = g.unique_name(name.empty() ? default_name : name);
  {
    auto scope = g.name_scope(op_name + "/");
    for (auto& [input_name, value] : consts) inputs.push_back(g.constant(value, input_name));
  }
  return g.create_op(type, inputs, std::move(attrs), op_name + "/");
}

}  // namespace

namespace detail {

void register_transform_ops(OpRegistry& r) {
  r.add({"Tile", infer_tile});
  r.add({"Transpose", infer_transpose});
  r.add({"InvertPermutation", infer_invert_permutation});
  r.add({"Slice", infer_slice});
  r.add({"Unpack", infer_unpack});
  register_transform_shape_ops(r);
  register_transform_encode_ops(r);
  register_strided_slice_ops(r);
}

void register_transform_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<TileOp>("Tile", "CPU", {{"T", kValueTypes}, {"Tmultiples", kIndexTypes}}));
  r.add(make_kernel_def<TransposeOp>("Transpose", "CPU",
                                     {{"T", kValueTypes}, {"Tperm", kIndexTypes}}));
  r.add(make_kernel_def<InvertPermutationOp>("InvertPermutation", "CPU", {{"T", kIndexTypes}}));
  r.add(make_kernel_def<SliceOp>("Slice", "CPU", {{"T", kValueTypes}, {"Index", kIndexTypes}}));
  r.add(make_kernel_def<UnpackOp>("Unpack", "CPU", {{"T", kValueTypes}}));
  register_transform_shape_kernels(r);
  register_transform_encode_kernels(r);
  register_strided_slice_kernels(r);
}

}  // namespace detail

Output tile(const Output& input, const Output& multiples, std::string_view name) {
  return input.graph()
      .create_op("Tile", {input, multiples},
                 {{"T", input.dtype()}, {"Tmultiples", multiples.dtype()}},
                 name.empty() ? "Tile" : name)
      .output(0);
}

Output tile(const Output& input, const std::vector<std::int64_t>& multiples,
            std::string_view name) {
  Tensor m = index_tensor(multiples);
  const DType index_type = m.dtype();
  return op_with_consts(input.graph(), "Tile", {input}, {{"multiples", m}},
                        {{"T", input.dtype()}, {"Tmultiples", index_type}}, name, "Tile")
      .output(0);
}

Output transpose(const Output& x, const Output& perm, std::string_view name) {
  return x.graph()
      .create_op("Transpose", {x, perm}, {{"T", x.dtype()}, {"Tperm", perm.dtype()}},
                 name.empty() ? "transpose" : name)
      .output(0);
}

Output transpose(const Output& x, const std::vector<std::int64_t>& perm, std::string_view name) {
  Tensor p = index_tensor(perm);
  const DType index_type = p.dtype();
  return op_with_consts(x.graph(), "Transpose", {x}, {{"perm", p}},
                        {{"T", x.dtype()}, {"Tperm", index_type}}, name, "transpose")
      .output(0);
}

// tf.transpose(a) in TensorFlow 1.x: with a known non-zero rank the reversed permutation is
// the Const "<scope>/perm"; otherwise (`not a.get_shape().ndims`, scalars included) it is
// computed as (Rank - 1) - Range(0, Rank, 1).
Output transpose(const Output& x, std::string_view name) {
  Graph& g = x.graph();
  const PartialShape& s = x.shape();
  if (s.rank_known() && s.rank() > 0) {
    std::vector<std::int64_t> perm;
    for (int i = s.rank() - 1; i >= 0; --i) perm.push_back(i);
    return transpose(x, perm, name);
  }
  const std::string op_name = g.unique_name(name.empty() ? "transpose" : name);
  Output perm;
  {
    auto scope = g.name_scope(op_name + "/");
    Output rank_t = g.create_op("Rank", {x}, {{"T", x.dtype()}}, "Rank").output(0);
    Output last = rank_t - 1;  // "<scope>/sub/y", "<scope>/sub"
    const std::string range_name = g.unique_name("Range");
    Output start, delta;
    {
      auto range_scope = g.name_scope(range_name + "/");
      start = g.constant(Tensor(std::int32_t{0}), "start");
      delta = g.constant(Tensor(std::int32_t{1}), "delta");
    }
    Output range =
        g.create_op("Range", {start, rank_t, delta}, {{"Tidx", DType::int32}}, range_name + "/")
            .output(0);
    perm = sub(last, range, "sub");  // "<scope>/sub_1"
  }
  return transpose(x, perm, op_name + "/");
}

Output invert_permutation(const Output& x, std::string_view name) {
  return x.graph()
      .create_op("InvertPermutation", {x}, {{"T", x.dtype()}},
                 name.empty() ? "InvertPermutation" : name)
      .output(0);
}

Output slice(const Output& input, const Output& begin, const Output& size, std::string_view name) {
  return input.graph()
      .create_op("Slice", {input, begin, size}, {{"T", input.dtype()}, {"Index", begin.dtype()}},
                 name.empty() ? "Slice" : name)
      .output(0);
}

Output slice(const Output& input, const std::vector<std::int64_t>& begin,
             const std::vector<std::int64_t>& size, std::string_view name) {
  std::vector<std::int64_t> all = begin;
  all.insert(all.end(), size.begin(), size.end());
  // begin and size share the Index attr: both int64 when either needs it.
  const DType index_type = index_tensor(all).dtype();
  auto as_index = [&](const std::vector<std::int64_t>& v) {
    return index_type == DType::int64 ? Tensor::from_vector(v) : index_tensor(v);
  };
  return op_with_consts(input.graph(), "Slice", {input},
                        {{"begin", as_index(begin)}, {"size", as_index(size)}},
                        {{"T", input.dtype()}, {"Index", index_type}}, name, "Slice")
      .output(0);
}

std::vector<Output> unstack(const Output& value, std::optional<std::int64_t> num, std::int64_t axis,
                            std::string_view name) {
  const PartialShape& s = value.shape();
  if (!num) {
    if (s.rank_known()) {
      if (axis < -s.rank() || axis >= s.rank())
        throw InvalidArgumentError(invalid_argument("axis = " + std::to_string(axis) + " not in [" +
                                                    std::to_string(-s.rank()) + ", " +
                                                    std::to_string(s.rank()) + ")"));
      const std::int64_t d = s.dim(static_cast<int>(axis < 0 ? axis + s.rank() : axis));
      if (d >= 0) num = d;
    }
    if (!num)
      throw InvalidArgumentError(invalid_argument("Cannot infer num from shape " + s.to_string()));
  }
  Operation op = value.graph().create_op("Unpack", {value},
                                         {{"T", value.dtype()}, {"num", *num}, {"axis", axis}},
                                         name.empty() ? "unstack" : name);
  std::vector<Output> outputs;
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

}  // namespace af
