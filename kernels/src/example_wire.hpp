#pragma once

// Serialized tf.train.Examples read in place (TensorFlow's example_proto_fast_parsing.cc does
// the same): the wire format walked once, each feature kept as a view of its list's bytes with
// its value count, no message objects built. Protobuf's merge rules hold: a later map entry
// with the same key replaces an earlier one, a Feature's oneof takes its last kind, and the
// same list twice (or a message field twice) is concatenated.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/tensor.hpp"

namespace af::detail {

/// One feature of a serialized Example: its kind and its list message's bytes.
struct FeatureView {
  DType kind = DType::invalid;         ///< float32, int64 or string; invalid: no kind set
  std::string_view list;               ///< the list message (its first part)
  std::vector<std::string_view> more;  ///< further parts of the same list, merged
  std::int64_t count = 0;              ///< the number of values

  /// Copies the values into `out` from element `at` on (out's dtype is `kind`).
  void copy_to(Tensor& out, std::int64_t at) const;
};

/// The features of one serialized Example.
class ExampleView {
 public:
  /// Reads `bytes` (which must outlive the view); false when they are not an Example's wire
  /// format (a bad varint, a length past the end, a group, a packed float list whose length
  /// is not a multiple of 4, ...).
  bool parse(std::string_view bytes);
  /// The feature named `key`, or null when the Example has none or it has no kind.
  const FeatureView* find(std::string_view key) const;

 private:
  std::vector<std::pair<std::string_view, FeatureView>> features_;
};

/// Reads every element of `serialized` (a string tensor) into `out`. An element that the
/// wire reader refuses but protobuf accepts (groups or other unknown fields it keeps) is
/// parsed by protobuf, its known fields written again into `storage`, and read from there.
/// Returns the index of the first element neither accepts, or -1.
std::int64_t parse_examples(const Tensor& serialized, std::vector<ExampleView>* out,
                            std::deque<std::string>* storage);

}  // namespace af::detail
