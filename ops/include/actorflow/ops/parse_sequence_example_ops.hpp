#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/parse_example_ops.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Parsing serialized `tf.train.SequenceExample` protos (TensorFlow's
/// `tf.io.parse_single_sequence_example` and `tf.io.parse_sequence_example`,
/// example_parsing_ops.cc): a context of features per record and feature lists, one feature
/// per time step.
namespace af::io {

/// `tf.io.FixedLenSequenceFeature`: a feature list whose every step holds `shape` values,
/// parsed into a dense tensor of `[time] + shape` (`[batch, longest time] + shape` batched,
/// shorter lists padded with zeros or "").
struct FixedLenSequenceFeature {
  std::vector<std::int64_t> shape;  ///< each step's shape (fully defined)
  DType dtype = DType::float32;     ///< float32, int64 or string
  /// True: a record without the list parses as an empty one; false: the list is required.
  bool allow_missing = false;
};

/// What the sequence parsers return, by feature key.
struct ParsedSequenceExample {
  std::map<std::string, Output> context_dense;          ///< the context FixedLenFeatures
  std::map<std::string, SparseTensor> context_sparse;   ///< the context VarLenFeatures
  std::map<std::string, Output> sequence_dense;         ///< the FixedLenSequenceFeatures
  std::map<std::string, SparseTensor> sequence_sparse;  ///< the feature-list VarLenFeatures
  /// `parse_sequence_example` only: each record's list length (int64 [batch]) of every
  /// FixedLenSequenceFeature.
  std::map<std::string, Output> sequence_lengths;
};

/// `tf.io.parse_single_sequence_example(serialized, context_features, sequence_features,
/// example_name)`: op ParseSequenceExampleV2 (as TensorFlow 2.21 builds it) under the name
/// scopes "ParseSingleSequenceExample/ParseSequenceExample", of a scalar string. Context
/// dense features come out of their shape, context sparse ones with indices `[n, 1]`;
/// sequence dense features `[time] + shape`, sequence sparse ones indexed `(step, position)`.
/// Keys are taken sorted. Running fails with TensorFlow's messages, e.g. "Name: <unknown>,
/// Feature list 'x' is required but could not be found.  Did you mean to include it in
/// feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?", "Feature: a
/// (data type: int64) is required but could not be found.", "Name: <unknown>, Context
/// feature: a.  Data types don't match. Expected type: float", "Name: <unknown>, Key: x,
/// Index: 2.  Number of values != expected.  values size: 4 but output shape: [2]". Throws
/// InvalidArgumentError while building for no features at all, a dtype other than float32,
/// int64 and string, a context feature with a -1 dimension, a default of the wrong dtype or
/// shape, or a `serialized` of known non-zero rank. Not differentiable.
ParsedSequenceExample parse_single_sequence_example(
    const Output& serialized, const std::map<std::string, FixedLenFeature>& context_dense,
    const std::map<std::string, VarLenFeature>& context_sparse,
    const std::map<std::string, FixedLenSequenceFeature>& sequence_dense,
    const std::map<std::string, VarLenFeature>& sequence_sparse = {},
    std::string_view example_name = {}, std::string_view name = {});

/// `tf.io.parse_sequence_example(serialized, context_features, sequence_features,
/// example_names)`: ParseSequenceExampleV2 under "ParseSequenceExample/ParseSequenceExample",
/// of a string vector: everything gains a leading batch dimension, sparse indices start with
/// the record's index, and `sequence_lengths` holds each record's list lengths. Messages name
/// the record by `example_names` (or "<unknown>"); the other errors are those of
/// `parse_single_sequence_example`, plus "example_names must be empty or have the correct
/// number of elements" while running.
ParsedSequenceExample parse_sequence_example(
    const Output& serialized, const std::map<std::string, FixedLenFeature>& context_dense,
    const std::map<std::string, VarLenFeature>& context_sparse,
    const std::map<std::string, FixedLenSequenceFeature>& sequence_dense,
    const std::map<std::string, VarLenFeature>& sequence_sparse = {},
    const std::vector<std::string>& example_names = {}, std::string_view name = {});

}  // namespace af::io
