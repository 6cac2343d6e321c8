// Tensors kept in the session between runs (GetSessionHandle, GetSessionTensor,
// DeleteSessionTensor: tf.compat.v1.get_session_handle, get_session_tensor,
// delete_session_tensor). tests/data/tf_session_tensors
// (scripts/peers/make_session_tensor_fixtures.py) is TensorFlow's graph of them with the
// handles it gave, the tensors they named in later runs and the error after a delete; the
// graph imported here gives the same, and the builders make the same ops.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace {

using af::Tensor;

// Runs the steps of make_session_tensor_fixtures.py in `sess` over `g`, whose nodes are
// "a" (float feed), "keep" (the handle), "held" (a handle feed), "value", "total" and "drop",
// against the reference `ref`.
void run_steps(af::Session& sess, af::Graph& g, const nlohmann::json& ref) {
  const auto keep = [&](std::vector<float> a) {
    return sess.run(g.output("keep:0"), {{g.output("a:0"), Tensor::from_vector(a)}})
        .scalar<std::string>();
  };
  const auto held = [&](const std::string& h) -> af::FeedDict {
    return {{g.output("held:0"), Tensor(h)}};
  };
  const std::string first = keep({1.0f, 2.5f});
  const std::string second = keep({-4.0f});
  BOOST_TEST(first == ref["handles"][0].get<std::string>());
  BOOST_TEST(second == ref["handles"][1].get<std::string>());
  BOOST_TEST(sess.run(g.output("value:0"), held(first)).to_vector<float>() ==
                 ref["values"][0].get<std::vector<float>>(),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(g.output("value:0"), held(second)).to_vector<float>() ==
                 ref["values"][1].get<std::vector<float>>(),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(g.output("total:0"), held(first)).scalar<float>() ==
             ref["total"].get<float>());
  sess.run(g.operation("drop"), held(first));
  try {
    sess.run(g.output("value:0"), held(first));
    BOOST_FAIL("a deleted handle still names a tensor");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find(ref["message"].get<std::string>()) != std::string::npos,
               e.what());
  }
  // The other handle is still there.
  BOOST_TEST(sess.run(g.output("value:0"), held(second)).to_vector<float>().size() == 1u);
}

nlohmann::json reference() {
  std::ifstream in(std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_session_tensors" /
                   "reference.json");
  return nlohmann::json::parse(in);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(session_tensor_test)

// TensorFlow's graph imported: its handles, their tensors, and the error after a delete.
BOOST_AUTO_TEST_CASE(tensorflows_session_tensors_give_its_values, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::import_graph_def(g,
                       af::read_graph_def((std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) /
                                           "tf_session_tensors" / "graph.pb")
                                              .string()),
                       {.name = ""});
  af::Session sess(g);
  run_steps(sess, g, reference());
}

// The builders make the same graph, which runs the same way; a handle is the session's own.
BOOST_AUTO_TEST_CASE(builders_keep_tensors_between_runs, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::Output a = g.placeholder(af::DType::float32, af::PartialShape({-1}), "a");
  af::get_session_handle(af::mul(a, g.constant(Tensor(2.0f)), "twice"), "keep");
  const af::Output held = g.placeholder(af::DType::string, af::PartialShape::unknown(), "held");
  const af::Output value = af::get_session_tensor(held, af::DType::float32, "value");
  af::reduce_sum(value, std::vector<std::int64_t>{0}, false, "total");
  af::delete_session_tensor(held, "drop");
  {
    af::Session sess(g);
    run_steps(sess, g, reference());
  }
  af::Session other(g);
  BOOST_CHECK_THROW(
      other.run(value, {{held, Tensor(reference()["handles"][1].get<std::string>())}}),
      af::InvalidArgumentError);
}

BOOST_AUTO_TEST_SUITE_END()
