// The sparse gradient accumulator (TensorFlow's sparse_conditional_accumulator.h and
// sparse_conditional_accumulator_op.cc): the CPU kernels of SparseConditionalAccumulator,
// SparseAccumulatorApplyGradient and SparseAccumulatorTakeGradient. It sums IndexedSlices as
// TensorFlow does: the first gradient is copied as it is; each later one is merge-joined with
// the sum, indices assumed ascending (rows with equal indices met at the same point of the
// join are added, every other row kept), and each row counts the gradients it took in; MEAN
// divides every row by its own count. The take's shape is the declared first dimension (-1
// when none) and the values' others. The protocol (steps, takes) is accumulator.hpp's.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "accumulator.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/kernel.hpp"
#include "standard_kernels.hpp"

namespace af::detail {

namespace {

class SparseAccumulator final : public AccumulatorBase {
 public:
  using AccumulatorBase::AccumulatorBase;

  /// Validates and adds the slices (under the base's lock). `shape` is null without
  /// has_known_shape.
  Status add(const Tensor& indices, const Tensor& values, const Tensor* shape) {
    ACTORFLOW_RETURN_IF_ERROR(validate(indices, values, shape));
    const std::int64_t* idx = indices.data<std::int64_t>();
    const std::int64_t nnz = indices.num_elements();
    if (count() == 0) {
      indices_.assign(idx, idx + nnz);
      counts_.assign(static_cast<std::size_t>(nnz), 1);
      values_ = values.deep_copy();
      return {};
    }
    merge(idx, nnz, values);
    return {};
  }

 protected:
  std::vector<Tensor> take_sum() override {
    if (mean()) divide_rows();
    // ReturnShapeTensor: the declared first dimension (or -1), then the values' others.
    std::vector<std::int64_t> shape(static_cast<std::size_t>(values_.rank()));
    if (!shape.empty())
      shape[0] = declared_shape().rank_known() && declared_shape().rank() > 0
                     ? declared_shape().dim(0)
                     : -1;
    for (int i = 1; i < values_.rank(); ++i)
      shape[static_cast<std::size_t>(i)] = values_.shape().dim(i);
    Tensor dense_shape = Tensor::from_vector(shape, Shape{values_.rank()});
    std::vector<Tensor> out{
        Tensor::from_vector(indices_, Shape{static_cast<std::int64_t>(indices_.size())}),
        std::move(values_), std::move(dense_shape)};
    indices_.clear();
    counts_.clear();
    values_ = Tensor();
    return out;
  }

 private:
  // ValidateShape, with TensorFlow's texts.
  Status validate(const Tensor& indices, const Tensor& values, const Tensor* shape) const {
    const PartialShape& declared = declared_shape();
    const int declared_rank = declared.rank_known() ? declared.rank() : 0;
    if (shape != nullptr) {
      if (declared_rank > shape->num_elements())
        return invalid_argument("Shape mismatch: expected shape rank at least " +
                                std::to_string(declared_rank) + ", got " +
                                std::to_string(shape->num_elements()));
      for (int i = 0; i < declared_rank; ++i) {
        const std::int64_t got = shape->data<std::int64_t>()[i];
        if (declared.dim(i) != -1 && declared.dim(i) != got)
          return invalid_argument("Shape mismatch: expected shape dim " + std::to_string(i) +
                                  " to be " + std::to_string(declared.dim(i)) + ", got " +
                                  std::to_string(got));
      }
    }
    if (declared_rank > 0 && declared.dim(0) != -1 && indices.rank() > 0) {
      for (std::int64_t i = 0; i < indices.num_elements(); ++i) {
        const std::int64_t index = indices.data<std::int64_t>()[i];
        if (index >= declared.dim(0))
          return invalid_argument("Shape mismatch: index of slice " + std::to_string(i) +
                                  " exceeded limits of shape; index is " + std::to_string(index) +
                                  " exceeded " + std::to_string(declared.dim(0)));
      }
    }
    if (count() > 0) {
      if (values_.rank() != values.rank())
        return invalid_argument("Shape mismatch: expected values rank " +
                                std::to_string(values_.rank()) + ", got " +
                                std::to_string(values.rank()));
      for (int i = 1; i < values.rank(); ++i)
        if (values_.shape().dim(i) != values.shape().dim(i))
          return invalid_argument("Shape mismatch: expected values dim " + std::to_string(i) +
                                  " to be " + std::to_string(values_.shape().dim(i)) + ", got " +
                                  std::to_string(values.shape().dim(i)));
    } else {
      if (declared_rank > values.rank())
        return invalid_argument("Shape mismatch: expected values rank at least " +
                                std::to_string(declared_rank) + ", got " +
                                std::to_string(values.rank()));
      for (int i = 1; i < declared_rank; ++i)
        if (declared.dim(i) != -1 && declared.dim(i) != values.shape().dim(i))
          return invalid_argument("Shape mismatch: expected values dim " + std::to_string(i) +
                                  " to be " + std::to_string(declared.dim(i)) + ", got " +
                                  std::to_string(values.shape().dim(i)));
    }
    return {};
  }

  // AddToAccumGradFunction: one merge join of the sum's and the gradient's indices.
  void merge(const std::int64_t* idx, std::int64_t nnz, const Tensor& values) {
    const auto accum_nnz = static_cast<std::int64_t>(indices_.size());
    const std::int64_t row = row_size(values);
    enum class From { accum, grad, both };
    struct Entry {
      From from;
      std::int64_t i, j;
    };
    std::vector<Entry> entries;
    entries.reserve(static_cast<std::size_t>(accum_nnz + nnz));
    std::int64_t i = 0, j = 0;
    while (i < accum_nnz && j < nnz) {
      const std::int64_t a = indices_[static_cast<std::size_t>(i)], b = idx[j];
      if (a < b) {
        entries.push_back({From::accum, i++, -1});
      } else if (a == b) {
        entries.push_back({From::both, i++, j++});
      } else {
        entries.push_back({From::grad, -1, j++});
      }
    }
    for (; i < accum_nnz; ++i) entries.push_back({From::accum, i, -1});
    for (; j < nnz; ++j) entries.push_back({From::grad, -1, j});

    std::vector<std::int64_t> sum_indices;
    std::vector<int> sum_counts;
    sum_indices.reserve(entries.size());
    sum_counts.reserve(entries.size());
    std::vector<std::int64_t> dims(values.shape().dims().begin(), values.shape().dims().end());
    dims[0] = static_cast<std::int64_t>(entries.size());
    Tensor sum(dtype(), Shape(dims));
    visit_float(dtype(), [&](auto tag) {
      using T = decltype(tag);
      using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const T* accum = values_.data<T>();
      const T* grad = values.data<T>();
      T* out = sum.data<T>();
      for (std::size_t k = 0; k < entries.size(); ++k) {
        const Entry& e = entries[k];
        T* dst = out + static_cast<std::int64_t>(k) * row;
        switch (e.from) {
          case From::both:
            for (std::int64_t c = 0; c < row; ++c)
              dst[c] = T(Wide(accum[e.i * row + c]) + Wide(grad[e.j * row + c]));
            sum_indices.push_back(indices_[static_cast<std::size_t>(e.i)]);
            sum_counts.push_back(counts_[static_cast<std::size_t>(e.i)] + 1);
            break;
          case From::accum:
            std::copy_n(accum + e.i * row, row, dst);
            sum_indices.push_back(indices_[static_cast<std::size_t>(e.i)]);
            sum_counts.push_back(counts_[static_cast<std::size_t>(e.i)]);
            break;
          case From::grad:
            std::copy_n(grad + e.j * row, row, dst);
            sum_indices.push_back(idx[e.j]);
            sum_counts.push_back(1);
            break;
        }
      }
    });
    indices_ = std::move(sum_indices);
    counts_ = std::move(sum_counts);
    values_ = std::move(sum);
  }

  // DivideAccumGradByCounter: each row by the number of gradients that reached it.
  void divide_rows() {
    const auto nnz = static_cast<std::int64_t>(indices_.size());
    if (nnz == 0) return;
    const std::int64_t row = row_size(values_);
    visit_float(dtype(), [&](auto tag) {
      using T = decltype(tag);
      using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
      T* v = values_.data<T>();
      for (std::int64_t k = 0; k < nnz; ++k)
        for (std::int64_t c = 0; c < row; ++c)
          v[k * row + c] = T(Wide(v[k * row + c]) / Wide(counts_[static_cast<std::size_t>(k)]));
    });
  }

  // The elements of one row of `values` (its dims after the first).
  static std::int64_t row_size(const Tensor& values) {
    std::int64_t n = 1;
    for (int i = 1; i < values.rank(); ++i) n *= values.shape().dim(i);
    return n;
  }

  // Calls f(T{}) for the accumulator's float dtype.
  template <class F>
  static void visit_float(DType t, F&& f) {
    switch (t) {
      case DType::float64:
        return f(double{});
      case DType::bfloat16:
        return f(bfloat16_t{});
      default:
        return f(float{});
    }
  }

  std::vector<std::int64_t> indices_;
  std::vector<int> counts_;
  Tensor values_;
};

class SparseAccumulatorOp : public AccumulatorOpBase {
 public:
  SparseAccumulatorOp(OpKernelConstruction& c, Status* s)
      : AccumulatorOpBase(c, s,
                          [](const std::string& key, DType dtype, const PartialShape& shape,
                             bool mean) -> std::shared_ptr<AccumulatorBase> {
                            return std::make_shared<SparseAccumulator>(key, dtype, shape, mean);
                          }) {}
};

class SparseApplyGradientOp : public OpKernel {
 public:
  SparseApplyGradientOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    (void)s;
    c.get_attr("has_known_shape", &has_known_shape_);
  }

  void compute(OpKernelContext& ctx) override {
    auto acc = accumulator_input<SparseAccumulator>(ctx, "SparseConditionalAccumulator");
    if (!acc) return;
    const auto step = step_input(ctx, 1, "local_step");
    if (!step) return;
    const Tensor& indices = ctx.input(2);
    const Tensor& values = ctx.input(3);
    // GetAndValidateTensorInputForApplyGrad, with TensorFlow's texts.
    if (values.dtype() != acc->dtype())
      return ctx.fail(invalid_argument("Gradient values of " + name() + " have dtype " +
                                       std::string(dtype_name(values.dtype())) +
                                       " but the accumulator holds " +
                                       std::string(dtype_name(acc->dtype()))));
    if (indices.rank() != 1)
      return ctx.fail(invalid_argument("Input indices should be vector but received shape: " +
                                       indices.shape().to_string()));
    const std::int64_t nnz = indices.shape().dim(0);
    if (values.rank() == 0) return ctx.fail(invalid_argument("Values cannot be 0-dimensional."));
    if (values.shape().dim(0) != nnz)
      return ctx.fail(invalid_argument("Expected " + std::to_string(nnz) +
                                       " non-empty input values, got " +
                                       std::to_string(values.shape().dim(0))));
    const Tensor* shape = has_known_shape_ ? &ctx.input(4) : nullptr;
    Status s = acc->apply(*step, ctx.step ? ctx.step->client_task() : std::string(),
                          [&] { return acc->add(indices, values, shape); });
    if (!s.ok()) ctx.fail(s);
  }

 private:
  bool has_known_shape_ = false;
};

class SparseTakeGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(OpKernelContext& ctx) override { ctx.fail(internal(name() + " is asynchronous")); }
  bool is_async() const override { return true; }
  AsyncKernelTask compute_async(OpKernelContext& ctx) override {
    return take_gradient(ctx,
                         accumulator_input<SparseAccumulator>(ctx, "SparseConditionalAccumulator"));
  }
};

}  // namespace

void register_sparse_accumulator_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SparseAccumulatorOp>("SparseConditionalAccumulator", "CPU"));
  r.add(make_kernel_def<SparseApplyGradientOp>("SparseAccumulatorApplyGradient", "CPU"));
  r.add(make_kernel_def<SparseTakeGradientOp>("SparseAccumulatorTakeGradient", "CPU"));
}

}  // namespace af::detail
