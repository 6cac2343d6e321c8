// Batching (TensorFlow's batch_dataset_op.cc, padded_batch_dataset_op.cc and
// dense_to_sparse_batch_dataset_op.cc): consecutive elements stacked along a new first
// dimension, padded to a common shape for padded_batch, or gathered into one SparseTensor.
#include <algorithm>
#include <cstring>

#include "dataset_base.hpp"
#include "dataset_factories.hpp"
#include "dataset_registration.hpp"
#include "variant_values.hpp"

namespace af::data::detail {

namespace {

/// Copies element `src_index` of `src` to element `dst_index` of `dst` (same dtype).
void copy_element(const Tensor& src, std::int64_t src_index, Tensor& dst, std::int64_t dst_index) {
  switch (src.dtype()) {
    case DType::string:
      dst.data<std::string>()[dst_index] = src.data<std::string>()[src_index];
      return;
    case DType::variant:
      dst.data<Variant>()[dst_index] = src.data<Variant>()[src_index];
      return;
    default: {
      const std::size_t size = dtype_size(src.dtype());
      std::memcpy(static_cast<char*>(dst.raw_data()) + dst_index * size,
                  static_cast<const char*>(src.raw_data()) + src_index * size, size);
    }
  }
}

/// `rows` (one shape) stacked into a tensor of shape [rows, ...].
Tensor stack(const std::vector<Tensor>& rows) {
  const Tensor& first = rows.front();
  std::vector<std::int64_t> dims{static_cast<std::int64_t>(rows.size())};
  dims.insert(dims.end(), first.shape().dims().begin(), first.shape().dims().end());
  Tensor out(first.dtype(), Shape(dims));
  const std::int64_t n = first.num_elements();
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (first.dtype() == DType::string || first.dtype() == DType::variant) {
      for (std::int64_t i = 0; i < n; ++i)
        copy_element(rows[r], i, out, static_cast<std::int64_t>(r) * n + i);
    } else if (n > 0) {
      const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(first.dtype());
      std::memcpy(static_cast<char*>(out.raw_data()) + r * bytes, rows[r].raw_data(), bytes);
    }
  }
  return out;
}

/// Copies `src` into row `row` of `dst` (whose row shape is at least `src`'s in every
/// dimension), the rest of the row already holding the padding value.
void pad_into(const Tensor& src, Tensor& dst, std::int64_t row) {
  const auto& s = src.shape().dims();
  const auto& d = dst.shape().dims();
  const int rank = static_cast<int>(s.size());
  std::int64_t row_size = 1;
  for (int i = 1; i <= rank; ++i) row_size *= d[static_cast<std::size_t>(i)];
  const std::int64_t n = src.num_elements();
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t offset = 0;
    for (int i = 0; i < rank; ++i) offset = offset * d[static_cast<std::size_t>(i) + 1] + index[i];
    copy_element(src, k, dst, row * row_size + offset);
    for (int i = rank - 1; i >= 0; --i) {
      if (++index[static_cast<std::size_t>(i)] < s[static_cast<std::size_t>(i)]) break;
      index[static_cast<std::size_t>(i)] = 0;
    }
  }
}

class BatchDataset final : public UnaryDataset {
 public:
  struct Padding {
    std::vector<std::vector<std::int64_t>> shapes;  // per component; -1: the batch's largest
    std::vector<Tensor> values;                     // per component, scalars
  };

  BatchDataset(std::string op, std::shared_ptr<const DatasetBase> input, std::int64_t batch_size,
               bool drop_remainder, std::optional<Padding> padding, std::vector<DType> dtypes,
               std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        padding_(std::move(padding)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<BatchDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      bool input_done = false;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        std::vector<std::vector<Tensor>> elements;
        while (!input_done && static_cast<std::int64_t>(elements.size()) < ds->batch_size_) {
          std::vector<Tensor> element;
          bool input_end = false;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, &input_end));
          if (input_end) {
            input_done = true;
            break;
          }
          elements.push_back(std::move(element));
        }
        if (elements.empty() ||
            (ds->drop_remainder_ && static_cast<std::int64_t>(elements.size()) < ds->batch_size_)) {
          *end = true;
          return {};
        }
        *end = false;
        return ds->padding_ ? ds->padded(elements, out) : ds->batch(elements, out);
      }
    };
    return std::make_unique<It>(*this);
  }

  std::int64_t cardinality() const override {
    const std::int64_t n = input().cardinality();
    if (n < 0) return n;
    return n / batch_size_ + (!drop_remainder_ && n % batch_size_ != 0 ? 1 : 0);
  }

 private:
  Status batch(const std::vector<std::vector<Tensor>>& elements, std::vector<Tensor>* out) const {
    out->clear();
    const std::size_t components = elements.front().size();
    for (std::size_t c = 0; c < components; ++c) {
      std::vector<Tensor> rows;
      for (std::size_t e = 0; e < elements.size(); ++e) {
        const Tensor& t = elements[e][c];
        if (e > 0 && t.shape() != rows.front().shape())
          return invalid_argument("Cannot batch tensors with different shapes in component " +
                                  std::to_string(c) + ". First element had shape " +
                                  rows.front().shape().to_string() + " and element " +
                                  std::to_string(e) + " had shape " + t.shape().to_string() + ".");
        rows.push_back(t);
      }
      out->push_back(stack(rows));
    }
    return {};
  }

  Status padded(const std::vector<std::vector<Tensor>>& elements, std::vector<Tensor>* out) const {
    out->clear();
    const std::size_t components = elements.front().size();
    for (std::size_t c = 0; c < components; ++c) {
      const auto& padded_shape = padding_->shapes[c];
      std::vector<std::int64_t> dims = padded_shape;
      for (auto& d : dims)
        if (d < 0) d = 0;
      for (const auto& element : elements) {
        const Tensor& t = element[c];
        if (t.shape().rank() != static_cast<int>(padded_shape.size()))
          return invalid_argument(
              "All elements in a batch must have the same rank as the padded shape for "
              "component" +
              std::to_string(c) + ": expected rank " + std::to_string(padded_shape.size()) +
              " but got element with rank " + std::to_string(t.shape().rank()));
        for (std::size_t i = 0; i < dims.size(); ++i) {
          const std::int64_t size = t.shape().dim(static_cast<int>(i));
          if (padded_shape[i] < 0)
            dims[i] = std::max(dims[i], size);
          else if (size > padded_shape[i])
            return data_loss("Attempted to pad to a smaller size than the input element.");
        }
      }
      const Tensor& value = padding_->values[c];
      std::vector<std::int64_t> batch_dims{static_cast<std::int64_t>(elements.size())};
      batch_dims.insert(batch_dims.end(), dims.begin(), dims.end());
      Tensor batch(value.dtype(), Shape(batch_dims));
      for (std::int64_t i = 0; i < batch.num_elements(); ++i) copy_element(value, 0, batch, i);
      for (std::size_t e = 0; e < elements.size(); ++e)
        pad_into(elements[e][c], batch, static_cast<std::int64_t>(e));
      out->push_back(std::move(batch));
    }
    return {};
  }

  std::int64_t batch_size_;
  bool drop_remainder_;
  std::optional<Padding> padding_;
};

Status batch_size_and_remainder(OpKernelContext& ctx, int drop_index, std::int64_t* batch_size,
                                bool* drop_remainder) {
  ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "batch_size", batch_size));
  if (*batch_size <= 0) return invalid_argument("Batch size must be greater than zero.");
  *drop_remainder = false;
  if (drop_index >= 0 && drop_index < ctx.num_inputs()) {
    const Tensor& t = ctx.input(drop_index);
    if (t.dtype() != DType::boolean || t.num_elements() != 1)
      return invalid_argument("drop_remainder must be a scalar bool");
    *drop_remainder = t.data<bool>()[0];
  }
  return {};
}

struct Batch {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    std::int64_t batch_size = 0;
    bool drop = false;
    // BatchDatasetV2: input, batch_size, drop_remainder; ParallelBatchDataset: input,
    // batch_size, num_parallel_calls, drop_remainder.
    const int drop_index = op == "BatchDatasetV2" ? 2 : op == "ParallelBatchDataset" ? 3 : -1;
    ACTORFLOW_RETURN_IF_ERROR(batch_size_and_remainder(ctx, drop_index, &batch_size, &drop));
    *out = std::make_shared<BatchDataset>(op, std::move(input), batch_size, drop, std::nullopt,
                                          dtypes, shapes);
    return {};
  }
};

// PaddedBatchDataset(V2): input, batch_size, padded_shapes (N int64 vectors), padding_values
// (N scalars)[, drop_remainder].
struct PaddedBatch {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    const int n = static_cast<int>(dtypes.size());
    if (ctx.num_inputs() < 2 + 2 * n)
      return invalid_argument(op + " needs " + std::to_string(n) +
                              " padded shapes and padding values");
    std::int64_t batch_size = 0;
    bool drop = false;
    ACTORFLOW_RETURN_IF_ERROR(batch_size_and_remainder(
        ctx, op == "PaddedBatchDatasetV2" ? 2 + 2 * n : -1, &batch_size, &drop));
    BatchDataset::Padding padding;
    for (int i = 0; i < n; ++i) {
      const Tensor& s = ctx.input(2 + i);
      if (s.shape().rank() != 1 || s.dtype() != DType::int64)
        return invalid_argument("All padded shapes must be vectors, but component " +
                                std::to_string(i) + " has shape " + s.shape().to_string() + ".");
      const auto* d = s.data<std::int64_t>();
      padding.shapes.emplace_back(d, d + s.num_elements());
      const Tensor& v = ctx.input(2 + n + i);
      if (v.num_elements() != 1 || v.shape().rank() != 0)
        return invalid_argument("All padding values must be scalars, but component " +
                                std::to_string(i) + " has shape " + v.shape().to_string() + ".");
      if (v.dtype() != dtypes[static_cast<std::size_t>(i)])
        return invalid_argument("Mismatched type between padding value " + std::to_string(i) +
                                " and input dataset's component " + std::to_string(i) + ": " +
                                std::string(data_type_string(v.dtype())) + " vs. " +
                                std::string(data_type_string(dtypes[static_cast<std::size_t>(i)])));
      padding.values.push_back(v);
    }
    *out = std::make_shared<BatchDataset>(op, std::move(input), batch_size, drop,
                                          std::move(padding), dtypes, shapes);
    return {};
  }
};

// -- DenseToSparseBatchDataset: batch_size elements as one SparseTensor --------------------

// tf.data.experimental.dense_to_sparse_batch: every value of each element becomes an entry
// of a SparseTensor [batch] + row_shape (a -1 dimension the batch's largest), carried
// serialized in a variant [3] (indices, values, dense shape).
class DenseToSparseBatchDataset final : public UnaryDataset {
 public:
  DenseToSparseBatchDataset(std::string op, std::shared_ptr<const DatasetBase> input,
                            std::int64_t batch_size, std::vector<std::int64_t> row_shape,
                            std::vector<DType> dtypes, std::vector<PartialShape> shapes)
      : UnaryDataset(std::move(op), std::move(input), std::move(dtypes), std::move(shapes)),
        batch_size_(batch_size),
        row_shape_(std::move(row_shape)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : DatasetIterator<DenseToSparseBatchDataset> {
      using DatasetIterator::DatasetIterator;
      std::unique_ptr<IteratorBase> input;
      Status get_next(const IteratorEnv& env, std::vector<Tensor>* out, bool* end) override {
        if (!input) input = ds->input().make_iterator();
        const auto& row = ds->row_shape_;
        const auto rank = static_cast<std::int64_t>(row.size());
        std::vector<std::int64_t> dense(row.size() + 1, 0);
        for (std::size_t i = 0; i < row.size(); ++i) dense[i + 1] = row[i] == -1 ? 0 : row[i];
        std::vector<Tensor> batch;
        std::int64_t total = 0;
        *end = false;
        while (static_cast<std::int64_t>(batch.size()) < ds->batch_size_ && !*end) {
          std::vector<Tensor> element;
          ACTORFLOW_RETURN_IF_ERROR(input->get_next(env, &element, end));
          if (*end) break;
          const Tensor& t = element[0];
          if (t.shape().rank() != rank)
            return invalid_argument("Input element had shape (" + t.shape().to_string() +
                                    ") that is incompatible with the row shape (" +
                                    PartialShape(row).to_string() + ").");
          for (int j = 0; j < rank; ++j) {
            const auto u = static_cast<std::size_t>(j);
            if (row[u] == -1)
              dense[u + 1] = std::max(dense[u + 1], t.shape().dim(j));
            else if (t.shape().dim(j) > row[u])
              return data_loss("Input element had shape (" + t.shape().to_string() +
                               ") that is larger than the row shape (" +
                               PartialShape(row).to_string() + ").");
          }
          total += t.num_elements();
          batch.push_back(t);
        }
        if (batch.empty()) {
          *end = true;
          return {};
        }
        *end = false;
        Tensor indices(DType::int64, Shape{total, rank + 1});
        Tensor values(ds->input().dtypes()[0], Shape{total});
        std::int64_t at = 0;
        for (std::size_t b = 0; b < batch.size(); ++b) {
          const Tensor& t = batch[b];
          std::vector<std::int64_t> strides(row.size(), 1);
          for (std::int64_t k = rank - 2; k >= 0; --k)
            strides[static_cast<std::size_t>(k)] =
                strides[static_cast<std::size_t>(k) + 1] * t.shape().dim(static_cast<int>(k) + 1);
          for (std::int64_t j = 0; j < t.num_elements(); ++j, ++at) {
            copy_element(t, j, values, at);
            std::int64_t* ix = indices.data<std::int64_t>() + at * (rank + 1);
            ix[0] = static_cast<std::int64_t>(b);
            std::int64_t rest = j;
            for (std::size_t k = 0; k < strides.size(); ++k) {
              ix[k + 1] = rest / strides[k];
              rest %= strides[k];
            }
          }
        }
        dense[0] = static_cast<std::int64_t>(batch.size());
        Tensor sparse(DType::variant, Shape{3});
        const Tensor parts[] = {indices, values, Tensor::from_vector(dense)};
        for (int k = 0; k < 3; ++k)
          sparse.data<Variant>()[k] = Variant(std::make_shared<af::detail::TensorValue>(parts[k]));
        out->assign(1, std::move(sparse));
        return {};
      }
    };
    return std::make_unique<It>(*this);
  }
  std::int64_t cardinality() const override {
    const std::int64_t n = input().cardinality();
    return n < 0 ? n : n / batch_size_ + (n % batch_size_ != 0 ? 1 : 0);
  }

 private:
  std::int64_t batch_size_;
  std::vector<std::int64_t> row_shape_;
};

// Inputs: input_dataset, batch_size, row_shape.
struct DenseToSparseBatch {
  static Status make(OpKernelContext& ctx, const std::string& op,
                     std::shared_ptr<const DatasetBase> input, const std::vector<DType>& dtypes,
                     const std::vector<PartialShape>& shapes,
                     std::shared_ptr<const DatasetBase>* out) {
    if (input->dtypes().size() != 1)
      return invalid_argument(
          "DenseToSparseBatchDataset only supports inputs with a single component.");
    std::int64_t batch_size = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "batch_size", &batch_size));
    if (batch_size <= 0) return invalid_argument("Batch size must be greater than zero.");
    const Tensor& row = ctx.input(2);
    if (row.shape().rank() != 1 || row.dtype() != DType::int64)
      return invalid_argument("row_shape must be a vector");
    std::vector<std::int64_t> row_shape(row.data<std::int64_t>(),
                                        row.data<std::int64_t>() + row.num_elements());
    *out = std::make_shared<DenseToSparseBatchDataset>(op, std::move(input), batch_size,
                                                       std::move(row_shape), dtypes, shapes);
    return {};
  }
};

}  // namespace

std::shared_ptr<const DatasetBase> make_batch_dataset(std::string op,
                                                      std::shared_ptr<const DatasetBase> input,
                                                      std::int64_t batch_size, bool drop_remainder,
                                                      std::vector<DType> dtypes,
                                                      std::vector<PartialShape> shapes) {
  return std::make_shared<BatchDataset>(std::move(op), std::move(input), batch_size, drop_remainder,
                                        std::nullopt, std::move(dtypes), std::move(shapes));
}

void register_batch_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op : {"BatchDataset", "BatchDatasetV2", "ParallelBatchDataset",
                         "PaddedBatchDataset", "PaddedBatchDatasetV2", "DenseToSparseBatchDataset",
                         "ExperimentalDenseToSparseBatchDataset"})
    add_dataset_op(ops, op);
  for (const char* op : {"DenseToSparseBatchDataset", "ExperimentalDenseToSparseBatchDataset"})
    kernels.add(make_kernel_def<UnaryDatasetOp<DenseToSparseBatch>>(op, "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<Batch>>("ParallelBatchDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<Batch>>("BatchDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<Batch>>("BatchDatasetV2", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<PaddedBatch>>("PaddedBatchDataset", "CPU"));
  kernels.add(make_kernel_def<UnaryDatasetOp<PaddedBatch>>("PaddedBatchDatasetV2", "CPU"));
}

}  // namespace af::data::detail
