// The ops TensorFlow's input producers are built from (tf.train.input_producer,
// string_input_producer, range_input_producer, slice_input_producer, limit_epochs): Range,
// GatherV2, RandomShuffle, CountUpTo, Size and Shape. Ops, shape functions, CPU kernels and
// the graph-building functions range, gather, random_shuffle, count_up_to, size and shape.
//
// The kernels follow TensorFlow 1.x (tensorflow/core/kernels/sequence_ops.cc, gather_op.cc,
// random_shuffle_op.cc, count_up_to_op.cc, shape_ops.h); messages are TensorFlow's.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "actorflow/ops/resource.hpp"
#include "kernel_util.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;

// Every type a tensor of values may have (resources excluded).
const std::vector<DType> kValueTypes = {DType::float32, DType::float64, DType::int32,
                                        DType::int64,   DType::uint8,   DType::boolean,
                                        DType::string,  DType::bfloat16};
const std::vector<DType> kIndexTypes = {DType::int32, DType::int64};
const std::vector<DType> kRangeTypes = {DType::float32, DType::float64, DType::int32, DType::int64};

// Kernels moving more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;

using detail::node_suffix;

// TensorFlow's op_def_library message for a type attribute outside its allowed list.
using detail::check_attr_type;

Status with_rank(const PartialShape& s, int rank) {
  if (s.rank_known() && s.rank() != rank)
    return invalid_argument("Shape must be rank " + std::to_string(rank) + " but is rank " +
                            std::to_string(s.rank()));
  return {};
}

Status with_rank_at_least(const PartialShape& s, Index rank) {
  if (s.rank_known() && s.rank() < rank)
    return invalid_argument("Shape must be at least rank " + std::to_string(rank) +
                            " but is rank " + std::to_string(s.rank()));
  return {};
}

// The single value of an int32 or int64 tensor, widened.
Index index_scalar(const Tensor& t) {
  return t.dtype() == DType::int64 ? t.data<std::int64_t>()[0] : t.data<std::int32_t>()[0];
}

// TensorFlow 1.x's StrCat of a number: integers in decimal, floats as FloatToBuffer /
// DoubleToBuffer render them (%g with FLT_DIG / DBL_DIG digits, more when that does not
// read back as the same value).
template <class T>
std::string number_string(T v) {
  if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    constexpr bool is_float = std::is_same_v<T, float>;
    const int digits = is_float ? FLT_DIG : DBL_DIG;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, static_cast<double>(v));
    const bool round_trips = is_float ? std::strtof(buffer, nullptr) == static_cast<float>(v)
                                      : std::strtod(buffer, nullptr) == static_cast<double>(v);
    if (!round_trips)
      std::snprintf(buffer, sizeof buffer, "%.*g", digits + (is_float ? 3 : 2),
                    static_cast<double>(v));
    return buffer;
  }
}

// Calls `f(T{})` with the C++ type of a Range dtype (int32, int64, float, double).
template <class F>
void visit_range_dtype(DType t, F&& f) {
  switch (t) {
    case DType::int32:
      f(std::int32_t{});
      break;
    case DType::int64:
      f(std::int64_t{});
      break;
    case DType::float32:
      f(float{});
      break;
    case DType::float64:
      f(double{});
      break;
    default:
      break;
  }
}

// Copies `count` elements from `src` at `src_offset` to `dst` at `dst_offset` (both of one
// dtype; strings element by element, everything else as bytes).
void copy_elements(const Tensor& src, Index src_offset, Tensor& dst, Index dst_offset,
                   Index count) {
  if (count == 0) return;
  if (src.dtype() == DType::string) {
    const std::string* s = src.data<std::string>() + src_offset;
    std::copy(s, s + count, dst.data<std::string>() + dst_offset);
    return;
  }
  const auto size = static_cast<Index>(dtype_size(src.dtype()));
  std::memcpy(static_cast<char*>(dst.raw_data()) + dst_offset * size,
              static_cast<const char*>(src.raw_data()) + src_offset * size,
              static_cast<std::size_t>(count * size));
}

// -- Range ----------------------------------------------------------------------------------

// The number of elements of range(start, limit, delta), or the error TensorFlow's RangeSize
// (shape function) and RangeOp (kernel) report. `kernel` selects the kernel's spelling of
// the zero-delta message.
template <class T>
Status range_size(T start, T limit, T delta, bool kernel, Index* size) {
  if (delta == T(0))
    return invalid_argument(kernel ? "Requires delta != 0: " + number_string(delta)
                                   : std::string("Requires delta != 0"));
  if (delta > T(0) && start > limit)
    return invalid_argument("Requires start <= limit when delta > 0: " + number_string(start) +
                            "/" + number_string(limit));
  if (delta < T(0) && start < limit)
    return invalid_argument("Requires start >= limit when delta < 0: " + number_string(start) +
                            "/" + number_string(limit));
  if constexpr (std::is_integral_v<T>) {
    // ceil(|limit - start| / |delta|), in unsigned arithmetic so that no extreme overflows.
    const auto wide = [](T v) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(v)); };
    const std::uint64_t distance =
        start <= limit ? wide(limit) - wide(start) : wide(start) - wide(limit);
    const std::uint64_t step = delta > 0 ? wide(delta) : std::uint64_t{0} - wide(delta);
    *size = static_cast<Index>(distance / step + (distance % step != 0 ? 1 : 0));
  } else {
    const T count = std::ceil(std::abs((limit - start) / delta));
    // TensorFlow 2's guard: a NaN or huge count is no shape.
    if (!(count <= static_cast<T>(std::numeric_limits<Index>::max())))
      return invalid_argument("Requires ((limit - start) / delta) <= " +
                              std::to_string(std::numeric_limits<Index>::max()));
    *size = static_cast<Index>(count);
  }
  return {};
}

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

Status infer_range(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("Tidx", &t));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(t, "Tidx", kRangeTypes, "float, double, int32, int64"));
  static constexpr const char* kNames[] = {"start", "limit", "delta"};
  for (std::size_t i = 1; i < 3; ++i)
    if (c.input_types[i] != c.input_types[0])
      return invalid_argument("Input '" + std::string(kNames[i]) + "' of 'Range' Op has type " +
                              std::string(dtype_name(c.input_types[i])) +
                              " that does not match type " +
                              std::string(dtype_name(c.input_types[0])) + " of argument 'start'.");
  if (c.input_types[0] != t)
    return invalid_argument("Input 'start' of 'Range' Op has type " +
                            std::string(dtype_name(c.input_types[0])) +
                            " that does not match Tidx " + std::string(dtype_name(t)));
  for (std::size_t i = 0; i < 3; ++i) {
    if (Status s = with_rank(c.input_shapes[i], 0); !s.ok())
      return s.with_context("\n\t for '" + std::string(kNames[i]) + "'");
  }
  if (!c.input_values[0] || !c.input_values[1] || !c.input_values[2]) {
    c.add_output(t, PartialShape{-1});
    return {};
  }
  Status status;
  Index size = 0;
  visit_range_dtype(t, [&](auto tag) {
    using T = decltype(tag);
    status = range_size(c.input_values[0]->data<T>()[0], c.input_values[1]->data<T>()[0],
                        c.input_values[2]->data<T>()[0], /*kernel=*/false, &size);
  });
  ACTORFLOW_RETURN_IF_ERROR(status);
  c.add_output(t, PartialShape{size});
  return {};
}

// -- GatherV2 -------------------------------------------------------------------------------

// TensorFlow's SliceDebugString: the multi-index of flat element `flat` of `shape`, "[1,2]"
// ("" for a scalar).
std::string slice_debug_string(const Shape& shape, Index flat) {
  const int rank = shape.rank();
  if (rank == 0) return "";
  std::vector<Index> strides(static_cast<std::size_t>(rank), 1);
  for (int i = rank - 2; i >= 0; --i)
    strides[static_cast<std::size_t>(i)] =
        strides[static_cast<std::size_t>(i) + 1] * shape.dim(i + 1);
  std::string out = "[";
  Index left = flat;
  for (int i = 0; i < rank; ++i) {
    if (i) out += ",";
    out += std::to_string(left / strides[static_cast<std::size_t>(i)]);
    left %= strides[static_cast<std::size_t>(i)];
  }
  return out + "]";
}

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
    // The result is params.shape[:axis] + indices.shape + params.shape[axis + 1:].
    std::vector<std::int64_t> dims;
    Index outer = 1, inner = 1;
    for (int d = 0; d < ax; ++d) {
      dims.push_back(params.shape().dim(d));
      outer *= params.shape().dim(d);
    }
    for (auto d : indices.shape().dims()) dims.push_back(d);
    for (int d = ax + 1; d < rank; ++d) {
      dims.push_back(params.shape().dim(d));
      inner *= params.shape().dim(d);
    }
    const Index n = indices.num_elements();
    std::vector<Index> index(static_cast<std::size_t>(n));
    if (indices.dtype() == DType::int64) {
      auto v = indices.flat<std::int64_t>();
      std::copy(v.begin(), v.end(), index.begin());
    } else {
      auto v = indices.flat<std::int32_t>();
      std::copy(v.begin(), v.end(), index.begin());
    }
    Tensor& out = ctx.allocate_output(0, params.dtype(), Shape(std::move(dims)));
    if (n == 0 || outer == 0 || inner == 0) return;
    for (Index i = 0; i < n; ++i)
      if (index[static_cast<std::size_t>(i)] < 0 ||
          index[static_cast<std::size_t>(i)] >= gather_dim)
        return ctx.fail(invalid_argument(
            "indices" + slice_debug_string(indices.shape(), i) + " = " +
            std::to_string(index[static_cast<std::size_t>(i)]) + " is not in [0, " +
            std::to_string(gather_dim) + ")" + node_suffix(name())));
    for (Index o = 0; o < outer; ++o)
      for (Index i = 0; i < n; ++i)
        copy_elements(params, (o * gather_dim + index[static_cast<std::size_t>(i)]) * inner, out,
                      (o * n + i) * inner, inner);
  }

 private:
  DType index_type_ = DType::int32;
};

Status infer_gather(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[1], "Tindices", kIndexTypes, "int32, int64"));
  ACTORFLOW_RETURN_IF_ERROR(
      check_attr_type(c.input_types[2], "Taxis", kIndexTypes, "int32, int64"));
  std::int64_t batch_dims = 0;
  c.get_attr("batch_dims", &batch_dims);
  if (batch_dims != 0)
    return unimplemented("GatherV2 with batch_dims = " + std::to_string(batch_dims) +
                         " is not supported (only 0)");
  const PartialShape& params = c.input_shapes[0];
  const PartialShape& indices = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(params, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  const DType t = c.input_types[0];
  const Tensor* axis_value = c.input_values[2];
  if (axis_value == nullptr) {
    c.add_output(t, params.rank_known() && indices.rank_known()
                        ? PartialShape::unknown_of_rank(params.rank() + indices.rank() - 1)
                        : PartialShape::unknown());
    return {};
  }
  Index axis = index_scalar(*axis_value);
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(params, axis < 0 ? -axis : axis + 1));
  if (!params.rank_known() || !indices.rank_known()) {
    c.add_output(t, PartialShape::unknown());
    return {};
  }
  if (axis < 0) axis += params.rank();
  std::vector<std::int64_t> dims(params.dims().begin(), params.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + axis + 1, params.dims().end());
  c.add_output(t, PartialShape(std::move(dims)));
  return {};
}

// -- RandomShuffle --------------------------------------------------------------------------

/// TensorFlow's RandomShuffleOp: a GuardedPhiloxRandom that every run advances by the
/// (size - 1) 32-bit samples it reserves (rounded up to whole 128-bit Philox calls), and
/// the Fisher-Yates walk `swap(v[i], v[i + uniform(size - i)])` for i = 0 .. size - 2 with
/// `uniform(n) = sample % n`, so a fixed (seed, seed2) repeats TensorFlow's permutations.
class RandomShuffleOp : public OpKernel {
 public:
  RandomShuffleOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    std::int64_t seed = 0;
    std::int64_t seed2 = 0;
    *s = c.get_attr("seed", &seed);
    if (!s->ok()) return;
    *s = c.get_attr("seed2", &seed2);
    if (!s->ok()) return;
    if (seed == 0 && seed2 == 0) {
      // Unseeded ops get fresh random seeds, as TensorFlow's random::New64().
      std::random_device rd;
      auto new64 = [&rd] { return (static_cast<std::uint64_t>(rd()) << 32) | rd(); };
      generator_ = PhiloxRandom(new64(), new64());
    } else {
      generator_ =
          PhiloxRandom(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(seed2));
    }
  }

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
    PhiloxRandom local = reserve_samples32(size - 1);
    // random::SingleSampleAdapter: hands out the four 32-bit words of each call in turn.
    PhiloxRandom::Result block{};
    std::size_t used = block.size();
    auto uniform = [&](std::uint32_t n) {
      if (used == block.size()) {
        block = local();
        used = 0;
      }
      return block[used++] % n;
    };
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
  // GuardedPhiloxRandom::ReserveSamples32: whole 128-bit calls covering `samples` words.
  PhiloxRandom reserve_samples32(Index samples) {
    std::lock_guard<std::mutex> lock(mu_);
    PhiloxRandom local = generator_;
    generator_.skip(static_cast<std::uint64_t>((samples + 3) / 4));
    return local;
  }

  std::mutex mu_;
  PhiloxRandom generator_;
};

Status infer_unchanged(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  c.add_output(c.input_types[0], c.input_shapes[0]);
  return {};
}

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

Status infer_count_up_to(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  std::int64_t limit = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("limit", &limit));
  DType t = DType::invalid;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("T", &t));
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(t, "T", kIndexTypes, "int32, int64"));
  if (c.input_types[0] != t)
    return invalid_argument("Input 'ref' of 'CountUpTo' Op has type " +
                            std::string(dtype_name(c.input_types[0])) + " that does not match T " +
                            std::string(dtype_name(t)));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  c.add_output(t, PartialShape(std::vector<std::int64_t>{}));  // a scalar
  return {};
}

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

Status infer_size(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType out = DType::int32;
  c.get_attr("out_type", &out);
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(out, "out_type", kIndexTypes, "int32, int64"));
  c.add_output(out, PartialShape(std::vector<std::int64_t>{}));  // a scalar
  return {};
}

Status infer_shape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  DType out = DType::int32;
  c.get_attr("out_type", &out);
  ACTORFLOW_RETURN_IF_ERROR(check_attr_type(out, "out_type", kIndexTypes, "int32, int64"));
  c.add_output(out, PartialShape{c.input_shapes[0].rank()});  // rank -1: unknown length
  return {};
}

// -- builder helpers ------------------------------------------------------------------------

// A Python int as convert_to_tensor makes it: int32 when it fits, else int64.
Tensor python_int(std::int64_t v) {
  if (v >= std::numeric_limits<std::int32_t>::min() &&
      v <= std::numeric_limits<std::int32_t>::max())
    return Tensor(static_cast<std::int32_t>(v));
  return Tensor(v);
}

int range_rank(DType t) {
  switch (t) {
    case DType::int32:
      return 0;
    case DType::int64:
      return 1;
    case DType::float32:
      return 2;
    case DType::float64:
      return 3;
    default:
      return -1;
  }
}

// The body of tf.range inside its name scope: casts the three values to the widest of
// their dtypes (int32 < int64 < float32 < float64) and adds the Range op named `op_name`.
Output range_in_scope(Graph& g, const std::string& op_name, Output start, Output limit,
                      Output delta) {
  DType widest = start.dtype();
  for (const Output* o : {&start, &limit, &delta}) {
    if (range_rank(o->dtype()) < 0)
      throw InvalidArgumentError(invalid_argument("range: " + o->name() + " has dtype " +
                                                  std::string(dtype_name(o->dtype())) +
                                                  "; expected int32, int64, float32 or float64"));
    if (range_rank(o->dtype()) > range_rank(widest)) widest = o->dtype();
  }
  start = cast(start, widest);
  limit = cast(limit, widest);
  delta = cast(delta, widest);
  return g.create_op("Range", {start, limit, delta}, {{"Tidx", widest}}, op_name + "/").output(0);
}

}  // namespace

namespace detail {

void register_input_ops(OpRegistry& r) {
  r.add({"Range", infer_range});
  r.add({"GatherV2", infer_gather});
  r.add({"RandomShuffle", infer_unchanged, true});
  r.add({"CountUpTo", infer_count_up_to, true, {0}});
  r.add({"Size", infer_size});
  r.add({"Shape", infer_shape});
}

void register_input_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<RangeOp>("Range", "CPU", {{"Tidx", kRangeTypes}}));
  r.add(make_kernel_def<GatherOp>(
      "GatherV2", "CPU",
      {{"Tparams", kValueTypes}, {"Tindices", kIndexTypes}, {"Taxis", kIndexTypes}}));
  r.add(make_kernel_def<RandomShuffleOp>("RandomShuffle", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<CountUpToOp>("CountUpTo", "CPU", {{"T", kIndexTypes}}));
  r.add(make_kernel_def<SizeOp>("Size", "CPU", {{"T", kValueTypes}, {"out_type", kIndexTypes}}));
  r.add(make_kernel_def<ShapeOp>("Shape", "CPU", {{"T", kValueTypes}, {"out_type", kIndexTypes}}));
}

}  // namespace detail

// tf.range: the name scope "range" holds the Consts made of plain numbers ("start",
// "limit", "delta") and any Casts; the Range op takes the scope's name.
Output range(const Output& start, const Output& limit, const Output& delta, std::string_view name) {
  Graph& g = start.graph();
  const std::string op_name = g.unique_name(name.empty() ? "range" : name);
  auto scope = g.name_scope(op_name + "/");
  return range_in_scope(g, op_name, start, limit, delta);
}

Output range(const Output& limit, std::string_view name) {
  Graph& g = limit.graph();
  const std::string op_name = g.unique_name(name.empty() ? "range" : name);
  auto scope = g.name_scope(op_name + "/");
  Output start = g.constant(Tensor(std::int32_t{0}), "start");
  Output delta = g.constant(Tensor(std::int32_t{1}), "delta");
  return range_in_scope(g, op_name, start, limit, delta);
}

Output range(Graph& g, std::int64_t limit, std::string_view name) {
  return range(g, 0, limit, 1, name);
}

Output range(Graph& g, std::int64_t start, std::int64_t limit, std::int64_t delta,
             std::string_view name) {
  const std::string op_name = g.unique_name(name.empty() ? "range" : name);
  auto scope = g.name_scope(op_name + "/");
  Output start_t = g.constant(python_int(start), "start");
  Output limit_t = g.constant(python_int(limit), "limit");
  Output delta_t = g.constant(python_int(delta), "delta");
  return range_in_scope(g, op_name, start_t, limit_t, delta_t);
}

Output gather(const Output& params, const Output& indices, std::string_view name) {
  return gather(params, indices, 0, name);
}

// tf.gather (GatherV2): the axis becomes the Const "<op>/axis", as op_def_library names a
// converted input.
Output gather(const Output& params, const Output& indices, std::int64_t axis,
              std::string_view name) {
  Graph& g = params.graph();
  const std::string op_name = g.unique_name(name.empty() ? "GatherV2" : name);
  Output axis_t;
  {
    auto scope = g.name_scope(op_name + "/");
    axis_t = g.constant(python_int(axis), "axis");
  }
  return g
      .create_op("GatherV2", {params, indices, axis_t},
                 {{"Tparams", params.dtype()},
                  {"Tindices", indices.dtype()},
                  {"Taxis", axis_t.dtype()},
                  {"batch_dims", std::int64_t{0}}},
                 op_name + "/")
      .output(0);
}

Output random_shuffle(const Output& value, std::optional<std::int64_t> seed,
                      std::string_view name) {
  Graph& g = value.graph();
  auto [seed1, seed2] = g.get_seed(seed);
  return g
      .create_op("RandomShuffle", {value},
                 {{"seed", seed1}, {"seed2", seed2}, {"T", value.dtype()}},
                 name.empty() ? "RandomShuffle" : name)
      .output(0);
}

Output count_up_to(const Output& ref, std::int64_t limit, std::string_view name) {
  if (!ref.valid()) throw InvalidArgumentError(invalid_argument("count_up_to: invalid ref"));
  // Ops taking a reference are colocated with it, as op_def_library does for ref inputs.
  auto colocate = ref.graph().colocate_with(ref.op());
  return ref.graph()
      .create_op("CountUpTo", {ref}, {{"T", ref.dtype()}, {"limit", limit}},
                 name.empty() ? "CountUpTo" : name)
      .output(0);
}

Output count_up_to(const Variable& ref, std::int64_t limit, std::string_view name) {
  return count_up_to(ref.ref(), limit, name);
}

namespace {

void check_out_type(DType out_type, const char* fn) {
  if (out_type != DType::int32 && out_type != DType::int64)
    throw InvalidArgumentError(invalid_argument(std::string(fn) +
                                                ": out_type must be int32 or int64, not " +
                                                std::string(dtype_name(out_type))));
}

// A scalar or vector Const of `out_type` holding `values`.
Tensor index_constant(const std::vector<std::int64_t>& values, DType out_type, bool scalar) {
  if (out_type == DType::int64) return scalar ? Tensor(values.at(0)) : Tensor::from_vector(values);
  std::vector<std::int32_t> narrow;
  for (auto v : values) {
    if (v > std::numeric_limits<std::int32_t>::max())
      throw InvalidArgumentError(
          invalid_argument("Value " + std::to_string(v) + " does not fit the out_type int32"));
    narrow.push_back(static_cast<std::int32_t>(v));
  }
  return scalar ? Tensor(narrow.at(0)) : Tensor::from_vector(narrow);
}

}  // namespace

// tf.size / tf.shape (size_internal / shape_internal with optimize=True): a statically
// known answer becomes a Const named after the scope, as TensorFlow 1.x folds it.
Output size(const Output& x, DType out_type, std::string_view name) {
  check_out_type(out_type, "size");
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Size" : name);
  const PartialShape& s = x.shape();
  if (s.fully_defined())
    return g.constant(index_constant({s.num_elements()}, out_type, true), op_name + "/");
  if (s.rank_known() && std::find(s.dims().begin(), s.dims().end(), 0) != s.dims().end())
    return g.constant(index_constant({0}, out_type, true), op_name + "/");
  return g.create_op("Size", {x}, {{"T", x.dtype()}, {"out_type", out_type}}, op_name + "/")
      .output(0);
}

Output shape(const Output& x, DType out_type, std::string_view name) {
  check_out_type(out_type, "shape");
  Graph& g = x.graph();
  const std::string op_name = g.unique_name(name.empty() ? "Shape" : name);
  const PartialShape& s = x.shape();
  if (s.fully_defined())
    return g.constant(index_constant(s.dims(), out_type, false), op_name + "/");
  return g.create_op("Shape", {x}, {{"T", x.dtype()}, {"out_type", out_type}}, op_name + "/")
      .output(0);
}

}  // namespace af
