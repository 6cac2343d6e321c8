// The definitions of LSTMBlockCell, LSTMBlockCellGrad, GRUBlockCell, GRUBlockCellGrad,
// BlockLSTM, BlockLSTMV2, BlockLSTMGrad and BlockLSTMGradV2 (shape functions as TensorFlow's
// tensorflow/core/ops/rnn_ops.cc) and their builders (af::rnn, as gen_rnn_ops). Their CPU
// kernels are in kernels/src/rnn_block_ops.cpp, the gradients of the forward ops in
// ops/src/gradients/rnn_block_grad.cpp.
#include "actorflow/ops/rnn_block_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using Index = std::int64_t;
using detail::with_rank;
using rnn::BlockLSTMInputs;
using rnn::LSTMBlockAttrs;
using rnn::LSTMBlockOutputs;

// The input names of each op, as its OpDef lists them.
const std::vector<const char*> kLstmCellInputs = {"x",   "cs_prev", "h_prev", "w",
                                                  "wci", "wcf",     "wco",    "b"};
const std::vector<const char*> kLstmCellGradInputs = {
    "x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco",     "b",
    "i", "cs",      "f",      "o", "ci",  "co",  "cs_grad", "h_grad"};
const std::vector<const char*> kGruInputs = {"x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"};
const std::vector<const char*> kGruGradInputs = {"x",   "h_prev", "w_ru", "w_c", "b_ru",
                                                 "b_c", "r",      "u",    "c",   "d_h"};
const std::vector<const char*> kBlockInputs = {"seq_len_max", "x",   "cs_prev", "h_prev", "w",
                                               "wci",         "wcf", "wco",     "b"};
const std::vector<const char*> kBlockGradInputs = {
    "seq_len_max", "x",  "cs_prev", "h_prev", "w",  "wci", "wcf", "wco",     "b",
    "i",           "cs", "f",       "o",      "ci", "co",  "h",   "cs_grad", "h_grad"};

// The OpDef's inputs and types: `names.size()` inputs; input 0 an int64 seq_len_max when
// `seq_len_max`; the others of one type T in the list TensorFlow allows (`allowed_names`),
// of which actorflow has float.
Status check_inputs(const InferenceContext& c, const std::vector<const char*>& names,
                    bool seq_len_max, const char* allowed_names) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(static_cast<int>(names.size())));
  const int first = seq_len_max ? 1 : 0;
  if (seq_len_max && c.input_types[0] != DType::int64)
    return invalid_argument(cwise::fixed_type_mismatch_message(c.node.op, "seq_len_max",
                                                               c.input_types[0], DType::int64));
  const DType t = c.input_types[static_cast<std::size_t>(first)];
  for (std::size_t i = static_cast<std::size_t>(first) + 1; i < names.size(); ++i)
    if (c.input_types[i] != t)
      return invalid_argument(
          cwise::type_mismatch_message(c.node.op, names[i], c.input_types[i], names[first], t));
  // float16 too where the OpDef allows it (the LSTMs; the GRU cells are float only).
  if (t == DType::float16) return detail::check_op_def_type(t, c.node.op);
  return detail::check_attr_type(t, "T", {DType::float32}, allowed_names);
}

// Dimension `i` of `s`, -1 when unknown.
Index dim(const PartialShape& s, int i) { return s.rank_known() ? s.dim(i) : -1; }

// `s` as InferenceContext::WithRank returns it: unknown dimensions of rank `rank` when unknown.
PartialShape of_rank(const PartialShape& s, int rank) {
  return s.rank_known() ? s : PartialShape::unknown_of_rank(rank);
}

// LSTMBlockCell: seven [batch, cell] outputs, batch from x, cell from cs_prev.
Status infer_lstm_block_cell(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, kLstmCellInputs, false, "half, float"));
  const PartialShape &x = c.input_shapes[0], &cs_prev = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(x, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(cs_prev, 2));
  for (int k = 0; k < 7; ++k)
    c.add_output(c.input_types[0], PartialShape{dim(x, 0), dim(cs_prev, 1)});
  return {};
}

// LSTMBlockCellGrad: cs_prev_grad [batch, cell], dicfo [batch, 4 * cell], three [cell].
Status infer_lstm_block_cell_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, kLstmCellGradInputs, false, "half, float"));
  bool use_peephole = false;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("use_peephole", &use_peephole));
  const PartialShape &x = c.input_shapes[0], &cs_prev = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(x, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(cs_prev, 2));
  const DType t = c.input_types[0];
  const Index batch = dim(x, 0), cell = dim(cs_prev, 1);
  c.add_output(t, PartialShape{batch, cell});
  c.add_output(t, PartialShape{batch, cell < 0 ? -1 : 4 * cell});
  for (int k = 0; k < 3; ++k) c.add_output(t, PartialShape{cell});
  return {};
}

// GRUBlockCell: four [batch, cell] outputs, batch from x, cell from h_prev.
Status infer_gru_block_cell(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, kGruInputs, false, "float"));
  const PartialShape &x = c.input_shapes[0], &h_prev = c.input_shapes[1];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(x, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(h_prev, 2));
  for (int k = 0; k < 4; ++k)
    c.add_output(c.input_types[0], PartialShape{dim(x, 0), dim(h_prev, 1)});
  return {};
}

// GRUBlockCellGrad: d_x of x's shape, d_h_prev and d_c_bar [batch, cell], d_r_bar_u_bar
// [batch, w_ru's columns].
Status infer_gru_block_cell_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, kGruGradInputs, false, "float"));
  const PartialShape &x = c.input_shapes[0], &h_prev = c.input_shapes[1], &w_ru = c.input_shapes[2];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(x, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(h_prev, 2));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(w_ru, 2));
  const DType t = c.input_types[0];
  const Index batch = dim(x, 0), cell = dim(h_prev, 1);
  c.add_output(t, of_rank(x, 2));
  c.add_output(t, PartialShape{batch, cell});
  c.add_output(t, PartialShape{batch, cell});
  c.add_output(t, PartialShape{batch, dim(w_ru, 1)});
  return {};
}

// BlockLSTM and BlockLSTMV2: seven [time, batch, cell] outputs, cell b's length / 4.
Status infer_block_lstm(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, kBlockInputs, true, "half, float"));
  const PartialShape &x = c.input_shapes[1], &b = c.input_shapes[8];
  ACTORFLOW_RETURN_IF_ERROR(with_rank(x, 3));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(b, 1));
  Index cell = dim(b, 0);
  if (cell >= 0) {
    // InferenceContext::Divide, evenly divisible.
    if (cell % 4 != 0)
      return invalid_argument("Dimension size must be evenly divisible by 4 but is " +
                              std::to_string(cell));
    cell /= 4;
  }
  for (int k = 0; k < 7; ++k)
    c.add_output(c.input_types[1], PartialShape{dim(x, 0), dim(x, 1), cell});
  return {};
}

// BlockLSTMGrad and BlockLSTMGradV2: each gradient shaped as its input.
Status infer_block_lstm_grad(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(check_inputs(c, kBlockGradInputs, true, "half, float"));
  bool use_peephole = false;
  ACTORFLOW_RETURN_IF_ERROR(c.get_attr("use_peephole", &use_peephole));
  static const int kRanks[] = {3, 2, 2, 2, 1, 1, 1, 1};
  for (int k = 0; k < 8; ++k)
    ACTORFLOW_RETURN_IF_ERROR(
        with_rank(c.input_shapes[static_cast<std::size_t>(1 + k)], kRanks[k]));
  for (int k = 0; k < 8; ++k)
    c.add_output(c.input_types[1],
                 of_rank(c.input_shapes[static_cast<std::size_t>(1 + k)], kRanks[k]));
  return {};
}

AttrMap lstm_attrs(const Output& x, const LSTMBlockAttrs& attrs) {
  return {{"T", x.dtype()},
          {"forget_bias", attrs.forget_bias},
          {"cell_clip", attrs.cell_clip},
          {"use_peephole", attrs.use_peephole}};
}

LSTMBlockOutputs lstm_outputs(const Operation& op) {
  return {op.output(0), op.output(1), op.output(2), op.output(3),
          op.output(4), op.output(5), op.output(6)};
}

std::vector<Output> block_inputs(const BlockLSTMInputs& in) {
  return {in.seq_len_max, in.x, in.cs_prev, in.h_prev, in.w, in.wci, in.wcf, in.wco, in.b};
}

rnn::BlockLSTMGradOutputs block_grad(const char* type, const BlockLSTMInputs& in,
                                     const LSTMBlockOutputs& out, const Output& cs_grad,
                                     const Output& h_grad, bool use_peephole,
                                     std::string_view name) {
  std::vector<Output> inputs = block_inputs(in);
  for (const Output& o : {out.i, out.cs, out.f, out.o, out.ci, out.co, out.h, cs_grad, h_grad})
    inputs.push_back(o);
  Operation op =
      in.x.graph().create_op(type, inputs, {{"T", in.x.dtype()}, {"use_peephole", use_peephole}},
                             name.empty() ? std::string_view(type) : name);
  return {op.output(0), op.output(1), op.output(2), op.output(3),
          op.output(4), op.output(5), op.output(6), op.output(7)};
}

}  // namespace

namespace detail {

void register_rnn_block_ops(OpRegistry& r) {
  r.add({"LSTMBlockCell", infer_lstm_block_cell});
  r.add({"LSTMBlockCellGrad", infer_lstm_block_cell_grad});
  r.add({"GRUBlockCell", infer_gru_block_cell});
  r.add({"GRUBlockCellGrad", infer_gru_block_cell_grad});
  r.add({"BlockLSTM", infer_block_lstm});
  r.add({"BlockLSTMV2", infer_block_lstm});
  r.add({"BlockLSTMGrad", infer_block_lstm_grad});
  r.add({"BlockLSTMGradV2", infer_block_lstm_grad});
}

}  // namespace detail

namespace rnn {

LSTMBlockOutputs lstm_block_cell(const LSTMBlockCellInputs& in, const LSTMBlockAttrs& attrs,
                                 std::string_view name) {
  Operation op = in.x.graph().create_op(
      "LSTMBlockCell", {in.x, in.cs_prev, in.h_prev, in.w, in.wci, in.wcf, in.wco, in.b},
      lstm_attrs(in.x, attrs), name.empty() ? "LSTMBlockCell" : name);
  return lstm_outputs(op);
}

LSTMBlockCellGradOutputs lstm_block_cell_grad(const LSTMBlockCellInputs& in,
                                              const LSTMBlockOutputs& out, const Output& cs_grad,
                                              const Output& h_grad, bool use_peephole,
                                              std::string_view name) {
  Operation op =
      in.x.graph().create_op("LSTMBlockCellGrad",
                             {in.x, in.cs_prev, in.h_prev, in.w, in.wci, in.wcf, in.wco, in.b,
                              out.i, out.cs, out.f, out.o, out.ci, out.co, cs_grad, h_grad},
                             {{"T", in.x.dtype()}, {"use_peephole", use_peephole}},
                             name.empty() ? "LSTMBlockCellGrad" : name);
  return {op.output(0), op.output(1), op.output(2), op.output(3), op.output(4)};
}

LSTMBlockOutputs block_lstm(const BlockLSTMInputs& in, const LSTMBlockAttrs& attrs,
                            std::string_view name) {
  Operation op = in.x.graph().create_op("BlockLSTM", block_inputs(in), lstm_attrs(in.x, attrs),
                                        name.empty() ? "BlockLSTM" : name);
  return lstm_outputs(op);
}

LSTMBlockOutputs block_lstm_v2(const BlockLSTMInputs& in, float cell_clip, bool use_peephole,
                               std::string_view name) {
  Operation op = in.x.graph().create_op(
      "BlockLSTMV2", block_inputs(in),
      {{"T", in.x.dtype()}, {"cell_clip", cell_clip}, {"use_peephole", use_peephole}},
      name.empty() ? "BlockLSTMV2" : name);
  return lstm_outputs(op);
}

BlockLSTMGradOutputs block_lstm_grad(const BlockLSTMInputs& in, const LSTMBlockOutputs& out,
                                     const Output& cs_grad, const Output& h_grad, bool use_peephole,
                                     std::string_view name) {
  return block_grad("BlockLSTMGrad", in, out, cs_grad, h_grad, use_peephole, name);
}

BlockLSTMGradOutputs block_lstm_grad_v2(const BlockLSTMInputs& in, const LSTMBlockOutputs& out,
                                        const Output& cs_grad, const Output& h_grad,
                                        bool use_peephole, std::string_view name) {
  return block_grad("BlockLSTMGradV2", in, out, cs_grad, h_grad, use_peephole, name);
}

GRUBlockCellOutputs gru_block_cell(const GRUBlockCellInputs& in, std::string_view name) {
  Operation op =
      in.x.graph().create_op("GRUBlockCell", {in.x, in.h_prev, in.w_ru, in.w_c, in.b_ru, in.b_c},
                             {{"T", in.x.dtype()}}, name.empty() ? "GRUBlockCell" : name);
  return {op.output(0), op.output(1), op.output(2), op.output(3)};
}

GRUBlockCellGradOutputs gru_block_cell_grad(const GRUBlockCellInputs& in,
                                            const GRUBlockCellOutputs& out, const Output& d_h,
                                            std::string_view name) {
  Operation op = in.x.graph().create_op(
      "GRUBlockCellGrad",
      {in.x, in.h_prev, in.w_ru, in.w_c, in.b_ru, in.b_c, out.r, out.u, out.c, d_h},
      {{"T", in.x.dtype()}}, name.empty() ? "GRUBlockCellGrad" : name);
  return {op.output(0), op.output(1), op.output(2), op.output(3)};
}

}  // namespace rnn

}  // namespace af
