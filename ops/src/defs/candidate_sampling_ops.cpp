// The definitions of the candidate samplers and ComputeAccidentalHits (TensorFlow's
// candidate_sampling_ops.cc shape functions) and their builders
// (candidate_sampling_ops.py). The CPU kernels are in kernels/src/candidate_sampler_ops.cpp.
#include "actorflow/ops/candidate_sampling_ops.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "attr_checks.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::Index;

// Input `i` (named `arg`) must be int64.
Status expect_int64(const InferenceContext& c, int i, const char* arg) {
  const DType t = c.input_types[static_cast<std::size_t>(i)];
  if (t != DType::int64)
    return invalid_argument("Input '" + std::string(arg) + "' of '" + c.node.op + "' Op has type " +
                            std::string(dtype_name(t)) +
                            " that does not match expected type of int64.");
  return {};
}

// CandidateSamplerShapeFn: [num_sampled] int64, [batch, num_true] and [num_sampled] floats.
Status infer_candidate_sampler(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(expect_int64(c, 0, "true_classes"));
  Index num_true = 0, num_sampled = 0, range_max = 1;
  ACTORFLOW_RETURN_IF_ERROR(detail::int_attr_at_least(c, "num_true", 1, &num_true));
  ACTORFLOW_RETURN_IF_ERROR(detail::int_attr_at_least(c, "num_sampled", 1, &num_sampled));
  bool unique = false;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("unique", &unique));
  if (c.node.op != "AllCandidateSampler")
    ACTORFLOW_RETURN_IF_ERROR(detail::int_attr_at_least(c, "range_max", 1, &range_max));
  const bool unigram = c.node.op == "LearnedUnigramCandidateSampler" ||
                       c.node.op == "ThreadUnsafeUnigramCandidateSampler";
  if (unigram && range_max >= std::numeric_limits<std::int32_t>::max())
    return invalid_argument("range_max must be less than 2147483647 for unigram samplers");
  const PartialShape& true_classes = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(true_classes, 2));
  c.add_output(DType::int64, detail::vector_of(num_sampled));
  c.add_output(DType::float32, PartialShape({detail::dim_of(true_classes, 0), num_true}));
  c.add_output(DType::float32, detail::vector_of(num_sampled));
  return {};
}

// ComputeAccidentalHits: true_classes [batch, num_true], sampled_candidates a vector; three
// vectors of unknown length.
Status infer_compute_accidental_hits(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(expect_int64(c, 0, "true_classes"));
  ACTORFLOW_RETURN_IF_ERROR(expect_int64(c, 1, "sampled_candidates"));
  Index num_true = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("num_true", &num_true));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 2));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_value(detail::dim_of(c.input_shapes[0], 1), num_true));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[1], 1));
  c.add_output(DType::int32, detail::vector_of(-1));
  c.add_output(DType::int64, detail::vector_of(-1));
  c.add_output(DType::float32, detail::vector_of(-1));
  return {};
}

// A sampler op of `type` under `name` (default: the type) with the common attrs.
CandidateSamplerOutputs sampler(const std::string& type, const Output& true_classes,
                                std::int64_t num_true, std::int64_t num_sampled, bool unique,
                                std::optional<std::int64_t> range_max, AttrMap more,
                                std::optional<std::int64_t> seed, std::string_view name) {
  const auto [seed1, seed2] = true_classes.graph().get_seed(seed);
  AttrMap attrs = std::move(more);
  attrs["num_true"] = num_true;
  attrs["num_sampled"] = num_sampled;
  attrs["unique"] = unique;
  if (range_max) attrs["range_max"] = *range_max;
  attrs["seed"] = seed1;
  attrs["seed2"] = seed2;
  Operation op = true_classes.graph().create_op(type, {true_classes}, std::move(attrs),
                                                name.empty() ? std::string_view(type) : name);
  return {op.output(0), op.output(1), op.output(2)};
}

}  // namespace

namespace detail {

void register_candidate_sampling_ops(OpRegistry& r) {
  for (const char* type : {"UniformCandidateSampler", "LogUniformCandidateSampler",
                           "LearnedUnigramCandidateSampler", "ThreadUnsafeUnigramCandidateSampler",
                           "FixedUnigramCandidateSampler", "AllCandidateSampler"})
    r.add({type, infer_candidate_sampler, true});
  r.add({"ComputeAccidentalHits", infer_compute_accidental_hits});
}

}  // namespace detail

CandidateSamplerOutputs uniform_candidate_sampler(const Output& true_classes, std::int64_t num_true,
                                                  std::int64_t num_sampled, bool unique,
                                                  std::int64_t range_max,
                                                  std::optional<std::int64_t> seed,
                                                  std::string_view name) {
  return sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, range_max,
                 {}, seed, name);
}

CandidateSamplerOutputs log_uniform_candidate_sampler(
    const Output& true_classes, std::int64_t num_true, std::int64_t num_sampled, bool unique,
    std::int64_t range_max, std::optional<std::int64_t> seed, std::string_view name) {
  return sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                 range_max, {}, seed, name);
}

CandidateSamplerOutputs learned_unigram_candidate_sampler(
    const Output& true_classes, std::int64_t num_true, std::int64_t num_sampled, bool unique,
    std::int64_t range_max, std::optional<std::int64_t> seed, std::string_view name) {
  return sampler("LearnedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique,
                 range_max, {}, seed, name);
}

CandidateSamplerOutputs fixed_unigram_candidate_sampler(
    const Output& true_classes, std::int64_t num_true, std::int64_t num_sampled, bool unique,
    std::int64_t range_max, const FixedUnigramOptions& options, std::optional<std::int64_t> seed,
    std::string_view name) {
  AttrMap more{{"vocab_file", options.vocab_file},
               {"distortion", options.distortion},
               {"num_reserved_ids", options.num_reserved_ids},
               {"num_shards", options.num_shards},
               {"shard", options.shard},
               {"unigrams", options.unigrams}};
  return sampler("FixedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique,
                 range_max, std::move(more), seed, name);
}

CandidateSamplerOutputs all_candidate_sampler(const Output& true_classes, std::int64_t num_true,
                                              std::int64_t num_sampled, bool unique,
                                              std::optional<std::int64_t> seed,
                                              std::string_view name) {
  return sampler("AllCandidateSampler", true_classes, num_true, num_sampled, unique, std::nullopt,
                 {}, seed, name);
}

AccidentalHits compute_accidental_hits(const Output& true_classes, const Output& sampled_candidates,
                                       std::int64_t num_true, std::optional<std::int64_t> seed,
                                       std::string_view name) {
  const auto [seed1, seed2] = true_classes.graph().get_seed(seed);
  Operation op =
      true_classes.graph().create_op("ComputeAccidentalHits", {true_classes, sampled_candidates},
                                     {{"num_true", num_true}, {"seed", seed1}, {"seed2", seed2}},
                                     name.empty() ? "ComputeAccidentalHits" : name);
  return {op.output(0), op.output(1), op.output(2)};
}

}  // namespace af
