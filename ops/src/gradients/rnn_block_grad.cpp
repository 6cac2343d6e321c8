// Gradients of the fused recurrent cells: LSTMBlockCell's and GRUBlockCell's as tf.contrib.rnn
// registered them (lstm_ops.py's _LSTMBlockCellGrad, gru_ops.py's _GRUBlockCellGrad; TensorFlow
// 2 registers none), BlockLSTM's and BlockLSTMV2's as tensorflow/python/ops/rnn_grad.py does
// (both BlockLSTMGrad). Only the gradients of cs and h (GRU: h) flow back, as there; the
// gradient ops themselves have none.
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/nn_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "actorflow/ops/rnn_block_ops.hpp"
#include "gradient_helpers.hpp"

namespace af::detail {

namespace {

using Grads = std::vector<Output>;
using Index = std::int64_t;

bool use_peephole_of(const Operation& op) {
  auto v = op.node_def().attr<bool>("use_peephole");
  return v ? *v : false;
}

// Dimension `i` of a rank-2 static shape, -1 when unknown.
Index dim(const Output& t, int i) {
  const PartialShape& s = t.shape();
  return s.rank_known() ? s.dim(i) : -1;
}

rnn::LSTMBlockOutputs lstm_outputs(const Operation& op) {
  return {op.output(0), op.output(1), op.output(2), op.output(3),
          op.output(4), op.output(5), op.output(6)};
}

// _LSTMBlockCellGrad: LSTMBlockCellGrad of the gradients of cs and h; x's and h_prev's
// gradients slices of dicfo * w^T, w's [x, h_prev]^T * dicfo, b's BiasAddGrad(dicfo). Like the
// Python, it needs x's columns and cs_prev's known while building (batch may be unknown: -1).
Grads lstm_block_cell_grad(const Operation& op, const Grads& g) {
  const rnn::LSTMBlockCellInputs in{input(op, 0), input(op, 1), input(op, 2), input(op, 3),
                                    input(op, 4), input(op, 5), input(op, 6), input(op, 7)};
  const Index batch = dim(in.x, 0), input_size = dim(in.x, 1), cell = dim(in.cs_prev, 1);
  if (input_size < 0)
    throw InvalidArgumentError(invalid_argument("gradient of '" + op.name() +
                                                "': input_size from `x` should not be None."));
  if (cell < 0)
    throw InvalidArgumentError(invalid_argument("gradient of '" + op.name() +
                                                "': cell_size from `cs_prev` should not be None."));
  const rnn::LSTMBlockCellGradOutputs grad = rnn::lstm_block_cell_grad(
      in, lstm_outputs(op), g[1], g[6], use_peephole_of(op), "LSTMBlockCellGrad");
  const Output xh_grad = matmul(grad.dicfo, in.w, false, true, "MatMul");
  const Output x_grad = slice(xh_grad, {0, 0}, {batch, input_size}, "Slice");
  const Output h_prev_grad = slice(xh_grad, {0, input_size}, {batch, cell}, "Slice_1");
  const Output xh = concat({in.x, in.h_prev}, 1, "concat");
  const Output w_grad = matmul(xh, grad.dicfo, true, false, "MatMul_1");
  const Output b_grad = nn::bias_add_grad(grad.dicfo, "BiasAddGrad");
  return {x_grad,        grad.cs_prev_grad, h_prev_grad,   w_grad,
          grad.wci_grad, grad.wcf_grad,     grad.wco_grad, b_grad};
}

// _GRUBlockCellGrad: GRUBlockCellGrad of h's gradient; the weights' gradients [x, h_prev]^T *
// d_r_bar_u_bar and [x, h_prev * r]^T * d_c_bar, the biases' BiasAddGrads of the two.
Grads gru_block_cell_grad(const Operation& op, const Grads& g) {
  const rnn::GRUBlockCellInputs in{input(op, 0), input(op, 1), input(op, 2),
                                   input(op, 3), input(op, 4), input(op, 5)};
  const rnn::GRUBlockCellOutputs out{op.output(0), op.output(1), op.output(2), op.output(3)};
  const rnn::GRUBlockCellGradOutputs grad =
      rnn::gru_block_cell_grad(in, out, g[3], "GRUBlockCellGrad");
  const Output x_h_prev = concat({in.x, in.h_prev}, 1, "concat");
  const Output d_w_ru = matmul(x_h_prev, grad.d_r_bar_u_bar, true, false, "MatMul");
  const Output d_b_ru = nn::bias_add_grad(grad.d_r_bar_u_bar, "BiasAddGrad");
  const Output x_h_prevr = concat({in.x, mul(in.h_prev, out.r, "mul")}, 1, "concat_1");
  const Output d_w_c = matmul(x_h_prevr, grad.d_c_bar, true, false, "MatMul_1");
  const Output d_b_c = nn::bias_add_grad(grad.d_c_bar, "BiasAddGrad_1");
  return {grad.d_x, grad.d_h_prev, d_w_ru, d_w_c, d_b_ru, d_b_c};
}

// rnn_grad.py's _block_lstm_grad, for BlockLSTM and BlockLSTMV2 alike: BlockLSTMGrad of the
// gradients of cs and h; seq_len_max gets none.
Grads block_lstm_grad(const Operation& op, const Grads& g) {
  const rnn::BlockLSTMInputs in{input(op, 0), input(op, 1), input(op, 2),
                                input(op, 3), input(op, 4), input(op, 5),
                                input(op, 6), input(op, 7), input(op, 8)};
  const rnn::BlockLSTMGradOutputs grad =
      rnn::block_lstm_grad(in, lstm_outputs(op), g[1], g[6], use_peephole_of(op), "BlockLSTMGrad");
  return {Output(),      grad.x_grad,   grad.cs_prev_grad, grad.h_prev_grad, grad.w_grad,
          grad.wci_grad, grad.wcf_grad, grad.wco_grad,     grad.b_grad};
}

}  // namespace

void register_rnn_block_gradients(GradientRegistry& r) {
  r.add("LSTMBlockCell", lstm_block_cell_grad);
  r.add("GRUBlockCell", gru_block_cell_grad);
  // TensorFlow registers BlockLSTMGrad (gates in ICFO order) for BlockLSTMV2 too, not
  // BlockLSTMGradV2; the same graph gives TensorFlow's values.
  r.add("BlockLSTM", block_lstm_grad);
  r.add("BlockLSTMV2", block_lstm_grad);
}

}  // namespace af::detail
