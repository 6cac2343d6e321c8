#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/tensor.hpp"

/// Graph-building functions for the parsing ops (TensorFlow's `parsing_ops.py`).
namespace af {

/// Options of `decode_csv`: the keyword arguments of `tf.decode_csv`.
struct DecodeCSVOptions {
  /// The field delimiter. Must be exactly one byte; anything else makes the kernel fail
  /// with InvalidArgument "field_delim should be only 1 char" when the step starts, as in
  /// TensorFlow.
  std::string field_delim = ",";
  /// Treat fields starting with `"` as quoted (RFC 4180, doubled quotes inside). When
  /// false, quotes are ordinary bytes.
  bool use_quote_delim = true;
  /// A field equal to this (after unquoting) is missing, like an empty field.
  std::string na_value;
  /// The columns to parse, strictly increasing and non-negative; empty parses all columns.
  /// Must have one entry per default when set.
  std::vector<std::int64_t> select_cols;
  /// The op's name (default "DecodeCSV", made unique).
  std::string name;
};

/// `tf.decode_csv`: op DecodeCSV, parsing each string of `records` (any shape) as one CSV
/// record and returning one tensor per column, each of `records`' shape.
///
/// `record_defaults` holds one tensor per (selected) column, of dtype float32, float64,
/// int32, int64 or string, with one element (the value of an empty or `na_value` field) or
/// none (the field is required). They become Const nodes named
/// `<op>/record_defaults_<i>`, as TensorFlow's Python API names converted list inputs.
///
/// Example: `auto cols = af::decode_csv(value, {af::Tensor(-1.0f), af::Tensor(-1.0f),
/// af::Tensor(-1)});` parses "1.5,2,3" into a float32, a float32 and an int32 tensor.
///
/// When `records` is output 1 (the value) of a ReaderReadV2 or ReaderReadUpToV2 node, the
/// reader's output 0 (the key, "file:line") is passed along too (an actorflow extension),
/// and every error about a record names it: "Expect 3 fields but have 2 in record 0
/// (data.csv:3)".
///
/// Throws InvalidArgumentError when `select_cols` is not strictly increasing, holds
/// negative values or does not have one entry per default (TensorFlow's ValueErrors), or
/// when shape or type inference rejects the inputs. Running the op fails with
/// InvalidArgument on malformed records, with TensorFlow's messages ("Expect 3 fields but
/// have 2 in record 0", "Field 0 is required but missing in record 1!", "Field 1 in record 0
/// is not a valid float: abc", ...).
std::vector<Output> decode_csv(const Output& records, const std::vector<Tensor>& record_defaults,
                               const DecodeCSVOptions& options = {});

/// `tf.decode_csv` with the defaults given as graph outputs (each of rank 0, or rank 1 with
/// at most one element); see the overload taking tensors.
std::vector<Output> decode_csv(const Output& records, const std::vector<Output>& record_defaults,
                               const DecodeCSVOptions& options = {});

/// `tf.io.decode_json_example(json_examples)`: op DecodeJSONExample (default name
/// "DecodeJSONExample"), each string of `json_examples` (any shape), a tf.train.Example in
/// protobuf's JSON mapping (`{"features": {"feature": {"x": {"floatList": {"value": [1]}}}}}`),
/// as the serialized Example, the bytes TensorFlow's kernel writes (protobuf's
/// JsonToBinaryStream: fields in the JSON's order, repeated numbers unpacked). Running it
/// fails with InvalidArgument "Error while parsing JSON: ..." and protobuf's words for text
/// that is not such an Example.
Output decode_json_example(const Output& json_examples, std::string_view name = {});

}  // namespace af
