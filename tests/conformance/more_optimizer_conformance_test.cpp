// TensorFlow 1.x's FtrlOptimizer, AdadeltaOptimizer, ProximalAdagradOptimizer,
// ProximalGradientDescentOptimizer and AdagradDAOptimizer (ftrl.py, adadelta.py,
// proximal_adagrad.py, proximal_gradient_descent.py, adagrad_da.py) and the update ops of
// more_training_ops.hpp (training_ops.cc): trajectories computed by TensorFlow on dense
// gradients and IndexedSlices, ref and resource variables, slot names, the ops built, and
// the kernels' errors.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/more_training_ops.hpp>
#include <actorflow/ops/resource_variable_ops.hpp>
#include <actorflow/train/more_optimizers.hpp>
#include <actorflow/train/training_util.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "matchers.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::check_close;
using af::test::contains;
namespace train = af::train;

struct Trajectory {
  std::string name;
  std::vector<float> w;  // the variable after each step
};

// scripts/peers/make_more_optimizer_values.py (TensorFlow 2.21, tf.compat.v1): w = [1, -2, 3],
// loss = sum(w * w * [0.5, 1.5, -1]) + sum(w * [0.25, -0.5, 2]), five minimize steps with the
// global step; ref and resource variables give the same values.
const std::vector<Trajectory> kDense = {
    {"Ftrl",
     {0.654990852, -1.80167115, 2.86015534, 0.597686827, -1.73450339, 2.92809629, 0.550405979,
      -1.68008137, 2.98566771, 0.509647548, -1.63334739, 3.03666449, 0.4735744, -1.59189546,
      3.08301067}},
    {"FtrlPower",
     {0.697274566, -1.90577149, 2.9183805, 0.649513066, -1.87711191, 2.95311737, 0.611854076,
      -1.85546255, 2.97982574, 0.580354095, -1.8377322, 3.00188923, 0.553061128, -1.82254994,
      3.02087545}},
    {"FtrlShrinkage",
     {0.647259116, -1.79859972, 2.85268617, 0.586174905, -1.72944236, 2.91526055, 0.536005437,
      -1.67344296, 2.96827888, 0.492935389, -1.62537956, 3.01524377, 0.454964876, -1.58276784,
      3.05792952}},
    {"FtrlBeta",
     {0.472934932, -1.67333746, 2.54374146, 0.436463952, -1.61225855, 2.59920311, 0.404293507,
      -1.56176329, 2.64846611, 0.375345856, -1.51791692, 2.69338274, 0.34894079, -1.47874892,
      2.73502493}},
    {"Adadelta",
     {0.996837735, -1.99683774, 3.00316238, 0.993597209, -1.9935956, 3.00640917, 0.990305722,
      -1.99030018, 3.0097158, 0.986976802, -1.98696458, 3.01307011, 0.983618438, -1.98359668,
      3.01646495}},
    {"ProximalAdagrad",
     {0.900881171, -1.89938068, 3.09789586, 0.832748652, -1.82989466, 3.16890383, 0.778404951,
      -1.77401435, 3.22773027, 0.732300878, -1.72619998, 3.27921486, 0.691834271, -1.68387496,
      3.32565236}},
    {"ProximalGradientDescent",
     {0.872255504, -1.34630728, 3.39221573, 0.757514954, -0.889635801, 3.86193514, 0.654454529,
      -0.570603907, 4.42447376, 0.561885297, -0.347727299, 5.09817219, 0.478739321, -0.192025051,
      5.90499687}},
    {"ProximalGradientDescentL2",
     {0.873253524, -1.3473053, 3.39321375, 0.759409368, -0.891331077, 3.86412835, 0.657154143,
      -0.572786212, 4.42809772, 0.565308154, -0.350249857, 5.10351038, 0.482811719, -0.194785342,
      5.91238785}},
    {"AdagradDA",
     {-0.0960213393, 0.0996975675, 0.0993901938, -0.106252186, 0.102549881, 0.0494926907,
      -0.115638644, 0.105270669, 0.00558138685, -0.124272153, 0.107866265, -0.0317767747,
      -0.132229373, 0.11034257, -0.0662346035}},
};

// The same script: a 4x3 table v = arange(12) / 4 - 1, loss = sum(gather(v, [2, 0, 2])^2 *
// c), three steps (IndexedSlices, row 2 named twice: summed first).
const std::vector<Trajectory> kSparse = {
    {"Ftrl",
     {-0.79433769,
      -0.186499774,
      -0.313444614,
      -0.25,
      0,
      0.25,
      0.313444614,
      0,
      0.841970861,
      1.25,
      1.5,
      1.75,
      -0.732414126,
      -0.167972818,
      -0.359983355,
      -0.25,
      0,
      0.25,
      0.359983355,
      0,
      0.777661264,
      1.25,
      1.5,
      1.75,
      -0.682836711,
      -0.151515678,
      -0.407092065,
      -0.25,
      0,
      0.25,
      0.407092065,
      0,
      0.726596415,
      1.25,
      1.5,
      1.75}},
    {"FtrlPower",
     {-0.867773116,
      -0.151537731,
      -0.302265704,
      -0.25,
      0,
      0.25,
      0.302265704,
      0,
      0.919912994,
      1.25,
      1.5,
      1.75,
      -0.830355525,
      -0.135622367,
      -0.348711461,
      -0.25,
      0,
      0.25,
      0.348711461,
      0,
      0.889705658,
      1.25,
      1.5,
      1.75,
      -0.801899374,
      -0.12150944,
      -0.395208299,
      -0.25,
      0,
      0.25,
      0.395208299,
      0,
      0.866930127,
      1.25,
      1.5,
      1.75}},
    {"FtrlShrinkage", {-0.791027129, -0.171334028,  -0.305049837, -0.25, 0,   0.25,
                       0.305049837,  -0.0202980544, 0.840157032,  1.25,  1.5, 1.75,
                       -0.727204144, -0.1508542,    -0.346049666, -0.25, 0,   0.25,
                       0.346049666,  -0.0196641907, 0.774761021,  1.25,  1.5, 1.75,
                       -0.676187932, -0.133024126,  -0.387344152, -0.25, 0,   0.25,
                       0.387344152,  -0.0190501232, 0.722876966,  1.25,  1.5, 1.75}},
    {"FtrlBeta",
     {-0.681809545,
      -0.0937429965,
      -0.171311378,
      -0.25,
      0,
      0.25,
      0.171311378,
      0,
      0.772125602,
      1.25,
      1.5,
      1.75,
      -0.632506549,
      -0.0890406594,
      -0.18660824,
      -0.25,
      0,
      0.25,
      0.18660824,
      0,
      0.715198576,
      1.25,
      1.5,
      1.75,
      -0.591372907,
      -0.0845831856,
      -0.202869534,
      -0.25,
      0,
      0.25,
      0.202869534,
      0,
      0.668894291,
      1.25,
      1.5,
      1.75}},
    {"Adadelta", {-0.996837735, -0.746837854, -0.503162205, -0.25, 0,   0.25,
                  0.503162205,  0.75,         0.996837735,  1.25,  1.5, 1.75,
                  -0.993598163, -0.74360007,  -0.506416261, -0.25, 0,   0.25,
                  0.506416261,  0.75,         0.993598163,  1.25,  1.5, 1.75,
                  -0.99030906,  -0.74031496,  -0.509740174, -0.25, 0,   0.25,
                  0.509740174,  0.75,         0.99030906,   1.25,  1.5, 1.75}},
    {"ProximalAdagrad", {-0.899622977, -0.668787539, -0.580861449, -0.25, 0,   0.25,
                         0.580861449,  0.742144048,  0.899656832,  1.25,  1.5, 1.75,
                         -0.832288086, -0.608725905, -0.648151398, -0.25, 0,   0.25,
                         0.648151398,  0.734337449,  0.832475483,  1.25,  1.5, 1.75,
                         -0.77924931,  -0.559926569, -0.70744592,  -0.25, 0,   0.25,
                         0.70744592,   0.726579905,  0.779591084,  1.25,  1.5, 1.75}},
    {"ProximalGradientDescent", {-0.697604835, -0.710079849, -0.547904253, -0.25, 0,   0.25,
                                 0.547904253,  0.747505009,  0.448103815,  1.25,  1.5, 1.75,
                                 -0.486350715, -0.672231436, -0.600493729, -0.25, 0,   0.25,
                                 0.600493729,  0.745015025,  0.20024623,   1.25,  1.5, 1.75,
                                 -0.338768005, -0.636347175, -0.658226669, -0.25, 0,   0.25,
                                 0.658226669,  0.742529988,  0.0889329389, 1.25,  1.5, 1.75}},
    {"ProximalGradientDescentL2", {-0.698602796, -0.711077809, -0.548902214, -0.25, 0,   0.25,
                                   0.548902214,  0.748503029,  0.449101806,  1.25,  1.5, 1.75,
                                   -0.488045871, -0.67417562,  -0.602587283, -0.25, 0,   0.25,
                                   0.602587283,  0.747009039,  0.201692447,  1.25,  1.5, 1.75,
                                   -0.340950251, -0.639188468, -0.661522985, -0.25, 0,   0.25,
                                   0.661522985,  0.745518029,  0.0905804336, 1.25,  1.5, 1.75}},
    {"AdagradDA", {0.099051863,  0.0741063505, -0.0825460628, -0.25, 0,   0.25,
                   0.0825460628, -0,           -0.0996174365, 1.25,  1.5, 1.75,
                   0.0883904025, 0.0641108677, -0.0935489163, -0.25, 0,   0.25,
                   0.0935489163, -0,           -0.0890229493, 1.25,  1.5, 1.75,
                   0.0789712369, 0.0552914999, -0.105809674,  -0.25, 0,   0.25,
                   0.105809674,  -0,           -0.0796653703, 1.25,  1.5, 1.75}},
};

std::unique_ptr<train::Optimizer> make_optimizer(const std::string& name,
                                                 const af::Variable& step) {
  using namespace af::train;
  if (name == "Ftrl")
    return std::make_unique<FtrlOptimizer>(
        0.1, FtrlOptions{.l1_regularization_strength = 0.01, .l2_regularization_strength = 0.02});
  if (name == "FtrlPower")
    return std::make_unique<FtrlOptimizer>(0.1, FtrlOptions{.learning_rate_power = -0.7,
                                                            .initial_accumulator_value = 0.2,
                                                            .l1_regularization_strength = 0.01});
  if (name == "FtrlShrinkage")
    return std::make_unique<FtrlOptimizer>(
        0.1, FtrlOptions{.l1_regularization_strength = 0.01,
                         .l2_regularization_strength = 0.02,
                         .l2_shrinkage_regularization_strength = 0.05});
  if (name == "FtrlBeta")
    return std::make_unique<FtrlOptimizer>(
        0.1, FtrlOptions{.l2_regularization_strength = 0.02, .beta = 0.5});
  if (name == "Adadelta")
    return std::make_unique<AdadeltaOptimizer>(1.0, AdadeltaOptions{.rho = 0.9, .epsilon = 1e-6});
  if (name == "ProximalAdagrad")
    return std::make_unique<ProximalAdagradOptimizer>(0.1, 0.1, 0.01, 0.02);
  if (name == "ProximalGradientDescent")
    return std::make_unique<ProximalGradientDescentOptimizer>(0.1, 0.01, 0.02);
  if (name == "ProximalGradientDescentL2")
    return std::make_unique<ProximalGradientDescentOptimizer>(0.1, 0.0, 0.02);
  return std::make_unique<AdagradDAOptimizer>(
      0.1, step,
      AdagradDAOptions{.l1_regularization_strength = 0.01, .l2_regularization_strength = 0.02});
}

Tensor floats(std::vector<float> values, Shape shape) {
  return Tensor::from_vector(values, std::move(shape));
}

Output ids(af::Graph& g, std::vector<std::int32_t> values) {
  return g.constant(Tensor::from_vector(values));
}

std::set<std::string> apply_ops(af::Graph& g) {
  std::set<std::string> out;
  for (af::Node* n : g.nodes())
    if (contains(n->type(), "Apply")) out.insert(n->type());
  return out;
}

// Runs `op` `steps` times after initializing the graph's variables, checking `v` after each
// against the next `width` values of `want`.
void check_steps(af::Graph& g, const af::Operation& op, const af::Variable& v,
                 const std::vector<float>& want, int steps, int width) {
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  for (int s = 0; s < steps; ++s) {
    sess.run(op);
    std::vector<float> step(want.begin() + s * width, want.begin() + (s + 1) * width);
    check_close(sess.run(v.value()).to_vector<float>(), step, 5e-6f);
  }
}

Output scalar(af::Graph& g, float v) { return g.constant(Tensor(v)); }

// The message of running `fetch`'s op in a session after initializing the graph's variables.
std::string run_error(af::Graph& g, const af::Operation& op) {
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  return af::test::error_of([&] { sess.run(op); });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(more_optimizer_conformance_test)

BOOST_AUTO_TEST_CASE(dense_trajectories_match_tensorflow, *boost::unit_test::timeout(120)) {
  for (const bool resource : {false, true})
    for (const auto& t : kDense) {
      BOOST_TEST_CONTEXT(t.name << (resource ? " (resource variable)" : "")) {
        af::Graph g;
        af::Variable w = g.variable(Tensor::from_vector(std::vector<float>{1.0f, -2.0f, 3.0f}),
                                    {.name = "w", .use_resource = resource});
        Output x = g.constant(Tensor::from_vector(std::vector<float>{0.5f, 1.5f, -1.0f}));
        Output y = g.constant(Tensor::from_vector(std::vector<float>{0.25f, -0.5f, 2.0f}));
        Output loss = af::reduce_sum(w * w * x) + af::reduce_sum(w * y);
        af::Variable step = train::get_or_create_global_step(g);
        auto opt = make_optimizer(t.name, step);
        check_steps(g, opt->minimize(loss, step), w, t.w, 5, 3);
      }
    }
}

BOOST_AUTO_TEST_CASE(sparse_trajectories_match_tensorflow, *boost::unit_test::timeout(120)) {
  for (const bool resource : {false, true})
    for (const auto& t : kSparse) {
      BOOST_TEST_CONTEXT(t.name << (resource ? " (resource variable)" : "")) {
        af::Graph g;
        std::vector<float> init(12);
        for (int i = 0; i < 12; ++i) init[static_cast<std::size_t>(i)] = i / 4.0f - 1.0f;
        af::Variable v =
            g.variable(floats(init, Shape{4, 3}), {.name = "v", .use_resource = resource});
        Output c = g.constant(floats({0.5f, -1, 2, 1.5f, 0.25f, -0.5f, -1, 1, 0.75f}, Shape{3, 3}));
        Output rows = resource ? af::resource_gather(v.ref(), ids(g, {2, 0, 2}), af::float32)
                               : af::gather(v, ids(g, {2, 0, 2}));
        Output loss = af::reduce_sum(af::square(rows) * c);
        af::Variable step = train::get_or_create_global_step(g);
        auto opt = make_optimizer(t.name, step);
        auto grads = opt->compute_gradients(loss);
        BOOST_REQUIRE(grads[0].grad.is_slices());
        check_steps(g, opt->apply_gradients(grads, step), v, t.w, 3, 12);
      }
    }
}

// slot_creator.py's names, the update ops TensorFlow builds (from the reference script).
BOOST_AUTO_TEST_CASE(slots_and_ops_are_tensorflows, *boost::unit_test::timeout(60)) {
  struct Case {
    std::string name;
    std::vector<std::string> slots, variables;
    std::string dense_op;
  };
  const std::vector<Case> cases = {
      {"Ftrl", {"accum", "linear"}, {"global_step", "w", "w/Ftrl", "w/Ftrl_1"}, "ApplyFtrl"},
      {"FtrlShrinkage",
       {"accum", "linear"},
       {"global_step", "w", "w/Ftrl", "w/Ftrl_1"},
       "ApplyFtrlV2"},
      {"Adadelta",
       {"accum", "accum_update"},
       {"global_step", "w", "w/Adadelta", "w/Adadelta_1"},
       "ApplyAdadelta"},
      {"ProximalAdagrad",
       {"accumulator"},
       {"global_step", "w", "w/ProximalAdagrad"},
       "ApplyProximalAdagrad"},
      {"ProximalGradientDescent", {}, {"global_step", "w"}, "ApplyProximalGradientDescent"},
      {"AdagradDA",
       {"gradient_accumulator", "gradient_squared_accumulator"},
       {"global_step", "w", "w/AdagradDA", "w/AdagradDA_1"},
       "ApplyAdagradDA"},
  };
  for (const auto& c : cases)
    for (const bool resource : {false, true}) {
      BOOST_TEST_CONTEXT(c.name << (resource ? " (resource variable)" : "")) {
        af::Graph g;
        af::Variable w = g.variable(Tensor::from_vector(std::vector<float>{1.0f, 2.0f}),
                                    {.name = "w", .use_resource = resource});
        af::Variable step = train::get_or_create_global_step(g);
        auto opt = make_optimizer(c.name, step);
        opt->minimize(af::reduce_sum(w * w), step);
        BOOST_TEST(opt->get_slot_names() == c.slots, boost::test_tools::per_element());
        std::vector<std::string> names;
        for (auto& v : g.global_variables()) names.push_back(v.name());
        std::sort(names.begin(), names.end());
        BOOST_TEST(names == c.variables, boost::test_tools::per_element());
        const std::string op = resource ? "Resource" + c.dense_op : c.dense_op;
        BOOST_TEST(apply_ops(g) == std::set<std::string>({op}), boost::test_tools::per_element());
      }
    }
  // Ftrl's accum starts at initial_accumulator_value.
  af::Graph g;
  af::Variable w = g.variable(Tensor::from_vector(std::vector<float>{1.0f, 2.0f}), {.name = "w"});
  train::FtrlOptimizer ftrl(0.1, {.initial_accumulator_value = 0.25});
  ftrl.minimize(af::reduce_sum(w * w));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  BOOST_TEST(sess.run(ftrl.get_slot(w, "accum").value()).to_vector<float>() ==
                 std::vector<float>({0.25f, 0.25f}),
             boost::test_tools::per_element());
}

// ftrl.py's, proximal_adagrad.py's and adagrad_da.py's ValueErrors.
BOOST_AUTO_TEST_CASE(constructors_refuse_bad_hyper_parameters, *boost::unit_test::timeout(30)) {
  using af::test::error_of;
  BOOST_TEST(error_of([] { train::FtrlOptimizer(0.1, {.learning_rate_power = 0.5}); }) ==
             "learning_rate_power 0.500000 needs to be negative or zero");
  BOOST_TEST(
      contains(error_of([] { train::FtrlOptimizer(0.1, {.initial_accumulator_value = -1}); }),
               "initial_accumulator_value -1.000000 needs to be positive or zero"));
  BOOST_TEST(contains(
      error_of([] { train::FtrlOptimizer(0.1, {.l2_shrinkage_regularization_strength = -1}); }),
      "l2_shrinkage_regularization_strength -1.000000 needs to be positive or zero"));
  BOOST_TEST(error_of([] { train::ProximalAdagradOptimizer(0.1, 0.0); }) ==
             "initial_accumulator_value must be positive: 0.0");
  af::Graph g;
  af::Variable step = train::get_or_create_global_step(g);
  BOOST_TEST(error_of([&] {
               train::AdagradDAOptimizer(0.1, step,
                                         {.initial_gradient_squared_accumulator_value = 0});
             }) == "initial_gradient_squared_accumulator_value must be positive: 0.0");
}

// training_ops.cc's kernels' checks, in their words.
BOOST_AUTO_TEST_CASE(kernels_fail_as_tensorflows, *boost::unit_test::timeout(60)) {
  {
    // Shapes of the slots, at construction (the shape function).
    af::Graph g;
    af::Variable var = g.variable(floats({1, 2, 3}, Shape{3}), {.name = "var"});
    af::Variable accum = g.variable(floats({1, 2}, Shape{2}), {.name = "accum"});
    af::Variable linear = g.variable(floats({0, 0, 0}, Shape{3}), {.name = "linear"});
    Output grad = g.constant(floats({1, 1, 1}, Shape{3}));
    BOOST_TEST(contains(af::test::construction_error([&] {
                          af::apply_ftrl(var.ref(), accum.ref(), linear.ref(), grad,
                                         scalar(g, 0.1f), scalar(g, 0), scalar(g, 0),
                                         scalar(g, -0.5f));
                        }),
                        "Shapes of var and accum must be equal"));
  }
  {
    af::Graph g;
    af::Variable var = g.variable(floats({1, 2, 3}, Shape{3}), {.name = "var"});
    af::Variable accum = g.variable(floats({1, 1, 1}, Shape{3}), {.name = "accum"});
    Output grad = g.constant(floats({1, 1, 1}, Shape{3}));
    // ProximalAdagrad's lr must be positive, l1 non-negative.
    af::Operation bad_lr = Output(af::apply_proximal_adagrad(var.ref(), accum.ref(), scalar(g, 0),
                                                             scalar(g, 0), scalar(g, 0), grad))
                               .op();
    BOOST_TEST(contains(run_error(g, bad_lr), "lr is not a positive scalar: []"));
    af::Operation bad_l1 = Output(af::apply_proximal_adagrad(var.ref(), accum.ref(), scalar(g, 1),
                                                             scalar(g, -1), scalar(g, 0), grad))
                               .op();
    BOOST_TEST(contains(run_error(g, bad_l1),
                        "l1 regularization strength is not a non-negative scalar: []"));
    // Sparse: an index out of range.
    af::Operation oob = Output(af::sparse_apply_proximal_gradient_descent(
                                   var.ref(), scalar(g, 0.1f), scalar(g, 0), scalar(g, 0),
                                   g.constant(floats({1, 1}, Shape{2})), ids(g, {0, 7})))
                            .op();
    BOOST_TEST(contains(run_error(g, oob), "Index 7 at offset 1 in indices is out of range"));
    // Gradient rows that do not match the indices fail while building (the shapes are known).
    BOOST_TEST(contains(af::test::construction_error([&] {
                          af::sparse_apply_adadelta(var.ref(), accum.ref(), accum.ref(),
                                                    scalar(g, 1), scalar(g, 0.9f), scalar(g, 1e-6f),
                                                    g.constant(floats({1, 1, 1}, Shape{3})),
                                                    ids(g, {0, 1}));
                        }),
                        "Shapes of grad (3,) and indices (2,) do not fit var (3,)"));
  }
  {
    // A scalar variable has no rows: refused while building, its shape being known (the
    // kernel's "var must be at least 1 dimensional" is for shapes known only when running).
    af::Graph g;
    af::Variable var = g.variable(Tensor(1.0f), {.name = "var"});
    af::Variable acc = g.variable(Tensor(1.0f), {.name = "acc"});
    BOOST_TEST(contains(af::test::construction_error([&] {
                          af::sparse_apply_adagrad_v2(
                              var.ref(), acc.ref(), scalar(g, 1), scalar(g, 1e-7f),
                              g.constant(floats({1}, Shape{1})), ids(g, {0}));
                        }),
                        "Shape must be at least rank 1 but is rank 0"));
  }
  {
    // KerasMomentum: resource only; its own out-of-range message, after the rows before it.
    af::Graph g;
    af::Variable var = g.variable(floats({1, 2, 3}, Shape{3}), {.name = "v", .use_resource = true});
    af::Variable acc = g.variable(floats({0, 0, 0}, Shape{3}), {.name = "a", .use_resource = true});
    af::Operation op = af::resource_sparse_apply_keras_momentum(
        var.ref(), acc.ref(), scalar(g, 0.5f), g.constant(floats({1, 1}, Shape{2})), ids(g, {1, 3}),
        scalar(g, 0.9f));
    af::Session sess(g);
    sess.run(g.global_variables_initializer());
    BOOST_TEST(
        contains(af::test::error_of([&] { sess.run(op); }), "indices[1] = 3 is not in [0, 3)"));
    BOOST_TEST(sess.run(var.value()).to_vector<float>() == std::vector<float>({1, 1.5f, 3}),
               boost::test_tools::per_element());
  }
}

// The ops without an optimizer here, against training_ops.cc's formulas.
BOOST_AUTO_TEST_CASE(other_updates_follow_training_ops_formulas, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable var = g.variable(floats({1, -2}, Shape{2}), {.name = "var", .use_resource = true});
  af::Variable m = g.variable(floats({0.5f, 0.5f}, Shape{2}), {.name = "m", .use_resource = true});
  af::Variable v = g.variable(floats({0.1f, 3}, Shape{2}), {.name = "v", .use_resource = true});
  Output grad = g.constant(floats({0.5f, -1}, Shape{2}));
  af::Operation ada_max =
      af::resource_apply_ada_max(var.ref(), m.ref(), v.ref(), scalar(g, 0.9f), scalar(g, 0.1f),
                                 scalar(g, 0.9f), scalar(g, 0.999f), scalar(g, 1e-7f), grad);
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.run(ada_max);
  const float m0 = 0.5f + (0.5f - 0.5f) * (1 - 0.9f), m1 = 0.5f + (-1 - 0.5f) * (1 - 0.9f);
  const float v0 = std::max(0.999f * 0.1f, 0.5f), v1 = std::max(0.999f * 3, 1.0f);
  const float rate = 0.1f / (1 - 0.9f);
  check_close(sess.run(var.value()).to_vector<float>(),
              {1 - rate * (m0 / (v0 + 1e-7f)), -2 - rate * (m1 / (v1 + 1e-7f))});
}

BOOST_AUTO_TEST_SUITE_END()
