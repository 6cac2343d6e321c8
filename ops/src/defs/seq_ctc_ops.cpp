// The definitions of ReverseSequence, CTCLoss, CTCGreedyDecoder, CTCBeamSearchDecoder and
// EditDistance (shape functions as TensorFlow's array_ops.cc and ctc_ops.cc) and the builders
// tf.reverse_sequence, tf.edit_distance, tf.compat.v1.nn.ctc_loss, tf.nn.ctc_greedy_decoder and
// tf.compat.v1.nn.ctc_beam_search_decoder. Their CPU kernels are in
// kernels/src/seq_ctc_ops.cpp, the gradients of ReverseSequence and CTCLoss in
// ops/src/gradients/seq_ctc_grad.cpp.
#include "actorflow/ops/seq_ctc_ops.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "attr_checks.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::dim_of;
using detail::merge_dims;

using Index = std::int64_t;
using detail::check_index_type;
using detail::int_attr_at_least;
using detail::with_rank;

const std::vector<DType> kCtcTypes = {DType::float32, DType::float64};

// Input `i`, an input of the fixed type `type`, named `arg` in the op's definition.
Status expect_fixed_type(const InferenceContext& c, int i, const char* arg, DType type) {
  const DType got = c.input_types[static_cast<std::size_t>(i)];
  if (got != type)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, arg, got, type));
  return {};
}

// ReverseSequence: the input's shape, its batch_dim dimension merged with seq_lengths' length.
Status infer_reverse_sequence(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(check_index_type(c.input_types[1], "Tlen"));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  Index seq_dim = 0, batch_dim = 0;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("seq_dim", &seq_dim));
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("batch_dim", &batch_dim));
  const PartialShape& input = c.input_shapes[0];
  if (!input.rank_known()) {
    c.add_output(c.input_types[0], PartialShape::unknown());
    return {};
  }
  const Index rank = input.rank();
  if (batch_dim >= rank)
    return invalid_argument("batch_dim must be < input rank: " + std::to_string(batch_dim) +
                            " vs. " + std::to_string(rank));
  if (seq_dim >= rank)
    return invalid_argument("seq_dim must be < input rank: " + std::to_string(seq_dim) + " vs. " +
                            std::to_string(rank));
  if (batch_dim < 0)
    return invalid_argument("batch_dim must be >=0, got " + std::to_string(batch_dim));
  std::vector<std::int64_t> dims = input.dims();
  Index batch = -1;
  ACTORFLOW_RETURN_IF_ERROR(
      merge_dims(dims[static_cast<std::size_t>(batch_dim)], dim_of(c.input_shapes[1], 0), &batch));
  dims[static_cast<std::size_t>(batch_dim)] = batch;
  c.add_output(c.input_types[0], PartialShape(std::move(dims)));
  return {};
}

// CTCLoss: loss [batch] and gradient of the logits' shape (batch merged with
// sequence_length's length); labels_indices' rows merged with labels_values' length.
Status infer_ctc_loss(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(4));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kCtcTypes));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 1, "labels_indices", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 2, "labels_values", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 3, "sequence_length", DType::int32));
  const PartialShape& inputs = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(inputs, 3));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[2], 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[3], 1));
  Index unused = -1;
  ACTORFLOW_RETURN_IF_ERROR(
      merge_dims(dim_of(c.input_shapes[1], 0), dim_of(c.input_shapes[2], 0), &unused));
  Index batch = -1;
  ACTORFLOW_RETURN_IF_ERROR(merge_dims(dim_of(inputs, 1), dim_of(c.input_shapes[3], 0), &batch));
  c.add_output(c.input_types[0], PartialShape{batch});
  c.add_output(c.input_types[0], PartialShape{dim_of(inputs, 0), batch, dim_of(inputs, 2)});
  return {};
}

// The decoders' logits [max_time, batch, num_classes] and sequence lengths [batch]: their
// merged batch size.
Status infer_decoder_inputs(const InferenceContext& c, Index* batch) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], kCtcTypes));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 1, "sequence_length", DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 3));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 1));
  return merge_dims(dim_of(c.input_shapes[0], 1), dim_of(c.input_shapes[1], 0), batch);
}

// The decoded SparseTensors (indices [?, 2], values [?], shape [2], all int64) of `paths`
// paths, then log_probability [batch, paths] of the logits' type.
void add_decoded_outputs(InferenceContext& c, Index batch, Index paths) {
  for (Index p = 0; p < paths; ++p) c.add_output(DType::int64, PartialShape{-1, 2});
  for (Index p = 0; p < paths; ++p) c.add_output(DType::int64, PartialShape{-1});
  for (Index p = 0; p < paths; ++p) c.add_output(DType::int64, PartialShape{2});
  c.add_output(c.input_types[0], PartialShape{batch, paths});
}

Status infer_ctc_greedy_decoder(InferenceContext& c) {
  Index batch = -1;
  ACTORFLOW_RETURN_IF_ERROR(infer_decoder_inputs(c, &batch));
  add_decoded_outputs(c, batch, 1);
  return {};
}

Status infer_ctc_beam_search_decoder(InferenceContext& c) {
  Index beam_width = 0, top_paths = 0;
  ACTORFLOW_RETURN_IF_ERROR(int_attr_at_least(c, "beam_width", 1, &beam_width));
  ACTORFLOW_RETURN_IF_ERROR(int_attr_at_least(c, "top_paths", 1, &top_paths));
  Index batch = -1;
  ACTORFLOW_RETURN_IF_ERROR(infer_decoder_inputs(c, &batch));
  add_decoded_outputs(c, batch, top_paths);
  return {};
}

// shape_inference::ValidateSparseTensor of inputs `first` (indices), `first + 1` (values)
// and `first + 2` (dense shape).
Status validate_sparse_tensor(const InferenceContext& c, int first) {
  const PartialShape& indices = c.input_shapes[static_cast<std::size_t>(first)];
  const PartialShape& values = c.input_shapes[static_cast<std::size_t>(first + 1)];
  const PartialShape& shape = c.input_shapes[static_cast<std::size_t>(first + 2)];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(indices, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(values, 1));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(shape, 1));
  const Index num_index_elements = dim_of(indices, 0), num_values = dim_of(values, 0);
  if (num_index_elements >= 0 && num_values >= 0 && num_index_elements != num_values)
    return invalid_argument("Number of elements in index (" + std::to_string(num_index_elements) +
                            ") and values (" + std::to_string(num_values) + ") do not match.");
  const Index index_rank = dim_of(indices, 1), shape_rank = dim_of(shape, 0);
  if (index_rank >= 0 && shape_rank >= 0 && index_rank != shape_rank)
    return invalid_argument("Index rank (" + std::to_string(index_rank) + ") and shape rank (" +
                            std::to_string(shape_rank) + ") do not match.");
  return {};
}

// EditDistance: float of shape max(hypothesis_shape, truth_shape)[:-1] when both dense shapes
// are constants, else of unknown shape.
Status infer_edit_distance(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(6));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 0, "hypothesis_indices", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 2, "hypothesis_shape", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 3, "truth_indices", DType::int64));
  if (c.input_types[4] != c.input_types[1])
    return invalid_argument(cwise::type_mismatch_message(
        c.node.op, "truth_values", c.input_types[4], "hypothesis_values", c.input_types[1]));
  ACTORFLOW_RETURN_IF_ERROR(expect_fixed_type(c, 5, "truth_shape", DType::int64));
  ACTORFLOW_RETURN_IF_ERROR(validate_sparse_tensor(c, 0));
  ACTORFLOW_RETURN_IF_ERROR(validate_sparse_tensor(c, 3));
  const Tensor* hypothesis_shape = c.input_values[2];
  const Tensor* truth_shape = c.input_values[5];
  if (hypothesis_shape == nullptr || truth_shape == nullptr) {
    c.add_output(DType::float32, PartialShape::unknown());
    return {};
  }
  const Index n = hypothesis_shape->num_elements();
  if (n != truth_shape->num_elements())
    return invalid_argument(
        "Num elements of hypothesis_shape does not match truth_shape: " + std::to_string(n) +
        " vs. " + std::to_string(truth_shape->num_elements()));
  if (n < 2)
    return invalid_argument(
        "Input Hypothesis SparseTensors must have rank at least 2, but hypothesis_shape rank "
        "is: " +
        std::to_string(n));
  const std::vector<Index> h = detail::index_values(*hypothesis_shape);
  const std::vector<Index> t = detail::index_values(*truth_shape);
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i + 1 < h.size(); ++i) {
    const Index d = std::max(h[i], t[i]);
    if (d < -1) return invalid_argument("Dimension " + std::to_string(d) + " must be >= 0");
    dims.push_back(d);
  }
  c.add_output(DType::float32, PartialShape(std::move(dims)));
  return {};
}

}  // namespace

namespace detail {

void register_seq_ctc_ops(OpRegistry& r) {
  r.add({"ReverseSequence", infer_reverse_sequence});
  r.add({"CTCLoss", infer_ctc_loss});
  r.add({"CTCGreedyDecoder", infer_ctc_greedy_decoder});
  r.add({"CTCBeamSearchDecoder", infer_ctc_beam_search_decoder});
  r.add({"EditDistance", infer_edit_distance});
}

}  // namespace detail

Output reverse_sequence(const Output& input, const Output& seq_lengths, std::int64_t seq_axis,
                        std::int64_t batch_axis, std::string_view name) {
  return input.graph()
      .create_op("ReverseSequence", {input, seq_lengths},
                 {{"T", input.dtype()},
                  {"Tlen", seq_lengths.dtype()},
                  {"seq_dim", seq_axis},
                  {"batch_dim", batch_axis}},
                 name.empty() ? "ReverseSequence" : name)
      .output(0);
}

Output edit_distance(const SparseTensor& hypothesis, const SparseTensor& truth, bool normalize,
                     std::string_view name) {
  return hypothesis.indices.graph()
      .create_op("EditDistance",
                 {hypothesis.indices, hypothesis.values, hypothesis.dense_shape, truth.indices,
                  truth.values, truth.dense_shape},
                 {{"T", hypothesis.values.dtype()}, {"normalize", normalize}},
                 name.empty() ? "edit_distance" : name)
      .output(0);
}

namespace nn {

namespace {

// The decoded SparseTensors and log probabilities of a decoder op of `paths` paths.
CTCDecoderOutputs decoder_outputs(const Operation& op, int paths) {
  CTCDecoderOutputs out;
  for (int p = 0; p < paths; ++p)
    out.decoded.push_back(
        SparseTensor{op.output(p), op.output(paths + p), op.output(2 * paths + p)});
  out.log_probability = op.output(3 * paths);
  return out;
}

}  // namespace

CTCLossOutputs ctc_loss_op(const Output& inputs, const Output& labels_indices,
                           const Output& labels_values, const Output& sequence_length,
                           const CTCLossOptions& options, std::string_view name) {
  Operation op = inputs.graph().create_op(
      "CTCLoss", {inputs, labels_indices, labels_values, sequence_length},
      {{"T", inputs.dtype()},
       {"preprocess_collapse_repeated", options.preprocess_collapse_repeated},
       {"ctc_merge_repeated", options.ctc_merge_repeated},
       {"ignore_longer_outputs_than_inputs", options.ignore_longer_outputs_than_inputs}},
      name.empty() ? "CTCLoss" : name);
  return {op.output(0), op.output(1)};
}

Output ctc_loss(const SparseTensor& labels, const Output& inputs, const Output& sequence_length,
                const CTCLossOptions& options) {
  // Batch-major logits are made time-major first, as Python's ctc_loss.
  const Output time_major =
      options.time_major ? inputs : af::transpose(inputs, std::vector<std::int64_t>{1, 0, 2});
  return ctc_loss_op(time_major, labels.indices, labels.values, sequence_length, options).loss;
}

CTCDecoderOutputs ctc_greedy_decoder(const Output& inputs, const Output& sequence_length,
                                     bool merge_repeated, std::int64_t blank_index,
                                     std::string_view name) {
  const Operation op = inputs.graph().create_op(
      "CTCGreedyDecoder", {inputs, sequence_length},
      {{"T", inputs.dtype()}, {"merge_repeated", merge_repeated}, {"blank_index", blank_index}},
      name.empty() ? "CTCGreedyDecoder" : name);
  return decoder_outputs(op, 1);
}

CTCDecoderOutputs ctc_beam_search_decoder(const Output& inputs, const Output& sequence_length,
                                          std::int64_t beam_width, std::int64_t top_paths,
                                          bool merge_repeated, std::string_view name) {
  const Operation op = inputs.graph().create_op("CTCBeamSearchDecoder", {inputs, sequence_length},
                                                {{"T", inputs.dtype()},
                                                 {"beam_width", beam_width},
                                                 {"top_paths", top_paths},
                                                 {"merge_repeated", merge_repeated}},
                                                name.empty() ? "CTCBeamSearchDecoder" : name);
  return decoder_outputs(op, static_cast<int>(top_paths));
}

}  // namespace nn

}  // namespace af
