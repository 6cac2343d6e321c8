// DecodeCSV: op, shape function and the graph-building function decode_csv. Its CPU kernel
// (and CsvDecoder) is in kernels/src/parsing_ops.cpp.
#include "actorflow/ops/parsing_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/parsing_attrs.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// The dtypes a DecodeCSV column may have (the OUT_TYPE attr's allowed values).
const std::vector<DType> kCsvTypes = {DType::float32, DType::float64, DType::int32, DType::int64,
                                      DType::string};

using detail::attr_or;

bool is_csv_type(DType t) {
  return std::find(kCsvTypes.begin(), kCsvTypes.end(), t) != kCsvTypes.end();
}

std::string allowed_types_message(DType t) {
  return "Value for attr 'OUT_TYPE' of " + std::string(data_type_string(t)) +
         " is not in the list of allowed values: float, double, int32, int64, string";
}

// -- DecodeCSV ----------------------------------------------------------------------------

Status infer_decode_csv(InferenceContext& c) {
  std::vector<DType> out_types;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("OUT_TYPE", &out_types));
  const bool has_keys = attr_or(c.node, "has_keys", false);
  const int columns = static_cast<int>(out_types.size());
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1 + columns + (has_keys ? 1 : 0)));
  if (c.input_types[0] != DType::string)
    return invalid_argument("Input 'records' of 'DecodeCSV' Op has type " +
                            std::string(dtype_name(c.input_types[0])) +
                            " that does not match expected type of string.");
  for (int i = 0; i < columns; ++i) {
    const DType t = out_types[static_cast<std::size_t>(i)];
    if (!is_csv_type(t)) return invalid_argument(allowed_types_message(t));
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1 + i, t));
    // TensorFlow: WithRankAtMost(1), then at most one element.
    const PartialShape& s = c.input_shapes[static_cast<std::size_t>(1 + i)];
    if (s.rank_known() && s.rank() > 1)
      return invalid_argument("Shape must be at most rank 1 but is rank " +
                              std::to_string(s.rank()));
    if (s.rank() == 1 && s.dim(0) > 1)
      return invalid_argument(
          "Shape of a default must be a length-0 or length-1 vector, or a scalar.");
  }
  PartialShape records = c.input_shapes[0];
  if (has_keys) {
    const auto keys = static_cast<std::size_t>(1 + columns);
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(static_cast<int>(keys), DType::string));
    PartialShape merged;
    if (!records.merge_with(c.input_shapes[keys], &merged).ok())
      return invalid_argument("Shapes of records and keys must match: " + records.to_string() +
                              " vs. " + c.input_shapes[keys].to_string());
    records = merged;
  }
  for (DType t : out_types) c.add_output(t, records);
  return {};
}

// -- builder helpers ----------------------------------------------------------------------

// tf.decode_csv's ValueErrors, raised before any node is created.
void check_select_cols(const std::vector<std::int64_t>& select_cols, std::size_t defaults) {
  if (select_cols.empty()) return;
  for (std::size_t i = 0; i + 1 < select_cols.size(); ++i)
    if (select_cols[i] >= select_cols[i + 1])
      throw InvalidArgumentError(invalid_argument("select_cols is not strictly increasing."));
  if (select_cols[0] < 0)
    throw InvalidArgumentError(invalid_argument("select_cols contains negative values."));
  if (select_cols.size() != defaults)
    throw InvalidArgumentError(
        invalid_argument("Length of select_cols and record_defaults do not match."));
}

// Creates the DecodeCSV node named `name` (a trailing '/' takes it as is).
std::vector<Output> create_decode_csv(const Output& records, const std::vector<Output>& defaults,
                                      const DecodeCSVOptions& options, std::string_view name) {
  std::vector<DType> out_types;
  for (auto& d : defaults) out_types.push_back(d.dtype());
  AttrMap attrs = {{"OUT_TYPE", out_types},
                   {"field_delim", options.field_delim},
                   {"use_quote_delim", options.use_quote_delim},
                   {"na_value", options.na_value},
                   {"select_cols", options.select_cols}};
  std::vector<Output> inputs;
  inputs.reserve(defaults.size() + 2);
  inputs.push_back(records);
  inputs.insert(inputs.end(), defaults.begin(), defaults.end());
  // The reader's key travels along so that errors can name "file:line".
  if (records.index() == 1) {
    const std::string& producer = records.op().type();
    if (producer == "ReaderReadV2" || producer == "ReaderReadUpToV2" || producer == "ReaderRead" ||
        producer == "ReaderReadUpTo") {
      inputs.push_back(records.op().output(0));
      attrs["has_keys"] = true;
    }
  }
  Operation op = records.graph().create_op("DecodeCSV", inputs, std::move(attrs), name);
  std::vector<Output> outputs;
  outputs.reserve(defaults.size());
  for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
  return outputs;
}

}  // namespace

namespace detail {

void register_parsing_ops(OpRegistry& r) {
  r.add({"DecodeCSV", infer_decode_csv});
  // DecodeJSONExample(json_examples: string) -> binary_examples: UnchangedShape.
  r.add({"DecodeJSONExample", [](InferenceContext& c) -> Status {
           ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
           ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
           c.add_output(DType::string, c.input_shapes[0]);
           return {};
         }});
}

}  // namespace detail

std::vector<Output> decode_csv(const Output& records, const std::vector<Tensor>& record_defaults,
                               const DecodeCSVOptions& options) {
  if (!records.valid()) throw InvalidArgumentError(invalid_argument("decode_csv: invalid records"));
  check_select_cols(options.select_cols, record_defaults.size());
  // As op_def_library converts a list input: Consts "<op>/record_defaults_<i>".
  Graph& g = records.graph();
  const std::string op_name = g.unique_name(options.name.empty() ? "DecodeCSV" : options.name);
  std::vector<Output> defaults;
  defaults.reserve(record_defaults.size());
  {
    auto scope = g.name_scope(op_name + "/");
    for (std::size_t i = 0; i < record_defaults.size(); ++i)
      defaults.push_back(g.constant(record_defaults[i], "record_defaults_" + std::to_string(i)));
  }
  return create_decode_csv(records, defaults, options, op_name + "/");
}

std::vector<Output> decode_csv(const Output& records, const std::vector<Output>& record_defaults,
                               const DecodeCSVOptions& options) {
  if (!records.valid()) throw InvalidArgumentError(invalid_argument("decode_csv: invalid records"));
  check_select_cols(options.select_cols, record_defaults.size());
  return create_decode_csv(records, record_defaults, options,
                           options.name.empty() ? "DecodeCSV" : options.name);
}

Output decode_json_example(const Output& json_examples, std::string_view name) {
  return json_examples.graph()
      .create_op("DecodeJSONExample", {json_examples}, {},
                 name.empty() ? "DecodeJSONExample" : name)
      .output(0);
}

}  // namespace af
