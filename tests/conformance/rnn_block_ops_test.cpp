// LSTMBlockCell, GRUBlockCell, BlockLSTM, BlockLSTMV2 and their gradient ops as TensorFlow 1.x
// builds, shapes, computes and refuses them (the values TensorFlow 2.21 computes for many more
// cases, gradients included, are in tests/data/tf_ops, made by
// scripts/peers/op_cases_rnn_block.py and checked by op_coverage_conformance_test.cpp).
#include "actorflow/ops/rnn_block_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::floats;
using af::test::refused_while_building;

namespace tt = boost::test_tools;

// Deterministic values in (-1, 1) for a tensor of `shape`.
Tensor wave(const Shape& shape, float phase) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(std::sin(0.7 * static_cast<double>(i) + phase));
  return Tensor::from_vector(std::move(v), shape);
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// The first element of a float tensor, widened for comparing with double references.
double first(const Tensor& t) { return static_cast<double>(t.data<float>()[0]); }

// The inputs of an LSTM cell with input 3 and cell 2 as placeholders of known shape.
af::rnn::LSTMBlockCellInputs lstm_placeholders(af::Graph& g, std::int64_t batch) {
  auto p = [&](std::vector<std::int64_t> dims, const char* name) {
    return g.placeholder(DType::float32, PartialShape(std::move(dims)), name);
  };
  return {p({batch, 3}, "x"),      p({batch, 2}, "cs_prev"),
          p({batch, 2}, "h_prev"), p({5, 8}, "w"),
          p({2}, "wci"),           p({2}, "wcf"),
          p({2}, "wco"),           p({8}, "b")};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(rnn_block_ops_test)

// The builders name their ops after their types, as gen_rnn_ops does, hold TensorFlow's attr
// defaults and infer rnn_ops.cc's static shapes, unknown dimensions staying unknown.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const auto in = lstm_placeholders(g, -1);
  const auto cell = af::rnn::lstm_block_cell(in);
  BOOST_TEST(cell.h.name() == "LSTMBlockCell:6");
  BOOST_TEST(cell.i.shape() == PartialShape({-1, 2}));
  BOOST_TEST(*cell.h.node()->def().attr<float>("forget_bias") == 1.0f);
  BOOST_TEST(*cell.h.node()->def().attr<float>("cell_clip") == 3.0f);
  BOOST_TEST(*cell.h.node()->def().attr<bool>("use_peephole") == false);
  const auto cell_grad = af::rnn::lstm_block_cell_grad(in, cell, cell.cs, cell.h, true);
  BOOST_TEST(cell_grad.cs_prev_grad.name() == "LSTMBlockCellGrad:0");
  BOOST_TEST(cell_grad.dicfo.shape() == PartialShape({-1, 8}));
  BOOST_TEST(cell_grad.wco_grad.shape() == PartialShape({2}));

  const Output seq = g.placeholder(DType::int64, PartialShape({}), "seq_len_max");
  const Output x = g.placeholder(DType::float32, PartialShape({4, -1, 3}), "xs");
  const af::rnn::BlockLSTMInputs block_in{seq,    x,      in.cs_prev, in.h_prev, in.w,
                                          in.wci, in.wcf, in.wco,     in.b};
  const auto block = af::rnn::block_lstm(block_in);
  BOOST_TEST(block.cs.name() == "BlockLSTM:1");
  BOOST_TEST(block.cs.shape() == PartialShape({4, -1, 2}));
  const auto v2 = af::rnn::block_lstm_v2(block_in);
  BOOST_TEST(v2.h.name() == "BlockLSTMV2:6");
  BOOST_TEST(*v2.h.node()->def().attr<float>("cell_clip") == 0.0f);
  BOOST_TEST(!v2.h.node()->def().attr<float>("forget_bias"));
  const auto block_grad = af::rnn::block_lstm_grad(block_in, block, block.cs, block.h, false);
  BOOST_TEST(block_grad.x_grad.name() == "BlockLSTMGrad:0");
  BOOST_TEST(block_grad.x_grad.shape() == PartialShape({4, -1, 3}));
  BOOST_TEST(block_grad.w_grad.shape() == PartialShape({5, 8}));
  BOOST_TEST(af::rnn::block_lstm_grad_v2(block_in, v2, v2.cs, v2.h, false).b_grad.name() ==
             "BlockLSTMGradV2:7");

  const af::rnn::GRUBlockCellInputs gru_in{
      g.placeholder(DType::float32, PartialShape({3, 4}), "gx"),
      g.placeholder(DType::float32, PartialShape({3, -1}), "gh"),
      g.placeholder(DType::float32, PartialShape({7, 6}), "w_ru"),
      g.placeholder(DType::float32, PartialShape({7, 3}), "w_c"),
      g.placeholder(DType::float32, PartialShape({6}), "b_ru"),
      g.placeholder(DType::float32, PartialShape({3}), "b_c")};
  const auto gru = af::rnn::gru_block_cell(gru_in);
  BOOST_TEST(gru.h.name() == "GRUBlockCell:3");
  BOOST_TEST(gru.r.shape() == PartialShape({3, -1}));
  const auto gru_grad = af::rnn::gru_block_cell_grad(gru_in, gru, gru.h);
  BOOST_TEST(gru_grad.d_x.shape() == PartialShape({3, 4}));
  BOOST_TEST(gru_grad.d_r_bar_u_bar.shape() == PartialShape({3, 6}));
}

// One LSTM step with zero weights, the gates' biases apart: the ICFO order, forget_bias, the
// peephole terms and the clip of cs as the equations in lstm_ops.h.
BOOST_AUTO_TEST_CASE(lstm_block_cell_computes_tensorflows_equations) {
  af::Graph g;
  const Output x = g.constant(floats({0.0f}, Shape{1, 1}), "x");
  const Output w = g.constant(Tensor(DType::float32, Shape{2, 4}), "w");
  const Output b = g.constant(floats({0.2f, -0.3f, 0.4f, 0.1f}, Shape{4}), "b");
  const Output h_prev = g.constant(floats({0.6f}, Shape{1, 1}), "h_prev");
  const Output wci = g.constant(floats({0.1f}, Shape{1}), "wci");
  const Output wcf = g.constant(floats({0.2f}, Shape{1}), "wcf");
  const Output wco = g.constant(floats({0.3f}, Shape{1}), "wco");
  auto cell = [&](float cs_prev, af::rnn::LSTMBlockAttrs attrs) {
    const Output cs = g.constant(floats({cs_prev}, Shape{1, 1}));
    return af::rnn::lstm_block_cell({x, cs, h_prev, w, wci, wcf, wco, b}, attrs);
  };
  const auto peephole = cell(0.5f, {.forget_bias = 1.0f, .cell_clip = 3.0f, .use_peephole = true});
  const auto clipped = cell(10.0f, {});
  af::Session sess(g);
  const auto v = sess.run({peephole.i, peephole.ci, peephole.f, peephole.cs, peephole.o, peephole.h,
                           clipped.cs, clipped.h});
  const double i = sigmoid(0.2 + 0.5 * 0.1), ci = std::tanh(-0.3);
  const double f = sigmoid(0.4 + 1.0 + 0.5 * 0.2), cs = i * ci + f * 0.5;
  const double o = sigmoid(0.1 + cs * 0.3);
  BOOST_TEST(first(v[0]) == i, tt::tolerance(1e-6));
  BOOST_TEST(first(v[1]) == ci, tt::tolerance(1e-6));
  BOOST_TEST(first(v[2]) == f, tt::tolerance(1e-6));
  BOOST_TEST(first(v[3]) == cs, tt::tolerance(1e-6));
  BOOST_TEST(first(v[4]) == o, tt::tolerance(1e-6));
  BOOST_TEST(first(v[5]) == o * std::tanh(cs), tt::tolerance(1e-6));
  // sigmoid(0.2) * tanh(-0.3) + sigmoid(1.4) * 10 is past the default clip of 3.
  BOOST_TEST(first(v[6]) == 3.0);
  BOOST_TEST(first(v[7]) == sigmoid(0.1) * std::tanh(3.0), tt::tolerance(1e-6));
}

// One GRU step with zero weights: r and u from b_ru, c from b_c, h between h_prev and c.
BOOST_AUTO_TEST_CASE(gru_block_cell_computes_tensorflows_equations) {
  af::Graph g;
  const af::rnn::GRUBlockCellInputs in{g.constant(floats({0.0f}, Shape{1, 1}), "x"),
                                       g.constant(floats({0.8f}, Shape{1, 1}), "h_prev"),
                                       g.constant(Tensor(DType::float32, Shape{2, 2}), "w_ru"),
                                       g.constant(Tensor(DType::float32, Shape{2, 1}), "w_c"),
                                       g.constant(floats({0.3f, -0.2f}, Shape{2}), "b_ru"),
                                       g.constant(floats({0.5f}, Shape{1}), "b_c")};
  const auto out = af::rnn::gru_block_cell(in);
  af::Session sess(g);
  const auto v = sess.run({out.r, out.u, out.c, out.h});
  const double r = sigmoid(0.3), u = sigmoid(-0.2), c = std::tanh(0.5);
  BOOST_TEST(first(v[0]) == r, tt::tolerance(1e-6));
  BOOST_TEST(first(v[1]) == u, tt::tolerance(1e-6));
  BOOST_TEST(first(v[2]) == c, tt::tolerance(1e-6));
  BOOST_TEST(first(v[3]) == u * 0.8 + (1.0 - u) * c, tt::tolerance(1e-6));
}

// BlockLSTM is LSTMBlockCell chained over time, with zeros after seq_len_max; BlockLSTMV2 is
// BlockLSTM with the c and f blocks of w and b swapped and forget_bias 0; and the gradient of
// BlockLSTM (BlockLSTMGrad) equals the chain's (LSTMBlockCellGrad, MatMuls, BiasAddGrad).
BOOST_AUTO_TEST_CASE(block_lstm_is_the_cell_chained_over_time) {
  af::Graph g;
  const std::int64_t batch = 2, input = 3, cell = 2;
  std::vector<Output> xs;
  for (int t = 0; t < 3; ++t)
    xs.push_back(g.constant(wave(Shape{batch, input}, 0.3f * static_cast<float>(t)),
                            "x" + std::to_string(t)));
  const Output cs0 = g.constant(wave(Shape{batch, cell}, 1.0f), "cs0");
  const Output h0 = g.constant(wave(Shape{batch, cell}, 2.0f), "h0");
  const Output w = g.constant(wave(Shape{input + cell, 4 * cell}, 3.0f), "w");
  const Output wci = g.constant(wave(Shape{cell}, 4.0f), "wci");
  const Output wcf = g.constant(wave(Shape{cell}, 5.0f), "wcf");
  const Output wco = g.constant(wave(Shape{cell}, 6.0f), "wco");
  const Output b = g.constant(wave(Shape{4 * cell}, 7.0f), "b");
  const af::rnn::LSTMBlockAttrs attrs{.forget_bias = 0.0f, .cell_clip = 0.5f, .use_peephole = true};
  std::vector<Output> chain;
  Output cs = cs0, h = h0;
  for (int t = 0; t < 3; ++t) {
    const auto step = af::rnn::lstm_block_cell(
        {xs[static_cast<std::size_t>(t)], cs, h, w, wci, wcf, wco, b}, attrs);
    cs = step.cs;
    h = step.h;
    chain.push_back(cs);
    chain.push_back(h);
  }
  const Output x = af::stack(xs, 0);
  const Output three = g.constant(Tensor(std::int64_t{3}), "three");
  const Output two = g.constant(Tensor(std::int64_t{2}), "two");
  const auto block = af::rnn::block_lstm({three, x, cs0, h0, w, wci, wcf, wco, b}, attrs);
  const auto short_block = af::rnn::block_lstm({two, x, cs0, h0, w, wci, wcf, wco, b}, attrs);
  // IFCO: the f block of w and b in second place, the c block third.
  const auto swap = [&](const Output& t, int axis) {
    const auto parts = af::split(t, 4, axis);
    return af::concat({parts[0], parts[2], parts[1], parts[3]}, axis);
  };
  const auto v2 = af::rnn::block_lstm_v2({three, x, cs0, h0, swap(w, 1), wci, wcf, wco, swap(b, 0)},
                                         0.5f, true);
  const std::vector<Output> vars = {w, b, wci, cs0, h0, xs[0], xs[2]};
  const auto block_grads = af::gradients({block.cs, block.h}, vars);
  const auto chain_grads = af::gradients(chain, vars);
  BOOST_TEST(block_grads[0].node()->type() == "BlockLSTMGrad");
  af::Session sess(g);
  std::vector<Output> fetches = {block.cs, block.h, short_block.cs, short_block.h, v2.cs, v2.h};
  fetches.insert(fetches.end(), chain.begin(), chain.end());
  fetches.insert(fetches.end(), block_grads.begin(), block_grads.end());
  fetches.insert(fetches.end(), chain_grads.begin(), chain_grads.end());
  const auto v = sess.run(fetches);
  const std::int64_t step = batch * cell;
  for (std::size_t t = 0; t < 3; ++t) {
    const auto expect_cs = v[6 + 2 * t].to_vector<float>();
    const auto expect_h = v[7 + 2 * t].to_vector<float>();
    for (std::int64_t k = 0; k < step; ++k) {
      const auto at = static_cast<std::int64_t>(t) * step + k;
      const auto uk = static_cast<std::size_t>(k);
      BOOST_TEST(v[0].data<float>()[at] == expect_cs[uk], tt::tolerance(1e-5f));
      BOOST_TEST(v[1].data<float>()[at] == expect_h[uk], tt::tolerance(1e-5f));
      BOOST_TEST(v[4].data<float>()[at] == expect_cs[uk], tt::tolerance(1e-5f));
      BOOST_TEST(v[5].data<float>()[at] == expect_h[uk], tt::tolerance(1e-5f));
      // seq_len_max 2: the third step is zeros.
      BOOST_TEST(v[2].data<float>()[at] == (t < 2 ? expect_cs[uk] : 0.0f), tt::tolerance(1e-5f));
      BOOST_TEST(v[3].data<float>()[at] == (t < 2 ? expect_h[uk] : 0.0f), tt::tolerance(1e-5f));
    }
  }
  for (std::size_t k = 0; k < vars.size(); ++k) {
    const auto got = v[12 + k].to_vector<float>();
    const auto want = v[12 + vars.size() + k].to_vector<float>();
    BOOST_TEST(got.size() == want.size());
    for (std::size_t j = 0; j < got.size() && j < want.size(); ++j)
      BOOST_TEST(std::abs(got[j] - want[j]) <= 2e-5f,
                 "gradient " << k << "[" << j << "]: " << got[j] << " vs " << want[j]);
  }
}

// The gradients are the graphs tf.contrib.rnn and rnn_grad.py build: LSTMBlockCellGrad with a
// MatMul, two Slices, a ConcatV2 and a BiasAddGrad; GRUBlockCellGrad with MatMuls and
// BiasAddGrads; BlockLSTMGrad for BlockLSTM and, as TensorFlow, for BlockLSTMV2; nothing for
// seq_len_max.
BOOST_AUTO_TEST_CASE(gradients_are_the_graphs_tensorflow_builds) {
  af::Graph g;
  const auto in = lstm_placeholders(g, 4);
  const auto cell = af::rnn::lstm_block_cell(in);
  const auto grads = af::gradients({cell.h}, {in.x, in.cs_prev, in.h_prev, in.w, in.wci, in.b});
  BOOST_TEST(grads[0].node()->type() == "Slice");
  BOOST_TEST(grads[0].shape() == PartialShape({4, 3}));
  BOOST_TEST(grads[0].node()->inputs()[0].node()->type() == "MatMul");
  BOOST_TEST(grads[1].node()->type() == "LSTMBlockCellGrad");
  BOOST_TEST(grads[2].node()->type() == "Slice");
  BOOST_TEST(grads[3].node()->type() == "MatMul");
  BOOST_TEST(grads[3].node()->inputs()[0].node()->type() == "ConcatV2");
  BOOST_TEST(grads[4].node()->type() == "LSTMBlockCellGrad");
  BOOST_TEST(grads[5].node()->type() == "BiasAddGrad");

  const af::rnn::GRUBlockCellInputs gru_in{
      g.placeholder(DType::float32, PartialShape({2, 3}), "gx"),
      g.placeholder(DType::float32, PartialShape({2, 2}), "gh"),
      g.placeholder(DType::float32, PartialShape({5, 4}), "w_ru"),
      g.placeholder(DType::float32, PartialShape({5, 2}), "w_c"),
      g.placeholder(DType::float32, PartialShape({4}), "b_ru"),
      g.placeholder(DType::float32, PartialShape({2}), "b_c")};
  const auto gru = af::rnn::gru_block_cell(gru_in);
  const auto gru_grads = af::gradients(
      {gru.h}, {gru_in.x, gru_in.h_prev, gru_in.w_ru, gru_in.w_c, gru_in.b_ru, gru_in.b_c});
  BOOST_TEST(gru_grads[0].node()->type() == "GRUBlockCellGrad");
  BOOST_TEST(gru_grads[1].node()->type() == "GRUBlockCellGrad");
  BOOST_TEST(gru_grads[2].node()->type() == "MatMul");
  BOOST_TEST(gru_grads[3].node()->type() == "MatMul");
  BOOST_TEST(gru_grads[3].node()->inputs()[0].node()->type() == "ConcatV2");
  BOOST_TEST(gru_grads[4].node()->type() == "BiasAddGrad");
  BOOST_TEST(gru_grads[5].node()->type() == "BiasAddGrad");

  const Output seq = g.placeholder(DType::int64, PartialShape({}), "seq_len_max");
  const Output x = g.placeholder(DType::float32, PartialShape({3, 4, 3}), "xs");
  const af::rnn::BlockLSTMInputs block_in{seq,    x,      in.cs_prev, in.h_prev, in.w,
                                          in.wci, in.wcf, in.wco,     in.b};
  for (const auto& out : {af::rnn::block_lstm(block_in), af::rnn::block_lstm_v2(block_in)}) {
    const auto block_grads = af::gradients({out.h}, {seq, x, in.w});
    BOOST_TEST(!block_grads[0].valid());
    BOOST_TEST(block_grads[1].node()->type() == "BlockLSTMGrad");
    BOOST_TEST(block_grads[2].node()->type() == "BlockLSTMGrad");
  }
}

// What rnn_ops.cc's shape functions and the OpDefs refuse is refused while building.
BOOST_AUTO_TEST_CASE(bad_shapes_and_types_are_refused_while_building) {
  af::Graph g;
  auto in = lstm_placeholders(g, 4);
  auto flat = in;
  flat.x = g.placeholder(DType::float32, PartialShape({3}), "flat");
  refused_while_building([&] { af::rnn::lstm_block_cell(flat); },
                         "Shape must be rank 2 but is rank 1");
  auto wide = in;
  wide.h_prev = g.placeholder(DType::float64, PartialShape({4, 2}), "wide");
  refused_while_building([&] { af::rnn::lstm_block_cell(wide); },
                         "Input 'h_prev' of 'LSTMBlockCell' Op has type float64 that does not "
                         "match type float32 of argument 'x'.");
  auto d = [&](std::vector<std::int64_t> dims) {
    return g.placeholder(DType::float64, PartialShape(std::move(dims)));
  };
  refused_while_building(
      [&] {
        af::rnn::lstm_block_cell(
            {d({4, 3}), d({4, 2}), d({4, 2}), d({5, 8}), d({2}), d({2}), d({2}), d({8})});
      },
      "Value for attr 'T' of double is not in the list of allowed values: half, float");
  refused_while_building(
      [&] {
        af::rnn::gru_block_cell({d({4, 3}), d({4, 2}), d({5, 4}), d({5, 2}), d({4}), d({2})});
      },
      "Value for attr 'T' of double is not in the list of allowed values: float");
  const Output seq = g.placeholder(DType::int64, PartialShape({}), "seq_len_max");
  const Output x = g.placeholder(DType::float32, PartialShape({3, 4, 3}), "xs");
  af::rnn::BlockLSTMInputs block_in{seq,    x,      in.cs_prev, in.h_prev, in.w,
                                    in.wci, in.wcf, in.wco,     in.b};
  auto odd_bias = block_in;
  odd_bias.b = g.placeholder(DType::float32, PartialShape({18}), "odd_bias");
  refused_while_building([&] { af::rnn::block_lstm(odd_bias); },
                         "Dimension size must be evenly divisible by 4 but is 18");
  auto narrow_seq = block_in;
  narrow_seq.seq_len_max = g.placeholder(DType::int32, PartialShape({}), "narrow");
  refused_while_building([&] { af::rnn::block_lstm_v2(narrow_seq); },
                         "Input 'seq_len_max' of 'BlockLSTMV2' Op has type int32 that does not "
                         "match expected type of int64.");
  auto matrix_x = block_in;
  matrix_x.x = in.x;
  refused_while_building([&] { af::rnn::block_lstm(matrix_x); },
                         "Shape must be rank 3 but is rank 2");
  const auto out = af::rnn::block_lstm(block_in);
  auto flat_w = block_in;
  flat_w.w = in.b;
  refused_while_building([&] { af::rnn::block_lstm_grad(flat_w, out, out.cs, out.h, false); },
                         "Shape must be rank 2 but is rank 1");
}

// What the shapes only show when the step runs fails with TensorFlow's kernel messages, the
// node named.
BOOST_AUTO_TEST_CASE(bad_input_fails_when_running_with_tensorflows_messages) {
  af::Graph g;
  auto p = [&](const char* name, DType t = DType::float32) {
    return g.placeholder(t, PartialShape::unknown(), name);
  };
  const af::rnn::LSTMBlockCellInputs in{p("x"),   p("cs_prev"), p("h_prev"), p("w"),
                                        p("wci"), p("wcf"),     p("wco"),    p("b")};
  const auto cell = af::rnn::lstm_block_cell(in, {}, "cell");
  const Output cs_grad = p("cs_grad"), h_grad = p("h_grad");
  const auto cell_grad = af::rnn::lstm_block_cell_grad(in, cell, cs_grad, h_grad, false, "cg");
  const Output seq = p("seq_len_max", DType::int64);
  const af::rnn::BlockLSTMInputs block_in{seq,    in.x,   in.cs_prev, in.h_prev, in.w,
                                          in.wci, in.wcf, in.wco,     in.b};
  const auto block = af::rnn::block_lstm(block_in, {}, "block");
  const Output i_seq = p("i_seq");
  const af::rnn::LSTMBlockOutputs states{i_seq, i_seq, i_seq, i_seq, i_seq, i_seq, i_seq};
  const auto block_grad =
      af::rnn::block_lstm_grad(block_in, states, cs_grad, h_grad, false, "block_grad");
  const af::rnn::GRUBlockCellInputs gru_in{in.x,     in.h_prev, p("w_ru"),
                                           p("w_c"), p("b_ru"), p("b_c")};
  const auto gru = af::rnn::gru_block_cell(gru_in, "gru");
  af::Session sess(g);
  const std::int64_t B = 2, I = 3, C = 4, T = 3;
  auto zeros = [](Shape s) { return Tensor(DType::float32, std::move(s)); };
  // Feeds of a well-formed LSTM step, with `name` replaced by `value`.
  auto lstm_feeds = [&](const std::string& name, const Tensor& value) {
    af::FeedDict feeds = {
        {in.x, zeros({B, I})},         {in.cs_prev, zeros({B, C})},    {in.h_prev, zeros({B, C})},
        {in.w, zeros({I + C, 4 * C})}, {in.wci, zeros({C})},           {in.wcf, zeros({C})},
        {in.wco, zeros({C})},          {in.b, zeros({4 * C})},         {cs_grad, zeros({B, C})},
        {h_grad, zeros({B, C})},       {seq, Tensor(std::int64_t{T})}, {i_seq, zeros({T, B, C})}};
    for (auto& [key, tensor] : feeds)
      if (key.node()->name() == name) tensor = value;
    return feeds;
  };
  auto fails_with = [&](const Output& y, const af::FeedDict& feeds, const std::string& message) {
    af::test::fails_with(sess, y, message, feeds);
  };
  BOOST_TEST(sess.run(cell.h, lstm_feeds("", {})).shape() == Shape({B, C}));
  fails_with(cell.h, lstm_feeds("x", zeros({B})), "x must be rank 2 but is rank 1");
  fails_with(cell.h, lstm_feeds("cs_prev", zeros({B + 1, C})),
             "cs_prev.dims(0) != batch_size: 3 vs. 2");
  fails_with(cell.h, lstm_feeds("h_prev", zeros({B, C + 1})),
             "h_prev.dims(1) != cell_size: 5 vs. 4");
  fails_with(cell.h, lstm_feeds("w", zeros({I + C + 1, 4 * C})),
             "w.dim_size(0) != input_size + cell_size: 8 vs. 7");
  fails_with(cell.h, lstm_feeds("w", zeros({I + C, 4 * C + 1})),
             "w.dim_size(1) != cell_size * 4: 17 vs. 16");
  fails_with(cell.h, lstm_feeds("b", zeros({4 * C + 1})),
             "b.dim_size(0) != cell_size * 4: 17 vs. 16");
  fails_with(cell.h, lstm_feeds("wcf", zeros({C + 1})), "wcf.dim_size(0) != cell_size: 5 vs. 4");
  fails_with(cell.h, lstm_feeds("wci", zeros({C, 1})), "wci must be rank 1 but is rank 2");
  fails_with(cell.h, lstm_feeds("x", zeros({0, I})), "cs_prev.dims(0) != batch_size: 2 vs. 0");
  {
    af::FeedDict empty = lstm_feeds("x", zeros({0, I}));
    for (auto& [key, tensor] : empty)
      if (key.node()->name() == "cs_prev" || key.node()->name() == "h_prev") tensor = zeros({0, C});
    fails_with(cell.h, empty, "cs_prev_tensor is empty, has shape: (0,4).");
  }
  fails_with(cell_grad.dicfo, lstm_feeds("h_grad", zeros({B + 1, C})),
             "h_grad_tensor.dims(0) != batch_size: 3 vs. 2");
  fails_with(cell_grad.dicfo, lstm_feeds("cs_grad", zeros({B})),
             "cs_grad must be rank 2 but is rank 1");
  // BlockLSTM and BlockLSTMGrad (x fed [time, batch, input]).
  auto block_feeds = [&](const std::string& name, const Tensor& value) {
    af::FeedDict feeds = lstm_feeds(name, value);
    for (auto& [key, tensor] : feeds) {
      if (key.node()->name() == "x" && name != "x") tensor = zeros({T, B, I});
      if (key.node()->name() == "cs_grad" && name != "cs_grad") tensor = zeros({T, B, C});
      if (key.node()->name() == "h_grad" && name != "h_grad") tensor = zeros({T, B, C});
    }
    return feeds;
  };
  BOOST_TEST(sess.run(block.h, block_feeds("", {})).shape() == Shape({T, B, C}));
  fails_with(block.h, block_feeds("seq_len_max", Tensor(std::int64_t{T + 1})),
             "seq_len_max must be between 0 and 3 but is 4");
  fails_with(block.h, block_feeds("seq_len_max", Tensor(std::int64_t{-1})),
             "seq_len_max must be between 0 and 3 but is -1");
  fails_with(
      block.h,
      block_feeds("seq_len_max", Tensor::from_vector(std::vector<std::int64_t>{1}, Shape{1})),
      "`seq_len_max_tensor` must be rank 0 but is rank 1");
  fails_with(block.h, block_feeds("x", zeros({B, I})), "x must be 3D");
  fails_with(block.h, block_feeds("cs_prev", zeros({B})), "cs_prev must be 2D");
  fails_with(block.h, block_feeds("wco", zeros({C + 1})), "wco.dim_size(0) != cell_size: 5 vs. 4");
  fails_with(block.h, block_feeds("b", zeros({4 * C + 4})),
             "b.dim_size(0) != cell_size * 4: 20 vs. 16");
  BOOST_TEST(sess.run(block_grad.w_grad, block_feeds("", {})).shape() == Shape({I + C, 4 * C}));
  fails_with(block_grad.w_grad, block_feeds("w", zeros({I + C, 4 * C + 1})),
             "w matrix columns must be a positive multiple of 4, but got 17");
  fails_with(block_grad.w_grad, block_feeds("w", zeros({I + C + 1, 4 * C})),
             "w matrix rows don't match: 7 vs. 8");
  fails_with(block_grad.w_grad, block_feeds("b", zeros({4 * C + 3})),
             "w and b cell_size don't match: 4 vs. 19");
  fails_with(block_grad.w_grad, block_feeds("i_seq", zeros({B, C})),
             "i must be rank 3. Received: 2");
  fails_with(block_grad.w_grad, block_feeds("i_seq", zeros({T - 1, B, C})),
             "i has time dimension 2, less than seq_len_max 3");
  fails_with(block_grad.w_grad, block_feeds("h_grad", zeros({T, B + 1, C})),
             "h_grad.dims(1) != batch_size: 3 vs. 2");
  fails_with(block_grad.w_grad, block_feeds("cs_prev", zeros({B + 1, C})),
             "cs_prev.dims(0) != batch_size: 3 vs. 2");
  // GRUBlockCell.
  auto gru_feeds = [&](const std::string& name, const Tensor& value) {
    af::FeedDict feeds = {{in.x, zeros({B, I})},
                          {in.h_prev, zeros({B, C})},
                          {gru_in.w_ru, zeros({I + C, 2 * C})},
                          {gru_in.w_c, zeros({I + C, C})},
                          {gru_in.b_ru, zeros({2 * C})},
                          {gru_in.b_c, zeros({C})}};
    for (auto& [key, tensor] : feeds)
      if (key.node()->name() == name) tensor = value;
    return feeds;
  };
  BOOST_TEST(sess.run(gru.h, gru_feeds("", {})).shape() == Shape({B, C}));
  fails_with(gru.h, gru_feeds("x", zeros({B})), "Rank of x must be 2, got 1");
  fails_with(gru.h, gru_feeds("h_prev", zeros({B + 1, C})),
             "h_prev.dims(0) != batch_size: 3 vs. 2");
  fails_with(gru.h, gru_feeds("w_ru", zeros({I + C, 2 * C + 1})),
             "w_ru.dim_size(1) != cell_size * 2: 9 vs. 8");
  fails_with(gru.h, gru_feeds("w_c", zeros({I + C + 1, C})),
             "w_c.dim_size(0) != input_size + cell_size: 8 vs. 7");
  fails_with(gru.h, gru_feeds("b_c", zeros({C + 1})), "b_c.dim_size(0) != cell_size: 5 vs. 4");
  fails_with(gru.h, gru_feeds("b_ru", zeros({2 * C, 1})), "Rank of b_ru must be 1, got 2");
  // An empty batch runs (GRUBlockCell allows it, unlike LSTMBlockCell).
  {
    af::FeedDict empty = gru_feeds("x", zeros({0, I}));
    for (auto& [key, tensor] : empty)
      if (key.node()->name() == "h_prev") tensor = zeros({0, C});
    BOOST_TEST(sess.run(gru.h, empty).shape() == Shape({0, C}));
  }
}

BOOST_AUTO_TEST_SUITE_END()
