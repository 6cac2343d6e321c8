// TensorArrays (`af::TensorArray`, TensorFlow 1.x's tf.TensorArray in graph mode): the
// arrays' semantics and TensorFlow's errors (tensor_array.h), TensorFlow's graph for arrays in
// and out of a while loop with two gradients calls through them, node for node
// (tests/data/tf_graph/tensor_array, make_graph_fixtures.py make-tensor-array), gradients of
// a recurrence through arrays against central differences, and TensorFlow's dynamic_rnn,
// map_fn and scan trained from its checkpoint to its losses (tests/data/tf_graph/rnn,
// make_graph_fixtures.py make-rnn).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "graph_compare.hpp"
#include "matchers.hpp"
#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;
using af::TensorArray;
using af::test::error_of;
using Vars = std::vector<Output>;

const std::filesystem::path data_dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph";

nlohmann::json reference(const std::filesystem::path& dir) {
  std::ifstream in(dir / "reference.json");
  return nlohmann::json::parse(in);
}

/// A json array of arrays of floats, flattened.
std::vector<float> flat(const nlohmann::json& rows) {
  std::vector<float> out;
  for (const auto& row : rows)
    for (const auto& v : row) out.push_back(v.get<float>());
  return out;
}

Tensor matrix(const std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
  return Tensor::from_vector(v, af::Shape{rows, cols});
}

/// `op(x, number)` named as TensorFlow's Python names it: the number is "<op>/y".
template <class Fn>
Output with_number(const Output& x, double number, const char* op, Fn fn) {
  return af::detail::with_scalar(x, number, false, op,
                                 [&](auto& a, auto& b, auto name) { return fn(a, b, name); });
}

/// make_graph_fixtures.py make-tensor-array, built with `TensorArray`.
void build_tensorflows_fixture(af::Graph& g) {
  const Output x = g.placeholder(af::float32, af::PartialShape{5, 3}, "x");
  const Output order = g.constant(Tensor::from_vector<std::int32_t>({4, 3, 2, 1, 0}), "order");
  const Output picks = g.constant(Tensor::from_vector<std::int32_t>({0, 2}), "picks");
  const Output lengths = g.constant(Tensor::from_vector<std::int64_t>({2, 3}), "lengths");
  const TensorArray ta = TensorArray(g, af::float32, 5).unstack(x);
  const TensorArray out(g, af::float32, 5);
  Vars r = af::while_loop([&](const Vars& v) { return with_number(v[0], 5, "Less", af::less); },
                          [&](const Vars& v) {
                            Output next = v[0] + 1;
                            Output read = ta.read(v[0]);
                            Output value = af::tanh(read) * read;
                            return Vars{next, out.with_flow(v[1]).write(v[0], value).flow()};
                          },
                          {g.constant(0), out.flow()});
  const Output y = af::identity(out.with_flow(r[1]).stack(), "y");
  const Output joined =
      af::reshape(TensorArray(g, af::float32, 2, {.infer_shape = false}).split(x, lengths).concat(),
                  std::vector<std::int64_t>{5, 3});
  const Output picked = TensorArray(g, af::float32, 5).scatter(order, x).gather(picks);
  const Output squares = af::reduce_sum(y * y);
  const Output squared = af::reduce_sum(joined * joined);
  const Output loss = af::add(squares, squared + af::reduce_sum(picked), "loss");
  af::identity(af::gradients({loss}, {x})[0], "dx");
  af::identity(af::gradients({af::reduce_sum(y)}, {x})[0], "dy");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tensor_array_test)

// Unstack, read, gather, stack, split, concat and size give back what went in.
BOOST_AUTO_TEST_CASE(an_array_gives_back_what_was_written, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.constant(matrix({1, 2, 3, 4, 5, 6}, 3, 2), "x");
  const TensorArray ta = TensorArray(g, af::float32, 3, {.clear_after_read = false}).unstack(x);
  BOOST_TEST(ta.element_shape() == af::PartialShape{2});
  const Output stacked = ta.stack();
  BOOST_TEST(stacked.shape() == af::PartialShape({3, 2}));
  const Output row = ta.read(2);
  BOOST_TEST(row.shape() == af::PartialShape{2});
  const Output picked = ta.gather(g.constant(Tensor::from_vector<std::int32_t>({2, 0})));
  const TensorArray pieces =
      TensorArray(g, af::float32, 2, {.clear_after_read = false, .infer_shape = false})
          .split(x, g.constant(Tensor::from_vector<std::int32_t>({1, 2})));
  const Output joined = pieces.concat();
  const Output second = pieces.read(1);
  const TensorArray grown =
      TensorArray(g, af::float32, 0, {.dynamic_size = true})
          .write(g.constant(3), g.constant(Tensor::from_vector<float>({7, 8})));
  const Output grown_size = grown.size();
  BOOST_TEST(grown_size.op().type() == "TensorArraySizeV3");
  const Output unwritten = grown.read(1);  // element shape known from the write: zeros
  af::Session sess(g);
  auto out = sess.run({stacked, row, picked, joined, second, grown_size, unwritten, ta.size()});
  BOOST_TEST(out[0].to_vector<float>() == std::vector<float>({1, 2, 3, 4, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(out[1].to_vector<float>() == std::vector<float>({5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(out[2].shape() == af::Shape({2, 2}));
  BOOST_TEST(out[2].to_vector<float>() == std::vector<float>({5, 6, 1, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(out[3].to_vector<float>() == std::vector<float>({1, 2, 3, 4, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(out[4].shape() == af::Shape({2, 2}));
  BOOST_TEST(out[5].scalar<std::int32_t>() == 4);
  BOOST_TEST(out[6].to_vector<float>() == std::vector<float>({0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(out[7].scalar<std::int32_t>() == 3);
}

// TensorFlow's errors, each naming the array.
BOOST_AUTO_TEST_CASE(an_array_refuses_misuse_with_tensorflows_errors,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output v = g.constant(Tensor::from_vector<float>({1, 2}), "v");
  const TensorArray ta(g, af::float32, 3, {.tensor_array_name = "arr"});
  const TensorArray written = ta.write(0, v);
  const Output first = written.read(0);
  Output again;
  {
    auto after = g.control_dependencies({first.op()});
    again = written.read(0);
  }
  const Output twice = written.write(0, v).flow();
  const Output out_of_range = ta.write(5, v).flow();
  const Output wrong_dtype =
      ta.write(1, g.constant(Tensor::from_vector<std::int32_t>({1, 2}))).flow();
  const Output unknown = TensorArray(g, af::float32, 2, {.infer_shape = false}).read(1);
  const Output empty = TensorArray(g, af::float32, 0, {.infer_shape = false}).stack();
  const Output negative = TensorArray(g, af::float32, 2, {.infer_shape = false})
                              .split(g.constant(Tensor::from_vector<float>({1, 2, 3})),
                                     g.constant(Tensor::from_vector<std::int64_t>({-1, 4})))
                              .flow();
  const Output overflowing =
      TensorArray(g, af::float32, 2, {.infer_shape = false})
          .split(g.constant(Tensor::from_vector<float>({1, 2, 3})),
                 g.constant(Tensor::from_vector<std::int64_t>({2, INT64_MAX})))
          .flow();
  const Output of_handles = TensorArray(g, af::DType::resource, 1).flow();
  const af::Operation closed = written.close();
  Output after_close;
  {
    auto after = g.control_dependencies({closed});
    after_close = written.read(0);
  }
  af::Session sess(g);
  auto expect = [&](const Output& fetch, const std::string& want) {
    const std::string got = error_of([&] { sess.run(fetch); });
    BOOST_TEST(got.find(want) != std::string::npos, got);
  };
  expect(again,
         "TensorArray arr_");  // the name the kernel made unique
  expect(again,
         ": Could not read index 0 twice because it was cleared after a previous read (perhaps "
         "try setting clear_after_read = false?).");
  expect(twice, ": Could not write to TensorArray index 0 because it has already been written to.");
  expect(out_of_range, ": Tried to write to index 5 but array is not resizeable and size is: 3");
  expect(wrong_dtype, "TensorArray dtype is float but Op is trying to write dtype int32.");
  expect(unknown,
         ": Could not read from TensorArray index 1.  Furthermore, the element shape is not fully "
         "defined: <unknown>.");
  expect(empty,
         "TensorArray has size zero, but element shape <unknown> is not fully defined. Currently "
         "only static shapes are supported when packing zero-size TensorArrays.");
  expect(after_close, " has already been closed.");
  expect(negative, "Expected lengths to be non-negative, but lengths[0] is -1");
  expect(overflowing, "but sum of lengths is larger and value's shape is: [3]");
  expect(of_handles, "cannot hold elements of dtype resource");
  const std::string shape = error_of<af::InvalidArgumentError>([&] {
    ta.write(1, g.constant(Tensor::from_vector<float>({1, 2, 3})));
  });
  BOOST_TEST(shape.find("Inconsistent shapes: saw") != std::string::npos, shape);
}

// A gradient array sums the writes to one index, reads an index the forward array had
// written but the backward pass did not as zeros of its shape, and is one per source.
BOOST_AUTO_TEST_CASE(a_gradient_array_sums_its_writes, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const TensorArray fwd = TensorArray(g, af::float32, 2, {.infer_shape = false})
                              .write(0, g.constant(Tensor::from_vector<float>({1, 2})))
                              .write(1, g.constant(Tensor::from_vector<float>({3, 4, 5})));
  const TensorArray grad = fwd.grad("gradients");
  BOOST_TEST(grad.handle().op().name() == "TensorArrayGrad/TensorArrayGradV3");
  const TensorArray summed = grad.write(0, g.constant(Tensor::from_vector<float>({10, 20})))
                                 .write(0, g.constant(Tensor::from_vector<float>({1, 1})));
  const Output at0 = summed.read(0);
  const Output at1 = summed.read(1);
  const Output other =
      fwd.grad("gradients_1").write(0, g.constant(Tensor::from_vector<float>({5, 5}))).read(0);
  af::Session sess(g);
  auto out = sess.run({at0, at1, other});
  BOOST_TEST(out[0].to_vector<float>() == std::vector<float>({11, 21}),
             boost::test_tools::per_element());
  BOOST_TEST(out[1].to_vector<float>() == std::vector<float>({0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(out[2].to_vector<float>() == std::vector<float>({5, 5}),
             boost::test_tools::per_element());
}

// TensorFlow's fixture built here is TensorFlow's graph node for node (the arrays, the loop,
// both gradients calls with their gradient arrays and loops), and gives its values.
BOOST_AUTO_TEST_CASE(builds_tensorflows_arrays_and_their_gradients,
                     *boost::unit_test::timeout(120)) {
  const auto dir = data_dir / "tensor_array";
  af::Graph g;
  build_tensorflows_fixture(g);
  af::test::expect_tensorflows_nodes(g.to_graph_def(),
                                     af::read_graph_def((dir / "graph.pb").string()));

  const auto ref = reference(dir);
  af::Session sess(g);
  auto out = sess.run({g.output("y"), g.output("loss"), g.output("dx"), g.output("dy")},
                      {{g.output("x"), matrix(flat(ref["x"]), 5, 3)}});
  const auto tol = boost::test_tools::tolerance(1e-5f);
  const std::vector<float> y = out[0].to_vector<float>(), want_y = flat(ref["y"]);
  for (std::size_t i = 0; i < want_y.size(); ++i) BOOST_TEST(y[i] == want_y[i], tol);
  BOOST_TEST(out[1].scalar<float>() == ref["loss"].get<float>(), tol);
  for (const auto& [k, name] : std::vector<std::pair<int, const char*>>{{2, "dx"}, {3, "dy"}}) {
    const std::vector<float> got = out[static_cast<std::size_t>(k)].to_vector<float>();
    const std::vector<float> want = flat(ref[name]);
    BOOST_TEST_REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) BOOST_TEST(got[i] == want[i], tol);
  }
}

// h_t = tanh(x_t W + h_{t-1} U) over T steps, inputs read from an array and outputs written
// to one inside a loop: the gradients with respect to x, W and U match central differences
// and the unrolled recurrence's.
BOOST_AUTO_TEST_CASE(gradients_through_arrays_in_a_loop_match_central_differences,
                     *boost::unit_test::timeout(120)) {
  const std::int64_t steps = 4, n = 3;
  af::Graph g;
  const Output x = g.placeholder(af::float64, af::PartialShape{steps, n}, "x");
  const Output w = g.placeholder(af::float64, af::PartialShape{n, n}, "w");
  const Output u = g.placeholder(af::float64, af::PartialShape{n, n}, "u");
  const TensorArray inputs =
      TensorArray(g, af::float64, static_cast<std::int32_t>(steps)).unstack(x);
  const TensorArray outputs(g, af::float64, static_cast<std::int32_t>(steps));
  const Output h0 = g.constant(Tensor(af::float64, af::Shape{1, n}));
  Vars r = af::while_loop(
      [&](const Vars& v) { return af::less(v[0], g.constant(static_cast<std::int32_t>(steps))); },
      [&](const Vars& v) {
        Output xt = af::reshape(inputs.read(v[0]), std::vector<std::int64_t>{1, n});
        Output h = af::tanh(af::matmul(xt, w) + af::matmul(v[1], u));
        return Vars{v[0] + 1, h,
                    outputs.with_flow(v[2])
                        .write(v[0], af::reshape(h, std::vector<std::int64_t>{n}))
                        .flow()};
      },
      {g.constant(0), h0, outputs.flow()});
  const Output ys = outputs.with_flow(r[2]).stack();
  const Output loss = af::reduce_sum(ys * ys) + af::reduce_sum(r[1]);
  const Vars grads = af::gradients({loss}, {x, w, u});
  // The same recurrence unrolled.
  Output h = h0, unrolled = af::reduce_sum(h0) * 0.0;
  for (std::int64_t t = 0; t < steps; ++t) {
    Output xt =
        af::reshape(af::strided_slice(x, {t}, {t + 1}, {1}), std::vector<std::int64_t>{1, n});
    h = af::tanh(af::matmul(xt, w) + af::matmul(h, u));
    unrolled = unrolled + af::reduce_sum(h * h);
  }
  unrolled = unrolled + af::reduce_sum(h);
  const Vars unrolled_grads = af::gradients({unrolled}, {x, w, u});

  std::vector<double> xv, wv, uv;
  for (int i = 0; i < steps * n; ++i) xv.push_back(std::sin(0.7 * i + 0.3));
  for (int i = 0; i < n * n; ++i) wv.push_back(0.4 * std::cos(1.3 * i));
  for (int i = 0; i < n * n; ++i) uv.push_back(0.3 * std::sin(0.9 * i + 1.0));
  af::FeedDict feeds = {{x, Tensor::from_vector(xv, af::Shape{steps, n})},
                        {w, Tensor::from_vector(wv, af::Shape{n, n})},
                        {u, Tensor::from_vector(uv, af::Shape{n, n})}};
  af::Session sess(g);
  const auto got = sess.run({grads[0], grads[1], grads[2], loss, unrolled}, feeds);
  const auto want = sess.run(unrolled_grads, feeds);
  BOOST_TEST(got[3].scalar<double>() == got[4].scalar<double>(),
             boost::test_tools::tolerance(1e-12));
  for (std::size_t k = 0; k < 3; ++k) {
    const auto a = got[k].to_vector<double>(), b = want[k].to_vector<double>();
    BOOST_TEST_REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      BOOST_TEST(a[i] == b[i], boost::test_tools::tolerance(1e-9));
  }
  // Central differences on x.
  for (std::size_t i = 0; i < xv.size(); ++i) {
    auto at = [&](double shift) {
      std::vector<double> moved = xv;
      moved[i] += shift;
      af::FeedDict f = feeds;
      f[0].second = Tensor::from_vector(moved, af::Shape{steps, n});
      return sess.run(loss, f).scalar<double>();
    };
    const double numeric = (at(1e-6) - at(-1e-6)) / 2e-6;
    BOOST_TEST(std::abs(numeric - got[0].to_vector<double>()[i]) < 1e-6);
  }
}

// TensorFlow's dynamic_rnn, map_fn and scan, trained through TensorFlow's gradient arrays:
// restored from its checkpoint, the features are TensorFlow's and three steps give its losses.
BOOST_AUTO_TEST_CASE(a_tensorflow_rnn_trains_through_its_tensor_arrays,
                     *boost::unit_test::timeout(120)) {
  const auto dir = data_dir / "rnn";
  const auto ref = reference(dir);
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, (dir / "model-3.meta").string());
  BOOST_REQUIRE(saver != nullptr);
  BOOST_TEST(g.operation("rnn/TensorArray").node()->type() == "TensorArrayV3");
  const auto train = std::any_cast<af::Operation>(g.get_collection("train_op")[0]);
  const auto loss = std::any_cast<Output>(g.get_collection("losses")[0]);
  af::Session sess(g);
  saver->restore(sess, (dir / ref["prefix"].get<std::string>()).string());
  std::vector<float> xs;
  for (const auto& example : ref["x"])
    for (const auto& row : example)
      for (const auto& v : row) xs.push_back(v.get<float>());
  const Tensor x = Tensor::from_vector(xs, af::Shape{6, 5, 4});
  const Tensor y = Tensor::from_vector(ref["y"].get<std::vector<std::int64_t>>());
  const Output xin = g.output("x:0"), yin = g.output("y:0");
  const auto tol = boost::test_tools::tolerance(1e-5f);
  const auto features = sess.run(g.output("features:0"), {{xin, x}}).to_vector<float>();
  const auto want = flat(ref["features_at_restore"]);
  BOOST_TEST_REQUIRE(features.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) BOOST_TEST(features[i] == want[i], tol);
  for (std::size_t i = 0; i < 3; ++i) {
    const float got = sess.run({loss}, {{xin, x}, {yin, y}}, {train})[0].scalar<float>();
    BOOST_TEST(got == ref["losses_after_restore"][i].get<float>(), tol);
  }
  const auto probs = sess.run(g.output("probs:0"), {{xin, x}}).to_vector<float>();
  const auto want_probs = flat(ref["probs_after"]);
  for (std::size_t i = 0; i < want_probs.size(); ++i) BOOST_TEST(probs[i] == want_probs[i], tol);
}

BOOST_AUTO_TEST_SUITE_END()
