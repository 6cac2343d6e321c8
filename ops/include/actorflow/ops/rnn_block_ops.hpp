#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// TensorFlow's fused recurrent cells (tf.contrib.rnn's LSTMBlockCell, LSTMBlockFusedCell and
/// GRUBlockCell; the raw ops LSTMBlockCell, BlockLSTM, BlockLSTMV2, GRUBlockCell and their
/// gradient ops, tensorflow/core/kernels/rnn/lstm_ops.cc and gru_ops.cc). Every tensor is
/// float32 (TensorFlow's CPU kernels also take half, which actorflow does not have; anything
/// else is refused while building: "Value for attr 'T' of double is not in the list of
/// allowed values: half, float"). The LSTM weight `w` is `[input + cell, 4 * cell]` and the
/// bias `b` `[4 * cell]`, gates in the order i, c, f, o (BlockLSTMV2: i, f, c, o); `wci`, `wcf`
/// and `wco` are the peephole weights `[cell]`, read only with `use_peephole` but always
/// required. Wrong ranks known while building throw InvalidArgumentError with TensorFlow's
/// shape-function messages ("Shape must be rank 2 but is rank 1"); the kernels check the rest
/// when the step runs and fail it with TensorFlow's messages, the node named.
namespace af::rnn {

/// The inputs of LSTMBlockCell and LSTMBlockCellGrad.
struct LSTMBlockCellInputs {
  Output x;        ///< `[batch, input]`
  Output cs_prev;  ///< the cell state before the step, `[batch, cell]`
  Output h_prev;   ///< the output before the step, `[batch, cell]`
  Output w;        ///< `[input + cell, 4 * cell]`
  Output wci;      ///< the input gate's peephole weights, `[cell]`
  Output wcf;      ///< the forget gate's peephole weights, `[cell]`
  Output wco;      ///< the output gate's peephole weights, `[cell]`
  Output b;        ///< `[4 * cell]`
};

/// The seven outputs of LSTMBlockCell (`[batch, cell]`) and BlockLSTM / BlockLSTMV2
/// (`[time, batch, cell]`), in TensorFlow's order.
struct LSTMBlockOutputs {
  Output i;   ///< the input gate
  Output cs;  ///< the cell state (before the tanh)
  Output f;   ///< the forget gate
  Output o;   ///< the output gate
  Output ci;  ///< the cell input
  Output co;  ///< tanh of the cell state
  Output h;   ///< the output
};

/// The attrs of LSTMBlockCell and BlockLSTM (TensorFlow's defaults).
struct LSTMBlockAttrs {
  float forget_bias = 1.0f;   ///< added to the forget gate's pre-activation
  float cell_clip = 3.0f;     ///< cs is clipped to [-cell_clip, cell_clip] when positive
  bool use_peephole = false;  ///< add the peephole terms
};

/// `tf.raw_ops.LSTMBlockCell`: op LSTMBlockCell (default name "LSTMBlockCell"), one LSTM step:
/// `[i, ci, f, o] = [x, h_prev] * w + b`, `i = sigmoid(i + cs_prev * wci)`, `f = sigmoid(f +
/// forget_bias + cs_prev * wcf)`, `ci = tanh(ci)`, `cs = clip(ci * i + cs_prev * f)`, `o =
/// sigmoid(o + cs * wco)`, `co = tanh(cs)`, `h = co * o` (peephole terms only with
/// use_peephole). Outputs `[batch, cell]` (batch from x, cell from cs_prev). Running fails
/// with TensorFlow's messages: "cs_prev.dims(0) != batch_size: 3 vs. 2", "w.dim_size(0) !=
/// input_size + cell_size: 8 vs. 7", "b.dim_size(0) != cell_size * 4: 17 vs. 16",
/// "wci.dim_size(0) != cell_size: 5 vs. 4", "x must be rank 2 but is rank 1", "cs_prev_tensor
/// is empty, has shape: (0,4)." (an empty batch or cell). Gradient: contrib's
/// _LSTMBlockCellGrad, an LSTMBlockCellGrad of the gradients of cs and h (the other outputs'
/// are ignored), a MatMul by `w` sliced into x's and h_prev's, a MatMul of `[x, h_prev]` for
/// w's and a BiasAddGrad for b's.
LSTMBlockOutputs lstm_block_cell(const LSTMBlockCellInputs& in, const LSTMBlockAttrs& attrs = {},
                                 std::string_view name = {});

/// What LSTMBlockCellGrad returns.
struct LSTMBlockCellGradOutputs {
  Output cs_prev_grad;  ///< `[batch, cell]`
  Output dicfo;         ///< the gates' gradients, `[batch, 4 * cell]`, ICFO
  Output wci_grad;      ///< `[cell]`, zeros without use_peephole
  Output wcf_grad;      ///< `[cell]`, zeros without use_peephole
  Output wco_grad;      ///< `[cell]`, zeros without use_peephole
};

/// `tf.raw_ops.LSTMBlockCellGrad`: op LSTMBlockCellGrad (default name "LSTMBlockCellGrad"),
/// LSTMBlockCell's backward step from the forward op's inputs `in`, its outputs `out` (`out.h`
/// is not used) and the gradients `cs_grad` and `h_grad` of cs and h. The clip of cs passes
/// the gradient unchanged, as TensorFlow's. Running fails as LSTMBlockCell does and with "i
/// must be rank 2 but is rank 1", "o.dim_size(0) != batch_size: 3 vs. 2", "h_grad_tensor.dims(1)
/// != cell_size: 5 vs. 4". Not differentiable (TensorFlow registers no gradient).
LSTMBlockCellGradOutputs lstm_block_cell_grad(const LSTMBlockCellInputs& in,
                                              const LSTMBlockOutputs& out, const Output& cs_grad,
                                              const Output& h_grad, bool use_peephole,
                                              std::string_view name = {});

/// The inputs of BlockLSTM, BlockLSTMV2 and their gradient ops.
struct BlockLSTMInputs {
  Output seq_len_max;  ///< an int64 scalar: the steps to run, in [0, time]
  Output x;            ///< time-major `[time, batch, input]`
  Output cs_prev;      ///< the initial cell state, `[batch, cell]`
  Output h_prev;       ///< the initial output, `[batch, cell]`
  Output w;            ///< `[input + cell, 4 * cell]`
  Output wci;          ///< `[cell]`
  Output wcf;          ///< `[cell]`
  Output wco;          ///< `[cell]`
  Output b;            ///< `[4 * cell]`
};

/// `tf.raw_ops.BlockLSTM` (tf.contrib.rnn.LSTMBlockFusedCell): op BlockLSTM (default name
/// "BlockLSTM"), LSTMBlockCell run over the first `seq_len_max` steps of `x`, each step's cs
/// and h the next one's cs_prev and h_prev. Outputs `[time, batch, cell]` (cell from b's length
/// / 4: "Dimension size must be evenly divisible by 4 but is 18" while building); after
/// seq_len_max every output is zeros (TensorFlow zeroes cs and h and leaves the others unset).
/// Running fails with TensorFlow's messages: "seq_len_max must be between 0 and 3 but is 4",
/// "`seq_len_max_tensor` must be rank 0 but is rank 1", "x must be 3D", "cs_prev must be 2D",
/// "h_prev.dims(1) != cell_size: 5 vs. 4", "wcf.dim_size(0) != cell_size: 5 vs. 4",
/// "b.dim_size(0) != cell_size * 4: 20 vs. 16". Gradient: BlockLSTMGrad of the gradients of cs
/// and h (rnn_grad.py), none for seq_len_max.
LSTMBlockOutputs block_lstm(const BlockLSTMInputs& in, const LSTMBlockAttrs& attrs = {},
                            std::string_view name = {});

/// `tf.raw_ops.BlockLSTMV2` (Keras' fused LSTM layout): op BlockLSTMV2 (default name
/// "BlockLSTMV2"), BlockLSTM with the gates of `w` and `b` in the order i, f, c, o, no
/// forget_bias, and `cell_clip` 0 (no clip) by default. Errors as BlockLSTM's. Gradient: as
/// TensorFlow's rnn_grad.py registers it, BlockLSTMGrad (not BlockLSTMGradV2), which reads the
/// gate gradients in BlockLSTM's order: w's and b's gradients come with the c and f blocks
/// swapped and x's, h_prev's and cs_prev's are off, exactly as TensorFlow computes them.
LSTMBlockOutputs block_lstm_v2(const BlockLSTMInputs& in, float cell_clip = 0.0f,
                               bool use_peephole = false, std::string_view name = {});

/// What BlockLSTMGrad and BlockLSTMGradV2 return, each shaped as its input.
struct BlockLSTMGradOutputs {
  Output x_grad;        ///< `[time, batch, input]`, zeros after seq_len_max
  Output cs_prev_grad;  ///< `[batch, cell]`
  Output h_prev_grad;   ///< `[batch, cell]`
  Output w_grad;        ///< `[input + cell, 4 * cell]`
  Output wci_grad;      ///< `[cell]`, zeros without use_peephole
  Output wcf_grad;      ///< `[cell]`, zeros without use_peephole
  Output wco_grad;      ///< `[cell]`, zeros without use_peephole
  Output b_grad;        ///< `[4 * cell]`
};

/// `tf.raw_ops.BlockLSTMGrad`: op BlockLSTMGrad (default name "BlockLSTMGrad"), BlockLSTM's
/// backward pass from its inputs `in`, its outputs `out` and the gradients `cs_grad` and
/// `h_grad` (`[time, batch, cell]`) of its cs and h, last step first; the gradient of each
/// step's cs and h adds to what flows back from the later steps. Running fails with
/// TensorFlow's messages: "w matrix columns must be a positive multiple of 4, but got 17", "w
/// matrix rows don't match: 7 vs. 8", "w and b cell_size don't match: 4 vs. 20", "i must be
/// rank 3. Received: 2", "seq_len_max must be between 0 and 3 but is 4", and where TensorFlow
/// reads out of bounds: "cs_prev.dims(0) != batch_size: 3 vs. 2", "wci.dim_size(0) !=
/// cell_size: 5 vs. 4", "h_grad.dims(1) != batch_size: 3 vs. 2", "cs has time dimension 2,
/// less than seq_len_max 3". Not differentiable (TensorFlow registers no gradient).
BlockLSTMGradOutputs block_lstm_grad(const BlockLSTMInputs& in, const LSTMBlockOutputs& out,
                                     const Output& cs_grad, const Output& h_grad, bool use_peephole,
                                     std::string_view name = {});

/// `tf.raw_ops.BlockLSTMGradV2`: op BlockLSTMGradV2 (default name "BlockLSTMGradV2"),
/// BlockLSTMGrad with the gates in BlockLSTMV2's order i, f, c, o: the true gradient of
/// BlockLSTMV2 (which TensorFlow's registered gradient does not use). Errors as
/// BlockLSTMGrad's. Not differentiable.
BlockLSTMGradOutputs block_lstm_grad_v2(const BlockLSTMInputs& in, const LSTMBlockOutputs& out,
                                        const Output& cs_grad, const Output& h_grad,
                                        bool use_peephole, std::string_view name = {});

/// The inputs of GRUBlockCell and GRUBlockCellGrad.
struct GRUBlockCellInputs {
  Output x;       ///< `[batch, input]`
  Output h_prev;  ///< `[batch, cell]`
  Output w_ru;    ///< the reset and update gates' weights, `[input + cell, 2 * cell]`
  Output w_c;     ///< the candidate's weights, `[input + cell, cell]`
  Output b_ru;    ///< `[2 * cell]`
  Output b_c;     ///< `[cell]`
};

/// The outputs of GRUBlockCell, each `[batch, cell]`.
struct GRUBlockCellOutputs {
  Output r;  ///< the reset gate
  Output u;  ///< the update gate
  Output c;  ///< the candidate
  Output h;  ///< the new state
};

/// `tf.raw_ops.GRUBlockCell` (tf.contrib.rnn.GRUBlockCell): op GRUBlockCell (default name
/// "GRUBlockCell"), one GRU step: `[r, u] = sigmoid([x, h_prev] * w_ru + b_ru)`, `c =
/// tanh([x, h_prev * r] * w_c + b_c)`, `h = u * h_prev + (1 - u) * c`. Running fails with
/// TensorFlow's messages: "Rank of x must be 2, got 1", "h_prev.dims(0) != batch_size: 3 vs.
/// 2", "w_ru.dim_size(1) != cell_size * 2: 9 vs. 8", "w_c.dim_size(0) != input_size +
/// cell_size: 8 vs. 7", "b_c.dim_size(0) != cell_size: 5 vs. 4". Gradient: contrib's
/// _GRUBlockCellGrad, a GRUBlockCellGrad of h's gradient (the other outputs' are ignored),
/// MatMuls of `[x, h_prev]` and `[x, h_prev * r]` for the weights and BiasAddGrads for the
/// biases.
GRUBlockCellOutputs gru_block_cell(const GRUBlockCellInputs& in, std::string_view name = {});

/// What GRUBlockCellGrad returns.
struct GRUBlockCellGradOutputs {
  Output d_x;            ///< `[batch, input]`
  Output d_h_prev;       ///< `[batch, cell]`
  Output d_c_bar;        ///< the candidate's pre-activation gradient, `[batch, cell]`
  Output d_r_bar_u_bar;  ///< the gates' pre-activation gradients, `[batch, 2 * cell]`
};

/// `tf.raw_ops.GRUBlockCellGrad`: op GRUBlockCellGrad (default name "GRUBlockCellGrad"),
/// GRUBlockCell's backward step from its inputs `in`, its outputs `out` (`out.h` is not used)
/// and `d_h`, h's gradient. Running fails as GRUBlockCell does and with "Rank of r must be 2,
/// got 1", "d_h.dims(1) != cell_size: 5 vs. 4" (TensorFlow names w_c in c's rank message:
/// "Rank of w_c must be 2, got 1"). Not differentiable.
GRUBlockCellGradOutputs gru_block_cell_grad(const GRUBlockCellInputs& in,
                                            const GRUBlockCellOutputs& out, const Output& d_h,
                                            std::string_view name = {});

}  // namespace af::rnn
