// Split, SplitV and ReverseV2: CPU kernels with TensorFlow's checks and messages
// (split_op.cc, split_v_op.cc, reverse_op.cc). Elements move without being read, so every
// dtype shares one instantiation. Their definitions are in ops/src/defs/split_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::copy_elements;
using detail::Index;
using detail::index_values;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::node_suffix;

// `value` viewed as [outer, dim, inner] around `axis`: each output gets rows [begin, begin +
// size) of the middle dimension.
void split_into(OpKernelContext& ctx, const Tensor& value, int axis,
                const std::vector<Index>& sizes) {
  Index outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= value.shape().dim(d);
  for (int d = axis + 1; d < value.rank(); ++d) inner *= value.shape().dim(d);
  const Index dim = value.shape().dim(axis);
  Index begin = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::vector<std::int64_t> dims = value.shape().dims();
    dims[static_cast<std::size_t>(axis)] = sizes[k];
    Tensor out(value.dtype(), Shape(std::move(dims)));
    const Index run = sizes[k] * inner;
    for (Index o = 0; o < outer; ++o)
      copy_elements(value, (o * dim + begin) * inner, out, o * run, run);
    begin += sizes[k];
    ctx.set_output(static_cast<int>(k), std::move(out));
  }
}

// The split axis from a scalar input, in [0, rank); InvalidArgument otherwise.
Status split_axis(const Tensor& t, int rank, int* axis) {
  if (t.num_elements() != 1)
    return invalid_argument("split_dim must be a scalar but has " +
                            std::to_string(t.num_elements()) + " elements");
  const Index given = index_values(t)[0];
  const Index a = given < 0 ? given + rank : given;
  if (a < 0 || a >= rank)
    return invalid_argument("-input rank(-" + std::to_string(rank) +
                            ") <= split_dim < input rank (" + std::to_string(rank) + "), but got " +
                            std::to_string(given));
  *axis = static_cast<int>(a);
  return {};
}

// Split(split_dim, value): `num_split` equal parts.
class SplitOp : public OpKernel {
 public:
  SplitOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("num_split", &num_split_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& value = ctx.input(1);
    int axis = 0;
    if (Status s = split_axis(ctx.input(0), value.rank(), &axis); !s.ok())
      return ctx.fail(s.with_context(node_suffix(name())));
    if (num_split_ <= 0)
      return ctx.fail(invalid_argument("Number of ways to split should be > 0, but got " +
                                       std::to_string(num_split_) + node_suffix(name())));
    const Index dim = value.shape().dim(axis);
    if (dim % num_split_ != 0)
      return ctx.fail(invalid_argument(
          "Number of ways to split should evenly divide the split dimension, but got split_dim " +
          std::to_string(axis) + " (size = " + std::to_string(dim) + ") and num_split " +
          std::to_string(num_split_) + node_suffix(name())));
    if (num_split_ == 1) return ctx.set_output(0, value);
    split_into(ctx, value, axis,
               std::vector<Index>(static_cast<std::size_t>(num_split_), dim / num_split_));
  }

 private:
  std::int64_t num_split_ = 1;
};

// SplitV(value, size_splits, split_dim): parts of the given sizes, one of them possibly -1.
class SplitVOp : public OpKernel {
 public:
  SplitVOp(OpKernelConstruction& c, Status* s) : OpKernel(c) {
    *s = c.get_attr("num_split", &num_split_);
  }

  void compute(OpKernelContext& ctx) override {
    const Tensor& value = ctx.input(0);
    const Tensor& sizes_t = ctx.input(1);
    int axis = 0;
    if (Status s = split_axis(ctx.input(2), value.rank(), &axis); !s.ok())
      return ctx.fail(s.with_context(node_suffix(name())));
    if (sizes_t.rank() != 1 || sizes_t.num_elements() != num_split_)
      return ctx.fail(invalid_argument(
          "size of the split_tensor must be 1-D and have the same elements as outputs got " +
          std::to_string(sizes_t.rank()) + " -D and " + std::to_string(sizes_t.num_elements()) +
          " elements" + node_suffix(name())));
    // int8 sizes too (TensorFlow's Tlen), which index_values leaves out.
    std::vector<Index> sizes;
    if (sizes_t.dtype() == DType::int8) {
      const std::int8_t* p = sizes_t.data<std::int8_t>();
      sizes.assign(p, p + sizes_t.num_elements());
    } else {
      sizes = index_values(sizes_t);
    }
    const Index dim = value.shape().dim(axis);
    Index determined = 0;
    int unknown = -1;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (sizes[k] == -1) {
        if (unknown != -1)
          return ctx.fail(
              invalid_argument("There can only be one -1 in the input." + node_suffix(name())));
        unknown = static_cast<int>(k);
        continue;
      }
      if (sizes[k] < 0)
        return ctx.fail(invalid_argument("Split size at index " + std::to_string(k) +
                                         " must be >= 0. Got: " + std::to_string(sizes[k]) +
                                         node_suffix(name())));
      determined += sizes[k];
    }
    if (!(determined == dim || (unknown >= 0 && determined <= dim)))
      return ctx.fail(invalid_argument(
          "Determined shape must either match input shape along split_dim exactly if fully "
          "specified, or be less than the size of the input along split_dim if not fully "
          "specified.  Got: " +
          std::to_string(determined) + node_suffix(name())));
    if (unknown >= 0) sizes[static_cast<std::size_t>(unknown)] = dim - determined;
    if (num_split_ == 1) return ctx.set_output(0, value);
    split_into(ctx, value, axis, sizes);
  }

 private:
  std::int64_t num_split_ = 1;
};

// `in` reversed along the dimensions `flip` marks (ReverseV2 and Reverse; rank at most 8).
// Adjacent dimensions that are all reversed or all kept fold into one; the innermost kept run
// is copied whole.
StatusOr<Tensor> reverse_tensor(const Tensor& in, const std::vector<bool>& flip) {
  const int rank = in.rank();
  if (rank > 8) return unimplemented("reverse is not implemented for tensors of rank > 8.");
  // Folded dimensions (size-1 dims dropped: reversing them changes nothing).
  std::vector<Index> dims;
  std::vector<bool> folded_flip;
  for (int d = 0; d < rank; ++d) {
    const Index size = in.shape().dim(d);
    const bool f = flip[static_cast<std::size_t>(d)];
    if (size == 1) continue;
    if (!dims.empty() && folded_flip.back() == f) {
      dims.back() *= size;
    } else {
      dims.push_back(size);
      folded_flip.push_back(f);
    }
  }
  Tensor out(in.dtype(), in.shape());
  const Index n = in.num_elements();
  if (n == 0 || std::find(folded_flip.begin(), folded_flip.end(), true) == folded_flip.end()) {
    copy_elements(in, 0, out, 0, n);
    return out;
  }
  // The innermost folded dimension is a run: copied whole when kept, element by element
  // backwards when reversed.
  const Index run = dims.back();
  const bool run_flipped = folded_flip.back();
  const int outer_rank = static_cast<int>(dims.size()) - 1;
  std::vector<Index> coord(static_cast<std::size_t>(outer_rank), 0);
  for (Index dst = 0; dst < n; dst += run) {
    Index src = 0;
    for (int d = 0; d < outer_rank; ++d) {
      const auto u = static_cast<std::size_t>(d);
      src = src * dims[u] + (folded_flip[u] ? dims[u] - 1 - coord[u] : coord[u]);
    }
    src *= run;
    if (!run_flipped) {
      copy_elements(in, src, out, dst, run);
    } else {
      for (Index k = 0; k < run; ++k) copy_elements(in, src + run - 1 - k, out, dst + k, 1);
    }
    for (int d = outer_rank - 1; d >= 0; --d) {
      const auto u = static_cast<std::size_t>(d);
      if (++coord[u] < dims[u]) break;
      coord[u] = 0;
    }
  }
  return out;
}

// ReverseV2(tensor, axis): the listed axes reversed.
class ReverseV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& axes = ctx.input(1);
    if (axes.rank() != 1)
      return ctx.fail(invalid_argument("'dims' must be 1-dimension, not " +
                                       std::to_string(axes.rank()) + node_suffix(name())));
    const int rank = in.rank();
    std::vector<bool> flip(static_cast<std::size_t>(rank), false);
    const std::vector<Index> given = index_values(axes);
    for (std::size_t i = 0; i < given.size(); ++i) {
      const Index a = given[i] < 0 ? given[i] + rank : given[i];
      if (a < 0 || a >= rank)
        return ctx.fail(invalid_argument(
            "'axis'[" + std::to_string(i) + "] = " + std::to_string(given[i]) +
            " is out of valid range [0, " + std::to_string(rank - 1) + node_suffix(name())));
      if (flip[static_cast<std::size_t>(a)])
        return ctx.fail(invalid_argument("axis " + std::to_string(a) +
                                         " specified more than once." + node_suffix(name())));
      flip[static_cast<std::size_t>(a)] = true;
    }
    StatusOr<Tensor> out = reverse_tensor(in, flip);
    if (!out.ok()) return ctx.fail(out.status().with_context(node_suffix(name())));
    ctx.set_output(0, std::move(*out));
  }
};

// The first Reverse: a bool per dimension (TensorFlow's ReverseOp; a scalar passes through).
class ReverseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const Tensor& dims = ctx.input(1);
    if (in.rank() == 0) return ctx.set_output(0, in);
    if (dims.rank() != 1)
      return ctx.fail(invalid_argument("'dims' must be 1-dimension, not " +
                                       std::to_string(dims.rank()) + node_suffix(name())));
    if (dims.shape().dim(0) != in.rank())
      return ctx.fail(invalid_argument(
          "'dims' must have the same number of values as 'input' has dimensions. 'input' has " +
          std::to_string(in.rank()) + "'dims' has " + std::to_string(dims.shape().dim(0)) +
          " values" + node_suffix(name())));
    std::vector<bool> flip(dims.data<bool>(), dims.data<bool>() + in.rank());
    StatusOr<Tensor> out = reverse_tensor(in, flip);
    if (!out.ok()) return ctx.fail(out.status().with_context(node_suffix(name())));
    ctx.set_output(0, std::move(*out));
  }
};

}  // namespace

namespace detail {

void register_split_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<SplitOp>("Split", "CPU", {{"T", kValueTypes}}));
  r.add(make_kernel_def<SplitVOp>(
      "SplitV", "CPU", {{"T", kValueTypes}, {"Tlen", {DType::int8, DType::int32, DType::int64}}}));
  r.add(make_kernel_def<ReverseV2Op>("ReverseV2", "CPU",
                                     {{"T", kValueTypes}, {"Tidx", kIndexTypes}}));
  r.add(make_kernel_def<ReverseOp>("Reverse", "CPU", {{"T", kValueTypes}}));
}

}  // namespace detail

}  // namespace af
