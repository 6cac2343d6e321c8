// StringFormat (tf.strings.format): the CPU kernel of TensorFlow's string_format_op.cc, the
// template cut at each placeholder (absl::StrSplit) and each input summarized between the
// pieces as Tensor::SummarizeValue(summarize, /*print_v2=*/true) does (tensor.cc). Its
// definition is in ops/src/defs/string_format_ops.cpp.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"
#include "tensor_summary.hpp"

namespace af {

namespace {

using detail::StatusKernel;

// The pieces of `text` between occurrences of `sep`, left to right (absl::StrSplit with a
// string delimiter); an empty `sep` cuts between every byte, and "" is one empty piece.
std::vector<std::string> split_template(const std::string& text, const std::string& sep) {
  std::vector<std::string> pieces;
  if (sep.empty()) {
    if (text.empty()) return {std::string()};
    for (char c : text) pieces.emplace_back(1, c);
    return pieces;
  }
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(sep, from)) != std::string::npos; from = at + sep.size())
    pieces.push_back(text.substr(from, at - from));
  pieces.push_back(text.substr(from));
  return pieces;
}

// StringFormat(inputs: T) -> string scalar: the template's pieces with each input's summary
// between them. Construction fails with InvalidArgument "num placeholders in template and num
// inputs must match: 1 vs. 2" when the template has not one placeholder per input.
class StringFormatOp : public StatusKernel {
 public:
  StringFormatOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::string templ, placeholder;
    if (*s = c.get_attr("template", &templ); !s->ok()) return;
    if (*s = c.get_attr("placeholder", &placeholder); !s->ok()) return;
    if (*s = c.get_attr("summarize", &summarize_); !s->ok()) return;
    pieces_ = split_template(templ, placeholder);
    const auto placeholders = static_cast<std::int64_t>(pieces_.size()) - 1;
    const auto inputs = static_cast<std::int64_t>(c.input_types.size());
    if (placeholders != inputs)
      *s = invalid_argument("num placeholders in template and num inputs must match: " +
                            std::to_string(placeholders) + " vs. " + std::to_string(inputs));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    std::string msg = pieces_[0];
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      msg += detail::summarize_value(ctx.input(i), summarize_, /*print_v2=*/true);
      msg += pieces_[static_cast<std::size_t>(i) + 1];
    }
    Tensor& out = ctx.allocate_output(0, DType::string, Shape{});
    out.data<std::string>()[0] = std::move(msg);
    return {};
  }

 private:
  std::int64_t summarize_ = 3;
  std::vector<std::string> pieces_;
};

}  // namespace

namespace detail {

void register_string_format_kernels(KernelRegistry& r) {
  // TensorFlow's CPU kernel takes inputs of every dtype.
  r.add(make_kernel_def<StringFormatOp>("StringFormat", "CPU"));
}

}  // namespace detail

}  // namespace af
