// Training graphs TensorFlow 2.21 built in tf.compat.v1 mode with the optimizers of
// more_training_ops.hpp (tests/data/tf_graph/optimizers, written by
// scripts/peers/make_optimizer_graph_fixtures.py make-ftrl): a wide model whose 20x4
// embedding is looked up by a weighted SparseTensor of ids (embedding_lookup_sparse, mean)
// and by dense ids with repeats (embedding_lookup), concatenated with 3 features into a
// dense kernel, sigmoid cross-entropy; one train op per optimizer (Ftrl with l2 shrinkage
// and without, Adadelta, ProximalAdagrad, ProximalGradientDescent, AdagradDA) over one
// shared backward pass, so the embedding trains through the Sparse*Apply* ops on
// IndexedSlices with duplicate indices and the kernel through the dense ones. Each .meta
// (reference variables: Apply*, resource variables: ResourceApply*) imports with its Saver
// and collections, restores TensorFlow's initial checkpoint before each optimizer, and
// trains 5 steps on TensorFlow's batches to its losses, variables and slots.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace {

const std::filesystem::path dir =
    std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_graph" / "optimizers";

nlohmann::json reference() {
  std::ifstream in(dir / "reference.json");
  return nlohmann::json::parse(in);
}

// The values of a JSON array, nested arrays flattened in row-major order.
template <class T>
std::vector<T> flat(const nlohmann::json& values) {
  std::vector<T> out;
  for (const auto& v : values)
    if (v.is_array())
      for (const auto& w : v) out.push_back(w.get<T>());
    else
      out.push_back(v.get<T>());
  return out;
}

// The feeds of one of TensorFlow's batches: the SparseTensor of ids (sparse_placeholder
// "sp_ids": its indices, values and shape placeholders) with its weights, the dense ids,
// the features and the labels.
af::FeedDict feeds(const af::Graph& g, const nlohmann::json& batch) {
  const auto values = flat<std::int64_t>(batch["sp_values"]);
  const auto n = static_cast<std::int64_t>(values.size());
  const auto wide = flat<std::int64_t>(batch["wide_ids"]);
  const auto x = flat<float>(batch["x"]);
  const auto y = flat<float>(batch["y"]);
  const auto rows = static_cast<std::int64_t>(y.size());
  return {
      {g.output("sp_ids/indices:0"),
       af::Tensor::from_vector(flat<std::int64_t>(batch["sp_indices"]), af::Shape{n, 2})},
      {g.output("sp_ids/values:0"), af::Tensor::from_vector(values)},
      {g.output("sp_ids/shape:0"), af::Tensor::from_vector(flat<std::int64_t>(batch["sp_shape"]))},
      {g.output("sp_weights:0"), af::Tensor::from_vector(flat<float>(batch["sp_weights"]))},
      {g.output("wide_ids:0"), af::Tensor::from_vector(wide, af::Shape{rows, 2})},
      {g.output("x:0"), af::Tensor::from_vector(x, af::Shape{rows, 3})},
      {g.output("y:0"), af::Tensor::from_vector(y, af::Shape{rows, 1})}};
}

// Every value within 1e-4 of TensorFlow's relatively, or within a millionth of the
// variable's largest magnitude (FTRL's l1 zeros, Adadelta's accumulators of ~1e-9).
void check_variable(const std::string& name, const std::vector<float>& got,
                    const nlohmann::json& want_json) {
  const auto want = flat<float>(want_json);
  BOOST_TEST_CONTEXT("variable " << name) {
    BOOST_REQUIRE_EQUAL(got.size(), want.size());
    float scale = 0.0f;
    for (float w : want) scale = std::max(scale, std::abs(w));
    for (std::size_t i = 0; i < got.size(); ++i) {
      const float bound = 1e-4f * std::abs(want[i]) + 1e-6f * scale;
      BOOST_TEST_CONTEXT("element " << i << ": " << got[i] << " vs TensorFlow's " << want[i]) {
        BOOST_TEST(std::abs(got[i] - want[i]) <= bound);
      }
    }
  }
}

// The update op types TensorFlow built for each optimizer (training_ops.cc names); a
// resource graph's carry the "Resource" prefix.
const std::vector<std::string> update_ops = {"ApplyFtrlV2",
                                             "SparseApplyFtrlV2",
                                             "ApplyFtrl",
                                             "SparseApplyFtrl",
                                             "ApplyAdadelta",
                                             "SparseApplyAdadelta",
                                             "ApplyProximalAdagrad",
                                             "SparseApplyProximalAdagrad",
                                             "ApplyProximalGradientDescent",
                                             "SparseApplyProximalGradientDescent",
                                             "ApplyAdagradDA",
                                             "SparseApplyAdagradDA"};

// Imports `<variables>.meta`, checks its variables, collections and op types, then for each
// optimizer restores TensorFlow's initial checkpoint and trains 5 steps on TensorFlow's
// batches: TensorFlow's loss at each step, then its variables, slots and global step.
void import_restore_and_train(const std::string& variables) {
  const auto ref = reference();
  const bool resource = variables == "resource";
  af::Graph g;
  auto saver = af::train::import_meta_graph(g, (dir / (variables + ".meta")).string());
  BOOST_REQUIRE(saver != nullptr);
  BOOST_TEST(saver->restore_op().name() == "save/restore_all");
  // The embedding and the kernel; 18 slots (Ftrl 4, FtrlV1 4, Adadelta 4, ProximalAdagrad 2,
  // AdagradDA 4); global_step.
  const auto all = g.global_variables();
  BOOST_TEST(all.size() == 21u);
  BOOST_TEST(g.get_collection("trainable_variables").size() == 2u);
  std::map<std::string, af::Variable> by_name;
  for (const auto& v : all) {
    BOOST_TEST(v.is_resource() == resource, v.name());
    by_name[v.name()] = v;
  }
  BOOST_REQUIRE(by_name.count("embedding") == 1u);
  BOOST_TEST(by_name["embedding"].shape().to_string() == "(20, 4)");
  // TensorFlow's op types, all imported: the Apply and SparseApply op of each optimizer.
  std::set<std::string> types;
  for (const af::Node* n : g.nodes()) types.insert(n->type());
  for (const auto& t : ref["ops"][variables])
    BOOST_TEST(types.count(t.get<std::string>()) == 1u, t);
  for (const auto& t : update_ops) {
    const std::string type = resource ? "Resource" + t : t;
    BOOST_TEST(types.count(type) == 1u, type);
  }
  // A train op per optimizer, in the script's order, and the loss.
  const auto& train_ops = g.get_collection("train_op");
  BOOST_REQUIRE_EQUAL(train_ops.size(), ref["optimizers"].size());
  BOOST_REQUIRE(g.get_collection("losses").size() == 1u);
  const auto loss = std::any_cast<af::Output>(g.get_collection("losses")[0]);
  BOOST_TEST(loss.name() == "loss:0");
  std::vector<std::string> collected;
  for (const auto& t : train_ops) collected.push_back(std::any_cast<af::Operation>(t).name());

  af::Session sess(g);
  for (const auto& [name, want] : ref["optimizers"].items()) {
    BOOST_TEST_CONTEXT(variables << " variables, optimizer " << name) {
      const auto train_name = want["train_op"].get<std::string>();
      BOOST_TEST(std::count(collected.begin(), collected.end(), train_name) == 1);
      const af::Operation train = g.operation(train_name);
      saver->restore(sess, (dir / variables).string());
      BOOST_TEST(sess.run(by_name["global_step"].value()).scalar<std::int64_t>() == 0);
      std::vector<float> losses;
      for (const auto& batch : ref["batches"])
        losses.push_back(sess.run({loss}, feeds(g, batch), {train})[0].scalar<float>());
      const auto want_losses = flat<float>(want["losses"]);
      BOOST_REQUIRE_EQUAL(losses.size(), want_losses.size());
      for (std::size_t i = 0; i < losses.size(); ++i)
        BOOST_TEST(losses[i] == want_losses[i], boost::test_tools::tolerance(1e-5f));
      // The model, this optimizer's slots and global_step, as TensorFlow left them.
      for (const auto& [var, values] : want["variables"].items()) {
        BOOST_REQUIRE_MESSAGE(by_name.count(var) == 1u, "no variable " << var);
        const af::Tensor value = sess.run(by_name[var].value());
        if (var == "global_step")
          BOOST_TEST(value.scalar<std::int64_t>() == values[0].get<std::int64_t>());
        else
          check_variable(var, value.to_vector<float>(), values);
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(optimizer_graph_conformance_test)

BOOST_AUTO_TEST_CASE(tensorflows_sparse_optimizer_graphs_of_reference_variables_train_alike,
                     *boost::unit_test::timeout(120)) {
  // VariableV2, ApplyFtrlV2, SparseApplyFtrlV2, ... AssignAdd for global_step.
  import_restore_and_train("ref");
}

BOOST_AUTO_TEST_CASE(tensorflows_sparse_optimizer_graphs_of_resource_variables_train_alike,
                     *boost::unit_test::timeout(120)) {
  // VarHandleOp, ResourceGather, ResourceApplyFtrlV2, ResourceSparseApplyFtrlV2, ...
  import_restore_and_train("resource");
}

BOOST_AUTO_TEST_SUITE_END()
