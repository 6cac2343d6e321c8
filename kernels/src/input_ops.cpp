// The ops TensorFlow's input producers are built from (tf.train.input_producer,
// string_input_producer, range_input_producer, slice_input_producer, limit_epochs): Range,
// GatherV2, RandomShuffle, CountUpTo, Size and Shape. Their CPU kernels; the ops' definitions
// (shape functions, the graph-building functions range, gather, random_shuffle, count_up_to,
// size and shape) are in ops/src/defs/input_ops.cpp.
//
// The kernels follow TensorFlow 1.x (tensorflow/core/kernels/sequence_ops.cc, gather_op.cc,
// random_shuffle_op.cc, count_up_to_op.cc, shape_ops.h); messages are TensorFlow's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/ops/detail/input_shapes.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using Index = std::int64_t;

// The types of values (resources excluded) and of indices (shape_util.hpp), and Range's.
using detail::kIndexTypes;
using detail::kRangeTypes;
using detail::kValueTypes;

// Kernels moving more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;

using detail::copy_elements;
using detail::GuardedPhiloxRandom;
using detail::index_scalar;
using detail::node_suffix;
using detail::range_size;
using detail::SingleSampleAdapter;
using detail::slice_debug_string;
using detail::visit_range_dtype;

// -- Range ----------------------------------------------------------------------------------

class RangeOp : public OpKernel {
 public:
  RangeOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = c.get_attr("Tidx", &dtype_); }

  void compute(OpKernelContext& ctx) override {
    static constexpr const char* kNames[] = {"start", "limit", "delta"};
    for (int i = 0; i < 3; ++i) {
      // TensorFlow 1.x accepts "legacy scalars": shape [] or [1].
      const Shape& s = ctx.input(i).shape();
      if (!(s.rank() == 0 || (s.rank() == 1 && s.dim(0) == 1)))
        return ctx.fail(invalid_argument(std::string(kNames[i]) + " must be a scalar, not shape " +
                                         s.to_string() + node_suffix(name())));
    }
    visit_range_dtype(dtype_, [&](auto tag) {
      using T = decltype(tag);
      const T start = ctx.input(0).data<T>()[0];
      const T limit = ctx.input(1).data<T>()[0];
      const T delta = ctx.input(2).data<T>()[0];
      Index size = 0;
      if (Status s = range_size(start, limit, delta, /*kernel=*/true, &size); !s.ok())
        return ctx.fail(s.with_context(node_suffix(name())));
      Tensor& out = ctx.allocate_output(0, dtype_, Shape{size});
      T* o = out.data<T>();
      // TensorFlow 1.x accumulates (TensorFlow 2 computes start + i * delta, which can
      // differ in the last bits for floats).
      T value = start;
      for (Index i = 0; i < size; ++i) {
        o[i] = value;
        value += delta;
      }
    });
  }

 private:
  DType dtype_ = DType::invalid;
};

// -- GatherV2 -------------------------------------------------------------------------------

class GatherOp : public OpKernel {
 public:
  GatherOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("Tindices", &index_type_);
  }

  bool is_expensive(const OpKernelContext& ctx) const override {
    if (ctx.num_inputs() < 2) return false;
    const Tensor& params = ctx.input(0);
    if (params.rank() < 1 || params.shape().dim(0) == 0) return false;
    return ctx.input(1).num_elements() * (params.num_elements() / params.shape().dim(0)) >
           kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    if (params.rank() < 1)
      return ctx.fail(
          invalid_argument("params must be at least 1 dimensional" + node_suffix(name())));
    Index axis = 0;
    if (ctx.num_inputs() == 3) {
      const Tensor& axis_tensor = ctx.input(2);
      if (axis_tensor.rank() != 0)
        return ctx.fail(invalid_argument("axis must be scalar" + node_suffix(name())));
      axis = index_scalar(axis_tensor);
    }
    const int rank = params.rank();
    if (axis < -rank || axis >= rank)
      return ctx.fail(invalid_argument("Expected axis in the range [" + std::to_string(-rank) +
                                       ", " + std::to_string(rank) + "), but got " +
                                       std::to_string(axis) + node_suffix(name())));
    if (axis < 0) axis += rank;
    const int ax = static_cast<int>(axis);
    const Index gather_dim = params.shape().dim(ax);
    if (index_type_ == DType::int32 && gather_dim > std::numeric_limits<std::int32_t>::max())
      return ctx.fail(invalid_argument(
          "params.shape[" + std::to_string(axis) +
          "] too large for int32 indexing: " + std::to_string(gather_dim) + " > " +
          std::to_string(std::numeric_limits<std::int32_t>::max()) + node_suffix(name())));
    detail::gather_output(ctx, params, indices, ax, name());
  }

 private:
  DType index_type_ = DType::int32;
};

// -- RandomShuffle --------------------------------------------------------------------------

/// TensorFlow's RandomShuffleOp: a GuardedPhiloxRandom that every run advances by the
/// (size - 1) 32-bit samples it reserves (rounded up to whole 128-bit Philox calls), and
/// the Fisher-Yates walk `swap(v[i], v[i + uniform(size - i)])` for i = 0 .. size - 2 with
/// `uniform(n) = sample % n`, so a fixed (seed, seed2) repeats TensorFlow's permutations.
class RandomShuffleOp : public OpKernel {
 public:
  RandomShuffleOp(OpKernelConstruction& c, Status* s) : OpKernel(c) { *s = generator_.init(c); }

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.num_inputs() == 1 && ctx.input(0).num_elements() > kExpensiveElements;
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    if (input.num_elements() <= 1 || input.shape().dim(0) <= 1) {
      ctx.set_output(0, input);  // nothing to shuffle (and no samples drawn)
      return;
    }
    const Index size = input.shape().dim(0);
    PhiloxRandom local = generator_.reserve_samples32(size - 1);
    // random::SingleSampleAdapter: hands out the four 32-bit words of each call in turn.
    SingleSampleAdapter single(&local);
    auto uniform = [&](std::uint32_t n) { return single() % n; };
    std::vector<Index> permutation(static_cast<std::size_t>(size));
    for (Index i = 0; i < size; ++i) permutation[static_cast<std::size_t>(i)] = i;
    for (Index i = 0; i + 1 < size; ++i)
      std::swap(
          permutation[static_cast<std::size_t>(i)],
          permutation[static_cast<std::size_t>(i + uniform(static_cast<std::uint32_t>(size - i)))]);
    Tensor& out = ctx.allocate_output(0, input.dtype(), input.shape());
    const Index row = input.num_elements() / size;
    for (Index i = 0; i < size; ++i)
      copy_elements(input, permutation[static_cast<std::size_t>(i)] * row, out, i * row, row);
  }

 private:
  GuardedPhiloxRandom generator_;
};

// -- CountUpTo ------------------------------------------------------------------------------

class CountUpToOp : public OpKernel {
 public:
  CountUpToOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("limit", &limit_);
    if (s->ok()) *s = c.get_attr("T", &dtype_);
  }

  void compute(OpKernelContext& ctx) override {
    auto* var = dynamic_cast<Var*>(ctx.input_ref(0).get());
    if (!var)
      return ctx.fail(
          invalid_argument("Input 0 of " + name() + " is not a variable" + node_suffix(name())));
    Tensor before;
    Status s = var->update([&](Tensor& value) -> Status {
      if (value.rank() != 0)
        return invalid_argument("input is not a scalar: " + value.shape().to_string());
      if (value.dtype() != dtype_)
        return invalid_argument("CountUpTo of " + std::string(dtype_name(dtype_)) +
                                " on a variable of " + std::string(dtype_name(value.dtype())));
      before = value;
      Index current = index_scalar(value);
      if (current >= limit_) return out_of_range("Reached limit of " + std::to_string(limit_));
      // A fresh tensor: earlier reads of the variable share the old buffer.
      value = dtype_ == DType::int64 ? Tensor(static_cast<std::int64_t>(current + 1))
                                     : Tensor(static_cast<std::int32_t>(current + 1));
      return {};
    });
    if (!s.ok()) return ctx.fail(s.with_context(node_suffix(name())));
    ctx.set_output(0, before);
  }

 private:
  std::int64_t limit_ = 0;
  DType dtype_ = DType::invalid;
};

// -- Size and Shape -------------------------------------------------------------------------

class SizeOp : public OpKernel {
 public:
  SizeOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("out_type", &out_type_);
  }

  void compute(OpKernelContext& ctx) override {
    const Index n = ctx.input(0).num_elements();
    if (out_type_ == DType::int64) return ctx.set_output(0, Tensor(static_cast<std::int64_t>(n)));
    if (n > std::numeric_limits<std::int32_t>::max())
      return ctx.fail(invalid_argument(
          "Number of elements was larger than representable by 32-bit output type" +
          node_suffix(name())));
    ctx.set_output(0, Tensor(static_cast<std::int32_t>(n)));
  }

 private:
  DType out_type_ = DType::int32;
};

class ShapeOp : public OpKernel {
 public:
  ShapeOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("out_type", &out_type_);
  }

  void compute(OpKernelContext& ctx) override {
    const Shape& shape = ctx.input(0).shape();
    if (out_type_ == DType::int64)
      return ctx.set_output(0, Tensor::from_vector(std::vector<std::int64_t>(shape.dims())));
    std::vector<std::int32_t> dims;
    dims.reserve(shape.dims().size());
    for (int i = 0; i < shape.rank(); ++i) {
      if (shape.dim(i) > std::numeric_limits<std::int32_t>::max())
        return ctx.fail(invalid_argument("Shape output type is 32-bit  but dim " +
                                         std::to_string(i) + " is " + std::to_string(shape.dim(i)) +
                                         node_suffix(name())));
      dims.push_back(static_cast<std::int32_t>(shape.dim(i)));
    }
    ctx.set_output(0, Tensor::from_vector(dims));
  }

 private:
  DType out_type_ = DType::int32;
};

}  // namespace

namespace detail {

void register_input_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<RangeOp>("Range", "CPU", {{"Tidx", kRangeTypes}}));
  r.add(make_kernel_def<GatherOp>(
      "GatherV2", "CPU",
      {{"Tparams", kValueTypes}, {"Tindices", kIndexTypes}, {"Taxis", kIndexTypes}}));
  // The first Gather: no axis input, axis 0.
  r.add(make_kernel_def<GatherOp>("Gather", "CPU",
                                  {{"Tparams", kValueTypes}, {"Tindices", kIndexTypes}}));
  r.add(make_kernel_def<RandomShuffleOp>("RandomShuffle", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<CountUpToOp>("CountUpTo", "CPU", {{"T", kIndexTypes}}));
  r.add(make_kernel_def<CountUpToOp>("ResourceCountUpTo", "CPU", {{"T", kIndexTypes}}));
  r.add(make_kernel_def<SizeOp>("Size", "CPU", {{"T", kValueTypes}, {"out_type", kIndexTypes}}));
  r.add(make_kernel_def<ShapeOp>("Shape", "CPU", {{"T", kValueTypes}, {"out_type", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
