// TensorFlow 1.x's optimizers (optimizer.py, gradient_descent.py, momentum.py, adagrad.py,
// rmsprop.py, adam.py, slot_creator.py, training_ops.cc), global step (training_util.py) and
// learning-rate schedules (learning_rate_decay.py): trajectories computed by TensorFlow, slot
// names, colocation, the train op's name and the errors.
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

struct Trajectory {
  std::string name;
  std::vector<float> w;  // w after each of 5 steps
};

// scripts/peers/make_training_references.py (TensorFlow 2.21, tf.compat.v1): w = [1, -2, 3],
// loss = sum(w * w * [0.5, 1.5, -1]) + sum(w * [0.25, -0.5, 2]), five minimize steps.
const std::vector<Trajectory> kTrajectories = {
    {"GradientDescent",
     {0.875, -1.3499999, 3.4000001, 0.762499988, -0.894999921, 3.88000011, 0.661249995,
      -0.576499939, 4.45600033, 0.570124984, -0.353549957, 5.14720058, 0.488112479, -0.19748497,
      5.9766407}},
    {"Momentum",
     {0.875, -1.3499999, 3.4000001, 0.649999976, -0.309999943, 4.24000025, 0.357499987, 0.768999934,
      5.64400005, 0.0335000157, 1.55939984, 7.83640003, -0.286449939, 1.85293972, 11.1768398}},
    {"Nesterov",
     {0.762499988, -0.764999986, 3.75999999, 0.468874991, 0.292550087, 5.1328001, 0.159151256,
      0.921041548, 7.44198418, -0.132640123, 1.09067869, 11.2242994, -0.380727112, 0.920346439,
      17.3540611}},
    {"Adagrad",
     {0.903054178, -1.90011811, 3.09968901, 0.836394012, -1.83113766, 3.17199039, 0.783207655,
      -1.77566099, 3.23188329, 0.738070905, -1.72818959, 3.28429675, 0.698440433, -1.68616617,
      3.33156872}},
    {"RMSProp",
     {0.987837374, -1.97128785, 3.02529812, 0.969974339, -1.93521953, 3.05848265, 0.949628234,
      -1.89885199, 3.09313488, 0.928373992, -1.86438775, 3.12697077, 0.906961203, -1.83226788,
      3.15932345}},
    {"CenteredRMSProp",
     {0.987746418, -1.97002566, 3.0261488, 0.969528973, -1.93117988, 3.06150842, 0.948405087,
      -1.89055073, 3.09982753, 0.925825059, -1.85042048, 3.13888264, 0.902447104, -1.81129694,
      3.17803836}},
    {"Adam",
     {0.900000036, -1.89999998, 3.0999999, 0.800304115, -1.80015135, 3.20009685, 0.701156557,
      -1.70056534, 3.30035114, 0.602836728, -1.60136092, 3.40082026, 0.505664468, -1.50266671,
      3.50155735}},
};

std::unique_ptr<af::train::Optimizer> make_optimizer(const std::string& name) {
  using namespace af::train;
  if (name == "GradientDescent") return std::make_unique<GradientDescentOptimizer>(0.1);
  if (name == "Momentum") return std::make_unique<MomentumOptimizer>(0.1, 0.9);
  if (name == "Nesterov")
    return std::make_unique<MomentumOptimizer>(0.1, 0.9, false, "Momentum", true);
  if (name == "Adagrad") return std::make_unique<AdagradOptimizer>(0.1);
  if (name == "RMSProp")
    return std::make_unique<RMSPropOptimizer>(
        0.01, RMSPropOptions{.decay = 0.9, .momentum = 0.5, .epsilon = 1e-6});
  if (name == "CenteredRMSProp")
    return std::make_unique<RMSPropOptimizer>(
        0.01, RMSPropOptions{.decay = 0.9, .momentum = 0.5, .epsilon = 1e-6, .centered = true});
  return std::make_unique<AdamOptimizer>(0.1);
}

// `resource`: w is a resource variable (TensorFlow's use_resource=True gives the same
// trajectories through the ResourceApply* ops).
struct Problem {
  af::Graph g;
  af::Variable w;
  Output loss;
  explicit Problem(bool resource = false) {
    w = g.variable(Tensor::from_vector(std::vector<float>{1.0f, -2.0f, 3.0f}),
                   {.name = "w", .use_resource = resource});
    Output x = g.constant(Tensor::from_vector(std::vector<float>{0.5f, 1.5f, -1.0f}));
    Output y = g.constant(Tensor::from_vector(std::vector<float>{0.25f, -0.5f, 2.0f}));
    loss = af::reduce_sum(w * w * x) + af::reduce_sum(w * y);
  }
};

std::vector<std::string> names_of(const std::vector<af::Variable>& vars) {
  std::vector<std::string> out;
  for (auto& v : vars) out.push_back(v.name());
  std::sort(out.begin(), out.end());
  return out;
}

using af::test::contains;

}  // namespace

BOOST_AUTO_TEST_SUITE(optimizer_conformance_test)

BOOST_AUTO_TEST_CASE(trajectories_match_tensorflow, *boost::unit_test::timeout(60)) {
  for (const bool resource : {false, true})
    for (const auto& t : kTrajectories) {
      BOOST_TEST_CONTEXT(t.name << (resource ? " (resource variable)" : "")) {
        Problem p(resource);
        auto opt = make_optimizer(t.name);
        af::Operation train = opt->minimize(p.loss);
        af::Session sess(p.g);
        sess.run(p.g.global_variables_initializer());
        for (int step = 0; step < 5; ++step) {
          sess.run(train);
          auto w = sess.run(p.w.value()).to_vector<float>();
          for (int i = 0; i < 3; ++i)
            BOOST_TEST(w[i] == t.w[static_cast<std::size_t>(step * 3 + i)],
                       boost::test_tools::tolerance(2e-6f));
        }
      }
    }
}

// slot_creator.py names: "<var>/<optimizer name>", then "_1", "_2"; Adam's beta powers are
// plain variables (TensorFlow's list of global variables, from the reference script).
BOOST_AUTO_TEST_CASE(slots_are_named_as_tensorflow_names_them, *boost::unit_test::timeout(60)) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
      {"GradientDescent", {"w"}},
      {"Momentum", {"w", "w/Momentum"}},
      {"Adagrad", {"w", "w/Adagrad"}},
      {"RMSProp", {"w", "w/RMSProp", "w/RMSProp_1"}},
      {"CenteredRMSProp", {"w", "w/RMSProp", "w/RMSProp_1", "w/RMSProp_2"}},
      {"Adam", {"beta1_power", "beta2_power", "w", "w/Adam", "w/Adam_1"}},
  };
  for (const auto& [name, vars] : expected) {
    BOOST_TEST_CONTEXT(name) {
      Problem p;
      auto opt = make_optimizer(name);
      opt->minimize(p.loss);
      BOOST_TEST(names_of(p.g.global_variables()) == vars, boost::test_tools::per_element());
      // Slots are not trainable.
      BOOST_TEST(p.g.get_collection(af::kTrainableVariables).size() == 1u);
    }
  }
  Problem p;
  af::train::AdamOptimizer adam(0.1);
  adam.minimize(p.loss);
  BOOST_TEST(adam.get_slot(p.w, "m").name() == "w/Adam");
  BOOST_TEST(adam.get_slot(p.w, "v").name() == "w/Adam_1");
  BOOST_TEST(adam.get_slot_names() == std::vector<std::string>({"m", "v"}),
             boost::test_tools::per_element());
  BOOST_CHECK_THROW(adam.get_slot(p.w, "momentum"), af::NotFoundError);
  // The initial values: zeros for m and v, beta1 and beta2 for the powers.
  af::Session sess(p.g);
  sess.run(p.g.global_variables_initializer());
  BOOST_TEST(
      sess.run(adam.get_slot(p.w, "m").value()).to_vector<float>() == std::vector<float>({0, 0, 0}),
      boost::test_tools::per_element());
  auto vars = adam.variables();
  BOOST_REQUIRE_EQUAL(vars.size(), 4u);
  BOOST_TEST(vars[0].name() == "beta1_power");
  BOOST_TEST(sess.run(vars[0].value()).scalar<float>() == 0.9f);
}

// Slots live where their variable lives: colocate_with(primary) bypasses device functions.
BOOST_AUTO_TEST_CASE(slots_and_beta_powers_are_colocated_with_their_variable,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Variable b, a;
  {
    auto ps = g.device("/job:ps/task:1");
    b = g.variable(Tensor::from_vector(std::vector<float>{1, 2}), {.name = "b"});
  }
  {
    auto ps = g.device("/job:ps/task:0");
    a = g.variable(Tensor::from_vector(std::vector<float>{3, 4}), {.name = "a"});
  }
  Output loss = af::reduce_sum(a * b);
  af::train::AdamOptimizer adam(0.01);
  {
    auto elsewhere = g.device("/job:worker/task:0");
    adam.minimize(loss, std::nullopt, std::vector<af::Variable>{b, a});
  }
  af::Variable m = adam.get_slot(b, "m");
  BOOST_TEST(m.op().device() == b.op().device());
  BOOST_TEST(contains(m.op().node_def().attr<std::vector<std::string>>("_class")->at(0), "loc:@b"));
  // "a" sorts first, so the beta powers go with it even though b came first in var_list.
  af::Operation beta1_power = g.operation("beta1_power");
  BOOST_TEST(beta1_power.device() == a.op().device());
  BOOST_TEST(g.operation("beta2_power").device() == a.op().device());
  // The update of each variable is colocated with it.
  af::Operation update = g.operation("Adam/update_b/ApplyAdam");
  BOOST_TEST(update.device() == b.op().device());
}

// optimizer.py: with a global step the train op is the AssignAdd named after the optimizer's
// scope, run after every update; it joins TRAIN_OP.
BOOST_AUTO_TEST_CASE(the_global_step_counts_applied_updates, *boost::unit_test::timeout(30)) {
  Problem p;
  af::Variable step = af::train::get_or_create_global_step(p.g);
  BOOST_TEST(step.name() == "global_step");
  BOOST_TEST(step.dtype() == DType::int64);
  BOOST_TEST(af::train::get_or_create_global_step(p.g).name() == "global_step");
  BOOST_CHECK_THROW(af::train::create_global_step(p.g), af::InvalidArgumentError);
  af::train::GradientDescentOptimizer sgd(0.1);
  af::Operation train = sgd.minimize(p.loss, step);
  BOOST_TEST(train.name() == "GradientDescent");
  BOOST_TEST(train.type() == "AssignAdd");
  BOOST_TEST(p.g.get_collection(af::train::kTrainOp).size() == 1u);
  af::Operation second = sgd.minimize(p.loss, step);
  BOOST_TEST(second.name() == "GradientDescent_1");
  af::Session sess(p.g);
  sess.run(p.g.global_variables_initializer());
  for (int i = 0; i < 3; ++i) sess.run(train);
  BOOST_TEST(sess.run(step.value()).scalar<std::int64_t>() == 3);
  // Not trainable, in GLOBAL_VARIABLES and GLOBAL_STEP.
  BOOST_TEST(p.g.get_collection(af::train::kGlobalStep).size() == 1u);
}

BOOST_AUTO_TEST_CASE(minimize_without_gradients_is_an_error, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Variable w = g.variable(1.0f, {.name = "w"});
  af::Variable other = g.variable(2.0f, {.name = "other"});
  Output loss = w * 3.0f;
  af::train::GradientDescentOptimizer sgd(0.1);
  try {
    sgd.minimize(loss, std::nullopt, std::vector<af::Variable>{other});
    BOOST_FAIL("expected an error");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(contains(e.what(), "No gradients provided for any variable"));
  }
  af::Graph empty;
  Output c = empty.constant(1.0f);
  BOOST_CHECK_THROW(sgd.minimize(c), af::InvalidArgumentError);  // No variables to optimize.
  BOOST_CHECK_THROW(af::train::AdagradOptimizer(0.1, 0.0), af::InvalidArgumentError);
  // An integer loss is not differentiable.
  af::Graph ints;
  Output i = ints.constant(std::int32_t{1});
  BOOST_CHECK_THROW(sgd.minimize(i), af::InvalidArgumentError);
}

// Adam's update ops and beta power updates, by name (adam.py's _finish).
BOOST_AUTO_TEST_CASE(adam_builds_tensorflows_ops, *boost::unit_test::timeout(30)) {
  Problem p;
  af::Variable step = af::train::get_or_create_global_step(p.g);
  af::train::AdamOptimizer adam;
  af::Operation train = adam.minimize(p.loss, step);
  BOOST_TEST(train.name() == "Adam");
  for (const char* name :
       {"Adam/learning_rate", "Adam/beta1", "Adam/beta2", "Adam/epsilon", "Adam/update_w/ApplyAdam",
        "Adam/mul", "Adam/Assign", "Adam/mul_1", "Adam/Assign_1", "Adam/update",
        "w/Adam/Initializer/zeros", "w/Adam_1/Initializer/zeros", "beta1_power/initial_value"})
    BOOST_CHECK_NO_THROW(p.g.operation(name));
  af::Session sess(p.g);
  sess.run(p.g.global_variables_initializer());
  sess.run(train);
  sess.run(train);
  BOOST_TEST(sess.run(adam.variables()[0].value()).scalar<float>() == 0.9f * 0.9f * 0.9f,
             boost::test_tools::tolerance(1e-6f));
}

// ApplyAdam on float32 computes each element as training_ops.cc's expression does, term by
// term with an exact square root (TensorFlow's Eigen): the same bits as the scalar formula,
// for every element of a size that is neither a multiple of 8 nor of the kernel's blocks.
BOOST_AUTO_TEST_CASE(apply_adam_takes_each_element_through_training_ops_formula,
                     *boost::unit_test::timeout(30)) {
  const std::int64_t n = 2 * 1024 + 13;
  std::vector<float> var(n), m(n), v(n), grad(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const float x = static_cast<float>(i);
    var[k] = std::sin(x) * 3.0f;
    m[k] = std::cos(x * 0.7f) * 0.01f;
    v[k] = std::fabs(std::sin(x * 1.3f)) * 1e-3f + (i % 97 == 0 ? 0.0f : 1e-9f);
    grad[k] = std::cos(x * 0.31f) * (i % 5 == 0 ? 1e-4f : 0.5f);
  }
  const float beta1_power = 0.9f * 0.9f, beta2_power = 0.999f * 0.999f, lr = 0.001f;
  const float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  for (bool nesterov : {false, true}) {
    af::Graph g;
    auto c = [&](float value) { return g.constant(Tensor(value)); };
    auto vec = [&](const std::vector<float>& x) { return Tensor::from_vector<float>(x); };
    af::Variable vv = g.variable(vec(var)), vm = g.variable(vec(m)), vs = g.variable(vec(v));
    Output update =
        af::apply_adam(vv.ref(), vm.ref(), vs.ref(), c(beta1_power), c(beta2_power), c(lr),
                       c(beta1), c(beta2), c(epsilon), g.constant(vec(grad)), false, nesterov);
    af::Session sess(g);
    sess.run(g.global_variables_initializer());
    sess.run(update);
    const auto got_var = sess.run(vv.value()).to_vector<float>();
    const auto got_m = sess.run(vm.value()).to_vector<float>();
    const auto got_v = sess.run(vs.value()).to_vector<float>();
    const float one = 1.0f;
    const float alpha = lr * std::sqrt(one - beta2_power) / (one - beta1_power);
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      const float mi = m[i] + (grad[i] - m[i]) * (one - beta1);
      const float vi = v[i] + (grad[i] * grad[i] - v[i]) * (one - beta2);
      const float top = nesterov ? grad[i] * (one - beta1) + beta1 * mi : mi;
      const float wi = var[i] - (top * alpha) / (std::sqrt(vi) + epsilon);
      if (got_m[i] != mi || got_v[i] != vi || got_var[i] != wi) ++differ;
    }
    BOOST_TEST(differ == 0, (nesterov ? "Nesterov: " : "")
                                << differ << " of " << n << " elements differ from the formula");
  }
}

// The learning rate may be a tensor: a schedule on the global step.
BOOST_AUTO_TEST_CASE(learning_rate_schedules_follow_the_global_step,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Variable step = af::train::get_or_create_global_step(g);
  Output smooth = af::train::exponential_decay(0.1, step, 10, 0.5);
  Output stairs = af::train::exponential_decay(0.1, step, 10, 0.5, true);
  Output piecewise = af::train::piecewise_constant(step, {5, 10}, {1.0, 0.5, 0.1});
  BOOST_TEST(stairs.op().name() == "ExponentialDecay_1");
  af::Operation bump = Output(step.assign_add(g.constant(std::int64_t{1}))).op();
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  for (int s = 0; s <= 12; ++s) {
    auto v = sess.run({smooth, stairs, piecewise});
    BOOST_TEST(v[0].scalar<float>() == 0.1f * std::pow(0.5f, s / 10.0f),
               boost::test_tools::tolerance(1e-6f));
    BOOST_TEST(v[1].scalar<float>() == 0.1f * std::pow(0.5f, std::floor(s / 10.0f)),
               boost::test_tools::tolerance(1e-6f));
    const float want = s <= 5 ? 1.0f : s <= 10 ? 0.5f : 0.1f;
    BOOST_TEST(v[2].scalar<float>() == want);
    sess.run(bump);
  }
  // A schedule drives an optimizer.
  af::Variable w = g.variable(1.0f, {.name = "w"});
  af::train::GradientDescentOptimizer sgd(smooth);
  af::Operation train = sgd.minimize(w * 2.0f, step);
  BOOST_CHECK_THROW(af::train::piecewise_constant(step, {5}, {1.0}), af::InvalidArgumentError);
  af::Session s2(g);
  s2.run(g.global_variables_initializer());
  s2.run(train);
  BOOST_TEST(s2.run(w.value()).scalar<float>() == 1.0f - 0.1f * 2.0f,
             boost::test_tools::tolerance(1e-6f));
}

// training_ops.cc: an uninitialized slot fails the update with FailedPrecondition naming it.
BOOST_AUTO_TEST_CASE(an_uninitialized_slot_fails_the_update, *boost::unit_test::timeout(30)) {
  Problem p;
  af::train::MomentumOptimizer opt(0.1, 0.9);
  af::Operation train = opt.minimize(p.loss);
  af::Session sess(p.g);
  sess.run(p.w.initializer());
  try {
    sess.run(train);
    BOOST_FAIL("expected an error");
  } catch (const af::FailedPreconditionError& e) {
    BOOST_TEST(contains(e.what(), "Attempting to use uninitialized value w/Momentum"));
  }
  BOOST_TEST(sess.run(p.w.value()).to_vector<float>() == std::vector<float>({1, -2, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
