// The einsum family against TensorFlow's behaviour: af::einsum names, resolves and shapes its
// Einsum ops as tf.einsum, the kernel computes products, traces, diagonals and broadcast
// ellipses, the gradients follow _EinsumGrad, and bad equations and shapes fail with
// TensorFlow's messages (Python's ValueError, the shape function's and the kernel's). The
// values of every case against TensorFlow 2.21 are in the op fixtures
// (scripts/peers/op_cases_einsum.py).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/einsum_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::Tensor;
using af::test::fails_with;
using af::test::refuses;
using af::test::values;

template <class T>
Output constant(af::Graph& g, std::vector<T> v, const af::Shape& shape,
                const std::string& name = {}) {
  return g.constant(Tensor::from_vector(std::move(v), shape), name);
}

std::string equation_of(const Output& y) { return *y.node()->def().attr<std::string>("equation"); }

// An Einsum op as tf.raw_ops.Einsum builds it, with no Python-side checks.
Output raw_einsum(const std::vector<Output>& inputs, const std::string& equation) {
  return inputs[0]
      .graph()
      .create_op("Einsum", inputs,
                 {{"equation", equation},
                  {"N", static_cast<std::int64_t>(inputs.size())},
                  {"T", inputs[0].dtype()}},
                 "Einsum")
      .output(0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(einsum_ops_test)

BOOST_AUTO_TEST_CASE(einsum_names_and_shapes_its_ops_as_tf_einsum) {
  af::Graph g;
  const Output a = g.placeholder(DType::float32, af::PartialShape{2, 3}, "a");
  const Output b = g.placeholder(DType::float32, af::PartialShape{3, 4}, "b");
  const Output product = af::einsum("ij,jk->ik", {a, b});
  BOOST_TEST(product.name() == "einsum/Einsum:0");
  BOOST_TEST(product.node()->type() == "Einsum");
  BOOST_TEST((product.shape() == af::PartialShape{2, 4}));
  // Implicit outputs: the labels that appear once, sorted; spaces dropped.
  const Output implicit = af::einsum("ij, jk", {a, b}, "mm");
  BOOST_TEST(implicit.name() == "mm/Einsum:0");
  BOOST_TEST(equation_of(implicit) == "ij,jk->ik");
  const Output trace = af::einsum("ii", {g.placeholder(DType::float32, af::PartialShape{3, 3})});
  BOOST_TEST(equation_of(trace) == "ii->");
  BOOST_TEST(trace.shape().rank() == 0);
  BOOST_TEST(equation_of(af::einsum("ba", {a})) == "ba->ab");
  // Broadcast ellipses, unknown dimensions merged by label.
  const Output x = g.placeholder(DType::float32, af::PartialShape{2, 1, 2, 3});
  const Output y = g.placeholder(DType::float32, af::PartialShape{5, 3, -1});
  const Output batched = af::einsum("...ij,...jk->...ik", {x, y});
  BOOST_TEST((batched.shape() == af::PartialShape{2, 5, 2, -1}));
  BOOST_TEST(equation_of(batched) == "...ij,...jk->...ik");
  BOOST_TEST((af::einsum("...ij", {x}).shape() == af::PartialShape{2, 1, 2, 3}));
  const Output open = g.placeholder(DType::float32, af::PartialShape(), "open");
  BOOST_TEST(!af::einsum("...ij->...ji", {open}).shape().rank_known());
  BOOST_TEST((af::einsum("ij->ji", {open}).shape() == af::PartialShape{-1, -1}));
  BOOST_TEST(trace.name() == "einsum_1/Einsum:0");
}

BOOST_AUTO_TEST_CASE(einsum_of_three_operands_chains_two_input_einsums) {
  af::Graph g;
  const Output a = g.placeholder(DType::float32, af::PartialShape{2, 3}, "a");
  const Output b = g.placeholder(DType::float32, af::PartialShape{3, 4}, "b");
  const Output c = g.placeholder(DType::float32, af::PartialShape{4, 5}, "c");
  const Output chain = af::einsum("ij,jk,kl->il", {a, b, c});
  BOOST_TEST(chain.name() == "einsum/Einsum_1:0");
  BOOST_TEST((chain.shape() == af::PartialShape{2, 5}));
  BOOST_TEST(equation_of(chain) == "ik,kl->il");
  const Output first = chain.node()->inputs()[0];
  BOOST_TEST(first.name() == "einsum/Einsum:0");
  BOOST_TEST(equation_of(first) == "ij,jk->ik");
}

BOOST_AUTO_TEST_CASE(einsum_computes_products_traces_diagonals_and_broadcasts) {
  af::Graph g;
  const Output m = constant<float>(g, {1, 2, 3, 4, 5, 6}, af::Shape{2, 3});
  const Output n = constant<float>(g, {1, 0, 2, 1, 0, 3}, af::Shape{3, 2});
  const Output sq = constant<float>(g, {1, 2, 3, 4, 5, 6, 7, 8, 9}, af::Shape{3, 3});
  const Output v = constant<float>(g, {1, 2, 3}, af::Shape{3});
  const Output batch =
      constant<float>(g, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, af::Shape{2, 1, 2, 3});
  const Output ints = constant<std::int32_t>(g, {1, 2, 3, 4, 5, 6}, af::Shape{2, 3});
  af::Session sess(g);
  const auto r = sess.run(
      {af::einsum("ij,jk->ik", {m, n}), af::einsum("ii->", {sq}), af::einsum("ii->i", {sq}),
       raw_einsum({v}, "i->ii"), af::einsum("ij->j", {m}), af::einsum("i,j->ij", {v, v}),
       af::einsum("...ij,jk->...ik", {batch, n}), af::einsum("ij,kj->ik", {ints, ints})});
  BOOST_TEST(values<float>(r[0]) == (std::vector<float>{5, 11, 14, 23}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[1]) == std::vector<float>{15}, boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[2]) == (std::vector<float>{1, 5, 9}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[3]) == (std::vector<float>{1, 0, 0, 0, 2, 0, 0, 0, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[4]) == (std::vector<float>{5, 7, 9}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[5]) == (std::vector<float>{1, 2, 3, 2, 4, 6, 3, 6, 9}),
             boost::test_tools::per_element());
  BOOST_TEST(r[6].shape().dims() == (std::vector<std::int64_t>{2, 1, 2, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[6]) == (std::vector<float>{5, 11, 14, 23, 23, 35, 32, 47}),
             boost::test_tools::per_element());
  BOOST_TEST(values<std::int32_t>(r[7]) == (std::vector<std::int32_t>{14, 32, 32, 77}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(einsum_of_empty_dimensions_gives_zeros_or_empty_results) {
  af::Graph g;
  const Output a = constant<float>(g, {}, af::Shape{2, 0});
  const Output b = constant<float>(g, {}, af::Shape{0, 3});
  af::Session sess(g);
  const auto r = sess.run(
      {af::einsum("ij,jk->ik", {a, b}), af::einsum("ij,jk->ki", {a, b}), af::einsum("ij->i", {a})});
  BOOST_TEST(values<float>(r[0]) == std::vector<float>(6, 0.0f), boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[1]) == std::vector<float>(6, 0.0f), boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[2]) == (std::vector<float>{0, 0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(einsum_gradients_follow_einsum_grad) {
  af::Graph g;
  const Output m = constant<float>(g, {1, 2, 3, 4, 5, 6}, af::Shape{2, 3});
  const Output n = constant<float>(g, {1, 0, 2, 1, 0, 3}, af::Shape{3, 2});
  const Output sq = constant<float>(g, {1, 2, 3, 4, 5, 6, 7, 8, 9}, af::Shape{3, 3});
  const Output x = constant<float>(g, std::vector<float>(12, 1.0f), af::Shape{2, 1, 2, 3});
  const Output x3 = constant<float>(g, std::vector<float>(12, 1.0f), af::Shape{2, 2, 3});
  const Output y = constant<float>(g, std::vector<float>(30, 1.0f), af::Shape{5, 3, 2});
  const auto product = af::gradients({af::einsum("ij,jk->ik", {m, n})}, {m, n});
  const auto trace = af::gradients({af::einsum("ii->", {sq})}, {sq});
  const auto sum = af::gradients({af::einsum("ij->", {m})}, {m});
  const auto reduced = af::gradients({af::einsum("abc,cd->ad", {x3, n})}, {x3, n});
  const auto bcast = af::gradients({af::einsum("...ij,...jk->...ik", {x, y})}, {x, y});
  af::Session sess(g);
  const auto r = sess.run(
      {product[0], product[1], trace[0], sum[0], reduced[0], reduced[1], bcast[0], bcast[1]});
  // d(sum(m n))/dm = ones [2,2] n^T; /dn = m^T ones [2,2].
  BOOST_TEST(values<float>(r[0]) == (std::vector<float>{1, 3, 3, 1, 3, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[1]) == (std::vector<float>{5, 5, 7, 7, 9, 9}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[2]) == (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[3]) == std::vector<float>(6, 1.0f), boost::test_tools::per_element());
  BOOST_TEST(r[4].shape().dims() == (std::vector<std::int64_t>{2, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[4]) == (std::vector<float>{1, 3, 3, 1, 3, 3, 1, 3, 3, 1, 3, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[5]) == std::vector<float>(6, 4.0f), boost::test_tools::per_element());
  // x's batch [2, 1] broadcast against y's [5]: x's gradient sums the 5, y's the 2.
  BOOST_TEST(values<float>(r[6]) == std::vector<float>(12, 10.0f),
             boost::test_tools::per_element());
  BOOST_TEST(r[7].shape().dims() == (std::vector<std::int64_t>{5, 3, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(values<float>(r[7]) == std::vector<float>(30, 4.0f), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(einsum_refuses_bad_equations_as_tf_einsum) {
  af::Graph g;
  const Output a = g.placeholder(DType::float32, af::PartialShape{2, 3}, "a");
  const Output b = g.placeholder(DType::float32, af::PartialShape{2, 4}, "b");
  refuses([&] { af::einsum("ij->i->j", {a}); }, "Subscripts have incorrect format: ij->i->j");
  refuses([&] { af::einsum("i1->i", {a}); }, "Subscripts have incorrect format: i1->i");
  refuses([&] { af::einsum("ij,jk->ik", {a}); },
          "Got 1 inputs for equation \"ij,jk->ik\", expecting 2");
  refuses([&] { af::einsum("ij->ii", {a}); },
          "Output subscripts contain a label appearing more than once: ij->ii");
  refuses([&] { af::einsum("ij->ik", {a}); },
          "Output subscripts contain the label k not present in the input subscripts.");
  refuses([&] { af::einsum("0...i->i", {a}); }, "Invalid character \"0\" in equation: 0...i->i.");
  refuses(
      [&] {
        af::einsum("ij,jk->ik", {a, g.placeholder(DType::float64)});
      },
      "Tensors in list passed to 'inputs' of 'Einsum' Op have types [float32, float64] "
      "that don't all match.");
  // The shape function's messages, for shapes known while building.
  refuses([&] { af::einsum("ij,jk->ik", {a, b}); }, "Dimensions must be equal, but are 3 and 2");
  refuses([&] { af::einsum("ijk->i", {a}); },
          "Shape must be rank 3 but is rank 2\n\t for 0th input and equation: ijk->i");
  refuses([&] { af::einsum("...ijk->ij", {a}); },
          "Shape must be at least rank 3 but is rank 2\n\t for 0th input and equation: "
          "...ijk->ij");
  refuses([&] { af::einsum("...j->j", {a}); },
          "Shape must be at most rank 0 but is rank 1\n\t for einsum equation '...j->j' "
          "without ellipsis (...) in the output subscripts where input(s) have non-empty "
          "broadcasting shape");
  refuses(
      [&] {
        af::einsum("...ij,...jk->...ik",
                   {g.placeholder(DType::float32, af::PartialShape{2, 2, 3}),
                    g.placeholder(DType::float32, af::PartialShape{3, 3, 4})});
      },
      "Dimensions must be equal, but are 2 and 3");
  // The op itself (tf.raw_ops.Einsum) as TensorFlow's EinsumShape checks it.
  refuses([&] { raw_einsum({a}, "ij,jk->ik"); },
          "Expected 2 inputs for equation ij,jk->ik but got: 1");
  refuses([&] { raw_einsum({a}, "ij"); }, "Expecting exactly one '->' in einsum equation: ij");
  refuses(
      [&] {
        raw_einsum({a, a, a}, "ij,jk,kl->il");
      },
      "Expecting 1 or 2 input subscripts in equation 'ij,jk,kl->il' but got: 3");
  refuses([&] { raw_einsum({a}, "..ij->ij"); },
          "Expected at most one ellipsis (...), but found 2 periods (.) in the input "
          "subscript: ..ij");
  refuses([&] { raw_einsum({a}, "i.j..->ij"); },
          "Periods found outside of ellipsis in subscript: i.j..");
  refuses([&] { raw_einsum({a}, "ij->ik"); },
          "Einsum output subscripts for equation 'ij->ik' has label 'k' which is not present "
          "in the input subscripts");
  refuses([&] { raw_einsum({a}, "ii->i"); }, "Dimensions must be equal, but are 2 and 3");
}

BOOST_AUTO_TEST_CASE(einsum_fails_the_step_with_the_kernels_messages) {
  af::Graph g;
  const Output p = g.placeholder(DType::float32, af::PartialShape(), "p");
  const Output q = g.placeholder(DType::float32, af::PartialShape(), "q");
  const Tensor m23 = Tensor::from_vector(std::vector<float>(6, 1.0f), af::Shape{2, 3});
  const Tensor m24 = Tensor::from_vector(std::vector<float>(8, 1.0f), af::Shape{2, 4});
  const Tensor b223 = Tensor::from_vector(std::vector<float>(12, 1.0f), af::Shape{2, 2, 3});
  const Tensor b334 = Tensor::from_vector(std::vector<float>(36, 1.0f), af::Shape{3, 3, 4});
  const Output rank3 = af::einsum("ijk->i", {p}, "rank3");
  const Output at_least = af::einsum("...ijk->ij", {p}, "at_least");
  const Output mismatch = af::einsum("ij,jk->ik", {p, q}, "mismatch");
  const Output diagonal = af::einsum("ii->i", {p}, "diagonal");
  const Output no_ellipsis = af::einsum("...ij,jk->ik", {p, q}, "no_ellipsis");
  const Output batches = af::einsum("...ij,...jk->...ik", {p, q}, "batches");
  const Output dot = af::einsum("...i,...i->...", {p, q}, "dot");
  af::Session sess(g);
  fails_with(sess, rank3, "Expected input 0 to have rank 3 but got: 2", {{p, m23}});
  fails_with(sess, at_least, "Expected input 0 to have rank at least 3 but got: 2", {{p, m23}});
  fails_with(sess, mismatch,
             "Expected dimension 3 at axis 0 of the input shaped [2,4] but got dimension 2",
             {{p, m23}, {q, m24}});
  fails_with(sess, diagonal,
             "Expected dimension 2 at axis 1 of the input shaped [2,3] but got dimension 3",
             {{p, m23}});
  fails_with(sess, no_ellipsis,
             "Output contains 1 broadcasting dimension(s) but no ellipsis (...) was found in the "
             "output subscripts.",
             {{p, b223}, {q, Tensor::from_vector(std::vector<float>(12, 1.0f), af::Shape{3, 4})}});
  fails_with(sess, batches, "Invalid broadcasting dimensions: [2,2,3] vs. [3,3,4]",
             {{p, b223}, {q, b334}});
  fails_with(sess, dot, "Invalid broadcasting dimensions: [2,3,1] vs. [4,3,1]",
             {{p, m23}, {q, Tensor::from_vector(std::vector<float>(12, 1.0f), af::Shape{4, 3})}});
  fails_with(sess, mismatch, "{{node mismatch/Einsum}}", {{p, m23}, {q, m24}});
}

BOOST_AUTO_TEST_SUITE_END()
