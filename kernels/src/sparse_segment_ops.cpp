// SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN, their gradients
// SparseSegment{Sum,Mean,SqrtN}Grad, and SegmentSum: the CPU kernels (TensorFlow's
// segment_reduction_ops_impl.h), registered by register_segment_kernels. The definitions are
// in ops/src/defs/sparse_segment_ops.cpp.
//
// A sparse segment reduction reduces the rows `data[indices[i]]` of each segment; segment ids
// are sorted (a decrease is an error) and the output has `last id + 1` rows, the rows of
// ids no index names being 0. The mean and sqrt-n scale the sum as TensorFlow does: for
// fewer than 10 rows the sum is multiplied by 1/n (1/sqrt(n)); for more it is divided by n
// (sqrt(n)); and the rows are added in TensorFlow's order (a first group of n mod 8 rows, 8
// or 9, then groups of 8 each summed first), so the values are TensorFlow's to the bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "segment_walk.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::for_each_segment;
using detail::index_values;
using detail::kIndexTypes;
using detail::StatusKernel;

enum class Reduction { sum, mean, sqrtn };

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
      const Index num = end - start;
      for (Index i = start; i < end; ++i)
        if (idx[static_cast<std::size_t>(i)] < 0 || idx[static_cast<std::size_t>(i)] >= rows)
          return invalid_argument("Bad: indices[" + std::to_string(i) +
                                  "] == " + std::to_string(idx[static_cast<std::size_t>(i)]) +
                                  " out of range [0, " + std::to_string(rows) + ")");
      T* dst = output + out_row * row;
      auto at = [&](Index i, Index c) { return input[idx[static_cast<std::size_t>(i)] * row + c]; };
      // ReduceImpl's order: one first group, scaled when short, then groups of 8.
      Index first = num == 1 ? 1 : (num & 7) == 0 ? 8 : (num & 7) == 1 ? 9 : (num & 7);
      T scale(1);
      if (num < 10 && reduction_ == Reduction::mean) scale = T(1) / T(num);
      if (num < 10 && reduction_ == Reduction::sqrtn) scale = T(1) / T(std::sqrt(num));
      for (Index c = 0; c < row; ++c) {
        T v = at(start, c);
        for (Index k = 1; k < first; ++k) v = v + at(start + k, c);
        if (num > 1) v = v * scale;
        for (Index r = first; r < num; r += 8) {
          T block = at(start + r, c);
          for (Index k = 1; k < 8; ++k) block = block + at(start + r + k, c);
          v += block;
        }
        if (num >= 10 && reduction_ == Reduction::mean) v = v / T(num);
        if (num >= 10 && reduction_ == Reduction::sqrtn) v = v / T(std::sqrt(num));
        dst[c] = v;
      }
      return {};
    };
    return for_each_segment(ids, output_rows, reduce, [](Index, Index) {});
  }

  Reduction reduction_;
};

// -- SparseSegment{Sum,Mean,SqrtN}Grad --------------------------------------------------------

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
    const Index segments = grad.shape().dim(0);
    if (ids.back() + 1 > segments) return invalid_argument("Invalid number of segments");
    std::vector<double> scaling(static_cast<std::size_t>(segments), 0.0);
    for (Index id : ids) {
      if (id < 0 || id >= segments)
        return invalid_argument("Segment id " + std::to_string(id) + " out of range [0, " +
                                std::to_string(segments) + ").");
      scaling[static_cast<std::size_t>(id)] += 1;
    }
    for (double& s : scaling) {
      if (reduction_ == Reduction::sum) s = 1.0;
      if (reduction_ == Reduction::mean) s = 1.0 / std::max(s, 1.0);
      if (reduction_ == Reduction::sqrtn) s = 1.0 / std::sqrt(std::max(s, 1.0));
    }
    const Index row = row_size(grad);
    const T* in = grad.data<T>();
    std::vector<bool> modified(static_cast<std::size_t>(m), false);
    for (std::size_t i = 0; i < idx.size(); ++i) {
      const Index to = idx[i], from = ids[i];
      if (to < 0 || to >= m)
        return invalid_argument("Index " + std::to_string(to) + " out of range [0, " +
                                std::to_string(m) + ").");
      const T scale = static_cast<T>(scaling[static_cast<std::size_t>(from)]);
      T* dst = output + to * row;
      const T* src = in + from * row;
      const bool add = modified[static_cast<std::size_t>(to)];
      for (Index c = 0; c < row; ++c) {
        const T v = scale == T(1) ? src[c] : src[c] * scale;
        dst[c] = add ? dst[c] + v : v;
      }
      modified[static_cast<std::size_t>(to)] = true;
    }
    return {};
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
    }
    r.add(make_kernel_def<SegmentSumOp<T>>("SegmentSum", "CPU",
                                           {{"T", {t}}, {"Tindices", kIndexTypes}}));
  };
  add_for(float{});
  add_for(double{});
}

}  // namespace detail

}  // namespace af
