// The sparse updates against TensorFlow 1.x: Scatter{Update,Add,Sub,Mul,Div,Min,Max}
// (scatter_op.cc), SparseApply{Momentum,Adagrad,RMSProp,CenteredRMSProp} (training_ops.cc),
// the optimizers' sparse paths (optimizer.py's duplicate summing, GradientDescent's
// ScatterSub, Adam's `_apply_sparse_shared`) and Unique. The values come from
// scripts/peers/make_sparse_references.py (TensorFlow, tf.compat.v1, reference variables).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/array_ops.hpp>
#include <actorflow/ops/indexed_slices.hpp>
#include <actorflow/ops/math_ops.hpp>
#include <actorflow/ops/scatter_ops.hpp>
#include <actorflow/ops/training_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
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
using af::test::contains;
using af::test::error_of;

using af::test::check_close;

Tensor floats(std::vector<float> values, Shape shape) {
  return Tensor::from_vector(values, std::move(shape));
}

Output ids(af::Graph& g, std::vector<std::int32_t> values, std::optional<Shape> shape = {}) {
  return g.constant(Tensor::from_vector(values, shape));
}

struct Trajectory {
  std::string name;
  std::vector<float> v;  // the [4,3] variable after each of 3 steps
};

// make_sparse_references.py, part 2: v = arange(12).reshape(4,3) / 4 - 1, loss =
// sum(gather(v, [2,0,2])^2 * c): slices naming row 2 twice; rows 1 and 3 never move.
const std::vector<Trajectory> kTrajectories = {
    {"GradientDescent", {-0.699999988, -0.712499976, -0.550000012, -0.25, 0,   0.25,
                         0.550000012,  0.75,         0.450000018,  1.25,  1.5, 1.75,
                         -0.48999998,  -0.676874995, -0.605000019, -0.25, 0,   0.25,
                         0.605000019,  0.75,         0.202500015,  1.25,  1.5, 1.75,
                         -0.342999995, -0.64303124,  -0.665500045, -0.25, 0,   0.25,
                         0.665499985,  0.75,         0.091125004,  1.25,  1.5, 1.75}},
    {"Momentum", {-0.699999988, -0.712499976, -0.550000012, -0.25, 0,   0.25,
                  0.550000012,  0.75,         0.449999988,  1.25,  1.5, 1.75,
                  -0.219999999, -0.643124998, -0.650000036, -0.25, 0,   0.25,
                  0.650000036,  0.75,         -0.292500019, 1.25,  1.5, 1.75,
                  0.277999967,  -0.548531234, -0.805000067, -0.25, 0,   0.25,
                  0.805000067,  0.75,         -0.799874961, 1.25,  1.5, 1.75}},
    {"Nesterov", {-0.430000007, -0.678749979, -0.595000029,  -0.25, 0,   0.25,
                  0.595000029,  0.75,         -0.0449999571, 1.25,  1.5, 1.75,
                  0.0580999255, -0.583893716, -0.748550057,  -0.25, 0,   0.25,
                  0.748550057,  0.75,         -0.443474948,  1.25,  1.5, 1.75,
                  0.348172933,  -0.473596931, -0.975419521,  -0.25, 0,   0.25,
                  0.975419521,  0.75,         -0.360946119,  1.25,  1.5, 1.75}},
    {"Adagrad", {-0.900550961, -0.67355293,  -0.584515452, -0.25, 0,   0.25,
                 0.584515452,  0.75,         0.900164843,  1.25,  1.5, 1.75,
                 -0.833836198, -0.616953313, -0.654798448, -0.25, 0,   0.25,
                 0.654798448,  0.75,         0.833322585,  1.25,  1.5, 1.75,
                 -0.781282187, -0.570927441, -0.716659486, -0.25, 0,   0.25,
                 0.716659486,  0.75,         0.780703068,  1.25,  1.5, 1.75}},
    {"RMSProp", {-0.977639318, -0.746077657, -0.505198777, -0.25, 0,   0.25,
                 0.505198777,  0.75,         0.972238541,  1.25,  1.5, 1.75,
                 -0.947835684, -0.740037978, -0.513252139, -0.25, 0,   0.25,
                 0.513252139,  0.75,         0.937207282,  1.25,  1.5, 1.75,
                 -0.916627228, -0.732792079, -0.523022294, -0.25, 0,   0.25,
                 0.523022294,  0.75,         0.901916742,  1.25,  1.5, 1.75}},
    {"CenteredRMSProp", {-0.977058411, -0.746074677, -0.50520581,  -0.25, 0,   0.25,
                         0.50520581,   0.75,         0.971102595,  1.25,  1.5, 1.75,
                         -0.945653081, -0.740021169, -0.513291955, -0.25, 0,   0.25,
                         0.513291955,  0.75,         0.93351078,   1.25,  1.5, 1.75,
                         -0.91168052,  -0.732740045, -0.523148,    -0.25, 0,   0.25,
                         0.523148,     0.75,         0.894275963,  1.25,  1.5, 1.75}},
    {"Adam", {-0.899999976, -0.650000095, -0.599999964, -0.25, 0,   0.25,
              0.599999964,  0.75,         0.899999976,  1.25,  1.5, 1.75,
              -0.800412536, -0.55062604,  -0.700060904, -0.25, 0,   0.25,
              0.700060904,  0.75,         0.800412536,  1.25,  1.5, 1.75,
              -0.70158726,  -0.452457845, -0.800293624, -0.25, 0,   0.25,
              0.800293624,  0.75,         0.70158726,   1.25,  1.5, 1.75}},
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

// A variable of `init` and `shape` to which `grads` (values, indices) are applied one after
// the other as IndexedSlices of the variable's shape.
struct SlicesRun {
  af::Variable v;
  std::unique_ptr<af::Session> sess;
  std::vector<std::vector<float>> after;  // the variable after each update

  std::vector<float> slot(const af::train::Optimizer& opt, const std::string& name) {
    return sess->run(opt.get_slot(v, name).value()).to_vector<float>();
  }
};

SlicesRun apply_slices(
    af::Graph& g, af::train::Optimizer& opt, std::vector<float> init, Shape shape,
    const std::vector<std::pair<std::vector<float>, std::vector<std::int32_t>>>& grads) {
  SlicesRun run;
  run.v = g.variable(floats(init, shape), {.name = "v"});
  const std::vector<std::int64_t> dims(shape.dims().begin(), shape.dims().end());
  std::vector<af::Operation> ops;
  for (auto& [values, indices] : grads) {
    Shape values_shape = shape;
    values_shape.mutable_dims()[0] = static_cast<std::int64_t>(indices.size());
    af::IndexedSlices s{
        g.constant(floats(values, values_shape)), ids(g, indices),
        g.constant(Tensor::from_vector(std::vector<std::int32_t>(dims.begin(), dims.end())))};
    ops.push_back(opt.apply_gradients({{s, run.v}}));
  }
  run.sess = std::make_unique<af::Session>(g);
  run.sess->run(g.global_variables_initializer());
  for (auto& op : ops) {
    run.sess->run(op);
    run.after.push_back(run.sess->run(run.v.value()).to_vector<float>());
  }
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sparse_update_conformance_test)

// On a resource variable (use_resource=True) the rows are read by ResourceGather and the
// updates are the ResourceSparseApply* ops (GradientDescent: ResourceScatterAdd; Adam:
// ResourceScatterAdd on its slots), with the same values.
BOOST_AUTO_TEST_CASE(sparse_optimizer_trajectories_match_tensorflow,
                     *boost::unit_test::timeout(60)) {
  for (const bool resource : {false, true})
    for (const auto& t : kTrajectories) {
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
        auto opt = make_optimizer(t.name);
        auto grads = opt->compute_gradients(loss);
        BOOST_REQUIRE(grads[0].grad.is_slices());
        af::Operation train = opt->apply_gradients(grads);
        af::Session sess(g);
        sess.run(g.global_variables_initializer());
        for (int step = 0; step < 3; ++step) {
          sess.run(train);
          std::vector<float> want(t.v.begin() + step * 12, t.v.begin() + (step + 1) * 12);
          check_close(sess.run(v.value()).to_vector<float>(), want, 5e-6f);
        }
      }
    }
}

// sparse-notes Ex.6 to Ex.9, each checked against TensorFlow's values.
BOOST_AUTO_TEST_CASE(sparse_notes_examples_match_tensorflow, *boost::unit_test::timeout(60)) {
  using namespace af::train;
  {
    af::Graph g;
    AdagradOptimizer opt(0.1);
    auto r =
        apply_slices(g, opt, {1, 2, 3, 4, 5, 6}, Shape{3, 2}, {{{0.1f, 0.1f, 0.1f, 0.1f}, {0, 2}}});
    check_close(r.after[0], {0.969848871f, 1.96984887f, 3, 4, 4.96984863f, 5.96984863f});
    check_close(r.slot(opt, "accumulator"), {0.11f, 0.11f, 0.1f, 0.1f, 0.11f, 0.11f});
  }
  {
    // Duplicates are summed first (Unique + UnsortedSegmentSum).
    af::Graph g;
    AdagradOptimizer opt(0.1);
    auto r = apply_slices(g, opt, {1}, Shape{1}, {{{0.1f, 0.1f}, {0, 0}}});
    check_close(r.after[0], {0.946547747f});
    check_close(r.slot(opt, "accumulator"), {0.14f});
  }
  {
    // GradientDescent applies each duplicate (ScatterSub).
    af::Graph g;
    GradientDescentOptimizer opt(0.5);
    auto r = apply_slices(g, opt, {1}, Shape{1}, {{{1, 1}, {0, 0}}});
    check_close(r.after[0], {0});
  }
  {
    af::Graph g;
    MomentumOptimizer opt(2.0, 0.9);
    auto r =
        apply_slices(g, opt, {1, 2}, Shape{2}, {{{0.1f, 0.1f}, {0, 1}}, {{0.1f, 0.1f}, {0, 1}}});
    check_close(r.after[0], {0.800000012f, 1.79999995f});
    check_close(r.after[1], {0.420000017f, 1.41999996f});
    check_close(r.slot(opt, "momentum"), {0.19f, 0.19f});
  }
  {
    af::Graph g;
    RMSPropOptimizer opt(0.01, RMSPropOptions{.decay = 0.9, .momentum = 0.0, .epsilon = 1e-10});
    auto r = apply_slices(g, opt, {1}, Shape{1}, {{{0.1f}, {0}}});
    check_close(r.after[0], {0.998946488f});
    check_close(r.slot(opt, "rms"), {0.900999963f});
    check_close(r.slot(opt, "momentum"), {0.00105350744f});
  }
  {
    // Adam: row 1 moves at the second step without a gradient (its m is not zero).
    af::Graph g;
    AdamOptimizer opt(1e-3);
    auto r = apply_slices(g, opt, {1, 2, 3}, Shape{3}, {{{0.1f}, {1}}, {{0.1f}, {0}}});
    check_close(r.after[0], {1, 1.99899995f, 3});
    check_close(r.after[1], {0.999255896f, 1.99832988f, 3});
    check_close(r.slot(opt, "m"), {0.0100000026f, 0.00900000241f, 0});
    check_close(r.slot(opt, "v"), {9.99987151e-06f, 9.98987161e-06f, 0}, 1e-5f);
  }
}

// make_sparse_references.py, part 4: 2-D indices naming row 3 twice (applied in turn), then
// a scalar update of row 4.
BOOST_AUTO_TEST_CASE(scatter_ops_update_rows_in_order_as_tensorflow_does,
                     *boost::unit_test::timeout(60)) {
  using Builder = std::function<Output(const Output&, const Output&, const Output&)>;
  const std::vector<std::tuple<std::string, Builder, std::vector<float>, std::vector<float>>>
      cases = {
          {"update",
           [](auto& r, auto& i, auto& u) { return af::scatter_update(r, i, u); },
           {-2, 8, 4, 0.5f, 5, 6, 3, 3, 9, 10},
           {-2, 8, 4, 0.5f, 5, 6, 3, 3, 2.5f, 2.5f}},
          {"add",
           [](auto& r, auto& i, auto& u) { return af::scatter_add(r, i, u); },
           {-1, 10, 7, 4.5f, 5, 6, 12, 10, 9, 10},
           {-1, 10, 7, 4.5f, 5, 6, 12, 10, 11.5f, 12.5f}},
          {"sub",
           [](auto& r, auto& i, auto& u) { return af::scatter_sub(r, i, u); },
           {3, -6, -1, 3.5f, 5, 6, 2, 6, 9, 10},
           {3, -6, -1, 3.5f, 5, 6, 2, 6, 6.5f, 7.5f}},
          {"mul",
           [](auto& r, auto& i, auto& u) { return af::scatter_mul(r, i, u); },
           {-2, 16, 12, 2, 5, 6, 42, -24, 9, 10},
           {-2, 16, 12, 2, 5, 6, 42, -24, 22.5f, 25}},
          {"div",
           [](auto& r, auto& i, auto& u) { return af::scatter_div(r, i, u); },
           {-0.5f, 0.25f, 0.75f, 8, 5, 6, 1.16666663f, -2.66666675f, 9, 10},
           {-0.5f, 0.25f, 0.75f, 8, 5, 6, 1.16666663f, -2.66666675f, 3.5999999f, 4}},
          {"min",
           [](auto& r, auto& i, auto& u) { return af::scatter_min(r, i, u); },
           {-2, 2, 3, 0.5f, 5, 6, 2, -1, 9, 10},
           {-2, 2, 3, 0.5f, 5, 6, 2, -1, 2.5f, 2.5f}},
          {"max",
           [](auto& r, auto& i, auto& u) { return af::scatter_max(r, i, u); },
           {1, 8, 4, 4, 5, 6, 7, 8, 9, 10},
           {1, 8, 4, 4, 5, 6, 7, 8, 9, 10}},
      };
  for (const auto& [name, build, rows, then_scalar] : cases) {
    BOOST_TEST_CONTEXT(name) {
      af::Graph g;
      af::Variable v =
          g.variable(floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, Shape{5, 2}), {.name = "v"});
      Output rows_op = build(v.ref(), ids(g, {3, 1, 3, 0}, Shape{2, 2}),
                             g.constant(floats({2, -1, 4, 0.5f, 3, 3, -2, 8}, Shape{2, 2, 2})));
      Output scalar_op = build(v.ref(), ids(g, {4}), g.constant(Tensor(2.5f)));
      af::Session sess(g);
      sess.run(g.global_variables_initializer());
      check_close(sess.run(rows_op).to_vector<float>(), rows);
      check_close(sess.run(scalar_op).to_vector<float>(), then_scalar);
    }
  }
  // int32: C++'s (and TensorFlow's) truncating division.
  af::Graph g;
  Tensor init = Tensor::from_vector(std::vector<std::int32_t>{7, -7, 9, 20});
  af::Variable a = g.variable(init, {.name = "a"}), b = g.variable(init, {.name = "b"}),
               c = g.variable(init, {.name = "c"});
  Output i = ids(g, {0, 1, 3});
  Output u = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 2, -3}));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  BOOST_TEST(sess.run(af::scatter_div(a.ref(), i, u)).to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{3, -3, 9, -6}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(af::scatter_min(b.ref(), i, u)).to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{2, -7, 9, -3}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(af::scatter_max(c.ref(), i, u)).to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{7, 2, 9, 20}),
             boost::test_tools::per_element());
  Output zero = g.constant(Tensor::from_vector(std::vector<std::int32_t>{0}));
  BOOST_TEST(contains(error_of([&] { sess.run(af::scatter_div(a.ref(), ids(g, {0}), zero)); }),
                      "Integer division by zero"));
}

BOOST_AUTO_TEST_CASE(scatter_errors_name_the_index_and_keep_the_rows_before_it,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable v = g.variable(floats({0, 0, 0, 0, 0}, Shape{5}), {.name = "v"});
  Output bad = af::scatter_add(v.ref(), ids(g, {1, 7, 2}), g.constant(floats({1, 1, 1}, Shape{3})));
  Output updates = g.placeholder(DType::float32);
  Output mismatched = af::scatter_update(v.ref(), ids(g, {1, 2}), updates);
  af::Variable scalar = g.variable(Tensor(1.0f), {.name = "s"});
  Output of_scalar = af::scatter_add(scalar.ref(), ids(g, {0}), g.constant(Tensor(1.0f)));
  af::Variable never = g.variable(floats({0, 0}, Shape{2}), {.name = "never"});
  Output uninitialized = af::scatter_add(never.ref(), ids(g, {0}), g.constant(Tensor(1.0f)));
  af::Session sess(g);
  sess.run(v.initializer());
  sess.run(scalar.initializer());
  const std::string e = error_of<af::InvalidArgumentError>([&] { sess.run(bad); });
  BOOST_TEST(contains(e, "indices[1] = 7 is not in [0, 5)"), e);
  // TensorFlow's CPU functor stops at the bad index: row 1 is already updated.
  check_close(sess.run(v.value()).to_vector<float>(), {0, 1, 0, 0, 0});
  const std::string m = error_of<af::InvalidArgumentError>([&] {
    sess.run(mismatched, {{updates, floats({1, 2, 3}, Shape{3})}});
  });
  BOOST_TEST(contains(m,
                      "Must have updates.shape = indices.shape + params.shape[1:] or "
                      "updates.shape = [], got updates.shape [3], indices.shape [2], "
                      "params.shape [5]"),
             m);
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { sess.run(of_scalar); }),
                      "params must be at least 1-D, got shape []"));
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>([&] { sess.run(uninitialized); }),
                      "Attempting to use uninitialized value never"));
  // Shapes known while building are checked then.
  BOOST_TEST(af::test::construction_error([&] {
               af::scatter_add(v.ref(), ids(g, {1, 2}), g.constant(floats({1, 2, 3}, Shape{3})));
             }) != "<no error>");
}

// A value read before a sparse update keeps what it read: the update writes a copy while
// the read still holds the buffer, and in place once nothing else does.
BOOST_AUTO_TEST_CASE(a_value_read_before_a_scatter_keeps_what_it_read,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable v = g.variable(floats({1, 2, 3, 4}, Shape{4}), {.name = "v"});
  Output add = af::scatter_add(v.ref(), ids(g, {2}), g.constant(Tensor(10.0f)));
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor before = sess.run(v.value());
  sess.run(add);
  check_close(before.to_vector<float>(), {1, 2, 3, 4});
  check_close(sess.run(v.value()).to_vector<float>(), {1, 2, 13, 4});
  // With no read in flight the rows are written in place: the buffer stays the same.
  const void* buffer = sess.run(v.value()).raw_data();
  sess.run(add);
  Tensor after = sess.run(v.value());
  BOOST_TEST(after.raw_data() == buffer);
  check_close(after.to_vector<float>(), {1, 2, 23, 4});
}

// A training step that gathers a few rows of a table updates those rows in place: the
// gather's read of the table is over before the update runs, so nothing is copied.
BOOST_AUTO_TEST_CASE(a_sparse_training_step_writes_the_table_in_place,
                     *boost::unit_test::timeout(60)) {
  for (const std::string name : {"GradientDescent", "Adagrad", "Momentum"}) {
    BOOST_TEST_CONTEXT(name) {
      af::Graph g;
      std::vector<float> init(1000 * 8, 1.0f);
      af::Variable table = g.variable(floats(init, Shape{1000, 8}), {.name = "table"});
      Output loss = af::reduce_sum(af::square(af::gather(table, ids(g, {7, 500, 7}))));
      auto opt = make_optimizer(name);
      af::Operation train = opt->minimize(loss);
      af::Session sess(g);
      sess.run(g.global_variables_initializer());
      sess.run(train);
      const void* buffer = sess.run(table.value()).raw_data();
      sess.run(train);
      Tensor after = sess.run(table.value());
      BOOST_TEST(after.raw_data() == buffer);
      std::vector<float> v = after.to_vector<float>();
      BOOST_TEST(v[7 * 8] < 1.0f);
      BOOST_TEST(v[500 * 8] < 1.0f);
      BOOST_TEST(v[8] == 1.0f);  // row 1 was never gathered
    }
  }
}

// make_sparse_references.py, part 5: SparseApplyMomentum checks an index when it reaches it,
// Adagrad and RMSProp check them all first.
BOOST_AUTO_TEST_CASE(sparse_apply_out_of_range_indices_fail_as_tensorflow_does,
                     *boost::unit_test::timeout(60)) {
  for (const std::string kind : {"momentum", "adagrad", "rms_prop"}) {
    BOOST_TEST_CONTEXT(kind) {
      af::Graph g;
      const Tensor ones = floats({1, 1, 1, 1, 1, 1}, Shape{3, 2});
      af::Variable v = g.variable(ones, {.name = "v"}), a = g.variable(ones, {.name = "a"}),
                   m = g.variable(ones, {.name = "m"});
      Output grad = g.constant(floats({0.5f, 0.5f, 0.5f, 0.5f}, Shape{2, 2}));
      Output idx = ids(g, {1, 9});
      auto scalar = [&](float x) { return g.constant(Tensor(x)); };
      Output op =
          kind == "momentum"
              ? af::sparse_apply_momentum(v.ref(), a.ref(), scalar(0.1f), grad, idx, scalar(0.9f))
          : kind == "adagrad"
              ? af::sparse_apply_adagrad(v.ref(), a.ref(), scalar(0.1f), grad, idx)
              : af::sparse_apply_rms_prop(v.ref(), a.ref(), m.ref(), scalar(0.1f), scalar(0.9f),
                                          scalar(0.0f), scalar(1e-6f), grad, idx);
      af::Session sess(g);
      sess.run(g.global_variables_initializer());
      const std::string e = error_of<af::InvalidArgumentError>([&] { sess.run(op); });
      BOOST_TEST(contains(e, "Index 9 at offset 1 in indices is out of range"), e);
      check_close(sess.run(v.value()).to_vector<float>(),
                  kind == "momentum" ? std::vector<float>{1, 1, 0.860000014f, 0.860000014f, 1, 1}
                                     : std::vector<float>{1, 1, 1, 1, 1, 1});
    }
  }
}

BOOST_AUTO_TEST_CASE(sparse_apply_checks_shapes_and_scalars_with_tensorflow_messages,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable v = g.variable(floats({1, 1, 1, 1, 1, 1}, Shape{3, 2}), {.name = "v"});
  // The accumulator's static shape is unknown, so the kernel sees the mismatch.
  af::Variable a = g.variable(floats({1, 1, 1, 1, 1, 1, 1, 1}, Shape{4, 2}),
                              {.name = "a", .shape = af::PartialShape::unknown()});
  Output lr = g.placeholder(DType::float32), grad = g.placeholder(DType::float32);
  Output idx = g.placeholder(DType::int32);
  Output adagrad = af::sparse_apply_adagrad(v.ref(), a.ref(), lr, grad, idx);
  Output momentum = af::sparse_apply_momentum(v.ref(), v.ref(), lr, grad, idx, lr);
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  const Tensor scalar(0.1f), vec = floats({0.1f}, Shape{1});
  const Tensor g2 = floats({1, 1, 1, 1}, Shape{2, 2}),
               i2 = Tensor::from_vector(std::vector<std::int32_t>{0, 1});
  auto error = [&](const Output& op, const Tensor& l, const Tensor& gr, const Tensor& in) {
    return error_of<af::InvalidArgumentError>([&] {
      sess.run(op, {{lr, l}, {grad, gr}, {idx, in}});
    });
  };
  BOOST_TEST(contains(error(adagrad, scalar, g2, i2),
                      "var and accum do not have the same shape[3,2] [4,2]"));
  BOOST_TEST(contains(error(momentum, vec, g2, i2), "lr is not a scalar : [1]"));
  BOOST_TEST(contains(error(momentum, scalar, g2,
                            Tensor::from_vector(std::vector<std::int32_t>{0, 1}, Shape{1, 2})),
                      "indices must be one-dimensional"));
  BOOST_TEST(contains(error(momentum, scalar, floats({1, 1, 1, 1, 1, 1}, Shape{2, 3}), i2),
                      "var and grad must match in dimension 1"));
  BOOST_TEST(
      contains(error(momentum, scalar, g2, Tensor::from_vector(std::vector<std::int32_t>{0})),
               "grad must be the same size as indices in the first dimension."));
}

BOOST_AUTO_TEST_CASE(unique_gives_values_in_first_occurrence_order,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto [y, idx] = af::unique(
      g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 1, 2, 4, 4, 4, 7, 8, 8})));
  auto [y64, idx64] =
      af::unique(g.constant(Tensor::from_vector(std::vector<std::int64_t>{5, 3, 5})), DType::int64);
  Output matrix = g.placeholder(DType::int32);
  auto bad = af::unique(matrix);
  af::Session sess(g);
  BOOST_TEST(sess.run(y).to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 2, 4, 7, 8}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(idx).to_vector<std::int32_t>() ==
                 (std::vector<std::int32_t>{0, 0, 1, 2, 2, 2, 3, 4, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(idx64).dtype() == DType::int64);
  BOOST_TEST(sess.run(y64).to_vector<std::int64_t>() == (std::vector<std::int64_t>{5, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(contains(
      error_of<af::InvalidArgumentError>([&] {
        sess.run(bad.first,
                 {{matrix, Tensor::from_vector(std::vector<std::int32_t>{1, 2}, Shape{1, 2})}});
      }),
      "unique expects a 1D vector."));
}

BOOST_AUTO_TEST_SUITE_END()
