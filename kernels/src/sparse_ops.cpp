// SparseFillEmptyRows, SparseFillEmptyRowsGrad, SparseReshape and SparseToDense: the CPU
// kernels (TensorFlow's sparse_fill_empty_rows_op.cc, sparse_reshape_op.cc, reshape_util.cc,
// sparse_to_dense_op.cc and util/sparse/sparse_tensor.cc), registered by
// register_segment_kernels. The definitions are in ops/src/defs/sparse_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "sparse_indices.hpp"
#include "sparse_tensor_util.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::row_major_strides;
using detail::StatusKernel;

// Each empty row gets `[row, 0, ...] = default`; the output is grouped by row, each row's
// entries in their input order; the map says where each input entry went.
template <class T>
class SparseFillEmptyRowsOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& dense_shape = ctx.input(2);
    const Tensor& default_value = ctx.input(3);
    if (dense_shape.rank() != 1)
      return invalid_argument("dense_shape must be a vector, saw: " +
                              dense_shape.shape().to_string());
    if (indices.rank() != 2)
      return invalid_argument("indices must be a matrix, saw: " + indices.shape().to_string());
    if (values.rank() != 1)
      return invalid_argument("values must be a vector, saw: " + values.shape().to_string());
    if (indices.shape().dim(0) != values.shape().dim(0))
      return invalid_argument("The length of `values` (" + std::to_string(values.shape().dim(0)) +
                              ") must match the first dimension of `indices` (" +
                              std::to_string(indices.shape().dim(0)) + ").");
    if (default_value.rank() != 0)
      return invalid_argument("default_value must be a scalar, saw: " +
                              default_value.shape().to_string());
    if (dense_shape.num_elements() == 0) return invalid_argument("Dense shape cannot be empty.");
    const Index n = indices.shape().dim(0), rank = indices.shape().dim(1);
    const Index dense_rows = dense_shape.data<std::int64_t>()[0];
    const std::int64_t* in_indices = indices.data<std::int64_t>();
    const T* in_values = values.data<T>();
    Tensor& indicator =
        ctx.allocate_output(2, DType::boolean, Shape{std::max<Index>(dense_rows, 0)});
    Tensor& map = ctx.allocate_output(3, DType::int64, Shape{n});
    if (dense_rows == 0) {
      if (n != 0)
        return invalid_argument(
            "Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = " +
            std::to_string(n));
      ctx.allocate_output(0, DType::int64, Shape{0, rank});
      ctx.allocate_output(1, values.dtype(), Shape{0});
      return {};
    }
    if (dense_rows < 0)
      return invalid_argument("Dimension " + std::to_string(dense_rows) +
                              " must be >= 0");  // TensorShape::BuildTensorShape
    std::vector<Index> offset(static_cast<std::size_t>(dense_rows), 0);
    bool ordered = true;
    Index last = 0;
    for (Index i = 0; i < n; ++i) {
      const Index row = in_indices[i * rank];
      if (row < 0 || row >= dense_rows)
        return invalid_argument("indices(" + std::to_string(i) + ", 0) is invalid: " +
                                std::to_string(row) + " >= " + std::to_string(dense_rows));
      ++offset[static_cast<std::size_t>(row)];
      ordered = ordered && row >= last;
      last = row;
    }
    bool full = true;
    bool* empty = indicator.data<bool>();
    for (Index row = 0; row < dense_rows; ++row) {
      auto& o = offset[static_cast<std::size_t>(row)];
      empty[row] = o == 0;
      full = full && o != 0;
      o = std::max<Index>(o, 1);
      if (row > 0) o += offset[static_cast<std::size_t>(row - 1)];  // entries up to this row
    }
    std::int64_t* reverse = map.data<std::int64_t>();
    if (full && ordered) {
      ctx.set_output(0, indices);
      ctx.set_output(1, values);
      for (Index i = 0; i < n; ++i) reverse[i] = i;
      return {};
    }
    const Index total = offset.back();
    Tensor& out_indices = ctx.allocate_output(0, DType::int64, Shape{total, rank});
    Tensor& out_values = ctx.allocate_output(1, values.dtype(), Shape{total});
    std::int64_t* oi = out_indices.data<std::int64_t>();
    T* ov = out_values.data<T>();
    std::vector<Index> filled(static_cast<std::size_t>(dense_rows), 0);
    for (Index i = 0; i < n; ++i) {
      const Index row = in_indices[i * rank];
      const Index at = (row == 0 ? 0 : offset[static_cast<std::size_t>(row - 1)]) +
                       filled[static_cast<std::size_t>(row)]++;
      std::copy_n(in_indices + i * rank, rank, oi + at * rank);
      ov[at] = in_values[i];
      reverse[i] = at;
    }
    const T fill = default_value.data<T>()[0];
    for (Index row = 0; row < dense_rows; ++row) {
      if (filled[static_cast<std::size_t>(row)] != 0) continue;
      const Index at = row == 0 ? 0 : offset[static_cast<std::size_t>(row - 1)];
      oi[at * rank] = row;
      std::fill_n(oi + at * rank + 1, rank - 1, 0);
      ov[at] = fill;
    }
    return {};
  }
};

// d_values[i] = grad[reverse_index_map[i]]; the default's gradient sums the rest.
template <class T>
class SparseFillEmptyRowsGradOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& map = ctx.input(0);
    const Tensor& grad = ctx.input(1);
    if (map.rank() != 1)
      return invalid_argument("reverse_index_map must be a vector, saw: " +
                              map.shape().to_string());
    if (grad.rank() != 1)
      return invalid_argument("grad_values must be a vector, saw: " + grad.shape().to_string());
    const Index n = map.num_elements(), full = grad.num_elements();
    Tensor& d_values = ctx.allocate_output(0, grad.dtype(), Shape{n});
    Tensor& d_default = ctx.allocate_output(1, grad.dtype(), Shape{});
    const std::int64_t* m = map.data<std::int64_t>();
    const T* g = grad.data<T>();
    T* dv = d_values.data<T>();
    std::vector<bool> visited(static_cast<std::size_t>(full), false);
    for (Index i = 0; i < n; ++i) {
      if (m[i] < 0 || m[i] >= full)
        return invalid_argument("Elements in reverse index must be in [0, " + std::to_string(full) +
                                ")");
      dv[i] = g[m[i]];
      visited[static_cast<std::size_t>(m[i])] = true;
    }
    T sum = T(0);
    for (Index j = 0; j < full; ++j)
      if (!visited[static_cast<std::size_t>(j)]) sum = detail::sparse::element_add(sum, g[j]);
    d_default.data<T>()[0] = sum;
    return {};
  }
};

// TensorShape::AddDimWithStatus: the running product of a shape's dims, InvalidArgument
// when it leaves int64.
Status multiply_dims(Index* product, Index dim) {
  if (dim != 0 && *product > std::numeric_limits<Index>::max() / dim)
    return invalid_argument("Encountered overflow when multiplying " + std::to_string(*product) +
                            " with " + std::to_string(dim) + ", result: -1");
  *product *= dim;
  return {};
}

// Each entry's row-major offset in the input's dense shape, split again by the new shape's
// strides; one -1 in the new shape is inferred. Indices are not checked against the shape.
class SparseReshapeOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& input_shape = ctx.input(1);
    const Tensor& target_shape = ctx.input(2);
    if (indices.rank() != 2) return invalid_argument("Input must be a matrix.");
    if (input_shape.rank() != 1) return invalid_argument("Input shape must be a vector.");
    if (indices.shape().dim(1) != input_shape.shape().dim(0))
      return invalid_argument("Input tensor rank must match input shape length.");
    if (target_shape.rank() != 1)
      return invalid_argument("Target shape should be a vector but received shape " +
                              target_shape.shape().to_string());
    const Index input_rank = input_shape.num_elements();
    const Index output_rank = target_shape.num_elements();
    const std::int64_t* in_dims = input_shape.data<std::int64_t>();
    Index dense_size = 1;
    for (Index d = 0; d < input_rank; ++d) {
      if (in_dims[d] < 0)
        return invalid_argument("Expected shape dimensions to be non-negative, got " +
                                std::to_string(in_dims[d]));
      ACTORFLOW_RETURN_IF_ERROR(multiply_dims(&dense_size, in_dims[d]));
    }
    const Shape in_shape(std::vector<std::int64_t>(in_dims, in_dims + input_rank));
    // The new shape, a -1 standing as 1 until it is inferred.
    const std::int64_t* target = target_shape.data<std::int64_t>();
    std::vector<std::int64_t> out_dims;
    Index product = 1;
    Index unknown = -1;
    for (Index d = 0; d < output_rank; ++d) {
      const Index size = target[d];
      if (size == -1) {
        if (unknown != -1)
          return invalid_argument("only one output dimension may be -1, not both " +
                                  std::to_string(unknown) + " and " + std::to_string(d));
        unknown = d;
        out_dims.push_back(1);
        continue;
      }
      if (size < 0)
        return invalid_argument("size " + std::to_string(d) + " must be non-negative, not " +
                                std::to_string(size));
      ACTORFLOW_RETURN_IF_ERROR(multiply_dims(&product, size));
      out_dims.push_back(size);
    }
    if (unknown != -1) {
      if (product <= 0)
        return invalid_argument(
            "reshape cannot infer the missing input size for an empty tensor unless all "
            "specified input sizes are non-zero");
      const Index missing = dense_size / product;
      if (product * missing != dense_size)
        return invalid_argument("Input to reshape is a SparseTensor with " +
                                std::to_string(dense_size) +
                                " dense values, but the requested shape requires a multiple "
                                "of " +
                                std::to_string(product) + ". input_shape=" + in_shape.to_string() +
                                " output_shape=" + Shape(out_dims).to_string());
      out_dims[static_cast<std::size_t>(unknown)] = missing;
    }
    const Shape out_shape(out_dims);
    if (out_shape.num_elements() != dense_size)
      return invalid_argument(
          "Input to reshape is a tensor with " + std::to_string(dense_size) +
          " dense values, but the requested shape has " + std::to_string(out_shape.num_elements()) +
          ". input_shape=" + in_shape.to_string() + " output_shape=" + out_shape.to_string());
    if (in_shape == out_shape) {
      ctx.set_output(0, indices);
      ctx.set_output(1, input_shape);
      return {};
    }
    Tensor& result_shape = ctx.allocate_output(1, DType::int64, Shape{output_rank});
    std::copy(out_dims.begin(), out_dims.end(), result_shape.data<std::int64_t>());
    const Index nnz = indices.shape().dim(0);
    Tensor& result_indices = ctx.allocate_output(0, DType::int64, Shape{nnz, output_rank});
    if (nnz == 0) return {};
    if (dense_size <= 0 || product <= 0)
      return invalid_argument("Input tensor has " + std::to_string(nnz) +
                              " non zero elements but input shape (" + in_shape.to_string() +
                              ") or output shape (" + out_shape.to_string() + ") is empty");
    detail::sparse::reshape_indices(indices.data<std::int64_t>(), nnz, in_shape, out_shape,
                                    result_indices.data<std::int64_t>());
    return {};
  }
};

// -- SparseToDense ------------------------------------------------------------------------

// CheckSparseToDenseShapes: indices of rank <= 2 ([N, rank], [N] or a scalar), output_shape a
// vector of rank elements, values [N] or a scalar, default_value a scalar.
Status check_sparse_to_dense_shapes(const Tensor& indices, const Tensor& output_shape,
                                    const Tensor& values, const Tensor& default_value) {
  if (indices.rank() > 2)
    return invalid_argument("sparse_indices should be a scalar, vector, or matrix, got shape " +
                            indices.shape().to_string());
  const Index num_elems = indices.rank() > 0 ? indices.shape().dim(0) : 1;
  const Index num_dims = indices.rank() > 1 ? indices.shape().dim(1) : 1;
  if (output_shape.rank() != 1)
    return invalid_argument("output_shape must be rank 1, got shape " +
                            output_shape.shape().to_string());
  if (output_shape.num_elements() != num_dims)
    return invalid_argument("output_shape has incorrect number of elements: " +
                            std::to_string(output_shape.num_elements()) +
                            " should be: " + std::to_string(num_dims));
  if (values.rank() != 0 && (values.rank() != 1 || values.num_elements() != num_elems))
    return invalid_argument("sparse_values has incorrect shape " + values.shape().to_string() +
                            ", should be [] or [" + std::to_string(num_elems) + "]");
  if (default_value.rank() != 0) return invalid_argument("default_value should be a scalar.");
  return {};
}

// TensorShapeUtils::MakeShape: the dims as a shape, InvalidArgument for a negative dim or more
// than 2**63 - 1 elements.
Status make_shape(const std::vector<Index>& dims, Shape* out) {
  Index count = 1;
  for (Index d : dims) {
    if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    if (d != 0 && count > std::numeric_limits<Index>::max() / d)
      return invalid_argument("Shape " + Shape(dims).to_string() +
                              " would have more than 2**63 - 1 elements");
    count *= d;
  }
  *out = Shape(dims);
  return {};
}

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value; validate_indices):
// a tensor of output_shape holding default_value but at the indices, which get their values
// (or the one scalar value). With validate_indices the indices must be in bounds, sorted and
// distinct; without it an index repeated keeps its last value.
class SparseToDenseOp : public StatusKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction& c) : StatusKernel(c) {
    // The attr's default (true) where a GraphDef leaves it out.
    if (auto v = c.def.attr<bool>("validate_indices")) validate_indices_ = *v;
  }

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& output_shape = ctx.input(1);
    const Tensor& values = ctx.input(2);
    const Tensor& default_value = ctx.input(3);
    ACTORFLOW_RETURN_IF_ERROR(
        check_sparse_to_dense_shapes(indices, output_shape, values, default_value));
    const Index num_elems = indices.rank() > 0 ? indices.shape().dim(0) : 1;
    const std::vector<Index> out_dims = detail::index_values(output_shape);
    Shape shape;
    ACTORFLOW_RETURN_IF_ERROR(make_shape(out_dims, &shape));
    Tensor& out = ctx.allocate_output_for_overwrite(0, values.dtype(), shape);
    const std::vector<Index> ix = detail::index_values(indices);  // [num_elems, rank]
    if (validate_indices_)
      ACTORFLOW_RETURN_IF_ERROR(detail::sparse::indices_valid(ix.data(), num_elems, out_dims));
    const int dims = shape.rank();
    const std::vector<Index> strides = row_major_strides(shape);
    bool in_bounds = true;
    detail::visit_storage(values.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E* given = detail::elements<E>(values);
      E* dense = detail::elements<E>(out);
      std::fill_n(dense, out.num_elements(), detail::elements<E>(default_value)[0]);
      for (Index i = 0; i < num_elems && in_bounds; ++i) {
        Index at = 0;
        for (int d = 0; d < dims; ++d) {
          const Index v = ix[static_cast<std::size_t>(i * dims + d)];
          if (v < 0 || v >= shape.dim(d)) {
            in_bounds = false;
            break;
          }
          at += v * strides[static_cast<std::size_t>(d)];
        }
        if (in_bounds) dense[at] = given[values.rank() == 0 ? 0 : i];
      }
    });
    if (!in_bounds)
      return invalid_argument("Indices are not valid (out of bounds).  Shape: " +
                              shape.to_string());
    return {};
  }

  bool validate_indices_ = true;
};

}  // namespace

namespace detail {

void register_sparse_kernels(KernelRegistry& r) {
  // TensorFlow 2.21's: every type for the op, every number for its gradient.
  for_each_type(Concat<NumberTypes, TypeList<bool, std::string>>{}, [&](auto tag) {
    using T = decltype(tag);
    r.add(make_kernel_def<SparseFillEmptyRowsOp<T>>("SparseFillEmptyRows", "CPU",
                                                    {{"T", {dtype_of_v<T>}}}));
  });
  register_for_list<SparseFillEmptyRowsGradOp>(r, "SparseFillEmptyRowsGrad", NumberTypes{});
  r.add(make_kernel_def<SparseReshapeOp>("SparseReshape", "CPU"));
  // TensorFlow's: the real number types, bool and string.
  r.add(make_kernel_def<SparseToDenseOp>(
      "SparseToDense", "CPU", {{"T", detail::kValueTypes}, {"Tindices", detail::kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
