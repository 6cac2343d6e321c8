// TensorFlow 1.x's tf.train.Saver with V2 checkpoints (saver.py, checkpoint_management.py):
// a TensorFlow-written checkpoint restores into an actorflow graph, save/restore round trips
// (plain and sharded), the `checkpoint` state file, max_to_keep, and the errors for missing
// keys, mismatched shapes, missing and corrupt files.
#include <actorflow/actorflow.hpp>
#include <actorflow/train/saver.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Model {
  af::Graph g;
  af::Variable w, b, step;
  explicit Model(float w0 = 1.0f) {
    w = g.variable(Tensor::from_vector(std::vector<float>{w0, 2 * w0, 3 * w0, 4 * w0}, Shape{2, 2}),
                   {.name = "w"});
    b = g.variable(Tensor::from_vector(std::vector<float>{0.5f, -0.5f}), {.name = "b"});
    step = af::train::get_or_create_global_step(g);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(saver_conformance_test)

// tests/data/checkpoints/tf_v2/model.ckpt was written by TensorFlow 2.21's tf.compat.v1 Saver
// (scripts/peers/make_checkpoint_fixture.py); its values are in model.json.
BOOST_AUTO_TEST_CASE(a_tensorflow_checkpoint_restores_into_variables,
                     *boost::unit_test::timeout(60)) {
  const std::string prefix = ACTORFLOW_TEST_DATA_DIR + "/checkpoints/tf_v2/model.ckpt";
  auto vars = af::train::list_variables(prefix);
  BOOST_REQUIRE(!vars.empty());
  bool found_kernel = false;
  af::Graph g;
  std::vector<af::Variable> float_vars;
  for (auto& [name, shape] : vars) {
    af::BundleReader reader(prefix);
    auto info = reader.lookup_dtype_and_shape(name);
    BOOST_REQUIRE(info.ok());
    if (info->dtype != DType::float32) continue;
    if (name == "dense/kernel") found_kernel = true;
    float_vars.push_back(g.variable(Tensor(DType::float32, shape), {.name = name}));
  }
  BOOST_REQUIRE(found_kernel);
  af::train::Saver saver(float_vars);
  af::Session sess(g);
  saver.restore(sess, prefix);
  af::BundleReader reader(prefix);
  for (auto& v : float_vars) {
    Tensor want = reader.lookup(v.name()).value();
    BOOST_TEST(sess.run(v.value()) == want, v.name());
  }
}

BOOST_AUTO_TEST_CASE(save_then_restore_gives_the_same_variables, *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  const std::string path = (fs::path(dir.path.string()) / "model.ckpt").string();
  std::string written;
  {
    Model m(1.0f);
    af::train::Saver saver(m.g);
    af::Session sess(m.g);
    sess.run(m.g.global_variables_initializer());
    sess.run(Output(m.step.assign(m.g.constant(std::int64_t{42}))).op());
    written = saver.save(sess, path, m.step);
    BOOST_TEST(written == path + "-42");
    BOOST_TEST(fs::exists(written + ".index"));
    BOOST_TEST(fs::exists(written + ".data-00000-of-00001"));
  }
  Model fresh(7.0f);
  af::train::Saver saver(fresh.g);
  af::Session sess(fresh.g);
  saver.restore(sess, written);  // no initializer needed
  BOOST_TEST(sess.run(fresh.w.value()).to_vector<float>() == std::vector<float>({1, 2, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(fresh.step.value()).scalar<std::int64_t>() == 42);
  // The save ops and names TensorFlow uses.
  BOOST_TEST(saver.filename_tensor_name() == "save/Const:0");
  BOOST_CHECK_NO_THROW(fresh.g.operation("save/SaveV2"));
  BOOST_CHECK_NO_THROW(fresh.g.operation("save/restore_all"));
  BOOST_TEST(af::train::latest_checkpoint(dir.path.string()).value_or("") == written);
}

// checkpoint_management.py: the state file lists the kept checkpoints, oldest first; older
// ones are deleted beyond max_to_keep.
BOOST_AUTO_TEST_CASE(a_saver_keeps_at_most_max_to_keep_checkpoints,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  Model m;
  af::train::Saver saver(m.g, {.max_to_keep = 2});
  af::Session sess(m.g);
  sess.run(m.g.global_variables_initializer());
  const std::string base = (fs::path(dir.path.string()) / "model").string();
  for (int step = 1; step <= 4; ++step) saver.save(sess, base, std::int64_t{step});
  BOOST_TEST(!fs::exists(base + "-1.index"));
  BOOST_TEST(!fs::exists(base + "-2.index"));
  BOOST_TEST(!fs::exists(base + "-2.data-00000-of-00001"));
  BOOST_TEST(fs::exists(base + "-3.index"));
  BOOST_TEST(fs::exists(base + "-4.index"));
  BOOST_TEST(saver.last_checkpoints() == std::vector<std::string>({base + "-3", base + "-4"}),
             boost::test_tools::per_element());
  const std::string state = read_file((fs::path(dir.path.string()) / "checkpoint").string());
  BOOST_TEST(state == "model_checkpoint_path: \"" + base + "-4\"\nall_model_checkpoint_paths: \"" +
                          base + "-3\"\nall_model_checkpoint_paths: \"" + base + "-4\"\n");
  auto parsed = af::train::get_checkpoint_state(dir.path.string());
  BOOST_REQUIRE(parsed.has_value());
  BOOST_TEST(parsed->all_model_checkpoint_paths.size() == 2u);
  {  // A damaged state file is DataLoss naming it, line and column.
    af::test::TempDir bad;
    std::ofstream(fs::path(bad.path) / "checkpoint") << "model_checkpoint_path: \"a\"\nbogus: 1\n";
    try {
      af::train::get_checkpoint_state(bad.path.string());
      BOOST_FAIL("a damaged checkpoint file parsed");
    } catch (const af::DataLossError& e) {
      BOOST_TEST(std::string(e.what()).find((fs::path(bad.path) / "checkpoint").string() + ":2:") ==
                 0u);
    }
  }
  // pad_step_number
  af::train::Saver padded(m.g, {.pad_step_number = true});
  BOOST_TEST(padded.save(sess, base, std::int64_t{7}) == base + "-00000007");
}

BOOST_AUTO_TEST_CASE(a_sharded_save_writes_one_shard_per_device_and_restores,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Graph g;
  af::Variable a, b;
  {
    auto d0 = g.device("/cpu:0");
    a = g.variable(Tensor::from_vector(std::vector<float>{1, 2}), {.name = "a"});
  }
  {
    auto d1 = g.device("/cpu:1");
    b = g.variable(Tensor::from_vector(std::vector<double>{3, 4, 5}), {.name = "b"});
  }
  af::train::Saver saver(g, {.sharded = true});
  af::Session sess(g, "", config);
  sess.run(g.global_variables_initializer());
  const std::string prefix = (fs::path(dir.path.string()) / "sharded").string();
  BOOST_TEST(saver.save(sess, prefix) == prefix);
  BOOST_TEST(fs::exists(prefix + ".data-00000-of-00002"));
  BOOST_TEST(fs::exists(prefix + ".data-00001-of-00002"));
  BOOST_TEST(!fs::exists(prefix + "_temp"));
  af::BundleReader reader(prefix);
  BOOST_TEST(reader.num_shards() == 2);
  // TensorFlow's _AddShardedSaveOpsForV2, node for node: the shards' names are computed in
  // the graph from save/Const, so TensorFlow's Saver of the exported .meta feeds nothing else.
  for (const char* node :
       {"save/StaticRegexFullMatch", "save/Const_1", "save/Const_2", "save/Select",
        "save/StringJoin", "save/num_shards", "save/ShardedFilename/shard", "save/ShardedFilename",
        "save/control_dependency", "save/ShardedFilename_1", "save/SaveV2_1",
        "save/MergeV2Checkpoints/checkpoint_prefixes", "save/MergeV2Checkpoints", "save/Identity"})
    BOOST_TEST(g.contains(node), node);
  BOOST_TEST(g.operation("save/ShardedFilename_1").device() ==
             "/device:CPU:0");  // set_cpu0 of /cpu:1
  BOOST_TEST(saver.saver_def().save_tensor_name == "save/Identity:0");
  const std::string again = (fs::path(dir.path.string()) / "fed_once").string();
  BOOST_TEST(sess.run(g.output("save/Identity:0"), {{g.output("save/Const:0"), Tensor(again)}})
                 .scalar<std::string>() == again);
  BOOST_TEST(fs::exists(again + ".data-00001-of-00002"));
  sess.run(Output(a.assign(g.constant(Tensor::from_vector(std::vector<float>{0, 0})))).op());
  saver.restore(sess, prefix);
  BOOST_TEST(sess.run(a.value()).to_vector<float>() == std::vector<float>({1, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(b.value()).to_vector<double>() == std::vector<double>({3, 4, 5}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(restore_errors_name_the_key_the_mismatch_or_the_file,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  const std::string prefix = (fs::path(dir.path.string()) / "m").string();
  {
    Model m;
    af::train::Saver saver(std::vector<af::Variable>{m.w});
    af::Session sess(m.g);
    sess.run(m.g.global_variables_initializer());
    saver.save(sess, prefix);
  }
  {  // A variable missing from the checkpoint.
    Model m;
    af::train::Saver saver(m.g);
    af::Session sess(m.g);
    try {
      saver.restore(sess, prefix);
      BOOST_FAIL("expected NotFound");
    } catch (const af::NotFoundError& e) {
      BOOST_TEST(contains(e.what(), "Restoring from checkpoint failed"));
      BOOST_TEST(contains(e.what(), "Key b not found in checkpoint"));
    }
  }
  {  // The same name with another shape.
    af::Graph g;
    af::Variable w = g.variable(Tensor::from_vector(std::vector<float>{1, 2, 3}), {.name = "w"});
    af::train::Saver saver(std::vector<af::Variable>{w});
    af::Session sess(g);
    try {
      saver.restore(sess, prefix);
      BOOST_FAIL("expected InvalidArgument");
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(contains(e.what(), "a mismatch between the current graph and the graph"));
      BOOST_TEST(contains(
          e.what(),
          "Assign requires shapes of both tensors to match. lhs shape= [3] rhs shape= [2,2]"));
    }
  }
  Model m;
  af::train::Saver saver(std::vector<af::Variable>{m.w});
  af::Session sess(m.g);
  BOOST_CHECK_THROW(saver.restore(sess, prefix + "-nothing"), af::InvalidArgumentError);
  BOOST_CHECK_THROW(saver.save(sess, (fs::path(dir.path.string()) / "no/such/dir/m").string()),
                    af::InvalidArgumentError);
  // A corrupt data file is DataLoss naming it.
  {
    std::fstream data(prefix + ".data-00000-of-00001",
                      std::ios::in | std::ios::out | std::ios::binary);
    data.seekp(3);
    data.put('\x7f');
  }
  try {
    saver.restore(sess, prefix);
    BOOST_FAIL("expected DataLoss");
  } catch (const af::DataLossError& e) {
    BOOST_TEST(contains(e.what(), "m.data-00000-of-00001"));
  }
  // Truncated index.
  fs::resize_file(prefix + ".index", 20);
  BOOST_CHECK_THROW(saver.restore(sess, prefix), af::DataLossError);
  // An uninitialized variable cannot be saved.
  BOOST_CHECK_THROW(saver.save(sess, (fs::path(dir.path.string()) / "x").string()),
                    af::FailedPreconditionError);
}

BOOST_AUTO_TEST_CASE(latest_checkpoint_needs_the_index_file, *boost::unit_test::timeout(30)) {
  af::test::TempDir dir;
  BOOST_TEST(!af::train::latest_checkpoint(dir.path.string()).has_value());
  af::train::update_checkpoint_state(dir.path.string(),
                                     (fs::path(dir.path.string()) / "gone").string());
  BOOST_TEST(!af::train::latest_checkpoint(dir.path.string()).has_value());
  auto state = af::train::get_checkpoint_state(dir.path.string());
  BOOST_REQUIRE(state.has_value());
  BOOST_TEST(state->model_checkpoint_path == (fs::path(dir.path.string()) / "gone").string());
}

// saver.py's _MaybeDeleteOldCheckpoints: a checkpoint leaving the max_to_keep list stays on
// disk when it was written after the next keep time (build time + N hours, then + N hours
// for every checkpoint kept so).
BOOST_AUTO_TEST_CASE(keep_checkpoint_every_n_hours_keeps_old_checkpoints_on_disk,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  Model m;
  af::Session sess(m.g);
  sess.run(m.g.global_variables_initializer());
  const std::string base = (fs::path(dir.path) / "kept").string();
  af::train::Saver keeper(m.g,
                          {.max_to_keep = 1, .keep_checkpoint_every_n_hours = 1e-6});  // 3.6 ms
  for (int step = 1; step <= 3; ++step) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    keeper.save(sess, base, std::int64_t{step});
  }
  BOOST_TEST(fs::exists(base + "-1.index"));
  BOOST_TEST(fs::exists(base + "-2.index"));
  BOOST_TEST(keeper.last_checkpoints() == std::vector<std::string>({base + "-3"}),
             boost::test_tools::per_element());
  const std::string other = (fs::path(dir.path) / "dropped").string();
  af::train::Saver dropper(m.g, {.max_to_keep = 1});
  for (int step = 1; step <= 3; ++step) dropper.save(sess, other, std::int64_t{step});
  BOOST_TEST(!fs::exists(other + "-1.index"));
  BOOST_TEST(!fs::exists(other + "-2.index"));
  BOOST_TEST(fs::exists(other + "-3.index"));
}

// tf.train.Saver({"name": var}): each variable is saved under the given name, and a model
// built under another name scope restores from it (the ensemble of exercise 9 does this).
BOOST_AUTO_TEST_CASE(a_saver_from_a_name_map_saves_and_restores_under_those_names,
                     *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "mapped").string();
  {
    af::Graph g;
    auto a = g.variable(af::Tensor::from_vector<float>({1.0f, 2.0f}), {.name = "a"});
    auto b = g.variable(af::Tensor(3), {.name = "b"});
    af::train::Saver saver(
        std::map<std::string, af::Variable>{{"layer/kernel", a}, {"layer/step", b}});
    af::Session sess(g);
    sess.run(g.global_variables_initializer());
    saver.save(sess, prefix);
  }
  auto listed = af::train::list_variables(prefix);
  BOOST_REQUIRE(listed.size() == 2u);
  BOOST_TEST(listed[0].first == "layer/kernel");
  BOOST_TEST(listed[1].first == "layer/step");
  af::Graph g;
  af::Variable kernel;
  {
    auto scope = g.name_scope("model_0");
    kernel = g.variable(af::Tensor::from_vector<float>({0.0f, 0.0f}), {.name = "kernel"});
  }
  BOOST_TEST(kernel.name() == "model_0/kernel");
  af::train::Saver saver(std::map<std::string, af::Variable>{{"layer/kernel", kernel}});
  af::Session sess(g);
  saver.restore(sess, prefix);
  BOOST_TEST(sess.run(kernel.value()).to_vector<float>() == (std::vector<float>{1.0f, 2.0f}));
}

BOOST_AUTO_TEST_SUITE_END()
