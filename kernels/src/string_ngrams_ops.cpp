// StringNGrams: the CPU kernel (TensorFlow's string_ngrams_op.cc), its checks and messages.
// The definition is in ops/src/defs/string_ngrams_ops.cpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"

namespace af {

namespace {

using detail::Index;
using detail::StatusKernel;

class StringNGramsOp : public StatusKernel {
 public:
  StringNGramsOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = c.get_attr("separator", &separator_);
    if (s->ok()) *s = c.get_attr("ngram_widths", &widths_);
    if (s->ok()) *s = c.get_attr("left_pad", &left_pad_);
    if (s->ok()) *s = c.get_attr("right_pad", &right_pad_);
    if (s->ok()) *s = c.get_attr("pad_width", &pad_width_);
    if (s->ok()) *s = c.get_attr("preserve_short_sequences", &preserve_short_);
  }

 private:
  // The pads each side for `width`: pad_width, or width - 1 when it is negative, at most
  // width - 1.
  Index pads(Index width) const {
    return std::min(pad_width_ < 0 ? width - 1 : pad_width_, width - 1);
  }

  Index count(Index length, Index width) const {
    return std::max<Index>(0, length + 2 * pads(width) - width + 1);
  }

  // The `n` n-grams of `width` of the tokens at `data`, into `out`.
  void make(const std::string* data, std::string* out, Index n, Index width) const {
    const Index pad = pads(width);
    for (Index k = 0; k < n; ++k) {
      const Index left = std::max<Index>(0, pad - k);
      const Index right = std::max<Index>(0, pad - (n - (k + 1)));
      const Index tokens = width - (left + right);
      const Index start = left > 0 ? 0 : k - pad;
      std::string& g = out[k];
      for (Index i = 0; i < left; ++i) g += left_pad_ + separator_;
      for (Index i = 0; i + 1 < tokens; ++i) g += data[start + i] + separator_;
      if (tokens > 0) {
        g += data[start + tokens - 1];
        for (Index i = 0; i < right; ++i) g += separator_ + right_pad_;
      } else {
        for (Index i = 0; i + 1 < right; ++i) g += right_pad_ + separator_;
        g += right_pad_;
      }
    }
  }

  Status run(OpKernelContext& ctx) override {
    for (std::int64_t w : widths_)
      if (w <= 0) return invalid_argument("ngram_widths must contain positive values");
    const Tensor& data = ctx.input(0);
    const Tensor& splits_t = ctx.input(1);
    const std::vector<Index> splits = detail::index_values(splits_t);
    const Index size = data.num_elements();
    if (!splits.empty()) {
      if (splits[0] != 0)
        return invalid_argument("First split value must be 0, got " + std::to_string(splits[0]));
      for (std::size_t i = 1; i < splits.size(); ++i)
        if (splits[i] < splits[i - 1] || splits[i] > size)
          return invalid_argument("Invalid split value " + std::to_string(splits[i]) +
                                  ", must be in [" + std::to_string(splits[i - 1]) + ", " +
                                  std::to_string(size) + "]");
      if (splits.back() != size)
        return invalid_argument("Last split value must be data size. Expected " +
                                std::to_string(size) + ", got " + std::to_string(splits.back()));
    }
    const auto rows = static_cast<Index>(splits.size()) - 1;
    std::vector<Index> out_splits(splits.size(), 0);
    if (size == 0 || splits.empty()) {
      ctx.allocate_output(0, DType::string, data.shape());
      set_splits(ctx, splits_t, out_splits);
      return {};
    }
    for (Index i = 1; i <= rows; ++i) {
      const Index length = splits[i] - splits[i - 1];
      Index n = 0;
      for (std::int64_t w : widths_) n += count(length, w);
      if (preserve_short_ && length > 0 && n == 0) n = 1;
      out_splits[i] = out_splits[i - 1] + n;
    }
    Tensor& out = ctx.allocate_output(0, DType::string, Shape{out_splits[rows]});
    std::string* o = out.data<std::string>();
    const std::string* d = data.data<std::string>();
    for (Index i = 0; i < rows; ++i) {
      const Index length = splits[i + 1] - splits[i];
      Index at = out_splits[i];
      for (std::int64_t w : widths_) {
        const Index n = count(length, w);
        make(d + splits[i], o + at, n, w);
        at += n;
      }
      if (preserve_short_ && at == out_splits[i] && length > 0) {
        if (pad_width_ < 0)
          return invalid_argument(
              "Pad width should be >= 0 when preserve_short_sequences is True and ngram_widths "
              "are not provided, got " +
              std::to_string(pad_width_));
        make(d + splits[i], o + at, 1, length + 2 * pad_width_);
      }
    }
    set_splits(ctx, splits_t, out_splits);
    return {};
  }

  static void set_splits(OpKernelContext& ctx, const Tensor& like, const std::vector<Index>& v) {
    Tensor& out = ctx.allocate_output(1, like.dtype(), like.shape());
    for (std::size_t i = 0; i < v.size() && static_cast<Index>(i) < out.num_elements(); ++i) {
      if (like.dtype() == DType::int64)
        out.data<std::int64_t>()[i] = v[i];
      else
        out.data<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]);
    }
  }

  std::string separator_, left_pad_, right_pad_;
  std::vector<std::int64_t> widths_;
  std::int64_t pad_width_ = 0;
  bool preserve_short_ = false;
};

}  // namespace

namespace detail {

/// StringNGrams (called by register_string_kernels, string_ops.cpp).
void register_string_ngrams_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<StringNGramsOp>("StringNGrams", "CPU", {{"Tsplits", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
