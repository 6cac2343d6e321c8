// StringToHashBucketFast (TensorFlow's string_ops.cc): shape function and builder. Its CPU
// kernel is in kernels/src/string_hash_ops.cpp.
#include <string>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/string_ops.hpp"
#include "attr_checks.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

// The output has the input's shape; num_buckets is at least 1.
Status infer_string_to_hash_bucket_fast(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  if (c.input_types[0] != DType::string)
    return invalid_argument("Input 'input' of 'StringToHashBucketFast' Op has type " +
                            std::string(data_type_string(c.input_types[0])) +
                            " that does not match expected type of string.");
  std::int64_t buckets = 0;
  ACTORFLOW_RETURN_IF_ERROR(detail::int_attr_at_least(c, "num_buckets", 1, &buckets));
  c.add_output(DType::int64, c.input_shapes[0]);
  return {};
}

}  // namespace

namespace detail {

void register_string_hash_ops(OpRegistry& r) {
  r.add({"StringToHashBucketFast", infer_string_to_hash_bucket_fast});
}

}  // namespace detail

Output string_to_hash_bucket_fast(const Output& input, std::int64_t num_buckets,
                                  std::string_view name) {
  return input.graph()
      .create_op("StringToHashBucketFast", {input}, {{"num_buckets", num_buckets}},
                 name.empty() ? "StringToHashBucketFast" : name)
      .output(0);
}

}  // namespace af
