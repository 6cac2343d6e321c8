// The definitions of the string ops of input pipelines (shape functions and attr checks as
// TensorFlow's string_ops.cc and parsing_ops.cc): StringSplit, StringSplitV2, Substr, AsString,
// StringToNumber, StringLength, StringStrip, StringLower, StringUpper, RegexReplace,
// StaticRegexReplace, RegexFullMatch, ReduceJoin, StringToHashBucket, StringToHashBucketStrong,
// EncodeBase64 and DecodeBase64, with their builders. Their CPU kernels are in
// kernels/src/string_ops.cpp, string_conversion_ops.cpp and regex_ops.cpp; none is
// differentiable (ops/src/gradients/string_grad.cpp).
#include "actorflow/ops/string_ops.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "reduction_defs.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::Index;
using detail::with_rank;

// op_def_library's check of a string input.
Status expect_string(const InferenceContext& c, int i, const char* arg) {
  if (c.input_types[static_cast<std::size_t>(i)] == DType::string) return {};
  return invalid_argument(cwise::fixed_type_mismatch_message(
      c.node.op, arg, c.input_types[static_cast<std::size_t>(i)], DType::string));
}

// The allowed values of attr unit (StringLength, Substr); BYTE when absent.
Status check_unit(const InferenceContext& c) {
  std::string unit = "BYTE";
  c.get_attr("unit", &unit);
  if (unit == "BYTE" || unit == "UTF8_CHAR") return {};
  return invalid_argument("Value for attr 'unit' of \"" + unit +
                          "\" is not in the list of allowed values: \"BYTE\", \"UTF8_CHAR\"");
}

// The minimum of attr num_buckets.
Status check_num_buckets(const InferenceContext& c) {
  std::int64_t buckets = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num_buckets", &buckets));
  if (buckets < 1)
    return invalid_argument("Value for attr 'num_buckets' of " + std::to_string(buckets) +
                            " must be at least minimum 1");
  return {};
}

// UnchangedShape of a string input, with the output's dtype.
Status unchanged_string(InferenceContext& c, const char* arg, DType out) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_string(c, 0, arg));
  c.add_output(out, c.input_shapes[0]);
  return {};
}

// StringSplit and StringSplitV2: a vector and a scalar in; a SparseTensor out.
Status infer_string_split(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_string(c, 0, "input"));
  ACTORFLOW_RETURN_IF_ERROR(
      expect_string(c, 1, c.node.op == "StringSplitV2" ? "sep" : "delimiter"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  c.add_output(DType::int64, PartialShape{-1, 2});
  c.add_output(DType::string, PartialShape{-1});
  c.add_output(DType::int64, PartialShape{2});
  return {};
}

// Substr: pos and len of one index type and one shape (TensorFlow compares their dims'
// values, so an unknown dim against a known one fails), broadcast against the input.
Status infer_substr(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(3));
  ACTORFLOW_RETURN_IF_ERROR(expect_string(c, 0, "input"));
  const DType t = c.input_types[1];
  if (c.input_types[2] != t)
    return invalid_argument(
        cwise::type_mismatch_message(c.node.op, "len", c.input_types[2], "pos", t));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(t, "T"));
  ACTORFLOW_RETURN_IF_ERROR(check_unit(c));
  const PartialShape& pos = c.input_shapes[1];
  const PartialShape& len = c.input_shapes[2];
  if (len.rank_known()) ACTORFLOW_RETURN_IF_ERROR(with_rank(pos, len.rank()));
  if (pos.rank_known()) {
    for (int i = 0; i < pos.rank(); ++i) {
      const Index len_dim = len.rank_known() ? len.dim(i) : -1;
      if (pos.dim(i) != len_dim)
        return invalid_argument(
            "pos and len shapes must match: " + detail::inference_shape_string(pos) + " vs. " +
            detail::inference_shape_string(len));
    }
  }
  const PartialShape& input = c.input_shapes[0];
  PartialShape out;
  if (!broadcast_shapes(input, pos, &out).ok()) {
    const int rank = std::max(input.rank(), pos.rank());
    for (int i = 0; i < rank; ++i) {
      const Index a = i >= rank - input.rank() ? input.dim(i - (rank - input.rank())) : 1;
      const Index b = i >= rank - pos.rank() ? pos.dim(i - (rank - pos.rank())) : 1;
      if (a > 1 && b > 1 && a != b)
        return invalid_argument("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                                std::to_string(b));
    }
    return invalid_argument("Incompatible shapes: " + detail::inference_shape_string(input) +
                            " vs. " + detail::inference_shape_string(pos));
  }
  c.add_output(DType::string, out);
  return {};
}

// The types AsString's CPU kernel formats here (TensorFlow adds int8, int16, the unsigned
// types, half, complex and variant, which actorflow does not format yet).
const std::vector<DType> kAsStringTypes = {DType::float32, DType::float64, DType::int32,
                                           DType::uint8,   DType::int64,   DType::bfloat16,
                                           DType::boolean, DType::string};

Status infer_as_string(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kAsStringTypes));
  c.add_output(DType::string, c.input_shapes[0]);
  return {};
}

Status infer_string_to_number(InferenceContext& c) {
  DType out = DType::float32;
  c.get_attr("out_type", &out);
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(out, c.node.op, "out_type"));
  return unchanged_string(c, "string_tensor", out);
}

Status infer_string_length(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_unit(c));
  return unchanged_string(c, "input", DType::int32);
}

// RegexReplace: scalar pattern and rewrite; RegexFullMatch: a scalar pattern.
Status infer_regex(InferenceContext& c) {
  const bool replace = c.node.op == "RegexReplace";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(replace ? 3 : 2));
  ACTORFLOW_RETURN_IF_ERROR(expect_string(c, 0, "input"));
  ACTORFLOW_RETURN_IF_ERROR(expect_string(c, 1, "pattern"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  if (replace) {
    ACTORFLOW_RETURN_IF_ERROR(expect_string(c, 2, "rewrite"));
    ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 0));
  }
  c.add_output(replace ? DType::string : DType::boolean, c.input_shapes[0]);
  return {};
}

// ReduceJoin: TensorFlow's ReductionShape over int32 reduction_indices.
Status infer_reduce_join(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_string(c, 0, "inputs"));
  if (c.input_types[1] != DType::int32)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "reduction_indices",
                                                               c.input_types[1], DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_reduction_indices_shape(c.input_shapes[1]));
  return detail::add_reduction_output(c, DType::string);
}

Status infer_hash_bucket(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_num_buckets(c));
  if (c.node.op == "StringToHashBucketStrong") {
    std::vector<std::int64_t> key;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("key", &key));
  }
  return unchanged_string(c, c.node.op == "StringToHashBucket" ? "string_tensor" : "input",
                          DType::int64);
}

std::string op_name(Graph& g, std::string_view name, const char* type) {
  return g.unique_name(name.empty() ? std::string_view(type) : name);
}

// A Const named "<op>/<arg>" beside the op `op` (the way TensorFlow names the tensors
// op_def_library converts from Python values).
Output arg_const(Graph& g, const std::string& op, const Tensor& value, const char* arg) {
  auto scope = g.name_scope(op + "/");
  return g.constant(value, arg);
}

SparseTensor split_op(const char* type, const Output& source, std::string_view sep,
                      const char* sep_arg, AttrMap attrs, std::string_view name) {
  Graph& g = source.graph();
  const std::string op = op_name(g, name, type);
  const Output sep_t = arg_const(g, op, Tensor(std::string(sep)), sep_arg);
  Operation node = g.create_op(type, {source, sep_t}, std::move(attrs), op + "/");
  return {node.output(0), node.output(1), node.output(2)};
}

Output string_op(const char* type, const std::vector<Output>& inputs, AttrMap attrs,
                 std::string_view name) {
  return inputs.front()
      .graph()
      .create_op(type, inputs, std::move(attrs), name.empty() ? std::string_view(type) : name)
      .output(0);
}

}  // namespace

namespace detail {

void register_string_ngrams_ops(OpRegistry& r);  // string_ngrams_ops.cpp
void register_unicode_ops(OpRegistry& r);        // unicode_ops.cpp

void register_string_ops(OpRegistry& r) {
  register_string_ngrams_ops(r);
  register_unicode_ops(r);
  r.add({"StringSplit", infer_string_split});
  r.add({"StringSplitV2", infer_string_split});
  r.add({"Substr", infer_substr});
  r.add({"AsString", infer_as_string});
  r.add({"StringToNumber", infer_string_to_number});
  r.add({"StringLength", infer_string_length});
  for (const char* type : {"StringStrip", "StringLower", "StringUpper", "StaticRegexReplace",
                           "EncodeBase64", "DecodeBase64"})
    r.add({type, [](InferenceContext& c) { return unchanged_string(c, "input", DType::string); }});
  r.add({"RegexReplace", infer_regex});
  r.add({"RegexFullMatch", infer_regex});
  r.add({"ReduceJoin", infer_reduce_join});
  r.add({"StringToHashBucket", infer_hash_bucket});
  r.add({"StringToHashBucketStrong", infer_hash_bucket});
}

}  // namespace detail

SparseTensor string_split(const Output& source, std::string_view delimiter, bool skip_empty,
                          std::string_view name) {
  return split_op("StringSplit", source, delimiter, "delimiter", {{"skip_empty", skip_empty}},
                  name);
}

SparseTensor string_split_v2(const Output& source, std::string_view sep, std::int64_t maxsplit,
                             std::string_view name) {
  return split_op("StringSplitV2", source, sep, "sep", {{"maxsplit", maxsplit}}, name);
}

Output substr(const Output& input, const Output& pos, const Output& len, std::string_view unit,
              std::string_view name) {
  return string_op("Substr", {input, pos, len}, {{"T", pos.dtype()}, {"unit", std::string(unit)}},
                   name);
}

Output substr(const Output& input, std::int64_t pos, std::int64_t len, std::string_view unit,
              std::string_view name) {
  Graph& g = input.graph();
  const std::string op = op_name(g, name, "Substr");
  const Output pos_t = arg_const(g, op, Tensor(static_cast<std::int32_t>(pos)), "pos");
  const Output len_t = arg_const(g, op, Tensor(static_cast<std::int32_t>(len)), "len");
  return substr(input, pos_t, len_t, unit, op + "/");
}

Output as_string(const Output& input, const AsStringOptions& options, std::string_view name) {
  return string_op("AsString", {input},
                   {{"T", input.dtype()},
                    {"precision", options.precision},
                    {"scientific", options.scientific},
                    {"shortest", options.shortest},
                    {"width", options.width},
                    {"fill", options.fill}},
                   name);
}

Output string_to_number(const Output& string_tensor, DType out_type, std::string_view name) {
  return string_op("StringToNumber", {string_tensor}, {{"out_type", out_type}}, name);
}

Output string_length(const Output& input, std::string_view unit, std::string_view name) {
  return string_op("StringLength", {input}, {{"unit", std::string(unit)}}, name);
}

Output string_strip(const Output& input, std::string_view name) {
  return string_op("StringStrip", {input}, {}, name);
}

Output string_lower(const Output& input, std::string_view encoding, std::string_view name) {
  return string_op("StringLower", {input}, {{"encoding", std::string(encoding)}}, name);
}

Output string_upper(const Output& input, std::string_view encoding, std::string_view name) {
  return string_op("StringUpper", {input}, {{"encoding", std::string(encoding)}}, name);
}

Output regex_replace(const Output& input, std::string_view pattern, std::string_view rewrite,
                     bool replace_global, std::string_view name) {
  return string_op("StaticRegexReplace", {input},
                   {{"pattern", std::string(pattern)},
                    {"rewrite", std::string(rewrite)},
                    {"replace_global", replace_global}},
                   name);
}

Output regex_replace(const Output& input, const Output& pattern, const Output& rewrite,
                     bool replace_global, std::string_view name) {
  return string_op("RegexReplace", {input, pattern, rewrite}, {{"replace_global", replace_global}},
                   name);
}

Output regex_full_match(const Output& input, std::string_view pattern, std::string_view name) {
  return string_op("StaticRegexFullMatch", {input}, {{"pattern", std::string(pattern)}}, name);
}

Output regex_full_match(const Output& input, const Output& pattern, std::string_view name) {
  return string_op("RegexFullMatch", {input, pattern}, {}, name);
}

Output reduce_join(const Output& inputs, std::optional<std::vector<std::int64_t>> axis,
                   bool keep_dims, std::string_view separator, std::string_view name) {
  Graph& g = inputs.graph();
  if (!axis) {
    if (!inputs.shape().rank_known())
      throw InvalidArgumentError(
          invalid_argument("reduce_join over all axes of '" + inputs.name() +
                           "' needs its rank, which is unknown; pass the axes explicitly"));
    axis.emplace();
    for (int d = inputs.shape().rank() - 1; d >= 0; --d) axis->push_back(d);
  }
  const std::string op = op_name(g, name, "ReduceJoin");
  const Output indices =
      arg_const(g, op, Tensor::from_vector(std::vector<std::int32_t>(axis->begin(), axis->end())),
                "reduction_indices");
  return string_op("ReduceJoin", {inputs, indices},
                   {{"keep_dims", keep_dims}, {"separator", std::string(separator)}}, op + "/");
}

Output string_to_hash_bucket(const Output& string_tensor, std::int64_t num_buckets,
                             std::string_view name) {
  return string_op("StringToHashBucket", {string_tensor}, {{"num_buckets", num_buckets}}, name);
}

Output string_to_hash_bucket_strong(const Output& input, std::int64_t num_buckets,
                                    const std::vector<std::int64_t>& key, std::string_view name) {
  return string_op("StringToHashBucketStrong", {input},
                   {{"num_buckets", num_buckets}, {"key", key}}, name);
}

Output encode_base64(const Output& input, bool pad, std::string_view name) {
  return string_op("EncodeBase64", {input}, {{"pad", pad}}, name);
}

Output decode_base64(const Output& input, std::string_view name) {
  return string_op("DecodeBase64", {input}, {}, name);
}

}  // namespace af
