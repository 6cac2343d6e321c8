// The definition of StringNGrams (TensorFlow's string_ops.cc: data and data_splits vectors;
// n-grams of unknown length and splits of data_splits' shape) and its builder. The CPU
// kernel is in kernels/src/string_ngrams_ops.cpp.
#include <cstdint>
#include <string>

#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/op_registry.hpp"
#include "actorflow/ops/string_ops.hpp"
#include "attr_checks.hpp"

namespace af {

namespace {

Status infer_string_ngrams(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(c.input_types[1], "Tsplits"));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[0], 1));
  ACTORFLOW_RETURN_IF_ERROR(detail::with_rank(c.input_shapes[1], 1));
  c.add_output(DType::string, detail::vector_of(-1));
  c.add_output(c.input_types[1], c.input_shapes[1]);
  return {};
}

}  // namespace

namespace detail {

/// StringNGrams (called by register_string_ops, string_ops.cpp).
void register_string_ngrams_ops(OpRegistry& r) { r.add({"StringNGrams", infer_string_ngrams}); }

}  // namespace detail

StringNGramsOutputs string_ngrams(const Output& data, const Output& data_splits,
                                  const StringNGramsOptions& options, std::string_view name) {
  Operation op =
      data.graph().create_op("StringNGrams", {data, data_splits},
                             {{"separator", options.separator},
                              {"ngram_widths", options.ngram_widths},
                              {"left_pad", options.left_pad},
                              {"right_pad", options.right_pad},
                              {"pad_width", options.pad_width},
                              {"preserve_short_sequences", options.preserve_short_sequences},
                              {"Tsplits", data_splits.dtype()}},
                             name.empty() ? "StringNGrams" : name);
  return {op.output(0), op.output(1)};
}

Output unsorted_segment_join(const Output& inputs, const Output& segment_ids,
                             const Output& num_segments, const std::string& separator,
                             std::string_view name) {
  return inputs.graph()
      .create_op("UnsortedSegmentJoin", {inputs, segment_ids, num_segments},
                 {{"separator", separator},
                  {"Tindices", segment_ids.dtype()},
                  {"Tnumsegments", num_segments.dtype()}},
                 name.empty() ? "UnsortedSegmentJoin" : name)
      .output(0);
}

Output unsorted_segment_join(const Output& inputs, const Output& segment_ids,
                             std::int32_t num_segments, const std::string& separator,
                             std::string_view name) {
  Graph& g = inputs.graph();
  // The count becomes the op's input "<op>/num_segments", as op_def_library names it.
  const std::string op = g.unique_name(name.empty() ? "UnsortedSegmentJoin" : name);
  Output n;
  {
    auto scope = g.name_scope(op + "/");
    n = g.constant(Tensor(num_segments), "num_segments");
  }
  return unsorted_segment_join(inputs, segment_ids, n, separator, op + "/");
}

}  // namespace af
