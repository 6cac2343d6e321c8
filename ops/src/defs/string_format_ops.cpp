// The definition of StringFormat (its shape function as TensorFlow's string_ops.cc) and the
// builder tf.strings.format. Its CPU kernel is in kernels/src/string_format_ops.cpp; it is not
// differentiable.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/string_ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// How many placeholders absl::StrSplit(format, placeholder) finds: one less than its pieces.
// Occurrences are taken left to right without overlap; an empty placeholder cuts between
// every byte (so "" has none and "ab" one).
std::int64_t split_placeholders(const std::string& format, const std::string& placeholder) {
  if (placeholder.empty()) return format.empty() ? 0 : static_cast<std::int64_t>(format.size()) - 1;
  std::int64_t n = 0;
  for (std::size_t at = format.find(placeholder); at != std::string::npos;
       at = format.find(placeholder, at + placeholder.size()))
    ++n;
  return n;
}

// StringFormat(inputs: T) -> string scalar, once the template has one placeholder per input:
// InvalidArgument "num placeholders in template and num inputs must match: 1 vs. 2".
Status infer_string_format(InferenceContext& c) {
  std::string format, placeholder;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("template", &format));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("placeholder", &placeholder));
  const std::int64_t placeholders = split_placeholders(format, placeholder);
  if (placeholders != c.num_inputs())
    return invalid_argument(
        "num placeholders in template and num inputs must match: " + std::to_string(placeholders) +
        " vs. " + std::to_string(c.num_inputs()));
  c.add_output(DType::string, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

}  // namespace

namespace detail {

void register_string_format_ops(OpRegistry& r) { r.add({"StringFormat", infer_string_format}); }

}  // namespace detail

Output string_format(Graph& g, std::string_view format, const std::vector<Output>& inputs,
                     std::string_view placeholder, std::int64_t summarize, std::string_view name) {
  // string_ops.py's ValueError, raised before a node is made: Python's str.count (an empty
  // placeholder counts len(template) + 1 times).
  const std::string f(format), p(placeholder);
  std::int64_t count = static_cast<std::int64_t>(f.size()) + 1;
  if (!p.empty()) {
    count = 0;
    for (std::size_t at = f.find(p); at != std::string::npos; at = f.find(p, at + p.size()))
      ++count;
  }
  if (count != static_cast<std::int64_t>(inputs.size()))
    throw InvalidArgumentError(invalid_argument(
        "The template expects " + std::to_string(count) + " tensors, but the inputs only has " +
        std::to_string(inputs.size()) +
        ". Please ensure the number of placeholders in template matches inputs length."));
  std::vector<DType> types;
  types.reserve(inputs.size());
  for (const Output& x : inputs) types.push_back(x.dtype());
  return g
      .create_op("StringFormat", inputs,
                 {{"T", types}, {"template", f}, {"placeholder", p}, {"summarize", summarize}},
                 name.empty() ? "StringFormat" : name)
      .output(0);
}

Output string_format(std::string_view format, const Output& input, std::string_view placeholder,
                     std::int64_t summarize, std::string_view name) {
  return string_format(input.graph(), format, {input}, placeholder, summarize, name);
}

}  // namespace af
