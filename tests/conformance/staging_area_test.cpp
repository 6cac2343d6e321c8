// Staging areas (data_flow_ops.StagingArea) against TensorFlow: tests/data/tf_staging
// (scripts/peers/make_staging_fixtures.py) is TensorFlow's graph of two areas with the values
// a sequence of its session runs gave; imported here it gives them, and `af::StagingArea`
// builds TensorFlow's nodes. Then the waits: a get of an empty area, a put into a full one
// and a peek past the end wait without a thread until another step moves, end with their
// step's deadline or the session's close, and a get whose step fails puts its tuple back.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/data_flow_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_fixture.hpp"
#include "op_test_util.hpp"
#include "pending_waits.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using namespace std::chrono_literals;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_staging";

nlohmann::json reference() {
  std::ifstream in(dir / "reference.json");
  return nlohmann::json::parse(in);
}

Tensor floats(std::vector<float> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Tensor::from_vector(std::move(v), Shape{n});
}

// Runs TensorFlow's steps (fetch names as make_staging_fixtures.py labels them) with
// `fetch(label)` giving the outputs or the op to run, and checks each value.
template <class Fetch>
void run_steps(af::Session& sess, const nlohmann::json& steps, const Output& x, const Output& n,
               Fetch&& fetch) {
  af::test::fixture::Tolerance exact;
  exact.exact = true;
  for (const auto& step : steps) {
    const std::string label = step["fetch"].get<std::string>();
    af::FeedDict feeds;
    if (step["feeds"].contains("x:0")) {
      feeds.push_back({x, floats(step["feeds"]["x:0"].get<std::vector<float>>())});
      feeds.push_back({n, Tensor(step["feeds"]["n:0"].get<std::int32_t>())});
    }
    BOOST_TEST_CONTEXT(label) {
      const auto [outputs, op] = fetch(label);
      if (!outputs.empty()) {
        const std::vector<Tensor> got = sess.run(outputs, feeds);
        BOOST_REQUIRE_EQUAL(got.size(), step["value"].size());
        for (std::size_t i = 0; i < got.size(); ++i)
          af::test::fixture::check(got[i], step["value"][i], exact);
      } else {
        sess.run(op, feeds);
      }
    }
  }
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(staging_area_test)

// TensorFlow's graph imported: puts, size, peek, get, clear and a string area give the
// values TensorFlow's session gave, in order.
BOOST_AUTO_TEST_CASE(tensorflows_staging_graph_runs_to_its_values, *boost::unit_test::timeout(60)) {
  const nlohmann::json ref = reference();
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((dir / "graph.pb").string()), {.name = ""});
  af::Session sess(g);
  const std::map<std::string, std::string> op_of = {
      {"put", "StagingArea_put"},   {"get", "StagingArea_get"},     {"peek", "StagingArea_peek"},
      {"size", "StagingArea_size"}, {"clear", "StagingArea_clear"}, {"put_w", "words_put"},
      {"get_w", "words_get"}};
  run_steps(sess, ref["steps"], g.output("x:0"), g.output("n:0"), [&](const std::string& label) {
    const af::Operation op = g.operation(op_of.at(label));
    std::vector<Output> outputs;
    for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
    return std::pair{outputs, op};
  });
}

// `af::StagingArea` makes TensorFlow's nodes (names, inputs, colocation, attrs, the probing
// NoOps) and runs the same steps to the same values.
BOOST_AUTO_TEST_CASE(staging_area_builds_tensorflows_nodes, *boost::unit_test::timeout(60)) {
  const nlohmann::json ref = reference();
  af::Graph g;
  const Output x = g.placeholder(DType::float32, PartialShape{2}, "x");
  const Output n = g.placeholder(DType::int32, PartialShape{}, "n");
  af::StagingArea area(
      g, {DType::float32, DType::int32},
      {.shapes = {PartialShape{2}, PartialShape{}}, .capacity = 3, .memory_limit = 1000});
  const af::Operation put = area.put({x, n});
  const std::vector<Output> got = area.get();
  const std::vector<Output> peeked = area.peek(1);
  const Output size = area.size();
  const af::Operation clear = area.clear();
  af::StagingArea words(g, {DType::string}, {.shared_name = "words"});
  const af::Operation put_w = words.put({g.constant(Tensor(std::string("staged")), "word")});
  const std::vector<Output> get_w = words.get();
  BOOST_TEST(got[0].shape().to_string() == "(2,)");
  BOOST_TEST(area.name() == "StagingArea");

  const af::GraphDef ours = g.to_graph_def();
  BOOST_REQUIRE_EQUAL(ours.nodes.size(), ref["nodes"].size());
  for (std::size_t i = 0; i < ours.nodes.size(); ++i) {
    const af::NodeDef& node = ours.nodes[i];
    const nlohmann::json& want = ref["nodes"][i];
    BOOST_TEST_CONTEXT(want["name"].get<std::string>()) {
      BOOST_TEST(node.name == want["name"].get<std::string>());
      BOOST_TEST(node.op == want["op"].get<std::string>());
      BOOST_TEST(node.inputs == want["input"].get<std::vector<std::string>>(),
                 boost::test_tools::per_element());
      std::vector<std::string> colocation;
      if (auto c = node.attr<std::vector<std::string>>("_class")) colocation = *c;
      BOOST_TEST(colocation == want["colocation"].get<std::vector<std::string>>(),
                 boost::test_tools::per_element());
      for (const auto& [key, value] : want["attrs"].items()) {
        if (value.is_string())
          BOOST_TEST(*node.attr<std::string>(key) == value.get<std::string>());
        else if (value.is_number())
          BOOST_TEST(*node.attr<std::int64_t>(key) == value.get<std::int64_t>());
        else
          BOOST_TEST(node.attr<std::vector<DType>>(key)->size() == value.size());
      }
    }
  }
  af::Session sess(g);
  run_steps(sess, ref["steps"], x, n, [&](const std::string& label) {
    if (label == "put") return std::pair{std::vector<Output>{}, put};
    if (label == "clear") return std::pair{std::vector<Output>{}, clear};
    if (label == "put_w") return std::pair{std::vector<Output>{}, put_w};
    if (label == "get") return std::pair{got, af::Operation()};
    if (label == "peek") return std::pair{peeked, af::Operation()};
    if (label == "size") return std::pair{std::vector<Output>{size}, af::Operation()};
    return std::pair{get_w, af::Operation()};
  });
}

// A get of an empty area waits (holding no thread: the put runs meanwhile) for the next
// put; a put into a full area waits for a get; a peek waits until its index exists.
BOOST_AUTO_TEST_CASE(waits_end_when_another_step_moves, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output v = g.placeholder(DType::float32, PartialShape{}, "v");
  af::StagingArea area(g, {DType::float32}, {.shared_name = "waits", .capacity = 1});
  const af::Operation put = area.put({v});
  const Output got = area.get()[0];
  const Output peeked = area.peek(1)[0];
  const Output size = area.size();
  af::Session sess(g);

  auto getting = std::async(std::launch::async, [&] { return sess.run(got).scalar<float>(); });
  BOOST_REQUIRE(af::test::await_waits("unstage", "waits"));
  BOOST_TEST((getting.wait_for(100ms) == std::future_status::timeout));
  sess.run(put, {{v, Tensor(1.5f)}});
  BOOST_TEST(getting.get() == 1.5f);

  sess.run(put, {{v, Tensor(2.0f)}});
  auto putting = std::async(std::launch::async, [&] { sess.run(put, {{v, Tensor(3.0f)}}); });
  BOOST_REQUIRE(af::test::await_waits("stage", "waits"));
  BOOST_TEST((putting.wait_for(100ms) == std::future_status::timeout));
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 1);
  BOOST_TEST(sess.run(got).scalar<float>() == 2.0f);
  putting.get();
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 1);

  // With capacity 1 the area never holds a second tuple: a peek at index 1 waits until its
  // deadline.
  BOOST_CHECK_THROW(sess.run(peeked, {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
  BOOST_TEST(sess.run(got).scalar<float>() == 3.0f);
}

// A waiting get ends with its step's deadline and takes nothing; closing the session
// cancels one; a put past the memory limit fails at once; a get whose step fails puts the
// tuple back; an Unstage of fewer outputs than the tuple fails as TensorFlow's.
BOOST_AUTO_TEST_CASE(failures_lose_nothing, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output v = g.placeholder(DType::float32, PartialShape{-1}, "v");
  af::StagingArea area(g, {DType::float32}, {.shared_name = "fails", .memory_limit = 16});
  const af::Operation put = area.put({v});
  const Output got = area.get()[0];
  const Output size = area.size();
  const Output checked = af::check_numerics(got, "bad value");
  af::StagingArea two(g, {DType::float32, DType::float32}, {.shared_name = "fails"});
  const Output got_two = two.get()[0];
  {
    af::Session sess(g);
    BOOST_CHECK_THROW(sess.run(got, {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
    auto waiting = std::async(std::launch::async, [&] { return error_of([&] { sess.run(got); }); });
    BOOST_REQUIRE(af::test::await_waits("unstage", "fails"));
    sess.close();
    const std::string e = waiting.get();
    BOOST_TEST(e.find("cancelled") != std::string::npos, e);
  }
  af::Session sess(g);
  const std::string big = error_of([&] { sess.run(put, {{v, floats({1, 2, 3, 4, 5})}}); });
  BOOST_TEST(big.find("Attempted to insert tensors with combined size of '20' bytes into "
                      "Staging Area with a memory limit of '16'.") != std::string::npos,
             big);
  sess.run(put, {{v, floats({1, std::nanf("")})}});
  BOOST_CHECK_THROW(sess.run(checked), af::InvalidArgumentError);
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 1);
  af::test::fails_with(sess, got_two, "Mismatch stage/unstage: 1 vs. 2");
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 1);
  BOOST_TEST(sess.run(got).num_elements() == 2);
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 0);
  BOOST_CHECK_THROW(area.put({g.constant(Tensor(1))}), af::InvalidArgumentError);
  BOOST_CHECK_THROW(area.put({v, v}), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_SUITE_END()
