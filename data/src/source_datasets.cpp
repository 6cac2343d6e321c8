// The datasets that start a pipeline (TensorFlow's tensor_dataset_op.cc,
// tensor_slice_dataset_op.cc, sparse_tensor_slice_dataset_op.cc, range_dataset_op.cc and
// reader_dataset_ops.cc, lmdb_dataset_op.cc): from tensors, slices of tensors, rows of a
// SparseTensor, a range, the records of TFRecord, text and fixed-length files and the entries of
// LMDB databases (read with the reader actors' sources, on the thread that asks for the next
// element).
#include <cstring>

#include "dataset_base.hpp"
#include "dataset_registration.hpp"
#include "record_source.hpp"

namespace af::data::detail {

namespace {

// -- TensorDataset: one element ------------------------------------------------------------

class TensorDataset final : public DatasetBase {
 public:
  TensorDataset(std::vector<Tensor> components, std::vector<DType> dtypes,
                std::vector<PartialShape> shapes)
      : DatasetBase("TensorDataset", std::move(dtypes), std::move(shapes)),
        components_(std::move(components)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : IteratorBase {
      std::shared_ptr<const TensorDataset> ds;
      bool done = false;
      Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
        *end = done;
        if (!done) *out = ds->components_;
        done = true;
        return {};
      }
    };
    auto it = std::make_unique<It>();
    it->ds = std::static_pointer_cast<const TensorDataset>(self());
    return it;
  }
  std::int64_t cardinality() const override { return 1; }

 private:
  std::vector<Tensor> components_;
};

class TensorDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::vector<Tensor> components;
    for (int i = 0; i < ctx.num_inputs(); ++i) components.push_back(ctx.input(i));
    *out = std::make_shared<TensorDataset>(std::move(components), dtypes_, shapes_);
    return {};
  }
};

// -- TensorSliceDataset: the rows of tensors -----------------------------------------------

class TensorSliceDataset final : public DatasetBase {
 public:
  TensorSliceDataset(std::vector<Tensor> components, std::vector<DType> dtypes,
                     std::vector<PartialShape> shapes)
      : DatasetBase("TensorSliceDataset", std::move(dtypes), std::move(shapes)),
        components_(std::move(components)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : IteratorBase {
      std::shared_ptr<const TensorSliceDataset> ds;
      std::int64_t next = 0;
      Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
        *end = next >= ds->cardinality();
        if (*end) return {};
        out->clear();
        for (const auto& c : ds->components_) out->push_back(row_of(c, next));
        ++next;
        return {};
      }
    };
    auto it = std::make_unique<It>();
    it->ds = std::static_pointer_cast<const TensorSliceDataset>(self());
    return it;
  }
  std::int64_t cardinality() const override { return components_.front().shape().dim(0); }

 private:
  std::vector<Tensor> components_;
};

class TensorSliceDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::vector<Tensor> components;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& t = ctx.input(i);
      if (t.shape().rank() == 0)
        return invalid_argument("All components must be at least 1-dimensional");
      if (!components.empty() && t.shape().dim(0) != components.front().shape().dim(0))
        return invalid_argument("All components must have the same size in the 0th dimension");
      components.push_back(t);
    }
    if (components.empty()) return invalid_argument("TensorSliceDataset needs a component");
    *out = std::make_shared<TensorSliceDataset>(std::move(components), dtypes_, shapes_);
    return {};
  }
};

// -- SparseTensorSliceDataset: the rows of a SparseTensor -----------------------------------

// Element i: the entries of row i (indices without their first coordinate, values, the dense
// shape without its first dimension), as TensorFlow's sparse_tensor_slice_dataset_op.cc.
class SparseTensorSliceDataset final : public DatasetBase {
 public:
  SparseTensorSliceDataset(Tensor indices, Tensor values, Tensor dense_shape)
      : DatasetBase("SparseTensorSliceDataset", {DType::int64, values.dtype(), DType::int64},
                    {PartialShape({-1, dense_shape.num_elements() - 1}), PartialShape({-1}),
                     PartialShape({dense_shape.num_elements() - 1})}),
        indices_(std::move(indices)),
        values_(std::move(values)),
        dense_shape_(std::move(dense_shape)) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : IteratorBase {
      std::shared_ptr<const SparseTensorSliceDataset> ds;
      std::int64_t row = 0;    // the next element
      std::int64_t entry = 0;  // the first entry not yet taken
      Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
        *end = row >= ds->cardinality();
        if (*end) return {};
        const std::int64_t rank = ds->dense_shape_.num_elements();
        const std::int64_t* idx = ds->indices_.data<std::int64_t>();
        const std::int64_t n = ds->indices_.shape().dim(0);
        std::int64_t last = entry;
        while (last < n && idx[last * rank] == row) ++last;
        Tensor indices(DType::int64, Shape{last - entry, rank - 1});
        std::int64_t* o = indices.data<std::int64_t>();
        for (std::int64_t e = entry; e < last; ++e)
          for (std::int64_t d = 1; d < rank; ++d) *o++ = idx[e * rank + d];
        Tensor values = ds->values_.slice_rows(entry, last);
        Tensor shape(DType::int64, Shape{rank - 1});
        std::copy(ds->dense_shape_.data<std::int64_t>() + 1,
                  ds->dense_shape_.data<std::int64_t>() + rank, shape.data<std::int64_t>());
        *out = {std::move(indices), std::move(values), std::move(shape)};
        entry = last;
        ++row;
        return {};
      }
    };
    auto it = std::make_unique<It>();
    it->ds = std::static_pointer_cast<const SparseTensorSliceDataset>(self());
    return it;
  }
  std::int64_t cardinality() const override { return dense_shape_.data<std::int64_t>()[0]; }

 private:
  Tensor indices_, values_, dense_shape_;
};

class SparseTensorSliceDatasetOp final : public StatusOpKernel {
 public:
  using StatusOpKernel::StatusOpKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& values = ctx.input(1);
    const Tensor& shape = ctx.input(2);
    if (indices.rank() != 2)
      return invalid_argument("Input indices must be a matrix. Got: " +
                              indices.shape().to_string());
    if (values.rank() != 1)
      return invalid_argument("Input values must be a vector. Got: " + values.shape().to_string());
    if (shape.rank() != 1)
      return invalid_argument("Input shape must be a vector. Got: " + shape.shape().to_string());
    if (values.shape().dim(0) != indices.shape().dim(0))
      return invalid_argument("Number of values must match first dimension of indices. Got " +
                              std::to_string(values.shape().dim(0)) +
                              " values, indices shape: " + indices.shape().to_string());
    if (shape.shape().dim(0) != indices.shape().dim(1))
      return invalid_argument("Number of dimensions must match second dimension of indices. Got " +
                              std::to_string(shape.shape().dim(0)) +
                              " dimensions, indices shape: " + indices.shape().to_string());
    if (shape.num_elements() == 0)
      return invalid_argument("The shape argument requires at least one element.");
    const std::int64_t rank = shape.num_elements();
    const std::int64_t* idx = indices.data<std::int64_t>();
    std::int64_t previous = -1;
    for (std::int64_t i = 0; i < indices.shape().dim(0); ++i) {
      if (idx[i * rank] < previous)
        return unimplemented(
            "The SparseTensor must be ordered in the batch dimension; handling arbitrarily "
            "ordered input is not currently supported.");
      previous = idx[i * rank];
    }
    ctx.set_output(
        0, dataset_tensor(std::make_shared<SparseTensorSliceDataset>(indices, values, shape)));
    return {};
  }
};

// -- RangeDataset ---------------------------------------------------------------------------

/// A scalar of `dtype` holding `v` (RangeDataset's integer and float outputs).
Tensor scalar_of(DType dtype, std::int64_t v) {
  switch (dtype) {
    case DType::int32:
      return Tensor(static_cast<std::int32_t>(v));
    case DType::float32:
      return Tensor(static_cast<float>(v));
    case DType::float64:
      return Tensor(static_cast<double>(v));
    default:
      return Tensor(v);
  }
}

class RangeDataset final : public DatasetBase {
 public:
  RangeDataset(std::int64_t start, std::int64_t stop, std::int64_t step, std::vector<DType> dtypes,
               std::vector<PartialShape> shapes)
      : DatasetBase("RangeDataset", std::move(dtypes), std::move(shapes)),
        start_(start),
        stop_(stop),
        step_(step) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : IteratorBase {
      std::shared_ptr<const RangeDataset> ds;
      std::int64_t next = 0;
      Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
        const auto& d = *ds;
        *end = d.step_ > 0 ? next >= d.stop_ : next <= d.stop_;
        if (*end) return {};
        *out = {scalar_of(d.dtypes().front(), next)};
        next += d.step_;
        return {};
      }
    };
    auto it = std::make_unique<It>();
    it->ds = std::static_pointer_cast<const RangeDataset>(self());
    it->next = start_;
    return it;
  }
  std::int64_t cardinality() const override {
    if (step_ > 0) return std::max<std::int64_t>(0, (stop_ - start_ - 1) / step_ + 1);
    return std::max<std::int64_t>(0, (start_ - stop_ - 1) / -step_ + 1);
  }

 private:
  std::int64_t start_, stop_, step_;
};

class RangeDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  Status make(OpKernelContext& ctx, std::shared_ptr<const DatasetBase>* out) override {
    std::int64_t start = 0, stop = 0, step = 0;
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 0, "start", &start));
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "stop", &stop));
    ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "step", &step));
    if (step == 0) return invalid_argument("step must be a non-zero integer.");
    *out = std::make_shared<RangeDataset>(start, stop, step, dtypes_, shapes_);
    return {};
  }
};

// -- file datasets --------------------------------------------------------------------------

using SourceFactory = std::function<std::unique_ptr<af::detail::RecordSource>()>;

/// The records of each file in turn, as one string scalar per element, or with `keys` as two:
/// the record's key and its value (LMDBDataset).
class RecordFileDataset final : public DatasetBase {
 public:
  RecordFileDataset(std::string op, std::vector<std::string> files, SourceFactory make_source,
                    bool keys)
      : DatasetBase(
            std::move(op), std::vector<DType>(keys ? 2 : 1, DType::string),
            std::vector<PartialShape>(keys ? 2 : 1, PartialShape(std::vector<std::int64_t>{}))),
        files_(std::move(files)),
        make_source_(std::move(make_source)),
        keys_(keys) {}

  std::unique_ptr<IteratorBase> make_iterator() const override {
    struct It final : IteratorBase {
      std::shared_ptr<const RecordFileDataset> ds;
      std::size_t file = 0;
      std::unique_ptr<af::detail::RecordSource> source;
      Status get_next(const IteratorEnv&, std::vector<Tensor>* out, bool* end) override {
        while (file < ds->files_.size()) {
          if (!source) {
            auto fresh = ds->make_source_();
            ACTORFLOW_RETURN_IF_ERROR(fresh->open(ds->files_[file]));
            source = std::move(fresh);
          }
          bool produced = false, at_end = false;
          if (ds->keys_) {
            std::string key, value;
            ACTORFLOW_RETURN_IF_ERROR(source->read(&key, &value, &produced, &at_end));
            if (produced) *out = {Tensor(std::move(key)), Tensor(std::move(value))};
          } else {
            std::string_view value;
            ACTORFLOW_RETURN_IF_ERROR(source->read_view(&value, &produced, &at_end));
            if (produced) *out = {Tensor(std::string(value))};
          }
          if (produced) {
            *end = false;
            return {};
          }
          if (at_end) {
            source->close();
            source.reset();
            ++file;
          }
        }
        *end = true;
        return {};
      }
    };
    auto it = std::make_unique<It>();
    it->ds = std::static_pointer_cast<const RecordFileDataset>(self());
    return it;
  }

 private:
  std::vector<std::string> files_;
  SourceFactory make_source_;
  bool keys_;
};

/// The file names of input 0: a string scalar or vector (TensorFlow: "`filenames` must be a
/// scalar or a vector.").
Status file_names(const OpKernelContext& ctx, std::vector<std::string>* out) {
  const Tensor& t = ctx.input(0);
  if (t.dtype() != DType::string || t.shape().rank() > 1)
    return invalid_argument("`filenames` must be a scalar or a vector.");
  const auto* names = t.data<std::string>();
  out->assign(names, names + t.num_elements());
  return {};
}

// -1 asks for the default buffer (TensorFlow's kUnspecifiedBufferSize).
Status check_buffer_size(std::int64_t buffer) {
  if (buffer < -1) return invalid_argument("`buffer_size` must be >= 0 (0 == no buffering)");
  return {};
}

Status compression(const std::string& type) {
  if (type.empty() || type == "ZLIB" || type == "GZIP") return {};
  return invalid_argument("Unsupported compression_type: " + type + ".");
}

/// The kernel of a file dataset: file names in input 0, the rest read by `read_args`.
class FileDatasetOp final : public StatusOpKernel {
 public:
  using Reader = std::function<Status(const OpKernelContext&, SourceFactory*)>;
  FileDatasetOp(OpKernelConstruction& c, Reader reader, bool keys)
      : StatusOpKernel(c), op_(c.def.op), reader_(std::move(reader)), keys_(keys) {}

 protected:
  Status run(OpKernelContext& ctx) override {
    std::vector<std::string> files;
    ACTORFLOW_RETURN_IF_ERROR(file_names(ctx, &files));
    SourceFactory factory;
    ACTORFLOW_RETURN_IF_ERROR(reader_(ctx, &factory));
    ctx.set_output(0, dataset_tensor(std::make_shared<RecordFileDataset>(
                          op_, std::move(files), std::move(factory), keys_)));
    return {};
  }

 private:
  std::string op_;
  Reader reader_;
  bool keys_;
};

Status tf_record_reader(const OpKernelContext& ctx, SourceFactory* out) {
  std::string type;
  ACTORFLOW_RETURN_IF_ERROR(scalar_string(ctx, 1, "compression_type", &type));
  ACTORFLOW_RETURN_IF_ERROR(compression(type));
  std::int64_t buffer = 0;
  ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "buffer_size", &buffer));
  ACTORFLOW_RETURN_IF_ERROR(check_buffer_size(buffer));
  *out = [type] { return af::detail::make_tf_record_source(type); };
  return {};
}

Status text_line_reader(const OpKernelContext& ctx, SourceFactory* out) {
  std::string type;
  ACTORFLOW_RETURN_IF_ERROR(scalar_string(ctx, 1, "compression_type", &type));
  ACTORFLOW_RETURN_IF_ERROR(compression(type));
  std::int64_t buffer = 0;
  ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "buffer_size", &buffer));
  ACTORFLOW_RETURN_IF_ERROR(check_buffer_size(buffer));
  *out = [type] {
    af::detail::TextLineOptions o;
    o.encoding = type;
    return af::detail::make_text_line_source(o);
  };
  return {};
}

Status fixed_length_reader(const OpKernelContext& ctx, SourceFactory* out) {
  af::detail::FixedLengthOptions o;
  ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 1, "header_bytes", &o.header_bytes));
  ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 2, "record_bytes", &o.record_bytes));
  ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 3, "footer_bytes", &o.footer_bytes));
  std::int64_t buffer = 0;
  ACTORFLOW_RETURN_IF_ERROR(scalar_int64(ctx, 4, "buffer_size", &buffer));
  if (o.header_bytes < 0) return invalid_argument("`header_bytes` must be >= 0");
  if (o.record_bytes <= 0) return invalid_argument("`record_bytes` must be > 0");
  if (o.footer_bytes < 0) return invalid_argument("`footer_bytes` must be >= 0");
  ACTORFLOW_RETURN_IF_ERROR(check_buffer_size(buffer));
  if (ctx.num_inputs() > 5) {
    ACTORFLOW_RETURN_IF_ERROR(scalar_string(ctx, 5, "compression_type", &o.encoding));
    ACTORFLOW_RETURN_IF_ERROR(compression(o.encoding));
  }
  *out = [o] { return af::detail::make_fixed_length_source(o); };
  return {};
}

// LMDBDataset(filenames): each database's keys and values (lmdb_dataset_op.cc; an empty
// database is passed over, where TensorFlow's iterator loops on it forever).
Status lmdb_reader(const OpKernelContext&, SourceFactory* out) {
  *out = [] { return af::detail::make_lmdb_source(); };
  return {};
}

template <Status (*Reader)(const OpKernelContext&, SourceFactory*), bool kKeys = false>
KernelDef file_kernel(const std::string& op) {
  KernelDef d;
  d.op = op;
  d.device_type = "CPU";
  d.factory = [](OpKernelConstruction& c, Status*) -> std::unique_ptr<OpKernel> {
    return std::make_unique<FileDatasetOp>(c, Reader, kKeys);
  };
  return d;
}

}  // namespace

void register_source_datasets(OpRegistry& ops, KernelRegistry& kernels) {
  for (const char* op : {"TensorDataset", "TensorSliceDataset", "RangeDataset", "TFRecordDataset",
                         "TFRecordDatasetV2", "TextLineDataset", "FixedLengthRecordDataset",
                         "FixedLengthRecordDatasetV2"})
    add_dataset_op(ops, op);
  kernels.add(make_kernel_def<TensorDatasetOp>("TensorDataset", "CPU"));
  kernels.add(make_kernel_def<TensorSliceDatasetOp>("TensorSliceDataset", "CPU"));
  kernels.add(make_kernel_def<RangeDatasetOp>("RangeDataset", "CPU"));
  add_dataset_op(ops, "SparseTensorSliceDataset");
  kernels.add(make_kernel_def<SparseTensorSliceDatasetOp>("SparseTensorSliceDataset", "CPU"));
  kernels.add(file_kernel<tf_record_reader>("TFRecordDataset"));
  kernels.add(file_kernel<tf_record_reader>("TFRecordDatasetV2"));
  kernels.add(file_kernel<text_line_reader>("TextLineDataset"));
  kernels.add(file_kernel<fixed_length_reader>("FixedLengthRecordDataset"));
  kernels.add(file_kernel<fixed_length_reader>("FixedLengthRecordDatasetV2"));
  for (const char* op : {"LMDBDataset", "ExperimentalLMDBDataset"}) {
    add_dataset_op(ops, op);
    kernels.add(file_kernel<lmdb_reader, true>(op));
  }
}

}  // namespace af::data::detail
