// Training in one process: an MLP built from layers learns, a checkpoint restores the exact
// state of an interrupted run (variables, slots, beta powers, global step), layers, losses,
// metrics and numerics checks behave as TensorFlow's.
#include <actorflow/actorflow.hpp>
#include <actorflow/train/saver.hpp>
#include <algorithm>
#include <any>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "temp_dir.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

// Two Gaussian blobs in 4-D, labelled 0 and 1; batch `index` is always the same.
std::pair<Tensor, Tensor> blobs(int index, int n = 32) {
  std::mt19937 rng(1000 + static_cast<unsigned>(index));
  std::normal_distribution<float> noise(0.0f, 0.6f);
  std::vector<float> x;
  std::vector<std::int32_t> y;
  for (int i = 0; i < n; ++i) {
    const int label = static_cast<int>(rng() % 2);
    for (int d = 0; d < 4; ++d)
      x.push_back((label ? 1.0f : -1.0f) * (d % 2 ? 0.5f : 1.0f) + noise(rng));
    y.push_back(label);
  }
  return {Tensor::from_vector(x, Shape{n, 4}), Tensor::from_vector(y)};
}

struct Net {
  af::Graph g;
  Output x, y, loss, accuracy;
  af::Variable step;
  af::Operation train;
  explicit Net(std::int64_t seed = 7) {
    g.set_random_seed(seed);
    x = g.placeholder(DType::float32, af::PartialShape{-1, 4}, "x");
    y = g.placeholder(DType::int32, af::PartialShape{-1}, "y");
    af::layers::Activation relu = [](const Output& t) { return af::relu(t); };
    Output h = af::layers::dense(x, 16, {.activation = relu});
    Output logits = af::layers::dense(h, 2);
    loss = af::losses::sparse_softmax_cross_entropy(y, logits);
    accuracy = af::metrics::batch_accuracy(y, af::argmax(logits, 1, DType::int32));
    step = af::train::get_or_create_global_step(g);
    af::train::AdamOptimizer adam(0.01);
    train = adam.minimize(loss, step);
  }
  void run_steps(af::Session& sess, int from, int to) {
    for (int i = from; i < to; ++i) {
      auto [bx, by] = blobs(i);
      sess.run(train, {{x, bx}, {y, by}});
    }
  }
  std::vector<Tensor> all_values(af::Session& sess) {
    std::vector<Tensor> out;
    for (auto& v : g.global_variables()) out.push_back(sess.run(v.value()));
    return out;
  }
};

using af::test::contains;

}  // namespace

BOOST_AUTO_TEST_SUITE(training_test)

BOOST_AUTO_TEST_CASE(a_value_read_before_an_update_keeps_its_elements,
                     *boost::unit_test::timeout(60)) {
  // Optimizer kernels update a variable in place only when nothing else holds its buffer:
  // a value fetched (or still being sent) before the update must not change under it.
  Net net;
  af::Session sess(net.g);
  sess.run(net.g.global_variables_initializer());
  auto kernel = net.g.global_variables().front();
  const Tensor before = sess.run(kernel.value());
  const std::vector<float> copy(before.data<float>(), before.data<float>() + before.num_elements());
  net.run_steps(sess, 0, 3);
  const Tensor after = sess.run(kernel.value());
  BOOST_TEST(std::equal(copy.begin(), copy.end(), before.data<float>()));  // untouched
  BOOST_TEST(!std::equal(copy.begin(), copy.end(), after.data<float>()));  // but trained
  // Steps that held no reference updated in place and still trained as before: 3 more steps
  // from the same state give the same values as a fresh run of 6 steps.
  net.run_steps(sess, 3, 6);
  Net again;
  af::Session sess2(again.g);
  sess2.run(again.g.global_variables_initializer());
  again.run_steps(sess2, 0, 6);
  auto first = net.all_values(sess), second = again.all_values(sess2);
  BOOST_REQUIRE(first.size() == second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (first[i].dtype() != DType::float32) continue;  // the global step
    BOOST_TEST(std::equal(first[i].data<float>(), first[i].data<float>() + first[i].num_elements(),
                          second[i].data<float>()));
  }
}

BOOST_AUTO_TEST_CASE(an_mlp_learns_two_blobs, *boost::unit_test::timeout(120)) {
  Net net;
  af::Session sess(net.g);
  sess.run(net.g.global_variables_initializer());
  auto [tx, ty] = blobs(-1, 256);
  const float before = sess.run(net.loss, {{net.x, tx}, {net.y, ty}}).scalar<float>();
  net.run_steps(sess, 0, 300);
  auto after = sess.run({net.loss, net.accuracy}, {{net.x, tx}, {net.y, ty}});
  BOOST_TEST(after[0].scalar<float>() < 0.3f * before);
  BOOST_TEST(after[1].scalar<float>() > 0.9f);
  BOOST_TEST(sess.run(net.step.value()).scalar<std::int64_t>() == 300);
}

// A run interrupted after a checkpoint and resumed from it ends with exactly the variables of
// an uninterrupted run: weights, Adam's slots and beta powers and the global step all restore.
BOOST_AUTO_TEST_CASE(a_restored_run_continues_exactly_as_an_uninterrupted_one,
                     *boost::unit_test::timeout(120)) {
  af::test::TempDir dir("af_restore");
  const std::string prefix = (dir.path / "model.ckpt").string();
  std::vector<Tensor> uninterrupted;
  std::string checkpoint;
  {
    Net net;
    af::train::Saver saver(net.g);
    af::Session sess(net.g);
    sess.run(net.g.global_variables_initializer());
    net.run_steps(sess, 0, 10);
    checkpoint = saver.save(sess, prefix, net.step);
    net.run_steps(sess, 10, 20);
    uninterrupted = net.all_values(sess);
  }
  BOOST_TEST(checkpoint == prefix + "-10");
  Net resumed(/*seed=*/99);  // other initial values: everything must come from the checkpoint
  af::train::Saver saver(resumed.g);
  af::Session sess(resumed.g);
  saver.restore(sess, *af::train::latest_checkpoint(dir.path.string()));
  BOOST_TEST(sess.run(resumed.step.value()).scalar<std::int64_t>() == 10);
  resumed.run_steps(sess, 10, 20);
  auto values = resumed.all_values(sess);
  BOOST_REQUIRE_EQUAL(values.size(), uninterrupted.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    BOOST_TEST(values[i] == uninterrupted[i], resumed.g.global_variables()[i].name());
}

BOOST_AUTO_TEST_CASE(layers_create_tensorflows_variables_and_ops, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output x = g.placeholder(DType::float32, af::PartialShape{-1, 6}, "x");
  Output h = af::layers::dense(x, 5, {.activation = [](const Output& t) { return af::relu(t); }});
  Output out = af::layers::dense(h, 3, {.use_bias = false});
  std::vector<std::string> names;
  for (auto& a : g.get_collection(af::kTrainableVariables))
    names.push_back(std::any_cast<af::Variable>(a).name());
  BOOST_TEST(names == std::vector<std::string>({"dense/kernel", "dense/bias", "dense_1/kernel"}),
             boost::test_tools::per_element());
  BOOST_TEST(h.op().name() == "dense/Relu");
  BOOST_TEST(out.op().name() == "dense_1/MatMul");
  BOOST_CHECK_NO_THROW(g.operation("dense/kernel/Initializer/random_uniform"));
  BOOST_CHECK_NO_THROW(g.operation("dense/bias/Initializer/zeros"));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  // glorot_uniform: |w| <= sqrt(6 / (fan_in + fan_out)).
  const float limit = std::sqrt(6.0f / 11.0f);
  auto kernel = sess.run(g.output("dense/kernel/read")).to_vector<float>();
  BOOST_TEST(kernel.size() == 30u);
  for (float w : kernel) BOOST_TEST(std::abs(w) <= limit);
  BOOST_TEST(*std::max_element(kernel.begin(), kernel.end()) > limit / 4);
  BOOST_CHECK_THROW(af::layers::dense(g.placeholder(DType::float32, af::PartialShape{-1, -1}), 2),
                    af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(conv_pool_and_flatten_layers_chain, *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output x = g.placeholder(DType::float32, af::PartialShape{-1, 8, 8, 2}, "x");
  Output c = af::layers::conv2d(x, 4, {3, 3}, {.padding = "same"});
  Output p = af::layers::max_pooling2d(c, {2, 2}, {2, 2});
  Output f = af::layers::flatten(p);
  BOOST_TEST(c.op().name() == "conv2d/BiasAdd");
  BOOST_TEST(p.op().name() == "max_pooling2d/MaxPool");
  BOOST_TEST(f.shape() == af::PartialShape({-1, 64}));
  BOOST_CHECK_NO_THROW(g.operation("conv2d/kernel"));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor in(DType::float32, Shape{3, 8, 8, 2});
  BOOST_TEST(sess.run(f, {{x, in}}).shape() == Shape({3, 64}));
  // The gradient flows through all of them.
  Output loss = af::reduce_sum(f);
  auto grads = af::gradients({loss}, {g.output("conv2d/kernel/read")});
  BOOST_TEST(sess.run(grads[0], {{x, in}}).shape() == Shape({3, 3, 2, 4}));
}

BOOST_AUTO_TEST_CASE(dropout_keeps_and_scales_only_while_training, *boost::unit_test::timeout(60)) {
  af::Graph g;
  g.set_random_seed(3);
  Output x = g.constant(Tensor::from_vector(std::vector<float>(4000, 1.0f)));
  Output eval = af::layers::dropout(x, 0.25, false);
  Output train = af::layers::dropout(x, 0.25, true);
  Output flag = g.placeholder(DType::boolean, af::PartialShape{}, "training");
  Output switched = af::layers::dropout(x, 0.25, flag);
  BOOST_CHECK_THROW(af::layers::dropout(x, 1.0, true), af::InvalidArgumentError);
  af::Session sess(g);
  BOOST_TEST(sess.run(eval).to_vector<float>() == std::vector<float>(4000, 1.0f),
             boost::test_tools::per_element());
  int kept = 0;
  for (float v : sess.run(train).to_vector<float>()) {
    BOOST_TEST((v == 0.0f || std::abs(v - 1.0f / 0.75f) < 1e-6f));
    kept += v != 0.0f;
  }
  BOOST_TEST(kept > 2800);
  BOOST_TEST(kept < 3200);
  BOOST_TEST(sess.run(switched, {{flag, Tensor(false)}}).to_vector<float>() ==
                 std::vector<float>(4000, 1.0f),
             boost::test_tools::per_element());
  auto on = sess.run(switched, {{flag, Tensor(true)}}).to_vector<float>();
  BOOST_TEST(std::count(on.begin(), on.end(), 0.0f) > 800);
}

BOOST_AUTO_TEST_CASE(losses_and_metrics_compute_tensorflows_values,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output logits =
      g.constant(Tensor::from_vector(std::vector<float>{2, 1, 0, 0, 1, 2}, Shape{2, 3}));
  Output labels = g.constant(Tensor::from_vector(std::vector<std::int32_t>{0, 1}));
  Output loss = af::losses::sparse_softmax_cross_entropy(labels, logits);
  Output onehot =
      g.constant(Tensor::from_vector(std::vector<float>{1, 0, 0, 0, 1, 0}, Shape{2, 3}));
  Output dense_loss = af::losses::softmax_cross_entropy(onehot, logits);
  Output mse =
      af::losses::mean_squared_error(g.constant(Tensor::from_vector(std::vector<float>{1, 2})),
                                     g.constant(Tensor::from_vector(std::vector<float>{2, 4})));
  BOOST_TEST(g.get_collection(af::losses::kLosses).size() == 3u);
  auto [acc, update] = af::metrics::accuracy(labels, af::argmax(logits, 1, DType::int32));
  af::Session sess(g);
  sess.run(g.local_variables_initializer());
  // -log softmax: row 0 picks its largest logit, row 1 its middle one.
  const double lse = std::log(std::exp(2.0) + std::exp(1.0) + 1.0);
  const double want = ((lse - 2.0) + (lse - 1.0)) / 2.0;
  BOOST_TEST(sess.run(loss).scalar<float>() == want, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(sess.run(dense_loss).scalar<float>() == want, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(sess.run(mse).scalar<float>() == 2.5f);
  BOOST_TEST(sess.run(acc).scalar<float>() == 0.0f);  // nothing seen yet
  BOOST_TEST(sess.run(update).scalar<float>() == 0.5f);
  BOOST_TEST(sess.run(update).scalar<float>() == 0.5f);
  BOOST_TEST(sess.run(acc).scalar<float>() == 0.5f);
}

// numerics.py: add_check_numerics_ops names the op whose output went bad.
BOOST_AUTO_TEST_CASE(check_numerics_fails_the_step_naming_the_tensor,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  Output x = g.placeholder(DType::float32, af::PartialShape{2}, "x");
  Output y = af::log(x, "logarithm");
  af::Operation checks = af::add_check_numerics_ops(g);
  af::Session sess(g);
  sess.run(checks, {{x, Tensor::from_vector(std::vector<float>{1, 2})}});
  try {
    sess.run(checks, {{x, Tensor::from_vector(std::vector<float>{1, -2})}});
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(contains(e.what(), "logarithm:0 : Tensor had NaN values"));
  }
  Output checked = af::check_numerics(y, "y is bad");
  try {
    sess.run(checked, {{x, Tensor::from_vector(std::vector<float>{0, 2})}});
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(contains(e.what(), "y is bad : Tensor had Inf values"));
  }
}

BOOST_AUTO_TEST_SUITE_END()
