// LSTMBlockCell, LSTMBlockCellGrad, GRUBlockCell, GRUBlockCellGrad, BlockLSTM, BlockLSTMV2,
// BlockLSTMGrad and BlockLSTMGradV2: CPU kernels with TensorFlow's checks and messages
// (tensorflow/core/kernels/rnn/lstm_ops.cc, gru_ops.cc). TensorFlow registers them for half
// and float on the CPU (GRU: float); half computes in float here. The arithmetic is in
// rnn_block_helpers.hpp, the definitions in ops/src/defs/rnn_block_ops.cpp.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "kernel_helpers.hpp"
#include "rnn_block_helpers.hpp"
#include "standard_kernels.hpp"
#include "via_float_kernel.hpp"

namespace af {

namespace {

using detail::StatusKernel;
using detail::rnn::CellShape;
using detail::rnn::GateLayout;
using detail::rnn::Index;
using detail::rnn::LstmAttrs;
using detail::rnn::LstmStepGradInputs;
using detail::rnn::LstmStepInputs;
using detail::rnn::LstmStepOutputs;

std::string str(Index v) { return std::to_string(v); }

// TensorFlow's "<what>: <actual> vs. <expected>" unless the two agree.
Status dim_is(Index actual, Index expected, const std::string& what) {
  if (actual == expected) return {};
  return invalid_argument(what + ": " + str(actual) + " vs. " + str(expected));
}

// "<name> must be rank R but is rank K" (the rank checks of TensorFlow's current lstm_ops.cc).
Status rank_is(const Tensor& t, int rank, const std::string& name) {
  if (t.rank() == rank) return {};
  return invalid_argument(name + " must be rank " + str(rank) + " but is rank " + str(t.rank()));
}

const float* floats(const Tensor& t) { return t.data<float>(); }

// The kernels all run matrix products: worth a pool thread.
class RnnKernel : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;
  bool is_expensive(const OpKernelContext& /*ctx*/) const override { return true; }
};

// Outputs [0, N) allocated as float tensors of `shape`; their data.
template <int N>
std::array<float*, N> allocate_float_outputs(OpKernelContext& ctx, const Shape& shape) {
  std::array<float*, N> out{};
  for (int k = 0; k < N; ++k) out[k] = ctx.allocate_output(k, DType::float32, shape).data<float>();
  return out;
}

// The activations (i, cs, f, o, ci, co, h: the forward LSTM ops' seven outputs) of the step
// at element `at` of each.
LstmStepOutputs lstm_outputs_at(const std::array<float*, 7>& out, Index at) {
  return {out[0] + at, out[1] + at, out[2] + at, out[3] + at,
          out[4] + at, out[5] + at, out[6] + at};
}

// -- LSTMBlockCell and LSTMBlockCellGrad -----------------------------------------------------

// The checks both cell ops make of x, cs_prev, h_prev, w, wci, wcf, wco and b (inputs 0-7);
// `*s` gets the step's sizes. The ranks come first, as in TensorFlow's current kernel
// (TensorFlow 2.21 reads dimension 1 of x before checking its rank, aborting the process).
Status check_lstm_cell_inputs(const OpKernelContext& ctx, CellShape* s) {
  static const char* const kNames[] = {"x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"};
  for (int k = 0; k < 8; ++k)
    ACTORFLOW_RETURN_IF_ERROR(rank_is(ctx.input(k), k < 4 ? 2 : 1, kNames[k]));
  const Tensor& x = ctx.input(0);
  const Tensor& cs_prev = ctx.input(1);
  const Tensor& h_prev = ctx.input(2);
  const Tensor& w = ctx.input(3);
  s->batch = x.shape().dim(0);
  s->input = x.shape().dim(1);
  s->cell = cs_prev.shape().dim(1);
  const Index batch = s->batch, cell = s->cell;
  ACTORFLOW_RETURN_IF_ERROR(dim_is(cs_prev.shape().dim(0), batch, "cs_prev.dims(0) != batch_size"));
  ACTORFLOW_RETURN_IF_ERROR(dim_is(h_prev.shape().dim(0), batch, "h_prev.dims(0) != batch_size"));
  ACTORFLOW_RETURN_IF_ERROR(dim_is(h_prev.shape().dim(1), cell, "h_prev.dims(1) != cell_size"));
  ACTORFLOW_RETURN_IF_ERROR(
      dim_is(w.shape().dim(0), s->input + cell, "w.dim_size(0) != input_size + cell_size"));
  ACTORFLOW_RETURN_IF_ERROR(dim_is(w.shape().dim(1), cell * 4, "w.dim_size(1) != cell_size * 4"));
  ACTORFLOW_RETURN_IF_ERROR(
      dim_is(ctx.input(7).shape().dim(0), cell * 4, "b.dim_size(0) != cell_size * 4"));
  // A peephole weight of another length would be read out of bounds: checked with or without
  // use_peephole, as TensorFlow's current kernel does (2.21 does not check).
  for (int k = 4; k < 7; ++k)
    ACTORFLOW_RETURN_IF_ERROR(dim_is(ctx.input(k).shape().dim(0), cell,
                                     std::string(kNames[k]) + ".dim_size(0) != cell_size"));
  if (batch == 0 || cell == 0)
    return invalid_argument("cs_prev_tensor is empty, has shape: (" + str(batch) + "," + str(cell) +
                            ").");
  return {};
}

LstmStepInputs lstm_step_inputs(const OpKernelContext& ctx, int first) {
  return {floats(ctx.input(first)),     floats(ctx.input(first + 1)), floats(ctx.input(first + 2)),
          floats(ctx.input(first + 3)), floats(ctx.input(first + 4)), floats(ctx.input(first + 5)),
          floats(ctx.input(first + 6)), floats(ctx.input(first + 7))};
}

// LSTMBlockCell(x, cs_prev, h_prev, w, wci, wcf, wco, b) -> (i, cs, f, o, ci, co, h), each
// [batch, cell], gates in ICFO order.
class LSTMBlockCellOp : public RnnKernel {
 public:
  LSTMBlockCellOp(OpKernelConstruction& c, Status* s) : RnnKernel(c) {
    *s = c.get_attr("forget_bias", &attrs_.forget_bias);
    if (s->ok()) *s = c.get_attr("cell_clip", &attrs_.cell_clip);
    if (s->ok()) *s = c.get_attr("use_peephole", &attrs_.use_peephole);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    CellShape s;
    ACTORFLOW_RETURN_IF_ERROR(check_lstm_cell_inputs(ctx, &s));
    const auto out = allocate_float_outputs<7>(ctx, Shape{s.batch, s.cell});
    std::vector<float> xh, gates;
    detail::rnn::lstm_step_forward(ctx, s, attrs_, lstm_step_inputs(ctx, 0),
                                   lstm_outputs_at(out, 0), xh, gates);
    return {};
  }

 private:
  LstmAttrs attrs_;
};

// LSTMBlockCellGrad(x, cs_prev, h_prev, w, wci, wcf, wco, b, i, cs, f, o, ci, co, cs_grad,
// h_grad) -> (cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad); the peephole gradients are
// zeros without use_peephole.
class LSTMBlockCellGradOp : public RnnKernel {
 public:
  LSTMBlockCellGradOp(OpKernelConstruction& c, Status* s) : RnnKernel(c) {
    *s = c.get_attr("use_peephole", &use_peephole_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    CellShape s;
    ACTORFLOW_RETURN_IF_ERROR(check_lstm_cell_inputs(ctx, &s));
    static const char* const kStates[] = {"i", "cs", "f", "o", "ci", "co"};
    for (int k = 0; k < 6; ++k) {
      const Tensor& t = ctx.input(8 + k);
      ACTORFLOW_RETURN_IF_ERROR(rank_is(t, 2, kStates[k]));
      const std::string name = kStates[k];
      ACTORFLOW_RETURN_IF_ERROR(
          dim_is(t.shape().dim(0), s.batch, name + ".dim_size(0) != batch_size"));
      // TensorFlow's message names i for f's second dimension.
      ACTORFLOW_RETURN_IF_ERROR(
          dim_is(t.shape().dim(1), s.cell,
                 (k == 2 ? std::string("i") : name) + ".dim_size(1) != cell_size"));
    }
    static const char* const kGrads[] = {"cs_grad_tensor", "h_grad_tensor"};
    for (int k = 0; k < 2; ++k) {
      const Tensor& t = ctx.input(14 + k);
      ACTORFLOW_RETURN_IF_ERROR(rank_is(t, 2, k == 0 ? "cs_grad" : "h_grad"));
      const std::string name = kGrads[k];
      ACTORFLOW_RETURN_IF_ERROR(dim_is(t.shape().dim(0), s.batch, name + ".dims(0) != batch_size"));
      ACTORFLOW_RETURN_IF_ERROR(dim_is(t.shape().dim(1), s.cell, name + ".dims(1) != cell_size"));
    }
    float* cs_prev_grad =
        ctx.allocate_output(0, DType::float32, Shape{s.batch, s.cell}).data<float>();
    float* dgates =
        ctx.allocate_output(1, DType::float32, Shape{s.batch, 4 * s.cell}).data<float>();
    float* peephole[3];
    for (int k = 0; k < 3; ++k)
      peephole[k] = ctx.allocate_output(2 + k, DType::float32, Shape{s.cell}).data<float>();
    const LstmStepGradInputs g{
        lstm_step_inputs(ctx, 0), floats(ctx.input(8)),  floats(ctx.input(9)),
        floats(ctx.input(10)),    floats(ctx.input(11)), floats(ctx.input(12)),
        floats(ctx.input(13)),    floats(ctx.input(14)), floats(ctx.input(15))};
    detail::rnn::lstm_step_backward(s, GateLayout::icfo, use_peephole_, g, dgates, cs_prev_grad,
                                    peephole[0], peephole[1], peephole[2]);
    return {};
  }

 private:
  bool use_peephole_ = false;
};

// -- GRUBlockCell and GRUBlockCellGrad --------------------------------------------------------

// gru_ops.cc's checks of x, h_prev, w_ru, w_c, b_ru and b_c (inputs 0-5), its messages word
// for word ("w_ru_" included).
Status check_gru_inputs(const OpKernelContext& ctx, CellShape* s) {
  const Tensor& x = ctx.input(0);
  const Tensor& h_prev = ctx.input(1);
  const Tensor& w_ru = ctx.input(2);
  const Tensor& w_c = ctx.input(3);
  const Tensor& b_ru = ctx.input(4);
  const Tensor& b_c = ctx.input(5);
  if (x.rank() != 2) return invalid_argument("Rank of x must be 2, got " + str(x.rank()));
  s->batch = x.shape().dim(0);
  s->input = x.shape().dim(1);
  if (h_prev.rank() != 2)
    return invalid_argument("Rank of h_prev must be 2, got " + str(h_prev.rank()));
  ACTORFLOW_RETURN_IF_ERROR(
      dim_is(h_prev.shape().dim(0), s->batch, "h_prev.dims(0) != batch_size"));
  s->cell = h_prev.shape().dim(1);
  const Index cell = s->cell, width = s->input + cell;
  if (w_ru.rank() != 2) return invalid_argument("Rank of w_ru_ must be 2, got " + str(w_ru.rank()));
  ACTORFLOW_RETURN_IF_ERROR(
      dim_is(w_ru.shape().dim(0), width, "w_ru.dim_size(0) != input_size + cell_size"));
  ACTORFLOW_RETURN_IF_ERROR(
      dim_is(w_ru.shape().dim(1), cell * 2, "w_ru.dim_size(1) != cell_size * 2"));
  if (w_c.rank() != 2) return invalid_argument("Rank of w_c must be 2, got " + str(w_c.rank()));
  ACTORFLOW_RETURN_IF_ERROR(
      dim_is(w_c.shape().dim(0), width, "w_c.dim_size(0) != input_size + cell_size"));
  ACTORFLOW_RETURN_IF_ERROR(dim_is(w_c.shape().dim(1), cell, "w_c.dim_size(1) != cell_size"));
  if (b_ru.rank() != 1) return invalid_argument("Rank of b_ru must be 1, got " + str(b_ru.rank()));
  ACTORFLOW_RETURN_IF_ERROR(
      dim_is(b_ru.shape().dim(0), cell * 2, "b_ru.dim_size(0) != cell_size * 2"));
  if (b_c.rank() != 1) return invalid_argument("Rank of b_c must be 1, got " + str(b_c.rank()));
  return dim_is(b_c.shape().dim(0), cell, "b_c.dim_size(0) != cell_size");
}

detail::rnn::GruStepInputs gru_step_inputs(const OpKernelContext& ctx) {
  return {floats(ctx.input(0)), floats(ctx.input(1)), floats(ctx.input(2)),
          floats(ctx.input(3)), floats(ctx.input(4)), floats(ctx.input(5))};
}

// GRUBlockCell(x, h_prev, w_ru, w_c, b_ru, b_c) -> (r, u, c, h), each [batch, cell].
class GRUBlockCellOp : public RnnKernel {
 public:
  GRUBlockCellOp(OpKernelConstruction& c, Status* s) : RnnKernel(c) { *s = {}; }

 protected:
  Status run(OpKernelContext& ctx) override {
    CellShape s;
    ACTORFLOW_RETURN_IF_ERROR(check_gru_inputs(ctx, &s));
    const auto out = allocate_float_outputs<4>(ctx, Shape{s.batch, s.cell});
    if (s.batch == 0 || s.cell == 0) return {};
    detail::rnn::gru_step_forward(ctx, s, gru_step_inputs(ctx), out[0], out[1], out[2], out[3]);
    return {};
  }
};

// GRUBlockCellGrad(x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h) -> (d_x, d_h_prev, d_c_bar,
// d_r_bar_u_bar).
class GRUBlockCellGradOp : public RnnKernel {
 public:
  GRUBlockCellGradOp(OpKernelConstruction& c, Status* s) : RnnKernel(c) { *s = {}; }

 protected:
  Status run(OpKernelContext& ctx) override {
    CellShape s;
    ACTORFLOW_RETURN_IF_ERROR(check_gru_inputs(ctx, &s));
    // gru_ops.cc names w_c in the rank message of c.
    static const char* const kRankNames[] = {"r", "u", "w_c", "d_h"};
    static const char* const kNames[] = {"r", "u", "c", "d_h"};
    for (int k = 0; k < 4; ++k) {
      const Tensor& t = ctx.input(6 + k);
      if (t.rank() != 2)
        return invalid_argument("Rank of " + std::string(kRankNames[k]) + " must be 2, got " +
                                str(t.rank()));
      const std::string name = kNames[k];
      ACTORFLOW_RETURN_IF_ERROR(dim_is(t.shape().dim(0), s.batch, name + ".dims(0) != batch_size"));
      ACTORFLOW_RETURN_IF_ERROR(dim_is(t.shape().dim(1), s.cell, name + ".dims(1) != cell_size"));
    }
    float* d_x = ctx.allocate_output(0, DType::float32, Shape{s.batch, s.input}).data<float>();
    float* d_h_prev = ctx.allocate_output(1, DType::float32, Shape{s.batch, s.cell}).data<float>();
    float* d_c_bar = ctx.allocate_output(2, DType::float32, Shape{s.batch, s.cell}).data<float>();
    float* d_ru = ctx.allocate_output(3, DType::float32, Shape{s.batch, 2 * s.cell}).data<float>();
    if (s.batch == 0) return {};
    detail::rnn::gru_step_backward(ctx, s, gru_step_inputs(ctx), floats(ctx.input(6)),
                                   floats(ctx.input(7)), floats(ctx.input(8)), floats(ctx.input(9)),
                                   d_x, d_h_prev, d_c_bar, d_ru);
    return {};
  }
};

// -- BlockLSTM and BlockLSTMV2 ----------------------------------------------------------------

// seq_len_max: an int64 scalar.
Status seq_len_max_value(const Tensor& t, Index* out) {
  if (t.rank() != 0)
    return invalid_argument("`seq_len_max_tensor` must be rank 0 but is rank " + str(t.rank()));
  *out = t.data<std::int64_t>()[0];
  return {};
}

// seq_len_max in [0, timelen] (TensorFlow 2.21 sliced past x's end, aborting the process).
Status seq_len_max_in_range(Index seq_len_max, Index timelen) {
  if (seq_len_max >= 0 && seq_len_max <= timelen) return {};
  return invalid_argument("seq_len_max must be between 0 and " + str(timelen) + " but is " +
                          str(seq_len_max));
}

// BlockLSTM(seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b) -> (i, cs, f, o, ci, co, h),
// each [timelen, batch, cell]: the cell run over the first seq_len_max steps of the time-major
// x; cs and h are zeros after them (the other outputs too, where TensorFlow leaves them
// unset). BlockLSTMV2 orders its gates IFCO and has no forget_bias (0).
class BlockLSTMOp : public RnnKernel {
 public:
  BlockLSTMOp(OpKernelConstruction& c, Status* s) : RnnKernel(c) {
    attrs_.layout = c.def.op == "BlockLSTMV2" ? GateLayout::ifco : GateLayout::icfo;
    // The V2 op has no forget_bias attr.
    attrs_.forget_bias = 0.0f;
    *s = {};
    if (attrs_.layout == GateLayout::icfo) *s = c.get_attr("forget_bias", &attrs_.forget_bias);
    if (s->ok()) *s = c.get_attr("cell_clip", &attrs_.cell_clip);
    if (s->ok()) *s = c.get_attr("use_peephole", &attrs_.use_peephole);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    Index seq_len_max = 0;
    ACTORFLOW_RETURN_IF_ERROR(seq_len_max_value(ctx.input(0), &seq_len_max));
    const Tensor& x = ctx.input(1);
    if (x.rank() != 3) return invalid_argument("x must be 3D");
    const Index timelen = x.shape().dim(0);
    CellShape s{x.shape().dim(1), x.shape().dim(2), 0};
    const Tensor& cs_prev = ctx.input(2);
    if (cs_prev.rank() != 2) return invalid_argument("cs_prev must be 2D");
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(cs_prev.shape().dim(0), s.batch, "cs_prev.dims(0) != batch_size"));
    s.cell = cs_prev.shape().dim(1);
    const Tensor& h_prev = ctx.input(3);
    if (h_prev.rank() != 2) return invalid_argument("h_prev must be 2D");
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(h_prev.shape().dim(0), s.batch, "h_prev.dims(0) != batch_size"));
    ACTORFLOW_RETURN_IF_ERROR(dim_is(h_prev.shape().dim(1), s.cell, "h_prev.dims(1) != cell_size"));
    const Tensor& w = ctx.input(4);
    if (w.rank() != 2) return invalid_argument("w must be 2D");
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(w.shape().dim(0), s.input + s.cell, "w.dim_size(0) != input_size + cell_size"));
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(w.shape().dim(1), s.cell * 4, "w.dim_size(1) != cell_size * 4"));
    static const char* const kPeepholes[] = {"wci", "wcf", "wco"};
    for (int k = 0; k < 3; ++k) {
      const Tensor& p = ctx.input(5 + k);
      const std::string name = kPeepholes[k];
      if (p.rank() != 1) return invalid_argument(name + " must be 1D");
      ACTORFLOW_RETURN_IF_ERROR(
          dim_is(p.shape().dim(0), s.cell, name + ".dim_size(0) != cell_size"));
    }
    const Tensor& b = ctx.input(8);
    if (b.rank() != 1) return invalid_argument("b must be 1D");
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(b.shape().dim(0), s.cell * 4, "b.dim_size(0) != cell_size * 4"));
    const auto out = allocate_float_outputs<7>(ctx, Shape{timelen, s.batch, s.cell});
    ACTORFLOW_RETURN_IF_ERROR(seq_len_max_in_range(seq_len_max, timelen));
    const Index step = s.batch * s.cell;
    if (step == 0) return {};
    LstmStepInputs in = lstm_step_inputs(ctx, 1);
    std::vector<float> xh, gates;
    for (Index t = 0; t < seq_len_max; ++t) {
      in.x = floats(x) + t * s.batch * s.input;
      if (t > 0) {
        in.cs_prev = out[1] + (t - 1) * step;
        in.h_prev = out[6] + (t - 1) * step;
      }
      const Index at = t * step;
      detail::rnn::lstm_step_forward(ctx, s, attrs_, in, lstm_outputs_at(out, at), xh, gates);
    }
    return {};
  }

 private:
  LstmAttrs attrs_;
};

// -- BlockLSTMGrad and BlockLSTMGradV2 --------------------------------------------------------

// BlockLSTMGrad(seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b, i, cs, f, o, ci, co, h,
// cs_grad, h_grad) -> (x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad,
// wco_grad, b_grad): back through the first seq_len_max steps, last first, the gradient of
// each step's cs and h added to what flows back from the step after; x_grad is zeros after
// seq_len_max. BlockLSTMGradV2 reads its gates IFCO.
class BlockLSTMGradOp : public RnnKernel {
 public:
  BlockLSTMGradOp(OpKernelConstruction& c, Status* s) : RnnKernel(c) {
    layout_ = c.def.op == "BlockLSTMGradV2" ? GateLayout::ifco : GateLayout::icfo;
    *s = c.get_attr("use_peephole", &use_peephole_);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    Index seq_len_max = 0;
    ACTORFLOW_RETURN_IF_ERROR(seq_len_max_value(ctx.input(0), &seq_len_max));
    const Tensor& x = ctx.input(1);
    ACTORFLOW_RETURN_IF_ERROR(rank_is(x, 3, "x"));
    const Index timelen = x.shape().dim(0);
    CellShape s{x.shape().dim(1), x.shape().dim(2), 0};
    const Tensor& cs_prev = ctx.input(2);
    const Tensor& h_prev = ctx.input(3);
    const Tensor& w = ctx.input(4);
    ACTORFLOW_RETURN_IF_ERROR(rank_is(cs_prev, 2, "cs_prev"));
    ACTORFLOW_RETURN_IF_ERROR(rank_is(h_prev, 2, "h_prev"));
    ACTORFLOW_RETURN_IF_ERROR(rank_is(w, 2, "w"));
    const Index columns = w.shape().dim(1);
    if (columns <= 0 || columns % 4 != 0)
      return invalid_argument("w matrix columns must be a positive multiple of 4, but got " +
                              str(columns));
    s.cell = columns / 4;
    if (s.input + s.cell != w.shape().dim(0))
      return invalid_argument("w matrix rows don't match: " + str(s.input + s.cell) + " vs. " +
                              str(w.shape().dim(0)));
    static const char* const kPeepholes[] = {"wci", "wcf", "wco"};
    for (int k = 0; k < 3; ++k)
      ACTORFLOW_RETURN_IF_ERROR(rank_is(ctx.input(5 + k), 1, kPeepholes[k]));
    const Tensor& b = ctx.input(8);
    ACTORFLOW_RETURN_IF_ERROR(rank_is(b, 1, "b"));
    // TensorFlow 2.21 compared cell_size with b's length / 4, letting 4 * cell + 3 through.
    if (b.shape().dim(0) != 4 * s.cell)
      return invalid_argument("w and b cell_size don't match: " + str(s.cell) + " vs. " +
                              str(b.shape().dim(0)));
    static const char* const kStates[] = {"i", "cs", "f", "o", "ci", "co", "h"};
    for (int k = 0; k < 7; ++k) {
      const Tensor& t = ctx.input(9 + k);
      if (t.rank() != 3)
        return invalid_argument(std::string(kStates[k]) +
                                " must be rank 3. Received: " + str(t.rank()));
    }
    // What TensorFlow leaves unchecked (and reads out of bounds): the states' and gradients'
    // shapes and the peephole lengths.
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(cs_prev.shape().dim(0), s.batch, "cs_prev.dims(0) != batch_size"));
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(cs_prev.shape().dim(1), s.cell, "cs_prev.dims(1) != cell_size"));
    ACTORFLOW_RETURN_IF_ERROR(
        dim_is(h_prev.shape().dim(0), s.batch, "h_prev.dims(0) != batch_size"));
    ACTORFLOW_RETURN_IF_ERROR(dim_is(h_prev.shape().dim(1), s.cell, "h_prev.dims(1) != cell_size"));
    for (int k = 0; k < 3; ++k)
      ACTORFLOW_RETURN_IF_ERROR(dim_is(ctx.input(5 + k).shape().dim(0), s.cell,
                                       std::string(kPeepholes[k]) + ".dim_size(0) != cell_size"));
    ACTORFLOW_RETURN_IF_ERROR(seq_len_max_in_range(seq_len_max, timelen));
    static const char* const kSequences[] = {"i",  "cs", "f",       "o",     "ci",
                                             "co", "h",  "cs_grad", "h_grad"};
    for (int k = 0; k < 9; ++k) {
      const Tensor& t = ctx.input(9 + k);
      const std::string name = kSequences[k];
      if (t.rank() != 3)
        return invalid_argument(name + " must be rank 3 but is rank " + str(t.rank()));
      if (t.shape().dim(0) < seq_len_max)
        return invalid_argument(name + " has time dimension " + str(t.shape().dim(0)) +
                                ", less than seq_len_max " + str(seq_len_max));
      ACTORFLOW_RETURN_IF_ERROR(dim_is(t.shape().dim(1), s.batch, name + ".dims(1) != batch_size"));
      ACTORFLOW_RETURN_IF_ERROR(dim_is(t.shape().dim(2), s.cell, name + ".dims(2) != cell_size"));
    }
    float* x_grad = ctx.allocate_output(0, DType::float32, x.shape()).data<float>();
    float* cs_prev_grad = ctx.allocate_output(1, DType::float32, cs_prev.shape()).data<float>();
    float* h_prev_grad = ctx.allocate_output(2, DType::float32, h_prev.shape()).data<float>();
    float* w_grad = ctx.allocate_output(3, DType::float32, w.shape()).data<float>();
    float* peephole[3];
    for (int k = 0; k < 3; ++k)
      peephole[k] =
          ctx.allocate_output(4 + k, DType::float32, ctx.input(5 + k).shape()).data<float>();
    float* b_grad = ctx.allocate_output(7, DType::float32, b.shape()).data<float>();
    const Index step = s.batch * s.cell;
    if (step == 0) return {};
    backprop(ctx, s, seq_len_max, x_grad, cs_prev_grad, h_prev_grad, w_grad, peephole, b_grad);
    return {};
  }

 private:
  void backprop(const OpKernelContext& ctx, const CellShape& s, Index seq_len_max, float* x_grad,
                float* cs_prev_grad, float* h_prev_grad, float* w_grad, float* const* peephole,
                float* b_grad) const {
    const Index step = s.batch * s.cell, width = s.input + s.cell, gates = 4 * s.cell;
    std::vector<float> cs_grad(static_cast<std::size_t>(step)), h_grad(cs_grad.size());
    std::vector<float> dgates(static_cast<std::size_t>(s.batch * gates));
    std::vector<float> xh(static_cast<std::size_t>(s.batch * width)), xh_grad(xh.size());
    std::vector<float> w_step(static_cast<std::size_t>(width * gates));
    std::vector<float> b_step(static_cast<std::size_t>(gates));
    const float* seq[9];
    for (int k = 0; k < 9; ++k) seq[k] = floats(ctx.input(9 + k));
    const float* w = floats(ctx.input(4));
    for (Index t = seq_len_max - 1; t >= 0; --t) {
      const Index at = t * step;
      LstmStepInputs in = lstm_step_inputs(ctx, 1);
      in.x = floats(ctx.input(1)) + t * s.batch * s.input;
      if (t > 0) {
        in.cs_prev = seq[1] + at - step;
        in.h_prev = seq[6] + at - step;
      }
      // The gradient reaching this step: what the later steps sent back plus its own.
      for (Index k = 0; k < step; ++k) {
        cs_grad[static_cast<std::size_t>(k)] = cs_prev_grad[k] + seq[7][at + k];
        h_grad[static_cast<std::size_t>(k)] = h_prev_grad[k] + seq[8][at + k];
      }
      const LstmStepGradInputs g{in,          seq[0] + at,    seq[1] + at,
                                 seq[2] + at, seq[3] + at,    seq[4] + at,
                                 seq[5] + at, cs_grad.data(), h_grad.data()};
      detail::rnn::lstm_step_backward(s, layout_, use_peephole_, g, dgates.data(), cs_prev_grad,
                                      peephole[0], peephole[1], peephole[2]);
      // xh_grad = dgates * w^T, split into x's gradient and h_prev's.
      detail::rnn::gemm(ctx, dgates.data(), w, xh_grad.data(), s.batch, width, gates, false, true);
      for (Index r = 0; r < s.batch; ++r) {
        const float* row = xh_grad.data() + r * width;
        std::copy_n(row, s.input, x_grad + (t * s.batch + r) * s.input);
        std::copy_n(row + s.input, s.cell, h_prev_grad + r * s.cell);
      }
      // w_grad += [x, h_prev]^T * dgates; b_grad += the batch sum of dgates.
      detail::rnn::concat_rows(s, in.x, in.h_prev, xh.data());
      detail::rnn::gemm(ctx, xh.data(), dgates.data(), w_step.data(), width, gates, s.batch, true,
                        false);
      for (std::size_t k = 0; k < w_step.size(); ++k) w_grad[k] += w_step[k];
      std::fill(b_step.begin(), b_step.end(), 0.0f);
      for (Index r = 0; r < s.batch; ++r)
        for (Index j = 0; j < gates; ++j)
          b_step[static_cast<std::size_t>(j)] += dgates[static_cast<std::size_t>(r * gates + j)];
      for (Index j = 0; j < gates; ++j) b_grad[j] += b_step[static_cast<std::size_t>(j)];
    }
  }

  GateLayout layout_ = GateLayout::icfo;
  bool use_peephole_ = false;
};

}  // namespace

namespace detail {

void register_rnn_block_kernels(KernelRegistry& r) {
  const std::vector<std::pair<std::string, std::vector<DType>>> f32 = {{"T", {DType::float32}}};
  r.add(make_kernel_def<LSTMBlockCellOp>("LSTMBlockCell", "CPU", f32));
  r.add(make_kernel_def<LSTMBlockCellGradOp>("LSTMBlockCellGrad", "CPU", f32));
  r.add(make_kernel_def<GRUBlockCellOp>("GRUBlockCell", "CPU", f32));
  r.add(make_kernel_def<GRUBlockCellGradOp>("GRUBlockCellGrad", "CPU", f32));
  for (const char* type : {"BlockLSTM", "BlockLSTMV2"})
    r.add(make_kernel_def<BlockLSTMOp>(type, "CPU", f32));
  for (const char* type : {"BlockLSTMGrad", "BlockLSTMGradV2"})
    r.add(make_kernel_def<BlockLSTMGradOp>(type, "CPU", f32));
  // float16 through the float kernels, as TensorFlow's half kernels of the LSTMs.
  register_via_float<half_t>(r, "LSTMBlockCell", make_kernel_def<LSTMBlockCellOp>("", "").factory);
  register_via_float<half_t>(r, "LSTMBlockCellGrad",
                             make_kernel_def<LSTMBlockCellGradOp>("", "").factory);
  for (const char* type : {"BlockLSTM", "BlockLSTMV2"})
    register_via_float<half_t>(r, type, make_kernel_def<BlockLSTMOp>("", "").factory);
  for (const char* type : {"BlockLSTMGrad", "BlockLSTMGradV2"})
    register_via_float<half_t>(r, type, make_kernel_def<BlockLSTMGradOp>("", "").factory);
}

}  // namespace detail

}  // namespace af
