// The definitions of the Unicode ops (TensorFlow's string_ops.cc: UnicodeDecode,
// UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode, UnicodeScript) with the
// attribute checks of their OpDefs, and their builders (tf.strings.unicode_*). The CPU
// kernels, on ICU, are in kernels/src/unicode_ops.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/string_ops.hpp"

namespace af {

namespace {

// An OpDef's `{'a', 'b'}` string attr: "Value for attr 'errors' of \"x\" is not in the list
// of allowed values: \"strict\", \"replace\", \"ignore\"".
Status check_enum(const InferenceContext& c, const char* attr,
                  const std::vector<std::string>& allowed, const char* fallback) {
  std::string value = fallback;
  c.get_attr(attr, &value);
  std::string list;
  for (const std::string& a : allowed) {
    if (a == value) return {};
    list += (list.empty() ? "\"" : ", \"") + a + "\"";
  }
  return invalid_argument("Value for attr '" + std::string(attr) + "' of \"" + value +
                          "\" is not in the list of allowed values: " + list);
}

Status check_errors(const InferenceContext& c) {
  return check_enum(c, "errors", {"strict", "replace", "ignore"}, "replace");
}

Status check_output_encoding(const InferenceContext& c) {
  return check_enum(c, "output_encoding", {"UTF-8", "UTF-16-BE", "UTF-32-BE"}, "");
}

DType splits_type(const InferenceContext& c) {
  DType t = DType::int64;
  c.get_attr("Tsplits", &t);
  return t;
}

// UnicodeDecode(WithOffsets)(input: string) -> row_splits [input.size + 1], char_values [?]
// (and char_to_byte_starts [?], int64).
Status infer_decode(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(check_errors(c));
  const DType t = splits_type(c);
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(t, "Tsplits"));
  const PartialShape& in = c.input_shapes[0];
  c.add_output(t, detail::vector_of(in.fully_defined() ? in.num_elements() + 1 : -1));
  c.add_output(DType::int32, detail::vector_of(-1));
  if (c.node.op == "UnicodeDecodeWithOffsets") c.add_output(DType::int64, detail::vector_of(-1));
  return {};
}

// UnicodeEncode(input_values: int32 [n], input_splits: Tsplits [rows + 1]) -> output [rows].
Status infer_encode(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[1], "Tsplits"));
  ACTORFLOW_RETURN_IF_ERROR(check_errors(c));
  ACTORFLOW_RETURN_IF_ERROR(check_output_encoding(c));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[1], 1));
  const PartialShape& splits = c.input_shapes[1];
  const std::int64_t rows = splits.rank_known() ? splits.dim(0) : -1;
  if (rows == 0)
    return invalid_argument("Dimension size, given by scalar input 0 - 1, must be non-negative");
  c.add_output(DType::string, detail::vector_of(rows < 0 ? -1 : rows - 1));
  return {};
}

// UnicodeTranscode(input: string) -> output: UnchangedShape.
Status infer_transcode(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(check_errors(c));
  ACTORFLOW_RETURN_IF_ERROR(check_output_encoding(c));
  c.add_output(DType::string, c.input_shapes[0]);
  return {};
}

// UnicodeScript(input: int32) -> output: int32, UnchangedShape.
Status infer_script(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::int32));
  c.add_output(DType::int32, c.input_shapes[0]);
  return {};
}

AttrMap error_attrs(const UnicodeOptions& o, bool control) {
  AttrMap attrs{{"errors", o.errors}, {"replacement_char", o.replacement_char}};
  if (control) attrs["replace_control_characters"] = o.replace_control_characters;
  return attrs;
}

UnicodeDecoded decode(const char* op, const Output& input, std::string_view encoding,
                      const UnicodeOptions& options, std::string_view name) {
  AttrMap attrs = error_attrs(options, true);
  attrs["input_encoding"] = std::string(encoding);
  attrs["Tsplits"] = options.splits_type;
  Operation node = input.graph().create_op(op, {input}, std::move(attrs), name.empty() ? op : name);
  UnicodeDecoded out{node.output(0), node.output(1), Output()};
  if (node.num_outputs() > 2) out.char_to_byte_starts = node.output(2);
  return out;
}

}  // namespace

namespace detail {

/// The Unicode ops (called by register_string_ops, string_ops.cpp).
void register_unicode_ops(OpRegistry& r) {
  r.add({"UnicodeDecode", infer_decode});
  r.add({"UnicodeDecodeWithOffsets", infer_decode});
  r.add({"UnicodeEncode", infer_encode});
  r.add({"UnicodeTranscode", infer_transcode});
  r.add({"UnicodeScript", infer_script});
}

}  // namespace detail

UnicodeDecoded unicode_decode(const Output& input, std::string_view input_encoding,
                              const UnicodeOptions& options, std::string_view name) {
  return decode("UnicodeDecode", input, input_encoding, options, name);
}

UnicodeDecoded unicode_decode_with_offsets(const Output& input, std::string_view input_encoding,
                                           const UnicodeOptions& options, std::string_view name) {
  return decode("UnicodeDecodeWithOffsets", input, input_encoding, options, name);
}

Output unicode_encode(const Output& values, const Output& splits, std::string_view output_encoding,
                      const UnicodeOptions& options, std::string_view name) {
  AttrMap attrs = error_attrs(options, false);
  attrs["output_encoding"] = std::string(output_encoding);
  attrs["Tsplits"] = splits.dtype();
  return values.graph()
      .create_op("UnicodeEncode", {values, splits}, std::move(attrs),
                 name.empty() ? "UnicodeEncode" : name)
      .output(0);
}

Output unicode_transcode(const Output& input, std::string_view input_encoding,
                         std::string_view output_encoding, const UnicodeOptions& options,
                         std::string_view name) {
  AttrMap attrs = error_attrs(options, true);
  attrs["input_encoding"] = std::string(input_encoding);
  attrs["output_encoding"] = std::string(output_encoding);
  return input.graph()
      .create_op("UnicodeTranscode", {input}, std::move(attrs),
                 name.empty() ? "UnicodeTranscode" : name)
      .output(0);
}

Output unicode_script(const Output& input, std::string_view name) {
  return input.graph()
      .create_op("UnicodeScript", {input}, {}, name.empty() ? "UnicodeScript" : name)
      .output(0);
}

}  // namespace af
