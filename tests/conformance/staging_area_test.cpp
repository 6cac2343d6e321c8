// Staging areas (data_flow_ops.StagingArea and MapStagingArea) against TensorFlow:
// tests/data/tf_staging (scripts/peers/make_staging_fixtures.py) is TensorFlow's graph of two
// areas and one of an ordered keyed area, with the values a sequence of session runs gave;
// imported here they give them, and `af::StagingArea` / `af::MapStagingArea` build
// TensorFlow's nodes. Then the waits: a get of an empty area, a put into a full one
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

namespace {

// Checks `ours` node for node against TensorFlow's (name, op, inputs, colocation, attrs).
void expect_nodes(const af::GraphDef& ours, const nlohmann::json& nodes) {
  BOOST_REQUIRE_EQUAL(ours.nodes.size(), nodes.size());
  for (std::size_t i = 0; i < ours.nodes.size(); ++i) {
    const af::NodeDef& node = ours.nodes[i];
    const nlohmann::json& want = nodes[i];
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
}

// The keyed area's steps: fetch(label) gives the outputs or the op of each.
template <class Fetch>
void run_map_steps(af::Session& sess, const nlohmann::json& steps, const Output& k, const Output& a,
                   const Output& b, Fetch&& fetch) {
  af::test::fixture::Tolerance exact;
  exact.exact = true;
  for (const auto& step : steps) {
    const std::string label = step["fetch"].get<std::string>();
    af::FeedDict feeds;
    const auto& f = step["feeds"];
    if (f.contains("k")) feeds.push_back({k, Tensor(f["k"].get<std::int64_t>())});
    if (f.contains("a")) feeds.push_back({a, floats(f["a"].get<std::vector<float>>())});
    if (f.contains("b")) feeds.push_back({b, Tensor(f["b"].get<std::int32_t>())});
    BOOST_TEST_CONTEXT(label) {
      const auto [outputs, op] = fetch(label);
      if (outputs.empty()) {
        sess.run(op, feeds);
        continue;
      }
      const std::vector<Tensor> got = sess.run(outputs, feeds);
      BOOST_REQUIRE_EQUAL(got.size(), step["value"].size());
      for (std::size_t i = 0; i < got.size(); ++i)
        af::test::fixture::check(got[i], step["value"][i], exact);
    }
  }
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

  expect_nodes(g.to_graph_def(), ref["nodes"]);
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

// TensorFlow's ordered MapStagingArea imported and built here: complete and incomplete puts,
// sizes, a peek, a keyless get of one component (the smallest key), a keyed get and a clear
// give TensorFlow's values; the builder makes TensorFlow's nodes.
BOOST_AUTO_TEST_CASE(map_staging_area_gives_tensorflows_values, *boost::unit_test::timeout(60)) {
  std::ifstream in(dir / "map_reference.json");
  const nlohmann::json ref = nlohmann::json::parse(in);
  const std::map<std::string, std::string> op_of = {
      {"put", "MapStagingArea_put"},    {"put0", "MapStagingArea_put_1"},
      {"put1", "MapStagingArea_put_2"}, {"peek", "MapStagingArea_pop"},
      {"get", "MapStagingArea_get"},    {"get_nokey", "MapStagingArea_get_nokey"},
      {"size", "MapStagingArea_size"},  {"incomplete_size", "MapStagingArea_incomplete_size"},
      {"clear", "MapStagingArea_clear"}};
  {
    af::Graph g;
    af::import_graph_def(g, af::read_graph_def((dir / "map_graph.pb").string()), {.name = ""});
    af::Session sess(g);
    run_map_steps(sess, ref["steps"], g.output("k:0"), g.output("a:0"), g.output("b:0"),
                  [&](const std::string& label) {
                    const af::Operation op = g.operation(op_of.at(label));
                    std::vector<Output> outputs;
                    for (int i = 0; i < op.num_outputs(); ++i) outputs.push_back(op.output(i));
                    return std::pair{outputs, op};
                  });
  }
  af::Graph g;
  const Output k = g.placeholder(DType::int64, PartialShape{}, "k");
  const Output a = g.placeholder(DType::float32, PartialShape{2}, "a");
  const Output b = g.placeholder(DType::int32, PartialShape{}, "b");
  af::MapStagingArea area(
      g, {DType::float32, DType::int32},
      {.shapes = {PartialShape{2}, PartialShape{}}, .ordered = true, .capacity = 4});
  const af::Operation put = area.put(k, {a, b}, {0, 1});
  const af::Operation put0 = area.put(k, {a}, {0});
  const af::Operation put1 = area.put(k, {b}, {1});
  const std::vector<Output> peeked = area.peek(k);
  const auto [key, got] = area.get(k);
  const auto [first_key, first] = area.get({1});
  const Output size = area.size();
  const Output incomplete = area.incomplete_size();
  const af::Operation clear = area.clear();
  BOOST_TEST(key.name() == "k:0");
  expect_nodes(g.to_graph_def(), ref["nodes"]);
  af::Session sess(g);
  run_map_steps(sess, ref["steps"], k, a, b, [&](const std::string& label) {
    using Pair = std::pair<std::vector<Output>, af::Operation>;
    if (label == "put") return Pair{{}, put};
    if (label == "put0") return Pair{{}, put0};
    if (label == "put1") return Pair{{}, put1};
    if (label == "clear") return Pair{{}, clear};
    if (label == "peek") return Pair{peeked, {}};
    if (label == "get") return Pair{got, {}};
    if (label == "size") return Pair{{size}, {}};
    if (label == "incomplete_size") return Pair{{incomplete}, {}};
    std::vector<Output> nokey{first_key};
    nokey.insert(nokey.end(), first.begin(), first.end());
    return Pair{nokey, {}};
  });
}

// A keyed get waits until its key's tuple is complete, holding no thread; a component taken
// twice, one given twice and unordered indices fail as TensorFlow's; a get whose step fails
// puts its components back; the step's deadline ends a wait.
BOOST_AUTO_TEST_CASE(map_staging_waits_and_failures, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output k = g.placeholder(DType::int64, PartialShape{}, "k");
  const Output v = g.placeholder(DType::float32, PartialShape{}, "v");
  af::MapStagingArea area(g, {DType::float32, DType::float32}, {.shared_name = "keyed"});
  const af::Operation put0 = area.put(k, {v}, {0});
  const af::Operation put1 = area.put(k, {v}, {1});
  const std::vector<Output> got = area.get(k).second;
  const Output first = area.get(k, {0}).second[0];
  const Output checked = af::check_numerics(area.get(k, {1}).second[0], "bad value");
  const Output size = area.size();
  const Output incomplete = area.incomplete_size();
  af::Session sess(g);
  const Tensor key7(std::int64_t{7});
  auto getting = std::async(std::launch::async, [&] { return sess.run(got, {{k, key7}}); });
  BOOST_REQUIRE(af::test::await_waits("unstage", "keyed"));
  sess.run(put0, {{k, key7}, {v, Tensor(1.5f)}});
  BOOST_TEST(sess.run(incomplete, {}).scalar<std::int32_t>() == 1);
  BOOST_TEST((getting.wait_for(100ms) == std::future_status::timeout));
  sess.run(put1, {{k, key7}, {v, Tensor(2.5f)}});
  const std::vector<Tensor> both = getting.get();
  BOOST_TEST(both[0].scalar<float>() == 1.5f);
  BOOST_TEST(both[1].scalar<float>() == 2.5f);
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 0);

  const Tensor key9(std::int64_t{9});
  sess.run(put0, {{k, key9}, {v, Tensor(3.0f)}});
  const std::string twice = error_of([&] { sess.run(put0, {{k, key9}, {v, Tensor(4.0f)}}); });
  BOOST_TEST(twice.find("The tensor for index '0' for key '9' was already initialized '2'.") !=
                 std::string::npos,
             twice);
  sess.run(put1, {{k, key9}, {v, Tensor(std::nanf(""))}});
  BOOST_TEST(sess.run(first, {{k, key9}}).scalar<float>() == 3.0f);
  af::test::fails_with(sess, first, "Tensor at index '0' for key '9' has already been removed.",
                       {{k, key9}});
  BOOST_CHECK_THROW(sess.run(checked, {{k, key9}}), af::InvalidArgumentError);
  BOOST_TEST(sess.run(size).scalar<std::int32_t>() == 1);  // the NaN went back
  BOOST_CHECK_THROW(sess.run(got[0], {{k, Tensor(std::int64_t{11})}}, {.timeout_in_ms = 100}),
                    af::DeadlineExceededError);
  BOOST_CHECK_THROW(area.put(k, {v}, {2}), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_SUITE_END()
