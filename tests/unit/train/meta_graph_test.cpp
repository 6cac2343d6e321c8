// tf.train.export_meta_graph / import_meta_graph and the .meta files a Saver writes: the
// collections by kind, the SaverDef, and a model that trains on after a round trip.
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "temp_dir.hpp"

namespace {

// loss = sum((x * w - 3)^2) with w a variable of 2, trained by gradient descent.
struct Model {
  af::Graph g;
  af::Output x, loss;
  af::Variable w, step;
  af::Operation train;
  Model() {
    x = g.placeholder(af::float32, af::PartialShape{2}, "x");
    w = g.variable(af::Tensor::from_vector<float>({1, 2}), {.name = "w"});
    step = af::train::get_or_create_global_step(g);
    auto diff = x * w.value() - g.constant(3.0f, "three");
    loss = af::reduce_sum(diff * diff);
    g.add_to_collection("losses", loss);
    af::train::GradientDescentOptimizer sgd(0.1);
    train = sgd.minimize(loss, step);
  }
};

const af::CollectionDef& collection(const af::MetaGraphDef& m, const std::string& key) {
  auto it = m.collections.find(key);
  BOOST_REQUIRE_MESSAGE(it != m.collections.end(), "no collection " << key);
  return it->second;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(meta_graph_test)

BOOST_AUTO_TEST_CASE(collections_are_written_by_the_kind_of_their_values,
                     *boost::unit_test::timeout(30)) {
  Model m;
  af::train::Saver saver(m.g);
  const af::MetaGraphDef meta = af::train::export_meta_graph(m.g, {}, {.saver = &saver});
  const auto& variables = collection(meta, "variables");
  BOOST_TEST((variables.kind == af::CollectionDef::Kind::bytes_list));
  BOOST_REQUIRE(variables.bytes_list.size() == 2u);
  const af::VariableDef w = af::parse_variable_def(variables.bytes_list[0]);
  BOOST_TEST(w.variable_name == "w:0");
  BOOST_TEST(w.initializer_name == "w/Assign");
  BOOST_TEST(w.snapshot_name == "w/read:0");
  BOOST_TEST(w.initial_value_name == "w/initial_value:0");
  BOOST_TEST(w.trainable);
  BOOST_TEST(!af::parse_variable_def(variables.bytes_list[1]).trainable);  // global_step
  BOOST_TEST(collection(meta, "trainable_variables").bytes_list.size() == 1u);
  BOOST_TEST(collection(meta, "global_step").bytes_list.size() == 1u);
  BOOST_TEST(collection(meta, "train_op").node_list == (std::vector<std::string>{m.train.name()}),
             boost::test_tools::per_element());
  BOOST_TEST(collection(meta, "losses").node_list == (std::vector<std::string>{m.loss.name()}),
             boost::test_tools::per_element());
  BOOST_REQUIRE(meta.saver_def.has_value());
  BOOST_TEST(meta.saver_def->filename_tensor_name == "save/Const:0");
  BOOST_TEST(meta.saver_def->save_tensor_name == "save/control_dependency:0");
  BOOST_TEST(meta.saver_def->restore_op_name == "save/restore_all");
  BOOST_TEST(meta.saver_def->version == 2);
  // Every node carries its output shapes, as as_graph_def(add_shapes=True).
  for (const auto& n : meta.graph_def.nodes)
    BOOST_TEST(n.attrs.count("_output_shapes") == 1u, n.name);
  // Binary and text round trips keep it all.
  const af::MetaGraphDef again = af::parse_meta_graph_def(af::serialize_meta_graph_def(meta));
  BOOST_TEST((again.graph_def == meta.graph_def));
  BOOST_TEST((again.saver_def == meta.saver_def));
  BOOST_TEST((again.collections == meta.collections));
  BOOST_TEST((af::parse_meta_graph_def_text(af::meta_graph_def_to_text(meta)).collections ==
              meta.collections));
}

BOOST_AUTO_TEST_CASE(a_saver_writes_the_meta_graph_beside_each_checkpoint_and_prunes_it,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  Model m;
  af::train::Saver saver(m.g, {.max_to_keep = 1});
  af::Session sess(m.g);
  sess.run(m.g.global_variables_initializer());
  const std::string prefix = (dir.path / "model").string();
  const std::string first = saver.save(sess, prefix, std::int64_t{1});
  BOOST_TEST(std::filesystem::exists(first + ".meta"));
  const af::MetaGraphDef meta = af::read_meta_graph_def(first + ".meta");
  BOOST_TEST(meta.saver_def->restore_op_name == "save/restore_all");
  const std::string second = saver.save(sess, prefix, std::int64_t{2});
  BOOST_TEST(!std::filesystem::exists(first + ".meta"));  // pruned with its checkpoint
  BOOST_TEST(std::filesystem::exists(second + ".meta"));
  saver.save(sess, prefix, std::int64_t{3}, "checkpoint", true, false);
  BOOST_TEST(!std::filesystem::exists(prefix + "-3.meta"));
}

BOOST_AUTO_TEST_CASE(an_imported_meta_graph_restores_and_trains_on,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  std::string checkpoint;
  std::vector<float> trained;
  {
    Model m;
    af::train::Saver saver(m.g);
    af::Session sess(m.g);
    sess.run(m.g.global_variables_initializer());
    for (int i = 0; i < 3; ++i)
      sess.run({}, {{m.x, af::Tensor::from_vector<float>({1, 1})}}, {m.train});
    trained = sess.run(m.w.value()).to_vector<float>();
    checkpoint = saver.save(sess, (dir.path / "model").string(), m.step);
  }
  for (const std::string scope : {"", "copy"}) {
    af::Graph g;
    auto saver = af::train::import_meta_graph(g, checkpoint + ".meta", {.import_scope = scope});
    BOOST_REQUIRE(saver != nullptr);
    const std::string p = scope.empty() ? "" : scope + "/";
    BOOST_TEST(g.global_variables().size() == 2u);
    BOOST_TEST(g.get_collection("trainable_variables").size() == 1u);
    const auto& train_ops = g.get_collection("train_op");
    BOOST_REQUIRE(train_ops.size() == 1u);
    af::Session sess(g);
    saver->restore(sess, checkpoint);
    BOOST_TEST(sess.run(g.output(p + "w/read:0")).to_vector<float>() == trained,
               boost::test_tools::per_element());
    BOOST_TEST(sess.run(g.output(p + "global_step:0")).scalar<std::int64_t>() == 3);
    sess.run({}, {{g.output(p + "x:0"), af::Tensor::from_vector<float>({1, 1})}},
             {std::any_cast<af::Operation>(train_ops[0])});
    BOOST_TEST(sess.run(g.output(p + "global_step:0")).scalar<std::int64_t>() == 4);
    // The imported saver saves too, under its own prefix.
    const std::string again = saver->save(sess, (dir.path / ("again" + scope)).string());
    BOOST_TEST(af::train::checkpoint_exists(again));
  }
}

BOOST_AUTO_TEST_CASE(without_a_saver_def_a_saver_of_every_variable_or_none,
                     *boost::unit_test::timeout(30)) {
  Model m;
  af::MetaGraphDef meta = af::train::export_meta_graph(m.g);
  BOOST_TEST(!meta.saver_def.has_value());
  af::Graph g;
  BOOST_TEST(af::train::import_meta_graph(g, meta) != nullptr);
  af::Graph empty_source;
  empty_source.constant(1.0f, "c");
  af::Graph h;
  BOOST_TEST(af::train::import_meta_graph(h, af::train::export_meta_graph(empty_source)) ==
             nullptr);
  BOOST_CHECK_THROW(af::read_meta_graph_def("/nonexistent/model.meta"), af::NotFoundError);
}

BOOST_AUTO_TEST_SUITE_END()
