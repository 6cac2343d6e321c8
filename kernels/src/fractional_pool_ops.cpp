// FractionalMaxPool, FractionalAvgPool and their Grad ops: CPU kernels with TensorFlow's checks
// and messages (fractional_max_pool_op.cc, fractional_avg_pool_op.cc,
// fractional_pool_common.cc). The pooling sequences come from TensorFlow's GuardedPhiloxRandom
// stream, so with `deterministic` and fixed seeds they are TensorFlow's bit for bit. The
// definitions are in ops/src/defs/nn_legacy_ops.cpp, the gradients in
// ops/src/gradients/nn_legacy_grad.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/philox_random.hpp"
#include "kernel_helpers.hpp"
#include "random_distributions.hpp"
#include "standard_kernels.hpp"
#include "tensor_summary.hpp"

namespace af {

namespace {

using detail::Index;
using detail::index_values;
using detail::StatusKernel;

// Tensor::DebugString(): "Tensor<type: int64 shape: [4] values: 0 2 4...>".
std::string debug_string(const Tensor& t) {
  return "Tensor<type: " + std::string(data_type_string(t.dtype())) +
         " shape: " + t.shape().to_string() + " values: " + detail::summarize_value(t, 3, false) +
         ">";
}

// How Eigen prints a vector of int64 (operator<< of a TensorMap): each value right-aligned to
// the widest one, separated by a space (" 0 -2  4  5").
std::string eigen_vector_string(const std::vector<std::int64_t>& v) {
  std::size_t width = 0;
  for (auto x : v) width = std::max(width, std::to_string(x).size());
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += " ";
    const std::string s = std::to_string(v[i]);
    out += std::string(width - s.size(), ' ') + s;
  }
  return out;
}

// random::New64(): a fresh 64-bit seed.
std::uint64_t new64() {
  static thread_local std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) | rd();
}

// GuardedPhiloxRandom::Init(seed, seed2) and ReserveSamples32: fresh seeds when both are 0;
// each reservation hands out the generator as it stands and skips the 128-bit calls it covers.
class PoolingGenerator {
 public:
  PoolingGenerator(std::int64_t seed, std::int64_t seed2) {
    auto lo = static_cast<std::uint64_t>(seed), hi = static_cast<std::uint64_t>(seed2);
    if (lo == 0 && hi == 0) {
      lo = new64();
      hi = new64();
    }
    generator_ = PhiloxRandom(lo, hi);
  }

  PhiloxRandom reserve_samples32(Index samples) {
    PhiloxRandom local = generator_;
    generator_.skip(static_cast<std::uint64_t>((samples + 3) / 4));
    return local;
  }

 private:
  PhiloxRandom generator_;
};

// GeneratePoolingSequencePseudoRandom: a_i = ceil(alpha * (i + u)) for one u in
// [0, min(u_max1, u_max2)) drawn as SimplePhilox::RandDouble; returns the differences.
std::vector<std::int64_t> pseudo_random_sequence(int input_length, int output_length,
                                                 PoolingGenerator* generator) {
  std::vector<std::int64_t> cum_seq(static_cast<std::size_t>(output_length) + 1, 0);
  std::vector<std::int64_t> diff(static_cast<std::size_t>(output_length), 0);
  const double alpha = static_cast<double>(input_length) / output_length;
  const int k = input_length / output_length;
  const double u_max1 = (k + 2) / alpha - 1;
  const double u_max2 = (input_length + 1 - k) / alpha - (output_length - 1);
  const double max_u = std::min(u_max1, u_max2);
  PhiloxRandom local = generator->reserve_samples32(2);
  detail::SingleSampleAdapter single(&local);
  const std::uint32_t x0 = single();
  const std::uint32_t x1 = single();
  const double u = detail::uint64_to_double(x0, x1) * max_u;
  cum_seq[0] = 1;
  cum_seq[static_cast<std::size_t>(output_length)] = input_length + 1;
  for (int i = 1; i < output_length; ++i)
    cum_seq[static_cast<std::size_t>(i)] = static_cast<int>(std::ceil(alpha * (i + u)));
  for (std::size_t i = 0; i < diff.size(); ++i) diff[i] = cum_seq[i + 1] - cum_seq[i];
  return diff;
}

// GeneratePoolingSequenceRandom: k + 1 for the first input_length % output_length entries,
// k for the rest, shuffled as RandomShuffle does with single 32-bit samples.
std::vector<std::int64_t> random_sequence(int input_length, int output_length,
                                          PoolingGenerator* generator) {
  const int k = input_length / output_length;
  const int num_random_spot = input_length % output_length;
  std::vector<std::int64_t> diff(static_cast<std::size_t>(output_length), k);
  for (int i = 0; i < num_random_spot; ++i) diff[static_cast<std::size_t>(i)] += 1;
  PhiloxRandom local = generator->reserve_samples32(static_cast<Index>(diff.size()));
  detail::SingleSampleAdapter single(&local);
  if (!diff.empty())
    for (std::size_t i = 0; i + 1 < diff.size(); ++i) {
      const auto n = static_cast<std::uint32_t>(diff.size() - i);
      std::swap(diff[i], diff[i + single() % n]);
    }
  return diff;
}

// GeneratePoolingSequence: the cumulative sequence, starting at 0.
std::vector<std::int64_t> pooling_sequence(int input_length, int output_length,
                                           PoolingGenerator* generator, bool pseudo_random) {
  const std::vector<std::int64_t> diff =
      pseudo_random ? pseudo_random_sequence(input_length, output_length, generator)
                    : random_sequence(input_length, output_length, generator);
  std::vector<std::int64_t> cum_seq(static_cast<std::size_t>(output_length) + 1, 0);
  for (std::size_t i = 1; i < cum_seq.size(); ++i) cum_seq[i] = cum_seq[i - 1] + diff[i - 1];
  return cum_seq;
}

// The region [start, end] of pooling cell `i` of a sequence: end one short of the next start
// unless the cells overlap, clipped to the input.
struct Cell {
  Index start, end;
};

Cell cell(const std::vector<std::int64_t>& seq, std::size_t i, bool overlapping, Index max) {
  const Index end = overlapping ? seq[i + 1] : seq[i + 1] - 1;
  return {seq[i], std::min(end, max)};
}

// The forward ops: attrs, the sequences and the output allocation they share.
template <class T>
class FractionalPoolBase : public StatusKernel {
 public:
  FractionalPoolBase(OpKernelConstruction& c, Status* s, const char* kind) : StatusKernel(c) {
    *s = init(c, kind);
  }

 protected:
  struct Pooling {
    std::vector<std::int64_t> rows, cols;  // cumulative sequences
    Index batch = 0, in_rows = 0, in_cols = 0, depth = 0, out_rows = 0, out_cols = 0;
    Tensor* output = nullptr;
  };

  // Checks the input, draws the sequences and allocates the three outputs.
  Status prepare(OpKernelContext& ctx, Pooling* p) {
    const Tensor& input = ctx.input(0);
    if (input.rank() != 4) return invalid_argument("tensor_in must be 4-dimensional");
    int input_size[4], output_size[4];
    for (int i = 0; i < 4; ++i) {
      input_size[i] = static_cast<int>(input.shape().dim(i));
      const float ratio = pooling_ratio_[static_cast<std::size_t>(i)];
      if (!(static_cast<float>(input_size[i]) >= ratio))
        return invalid_argument("Pooling ratio is higher than input dimension size for dimension " +
                                std::to_string(i) +
                                ". Input dim size: " + std::to_string(input_size[i]) +
                                " pooling ratio: " + detail::format_float(ratio));
    }
    for (int i = 0; i < 4; ++i)
      output_size[i] = static_cast<int>(std::floor(static_cast<float>(input_size[i]) /
                                                   pooling_ratio_[static_cast<std::size_t>(i)]));
    PoolingGenerator generator(seed_, seed2_);
    p->rows = pooling_sequence(input_size[1], output_size[1], &generator, pseudo_random_);
    p->cols = pooling_sequence(input_size[2], output_size[2], &generator, pseudo_random_);
    p->batch = input_size[0];
    p->in_rows = input_size[1];
    p->in_cols = input_size[2];
    p->depth = input_size[3];
    p->out_rows = output_size[1];
    p->out_cols = output_size[2];
    p->output = &ctx.allocate_output(
        0, dtype_of_v<T>, Shape{output_size[0], output_size[1], output_size[2], output_size[3]});
    for (int k = 1; k <= 2; ++k) {
      const auto& seq = k == 1 ? p->rows : p->cols;
      Tensor& t =
          ctx.allocate_output(k, DType::int64, Shape{static_cast<std::int64_t>(seq.size())});
      std::copy(seq.begin(), seq.end(), t.data<std::int64_t>());
    }
    return {};
  }

  // Calls `visit(out_offset, in_offset)` (pixel offsets, depth values each) for every input
  // pixel of every pooling cell, in TensorFlow's order.
  template <class Visit>
  void for_each_cell_pixel(const Pooling& p, Visit&& visit) const {
    for (Index b = 0; b < p.batch; ++b)
      for (std::size_t hs = 0; hs + 1 < p.rows.size(); ++hs) {
        const Cell h = cell(p.rows, hs, overlapping_, p.in_rows - 1);
        for (std::size_t ws = 0; ws + 1 < p.cols.size(); ++ws) {
          const Index out_offset =
              (b * p.out_rows + static_cast<Index>(hs)) * p.out_cols + static_cast<Index>(ws);
          const Cell w = cell(p.cols, ws, overlapping_, p.in_cols - 1);
          for (Index y = h.start; y <= h.end; ++y)
            for (Index x = w.start; x <= w.end; ++x)
              visit(out_offset, (b * p.in_rows + y) * p.in_cols + x);
        }
      }
  }

 private:
  Status init(OpKernelConstruction& c, const char* kind) {
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("pooling_ratio", &pooling_ratio_));
    c.get_attr("pseudo_random", &pseudo_random_);
    c.get_attr("overlapping", &overlapping_);
    if (pooling_ratio_.size() != 4)
      return invalid_argument("pooling_ratio field must specify 4 dimensions");
    for (float r : pooling_ratio_)
      if (!(r >= 1))
        return invalid_argument("pooling_ratio cannot be smaller than 1, got: " +
                                detail::format_float(r));
    if (pooling_ratio_[0] != 1 || pooling_ratio_[3] != 1)
      return unimplemented(std::string("Fractional ") + kind +
                           " pooling is not yet supported on the batch nor channel dimension.");
    bool deterministic = false;
    c.get_attr("deterministic", &deterministic);
    c.get_attr("seed", &seed_);
    c.get_attr("seed2", &seed2_);
    if (deterministic) {
      // Unseeded but deterministic: seeds drawn once, kept for every run of the kernel.
      if (seed_ == 0 && seed2_ == 0) {
        seed_ = static_cast<std::int64_t>(new64());
        seed2_ = static_cast<std::int64_t>(new64());
      }
    } else if (seed_ != 0 || seed2_ != 0) {
      return invalid_argument("Both seed and seed2 should be 0 if deterministic is false.");
    }
    return {};
  }

 protected:
  std::vector<float> pooling_ratio_;
  bool pseudo_random_ = false;
  bool overlapping_ = false;
  std::int64_t seed_ = 0, seed2_ = 0;
};

// FractionalMaxPool: the maximum of each cell, starting from the type's lowest value (a NaN
// never wins, as Eigen's cwiseMax).
template <class T>
class FractionalMaxPoolOp : public FractionalPoolBase<T> {
 public:
  FractionalMaxPoolOp(OpKernelConstruction& c, Status* s) : FractionalPoolBase<T>(c, s, "max") {}

 protected:
  Status run(OpKernelContext& ctx) override {
    typename FractionalPoolBase<T>::Pooling p;
    ACTORFLOW_RETURN_IF_ERROR(this->prepare(ctx, &p));
    T* out = p.output->template data<T>();
    std::fill(out, out + p.output->num_elements(), std::numeric_limits<T>::lowest());
    const T* in = ctx.input(0).data<T>();
    const Index depth = p.depth;
    this->for_each_cell_pixel(p, [&](Index out_offset, Index in_offset) {
      T* o = out + out_offset * depth;
      const T* x = in + in_offset * depth;
      for (Index d = 0; d < depth; ++d) o[d] = (o[d] < x[d]) ? x[d] : o[d];
    });
    return {};
  }
};

// FractionalAvgPool: the mean of each cell, summed in T and divided by the count in T
// (integer division for the integer types).
template <class T>
class FractionalAvgPoolOp : public FractionalPoolBase<T> {
 public:
  FractionalAvgPoolOp(OpKernelConstruction& c, Status* s)
      : FractionalPoolBase<T>(c, s, "average") {}

 protected:
  Status run(OpKernelContext& ctx) override {
    typename FractionalPoolBase<T>::Pooling p;
    ACTORFLOW_RETURN_IF_ERROR(this->prepare(ctx, &p));
    T* out = p.output->template data<T>();
    const T* in = ctx.input(0).data<T>();
    const Index depth = p.depth;
    std::vector<T> count(static_cast<std::size_t>(p.batch * p.out_rows * p.out_cols), T(0));
    this->for_each_cell_pixel(p, [&](Index out_offset, Index in_offset) {
      T* o = out + out_offset * depth;
      const T* x = in + in_offset * depth;
      for (Index d = 0; d < depth; ++d) o[d] += x[d];
      count[static_cast<std::size_t>(out_offset)] += T(1);
    });
    for (std::size_t i = 0; i < count.size(); ++i)
      for (Index d = 0; d < depth; ++d) {
        T& o = out[static_cast<Index>(i) * depth + d];
        o = o / count[i];
      }
    return {};
  }
};

// What the two gradient kernels share: the overlapping attr.
class FractionalPoolGradBase : public StatusKernel {
 public:
  FractionalPoolGradBase(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    c.get_attr("overlapping", &overlapping_);
    *s = {};
  }

 protected:
  bool overlapping_ = false;
};

// FractionalMaxPoolGrad(orig_input, orig_output, out_backprop, row_pooling_sequence,
// col_pooling_sequence): the max pooling walked again to find each cell's first maximum, which
// gets the cell's gradient; a walk that does not reproduce orig_output fails.
template <class T>
class FractionalMaxPoolGradOp : public FractionalPoolGradBase {
 public:
  using FractionalPoolGradBase::FractionalPoolGradBase;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& out = ctx.input(1);
    const Tensor& out_backprop = ctx.input(2);
    const Tensor& row_t = ctx.input(3);
    const Tensor& col_t = ctx.input(4);
    if (in.rank() != 4)
      return invalid_argument("orig_input should be a tensor of rank 4, got " + debug_string(in));
    if (in.num_elements() == 0)
      return invalid_argument("orig_input must not be empty, got " + debug_string(in));
    if (out.rank() != 4)
      return invalid_argument("orig_output should be a tensor of rank 4, got " + debug_string(out));
    if (out.num_elements() == 0)
      return invalid_argument("orig_output must not be empty, got " + debug_string(out));
    if (row_t.rank() != 1)
      return invalid_argument("row_pooling_sequence must be a vector, received shape " +
                              row_t.shape().to_string());
    if (col_t.rank() != 1)
      return invalid_argument("col_pooling_sequence must be a vector, received shape " +
                              col_t.shape().to_string());
    if (row_t.num_elements() * col_t.num_elements() > in.num_elements())
      return invalid_argument(
          "Pooling region has more elements than the input tensor. row_pooling_sequence: " +
          debug_string(row_t) + "col_pooling_sequence: " + debug_string(col_t) +
          "orig_input: " + debug_string(in));
    const std::vector<std::int64_t> rows = index_values(row_t), cols = index_values(col_t);
    const Shape& is = in.shape();
    const Shape& os = out.shape();
    const Index batch = is.dim(0), in_rows = is.dim(1), in_cols = is.dim(2), depth = is.dim(3);
    const Index out_rows = os.dim(1), out_cols = os.dim(2);
    // Where TensorFlow would read or write past its buffers, actorflow refuses.
    if (os.dim(0) != batch || os.dim(3) != depth)
      return invalid_argument("orig_output " + os.to_string() +
                              " must have the batch and depth of orig_input " + is.to_string());
    if (static_cast<Index>(rows.size()) - 1 > out_rows ||
        static_cast<Index>(cols.size()) - 1 > out_cols)
      return invalid_argument("The pooling sequences describe more cells than orig_output " +
                              os.to_string() + " has");
    for (const auto* seq : {&rows, &cols})
      for (std::size_t i = 0; i + 1 < seq->size(); ++i)
        if ((*seq)[i] < 0)
          return invalid_argument("Pooling sequence values must not be negative, got " +
                                  eigen_vector_string(*seq));
    if (out_backprop.num_elements() > out.num_elements())
      return invalid_argument("out_backprop " + out_backprop.shape().to_string() +
                              " has more elements than orig_output " + os.to_string());
    // Step 1: the first maximum of every cell (TensorFlow's `output < input || unset`).
    std::vector<T> dup(static_cast<std::size_t>(out.num_elements()),
                       std::numeric_limits<T>::lowest());
    std::vector<Index> arg_max(dup.size(), -1);
    const T* x = in.data<T>();
    for (Index b = 0; b < batch; ++b)
      for (std::size_t hs = 0; hs + 1 < rows.size(); ++hs) {
        const Cell h = cell(rows, hs, overlapping_, in_rows - 1);
        for (std::size_t ws = 0; ws + 1 < cols.size(); ++ws) {
          const Index out_index =
              (b * out_rows + static_cast<Index>(hs)) * out_cols + static_cast<Index>(ws);
          const Cell w = cell(cols, ws, overlapping_, in_cols - 1);
          for (Index y = h.start; y <= h.end; ++y)
            for (Index xx = w.start; xx <= w.end; ++xx) {
              const Index in_index = (b * in_rows + y) * in_cols + xx;
              for (Index d = 0; d < depth; ++d) {
                const Index o = out_index * depth + d;
                const T v = x[in_index * depth + d];
                T& ref = dup[static_cast<std::size_t>(o)];
                Index& arg = arg_max[static_cast<std::size_t>(o)];
                if (ref < v || arg == -1) {
                  ref = v;
                  arg = in_index * depth + d;
                }
              }
            }
        }
      }
    const T* y = out.data<T>();
    for (std::size_t i = 0; i < dup.size(); ++i)
      if (!(dup[i] == y[i]))
        return invalid_argument("tensor_out_dup is not the same as tensor_out");
    // Step 2: each output's gradient to its maximum.
    Tensor& dx_t = ctx.allocate_output(0, dtype_of_v<T>, in.shape());
    T* dx = dx_t.data<T>();
    const T* dy = out_backprop.data<T>();
    const Index num_inputs = in.num_elements();
    for (Index i = 0; i < out_backprop.num_elements(); ++i) {
      const Index at = arg_max[static_cast<std::size_t>(i)];
      if (at < 0 || at >= num_inputs)
        return invalid_argument("Invalid input backprop index: " + std::to_string(at) + ", " +
                                std::to_string(num_inputs));
      dx[at] += dy[i];
    }
    return {};
  }
};

// FractionalAvgPoolGrad(orig_input_tensor_shape, out_backprop, row_pooling_sequence,
// col_pooling_sequence): each output's gradient spread evenly over its cell, summed in double
// and converted to T (truncated for the integer types).
template <class T>
class FractionalAvgPoolGradOp : public FractionalPoolGradBase {
 public:
  using FractionalPoolGradBase::FractionalPoolGradBase;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& shape_t = ctx.input(0);
    if (shape_t.rank() != 1 || shape_t.num_elements() != 4)
      return invalid_argument("original input tensor shape must be1-dimensional and 4 elements");
    const Tensor& out_backprop = ctx.input(1);
    if (out_backprop.rank() != 4) return invalid_argument("out_backprop must be 4-dimensional");
    const Tensor& row_t = ctx.input(2);
    const Tensor& col_t = ctx.input(3);
    const Shape& bs = out_backprop.shape();
    const Index out_batch = bs.dim(0), out_rows = bs.dim(1), out_cols = bs.dim(2),
                out_depth = bs.dim(3);
    if (row_t.num_elements() <= out_rows)
      return invalid_argument("Given out_backprop shape " + bs.to_string() +
                              ", row_seq_tensor must have at least " +
                              std::to_string(out_rows + 1) + " elements, but got " +
                              std::to_string(row_t.num_elements()));
    if (col_t.num_elements() <= out_cols)
      return invalid_argument("Given out_backprop shape " + bs.to_string() +
                              ", col_seq_tensor must have at least " +
                              std::to_string(out_cols + 1) + " elements, but got " +
                              std::to_string(col_t.num_elements()));
    const std::vector<std::int64_t> rows = index_values(row_t), cols = index_values(col_t);
    const std::vector<std::int64_t> dims = index_values(shape_t);
    const char* names[4] = {"Batch", "Rows", "Columns", "Depth"};
    for (int i = 0; i < 4; ++i)
      if (dims[static_cast<std::size_t>(i)] == 0)
        return invalid_argument(std::string(names[i]) + " dimension of input must not be 0");
    for (auto d : dims)
      if (d < 0) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    const Index in_batch = dims[0], in_rows = dims[1], in_cols = dims[2], in_depth = dims[3];
    // TensorFlow writes past its buffer for these; actorflow refuses them.
    if (out_batch > in_batch || out_depth > in_depth)
      return invalid_argument("out_backprop " + bs.to_string() +
                              " has a larger batch or depth than the original input");
    std::vector<double> acc(static_cast<std::size_t>(in_batch * in_rows * in_cols * in_depth), 0.0);
    const T* dy = out_backprop.data<T>();
    for (Index b = 0; b < out_batch; ++b)
      for (Index r = 0; r < out_rows; ++r) {
        const Cell h = cell(rows, static_cast<std::size_t>(r), overlapping_, in_rows - 1);
        if (h.start < 0 || h.end < 0)
          return invalid_argument("Row sequence tensor values must not be negative, got " +
                                  eigen_vector_string(rows));
        for (Index c = 0; c < out_cols; ++c) {
          const Cell w = cell(cols, static_cast<std::size_t>(c), overlapping_, in_cols - 1);
          if (w.start < 0 || w.end < 0)
            return invalid_argument("Column sequence tensor values must not be negative, got " +
                                    eigen_vector_string(cols));
          const Index cell_size = (h.end - h.start + 1) * (w.end - w.start + 1);
          const Index out_index = (b * out_rows + r) * out_cols + c;
          for (Index y = h.start; y <= h.end; ++y)
            for (Index x = w.start; x <= w.end; ++x) {
              const Index in_index = (b * in_rows + y) * in_cols + x;
              for (Index d = 0; d < out_depth; ++d)
                acc[static_cast<std::size_t>(in_index * in_depth + d)] +=
                    static_cast<double>(dy[out_index * out_depth + d]) /
                    static_cast<double>(cell_size);
            }
        }
      }
    Tensor& dx_t =
        ctx.allocate_output(0, dtype_of_v<T>, Shape{in_batch, in_rows, in_cols, in_depth});
    T* dx = dx_t.data<T>();
    for (std::size_t i = 0; i < acc.size(); ++i) dx[i] = static_cast<T>(acc[i]);
    return {};
  }
};

}  // namespace

namespace detail {

void register_fractional_pool_kernels(KernelRegistry& r) {
  register_for_types<FractionalMaxPoolOp, std::int32_t, std::int64_t, float, double>(
      r, "FractionalMaxPool");
  register_for_types<FractionalAvgPoolOp, std::int32_t, std::int64_t, float, double>(
      r, "FractionalAvgPool");
  register_for_types<FractionalMaxPoolGradOp, std::int32_t, std::int64_t, float, double>(
      r, "FractionalMaxPoolGrad");
  register_for_types<FractionalAvgPoolGradOp, std::int32_t, std::int64_t, float, double>(
      r, "FractionalAvgPoolGrad");
}

}  // namespace detail

}  // namespace af
