// The resource-handle gradient accumulators TensorFlow 2's tf.compat.v1 builds
// (ResourceConditionalAccumulator, ResourceAccumulatorApplyGradient,
// ResourceAccumulatorTakeGradient, ResourceAccumulatorNumAccumulated,
// ResourceAccumulatorSetGlobalStep), and so its SyncReplicasOptimizer graphs:
// tests/data/tf_accumulators (scripts/peers/make_accumulator_fixtures.py) holds TensorFlow's
// graphs with the values and errors a sequence of session runs gave, imported and run here to
// them.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session_steps.hpp"

namespace {

using af::Shape;
using af::Tensor;

// A feed of make_accumulator_fixtures.py: its placeholder's dtype, the JSON's shape.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  if (name == "step") return Tensor(v.get<std::int64_t>());
  if (name == "n") return Tensor(v.get<std::int32_t>());
  if (name == "grad" || name == "y") return Tensor::from_vector(v.get<std::vector<float>>());
  std::vector<float> flat;  // x: rows of two
  for (const auto& row : v)
    for (const auto& x : row) flat.push_back(x.get<float>());
  return Tensor::from_vector(flat, Shape{static_cast<std::int64_t>(v.size()), 2});
}

// Replays the fixture `<stem>.pb` / `<stem>.json`, which must hold `ops`.
void replay(const std::string& stem, const std::vector<std::string>& ops) {
  af::test::replay_fixture("tf_accumulators", stem + ".pb", stem + ".json", ops, feed_of);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_accumulator_test)

// A MEAN and a SUM accumulator: applies, stale applies dropped, takes, the global step set,
// the count, and the kernels' errors (a gradient of the wrong shape, num_required < 1).
BOOST_AUTO_TEST_CASE(tensorflows_accumulators_give_its_values, *boost::unit_test::timeout(60)) {
  replay("accumulators", {"ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
                          "ResourceAccumulatorTakeGradient", "ResourceAccumulatorNumAccumulated",
                          "ResourceAccumulatorSetGlobalStep"});
}

// TensorFlow's SyncReplicasOptimizer graph, run as its chief would (the tokens, two replicas'
// train ops, the sync op of the chief queue runner, twice), leaves the variables and global
// step where TensorFlow's did.
BOOST_AUTO_TEST_CASE(tensorflows_sync_replicas_graph_trains_as_it_did,
                     *boost::unit_test::timeout(60)) {
  replay("sync_replicas",
         {"ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
          "ResourceAccumulatorTakeGradient", "ResourceAccumulatorSetGlobalStep", "FIFOQueueV2"});
}

// The resource forms share the first forms' accumulator: a handle from one serves the other's
// ops, and a shared name is one accumulator for both.
BOOST_AUTO_TEST_CASE(resource_and_ref_forms_share_an_accumulator, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::AttrMap attrs{{"dtype", af::DType::float32},
                          {"shape", af::PartialShape({2})},
                          {"container", std::string()},
                          {"shared_name", std::string("shared")},
                          {"reduction_type", std::string("SUM")}};
  const af::Output res = g.create_op("ResourceConditionalAccumulator", {}, attrs, "res").output(0);
  const af::Output ref = g.create_op("ConditionalAccumulator", {}, attrs, "ref").output(0);
  const af::Output step = g.constant(Tensor(std::int64_t{0}));
  const af::Output grad = g.constant(Tensor::from_vector(std::vector<float>{1, 2}));
  const af::Operation apply = g.create_op("ResourceAccumulatorApplyGradient", {res, step, grad},
                                          {{"dtype", af::DType::float32}}, "apply");
  const af::Output num = g.create_op("AccumulatorNumAccumulated", {ref}, {}, "num").output(0);
  const af::Output take =
      g.create_op("AccumulatorTakeGradient", {ref, g.constant(Tensor(std::int32_t{2}))},
                  {{"dtype", af::DType::float32}}, "take")
          .output(0);
  af::Session sess(g);
  sess.run(apply);
  sess.run(apply);
  BOOST_TEST(sess.run(num).scalar<std::int32_t>() == 2);
  BOOST_TEST(sess.run(take).to_vector<float>() == (std::vector<float>{2, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
