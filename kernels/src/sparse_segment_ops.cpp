// SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN, their gradients
// SparseSegment{Sum,Mean,SqrtN}Grad and SparseSegment{Sum,Mean,SqrtN}GradV2, and SegmentSum:
// the CPU kernels (TensorFlow's segment_reduction_ops_impl.h), registered by
// register_sparse_segment_kernels. The definitions are in ops/src/defs/sparse_segment_ops.cpp.
//
// A sparse segment reduction reduces the rows `data[indices[i]]` of each segment; segment ids
// are sorted (a decrease is an error) and the output has `last id + 1` rows, the rows of
// ids no index names being 0. The mean and sqrt-n scale the sum as TensorFlow does: for
// fewer than 10 rows the sum is multiplied by 1/n (1/sqrt(n)); for more it is divided by n
// (sqrt(n)); and the rows are added in TensorFlow's order (a first group of n mod 8 rows, 8
// or 9, then groups of 8 each summed first), so the values are TensorFlow's to the bit.
//
// The GradV2 ops (what the gradient builds with the attr sparse_gradient) give only the rows
// the indices name: the sorted unique indices and, for each, what the Grad op would put in
// that row, computed by the Grad op's code on the renumbered rows as TensorFlow does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "segment_walk.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::for_each_segment;
using detail::index_values;
using detail::kIndexTypes;
using detail::StatusKernel;

using Reduction = detail::SegmentReduction;

// The elements of one row of `t` (its dims after the first).
Index row_size(const Tensor& t) {
  Index n = 1;
  for (int d = 1; d < t.rank(); ++d) n *= t.shape().dim(d);
  return n;
}

// -- SparseSegmentSum / Mean / SqrtN ---------------------------------------------------------

template <class T>
class SparseSegmentReductionOp : public StatusKernel {
 public:
  SparseSegmentReductionOp(OpKernelConstruction& c, Reduction reduction)
      : StatusKernel(c), reduction_(reduction) {}

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& segment_ids = ctx.input(2);
    // ValidateSparseSegmentReduction.
    if (indices.rank() != 1) return invalid_argument("indices should be a vector.");
    if (segment_ids.rank() != 1) return invalid_argument("segment_ids should be a vector.");
    if (indices.num_elements() != segment_ids.num_elements())
      return invalid_argument("segment_ids and indices should have same size.");
    if (data.rank() < 1) return invalid_argument("Shape must be at least rank 1");
    const std::vector<Index> idx = index_values(indices);
    const std::vector<Index> ids = index_values(segment_ids);
    const Index output_rows = ids.empty() ? 0 : ids.back() + 1;
    if (output_rows < 0) return invalid_argument("segment ids must be >= 0");
    std::vector<std::int64_t> dims(data.shape().dims().begin(), data.shape().dims().end());
    dims[0] = output_rows;
    Tensor& out = ctx.allocate_output(0, data.dtype(), Shape(dims));
    T* output = out.data<T>();
    std::fill_n(output, out.num_elements(), T(0));
    if (ids.empty()) return {};
    if (output_rows <= 0) return invalid_argument("segment ids must be >= 0");
    const Index row = row_size(data), rows = data.shape().dim(0);
    const T* input = data.data<T>();
    auto reduce = [&](Index out_row, Index start, Index end) -> Status {
      return detail::reduce_sparse_segment(reduction_, input, rows, row, idx, start, end,
                                           output + out_row * row);
    };
    return for_each_segment(ids, output_rows, reduce, [](Index, Index) {});
  }

  Reduction reduction_;
};

// -- SparseSegment{Sum,Mean,SqrtN}Grad ------------------------------------------------------

// SparseSegmentGradFunctor<CPUDevice>: row `idx[i]` of `output` (`m` rows of `row` elements,
// zeros on entry) gets `grad[ids[i]]` times the segment's scale (1, 1/n or 1/sqrt(n), n the
// ids equal to ids[i], computed in double), the rows named twice the sum in the order of i.
// `ids` is not empty. Errors, TensorFlow's order: "Invalid number of segments" (last id + 1
// past grad's rows), for the mean and sqrt-n "Segment id 3 out of range [0, 3)." before
// anything is written, then at each i "Index 12 out of range [0, 12)." and "Segment id ...".
template <class T>
Status accumulate_grad_rows(Reduction reduction, const Tensor& grad, const std::vector<Index>& idx,
                            const std::vector<Index>& ids, Index m, T* output) {
  const Index segments = grad.shape().dim(0);
  if (ids.back() + 1 > segments) return invalid_argument("Invalid number of segments");
  auto segment_error = [&](Index id) {
    return invalid_argument("Segment id " + std::to_string(id) + " out of range [0, " +
                            std::to_string(segments) + ").");
  };
  std::vector<double> scaling;
  if (reduction != Reduction::sum) {
    scaling.assign(static_cast<std::size_t>(segments), 0.0);
    for (Index id : ids) {
      if (id < 0 || id >= segments) return segment_error(id);
      scaling[static_cast<std::size_t>(id)] += 1;
    }
    for (double& s : scaling)
      s = reduction == Reduction::mean ? 1.0 / std::max(s, 1.0) : 1.0 / std::sqrt(std::max(s, 1.0));
  }
  const Index row = row_size(grad);
  const T* in = grad.data<T>();
  for (std::size_t i = 0; i < idx.size(); ++i) {
    const Index to = idx[i], from = ids[i];
    if (to < 0 || to >= m)
      return invalid_argument("Index " + std::to_string(to) + " out of range [0, " +
                              std::to_string(m) + ").");
    if (from < 0 || from >= segments) return segment_error(from);
    const T scale = reduction == Reduction::sum
                        ? T(1)
                        : static_cast<T>(scaling[static_cast<std::size_t>(from)]);
    T* dst = output + to * row;
    const T* src = in + from * row;
    for (Index c = 0; c < row; ++c) dst[c] += src[c] * scale;
  }
  return {};
}

// Row indices[i] of the output gets grad[segment_ids[i]] times the segment's scale (1, 1/n or
// 1/sqrt(n)); rows named twice get the sum.
template <class T>
class SparseSegmentGradOp : public StatusKernel {
 public:
  SparseSegmentGradOp(OpKernelConstruction& c, Reduction reduction)
      : StatusKernel(c), reduction_(reduction) {}

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grad = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& segment_ids = ctx.input(2);
    const Tensor& output_dim0 = ctx.input(3);
    if (indices.rank() != 1) return invalid_argument("indices should be a vector.");
    if (segment_ids.rank() != 1) return invalid_argument("segment_ids should be a vector.");
    if (output_dim0.rank() != 0) return invalid_argument("output_dim0 should be a scalar.");
    if (indices.num_elements() != segment_ids.num_elements())
      return invalid_argument("segment_ids and indices should have same size.");
    if (grad.rank() < 1) return invalid_argument("Shape must be at least rank 1");
    const Index m = index_values(output_dim0)[0];
    if (m < 0) return invalid_argument("output_dim0 = " + std::to_string(m) + " is negative");
    std::vector<std::int64_t> dims(grad.shape().dims().begin(), grad.shape().dims().end());
    dims[0] = m;
    Tensor& out = ctx.allocate_output(0, grad.dtype(), Shape(dims));
    T* output = out.data<T>();
    std::fill_n(output, out.num_elements(), T(0));
    const std::vector<Index> idx = index_values(indices);
    const std::vector<Index> ids = index_values(segment_ids);
    if (m == 0 || ids.empty()) return {};
    if (grad.shape().dim(0) == 0) return invalid_argument("Invalid number of segments");
    return accumulate_grad_rows(reduction_, grad, idx, ids, m, output);
  }

  Reduction reduction_;
};

// -- SparseSegment{Sum,Mean,SqrtN}GradV2 ------------------------------------------------------

// SparseSegmentGradV2OpCommon and SparseSegmentGradV2Functor<CPUDevice>: output 0 holds, for
// each of the sorted unique indices (output 1, of the indices' dtype), the row the Grad op
// would give it; `[num_unique] + grad.shape[1:]`. TensorFlow stable-sorts the positions by
// index, numbers the distinct indices in that order and runs the Grad op's functor on the
// numbers and the permuted segment ids, so a row named twice sums in the original order.
template <class T>
class SparseSegmentGradV2Op : public StatusKernel {
 public:
  SparseSegmentGradV2Op(OpKernelConstruction& c, Reduction reduction)
      : StatusKernel(c), reduction_(reduction) {}

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& grad = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& segment_ids = ctx.input(2);
    const Tensor& dense_output_dim0 = ctx.input(3);
    if (indices.rank() != 1) return invalid_argument("indices should be a vector.");
    if (segment_ids.rank() != 1) return invalid_argument("segment_ids should be a vector.");
    if (dense_output_dim0.rank() != 0)
      return invalid_argument("dense_output_dim0 should be a scalar.");
    const Index n = indices.num_elements();
    if (n != segment_ids.num_elements())
      return invalid_argument("segment_ids and indices should have same size.");
    // TensorShape::SetDimWithStatus(0, M) on grad's shape.
    if (grad.rank() < 1) return invalid_argument("Index must be less than 0, got 0");
    const Index m = index_values(dense_output_dim0)[0];
    if (m < 0) return invalid_argument("Expected a non-negative size, got " + std::to_string(m));
    std::vector<std::int64_t> dims(grad.shape().dims().begin(), grad.shape().dims().end());
    if (m == 0 || n == 0) {
      dims[0] = 0;
      ctx.allocate_output(0, grad.dtype(), Shape(dims));
      ctx.allocate_output(1, indices.dtype(), Shape{0});
      return {};
    }
    const Index segments = grad.shape().dim(0);
    if (segments == 0) return invalid_argument("Invalid number of segments");
    const std::vector<Index> idx = index_values(indices);
    const std::vector<Index> ids = index_values(segment_ids);
    // The functor checks everything up front, in the Grad op's order.
    if (ids.back() + 1 > segments) return invalid_argument("Invalid number of segments");
    for (Index i = 0; i < n; ++i) {
      const Index to = idx[static_cast<std::size_t>(i)], from = ids[static_cast<std::size_t>(i)];
      if (to < 0 || to >= m)
        return invalid_argument("Index " + std::to_string(to) + " out of range [0, " +
                                std::to_string(m) + ").");
      if (from < 0 || from >= segments)
        return invalid_argument("Segment id " + std::to_string(from) + " out of range [0, " +
                                std::to_string(segments) + ").");
    }
    std::vector<std::size_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return idx[a] < idx[b]; });
    std::vector<Index> unique_indices, unique_ids, permuted_ids;
    unique_ids.reserve(order.size());
    permuted_ids.reserve(order.size());
    for (std::size_t j : order) {
      if (unique_indices.empty() || unique_indices.back() != idx[j])
        unique_indices.push_back(idx[j]);
      unique_ids.push_back(static_cast<Index>(unique_indices.size()) - 1);
      permuted_ids.push_back(ids[j]);
    }
    const auto num_unique = static_cast<Index>(unique_indices.size());
    Tensor& sorted_unique = ctx.allocate_output(1, indices.dtype(), Shape{num_unique});
    for (Index k = 0; k < num_unique; ++k) {
      if (indices.dtype() == DType::int64)
        sorted_unique.data<std::int64_t>()[k] = unique_indices[static_cast<std::size_t>(k)];
      else
        sorted_unique.data<std::int32_t>()[k] =
            static_cast<std::int32_t>(unique_indices[static_cast<std::size_t>(k)]);
    }
    dims[0] = num_unique;
    Tensor& out = ctx.allocate_output(0, grad.dtype(), Shape(dims));
    T* output = out.data<T>();
    std::fill_n(output, out.num_elements(), T(0));
    return accumulate_grad_rows(reduction_, grad, unique_ids, permuted_ids, num_unique, output);
  }

  Reduction reduction_;
};

// -- SegmentSum -------------------------------------------------------------------------------

template <class T>
class SegmentSumOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& segment_ids = ctx.input(1);
    // SegmentReductionValidationHelper.
    if (segment_ids.rank() != 1) return invalid_argument("segment_ids should be a vector.");
    if (data.rank() < 1 || segment_ids.num_elements() != data.shape().dim(0))
      return invalid_argument("segment_ids should be the same size as dimension 0 of input.");
    const std::vector<Index> ids = index_values(segment_ids);
    const Index output_rows = ids.empty() ? 0 : ids.back() + 1;
    if (output_rows < 0) return invalid_argument("segment ids must be >= 0");
    std::vector<std::int64_t> dims(data.shape().dims().begin(), data.shape().dims().end());
    dims[0] = output_rows;
    Tensor& out = ctx.allocate_output(0, data.dtype(), Shape(dims));
    T* output = out.data<T>();
    std::fill_n(output, out.num_elements(), T(0));
    if (ids.empty()) return {};
    const Index row = row_size(data);
    const T* input = data.data<T>();
    auto reduce = [&](Index out_row, Index start, Index end) -> Status {
      T* dst = output + out_row * row;
      for (Index c = 0; c < row; ++c) {
        T v = input[start * row + c];
        for (Index i = start + 1; i < end; ++i) v = v + input[i * row + c];
        dst[c] = v;
      }
      return {};
    };
    return for_each_segment(ids, output_rows, reduce, [](Index, Index) {});
  }
};

template <class T, template <class> class Op>
KernelFactory with_reduction(Reduction reduction) {
  return [reduction](OpKernelConstruction& c, Status*) -> std::unique_ptr<OpKernel> {
    return std::make_unique<Op<T>>(c, reduction);
  };
}

}  // namespace

namespace detail {

void register_sparse_kernels(KernelRegistry& r);  // sparse_ops.cpp

void register_sparse_segment_kernels(KernelRegistry& r) {
  register_sparse_kernels(r);
  auto add_for = [&](auto tag) {
    using T = decltype(tag);
    const DType t = dtype_of<T>::value;
    const std::vector<std::pair<std::string, std::vector<DType>>> constraints{
        {"T", {t}}, {"Tidx", kIndexTypes}, {"Tsegmentids", kIndexTypes}};
    const std::pair<const char*, Reduction> reductions[] = {
        {"Sum", Reduction::sum}, {"Mean", Reduction::mean}, {"SqrtN", Reduction::sqrtn}};
    for (const auto& [suffix, reduction] : reductions) {
      r.add(KernelDef{std::string("SparseSegment") + suffix, "CPU", constraints,
                      with_reduction<T, SparseSegmentReductionOp>(reduction)});
      r.add(KernelDef{std::string("SparseSegment") + suffix + "Grad", "CPU", constraints,
                      with_reduction<T, SparseSegmentGradOp>(reduction)});
      r.add(KernelDef{std::string("SparseSegment") + suffix + "GradV2", "CPU", constraints,
                      with_reduction<T, SparseSegmentGradV2Op>(reduction)});
    }
    r.add(make_kernel_def<SegmentSumOp<T>>("SegmentSum", "CPU",
                                           {{"T", {t}}, {"Tindices", kIndexTypes}}));
  };
  add_for(float{});
  add_for(double{});
  // SparseSegmentSum takes every real number type (its gradients only the floating ones).
  for_each_type(IntegralTypes{}, [&](auto tag) {
    using T = decltype(tag);
    r.add(KernelDef{"SparseSegmentSum",
                    "CPU",
                    {{"T", {dtype_of_v<T>}}, {"Tidx", kIndexTypes}, {"Tsegmentids", kIndexTypes}},
                    with_reduction<T, SparseSegmentReductionOp>(Reduction::sum)});
  });
  // float16 and bfloat16 through the float kernels.
  const std::pair<const char*, Reduction> reductions[] = {
      {"Sum", Reduction::sum}, {"Mean", Reduction::mean}, {"SqrtN", Reduction::sqrtn}};
  const std::vector<std::pair<std::string, std::vector<DType>>> ids{{"Tidx", kIndexTypes},
                                                                    {"Tsegmentids", kIndexTypes}};
  for (const auto& [suffix, reduction] : reductions) {
    const std::string op = std::string("SparseSegment") + suffix;
    register_via_float(r, op, with_reduction<float, SparseSegmentReductionOp>(reduction), "T", ids);
    register_via_float(r, op + "Grad", with_reduction<float, SparseSegmentGradOp>(reduction), "T",
                       ids);
    register_via_float(r, op + "GradV2", with_reduction<float, SparseSegmentGradV2Op>(reduction),
                       "T", ids);
  }
  register_via_float<SegmentSumOp<float>>(r, "SegmentSum", "T", {{"Tindices", kIndexTypes}});
}

}  // namespace detail

}  // namespace af
