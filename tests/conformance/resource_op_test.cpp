// What tf.compat.v1 builds on resource variables beyond reads and assignments: `tf.gather_nd`
// of one (ResourceGatherNd) with its gradients and GradientDescent training through it, and
// `count_up_to` of one (ResourceCountUpTo), and Keras' AMSGrad update
// (ResourceApplyAdamWithAmsgrad). tests/data/tf_resource_ops
// (scripts/peers/make_resource_op_fixtures.py) is TensorFlow's graph of them with the values
// and errors a sequence of session runs gave, imported and run here to them; the builders
// (`resource_gather_nd`, `count_up_to` of a resource variable) make the same ops.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session_steps.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

// A feed of make_resource_op_fixtures.py: rows (int32 [N, 1]), cells (int64 [N, 2]) or a
// gradient (float [N]).
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  const auto n = static_cast<std::int64_t>(v.size());
  if (name == "grad") return Tensor::from_vector(v.get<std::vector<float>>());
  if (name == "rows") {
    std::vector<std::int32_t> flat;
    for (const auto& row : v) flat.push_back(row[0].get<std::int32_t>());
    return Tensor::from_vector(flat, Shape{n, 1});
  }
  std::vector<std::int64_t> flat;
  for (const auto& row : v)
    for (const auto& x : row) flat.push_back(x.get<std::int64_t>());
  return Tensor::from_vector(flat, Shape{n, 2});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_op_test)

// TensorFlow's graph: gathers by rows and by cells (and their errors), their gradients (dense
// through UnsortedSegmentSum and ScatterNd), a GradientDescent step through each,
// count_up_to to its limit, and AMSGrad steps (and a refused one), to TensorFlow's values.
BOOST_AUTO_TEST_CASE(tensorflows_resource_ops_give_its_values, *boost::unit_test::timeout(60)) {
  af::test::replay_fixture(
      "tf_resource_ops", "graph.pb", "reference.json",
      {"ResourceGatherNd", "ResourceCountUpTo", "VariableShape", "ResourceApplyAdamWithAmsgrad"},
      feed_of);
}

// The builders: resource_gather_nd of a resource variable, its gradient as IndexedSlices
// (one index per row), and count_up_to of a resource variable.
BOOST_AUTO_TEST_CASE(builders_gather_and_count, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::Variable table =
      g.variable(Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{3, 2}),
                 {.name = "table", .use_resource = true});
  const af::Variable counter = g.variable(
      Tensor(std::int32_t{7}), {.name = "counter", .trainable = false, .use_resource = true});
  const Output rows = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 0}, Shape{2, 1}));
  const Output gathered = af::resource_gather_nd(table.ref(), rows, DType::float32);
  BOOST_TEST(gathered.shape().to_string() == af::PartialShape({2, 2}).to_string());
  const std::vector<Output> grad = af::gradients({af::reduce_sum(gathered)}, {table.ref()});
  const Output count = af::count_up_to(counter, 8);
  BOOST_TEST(count.op().type() == "ResourceCountUpTo");
  af::Session sess(g);
  sess.run(table.initializer());
  sess.run(counter.initializer());
  BOOST_TEST(sess.run(gathered).to_vector<float>() == (std::vector<float>{5, 6, 1, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(grad[0]).to_vector<float>() == (std::vector<float>{1, 1, 0, 0, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(count).scalar<std::int32_t>() == 7);
  BOOST_CHECK_THROW(sess.run(count), af::OutOfRangeError);
}

BOOST_AUTO_TEST_SUITE_END()
