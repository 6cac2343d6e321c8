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

// UnsortedSegmentJoin(inputs, segment_ids, num_segments): the strings of each segment joined
// in input order, as TensorFlow's unsorted_segment_join_op.cc (which writes the separator
// only after a non-empty string: "", "y", "" joined by "-" give "y-").
class UnsortedSegmentJoinOp : public OpKernel {
 public:
  UnsortedSegmentJoinOp(OpKernelConstruction& c, Status* /*s*/) : OpKernel(c) {
    c.get_attr("separator", &separator_);
  }
  void compute(OpKernelContext& ctx) override {
    const Tensor& input = ctx.input(0);
    const Tensor& ids = ctx.input(1);
    const Tensor& count = ctx.input(2);
    if (count.num_elements() == 0)
      return ctx.fail(invalid_argument("Number of segments cannot be empty."));
    const std::int64_t num_segments = detail::index_values(count)[0];
    const auto& in = input.shape().dims();
    const auto& id_dims = ids.shape().dims();
    if (id_dims.empty()) return ctx.fail(invalid_argument("Segment_id cannot have rank 0"));
    if (id_dims.size() > in.size())
      return ctx.fail(Status(Code::out_of_range,
                             "Invalid segment_id rank " + std::to_string(id_dims.size()) +
                                 " for input with " + std::to_string(in.size()) + " dimension(s)"));
    for (std::size_t i = 0; i < id_dims.size(); ++i)
      if (id_dims[i] != in[i])
        return ctx.fail(invalid_argument("Segment dimension is " + std::to_string(id_dims[i]) +
                                         " while input dimension is " + std::to_string(in.size()) +
                                         " in rank " + std::to_string(i)));
    if (num_segments < 0)
      return ctx.fail(
          invalid_argument("num_segments must be >= 0, got " + std::to_string(num_segments)));
    const std::vector<std::int64_t> segment = detail::index_values(ids);
    for (std::int64_t id : segment)
      if (id < 0 || id >= num_segments)
        return ctx.fail(invalid_argument(
            "segment_ids are not allowed to exceed num_segments or to have negative values."));
    std::vector<std::int64_t> out_dims{num_segments};
    out_dims.insert(out_dims.end(), in.begin() + static_cast<std::ptrdiff_t>(id_dims.size()),
                    in.end());
    Tensor out(DType::string, Shape{out_dims});
    const std::int64_t inner = segment.empty() ? 0 : input.num_elements() / ids.num_elements();
    const std::string* x = input.data<std::string>();
    std::string* y = out.data<std::string>();
    for (std::size_t k = 0; k < segment.size(); ++k)
      for (std::int64_t j = 0; j < inner; ++j) {
        std::string& slot = y[segment[k] * inner + j];
        if (!slot.empty()) slot += separator_;
        slot += x[static_cast<std::int64_t>(k) * inner + j];
      }
    ctx.set_output(0, std::move(out));
  }

 private:
  std::string separator_;
};

}  // namespace

namespace detail {

/// StringNGrams and UnsortedSegmentJoin (called by register_string_kernels, string_ops.cpp).
void register_string_ngrams_kernels(KernelRegistry& r) {
  r.add(make_kernel_def<StringNGramsOp>("StringNGrams", "CPU", {{"Tsplits", kIndexTypes}}));
  r.add(make_kernel_def<UnsortedSegmentJoinOp>(
      "UnsortedSegmentJoin", "CPU", {{"Tindices", kIndexTypes}, {"Tnumsegments", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
