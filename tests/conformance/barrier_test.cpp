// Barriers (data_flow_ops.Barrier) against TensorFlow: tests/data/tf_barrier
// (scripts/peers/make_barrier_fixtures.py) is TensorFlow's graph of two shared barriers with
// the values and errors a sequence of session runs gave (keys completed over several inserts,
// takes in TensorFlow's heap order, sizes, close and cancel, every error the kernels raise);
// imported here it gives them, and `af::Barrier` builds TensorFlow's nodes. Then the waits: a
// take waits without a thread for inserts of other steps, ends with its step's deadline or
// the session's close, is answered when the barrier closes, and a take whose step fails puts
// its elements back.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/data_flow_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "matchers.hpp"
#include "op_fixture.hpp"
#include "op_test_util.hpp"
#include "pending_waits.hpp"
#include "session_steps.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using namespace std::chrono_literals;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_barrier";

nlohmann::json reference() {
  std::ifstream in(dir / "reference.json");
  return nlohmann::json::parse(in);
}

Tensor strings(const std::vector<std::string>& v) {
  return Tensor::from_vector(v, Shape{static_cast<std::int64_t>(v.size())});
}

// A feed of make_barrier_fixtures.py: its placeholder's dtype, the JSON's shape.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  if (name == "n") return Tensor(v.get<std::int32_t>());
  if (name == "keys" || name == "s") return strings(v.get<std::vector<std::string>>());
  if (name == "i") {
    auto ints = v.get<std::vector<std::int32_t>>();
    return Tensor::from_vector(ints, Shape{static_cast<std::int64_t>(ints.size())});
  }
  std::vector<float> flat;
  const std::int64_t rows = static_cast<std::int64_t>(v.size());
  std::int64_t cols = name == "f" ? 2 : 0;
  for (const auto& row : v) {
    cols = static_cast<std::int64_t>(row.size());
    for (const auto& x : row) flat.push_back(x.get<float>());
  }
  return Tensor::from_vector(flat, Shape{rows, cols});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(barrier_test)

// TensorFlow's graph imported: every step gives TensorFlow's values (the heap order among
// equal indices included) or its error, code and words.
BOOST_AUTO_TEST_CASE(imported_barrier_gives_tensorflows_values_and_errors,
                     *boost::unit_test::timeout(60)) {
  const nlohmann::json ref = reference();
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((dir / "graph.pb").string()), {.name = ""});
  af::Session sess(g);
  af::test::replay_steps(sess, g, ref, feed_of);
  // TensorFlow 2.21 aborts on a negative count; newer ones and this refuse it.
  af::test::fails_with(sess, g.output("negative:0"), "TakeManyOp requested -1 < 0 elements");
}

// `af::Barrier` makes TensorFlow's nodes (names, inputs, attrs) and the take outputs' shapes.
BOOST_AUTO_TEST_CASE(barrier_builds_tensorflows_nodes, *boost::unit_test::timeout(60)) {
  const nlohmann::json ref = reference();
  af::Graph g;
  const Output keys = g.placeholder(DType::string, PartialShape{-1}, "keys");
  const Output s = g.placeholder(DType::string, PartialShape{-1}, "s");
  const Output i = g.placeholder(DType::int32, PartialShape{-1}, "i");
  const Output f = g.placeholder(DType::float32, PartialShape{-1, 2}, "f");
  const Output n = g.placeholder(DType::int32, PartialShape(Shape{}), "n");
  const Output e = g.placeholder(DType::float32, PartialShape{-1, -1}, "e");
  af::Barrier b(g, {DType::string, DType::int32, DType::float32},
                {.shapes = {PartialShape(Shape{}), PartialShape(Shape{}), PartialShape{2}},
                 .shared_name = "B",
                 .name = "B"});
  std::map<std::string, af::BarrierTake> takes;
  takes["take"] = b.take_many(n);
  takes["take_small"] = b.take_many(n, true);
  takes["take2"] = b.take_many(2);
  af::Barrier u(g, {DType::float32}, {.shared_name = "U", .name = "U"});
  b.insert_many(0, keys, s);
  b.insert_many(1, keys, i);
  b.insert_many(2, keys, f);
  b.ready_size();
  b.incomplete_size();
  b.close();
  b.close(true);
  u.insert_many(0, keys, e);
  u.ready_size();
  BOOST_TEST(b.name() == "B");

  const af::GraphDef ours = g.to_graph_def();
  BOOST_REQUIRE_EQUAL(ours.nodes.size(), 21u);
  for (std::size_t k = 0; k < ours.nodes.size(); ++k) {
    const af::NodeDef& node = ours.nodes[k];
    const nlohmann::json& want = ref["nodes"][k];
    BOOST_TEST_CONTEXT(want["name"].get<std::string>()) {
      BOOST_TEST(node.name == want["name"].get<std::string>());
      BOOST_TEST(node.op == want["op"].get<std::string>());
      BOOST_TEST(node.inputs == want["input"].get<std::vector<std::string>>(),
                 boost::test_tools::per_element());
      for (const auto& [key, value] : want["attrs"].items()) {
        BOOST_TEST_CONTEXT(key) {
          if (key == "shapes") {
            const auto shapes = node.attr<std::vector<PartialShape>>(key);
            BOOST_REQUIRE(shapes);
            BOOST_REQUIRE_EQUAL(shapes->size(), value.size());
            for (std::size_t j = 0; j < value.size(); ++j)
              BOOST_TEST((value[j].is_null()
                              ? !(*shapes)[j].rank_known()
                              : (*shapes)[j].dims() == value[j].get<std::vector<std::int64_t>>()));
          } else if (value.is_boolean()) {
            BOOST_TEST(*node.attr<bool>(key) == value.get<bool>());
          } else if (value.is_number()) {
            BOOST_TEST(*node.attr<std::int64_t>(key) == value.get<std::int64_t>());
          } else if (value.is_array()) {
            std::vector<std::string> names;
            for (DType t : *node.attr<std::vector<DType>>(key))
              names.emplace_back(af::dtype_name(t));
            BOOST_TEST(names == value.get<std::vector<std::string>>(),
                       boost::test_tools::per_element());
          } else if (node.attr<std::string>(key)) {
            BOOST_TEST(*node.attr<std::string>(key) == value.get<std::string>());
          } else {
            BOOST_TEST(std::string(af::dtype_name(*node.attr<DType>(key))) ==
                       value.get<std::string>());
          }
        }
      }
    }
  }
  for (const auto& [label, take] : takes) {
    std::vector<Output> outs{take.indices, take.keys};
    outs.insert(outs.end(), take.values.begin(), take.values.end());
    const nlohmann::json& want = ref["shapes"][label];
    BOOST_REQUIRE_EQUAL(outs.size(), want.size());
    for (std::size_t k = 0; k < outs.size(); ++k)
      BOOST_TEST(outs[k].shape().dims() == want[k].get<std::vector<std::int64_t>>(),
                 boost::test_tools::per_element());
  }
  BOOST_CHECK_THROW(af::Barrier(g, {DType::float32}, {.shapes = {PartialShape{0}}}),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::Barrier(g, {DType::float32}, {.shapes = {PartialShape{-1}}}),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::Barrier(g, {DType::float32, DType::int32}, {.shapes = {PartialShape{}}}),
                    af::InvalidArgumentError);
}

// A take waits, holding no thread (the inserts run meanwhile), until enough keys are
// complete, and takes them in the order their keys first came; takes are served in order.
BOOST_AUTO_TEST_CASE(take_waits_for_completed_keys, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output keys = g.placeholder(DType::string, PartialShape{-1}, "keys");
  const Output a = g.placeholder(DType::float32, PartialShape{-1}, "a");
  const Output c = g.placeholder(DType::int64, PartialShape{-1, 2}, "c");
  af::Barrier b(g, {DType::float32, DType::int64},
                {.shapes = {PartialShape(Shape{}), PartialShape{2}}, .shared_name = "waits"});
  const af::Operation put_a = b.insert_many(0, keys, a);
  const af::Operation put_c = b.insert_many(1, keys, c);
  const af::BarrierTake three = b.take_many(3);
  const af::BarrierTake one = b.take_many(1);
  const Output incomplete = b.incomplete_size();
  af::Session sess(g);
  auto taking = std::async(std::launch::async, [&] {
    return sess.run({three.indices, three.keys, three.values[0], three.values[1]});
  });
  BOOST_REQUIRE(af::test::await_waits("take", "waits"));
  sess.run(put_a, {{keys, strings({"x", "y"})}, {a, Tensor::from_vector<float>({1, 2})}});
  sess.run(put_a, {{keys, strings({"z", "w"})}, {a, Tensor::from_vector<float>({3, 4})}});
  sess.run(put_c, {{keys, strings({"w", "z"})},
                   {c, Tensor::from_vector<std::int64_t>({40, 41, 30, 31}, Shape{2, 2})}});
  BOOST_TEST((taking.wait_for(100ms) == std::future_status::timeout));
  BOOST_TEST(sess.run(incomplete).scalar<std::int32_t>() == 2);
  sess.run(put_c, {{keys, strings({"y", "x"})},
                   {c, Tensor::from_vector<std::int64_t>({20, 21, 10, 11}, Shape{2, 2})}});
  const std::vector<Tensor> got = taking.get();
  const std::int64_t first = std::numeric_limits<std::int64_t>::min();
  // x and y came first (index -2^63), then z and w (-2^63 + 1).
  BOOST_TEST(got[0].flat<std::int64_t>()[0] == first);
  BOOST_TEST(got[0].flat<std::int64_t>()[1] == first);
  BOOST_TEST(got[0].flat<std::int64_t>()[2] == first + 1);
  std::vector<std::string> taken(got[1].flat<std::string>().begin(),
                                 got[1].flat<std::string>().end());
  BOOST_TEST(((taken[0] == "x" && taken[1] == "y") || (taken[0] == "y" && taken[1] == "x")));
  for (std::size_t k = 0; k < 3; ++k) {
    const float v = got[2].flat<float>()[k];
    BOOST_TEST(got[3].flat<std::int64_t>()[2 * k] == static_cast<std::int64_t>(v) * 10);
  }
  BOOST_TEST(sess.run(one.values[0]).flat<float>()[0] != got[2].flat<float>()[2]);
}

// Closing answers the waiting takes as TensorFlow answers later ones: a take that no insert
// can serve fails with OutOfRange (TensorFlow's waits forever), one allowing a small batch
// gets the complete keys there are; a close that cancels drops the incomplete keys.
BOOST_AUTO_TEST_CASE(close_answers_waiting_takes, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output keys = g.placeholder(DType::string, PartialShape{-1}, "keys");
  const Output a = g.placeholder(DType::float32, PartialShape{-1}, "a");
  af::Barrier b(g, {DType::float32, DType::float32}, {.shared_name = "closing"});
  const af::Operation put0 = b.insert_many(0, keys, a);
  const af::Operation put1 = b.insert_many(1, keys, a);
  const af::BarrierTake four = b.take_many(4);
  const af::BarrierTake small = b.take_many(4, true);
  const af::BarrierTake two = b.take_many(2);
  const af::Operation close = b.close();
  const af::Operation cancel = b.close(true);
  const Output incomplete = b.incomplete_size();
  af::Session sess(g);
  sess.run(put0, {{keys, strings({"p", "q", "r"})}, {a, Tensor::from_vector<float>({1, 2, 3})}});
  sess.run(put1, {{keys, strings({"p"})}, {a, Tensor::from_vector<float>({1})}});
  auto waiting_four = std::async(std::launch::async,
                                 [&] { return af::test::error_of([&] { sess.run(four.keys); }); });
  BOOST_REQUIRE(af::test::await_waits("take", "closing"));
  std::this_thread::sleep_for(50ms);  // the first take reaches the barrier first
  auto waiting_small = std::async(std::launch::async, [&] { return sess.run(small.keys); });
  BOOST_REQUIRE(af::test::await_waits("take", "closing", 2));
  std::this_thread::sleep_for(50ms);  // the second take reaches the barrier
  sess.run(close);
  // 1 ready + 2 incomplete < 4: no insert can serve the first take.
  const std::string e = waiting_four.get();
  BOOST_TEST(e.find("Barrier 'closing' is closed and has insufficient elements (requested 4, "
                    "total size 3)") != std::string::npos,
             e);
  const Tensor got = waiting_small.get();
  BOOST_TEST(got.num_elements() == 1);
  BOOST_TEST(got.flat<std::string>()[0] == "p");
  // Keys already there may still complete; a take of two waits for the second.
  auto waiting_two = std::async(std::launch::async, [&] { return sess.run(two.keys); });
  BOOST_REQUIRE(af::test::await_waits("take", "closing"));
  sess.run(put1, {{keys, strings({"q", "r"})}, {a, Tensor::from_vector<float>({2, 3})}});
  BOOST_TEST(waiting_two.get().num_elements() == 2);
  sess.run(put0, {{keys, strings({})}, {a, Tensor::from_vector<float>({})}});
  sess.run(cancel);
  BOOST_TEST(sess.run(incomplete).scalar<std::int32_t>() == 0);
  af::test::fails_with(sess, two.keys, "is closed and has insufficient elements");
}

// A waiting take ends with its step's deadline or the session's close and takes nothing; a
// take whose step fails puts its elements back, in their order.
BOOST_AUTO_TEST_CASE(failed_takes_lose_nothing, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output keys = g.placeholder(DType::string, PartialShape{-1}, "keys");
  const Output a = g.placeholder(DType::float32, PartialShape{-1}, "a");
  af::Barrier b(g, {DType::float32}, {.shapes = {PartialShape(Shape{})}, .shared_name = "fails"});
  const af::Operation put = b.insert_many(0, keys, a);
  const af::BarrierTake two = b.take_many(2);
  const Output checked = af::check_numerics(two.values[0], "bad value");
  const Output ready = b.ready_size();
  {
    af::Session sess(g);
    BOOST_CHECK_THROW(sess.run(two.keys, {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
    auto waiting = std::async(std::launch::async,
                              [&] { return af::test::error_of([&] { sess.run(two.keys); }); });
    BOOST_REQUIRE(af::test::await_waits("take", "fails"));
    sess.close();
    const std::string e = waiting.get();
    BOOST_TEST(e.find("cancelled") != std::string::npos, e);
  }
  af::Session sess(g);
  sess.run(put, {{keys, strings({"m"})}, {a, Tensor::from_vector<float>({std::nanf("")})}});
  sess.run(put, {{keys, strings({"n"})}, {a, Tensor::from_vector<float>({2})}});
  BOOST_CHECK_THROW(sess.run(checked), af::InvalidArgumentError);
  BOOST_TEST(sess.run(ready).scalar<std::int32_t>() == 2);
  const Tensor again = sess.run(two.keys);
  BOOST_TEST(again.flat<std::string>()[0] == "m");
  BOOST_TEST(again.flat<std::string>()[1] == "n");
}

BOOST_AUTO_TEST_SUITE_END()
