#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Parsing serialized `tf.train.Example` protos (TensorFlow's `tf.io.parse_example`,
/// example_parsing_ops.cc): what an input pipeline of TFRecord files of Examples decodes each
/// batch of records with.
namespace af::io {

/// `tf.io.FixedLenFeature` (and `tf.io.FixedLenSequenceFeature(allow_missing=True)` when
/// `shape` starts with -1): a feature parsed into a dense tensor of `[batch] + shape`.
struct FixedLenFeature {
  /// The per-example shape. A leading -1 makes a sequence feature: each example holds any
  /// number of rows of `shape[1:]`, and the output has as many as the longest example, the
  /// others padded with `default_value` (a scalar; zero or "" when absent).
  std::vector<std::int64_t> shape;
  /// float32, int64 or string (the three kinds of an Example's features).
  DType dtype = DType::float32;
  /// Taken for examples without the feature (of `shape`); absent: the feature is required.
  std::optional<Tensor> default_value;
};

/// `tf.io.VarLenFeature`: a feature of any length per example, parsed into a SparseTensor of
/// dense shape `[batch, longest]` whose indices are `(example, position)`.
struct VarLenFeature {
  DType dtype = DType::float32;  ///< float32, int64 or string
};

/// What `parse_example` returns, by feature key.
struct ParsedFeatures {
  std::map<std::string, Output> dense;         ///< the FixedLenFeatures
  std::map<std::string, SparseTensor> sparse;  ///< the VarLenFeatures
};

/// `tf.compat.v1.io.parse_example(serialized, features)`: op ParseExampleV2 under the name
/// scope "ParseExample" (the keys sorted, as TensorFlow sorts them; defaults the Consts
/// "key_<key>" and "padding_<key>"), of a string vector (or scalar) of serialized Examples.
/// Running fails with TensorFlow's messages, naming the example by its index: "Could not
/// parse example input, value: '...'", "Name: <unknown>, Feature: img (data type: float) is
/// required but could not be found.", "Name: <unknown>, Key: img, Index: 1.  Number of float
/// values != expected.  Values size: 1 but output shape: [2]", "... Data types don't match.
/// Data type: int64 but expected type: float". Throws InvalidArgumentError while building
/// for a dtype other than float32, int64 and string or a default of the wrong shape. Not
/// differentiable. Imported graphs may hold the older ParseExample and ParseSingleExample ops
/// too; ragged features (`tf.io.RaggedFeature`) are refused when the op is created.
ParsedFeatures parse_example(const Output& serialized,
                             const std::map<std::string, FixedLenFeature>& dense,
                             const std::map<std::string, VarLenFeature>& sparse = {},
                             std::string_view name = {});

}  // namespace af::io
