// SparseSplit, SparseBincount, RaggedBincount, DenseCountSparseOutput, SparseCountSparseOutput
// and RaggedCountSparseOutput: CPU kernels with TensorFlow 2.21's checks and messages
// (sparse_split_op.cc with SparseTensor::Split, bincount_op.cc, count_ops.cc). The
// definitions are in ops/src/defs/sets_sparse_ops.cpp.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "sparse_tensor_util.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::StatusKernel;

// -- SparseSplit --------------------------------------------------------------------------

// SparseTensor::GetSliceIndex, GetDimensionInSlice and GetSliceShape: the first
// `residual` slices are one longer.
Index slice_index(Index dim, Index split_size, Index residual) {
  if (residual == 0) return dim / split_size;
  const Index offset = residual * (split_size + 1);
  return dim < offset ? dim / (split_size + 1) : residual + (dim - offset) / split_size;
}
Index dimension_in_slice(Index dim, Index split_size, Index residual) {
  if (residual == 0) return dim % split_size;
  const Index offset = residual * (split_size + 1);
  return dim < offset ? dim % (split_size + 1) : (dim - offset) % split_size;
}
Index slice_shape(Index slice, Index split_size, Index residual) {
  return residual == 0 || slice >= residual ? split_size : split_size + 1;
}

// SparseSplit(split_dim, indices, values, shape; num_split): the SparseTensor cut into
// `num_split` pieces along `split_dim` (negative counts from the end), the first
// `shape[split_dim] % num_split` pieces one longer; each piece keeps its entries in input
// order, their coordinate along split_dim made relative to the piece. Outputs: num_split
// indices, num_split values, num_split shapes.
class SparseSplitOp : public StatusKernel {
 public:
  SparseSplitOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("num_split", &num_split_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& axis_t = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& values = ctx.input(2);
    const Tensor& shape = ctx.input(3);
    if (axis_t.rank() != 0)
      return invalid_argument("Input axis should be a scalar but received shape " +
                              axis_t.shape().to_string());
    if (indices.rank() != 2)
      return invalid_argument("Input indices should be a matrix but received shape " +
                              indices.shape().to_string());
    // TensorFlow names the indices' shape in this one.
    if (values.rank() != 1)
      return invalid_argument("Input values should be a vector but received shape " +
                              indices.shape().to_string());
    if (shape.rank() != 1)
      return invalid_argument("Input shape should be a vector but received shape " +
                              shape.shape().to_string());
    ACTORFLOW_RETURN_IF_ERROR(detail::sparse::validate_sparse_tensor(indices, values, shape, true));
    const std::vector<Index> dims = index_values(shape);
    const auto input_rank = static_cast<Index>(dims.size());
    const Index axis_input = index_values(axis_t)[0];
    const Index axis = axis_input < 0 ? input_rank + axis_input : axis_input;
    if (axis < 0 || axis >= input_rank)
      return invalid_argument("Input axis should be in range [" + std::to_string(-input_rank) +
                              ", " + std::to_string(input_rank) + "), got " +
                              std::to_string(axis_input));
    const Index dim_size = dims[static_cast<std::size_t>(axis)];
    if (num_split_ < 1 || num_split_ > dim_size)
      return invalid_argument(
          "Input num_split should be between 1 and the splitting dimension size (" +
          std::to_string(dim_size) + "), got " + std::to_string(num_split_));
    for (Index d : dims)
      if (d < 0) return invalid_argument("Expected a non-negative size, got " + std::to_string(d));
    const Index split_size = dim_size / num_split_, residual = dim_size % num_split_;
    const Index nnz = indices.shape().dim(0);
    const std::int64_t* ix = indices.data<std::int64_t>();
    std::vector<std::vector<Index>> entries(static_cast<std::size_t>(num_split_));
    for (Index i = 0; i < nnz; ++i)
      entries[static_cast<std::size_t>(
                  slice_index(ix[i * input_rank + axis], split_size, residual))]
          .push_back(i);
    for (Index s = 0; s < num_split_; ++s) {
      const std::vector<Index>& mine = entries[static_cast<std::size_t>(s)];
      const auto n = static_cast<Index>(mine.size());
      Tensor& out_indices =
          ctx.allocate_output(static_cast<int>(s), DType::int64, Shape{n, input_rank});
      Tensor& out_values =
          ctx.allocate_output(static_cast<int>(s + num_split_), values.dtype(), Shape{n});
      detail::sparse::gather_entries(indices, values, mine, out_indices, out_values);
      std::int64_t* oi = out_indices.data<std::int64_t>();
      for (Index k = 0; k < n; ++k)
        oi[k * input_rank + axis] =
            dimension_in_slice(oi[k * input_rank + axis], split_size, residual);
      Tensor& out_shape = ctx.allocate_output(static_cast<int>(s + 2 * num_split_), DType::int64,
                                              Shape{input_rank});
      std::copy(dims.begin(), dims.end(), out_shape.data<std::int64_t>());
      out_shape.data<std::int64_t>()[axis] = slice_shape(s, split_size, residual);
    }
    return {};
  }

 private:
  Index num_split_ = 1;
};

// -- SparseBincount and RaggedBincount ----------------------------------------------------

// The scalar `size` input: rank 0 and non-negative.
Status bincount_size(const Tensor& size_t_, Index* size) {
  if (size_t_.rank() != 0)
    return invalid_argument("Shape must be rank 0 but is rank " + std::to_string(size_t_.rank()));
  *size = index_values(size_t_)[0];
  if (*size < 0)
    return invalid_argument("size (" + std::to_string(*size) + ") must be non-negative");
  return {};
}

// The ends of ragged row splits over `num_values` values: 0 first, num_values last.
Status check_splits_ends(const std::vector<Index>& splits, Index num_values) {
  if (splits[0] != 0)
    return invalid_argument("Splits must start with 0, not with " + std::to_string(splits[0]));
  if (splits.back() != num_values)
    return invalid_argument("Splits must end with the number of values, got " +
                            std::to_string(splits.back()) + " instead of " +
                            std::to_string(num_values));
  return {};
}

// Adds value `v` (non-negative) to row `out` of `size` bins: its weight `w`, or 1 with no
// weights; with `binary_output` the bin holds 1 once hit. Values >= size are dropped.
template <class T>
void add_to_bin(Index v, Index size, bool binary_output, const T* w, Index i, T* out) {
  if (v >= size) return;
  if (binary_output)
    out[v] = T(1);
  else
    out[v] += w ? w[i] : T(1);
}

// SparseBincount(indices, values, dense_shape, size, weights; binary_output): Bincount of a
// SparseTensor's values: of all of them to [size] for a 1-D dense shape, else of each row
// (the entries' first coordinate) to [dense_shape[0], size].
template <class T>
class SparseBincountOp : public StatusKernel {
 public:
  SparseBincountOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("binary_output", &binary_output_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values_t = ctx.input(1);
    const Tensor& dense_shape = ctx.input(2);
    const Tensor& weights = ctx.input(4);
    Index size = 0;
    ACTORFLOW_RETURN_IF_ERROR(bincount_size(ctx.input(3), &size));
    ACTORFLOW_RETURN_IF_ERROR(
        detail::sparse::validate_sparse_tensor(indices, values_t, dense_shape, true));
    const std::vector<Index> values = index_values(values_t);
    const auto nnz = static_cast<Index>(values.size());
    const bool weighted = weights.num_elements() > 0;
    const T* w = weighted ? weights.data<T>() : nullptr;
    // TensorFlow checks the weights' count and the values' signs only for a 1-D input (its
    // 2-D path reads or writes out of bounds instead); both are checked for either here.
    for (Index v : values)
      if (v < 0) return invalid_argument("Input arr must be non-negative!");
    if (!binary_output_ && weighted && weights.num_elements() != nnz)
      return invalid_argument("Input indices and weights must have the same size.");
    const std::vector<Index> shape = index_values(dense_shape);
    if (shape.size() == 1) {
      T* o = ctx.allocate_output(0, dtype_of_v<T>, Shape{size}).template data<T>();
      for (Index i = 0; i < nnz; ++i) add_to_bin(values[i], size, binary_output_, w, i, o);
      return {};
    }
    // TensorFlow reads dense_shape[0] of an empty dense shape and aborts on a negative one.
    if (shape.empty()) return invalid_argument("Input must be less than rank 2");
    if (shape[0] < 0)
      return invalid_argument("Expected shape dimensions to be non-negative, got " +
                              std::to_string(shape[0]));
    T* o = ctx.allocate_output(0, dtype_of_v<T>, Shape{shape[0], size}).template data<T>();
    const std::int64_t* ix = indices.data<std::int64_t>();
    const Index rank = indices.shape().dim(1);
    for (Index i = 0; i < nnz; ++i)
      add_to_bin(values[i], size, binary_output_, w, i, o + ix[i * rank] * size);
    return {};
  }

 private:
  bool binary_output_ = false;
};

// RaggedBincount(splits, values, size, weights; binary_output): Bincount of each row of a
// ragged tensor (values[splits[i]:splits[i + 1]]) to [len(splits) - 1, size].
template <class T>
class RaggedBincountOp : public StatusKernel {
 public:
  RaggedBincountOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("binary_output", &binary_output_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const std::vector<Index> splits = index_values(ctx.input(0));
    const std::vector<Index> values = index_values(ctx.input(1));
    const Tensor& weights = ctx.input(3);
    Index size = 0;
    ACTORFLOW_RETURN_IF_ERROR(bincount_size(ctx.input(2), &size));
    if (splits.empty()) return invalid_argument("Splits must be non-empty");
    const auto num_rows = static_cast<Index>(splits.size()) - 1;
    const auto num_values = static_cast<Index>(values.size());
    ACTORFLOW_RETURN_IF_ERROR(check_splits_ends(splits, num_values));
    const bool weighted = weights.num_elements() > 0;
    // TensorFlow reads past weights shorter than the values; refused here.
    if (!binary_output_ && weighted && weights.num_elements() != num_values)
      return invalid_argument("Input indices and weights must have the same size.");
    const T* w = weighted ? weights.data<T>() : nullptr;
    T* o = ctx.allocate_output(0, dtype_of_v<T>, Shape{num_rows, size}).template data<T>();
    std::size_t batch = 0;
    for (Index i = 0; i < num_values; ++i) {
      // TensorFlow's walk: the row is the last split not above i (splits that decrease are
      // taken as they come).
      while (i >= splits[batch]) ++batch;
      if (values[static_cast<std::size_t>(i)] < 0)
        return invalid_argument("Input must be non-negative");
      add_to_bin(values[static_cast<std::size_t>(i)], size, binary_output_, w, i,
                 o + static_cast<Index>(batch - 1) * size);
    }
    return {};
  }

 private:
  bool binary_output_ = false;
};

// -- {Dense,Sparse,Ragged}CountSparseOutput -----------------------------------------------

// The counts of each batch: value -> count (or summed weight), in ascending value order.
template <class W>
using BatchedCounts = std::vector<std::map<Index, W>>;

// The shared attrs and the counting of the three CountSparseOutput kernels.
template <class W>
class CountSparseOutputBase : public StatusKernel {
 public:
  CountSparseOutputBase(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("minlength", &minlength_);
    if (s->ok()) *s = c.get_attr("maxlength", &maxlength_);
    if (s->ok()) *s = c.get_attr("binary_output", &binary_output_);
  }

 protected:
  // "Input values must all be non-negative".
  static Status check_non_negative(const std::vector<Index>& values) {
    for (Index v : values)
      if (v < 0) return invalid_argument("Input values must all be non-negative");
    return {};
  }

  // "Weights and <what> must have the same shape. ...": non-empty weights are shaped as
  // `values`.
  static Status check_weights(const Tensor& weights, const Tensor& values,
                              const std::string& what) {
    if (weights.num_elements() > 0 && !(weights.shape() == values.shape()))
      return invalid_argument("Weights and " + what + " must have the same shape. Weight shape: " +
                              weights.shape().to_string() + "; " + what +
                              " shape: " + values.shape().to_string());
    return {};
  }

  // Counts `value` (weight `weights[i]` if any) into `counts`; values at or above a
  // non-negative maxlength are dropped. Keeps the largest value counted in `*max_value`.
  void count(Index value, const W* weights, Index i, std::map<Index, W>& counts,
             Index* max_value) const {
    if (maxlength_ >= 0 && value >= maxlength_) return;
    if (binary_output_)
      counts[value] = W(1);
    else if (weights)
      counts[value] += weights[i];
    else
      counts[value] += W(1);
    *max_value = std::max(*max_value, value);
  }

  // OutputSparse: indices [n, 1] (1-D) or [n, 2] (batch, value), values, and the dense shape
  // [size] or [batches, size]; size is maxlength when set, else max(largest + 1, minlength),
  // `max_value` the largest value counted (0 when none was).
  void output(OpKernelContext& ctx, const BatchedCounts<W>& counts, bool is_1d,
              Index max_value) const {
    const Index size = maxlength_ >= 0 ? maxlength_ : std::max<Index>(max_value + 1, minlength_);
    Index total = 0;
    for (const auto& batch : counts) total += static_cast<Index>(batch.size());
    const Index inner = is_1d ? 1 : 2;
    std::int64_t* ix =
        ctx.allocate_output(0, DType::int64, Shape{total, inner}).template data<std::int64_t>();
    W* v = ctx.allocate_output(1, dtype_of_v<W>, Shape{total}).template data<W>();
    Index at = 0;
    for (std::size_t b = 0; b < counts.size(); ++b)
      for (const auto& [value, n] : counts[b]) {
        if (!is_1d) ix[at * inner] = static_cast<Index>(b);
        ix[at * inner + inner - 1] = value;
        v[at++] = n;
      }
    std::int64_t* shape =
        ctx.allocate_output(2, DType::int64, Shape{inner}).template data<std::int64_t>();
    if (!is_1d) shape[0] = static_cast<Index>(counts.size());
    shape[inner - 1] = size;
  }

  Index minlength_ = -1;
  Index maxlength_ = -1;
  bool binary_output_ = false;
};

// The weights of a count: null when empty, else their data (checked against the values'
// shape by the caller).
template <class W>
const W* weights_of(const Tensor& weights) {
  return weights.num_elements() > 0 ? weights.data<W>() : nullptr;
}

// DenseCountSparseOutput(values, weights; minlength, maxlength, binary_output): the counts of
// a vector's values, or of each row of a matrix, as a SparseTensor.
template <class W>
class DenseCountOp : public CountSparseOutputBase<W> {
 public:
  using CountSparseOutputBase<W>::CountSparseOutputBase;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& weights = ctx.input(1);
    if (data.rank() != 1 && data.rank() != 2)
      return invalid_argument("Input must be a 1 or 2-dimensional tensor. Got: " +
                              data.shape().to_string());
    const std::vector<Index> values = index_values(data);
    ACTORFLOW_RETURN_IF_ERROR(this->check_non_negative(values));
    ACTORFLOW_RETURN_IF_ERROR(this->check_weights(weights, data, "data"));
    const bool is_1d = data.rank() == 1;
    Index batches = 1;
    if (!is_1d) {
      if (data.shape().dim(0) == 0)
        return invalid_argument("Invalid input: Shapes dimension cannot be 0.");
      batches = data.shape().dim(0);
    }
    const Index per_batch = data.num_elements() / batches;
    const W* w = weights_of<W>(weights);
    BatchedCounts<W> counts(static_cast<std::size_t>(batches));
    Index max_value = 0;
    for (Index b = 0; b < batches; ++b)
      for (Index v = 0; v < per_batch; ++v) {
        const Index i = b * per_batch + v;
        this->count(values[static_cast<std::size_t>(i)], w, i, counts[static_cast<std::size_t>(b)],
                    &max_value);
      }
    this->output(ctx, counts, is_1d, max_value);
    return {};
  }
};

// SparseCountSparseOutput(indices, values, dense_shape, weights; ...): the counts of a
// SparseTensor's values, of all of them for a 1-D dense shape, else per first coordinate.
template <class W>
class SparseCountOp : public CountSparseOutputBase<W> {
 public:
  using CountSparseOutputBase<W>::CountSparseOutputBase;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values_t = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    const Tensor& weights = ctx.input(3);
    if (indices.rank() != 2)
      return invalid_argument("Input indices must be a 2-dimensional tensor. Got: " +
                              indices.shape().to_string());
    if (values_t.rank() != 1)
      return invalid_argument("Input values must be a vector. Got: " +
                              values_t.shape().to_string());
    if (shape.rank() != 1)
      return invalid_argument("Input shape must be a vector. Got: " + shape.shape().to_string());
    if (values_t.shape().dim(0) != indices.shape().dim(0))
      return invalid_argument("Number of values must match first dimension of indices.Got " +
                              std::to_string(values_t.shape().dim(0)) +
                              " values, indices shape: " + indices.shape().to_string());
    if (shape.shape().dim(0) != indices.shape().dim(1))
      return invalid_argument("Number of dimensions must match second dimension of indices.Got " +
                              std::to_string(shape.shape().dim(0)) +
                              " dimensions, indices shape: " + indices.shape().to_string());
    if (shape.num_elements() == 0)
      return invalid_argument("The shape argument requires at least one element.");
    const std::vector<Index> dims = index_values(shape);
    const std::int64_t* ix = indices.data<std::int64_t>();
    const Index nnz = indices.shape().dim(0), rank = indices.shape().dim(1);
    for (Index i = 0; i < nnz; ++i)
      for (Index j = 0; j < rank; ++j) {
        const Index v = ix[i * rank + j], d = dims[static_cast<std::size_t>(j)];
        if (v < 0 || v >= d)
          return invalid_argument(
              "Invalid index value at " + std::to_string(i) + ": dimension " + std::to_string(j) +
              " has value " + std::to_string(v) + " which is not in [0, " + std::to_string(d) +
              ") (as given by dense shape Tensor<type: int64 shape: " + shape.shape().to_string() +
              " values: " + detail::sparse::summarize_ints(shape, 3) + ">");
      }
    const std::vector<Index> values = index_values(values_t);
    ACTORFLOW_RETURN_IF_ERROR(this->check_non_negative(values));
    ACTORFLOW_RETURN_IF_ERROR(this->check_weights(weights, values_t, "values"));
    const bool is_1d = dims.size() == 1;
    const Index batches = is_1d ? 1 : dims[0];
    if (batches <= 0 || batches >= INT_MAX)
      return invalid_argument("Cannot allocate " + std::to_string(batches) +
                              " batches, is the dense shape too wide?");
    const W* w = weights_of<W>(weights);
    BatchedCounts<W> counts(static_cast<std::size_t>(batches));
    Index max_value = 0;
    for (Index i = 0; i < nnz; ++i)
      this->count(values[static_cast<std::size_t>(i)], w, i,
                  counts[static_cast<std::size_t>(is_1d ? 0 : ix[i * rank])], &max_value);
    this->output(ctx, counts, is_1d, max_value);
    return {};
  }
};

// RaggedCountSparseOutput(splits, values, weights; ...): the counts of each row of a ragged
// tensor, as a SparseTensor of [rows, size].
template <class W>
class RaggedCountOp : public CountSparseOutputBase<W> {
 public:
  using CountSparseOutputBase<W>::CountSparseOutputBase;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& values_t = ctx.input(1);
    const Tensor& weights = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(this->check_weights(weights, values_t, "values"));
    const std::vector<Index> splits = index_values(ctx.input(0));
    const std::vector<Index> values = index_values(values_t);
    const auto batches = static_cast<Index>(splits.size()) - 1;
    const auto num_values = static_cast<Index>(values.size());
    if (batches <= 0)
      return invalid_argument("Must provide at least 2 elements for the splits argument");
    ACTORFLOW_RETURN_IF_ERROR(check_splits_ends(splits, num_values));
    ACTORFLOW_RETURN_IF_ERROR(this->check_non_negative(values));
    const W* w = weights_of<W>(weights);
    BatchedCounts<W> counts(static_cast<std::size_t>(batches));
    Index max_value = 0;
    std::size_t batch = 0;
    for (Index i = 0; i < num_values; ++i) {
      while (i >= splits[batch]) ++batch;  // TensorFlow's walk, as RaggedBincount's
      this->count(values[static_cast<std::size_t>(i)], w, i, counts[batch - 1], &max_value);
    }
    this->output(ctx, counts, false, max_value);
    return {};
  }
};

// Registers Kernel<W> for `op` for each output_type W, T (the values) int32 or int64.
template <template <class> class Kernel, class... Ws>
void register_counts(KernelRegistry& r, const char* op) {
  (r.add(make_kernel_def<Kernel<Ws>>(
       op, "CPU", {{"T", detail::kIndexTypes}, {"output_type", {dtype_of_v<Ws>}}})),
   ...);
}

}  // namespace

namespace detail {

void register_sparse_more_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SparseSplitOp>("SparseSplit", "CPU", {{"T", kMovableTypes}}));
  register_for_types_on<SparseBincountOp, std::int32_t, std::int64_t, float, double>(
      r, "SparseBincount", "T", {{"Tidx", kIndexTypes}});
  register_for_types_on<RaggedBincountOp, std::int32_t, std::int64_t, float, double>(
      r, "RaggedBincount", "T", {{"Tidx", kIndexTypes}});
  register_counts<DenseCountOp, std::int32_t, std::int64_t, float, double>(
      r, "DenseCountSparseOutput");
  register_counts<SparseCountOp, std::int32_t, std::int64_t, float, double>(
      r, "SparseCountSparseOutput");
  register_counts<RaggedCountOp, std::int32_t, std::int64_t, float, double>(
      r, "RaggedCountSparseOutput");
}

}  // namespace detail

}  // namespace af
