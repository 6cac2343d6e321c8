// The N-d scatters into a variable, ScatterNd{Update,Add,Sub,Max,Min} (reference variables)
// and ResourceScatterNd{Update,Add,Sub,Max,Min} (resource handles), their tensor twin
// ScatterNdNonAliasingAdd, and SparseSegment{Sum,Mean,SqrtN}WithNumSegments: CPU kernels with
// TensorFlow's checks and messages (scatter_nd_op.cc's ScatterNdUpdateOp and DoScatterNd,
// scatter_nd_util.cc, segment_reduction_ops_impl.h). Their definitions are in
// ops/src/defs/scatter_nd_variable_ops.cpp.
//
// An update runs under the variable's lock. Its shapes are checked before anything is
// written: a mismatch leaves the variable as it was. TensorFlow's CPU functor then applies the
// rows in order, skipping a row out of range and reporting the last such row after the
// others are written; the kernels here do the same. A variable's buffer still shared with a
// read in flight is copied before the first write (the reader keeps what it read).
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "scatter_nd_common.hpp"
#include "segment_walk.hpp"
#include "standard_kernels.hpp"
#include "variable_inputs.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::copy_elements;
using detail::Index;
using detail::index_values;
using detail::IndexRows;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::StatusKernel;
using Kind = detail::ScatterNdKind;

// -- DoScatterNd ----------------------------------------------------------------------------

// PrepareAndValidateInputs and ValidateScatterNdUpdateShape: `updates` must be
// `indices.shape[:batch_dim] + params.shape[slice_dim:]`, where 1-D indices count as one index
// per row. Nothing is written before these pass.
Status validate_scatter_nd(const Shape& params, const Tensor& indices, const Tensor& updates) {
  if (params.rank() < 1)
    return invalid_argument("Output must be at least 1-D, got shape: " + params.to_string());
  const Index n_indices = indices.num_elements(), n_updates = updates.num_elements();
  // ValidEmptyOutputShape.
  if (!((n_indices == 0 && n_updates == 0) ||
        (params.num_elements() != 0 && n_indices != 0 && n_updates != 0)))
    return invalid_argument("Indices and updates specified for empty output.  indices shape: " +
                            indices.shape().to_string());
  // TensorFlow reads dim 0 of a scalar here (and prints what memory holds); this refuses it.
  if (indices.rank() < 1)
    return invalid_argument("Indices shape must have rank at least one. Found:" +
                            indices.shape().to_string());
  if (updates.rank() < 1)
    return invalid_argument("Updates shape must have rank at least one. Found:" +
                            updates.shape().to_string());
  const Shape& is = indices.shape();
  const Shape& us = updates.shape();
  if (us.dim(0) != is.dim(0))
    return invalid_argument("Dimensions [0,1) of indices[shape=" + is.to_string() +
                            "] = " + std::to_string(is.dim(0)) +
                            " must match dimensions [0,1) of updates[shape=" + us.to_string() +
                            "] = " + std::to_string(us.dim(0)));
  const Index slice_dim = is.rank() > 1 ? is.dim(is.rank() - 1) : 1;
  const Index batch_dim = is.rank() > 1 ? is.rank() - 1 : 1;
  const auto prefix_error = [&] {
    return invalid_argument("Dimensions [0," + std::to_string(batch_dim) +
                            ") of indices[shape=" + is.to_string() + "] must match dimensions [0," +
                            std::to_string(batch_dim) + ") of updates[shape=" + us.to_string() +
                            "]");
  };
  const auto suffix_error = [&] {
    return invalid_argument("Dimensions [" + std::to_string(slice_dim) + "," +
                            std::to_string(params.rank()) +
                            ") of input[shape=" + params.to_string() + "] must match dimensions [" +
                            std::to_string(slice_dim) + "," + std::to_string(us.rank()) +
                            ") of updates[shape=" + us.to_string() + "]");
  };
  if (us.rank() < batch_dim) return prefix_error();
  if (params.rank() < slice_dim + (us.rank() - batch_dim)) return suffix_error();
  if (us.rank() != batch_dim + params.rank() - slice_dim) return suffix_error();
  for (Index d = 0; d < batch_dim; ++d)
    if (us.dim(static_cast<int>(d)) != is.dim(static_cast<int>(d))) return prefix_error();
  for (Index d = 0; d < us.rank() - batch_dim; ++d)
    if (us.dim(static_cast<int>(d + batch_dim)) != params.dim(static_cast<int>(d + slice_dim)))
      return suffix_error();
  return {};
}

// DoScatterNd once the shapes passed: the index depth (its message still says 5 though the
// functor takes up to 7), then each row in order into `params` (already writable). A row out
// of range is skipped; the last one fails the update after the others are written, unless
// `ignore_bad`.
template <Kind K, class T>
Status scatter_rows(Tensor& params, const Tensor& indices, const Tensor& updates, bool ignore_bad) {
  const Shape shape = params.shape();
  if (shape.num_elements() == 0) return {};
  const Index slice_dim = indices.rank() > 1 ? indices.shape().dim(indices.rank() - 1) : 1;
  if (slice_dim < 1 || slice_dim > detail::kMaxIndexDepth)
    return detail::scatter_nd_depth_error(slice_dim);
  if (indices.num_elements() == 0) return {};
  // The functor walks indices.flat_inner_dims(): a vector [N] is one row [1, N] of which it
  // reads the first index, with the first row of updates (TensorFlow's behaviour, kept).
  Tensor rows_of = indices;
  if (indices.rank() == 1) {
    rows_of = Tensor(indices.dtype(), Shape{1, 1});
    copy_elements(indices, 0, rows_of, 0, 1);
  }
  const IndexRows rows(rows_of, shape);
  Index last_bad = -1;
  for (Index r = 0; r < rows.rows; ++r) {
    const Index at = rows.offset(r);
    if (at < 0) {
      last_bad = r;
      continue;
    }
    if constexpr (K == Kind::update) {
      copy_elements(updates, r * rows.slice, params, at * rows.slice, rows.slice);
    } else {
      const T* src = updates.data<T>() + r * rows.slice;
      T* dst = params.data<T>() + at * rows.slice;
      for (Index e = 0; e < rows.slice; ++e) dst[e] = detail::scatter_nd_combine<K>(dst[e], src[e]);
    }
  }
  if (last_bad >= 0 && !ignore_bad)
    return invalid_argument(rows.describe(indices.rank() == 1 ? indices : rows_of, last_bad) +
                            " does not index into shape " + shape.to_string());
  return {};
}

// -- the variable updates -------------------------------------------------------------------

// ScatterNd{Update,...}(ref, indices, updates) -> output_ref, and ResourceScatterNd{...}(ref,
// indices, updates) (`Resource`): the variable updated in place under its lock.
template <Kind K, bool Resource, class T>
class ScatterNdVariableOp : public StatusKernel {
 public:
  ScatterNdVariableOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = detail::read_ignore_policy(c, &ignore_bad_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    std::vector<Var*> vars;
    ACTORFLOW_RETURN_IF_ERROR(detail::variable_inputs(ctx, 1, updates.dtype(), Resource, &vars));
    ACTORFLOW_RETURN_IF_ERROR(vars[0]->update([&](Tensor& params) -> Status {
      ACTORFLOW_RETURN_IF_ERROR(validate_scatter_nd(params.shape(), indices, updates));
      if (params.num_elements() > 0 && indices.num_elements() > 0 && !params.sole_owner())
        params = params.deep_copy();
      return scatter_rows<K, T>(params, indices, updates, ignore_bad_);
    }));
    if (!Resource) ctx.set_output(0, ctx.input(0));
    return {};
  }

 private:
  bool ignore_bad_ = false;
};

// ScatterNdNonAliasingAdd(input, indices, updates): a copy of `input` plus the updates.
template <class T>
class ScatterNdNonAliasingAddOp : public StatusKernel {
 public:
  ScatterNdNonAliasingAddOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = detail::read_ignore_policy(c, &ignore_bad_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    ACTORFLOW_RETURN_IF_ERROR(validate_scatter_nd(input.shape(), indices, updates));
    Tensor& out = ctx.allocate_output_for_overwrite(0, input.dtype(), input.shape());
    copy_elements(input, 0, out, 0, input.num_elements());
    return scatter_rows<Kind::add, T>(out, indices, updates, ignore_bad_);
  }

 private:
  bool ignore_bad_ = false;
};

// -- SparseSegment{Sum,Mean,SqrtN}WithNumSegments --------------------------------------------

using Reduction = detail::SegmentReduction;

// SparseSegmentReductionOpBase with has_num_segments: `num_segments` output rows, rows no
// segment id names 0. Each segment is reduced by ReduceImpl (detail::reduce_sparse_segment),
// so the values are TensorFlow's to the bit.
template <class T>
class SparseSegmentWithNumSegmentsOp : public StatusKernel {
 public:
  SparseSegmentWithNumSegmentsOp(OpKernelConstruction& c, Reduction reduction)
      : StatusKernel(c), reduction_(reduction) {}

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& segment_ids = ctx.input(2);
    const Tensor& num_segments = ctx.input(3);
    if (num_segments.rank() != 0)
      return invalid_argument("num_segments should be a scalar, not shape " +
                              num_segments.shape().to_string());
    const Index output_rows = index_values(num_segments)[0];
    if (output_rows < 0) return invalid_argument("segment ids must be >= 0");
    if (indices.rank() != 1) return invalid_argument("indices should be a vector.");
    if (segment_ids.rank() != 1) return invalid_argument("segment_ids should be a vector.");
    if (indices.num_elements() != segment_ids.num_elements())
      return invalid_argument("segment_ids and indices should have same size.");
    if (data.rank() < 1) return invalid_argument("Shape must be at least rank 1");
    const std::vector<Index> idx = index_values(indices);
    const std::vector<Index> ids = index_values(segment_ids);
    const Index last_plus_one = ids.empty() ? 0 : ids.back() + 1;
    if (output_rows < last_plus_one) return invalid_argument("segment ids must be < num_segments");
    std::vector<std::int64_t> dims = data.shape().dims();
    dims[0] = output_rows;
    Tensor& out = ctx.allocate_output(0, data.dtype(), Shape(dims));
    T* output = out.data<T>();
    std::fill_n(output, out.num_elements(), T(0));
    if (ids.empty()) return {};
    if (output_rows <= 0) return invalid_argument("segment ids must be >= 0");
    Index row = 1;
    for (int d = 1; d < data.rank(); ++d) row *= data.shape().dim(d);
    const Index rows = data.shape().dim(0);
    const T* input = data.data<T>();
    auto reduce = [&](Index out_row, Index start, Index end) -> Status {
      return detail::reduce_sparse_segment(reduction_, input, rows, row, idx, start, end,
                                           output + out_row * row);
    };
    return detail::for_each_segment(ids, output_rows, reduce, [](Index, Index) {});
  }

  Reduction reduction_;
};

// -- registration ---------------------------------------------------------------------------

template <class T>
KernelFactory segment_kernel(Reduction reduction) {
  return [reduction](OpKernelConstruction& c, Status*) -> std::unique_ptr<OpKernel> {
    return std::make_unique<SparseSegmentWithNumSegmentsOp<T>>(c, reduction);
  };
}

// The ref and resource kernels of one kind for each T of Ts.
template <Kind K, class... Ts>
void register_kind(KernelRegistry& r, const std::string& kind, detail::TypeList<Ts...> /*types*/) {
  (r.add(make_kernel_def<ScatterNdVariableOp<K, false, Ts>>(
       "ScatterNd" + kind, "CPU", {{"T", {dtype_of_v<Ts>}}, {"Tindices", kIndexTypes}})),
   ...);
  (r.add(make_kernel_def<ScatterNdVariableOp<K, true, Ts>>(
       "ResourceScatterNd" + kind, "CPU", {{"T", {dtype_of_v<Ts>}}, {"Tindices", kIndexTypes}})),
   ...);
}

// SparseSegment{Sum,Mean,SqrtN}WithNumSegments.
std::string segment_op(Reduction reduction) {
  const char* kind = reduction == Reduction::sum    ? "Sum"
                     : reduction == Reduction::mean ? "Mean"
                                                    : "SqrtN";
  return std::string("SparseSegment") + kind + "WithNumSegments";
}

template <class T>
void register_segment(KernelRegistry& r, std::initializer_list<Reduction> reductions) {
  for (Reduction reduction : reductions) {
    r.add(KernelDef{segment_op(reduction),
                    "CPU",
                    {{"T", {dtype_of_v<T>}},
                     {"Tidx", kIndexTypes},
                     {"Tsegmentids", kIndexTypes},
                     {"Tnumsegments", kIndexTypes}},
                    segment_kernel<T>(reduction)});
  }
}

}  // namespace

namespace detail {

void register_scatter_nd_variable_kernels(KernelRegistry& r) {
  // The updates only move elements: one kernel serves every dtype (strings and bools too).
  r.add(make_kernel_def<ScatterNdVariableOp<Kind::update, false, std::uint8_t>>(
      "ScatterNdUpdate", "CPU", {{"T", kValueTypes}, {"Tindices", kIndexTypes}}));
  r.add(make_kernel_def<ScatterNdVariableOp<Kind::update, true, std::uint8_t>>(
      "ResourceScatterNdUpdate", "CPU", {{"T", kValueTypes}, {"Tindices", kIndexTypes}}));
  // TensorFlow 2.21's types: every number (Max and Min: the real ones).
  register_kind<Kind::add>(r, "Add", NumberTypes{});
  register_kind<Kind::sub>(r, "Sub", NumberTypes{});
  register_kind<Kind::max>(r, "Max", RealNumberTypes{});
  register_kind<Kind::min>(r, "Min", RealNumberTypes{});
  // The resource ops add and subtract bools too (a logical or, an exclusive or).
  r.add(make_kernel_def<ScatterNdVariableOp<Kind::add, true, bool>>(
      "ResourceScatterNdAdd", "CPU", {{"T", {DType::boolean}}, {"Tindices", kIndexTypes}}));
  r.add(make_kernel_def<ScatterNdVariableOp<Kind::sub, true, bool>>(
      "ResourceScatterNdSub", "CPU", {{"T", {DType::boolean}}, {"Tindices", kIndexTypes}}));
  for_each_type(Concat<NumberTypes, TypeList<bool>>{}, [&](auto tag) {
    using T = decltype(tag);
    r.add(make_kernel_def<ScatterNdNonAliasingAddOp<T>>(
        "ScatterNdNonAliasingAdd", "CPU", {{"T", {dtype_of_v<T>}}, {"Tindices", kIndexTypes}}));
  });
  register_segment<float>(r, {Reduction::sum, Reduction::mean, Reduction::sqrtn});
  register_segment<double>(r, {Reduction::sum, Reduction::mean, Reduction::sqrtn});
  for_each_type(IntegralTypes{},
                [&](auto tag) { register_segment<decltype(tag)>(r, {Reduction::sum}); });
  // float16 and bfloat16 through the float kernels.
  for (Reduction reduction : {Reduction::sum, Reduction::mean, Reduction::sqrtn})
    register_via_float(
        r, segment_op(reduction), segment_kernel<float>(reduction), "T",
        {{"Tidx", kIndexTypes}, {"Tsegmentids", kIndexTypes}, {"Tnumsegments", kIndexTypes}});
}

}  // namespace detail

}  // namespace af
