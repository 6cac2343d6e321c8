#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/sparse_tensor.hpp"

/// Sequences: `tf.reverse_sequence` and `tf.edit_distance`, and Connectionist Temporal
/// Classification (`tf.compat.v1.nn.ctc_loss`, `tf.nn.ctc_greedy_decoder`,
/// `tf.compat.v1.nn.ctc_beam_search_decoder`), as TensorFlow's reverse_sequence_op.cc,
/// edit_distance_op.cc, ctc_loss_op.cc and ctc_decoder_ops.cc compute them.
namespace af {

/// `tf.reverse_sequence(input, seq_lengths, seq_axis, batch_axis)`: op ReverseSequence
/// (default name "ReverseSequence", attrs seq_dim and batch_dim, Tlen the dtype of the int32
/// or int64 `seq_lengths`). Slice i of `input` along `batch_axis` has its first
/// `seq_lengths[i]` elements along `seq_axis` reversed; the rest is copied. Every value type.
/// Building refuses "batch_dim must be < input rank: 3 vs. 3", "seq_dim must be < input rank:
/// 3 vs. 2", "batch_dim must be >=0, got -1" and a `seq_lengths` whose length differs from
/// the batch dimension ("Dimensions must be equal, but are 2 and 3"). The kernel, as
/// TensorFlow's CPU kernel, takes inputs of rank 2 to 5 ("ReverseSequenceOp : Unhandled input
/// dimensions: 6") and refuses negative axes ("Invalid seq_dim -1"), equal axes
/// ("batch_dim == seq_dim == 1") and lengths out of range ("seq_lens(1) > input.dims(1)",
/// "seq_lens(0) < 0"). Gradient: ReverseSequence of the gradient with the same lengths; none
/// for `seq_lengths`.
Output reverse_sequence(const Output& input, const Output& seq_lengths, std::int64_t seq_axis,
                        std::int64_t batch_axis = 0, std::string_view name = {});

/// `tf.edit_distance(hypothesis, truth, normalize)`: op EditDistance (default name
/// "edit_distance"), the float32 Levenshtein distance between the sequences (the last
/// dimension) of the two SparseTensors (values of one dtype, rank at least 2) at each
/// position of the other dimensions; the output's shape is the elementwise maximum of the two
/// dense shapes without the last (unknown unless both are constants). With `normalize` each
/// distance is divided by the truth's length: a position holding a truth but no hypothesis
/// gives 1, one holding a hypothesis but no truth +inf, one holding neither 0. The indices
/// must be in row-major order (they are grouped in runs, as TensorFlow's, not sorted);
/// an index outside the output fails with InternalError "Got an inner product 5 which would
/// require writing to outside of the buffer for the output tensor (max elements 2)", an
/// empty output with "Got output shape [0] which has 0 elements". Not differentiable.
Output edit_distance(const SparseTensor& hypothesis, const SparseTensor& truth,
                     bool normalize = true, std::string_view name = "edit_distance");

}  // namespace af

namespace af::nn {

/// The attrs of CTCLoss, and `tf.compat.v1.nn.ctc_loss`'s layout of its logits.
struct CTCLossOptions {
  /// Collapse repeated labels before computing the loss.
  bool preprocess_collapse_repeated = false;
  /// False: repeated non-blank labels are separate labels in the loss (no merging).
  bool ctc_merge_repeated = true;
  /// True: batch entries with more labels than steps get loss and gradient 0 instead of
  /// failing the step.
  bool ignore_longer_outputs_than_inputs = false;
  /// `ctc_loss` only: false for batch-major logits `[batch, max_time, num_classes]`.
  bool time_major = true;
};

/// What `ctc_loss_op` returns.
struct CTCLossOutputs {
  Output loss;      ///< `[batch]`: -log p(labels | logits), of the logits' dtype
  Output gradient;  ///< the gradient of `loss` with respect to the logits, their shape
};

/// `tf.raw_ops.CTCLoss`: op CTCLoss (default name "CTCLoss") of time-major float32 or float64
/// logits `[max_time, batch, num_classes]` (class `num_classes - 1` is the blank), the labels
/// as a SparseTensor's int64 indices `[N, 2]` (batch, position; row-major order) and int32
/// values, and the int32 `sequence_length` `[batch]` (at most max_time). The loss is computed
/// as TensorFlow's CTCLossCalculator (a softmax per step, forward and backward variables in
/// log space). The step fails as TensorFlow's kernel: "Labels length is zero in batch 1",
/// "Not enough time for target transition sequence (required: 3, available: 2)0You can turn
/// this error into a warning by using the flag ignore_longer_outputs_than_inputs", "label
/// SparseTensor is not valid: indices[1] = [0,0] is out of order. ...", "sequence_length(0)
/// <= 4", "Max time or first dimension of input cannot be 0.", "batch_size must not be 0". A
/// label sequence no path fits gives loss +inf and the softmax as gradient. Gradient (of
/// `loss`): `loss`'s gradient as a column `[batch, 1]` (ExpandDims) times PreventGradient of
/// `gradient` (a second derivative fails: "Gradient explicitly disabled. Reason: Currently
/// there is no way to take the second  derivative of ctc_loss ..."); none for the labels and
/// lengths.
CTCLossOutputs ctc_loss_op(const Output& inputs, const Output& labels_indices,
                           const Output& labels_values, const Output& sequence_length,
                           const CTCLossOptions& options = {}, std::string_view name = {});

/// `tf.compat.v1.nn.ctc_loss(labels, inputs, sequence_length, ...)`: `ctc_loss_op` of the
/// SparseTensor `labels` (its dense shape unused), the loss output. Batch-major `inputs`
/// (`options.time_major` false) are transposed first (op Transpose "transpose", perm
/// [1, 0, 2]), as Python does.
Output ctc_loss(const SparseTensor& labels, const Output& inputs, const Output& sequence_length,
                const CTCLossOptions& options = {});

/// What the CTC decoders return.
struct CTCDecoderOutputs {
  /// One SparseTensor per path: int64 indices `[n, 2]` (batch, position), int64 values (the
  /// classes) and dense shape `[batch, longest sequence]`.
  std::vector<SparseTensor> decoded;
  /// `[batch, paths]`, the logits' dtype: the greedy decoder's minus the sum of each step's
  /// greatest logit; the beam search's log probability of each path.
  Output log_probability;
};

/// `tf.nn.ctc_greedy_decoder(inputs, sequence_length, merge_repeated, blank_index)`: op
/// CTCGreedyDecoder (default name "CTCGreedyDecoder") of time-major float32 or float64 logits
/// `[max_time, batch, num_classes]` and int32 lengths `[batch]`. Each step's most probable
/// class (the first of equal ones) is emitted unless it is the blank (`blank_index`, negative
/// counting from num_classes) or, with `merge_repeated`, the previous step's class. Fails as
/// TensorFlow's kernel: "inputs must not be empty", FailedPrecondition "sequence_length(1) <=
/// 4" and "len(sequence_length) != batch_size. ...", "blank_index expected to be between -3
/// and 2 but was 3". Not differentiable.
CTCDecoderOutputs ctc_greedy_decoder(const Output& inputs, const Output& sequence_length,
                                     bool merge_repeated = true, std::int64_t blank_index = -1,
                                     std::string_view name = {});

/// `tf.compat.v1.nn.ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths,
/// merge_repeated)`: op CTCBeamSearchDecoder (default name "CTCBeamSearchDecoder", outputs
/// `top_paths` of each decoded tensor, then log_probability) of time-major float32 or float64
/// logits and int32 lengths. TensorFlow's beam search with its default scorer (the blank is
/// the last class), step for step, so that paths of equal probability come in TensorFlow's
/// order; `merge_repeated` merges repeated labels of a path. Building refuses `beam_width` or
/// `top_paths` below 1 ("Value for attr 'top_paths' of 0 must be at least minimum 1"); the
/// step fails with "requested more paths than the beam width." and "Less leaves in the beam
/// search than requested." (a sequence too short to have `top_paths` prefixes) besides the
/// greedy decoder's input checks. Not differentiable.
CTCDecoderOutputs ctc_beam_search_decoder(const Output& inputs, const Output& sequence_length,
                                          std::int64_t beam_width = 100, std::int64_t top_paths = 1,
                                          bool merge_repeated = true, std::string_view name = {});

}  // namespace af::nn
