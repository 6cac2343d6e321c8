// ReverseSequence, CTCLoss, CTCGreedyDecoder, CTCBeamSearchDecoder and EditDistance through
// their builders: names, static shapes, values and the errors TensorFlow 2.21 gives (the
// strings and numbers below are what TensorFlow gave), and the gradients' graphs. (The values
// TensorFlow computes for many more cases, gradients included, are made by
// scripts/peers/op_cases_seq_ctc.py and checked by op_coverage_conformance_test.cpp.)
#include "actorflow/ops/seq_ctc_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::SparseTensor;
using af::Tensor;
using af::test::refuses;
using af::test::sparse;
using af::test::vec;

using I64 = std::vector<std::int64_t>;

// Requires `got` to hold `want` within `tolerance` (relative and absolute).
void near(const std::vector<float>& got, const std::vector<float>& want, float tolerance = 2e-5f) {
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    BOOST_TEST(std::abs(got[i] - want[i]) <= tolerance * (1.0f + std::abs(want[i])),
               "element " << i << ": " << got[i] << " vs. " << want[i]);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(seq_ctc_ops_test)

// Each batch row has its first seq_lengths[i] steps reversed, the rest copied.
BOOST_AUTO_TEST_CASE(reverse_sequence_reverses_each_prefix, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x =
      g.constant(vec<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Shape{3, 4}), "x");
  const Output y = af::reverse_sequence(x, g.constant(vec<std::int64_t>({2, 4, 0})), 1);
  BOOST_TEST(y.name() == "ReverseSequence:0");
  BOOST_TEST(y.shape() == PartialShape({3, 4}));
  const Output strings =
      af::reverse_sequence(g.constant(vec<std::string>({"a", "b", "c", "d"}, Shape{2, 2})),
                           g.constant(vec<std::int32_t>({2, 2})), 0, 1);
  af::Session s(g);
  BOOST_TEST(
      s.run(y).to_vector<float>() == (std::vector<float>{2, 1, 3, 4, 8, 7, 6, 5, 9, 10, 11, 12}),
      boost::test_tools::per_element());
  BOOST_TEST(
      s.run(strings).to_vector<std::string>() == (std::vector<std::string>{"c", "d", "a", "b"}),
      boost::test_tools::per_element());
}

// The shape function's and the kernel's checks, with TensorFlow's messages.
BOOST_AUTO_TEST_CASE(reverse_sequence_refuses_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(Tensor(DType::float32, Shape{2, 3}), "x");
  const Output lengths = g.constant(vec<std::int64_t>({1, 2}), "lengths");
  refuses([&] { af::reverse_sequence(x, lengths, 1, 2); },
          "batch_dim must be < input rank: 2 vs. 2");
  refuses([&] { af::reverse_sequence(x, lengths, 5, -1); },
          "seq_dim must be < input rank: 5 vs. 2");
  refuses([&] { af::reverse_sequence(x, lengths, 1, -1); }, "batch_dim must be >=0, got -1");
  refuses(
      [&] {
        af::reverse_sequence(x, g.constant(vec<std::int64_t>({1, 2, 3})), 1);
      },
      "Dimensions must be equal, but are 2 and 3");
  refuses(
      [&] {
        af::reverse_sequence(x, g.constant(vec<std::int64_t>({1, 2}, Shape{1, 2})), 1);
      },
      "Shape must be rank 1 but is rank 2");
  const Output p = g.placeholder(DType::float32, PartialShape::unknown(), "p");
  const Output n = g.placeholder(DType::int32, PartialShape::unknown(), "n");
  const Output by_seq = af::reverse_sequence(p, n, 1);
  const Output negative_seq = af::reverse_sequence(p, n, -1, 0, "negative_seq");
  const Output same_axes = af::reverse_sequence(p, n, 0, 0, "same_axes");
  af::Session s(g);
  const Tensor x23(DType::float32, Shape{2, 3});
  refuses(
      [&] {
        s.run(by_seq, {{p, x23}, {n, vec<std::int32_t>({1, 4})}});
      },
      "seq_lens(1) > input.dims(1)");
  refuses([&] { s.run(by_seq, {{p, x23}, {n, vec<std::int32_t>({-1, 2})}}); }, "seq_lens(0) < 0");
  refuses(
      [&] {
        s.run(by_seq, {{p, x23}, {n, vec<std::int32_t>({1, 2, 3})}});
      },
      "Length of seq_lengths != input.dims(0), (3 vs. 2)");
  refuses(
      [&] {
        s.run(by_seq, {{p, x23}, {n, vec<std::int32_t>({1, 2}, Shape{1, 2})}});
      },
      "seq_lengths must be 1-dim, not 2");
  refuses(
      [&] {
        s.run(by_seq,
              {{p, Tensor(DType::float32, Shape{1, 1, 1, 1, 1, 1})}, {n, vec<std::int32_t>({1})}});
      },
      "ReverseSequenceOp : Unhandled input dimensions: 6");
  refuses(
      [&] {
        s.run(by_seq, {{p, Tensor(DType::float32, Shape{2})}, {n, vec<std::int32_t>({1, 1})}});
      },
      "seq_dim must be < input rank ( 1 vs. 1)");
  refuses(
      [&] {
        s.run(negative_seq, {{p, x23}, {n, vec<std::int32_t>({1, 2})}});
      },
      "Invalid seq_dim -1");
  refuses(
      [&] {
        s.run(same_axes, {{p, x23}, {n, vec<std::int32_t>({1, 2})}});
      },
      "batch_dim == seq_dim == 0");
}

// _ReverseSequenceGrad: the gradient reversed back with the same lengths.
BOOST_AUTO_TEST_CASE(reverse_sequence_gradient_reverses_back, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(Tensor(DType::float32, Shape{2, 3}), "x");
  const Output lengths = g.constant(vec<std::int32_t>({3, 2}), "lengths");
  const Output w = g.constant(vec<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3}), "w");
  const Output y = af::reverse_sequence(x, lengths, 1);
  const std::vector<Output> dx = af::gradients({af::reduce_sum(af::mul(y, w))}, {x});
  BOOST_TEST(dx[0].node()->type() == "ReverseSequence");
  af::Session s(g);
  BOOST_TEST(s.run(dx[0]).to_vector<float>() == (std::vector<float>{3, 2, 1, 5, 4, 6}),
             boost::test_tools::per_element());
}

// Loss and gradient as TensorFlow's CTCLossCalculator; the gradient graph multiplies the
// op's second output (behind PreventGradient) by the loss's gradient.
BOOST_AUTO_TEST_CASE(ctc_loss_computes_and_differentiates_as_tensorflow,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(
      vec<float>({0.1f,  0.6f, 0.3f, 1.0f, -1.0f, 0.5f,  0.4f, 0.2f, 0.4f, 0.3f, 0.3f, 0.9f,
                  -0.5f, 1.5f, 0.2f, 0.0f, 0.8f,  -0.3f, 0.7f, 0.1f, 0.1f, 0.2f, 0.2f, 0.2f},
                 Shape{4, 2, 3}),
      "x");
  const SparseTensor labels = sparse(g, {0, 0, 0, 1, 1, 0}, vec<std::int32_t>({0, 1, 1}), {2, 2});
  const Output loss = af::nn::ctc_loss(labels, x, g.constant(vec<std::int32_t>({4, 3})));
  BOOST_TEST(loss.name() == "CTCLoss:0");
  BOOST_TEST(loss.shape() == PartialShape({2}));
  BOOST_TEST(loss.node()->num_outputs() == 2);
  const Output dx = af::gradients({af::reduce_sum(loss)}, {x})[0];
  BOOST_TEST(dx.node()->type() == "Mul");
  BOOST_TEST(g.output("gradients/CTCLoss_grad/PreventGradient:0").node()->type() ==
             "PreventGradient");
  // A second derivative meets PreventGradient.
  refuses<af::NotFoundError>(
      [&] { af::gradients({af::reduce_sum(dx)}, {x}); },
      "Currently there is no way to take the second  derivative of ctc_loss");
  af::Session s(g);
  near(s.run(loss).to_vector<float>(), {1.8057795f, 1.696091f});
  near(s.run(dx).to_vector<float>(),
       {-0.4196254f,  0.42601252f,  -0.006387115f, 0.574097f,  -0.042920887f, -0.53117615f,
        -0.1996718f,  0.09759869f,  0.102073014f,  0.261635f,  -0.1927681f,   -0.068867f,
        0.047830973f, -0.12727648f, 0.07944541f,   0.2521204f, -0.2876916f,   0.035571083f,
        0.47673002f,  -0.29645073f, -0.18027925f,  0.0f,       0.0f,          0.0f});
}

// CTCLoss's kernel checks, with TensorFlow's messages.
BOOST_AUTO_TEST_CASE(ctc_loss_refuses_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape::unknown(), "x");
  const Output ix = g.placeholder(DType::int64, PartialShape::unknown(), "ix");
  const Output v = g.placeholder(DType::int32, PartialShape::unknown(), "v");
  const Output n = g.placeholder(DType::int32, PartialShape::unknown(), "n");
  const Output loss = af::nn::ctc_loss_op(x, ix, v, n).loss;
  const Output ignoring =
      af::nn::ctc_loss_op(x, ix, v, n, {.ignore_longer_outputs_than_inputs = true}, "ignoring")
          .loss;
  refuses(
      [&] {
        af::nn::ctc_loss_op(g.constant(Tensor(DType::float32, Shape{4, 2})), ix, v, n);
      },
      "Shape must be rank 3 but is rank 2");
  refuses(
      [&] {
        af::nn::ctc_loss_op(g.constant(Tensor(DType::int32, Shape{4, 2, 3})), ix, v, n);
      },
      "Value for attr 'T' of int32 is not in the list of allowed values: float, double");
  af::Session s(g);
  const Tensor x423(DType::float32, Shape{4, 2, 3});
  auto run = [&](const Output& y, const I64& indices, const std::vector<std::int32_t>& values,
                 const std::vector<std::int32_t>& lengths) {
    const auto rows = static_cast<std::int64_t>(indices.size()) / 2;
    return s.run(y, {{x, x423},
                     {ix, Tensor::from_vector(indices, Shape{rows, 2})},
                     {v, vec(values)},
                     {n, vec(lengths)}});
  };
  refuses([&] { run(loss, {0, 0}, {0}, {4, 3}); }, "Labels length is zero in batch 1");
  refuses(
      [&] {
        run(loss, {0, 0, 0, 1, 0, 2, 1, 0}, {0, 1, 0, 1}, {2, 3});
      },
      "Not enough time for target transition sequence (required: 3, available: 2)0You can "
      "turn this error into a warning by using the flag ignore_longer_outputs_than_inputs");
  BOOST_TEST(run(ignoring, {0, 0, 0, 1, 0, 2, 1, 0}, {0, 1, 0, 1}, {2, 3}).to_vector<float>()[0] ==
             0.0f);
  refuses(
      [&] {
        run(loss, {1, 0, 0, 0}, {0, 1}, {4, 3});
      },
      "label SparseTensor is not valid: indices[1] = [0,0] is out of order. Many sparse ops "
      "require sorted indices.");
  refuses(
      [&] {
        run(loss, {0, 0, 2, 0}, {0, 1}, {4, 3});
      },
      "label SparseTensor is not valid: indices[1] = [2,0] is out of bounds: need 0 <= index "
      "< [2,1]");
  refuses([&] { run(loss, {0, 0, 1, 0}, {0, 1}, {5, 3}); }, "sequence_length(0) <= 4");
  refuses([&] { run(loss, {0, 0, 1, 0}, {0, 1}, {-1, 3}); }, "seq_len(0) < 0");
  refuses(
      [&] {
        run(loss, {0, 0, 1, 0}, {-1, 1}, {4, 3});
      },
      "All labels must be nonnegative integers, batch: 0 labels: -1");
  refuses(
      [&] {
        run(loss, {0, 0, 0, 1, 1, 0}, {2, 0, 1}, {4, 3});
      },
      "Saw a non-null label (index >= num_classes - 1) following a null label, batch: 0 "
      "num_classes: 3 labels: 2,0 labels seen so far: ");
  refuses(
      [&] {
        run(loss, {0, 0, 1, 0}, {0, 1}, {4, 3, 3});
      },
      "len(sequence_length) != batch_size.  len(sequence_length):  3 batch_size: 2");
  refuses(
      [&] {
        s.run(loss, {{x, Tensor(DType::float32, Shape{0, 2, 3})},
                     {ix, Tensor::from_vector(I64{0, 0, 1, 0}, Shape{2, 2})},
                     {v, vec<std::int32_t>({0, 1})},
                     {n, vec<std::int32_t>({0, 0})}});
      },
      "Max time or first dimension of input cannot be 0.");
}

// Best path: each step's greatest class, blanks (here class 1) dropped; the log probability
// is minus the sum of the greatest logits (TensorFlow's documentation example).
BOOST_AUTO_TEST_CASE(ctc_greedy_decoder_takes_the_best_path, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const float inf = std::numeric_limits<float>::infinity();
  const Output logits =
      g.constant(vec<float>({0.0f, -inf, -inf, -2.3f, -inf, -0.1f, -inf, -0.5f, -inf, -inf, -inf,
                             -0.1f, -inf, -inf, -inf, -0.1f, -inf, -2.3f},
                            Shape{3, 2, 3}),
                 "logits");
  const auto out =
      af::nn::ctc_greedy_decoder(logits, g.constant(vec<std::int32_t>({2, 3})), true, 1);
  BOOST_TEST_REQUIRE(out.decoded.size() == 1u);
  BOOST_TEST(out.decoded[0].indices.name() == "CTCGreedyDecoder:0");
  BOOST_TEST(out.decoded[0].indices.shape() == PartialShape({-1, 2}));
  BOOST_TEST(out.log_probability.shape() == PartialShape({2, 1}));
  const Output bad_blank = af::nn::ctc_greedy_decoder(logits, g.constant(vec<std::int32_t>({1, 2})),
                                                      true, 3, "bad_blank")
                               .log_probability;
  const Output too_long = af::nn::ctc_greedy_decoder(logits, g.constant(vec<std::int32_t>({1, 4})),
                                                     true, -1, "too_long")
                              .log_probability;
  af::Session s(g);
  const auto r = s.run({out.decoded[0].indices, out.decoded[0].values, out.decoded[0].dense_shape,
                        out.log_probability});
  BOOST_TEST(r[0].to_vector<std::int64_t>() == (I64{0, 0, 1, 0, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(r[1].to_vector<std::int64_t>() == (I64{0, 2, 0}), boost::test_tools::per_element());
  BOOST_TEST(r[2].to_vector<std::int64_t>() == (I64{2, 2}), boost::test_tools::per_element());
  near(r[3].to_vector<float>(), {0.5f, 0.3f});
  refuses([&] { s.run(bad_blank); }, "blank_index expected to be between -3 and 2 but was 3");
  refuses<af::FailedPreconditionError>([&] { s.run(too_long); }, "sequence_length(1) <= 3");
}

// TensorFlow's beam search: the Graves example, where the best path ("--") loses to "a", and
// a wider case without merging.
BOOST_AUTO_TEST_CASE(ctc_beam_search_decoder_finds_tensorflows_paths,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output graves = g.constant(
      vec<float>({std::log(0.3f), std::log(0.7f), std::log(0.4f), std::log(0.6f)}, Shape{2, 1, 2}),
      "graves");
  const auto a = af::nn::ctc_beam_search_decoder(graves, g.constant(vec<std::int32_t>({2})), 2, 2);
  BOOST_TEST_REQUIRE(a.decoded.size() == 2u);
  BOOST_TEST(a.decoded[1].values.name() == "CTCBeamSearchDecoder:3");
  BOOST_TEST(a.log_probability.name() == "CTCBeamSearchDecoder:6");
  BOOST_TEST(a.log_probability.shape() == PartialShape({1, 2}));
  const Output wide = g.constant(vec<float>({1.0f, 0.2f, 0.1f, 0.3f, 0.1f, 1.2f, 0.2f, 0.4f, 0.9f,
                                             0.3f, 0.1f, 1.1f, 0.2f, 0.9f, 0.8f, 0.1f},
                                            Shape{4, 1, 4}),
                                 "wide");
  const auto b =
      af::nn::ctc_beam_search_decoder(wide, g.constant(vec<std::int32_t>({4})), 3, 3, false);
  const Output too_many_paths =
      af::nn::ctc_beam_search_decoder(wide, g.constant(vec<std::int32_t>({4})), 2, 3)
          .log_probability;
  const Output too_few_leaves =
      af::nn::ctc_beam_search_decoder(wide, g.constant(vec<std::int32_t>({0})), 5, 3)
          .log_probability;
  refuses([&] { af::nn::ctc_beam_search_decoder(wide, g.constant(vec<std::int32_t>({4})), 3, 0); },
          "Value for attr 'top_paths' of 0 must be at least minimum 1");
  af::Session s(g);
  const auto ra = s.run({a.decoded[0].values, a.decoded[0].dense_shape, a.decoded[1].values,
                         a.decoded[1].dense_shape, a.log_probability});
  BOOST_TEST(ra[0].to_vector<std::int64_t>() == (I64{0}), boost::test_tools::per_element());
  BOOST_TEST(ra[1].to_vector<std::int64_t>() == (I64{1, 1}), boost::test_tools::per_element());
  BOOST_TEST(ra[2].num_elements() == 0);
  BOOST_TEST(ra[3].to_vector<std::int64_t>() == (I64{1, 0}), boost::test_tools::per_element());
  near(ra[4].to_vector<float>(), {-0.5447272f, -0.86750054f});
  const auto rb =
      s.run({b.decoded[0].values, b.decoded[1].values, b.decoded[2].values, b.log_probability});
  BOOST_TEST(rb[0].to_vector<std::int64_t>() == (I64{0, 1}), boost::test_tools::per_element());
  BOOST_TEST(rb[1].to_vector<std::int64_t>() == (I64{0, 1, 2}), boost::test_tools::per_element());
  BOOST_TEST(rb[2].to_vector<std::int64_t>() == (I64{1, 2}), boost::test_tools::per_element());
  near(rb[3].to_vector<float>(), {-2.5151594f, -3.1091542f, -3.2849176f});
  refuses([&] { s.run(too_many_paths); }, "requested more paths than the beam width.");
  refuses([&] { s.run(too_few_leaves); }, "Less leaves in the beam search than requested.");
}

// TensorFlow's documentation example: a hypothesis without truth gives inf, a truth without
// hypothesis 1 (normalized).
BOOST_AUTO_TEST_CASE(edit_distance_normalizes_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const SparseTensor hypothesis =
      sparse(g, {0, 0, 0, 1, 0, 0}, vec<std::string>({"a", "b"}), {2, 1, 1});
  const SparseTensor truth = sparse(g, {0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0},
                                    vec<std::string>({"a", "b", "c", "a"}), {2, 2, 2});
  const Output d = af::edit_distance(hypothesis, truth);
  BOOST_TEST(d.name() == "edit_distance:0");
  BOOST_TEST(d.shape() == PartialShape({2, 2}));
  const Output raw = af::edit_distance(hypothesis, truth, false, "raw");
  af::Session s(g);
  const float inf = std::numeric_limits<float>::infinity();
  BOOST_TEST(s.run(d).to_vector<float>() == (std::vector<float>{inf, 1.0f, 0.5f, 1.0f}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(raw).to_vector<float>() == (std::vector<float>{1.0f, 1.0f, 1.0f, 1.0f}),
             boost::test_tools::per_element());
}

// EditDistance's shape function and kernel checks, with TensorFlow's messages.
BOOST_AUTO_TEST_CASE(edit_distance_refuses_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const SparseTensor h2 = sparse(g, {0, 0}, vec<std::int64_t>({1}), {2, 3});
  const SparseTensor t3 = sparse(g, {0, 0, 0}, vec<std::int64_t>({1}), {2, 3, 4});
  refuses([&] { af::edit_distance(h2, t3); },
          "Num elements of hypothesis_shape does not match truth_shape: 2 vs. 3");
  const SparseTensor h1 = sparse(g, {0}, vec<std::int64_t>({1}), {3});
  refuses([&] { af::edit_distance(h1, h1); },
          "Input Hypothesis SparseTensors must have rank at least 2, but hypothesis_shape rank "
          "is: 1");
  refuses(
      [&] {
        af::edit_distance(
            SparseTensor{h2.indices, g.constant(vec<std::int64_t>({1, 2})), h2.dense_shape}, h2);
      },
      "Number of elements in index (1) and values (2) do not match.");
  const Output shape = g.placeholder(DType::int64, PartialShape{-1}, "shape");
  const Output unknown = af::edit_distance(SparseTensor{h2.indices, h2.values, shape}, h2);
  BOOST_TEST(!unknown.shape().rank_known());
  const SparseTensor empty = sparse(g, {}, vec<std::int64_t>({}), {2, 3});
  const Output zero =
      af::edit_distance(SparseTensor{empty.indices, empty.values, shape},
                        SparseTensor{empty.indices, empty.values, shape}, true, "zero");
  const SparseTensor outside = sparse(g, {5, 0}, vec<std::int64_t>({1}), {2, 3});
  const Output out_of_range = af::edit_distance(outside, h2, true, "out_of_range");
  af::Session s(g);
  refuses<af::InternalError>(
      [&] { s.run(out_of_range); },
      "Got an inner product 5 which would require writing to outside of the buffer for the "
      "output tensor (max elements 2)");
  refuses(
      [&] {
        s.run(zero, {{shape, vec<std::int64_t>({0, 3})}});
      },
      "Got output shape [0] which has 0 elements");
  refuses(
      [&] {
        s.run(unknown, {{shape, vec<std::int64_t>({-2, 3})}});
      },
      "Dimension -2 must be >= 0");
  refuses(
      [&] {
        s.run(unknown, {{shape, vec<std::int64_t>({2, 3, 4})}});
      },
      "Expected hypothesis_shape.NumElements == #cols(hypothesis_indices), their shapes "
      "are: [3] and [1,2]");
}

BOOST_AUTO_TEST_SUITE_END()
