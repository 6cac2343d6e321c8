// Training resource variables as TensorFlow 2's tf.compat.v1 does (use_resource=True): the
// optimizers' `_resource_apply_dense` / `_resource_apply_sparse` ops and resource slots,
// ResourceGather and its IndexedSlices gradient, VariableShape, partitioned resource
// variables in embedding lookups, their checkpoints, and TensorFlow's errors for a variable
// never assigned. The op lists and messages come from scripts/peers/make_sparse_references.py
// and TensorFlow 2.21 (the values themselves are the reference variables', checked in
// optimizer_conformance_test and sparse_update_conformance_test).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/resource_variable_ops.hpp>
#include <actorflow/ops/scatter_ops.hpp>
#include <actorflow/ops/training_ops.hpp>
#include <actorflow/train/embedding_ops.hpp>
#include <actorflow/train/partitioned_variables.hpp>
#include <actorflow/train/saver.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "matchers.hpp"
#include "temp_dir.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;
using af::test::check_close;
using af::test::contains;
using af::test::error_of;
namespace train = af::train;

Tensor floats(std::vector<float> values, Shape shape) {
  return Tensor::from_vector(values, std::move(shape));
}

Output ids(af::Graph& g, std::vector<std::int32_t> values) {
  return g.constant(Tensor::from_vector(values));
}

// The op types of `g` that update or gather (TensorFlow's list from the reference script).
std::set<std::string> update_ops(af::Graph& g) {
  std::set<std::string> out;
  for (af::Node* n : g.nodes()) {
    const std::string& t = n->type();
    if (contains(t, "Apply") || contains(t, "Scatter") || contains(t, "Gather")) out.insert(t);
  }
  return out;
}

struct OptimizerCase {
  std::string name;
  std::function<std::unique_ptr<train::Optimizer>()> make;
  std::string dense_op;            // what _resource_apply_dense builds
  std::set<std::string> sparse;    // what _resource_apply_sparse builds, with ResourceGather
  std::vector<std::string> slots;  // get_slot_names()
};

const std::vector<OptimizerCase>& optimizer_cases() {
  using namespace af::train;
  static const std::vector<OptimizerCase> cases = {
      {"GradientDescent",
       [] { return std::make_unique<GradientDescentOptimizer>(0.1); },
       "ResourceApplyGradientDescent",
       {"ResourceGather", "ResourceScatterAdd"},
       {}},
      {"Momentum",
       [] { return std::make_unique<MomentumOptimizer>(0.1, 0.9); },
       "ResourceApplyMomentum",
       {"ResourceGather", "ResourceSparseApplyMomentum"},
       {"momentum"}},
      {"Adagrad",
       [] { return std::make_unique<AdagradOptimizer>(0.1); },
       "ResourceApplyAdagrad",
       {"ResourceGather", "ResourceSparseApplyAdagrad"},
       {"accumulator"}},
      {"RMSProp",
       [] { return std::make_unique<RMSPropOptimizer>(0.01); },
       "ResourceApplyRMSProp",
       {"ResourceGather", "ResourceSparseApplyRMSProp"},
       {"momentum", "rms"}},
      {"CenteredRMSProp",
       [] { return std::make_unique<RMSPropOptimizer>(0.01, RMSPropOptions{.centered = true}); },
       "ResourceApplyCenteredRMSProp",
       {"ResourceGather", "ResourceSparseApplyCenteredRMSProp"},
       {"mg", "momentum", "rms"}},
      {"Adam",
       [] { return std::make_unique<AdamOptimizer>(0.1); },
       "ResourceApplyAdam",
       {"ResourceGather", "ResourceScatterAdd"},
       {"m", "v"}},
  };
  return cases;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_training_conformance_test)

// Dense and sparse gradients of a resource variable go to the Resource* ops TensorFlow
// builds; every slot (and Adam's beta powers) is a resource variable beside its primary.
BOOST_AUTO_TEST_CASE(optimizers_build_tensorflows_resource_updates_and_resource_slots,
                     *boost::unit_test::timeout(60)) {
  for (const auto& c : optimizer_cases()) {
    BOOST_TEST_CONTEXT(c.name) {
      {
        af::Graph g;
        af::Variable w =
            g.variable(floats({1, 2, 3}, Shape{3}), {.name = "w", .use_resource = true});
        BOOST_TEST(w.is_resource());
        BOOST_TEST(w.op().type() == "VarHandleOp");
        BOOST_TEST(w.value().op().name() == "w/Read/ReadVariableOp");
        BOOST_TEST(w.initializer().name() == "w/Assign");
        auto opt = c.make();
        opt->minimize(af::reduce_sum(w * w));
        BOOST_TEST(update_ops(g) == std::set<std::string>({c.dense_op}),
                   boost::test_tools::per_element());
        BOOST_TEST(opt->get_slot_names() == c.slots, boost::test_tools::per_element());
        for (const af::Variable& v : opt->variables()) {
          BOOST_TEST(v.is_resource(), v.name());
          BOOST_TEST(v.op().node()->colocation_names() == std::vector<std::string>({"w"}),
                     boost::test_tools::per_element());
        }
      }
      af::Graph g;
      af::Variable table =
          g.variable(floats({1, 2, 3, 4, 5, 6}, Shape{3, 2}), {.name = "t", .use_resource = true});
      Output rows = af::resource_gather(table.ref(), ids(g, {2, 0, 2}), af::float32);
      auto opt = c.make();
      auto grads = opt->compute_gradients(af::reduce_sum(rows * rows));
      BOOST_REQUIRE(grads[0].grad.is_slices());
      opt->apply_gradients(grads);
      BOOST_TEST(update_ops(g) == c.sparse, boost::test_tools::per_element());
    }
  }
}

// `_GatherGrad` of resource_variable_ops.py: values reshaped to [N] + shape[1:], the indices
// flattened, the variable's shape as dense shape (a Const when declared, else VariableShape).
BOOST_AUTO_TEST_CASE(resource_gather_reads_rows_and_its_gradient_is_slices_of_the_variable,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable t = g.variable(floats({0, 1, 2, 3, 4, 5, 6, 7}, Shape{4, 2}),
                              {.name = "t", .use_resource = true});
  const Output idx =
      g.constant(Tensor::from_vector(std::vector<std::int64_t>{3, 1, 3, 0, 0, 2}, Shape{2, 3}));
  Output rows = af::resource_gather(t.ref(), idx, af::float32, "rows");
  BOOST_TEST(rows.shape() == af::PartialShape({2, 3, 2}));
  Output weights = g.constant(floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Shape{2, 3, 2}));
  auto grads = af::gradients_with_slices({af::reduce_sum(rows * weights)}, {t.ref()});
  BOOST_REQUIRE(grads[0].is_slices());
  const af::IndexedSlices& s = grads[0].slices();
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  BOOST_TEST(
      sess.run(rows).to_vector<float>() == std::vector<float>({6, 7, 2, 3, 6, 7, 0, 1, 0, 1, 4, 5}),
      boost::test_tools::per_element());
  BOOST_TEST(sess.run(s.values).shape() == Shape({6, 2}));
  BOOST_TEST(sess.run(s.values).to_vector<float>() == sess.run(weights).to_vector<float>(),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(s.indices).to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({3, 1, 3, 0, 0, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(s.dense_shape.op().type() == "Const");
  BOOST_TEST(sess.run(s.dense_shape).to_vector<std::int32_t>() == std::vector<std::int32_t>({4, 2}),
             boost::test_tools::per_element());
  // Densified: rows named twice get both gradients.
  BOOST_TEST(sess.run(grads[0].to_dense()).to_vector<float>() ==
                 std::vector<float>({16, 18, 3, 4, 11, 12, 6, 8}),
             boost::test_tools::per_element());

  // A handle of unknown shape: VariableShape at run time.
  const Output h = af::var_handle_op(g, af::float32, af::PartialShape::unknown(), "u", "u");
  const af::Operation init_u =
      af::assign_variable_op(h, g.constant(floats({1, 2, 3}, Shape{3, 1})));
  Output shape = af::variable_shape(h, DType::int64);
  BOOST_TEST(shape.op().type() == "VariableShape");
  BOOST_TEST(af::variable_shape(t.ref()).op().type() == "Const");
  Output u_rows = af::resource_gather(h, ids(g, {2}), af::float32);
  auto u_grads = af::gradients_with_slices({u_rows}, {h}, {g.constant(floats({1}, Shape{1, 1}))});
  BOOST_REQUIRE(u_grads[0].is_slices());
  BOOST_TEST(u_grads[0].slices().dense_shape.op().type() == "VariableShape");
  af::Session later(g);
  later.run({}, {}, {init_u});
  BOOST_TEST(later.run(shape).to_vector<std::int64_t>() == std::vector<std::int64_t>({3, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(later.run(u_rows).to_vector<float>() == std::vector<float>({3}),
             boost::test_tools::per_element());
  BOOST_TEST(later.run(u_grads[0].slices().dense_shape).to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({3, 1}),
             boost::test_tools::per_element());
}

// TensorFlow 2.21 on a variable never assigned: ReadVariableOp FailedPrecondition, the
// lookups of ResourceGather, ResourceScatter* and Assign{Add,Sub}VariableOp NotFound, the
// ResourceApply* kernels Internal "Invalid variable reference."; an index out of range
// names it.
BOOST_AUTO_TEST_CASE(a_resource_variable_never_assigned_fails_as_tensorflow_does,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = af::var_handle_op(g, af::float32, af::PartialShape({4, 2}), "x", "x");
  const af::Operation init =
      af::assign_variable_op(x, g.constant(floats({0, 0, 0, 0, 0, 0, 0, 0}, Shape{4, 2})));
  const Output lr = g.constant(Tensor(0.1f));
  const Output ones = g.constant(floats({1, 1}, Shape{1, 2}));
  Output gather = af::resource_gather(x, ids(g, {0}), af::float32, "gather");
  af::Operation scatter = af::resource_scatter("Add", x, ids(g, {0}), ones, "scatter");
  af::Operation add = af::assign_add_variable_op(
      x, g.constant(floats({1, 1, 1, 1, 1, 1, 1, 1}, Shape{4, 2})), "add");
  af::Operation apply = af::resource_apply_gradient_descent(
      x, lr, g.constant(floats({1, 1, 1, 1, 1, 1, 1, 1}, Shape{4, 2})));
  af::Operation sparse_apply = af::resource_sparse_apply_adagrad(x, x, lr, ones, ids(g, {0}));
  Output out_of_range = af::resource_gather(x, ids(g, {1, 7}), af::float32, "out_of_range");
  af::Session sess(g);
  const std::string missing = "Resource localhost/x/N10tensorflow3VarE does not exist.";
  BOOST_TEST(contains(error_of<af::NotFoundError>([&] { sess.run(gather); }), missing));
  BOOST_TEST(contains(error_of<af::NotFoundError>([&] { sess.run({}, {}, {scatter}); }), missing));
  BOOST_TEST(contains(error_of<af::NotFoundError>([&] { sess.run({}, {}, {add}); }), missing));
  BOOST_TEST(contains(error_of<af::InternalError>([&] { sess.run({}, {}, {apply}); }),
                      "Invalid variable reference."));
  BOOST_TEST(contains(error_of<af::InternalError>([&] { sess.run({}, {}, {sparse_apply}); }),
                      "Invalid variable reference."));
  BOOST_TEST(contains(error_of<af::FailedPreconditionError>(
                          [&] { sess.run(af::read_variable_op(x, af::float32)); }),
                      "Could not find variable x."));
  sess.run({}, {}, {init});
  BOOST_TEST(contains(error_of<af::InvalidArgumentError>([&] { sess.run(out_of_range); }),
                      "indices[1] = 7 is not in [0, 4)"));
  sess.run({}, {}, {scatter, apply});
  BOOST_TEST(sess.run(gather).to_vector<float>() == std::vector<float>({0.9f, 0.9f}),
             boost::test_tools::per_element());
}

// A [10,4] table in `parts` parts looked up by ids {1, 5, 1, 8} ("mod": parts 1, 2, 1, 2),
// trained by Adagrad. `placed`: built under a device setter over 2 ps tasks.
struct TableModel {
  af::Graph g;
  train::PartitionedVariable emb;
  af::Operation train_op;
  std::vector<af::Gradient> grads;
  std::unique_ptr<train::Saver> saver;
  TableModel(std::int64_t parts, bool resource, bool placed = false) {
    std::optional<af::ScopeGuard> scope;
    if (placed) scope.emplace(g.device(af::replica_device_setter({.ps_tasks = 2})));
    emb = train::get_partitioned_variable(g, "emb", Shape{10, 4},
                                          {.initializer = af::initializers::constant(0.5),
                                           .partitioner = train::fixed_size_partitioner(parts),
                                           .use_resource = resource});
    Output looked = train::embedding_lookup(
        emb, g.constant(Tensor::from_vector(std::vector<std::int64_t>{1, 5, 1, 8})));
    Output loss = af::reduce_sum(looked * looked * g.constant(floats({1, 2, 3, 4}, Shape{4, 1})));
    train::AdagradOptimizer opt(0.1);
    std::vector<af::Variable> vars(emb.parts().begin(), emb.parts().end());
    auto gv = opt.compute_gradients(loss, vars);
    for (auto& p : gv) grads.push_back(p.grad);
    train_op = opt.apply_gradients(gv);
    saver = std::make_unique<train::Saver>(g);
  }
};

// A partitioned table of resource variables: the lookup gathers each part's rows with
// ResourceGather beside the part, each part's gradient is slices of its own rows, Adagrad
// updates only those rows, and the trained table equals the reference variables'. Its
// checkpoint holds one key per full variable and restores into reference parts of another
// partitioning.
BOOST_AUTO_TEST_CASE(partitioned_resource_embeddings_train_sparsely_and_checkpoint_as_tensorflow,
                     *boost::unit_test::timeout(120)) {
  TableModel placed(3, true, true);
  std::set<std::string> gathers;
  for (af::Node* n : placed.g.nodes())
    if (n->type() == "ResourceGather")
      gathers.insert(n->def().device + " " + n->colocation_names().at(0));
  BOOST_TEST(
      gathers == std::set<std::string>({"/job:ps/task:0 emb/part_0", "/job:ps/task:1 emb/part_1",
                                        "/job:ps/task:0 emb/part_2"}),
      boost::test_tools::per_element());
  for (const af::Gradient& grad : placed.grads) BOOST_TEST(grad.is_slices());

  af::test::TempDir dir;
  const std::string prefix = (dir.path / "resource.ckpt").string();
  std::vector<float> trained, want;
  for (const bool resource : {true, false}) {
    TableModel m(3, resource);
    af::Session sess(m.g);
    sess.run(m.g.global_variables_initializer());
    for (int step = 0; step < 3; ++step) sess.run(m.train_op);
    (resource ? trained : want) = sess.run(m.emb.as_tensor()).to_vector<float>();
    if (resource) m.saver->save(sess, prefix);
  }
  check_close(trained, want, 1e-6f);
  // as_tensor() holds part 0 (ids 0, 3, 6, 9), part 1 (1, 4, 7), part 2 (2, 5, 8): only
  // rows 4 (id 1), 8 (id 5) and 9 (id 8) were looked up, so only they moved.
  for (int row = 0; row < 10; ++row)
    for (int col = 0; col < 4; ++col) {
      const float v = trained[static_cast<std::size_t>(row * 4 + col)];
      if (row == 4 || row == 8 || row == 9)
        BOOST_TEST(v < 0.5f);
      else
        BOOST_TEST(v == 0.5f);
    }

  // The resource checkpoint restores into 2 reference parts (and their Adagrad slots).
  TableModel two(2, false);
  af::Session sess(two.g);
  two.saver->restore(sess, prefix);
  BOOST_TEST(sess.run(two.emb.as_tensor()).to_vector<float>() == trained,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
