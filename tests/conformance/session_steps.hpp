#pragma once

// Replays the session runs a fixture script recorded from TensorFlow (make_barrier_fixtures.py,
// make_ref_queue_fixtures.py): each step's feeds, its fetch (tensor names, or an op to run)
// and what TensorFlow gave, values or an error (its Python class and the kernel's words).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_fixture.hpp"
#include "test_paths.hpp"

namespace af::test {

/// The status code of a TensorFlow error class ("OutOfRangeError": "OUT_OF_RANGE").
inline std::string code_of_tf_error(const std::string& tf_error) {
  static const std::map<std::string, std::string> codes = {
      {"InvalidArgumentError", "INVALID_ARGUMENT"},
      {"CancelledError", "CANCELLED"},
      {"OutOfRangeError", "OUT_OF_RANGE"},
      {"DeadlineExceededError", "DEADLINE_EXCEEDED"},
      {"NotFoundError", "NOT_FOUND"},
      {"FailedPreconditionError", "FAILED_PRECONDITION"}};
  return codes.at(tf_error);
}

/// Runs `ref["steps"]` in `sess` over the imported graph `g`: `ref["ops"][label]` names the
/// fetched tensors or the op; `feed_of(placeholder, json)` makes a feed. Each step must give
/// TensorFlow's values exactly, or fail with its code and a message containing its words.
inline void replay_steps(
    Session& sess, Graph& g, const nlohmann::json& ref,
    const std::function<Tensor(const std::string&, const nlohmann::json&)>& feed_of) {
  fixture::Tolerance exact;
  exact.exact = true;
  for (const auto& step : ref["steps"]) {
    const std::string label = step["fetch"].get<std::string>();
    FeedDict feeds;
    for (const auto& [name, value] : step["feeds"].items())
      feeds.push_back({g.output(name + ":0"), feed_of(name, value)});
    const nlohmann::json& target = ref["ops"][label];
    BOOST_TEST_CONTEXT(label << " " << step["feeds"].dump()) {
      std::vector<Output> fetches;
      if (target.is_array())
        for (const auto& name : target) fetches.push_back(g.output(name.get<std::string>()));
      try {
        if (fetches.empty()) {
          sess.run(g.operation(target.get<std::string>()), feeds);
        } else {
          const std::vector<Tensor> got = sess.run(fetches, feeds);
          BOOST_REQUIRE(step.contains("value"));
          for (std::size_t i = 0; i < got.size(); ++i)
            fixture::check(got[i], step["value"][i], exact);
        }
        BOOST_TEST(!step.contains("error"), "no error; TensorFlow's: " << step.dump());
      } catch (const Error& e) {
        BOOST_REQUIRE_MESSAGE(step.contains("error"), e.what());
        BOOST_TEST(std::string(code_name(e.code())) == code_of_tf_error(step["error"]));
        const std::string want = step["message"].get<std::string>();
        BOOST_TEST(std::string(e.what()).find(want) != std::string::npos, e.what()
                                                                              << " lacks " << want);
      }
    }
  }
}

/// A fixture's graph and session runs (fixture_steps.py's write_fixture): imports
/// `tests/data/<dir>/<graph>` (the GraphDef TensorFlow wrote), checks that `<reference>`'s
/// "node_ops" hold each of `ops` (the graph is what the fixture says), and replays its runs in
/// a fresh session (`replay_steps`).
inline void replay_fixture(
    const std::string& dir, const std::string& graph, const std::string& reference,
    const std::vector<std::string>& ops,
    const std::function<Tensor(const std::string&, const nlohmann::json&)>& feed_of) {
  const auto base = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / dir;
  std::ifstream in(base / reference);
  const nlohmann::json ref = nlohmann::json::parse(in);
  Graph g;
  import_graph_def(g, read_graph_def((base / graph).string()), {.name = ""});
  for (const std::string& op : ops)
    BOOST_TEST(ref["node_ops"].dump().find("\"" + op + "\"") != std::string::npos, op);
  Session sess(g);
  replay_steps(sess, g, ref, feed_of);
}

}  // namespace af::test
