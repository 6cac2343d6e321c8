// Pad, PadV2, MirrorPad and MirrorPadGrad: CPU kernels with TensorFlow's checks and messages
// (pad_op.cc, image/mirror_pad_op.cc and mirror_pad_op.h). Pad, PadV2 and MirrorPad move
// elements without reading them, so every dtype shares one instantiation per element size;
// MirrorPadGrad adds, and is registered for the number types as TensorFlow's CPU kernel is.
// Their definitions are in ops/src/defs/pad_ops.cpp.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

using detail::elements;
using detail::for_each_strided_row;
using detail::Index;
using detail::index_values;
using detail::kIndexTypes;
using detail::kValueTypes;
using detail::row_major_strides;
using detail::StatusKernel;
using detail::visit_storage;

// Outputs holding more elements than this are worth a pool thread.
constexpr Index kExpensiveElements = 256 * 1024;

// TensorShape::AddDimWithStatus: appends `size` to `*dims`, InvalidArgument when it is
// negative or the element count `*count` leaves int64.
Status add_dim(std::vector<std::int64_t>* dims, Index* count, Index size) {
  if (size < 0)
    return invalid_argument("Expected a non-negative size, got " + std::to_string(size));
  if (size != 0 && *count > std::numeric_limits<Index>::max() / size)
    return invalid_argument("Encountered overflow when multiplying " + std::to_string(*count) +
                            " with " + std::to_string(size) + ", result: -1");
  *count *= size;
  dims->push_back(size);
  return {};
}

// before + size + after with int64's wrap-around (TensorFlow adds them unchecked; a sum that
// wraps is then refused by add_dim as negative).
Index padded_size(Index before, Index size, Index after) {
  return static_cast<Index>(static_cast<std::uint64_t>(before) + static_cast<std::uint64_t>(size) +
                            static_cast<std::uint64_t>(after));
}

// The checks every padding kernel starts with: the input's rank in [0, max_rank]
// (Unimplemented otherwise), paddings a [rank, 2] matrix. `separator` stands between the two
// shapes of the rank message (", " in MirrorPad, " " elsewhere).
Status check_paddings_shape(const Tensor& input, const Tensor& paddings, int max_rank,
                            const char* separator) {
  const int dims = input.rank();
  if (dims > max_rank)
    return unimplemented("inputs rank not in [0," + std::to_string(max_rank) +
                         "]: " + std::to_string(dims));
  if (paddings.rank() != 2 || paddings.shape().dim(1) != 2)
    return invalid_argument("paddings must be a matrix with 2 columns: " +
                            paddings.shape().to_string());
  if (paddings.shape().dim(0) != dims)
    return invalid_argument("The first dimension of paddings must be the rank of inputs" +
                            paddings.shape().to_string() + separator + input.shape().to_string());
  return {};
}

// -- Pad and PadV2 ------------------------------------------------------------------------

// A padding kernel: worth a pool thread for large inputs.
class PaddingKernel : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

  bool is_expensive(const OpKernelContext& ctx) const override {
    return ctx.input(0).num_elements() > kExpensiveElements;
  }
};

// `input` (at least one element) copied into `out` (already filled with the pad value) at
// offset paddings[d][0] of each dimension d. Adjacent dimensions without padding are walked
// as one, as TensorFlow's CollapseAdjacentNonPaddedDimensions folds them.
template <class E>
void copy_into_padded(const Tensor& input, const std::vector<Index>& paddings, Tensor& out) {
  const int rank = input.rank();
  std::vector<Index> in_dims, steps;
  const std::vector<Index> out_strides = row_major_strides(out.shape());
  Index start = 0;
  for (int d = 0; d < rank; ++d) {
    const auto u = static_cast<std::size_t>(d);
    const bool padded = paddings[2 * u] != 0 || paddings[2 * u + 1] != 0;
    start += paddings[2 * u] * out_strides[u];
    // An unpadded dimension joins the unpadded one before it: their rows stay contiguous.
    if (!padded && d > 0 && paddings[2 * u - 2] == 0 && paddings[2 * u - 1] == 0) {
      in_dims.back() *= input.shape().dim(d);
      steps.back() = out_strides[u];
      continue;
    }
    in_dims.push_back(input.shape().dim(d));
    steps.push_back(out_strides[u]);
  }
  const E* from = elements<E>(input);
  E* to = elements<E>(out);
  const Index inner = in_dims.back();
  for_each_strided_row(in_dims, steps, start,
                       [&](Index o, Index offset) { std::copy_n(from + o, inner, to + offset); });
}

// Pad(input, paddings) and PadV2(input, paddings, constant_values): `input` grown by
// paddings[d][0] elements before and paddings[d][1] after each dimension d, the new elements
// zero (Pad) or constant_values.
class PadOp : public PaddingKernel {
 public:
  using PaddingKernel::PaddingKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& paddings_tensor = ctx.input(1);
    ACTORFLOW_RETURN_IF_ERROR(check_paddings_shape(input, paddings_tensor, 8, " "));
    const Tensor* constant = nullptr;
    if (ctx.num_inputs() == 3) {
      constant = &ctx.input(2);
      if (constant->rank() != 0)
        return invalid_argument("constant_values must be a scalar. Found: " +
                                constant->shape().to_string());
    }
    const int dims = input.rank();
    const std::vector<Index> paddings = index_values(paddings_tensor);
    std::vector<std::int64_t> out_dims;
    Index out_elements = 1;
    for (int d = 0; d < dims; ++d) {
      const Index before = paddings[static_cast<std::size_t>(2 * d)];
      const Index after = paddings[static_cast<std::size_t>(2 * d + 1)];
      if (before < 0 || after < 0)
        return invalid_argument("Paddings must be non-negative: " + std::to_string(before) + " " +
                                std::to_string(after));
      ACTORFLOW_RETURN_IF_ERROR(
          add_dim(&out_dims, &out_elements, padded_size(before, input.shape().dim(d), after)));
    }
    Shape out_shape(std::move(out_dims));
    // Nothing to pad (or nothing at all): the input, reshaped where a dimension of 0 grew.
    if (out_elements == input.num_elements()) {
      ctx.set_output(0, out_shape == input.shape() ? input : input.reshaped(std::move(out_shape)));
      return {};
    }
    // TensorFlow's kernel handles up to 6 dimensions once adjacent unpadded ones are folded
    // (CollapseAdjacentNonPaddedDimensions); its message shows the folded shape.
    std::vector<std::int64_t> folded_dims;
    for (int d = 0; d < dims; ++d) {
      const auto u = static_cast<std::size_t>(d);
      const bool padded = paddings[2 * u] != 0 || paddings[2 * u + 1] != 0;
      if (!padded && d > 0 && paddings[2 * u - 2] == 0 && paddings[2 * u - 1] == 0)
        folded_dims.back() *= input.shape().dim(d);
      else
        folded_dims.push_back(input.shape().dim(d));
    }
    if (folded_dims.size() > 6)
      return invalid_argument("Only ranks up to 6 supported: " +
                              Shape(std::move(folded_dims)).to_string());
    Tensor& out = ctx.allocate_output_for_overwrite(0, input.dtype(), std::move(out_shape));
    visit_storage(input.dtype(), [&](auto tag) {
      using E = decltype(tag);
      const E value = constant != nullptr ? elements<E>(*constant)[0] : E{};
      std::fill_n(elements<E>(out), out.num_elements(), value);
      if (input.num_elements() > 0) copy_into_padded<E>(input, paddings, out);
    });
    return {};
  }
};

// -- MirrorPad ----------------------------------------------------------------------------

// A MirrorPad kernel: the attr "mode" as TensorFlow's read it, the offset 1 for REFLECT (the
// edge is not repeated), 0 for SYMMETRIC (it is).
class MirrorKernel : public PaddingKernel {
 public:
  MirrorKernel(OpKernelConstruction& c, Status* s) : PaddingKernel(c) {
    std::string mode;
    *s = c.get_attr("mode", &mode);
    if (!s->ok()) return;
    if (mode == "REFLECT")
      offset_ = 1;
    else if (mode == "SYMMETRIC")
      offset_ = 0;
    else
      *s = not_found(mode + " is not an allowed padding mode.");
  }

 protected:
  int offset_ = 0;
};

// The input coordinate output coordinate `k` mirrors in a dimension of `size` elements
// padded by `before` (Eigen's TensorMirrorPadOp::ToInputCoord).
Index mirrored(Index k, Index before, Index size, int offset) {
  k -= before;
  if (k < 0) return -k - 1 + offset;
  if (k < size) return k;
  return 2 * size - k - 1 - offset;
}

// MirrorPad(input, paddings; mode): `input` grown by paddings[d] in each dimension d with
// the elements mirrored across its edges (REFLECT leaves the edge out, SYMMETRIC repeats it).
class MirrorPadOp : public MirrorKernel {
 public:
  using MirrorKernel::MirrorKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& paddings_tensor = ctx.input(1);
    ACTORFLOW_RETURN_IF_ERROR(check_paddings_shape(input, paddings_tensor, 5, ", "));
    const int dims = input.rank();
    const std::vector<Index> paddings = index_values(paddings_tensor);
    std::vector<std::int64_t> out_dims;
    Index out_elements = 1;
    for (int d = 0; d < dims; ++d) {
      const Index before = paddings[static_cast<std::size_t>(2 * d)];
      const Index after = paddings[static_cast<std::size_t>(2 * d + 1)];
      const Index size = input.shape().dim(d);
      if (before < 0 || after < 0)
        return invalid_argument("paddings must be non-negative: " + std::to_string(before) + " " +
                                std::to_string(after));
      const std::string both = std::to_string(before) + ", " + std::to_string(after);
      if (offset_ == 0 && (before > size || after > size))
        return invalid_argument("paddings must be no greater than the dimension size: " + both +
                                " greater than " + std::to_string(size));
      if (offset_ == 1 && (before >= size || after >= size))
        return invalid_argument("paddings must be less than the dimension size: " + both +
                                " not less than " + std::to_string(size));
      ACTORFLOW_RETURN_IF_ERROR(add_dim(&out_dims, &out_elements, before + size + after));
    }
    Shape out_shape(std::move(out_dims));
    if (out_elements == input.num_elements()) {
      ctx.set_output(0, out_shape == input.shape() ? input : input.reshaped(std::move(out_shape)));
      return {};
    }
    Tensor& out = ctx.allocate_output_for_overwrite(0, input.dtype(), std::move(out_shape));
    visit_storage(input.dtype(),
                  [&](auto tag) { mirror_rows<decltype(tag)>(input, paddings, out); });
    return {};
  }

  // Each output row (the last dimension) from the input row its outer coordinates mirror:
  // the input's row in the middle, its mirrored elements on either side.
  template <class E>
  void mirror_rows(const Tensor& input, const std::vector<Index>& paddings, Tensor& out) const {
    const int rank = input.rank();
    const std::vector<Index> in_strides = row_major_strides(input.shape());
    const Index in_inner = input.shape().dim(rank - 1);
    const Index out_inner = out.shape().dim(rank - 1);
    const Index before = paddings[static_cast<std::size_t>(2 * rank - 2)];
    const E* from = elements<E>(input);
    E* to = elements<E>(out);
    std::vector<Index> coord(static_cast<std::size_t>(rank - 1), 0);
    for (Index row = 0; row * out_inner < out.num_elements(); ++row) {
      Index in_row = 0;
      for (int d = 0; d + 1 < rank; ++d) {
        const auto u = static_cast<std::size_t>(d);
        in_row +=
            mirrored(coord[u], paddings[2 * u], input.shape().dim(d), offset_) * in_strides[u];
      }
      const E* src = from + in_row;
      E* dst = to + row * out_inner;
      for (Index k = 0; k < before; ++k) dst[k] = src[mirrored(k, before, in_inner, offset_)];
      std::copy_n(src, in_inner, dst + before);
      for (Index k = before + in_inner; k < out_inner; ++k)
        dst[k] = src[mirrored(k, before, in_inner, offset_)];
      for (int d = rank - 2; d >= 0; --d) {
        const auto u = static_cast<std::size_t>(d);
        if (++coord[u] < out.shape().dim(d)) break;
        coord[u] = 0;
      }
    }
  }
};

// -- MirrorPadGrad ------------------------------------------------------------------------

// a + b as TensorFlow's kernel adds: integers wrap around, bfloat16 through float.
template <class T>
T add(T a, T b) {
  if constexpr (is_half_like_v<T>) {
    return T(static_cast<float>(a) + static_cast<float>(b));
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// MirrorPadGrad(input, paddings; mode): MirrorPad's gradient. The padded areas of `input`
// are folded back onto the elements they mirror and the middle is returned. Dimension by
// dimension, as TensorFlow's functor: dimension i folds its before-area, then its
// after-area, over the middle of the dimensions before it and the whole of those after, so
// a float sum adds in TensorFlow's order.
template <class T>
class MirrorPadGradOp : public MirrorKernel {
 public:
  using MirrorKernel::MirrorKernel;

 private:
  Status run(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& paddings_tensor = ctx.input(1);
    ACTORFLOW_RETURN_IF_ERROR(check_paddings_shape(input, paddings_tensor, 5, " "));
    const int dims = input.rank();
    const std::vector<Index> paddings = index_values(paddings_tensor);
    std::vector<std::int64_t> out_dims;
    for (int d = 0; d < dims; ++d) {
      const Index before = paddings[static_cast<std::size_t>(2 * d)];
      const Index after = paddings[static_cast<std::size_t>(2 * d + 1)];
      const Index size = input.shape().dim(d);
      if (before < 0 || after < 0)
        return invalid_argument("Paddings must be non-negative: " + std::to_string(before) + ", " +
                                std::to_string(after));
      if (before + after >= size)
        return invalid_argument("Total paddings must be less than the input dimension size: " +
                                std::to_string(before + after) + " was not less than " +
                                std::to_string(size));
      const Index out_size = size - (before + after);
      const std::string both = std::to_string(before) + ", " + std::to_string(after);
      if (offset_ == 0 && (before > out_size || after > out_size))
        return invalid_argument("paddings must be no greater than the output dimension size: " +
                                both + " greater than " + std::to_string(out_size));
      if (offset_ == 1 && (before >= out_size || after >= out_size))
        return invalid_argument("paddings must be less than the output dimension size: " + both +
                                " not less than " + std::to_string(out_size));
      out_dims.push_back(out_size);
    }
    Shape out_shape(std::move(out_dims));
    if (out_shape == input.shape()) {
      ctx.set_output(0, input);
      return {};
    }
    std::vector<T> scratch(input.data<T>(), input.data<T>() + input.num_elements());
    fold(input.shape(), out_shape, paddings, scratch);
    Tensor& out = ctx.allocate_output_for_overwrite(0, input.dtype(), out_shape);
    // The middle of the folded scratch.
    const std::vector<Index> strides = row_major_strides(input.shape());
    Index start = 0;
    for (int d = 0; d < dims; ++d)
      start += paddings[static_cast<std::size_t>(2 * d)] * strides[static_cast<std::size_t>(d)];
    const std::vector<Index> rows(out_shape.dims().begin(), out_shape.dims().end());
    const Index inner = rows.back();
    T* to = out.data<T>();
    for_each_strided_row(rows, strides, start, [&](Index o, Index offset) {
      std::copy_n(scratch.data() + offset, inner, to + o);
    });
    return {};
  }

  // Adds each padded area of `scratch` (shaped `in_shape`) onto the elements it mirrors.
  void fold(const Shape& in_shape, const Shape& out_shape, const std::vector<Index>& paddings,
            std::vector<T>& scratch) const {
    const int rank = in_shape.rank();
    const std::vector<Index> strides = row_major_strides(in_shape);
    for (int i = 0; i < rank; ++i) {
      const auto ui = static_cast<std::size_t>(i);
      const Index before = paddings[2 * ui], after = paddings[2 * ui + 1];
      if (before == 0 && after == 0) continue;
      const Index size = in_shape.dim(i);
      const Index inner = strides[ui];  // the whole of the dimensions after i
      // The middle of the dimensions before i, walked as rows of one element.
      std::vector<Index> outer_dims, outer_steps;
      Index start = 0;
      for (int k = 0; k < i; ++k) {
        const auto uk = static_cast<std::size_t>(k);
        outer_dims.push_back(out_shape.dim(k));
        outer_steps.push_back(strides[uk]);
        start += paddings[2 * uk] * strides[uk];
      }
      outer_dims.push_back(1);
      outer_steps.push_back(0);
      auto add_rows = [&](Index base, Index dst_row, Index src_row) {
        T* dst = scratch.data() + base + dst_row * inner;
        const T* src = scratch.data() + base + src_row * inner;
        for (Index t = 0; t < inner; ++t) dst[t] = add(dst[t], src[t]);
      };
      for_each_strided_row(outer_dims, outer_steps, start, [&](Index, Index base) {
        for (Index j = 0; j < before; ++j) add_rows(base, before + offset_ + j, before - 1 - j);
        const Index right = size - after, left = right - after - offset_;
        for (Index j = 0; j < after; ++j) add_rows(base, left + j, size - 1 - j);
      });
    }
  }
};

}  // namespace

namespace detail {

void register_pad_kernels(KernelRegistry& r) {
  // TensorFlow registers Pad, PadV2 and MirrorPad for every POD type and string.
  r.add(make_kernel_def<PadOp>("Pad", "CPU", {{"T", kValueTypes}, {"Tpaddings", kIndexTypes}}));
  r.add(make_kernel_def<PadOp>("PadV2", "CPU", {{"T", kValueTypes}, {"Tpaddings", kIndexTypes}}));
  r.add(make_kernel_def<MirrorPadOp>("MirrorPad", "CPU",
                                     {{"T", kValueTypes}, {"Tpaddings", kIndexTypes}}));
  // MirrorPadGrad: the number types (TF_CALL_NUMBER_TYPES), no bool or string.
  auto add_grad = [&](auto tag) {
    using T = decltype(tag);
    r.add(make_kernel_def<MirrorPadGradOp<T>>(
        "MirrorPadGrad", "CPU", {{"T", {dtype_of_v<T>}}, {"Tpaddings", kIndexTypes}}));
  };
  add_grad(float{});
  add_grad(double{});
  add_grad(half_t{});
  add_grad(bfloat16_t{});
  add_grad(std::int8_t{});
  add_grad(std::int16_t{});
  add_grad(std::int32_t{});
  add_grad(std::int64_t{});
  add_grad(std::uint8_t{});
  add_grad(std::uint16_t{});
  add_grad(std::uint32_t{});
  add_grad(std::uint64_t{});
  add_grad(std::complex<float>{});
  add_grad(std::complex<double>{});
}

}  // namespace detail

}  // namespace af
