// Training state on parameter servers: variables placed by replica_device_setter on two ps
// tasks, an optimizer whose slots follow their variables there, and a sharded Saver whose
// SaveV2 runs on each ps task's CPU (one shard per task, indexes merged), restored through
// a session on a worker. Every task is a Server in this process, on loopback.
#include <actorflow/actorflow.hpp>
#include <actorflow/train/saver.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "free_port.hpp"
#include "temp_dir.hpp"

namespace {

std::string address() { return "127.0.0.1:" + std::to_string(af::test::free_port()); }

}  // namespace

BOOST_AUTO_TEST_SUITE(distributed_saver_test)

BOOST_AUTO_TEST_CASE(a_sharded_saver_writes_one_shard_per_ps_task_and_restores,
                     *boost::unit_test::timeout(120)) {
  af::ClusterSpec cluster{std::map<std::string, std::vector<std::string>>{
      {"ps", {address(), address()}}, {"worker", {address()}}}};
  af::Server ps0{cluster, "ps", 0};
  af::Server ps1{cluster, "ps", 1};
  af::Server worker{cluster, "worker", 0};
  af::test::TempDir dir("af_dist_ckpt");

  af::Graph g;
  af::Variable w, b, step;
  af::Operation train;
  {
    auto setter = g.device(af::replica_device_setter(cluster));
    w = g.variable(af::Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, af::Shape{2, 2}),
                   {.name = "w"});
    b = g.variable(af::Tensor::from_vector(std::vector<float>{0.5f, -0.5f}), {.name = "b"});
    step = af::train::get_or_create_global_step(g);
  }
  BOOST_TEST(w.op().device() != b.op().device());  // round robin over the two ps tasks
  af::Output x =
      g.constant(af::Tensor::from_vector(std::vector<float>{1, -1, 2, 0.5f}, af::Shape{2, 2}));
  af::Output loss = af::reduce_sum(af::square(af::matmul(x, w) + b));
  af::train::AdamOptimizer adam(0.1);
  {
    auto on_worker = g.device("/job:worker/task:0");
    train = adam.minimize(loss, step);
  }
  // Slots live with their variables on the ps tasks, whatever device scope minimize ran in.
  BOOST_TEST(adam.get_slot(w, "m").op().device() == w.op().device());
  BOOST_TEST(adam.get_slot(b, "v").op().device() == b.op().device());

  af::train::Saver saver(g, {.sharded = true});
  af::Session sess(g, worker.target());
  sess.run(g.global_variables_initializer());
  for (int i = 0; i < 3; ++i) sess.run(train);
  const auto w_trained = sess.run(w.value());
  const auto m_trained = sess.run(adam.get_slot(w, "m").value());
  const std::string prefix = (dir.path / "model.ckpt").string();
  const std::string written = saver.save(sess, prefix, step);
  BOOST_TEST(written == prefix + "-3");
  // One data shard per ps task, one merged index, no temporary directory left.
  af::BundleReader reader(written);
  BOOST_REQUIRE(reader.status().ok());
  BOOST_TEST(reader.num_shards() == 2);
  BOOST_TEST(std::filesystem::exists(written + ".data-00000-of-00002"));
  BOOST_TEST(std::filesystem::exists(written + ".data-00001-of-00002"));
  BOOST_TEST(!std::filesystem::exists(written + "_temp"));
  for (const char* name :
       {"w", "b", "global_step", "w/Adam", "w/Adam_1", "b/Adam", "beta1_power", "beta2_power"})
    BOOST_TEST(reader.contains(name), name);
  // Each SaveV2 runs on the CPU of the ps task holding its variables.
  for (auto* node : g.nodes())
    if (node->type() == "SaveV2")
      BOOST_TEST(node->def().device.find("/job:ps/") == 0u, node->def().device);

  // Clobber the state, then restore it through the cluster.
  sess.run(af::Output(w.assign(g.constant(af::Tensor(af::DType::float32, af::Shape{2, 2})))).op());
  sess.run(train);
  saver.restore(sess, *af::train::latest_checkpoint(dir.path.string()));
  BOOST_TEST(sess.run(w.value()) == w_trained);
  BOOST_TEST(sess.run(adam.get_slot(w, "m").value()) == m_trained);
  BOOST_TEST(sess.run(step.value()).scalar<std::int64_t>() == 3);
}

BOOST_AUTO_TEST_SUITE_END()
