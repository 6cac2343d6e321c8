// The op types TensorFlow 2.x writes into tf.compat.v1 graphs (AddV2, PlaceholderWithDefault,
// DivNoNan, SelectV2, BroadcastTo, LeakyRelu) and the sharded Saver's string ops, built as an
// imported GraphDef would build them (Graph::create_op with TensorFlow's attrs) and run:
// values and gradients as TensorFlow computes them, and its error messages.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

namespace {

af::Output op(af::Graph& g, const char* type, const std::vector<af::Output>& inputs,
              af::AttrMap attrs = {}) {
  return g.create_op(type, inputs, std::move(attrs)).output(0);
}

af::Output vec(af::Graph& g, std::vector<float> v, af::Shape shape) {
  return g.constant(af::Tensor::from_vector(v, shape));
}

std::vector<float> run(af::Graph& g, const af::Output& y, const af::FeedDict& feeds = {}) {
  af::Session s(g);
  return s.run(y, feeds).to_vector<float>();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compat_v2_ops_conformance_test)

BOOST_AUTO_TEST_CASE(add_v2_adds_with_broadcasting_and_has_adds_gradient,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = vec(g, {1, 2, 3, 4}, af::Shape{2, 2});
  auto y = op(g, "AddV2", {x, vec(g, {10, 20}, af::Shape{2})}, {{"T", af::float32}});
  BOOST_TEST(run(g, y) == (std::vector<float>{11, 22, 13, 24}), boost::test_tools::per_element());
  auto grads = af::gradients({af::reduce_sum(y)}, {x});
  BOOST_TEST(run(g, grads[0]) == (std::vector<float>{1, 1, 1, 1}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(placeholder_with_default_gives_its_input_unless_fed,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto d = op(g, "PlaceholderWithDefault", {vec(g, {1, 2}, af::Shape{2})},
              {{"dtype", af::float32}, {"shape", af::PartialShape{-1}}});
  BOOST_TEST(d.shape() == (af::PartialShape{-1}));
  BOOST_TEST(run(g, d) == (std::vector<float>{1, 2}), boost::test_tools::per_element());
  BOOST_TEST(
      run(g, d, {{d, af::Tensor::from_vector<float>({7, 8, 9})}}) == (std::vector<float>{7, 8, 9}),
      boost::test_tools::per_element());
  BOOST_CHECK_THROW(op(g, "PlaceholderWithDefault", {vec(g, {1, 2}, af::Shape{2})},
                       {{"dtype", af::float32}, {"shape", af::PartialShape{3}}}),
                    af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(div_no_nan_is_zero_where_the_divisor_is_zero, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = vec(g, {1, 2, 0, -3}, af::Shape{4});
  auto y = vec(g, {2, 0, 0, 4}, af::Shape{4});
  auto q = op(g, "DivNoNan", {x, y}, {{"T", af::float32}});
  BOOST_TEST(run(g, q) == (std::vector<float>{0.5f, 0, 0, -0.75f}),
             boost::test_tools::per_element());
  auto grads = af::gradients({af::reduce_sum(q)}, {x, y});
  // d/dx = div_no_nan(1, y); d/dy = div_no_nan(div_no_nan(-x, y), y).
  BOOST_TEST(run(g, grads[0]) == (std::vector<float>{0.5f, 0, 0, 0.25f}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, grads[1]) == (std::vector<float>{-0.25f, 0, 0, 0.1875f}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(select_v2_broadcasts_its_three_inputs_and_reduces_their_gradients,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto c = g.constant(af::Tensor::from_vector<bool>({true, false}, af::Shape{2, 1}));
  auto t = vec(g, {1, 2, 3}, af::Shape{1, 3});
  auto e = g.constant(af::Tensor(-1.0f));
  auto s = op(g, "SelectV2", {c, t, e}, {{"T", af::float32}});
  BOOST_TEST(s.shape() == (af::PartialShape{2, 3}));
  BOOST_TEST(run(g, s) == (std::vector<float>{1, 2, 3, -1, -1, -1}),
             boost::test_tools::per_element());
  auto grads = af::gradients({af::reduce_sum(s)}, {t, e});
  BOOST_TEST(run(g, grads[0]) == (std::vector<float>{1, 1, 1}), boost::test_tools::per_element());
  BOOST_TEST(run(g, grads[1]) == (std::vector<float>{3}), boost::test_tools::per_element());
  // Shapes that do not broadcast fail at run time with TensorFlow's message.
  auto p = g.placeholder(af::float32, af::PartialShape::unknown(), "p");
  auto bad = op(g, "SelectV2", {c, t, p}, {{"T", af::float32}});
  af::Session sess(g);
  BOOST_CHECK_EXCEPTION(
      sess.run(bad, {{p, af::Tensor::from_vector<float>({1, 2, 3, 4}, af::Shape{4})}}),
      af::InvalidArgumentError, [](const af::InvalidArgumentError& err) {
        return std::string(err.what())
                   .find(
                       "condition [2,1], then [1,3], and else [4] must be "
                       "broadcastable") != std::string::npos;
      });
}

BOOST_AUTO_TEST_CASE(broadcast_to_repeats_and_its_gradient_sums, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = vec(g, {1, 2, 3}, af::Shape{3});
  auto shape = g.constant(af::Tensor::from_vector<std::int32_t>({2, 3}));
  auto b = op(g, "BroadcastTo", {x, shape}, {{"T", af::float32}, {"Tidx", af::int32}});
  BOOST_TEST(b.shape() == (af::PartialShape{2, 3}));
  BOOST_TEST(run(g, b) == (std::vector<float>{1, 2, 3, 1, 2, 3}), boost::test_tools::per_element());
  auto grads = af::gradients({af::reduce_sum(b)}, {x});
  BOOST_TEST(run(g, grads[0]) == (std::vector<float>{2, 2, 2}), boost::test_tools::per_element());
  BOOST_CHECK_THROW(
      op(g, "BroadcastTo", {x, g.constant(af::Tensor::from_vector<std::int32_t>({2, 4}))},
         {{"T", af::float32}, {"Tidx", af::int32}}),
      af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(leaky_relu_scales_negatives_by_alpha_in_value_and_gradient,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = vec(g, {-2, -0.5f, 0, 3}, af::Shape{4});
  auto y = op(g, "LeakyRelu", {x}, {{"T", af::float32}, {"alpha", 0.1f}});
  BOOST_TEST(run(g, y) == (std::vector<float>{-0.2f, -0.05f, 0, 3}),
             boost::test_tools::per_element());
  auto grads = af::gradients({af::reduce_sum(y)}, {x});
  BOOST_TEST(run(g, grads[0]) == (std::vector<float>{0.1f, 0.1f, 0.1f, 1}),
             boost::test_tools::per_element());
  auto fallback = op(g, "LeakyRelu", {x}, {{"T", af::float32}});  // alpha defaults to 0.2
  BOOST_TEST(run(g, fallback) == (std::vector<float>{-0.4f, -0.1f, 0, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_sharded_savers_string_ops_build_its_file_names,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto prefix = g.constant(af::Tensor(std::string("ckpt/model")));
  auto is_s3 = g.create_op("StaticRegexFullMatch", {prefix}, {{"pattern", std::string("^s3://.*")}})
                   .output(0);
  auto temp = g.create_op("StringJoin", {prefix, g.constant(af::Tensor(std::string("_temp/part")))},
                          {{"N", std::int64_t{2}}, {"separator", std::string("")}})
                  .output(0);
  auto shard = g.create_op("ShardedFilename", {temp, g.constant(af::Tensor(std::int32_t{0})),
                                               g.constant(af::Tensor(std::int32_t{1}))})
                   .output(0);
  auto joined = g.create_op("StringJoin",
                            {g.constant(af::Tensor::from_vector<std::string>({"a", "b"})),
                             g.constant(af::Tensor(std::string("x")))},
                            {{"N", std::int64_t{2}}, {"separator", std::string("-")}})
                    .output(0);
  af::Session s(g);
  BOOST_TEST(s.run(is_s3).scalar<bool>() == false);
  BOOST_TEST(s.run(shard).scalar<std::string>() == "ckpt/model_temp/part-00000-of-00001");
  BOOST_TEST(s.run(joined).to_vector<std::string>() == (std::vector<std::string>{"a-x", "b-x"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
