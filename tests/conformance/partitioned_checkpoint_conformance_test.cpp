// Checkpoints of partitioned variables as TensorFlow 1.x's Saver writes them
// (saveable_object_util.py, tensor_bundle.cc): one key per full variable holding its parts as
// slices, restores into any other partitioning, slots saved as slices of the full slot,
// sharded saves writing each part on its own device, and the files real TensorFlow wrote
// (tests/data/checkpoints/tf_partitioned, scripts/peers/make_partitioned_checkpoint_fixture.py).
//
// With ACTORFLOW_CHECKPOINT_EXPORT_DIR set, the second test leaves actorflow_partitioned.ckpt
// there for scripts/peers/check_partitioned_checkpoint.py (TensorFlow restores it).
#include <actorflow/actorflow.hpp>
#include <actorflow/train/embedding_ops.hpp>
#include <actorflow/train/meta_graph.hpp>
#include <actorflow/train/partitioned_variables.hpp>
#include <actorflow/train/saver.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;
using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::contains;
using af::test::error_of;
using af::train::PartitionedVariable;

const std::string kFixture = ACTORFLOW_TEST_DATA_DIR + "/checkpoints/tf_partitioned/parts.ckpt";

std::vector<float> emb_values() {
  std::vector<float> v(40);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

// The fixture's four partitioned variables and `w`, each cut into `parts` (resource
// variables when `resource`).
struct FixtureModel {
  af::Graph g;
  PartitionedVariable emb, big, ids, cols;
  af::Variable w;
  explicit FixtureModel(std::int64_t parts, bool resource = false) {
    auto make = [&](const std::string& name, Shape shape, DType dtype, int axis) {
      return af::train::get_partitioned_variable(
          g, name, shape,
          {.initializer = af::initializers::zeros(),
           .dtype = dtype,
           .partitioner = af::train::fixed_size_partitioner(parts, axis),
           .use_resource = resource});
    };
    emb = make("emb", Shape{10, 4}, DType::float32, 0);
    big = make("big", Shape{200, 3}, DType::float32, 0);
    ids = make("ids", Shape{7}, DType::int64, 0);
    cols = make("cols", Shape{2, 6}, DType::float32, 1);
    w = g.variable(Tensor::from_vector(std::vector<float>{0, 0}), {.name = "w"});
  }
};

// A [10,4] table "emb" in `parts` parts on its own.
struct EmbModel {
  af::Graph g;
  PartitionedVariable emb;
  explicit EmbModel(std::int64_t parts, std::int64_t rows = 10) {
    emb = af::train::get_partitioned_variable(
        g, "emb", Shape{rows, 4},
        {.initializer = af::initializers::zeros(),
         .partitioner = af::train::fixed_size_partitioner(parts)});
  }
  // Sets the parts to rows 4 i + j = the fixture's values.
  void fill(af::Session& sess) {
    const std::vector<float> all = emb_values();
    std::int64_t row = 0;
    for (const af::Variable& p : emb.parts()) {
      const std::int64_t n = p.shape().dim(0);
      std::vector<float> rows(all.begin() + row * 4, all.begin() + (row + n) * 4);
      sess.run(Output(p.assign(g.constant(Tensor::from_vector(rows, Shape{n, 4})))).op());
      row += n;
    }
  }
};

std::vector<float> floats(af::Session& sess, const PartitionedVariable& v) {
  return sess.run(v.as_tensor()).to_vector<float>();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(partitioned_checkpoint_conformance_test)

// TensorFlow saved emb, big and ids in 3, 3 and 2 parts along rows and cols in 3 along
// columns; actorflow restores them into 1, 2, 3 and 8 parts, of reference or resource
// variables.
BOOST_AUTO_TEST_CASE(a_tensorflow_partitioned_checkpoint_restores_into_any_partitioning,
                     *boost::unit_test::timeout(120)) {
  for (const bool resource : {false, true})
    for (std::int64_t parts : {3, 2, 8, 1}) {
      BOOST_TEST_CONTEXT("parts " << parts << (resource ? " (resource variables)" : "")) {
        FixtureModel m(parts, resource);
        BOOST_TEST(m.emb.parts()[0].is_resource() == resource);
        BOOST_TEST(m.emb.parts().size() == static_cast<std::size_t>(parts));
        af::train::Saver saver(m.g);
        af::Session sess(m.g);
        saver.restore(sess, kFixture);
        BOOST_TEST(floats(sess, m.emb) == emb_values(), boost::test_tools::per_element());
        const std::vector<float> big = floats(sess, m.big);
        BOOST_REQUIRE(big.size() == 600u);
        for (std::size_t i = 0; i < big.size(); ++i)
          BOOST_REQUIRE(big[i] == static_cast<float>(i) / 2);
        BOOST_TEST(sess.run(m.ids.as_tensor()).to_vector<std::int64_t>() ==
                       std::vector<std::int64_t>({-3, 997, 1997, 2997, 3997, 4997, 5997}),
                   boost::test_tools::per_element());
        BOOST_TEST(
            floats(sess, m.cols) == std::vector<float>({0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}),
            boost::test_tools::per_element());
        BOOST_TEST(sess.run(m.w.value()).to_vector<float>() == std::vector<float>({1.5f, -2.0f}),
                   boost::test_tools::per_element());
      }
    }
}

// saveable_object_util: the parts are saved under the full name, one SaveV2 entry per part
// with its slice spec; the checkpoint lists "emb" once, whole, and restores into 2 and 8
// parts and into one whole variable.
BOOST_AUTO_TEST_CASE(a_partitioned_variable_saves_as_one_tensor_and_restores_into_other_parts,
                     *boost::unit_test::timeout(120)) {
  af::test::TempDir dir;
  std::string prefix = (dir.path / "model.ckpt").string();
  if (const char* out = std::getenv("ACTORFLOW_CHECKPOINT_EXPORT_DIR"))
    prefix = (fs::path(out) / "actorflow_partitioned.ckpt").string();
  {
    EmbModel m(4);
    af::train::Saver saver(m.g);
    const Tensor specs =
        *m.g.operation("save/SaveV2/shape_and_slices").node_def().attr<Tensor>("value");
    BOOST_TEST(specs.to_vector<std::string>() ==
                   std::vector<std::string>(
                       {"10 4 0,3:0,4", "10 4 3,3:0,4", "10 4 6,2:0,4", "10 4 8,2:0,4"}),
               boost::test_tools::per_element());
    af::Session sess(m.g);
    m.fill(sess);
    BOOST_TEST(saver.save(sess, prefix, std::nullopt, "checkpoint", false, false) == prefix);
  }
  const auto listed = af::train::list_variables(prefix);
  BOOST_REQUIRE(listed.size() == 1u);
  BOOST_TEST(listed[0].first == "emb");
  BOOST_TEST(listed[0].second.to_string() == "[10,4]");
  BOOST_TEST(af::BundleReader(prefix).lookup_dtype_and_shape("emb").value().slices.size() == 4u);

  for (std::int64_t parts : {2, 8}) {
    EmbModel m(parts);
    af::train::Saver saver(m.g);
    af::Session sess(m.g);
    saver.restore(sess, prefix);
    BOOST_TEST(floats(sess, m.emb) == emb_values(), boost::test_tools::per_element());
  }
  af::Graph g;
  af::Variable whole = g.variable(Tensor(DType::float32, Shape{10, 4}), {.name = "emb"});
  af::train::Saver saver(g);
  af::Session sess(g);
  saver.restore(sess, prefix);
  BOOST_TEST(sess.run(whole.value()).to_vector<float>() == emb_values(),
             boost::test_tools::per_element());
}

// slot_creator: the Adagrad accumulator of `emb/part_k` is part k of `emb/Adagrad`, so the
// optimizer's state is saved and re-partitioned with the table.
BOOST_AUTO_TEST_CASE(optimizer_slots_of_parts_are_slices_of_the_full_slot,
                     *boost::unit_test::timeout(120)) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "model.ckpt").string();
  std::vector<float> accumulators;
  {
    EmbModel m(3);
    const Output ids = m.g.constant(Tensor::from_vector(std::vector<std::int64_t>{1, 8, 8}));
    const Output loss =
        af::reduce_sum(af::train::embedding_lookup(m.emb, ids, {.partition_strategy = "div"}));
    af::train::AdagradOptimizer opt(0.5);
    const af::Operation step = opt.minimize(loss);
    const af::Variable slot0 = opt.get_slot(m.emb.parts()[0], "accumulator");
    BOOST_REQUIRE(slot0.save_slice_info() != nullptr);
    BOOST_TEST(slot0.save_slice_info()->full_name == "emb/Adagrad");
    BOOST_TEST(slot0.save_slice_info()->spec() == "10 4 0,4:0,4");
    af::train::Saver saver(m.g);
    af::Session sess(m.g);
    sess.run(m.g.global_variables_initializer());
    m.fill(sess);
    sess.run(step);
    std::vector<Output> slots;
    for (const af::Variable& p : m.emb.parts())
      slots.push_back(opt.get_slot(p, "accumulator").value());
    accumulators = sess.run(af::concat(slots, 0)).to_vector<float>();
    saver.save(sess, prefix, std::nullopt, "checkpoint", false, false);
  }
  // Rows 1 and 8 got gradients 1 and 2: accumulators 0.1 + 1 and 0.1 + 4.
  BOOST_TEST(accumulators[4] == 1.1f);
  BOOST_TEST(accumulators[32] == 4.1f);
  BOOST_TEST(accumulators[0] == 0.1f);
  bool listed = false;
  for (const auto& [name, shape] : af::train::list_variables(prefix))
    if (name == "emb/Adagrad") listed = shape.to_string() == "[10,4]";
  BOOST_TEST(listed);

  EmbModel m(2);
  const Output ids = m.g.constant(Tensor::from_vector(std::vector<std::int64_t>{0}));
  af::train::AdagradOptimizer opt(0.5);
  opt.minimize(af::reduce_sum(af::train::embedding_lookup(m.emb, ids)));
  af::train::Saver saver(m.g);
  af::Session sess(m.g);
  saver.restore(sess, prefix);
  std::vector<Output> slots;
  for (const af::Variable& p : m.emb.parts())
    slots.push_back(opt.get_slot(p, "accumulator").value());
  BOOST_TEST(sess.run(af::concat(slots, 0)).to_vector<float>() == accumulators,
             boost::test_tools::per_element());
}

// Saver(sharded=True) groups the parts by device: each writes its own shard and the merged
// index lists the slices of all.
BOOST_AUTO_TEST_CASE(a_sharded_save_writes_each_part_on_its_device,
                     *boost::unit_test::timeout(120)) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "sharded").string();
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Graph g;
  PartitionedVariable emb;
  {
    auto placed = g.device([](const af::NodeDef& node) {
      return node.name.rfind("emb/part_1", 0) == 0 ? std::string("/cpu:1") : std::string("/cpu:0");
    });
    emb =
        af::train::get_partitioned_variable(g, "emb", Shape{10, 4},
                                            {.initializer = af::initializers::zeros(),
                                             .partitioner = af::train::fixed_size_partitioner(3)});
  }
  af::train::Saver saver(g, {.sharded = true});
  {
    af::Session sess(g, "", config);
    const std::vector<float> all = emb_values();
    std::int64_t row = 0;
    for (const af::Variable& p : emb.parts()) {
      const std::int64_t n = p.shape().dim(0);
      std::vector<float> rows(all.begin() + row * 4, all.begin() + (row + n) * 4);
      sess.run(Output(p.assign(g.constant(Tensor::from_vector(rows, Shape{n, 4})))).op());
      row += n;
    }
    saver.save(sess, prefix, std::nullopt, "checkpoint", false, false);
  }
  af::BundleReader reader(prefix);
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  BOOST_TEST(reader.num_shards() == 2);
  const auto info = reader.lookup_dtype_and_shape("emb").value();
  std::vector<std::string> slices;
  for (const auto& s : info.slices) slices.push_back(s.to_string());
  BOOST_TEST(slices == std::vector<std::string>({"0,4:0,4", "7,3:0,4", "4,3:0,4"}),
             boost::test_tools::per_element());
  BOOST_TEST(reader.lookup("emb").value().to_vector<float>() == emb_values(),
             boost::test_tools::per_element());
  EmbModel m(5);
  af::train::Saver plain(m.g);
  af::Session sess(m.g);
  plain.restore(sess, prefix);
  BOOST_TEST(floats(sess, m.emb) == emb_values(), boost::test_tools::per_element());
}

// op_list_to_dict's and RestoreV2's errors.
BOOST_AUTO_TEST_CASE(mixing_parts_and_whole_variables_or_other_shapes_fails_clearly,
                     *boost::unit_test::timeout(60)) {
  {
    EmbModel m(2);
    m.g.variable(Tensor(DType::float32, Shape{10, 4}), {.name = "emb"});
    BOOST_TEST(error_of([&] { af::train::Saver saver(m.g); }) ==
               "At least two variables have the same name: emb");
  }
  {
    af::Graph g;
    g.variable(Tensor(DType::float32, Shape{10, 4}), {.name = "emb"});
    af::train::get_partitioned_variable(g, "emb", Shape{10, 4},
                                        {.initializer = af::initializers::zeros(),
                                         .partitioner = af::train::fixed_size_partitioner(2)});
    BOOST_TEST(error_of([&] { af::train::Saver saver(g); }) ==
               "Mixing slices and non-slices with the same name: emb");
  }
  EmbModel taller(2, 12);
  af::train::Saver saver(taller.g);
  af::Session sess(taller.g);
  const std::string message = error_of([&] { saver.restore(sess, kFixture); });
  BOOST_TEST(contains(message,
                      "tensor_name = emb; shape in shape_and_slice spec [12,4] does not "
                      "match the shape stored in checkpoint: [10,4]"),
             message);
}

// A meta graph keeps each part's VariableDef.save_slice_info_def, so the imported variables
// save as slices again.
BOOST_AUTO_TEST_CASE(a_meta_graph_keeps_the_parts_slice_info, *boost::unit_test::timeout(60)) {
  EmbModel m(3);
  const af::MetaGraphDef meta = af::train::export_meta_graph(m.g);
  af::Graph g;
  af::train::import_meta_graph(g, meta, {.import_scope = "copy"});
  const std::vector<af::Variable> vars = g.global_variables();
  BOOST_REQUIRE(vars.size() == 3u);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    BOOST_REQUIRE(vars[i].save_slice_info() != nullptr);
    af::SaveSliceInfo want = m.emb.save_slice_infos()[i];
    want.full_name = "copy/emb";
    BOOST_TEST((*vars[i].save_slice_info() == want), vars[i].save_slice_info()->spec());
    BOOST_TEST(vars[i].save_slice_info()->full_name == "copy/emb");
  }
}

BOOST_AUTO_TEST_SUITE_END()
