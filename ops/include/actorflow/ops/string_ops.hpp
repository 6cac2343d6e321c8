#pragma once

#include <cstdint>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Hashing strings into buckets (TensorFlow's `tf.strings.to_hash_bucket_fast`): how hashed
/// categorical features become embedding ids.
namespace af {

/// `tf.strings.to_hash_bucket_fast`: op StringToHashBucketFast (default name
/// "StringToHashBucketFast"), for each string of `input` (any shape) its FarmHash
/// `Fingerprint64` modulo `num_buckets`, as int64 of the input's shape: the same bucket as
/// TensorFlow's on every platform ("Hello" → 0xd5c87c1e326b2087, so 0 of 3). Throws
/// InvalidArgumentError "Value for attr 'num_buckets' of 0 must be at least minimum 1" for
/// fewer than one bucket, and for an input that is not a string.
Output string_to_hash_bucket_fast(const Output& input, std::int64_t num_buckets,
                                  std::string_view name = {});

}  // namespace af
