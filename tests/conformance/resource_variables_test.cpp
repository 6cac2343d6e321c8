// Resource variables as TensorFlow 2's tf.compat.v1 builds them (resource_variable_ops.cc,
// training_ops.cc's ResourceApply*): a VarHandleOp names the variable, ReadVariableOp,
// AssignVariableOp, Assign{Add,Sub}VariableOp and VarIsInitializedOp reach it through the
// handle, with TensorFlow's errors.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <map>
#include <string>
#include <vector>

#include "free_port.hpp"

namespace {

af::Tensor vec(std::vector<float> v) { return af::Tensor::from_vector(v); }

template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(resource_variables_test)

BOOST_AUTO_TEST_CASE(a_handle_is_read_assigned_and_updated_in_place_of_the_variable,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::Output h = af::var_handle_op(g, af::float32, af::PartialShape(af::Shape{2}), "w", "w");
  BOOST_TEST(h.dtype() == af::DType::resource);
  const af::Output read = af::read_variable_op(h, af::float32, "read");
  BOOST_TEST(read.shape().to_string() == "(2,)");  // from the handle's shape
  const af::Operation init = af::assign_variable_op(h, g.constant(vec({1, 2})), "init");
  const af::Operation add = af::assign_add_variable_op(h, g.constant(vec({10, 10})), "add");
  const af::Operation sub = af::assign_sub_variable_op(h, g.constant(vec({1, 1})), "sub");
  const af::Output ready = af::var_is_initialized_op(h, "ready");
  af::Session sess(g);
  BOOST_TEST(!sess.run(ready).scalar<bool>());
  const std::string uninitialized = error_of<af::FailedPreconditionError>([&] { sess.run(read); });
  BOOST_TEST(uninitialized.find(
                 "Could not find variable w. This could mean that the variable has been deleted. "
                 "In TF1, it can also mean the variable is uninitialized.") == 0u);
  sess.run({}, {}, {init});
  BOOST_TEST(sess.run(ready).scalar<bool>());
  BOOST_TEST(sess.run(read).to_vector<float>() == std::vector<float>({1, 2}),
             boost::test_tools::per_element());
  sess.run({}, {}, {add});
  sess.run({}, {}, {sub});
  BOOST_TEST(sess.run(read).to_vector<float>() == std::vector<float>({10, 11}),
             boost::test_tools::per_element());
  // A second handle with the same shared_name is the same variable.
  const af::Output again =
      af::var_handle_op(g, af::float32, af::PartialShape(af::Shape{2}), "w", "w_again");
  af::Session later(g);
  later.run({}, {}, {init});
  BOOST_TEST(later.run(af::read_variable_op(again, af::float32)).to_vector<float>() ==
                 std::vector<float>({1, 2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(wrong_dtypes_and_shapes_fail_as_tensorflows_kernels_do,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  const af::Output h = af::var_handle_op(g, af::float32, af::PartialShape::unknown(), "v");
  const af::Output as_int =
      af::var_handle_op(g, af::int32, af::PartialShape::unknown(), "v", "as_int");
  const af::Operation init = af::assign_variable_op(
      h, g.constant(af::Tensor::from_vector<float>({0, 0, 0, 0, 0, 0}, af::Shape{2, 3})));
  const af::Operation int_assign =
      af::assign_variable_op(as_int, g.constant(af::Tensor::from_vector<std::int32_t>({1, 2})));
  const af::Output int_read = af::read_variable_op(as_int, af::int32);
  const af::Operation checked =
      af::assign_variable_op(h, g.constant(vec({1, 2, 3})), "checked", true);
  const af::Operation reshaped = af::assign_variable_op(h, g.constant(vec({1, 2, 3})), "reshaped");
  af::Session sess(g);
  sess.run({}, {}, {init});
  BOOST_TEST(error_of<af::InvalidArgumentError>([&] {
               sess.run({}, {}, {int_assign});
             }).find("Trying to assign variable with wrong dtype. Expected float got int32") == 0u);
  BOOST_TEST(error_of<af::InvalidArgumentError>([&] {
               sess.run(int_read);
             }).find("Trying to read variable with wrong dtype. Expected int32 got float") == 0u);
  BOOST_TEST(error_of<af::InvalidArgumentError>([&] { sess.run({}, {}, {checked}); })
                 .find("Trying to assign to variable with tensor with wrong shape. Expected [2,3] "
                       "got [3]") == 0u);
  // Without validate_shape (AssignVariableOp's default) the variable takes the new shape.
  sess.run({}, {}, {reshaped});
  BOOST_TEST(sess.run(af::read_variable_op(h, af::float32)).shape().to_string() == "[3]");
  // Graph time: a value that cannot fit the handle's declared shape.
  af::Graph k;
  const af::Output fixed =
      af::var_handle_op(k, af::float32, af::PartialShape(af::Shape{2}), "fixed");
  BOOST_CHECK_THROW(af::assign_add_variable_op(fixed, k.constant(vec({1, 2, 3}))),
                    af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(resource_apply_updates_the_variable_and_its_slots_as_apply_does,
                     *boost::unit_test::timeout(60)) {
  // The same momentum step through ApplyMomentum (reference variables) and
  // ResourceApplyMomentum (handles) gives the same values.
  af::Graph g;
  const af::Output var = af::var_handle_op(g, af::float32, af::PartialShape(af::Shape{3}), "var");
  const af::Output accum =
      af::var_handle_op(g, af::float32, af::PartialShape(af::Shape{3}), "accum");
  const af::Operation init_var = af::assign_variable_op(var, g.constant(vec({1, 2, 3})));
  const af::Operation init_accum =
      af::assign_variable_op(accum, g.constant(vec({0.5f, 0.5f, 0.5f})));
  const af::Operation step =
      g.create_op("ResourceApplyMomentum",
                  {var, accum, g.constant(af::Tensor(0.1f)), g.constant(vec({1, -1, 2})),
                   g.constant(af::Tensor(0.9f))},
                  {{"T", af::float32}, {"use_locking", false}, {"use_nesterov", false}});
  BOOST_TEST(step.node()->num_outputs() == 0);
  af::Variable ref_var = g.variable(vec({1, 2, 3}), {.name = "ref_var"});
  af::Variable ref_accum = g.variable(vec({0.5f, 0.5f, 0.5f}), {.name = "ref_accum"});
  const af::Output ref_step =
      af::apply_momentum(ref_var.ref(), ref_accum.ref(), g.constant(af::Tensor(0.1f)),
                         g.constant(vec({1, -1, 2})), g.constant(af::Tensor(0.9f)));
  af::Session sess(g);
  sess.run({}, {}, {init_var, init_accum, g.global_variables_initializer()});
  sess.run({}, {}, {step, ref_step.op()});
  BOOST_TEST(sess.run(af::read_variable_op(var, af::float32)).to_vector<float>() ==
                 sess.run(ref_var.value()).to_vector<float>(),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(af::read_variable_op(accum, af::float32)).to_vector<float>() ==
                 sess.run(ref_accum.value()).to_vector<float>(),
             boost::test_tools::per_element());
  // A gradient that does not fit the handle's shape is refused when the op is built.
  BOOST_CHECK_THROW(g.create_op("ResourceApplyGradientDescent",
                                {var, g.constant(af::Tensor(0.1f)), g.constant(vec({1, 2}))},
                                {{"T", af::float32}}),
                    af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(a_resource_variables_users_are_placed_with_it,
                     *boost::unit_test::timeout(60)) {
  // The handle's consumers join its colocation group, as TensorFlow's placer puts a
  // resource's users on the resource's device.
  af::Graph g;
  af::Output h, read;
  {
    auto on = g.device("/cpu:1");
    h = af::var_handle_op(g, af::float32, af::PartialShape(af::Shape{}), "pinned");
  }
  read = af::read_variable_op(h, af::float32, "read");
  const af::Operation init = af::assign_variable_op(h, g.constant(af::Tensor(3.0f)), "init");
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Session sess(g, config);
  sess.run({}, {}, {init});
  BOOST_TEST(sess.run(read).scalar<float>() == 3.0f);
  const auto placed = sess.placement();
  BOOST_TEST(placed.at("read").find("CPU:1") != std::string::npos);
  BOOST_TEST(placed.at("init").find("CPU:1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(resource_variables_on_a_ps_task_are_read_and_updated_from_a_worker,
                     *boost::unit_test::timeout(60)) {
  // The handle, its reads and its updates stay on the ps task; only values and gradients
  // cross (the handle itself never leaves its task).
  auto address = [] { return "127.0.0.1:" + std::to_string(af::test::free_port()); };
  af::ClusterSpec cluster{std::map<std::string, std::vector<std::string>>{{"ps", {address()}},
                                                                          {"worker", {address()}}}};
  af::Server ps{cluster, "ps", 0};
  af::Server worker{cluster, "worker", 0};
  af::Graph g;
  af::Output h;
  {
    auto on_ps = g.device("/job:ps/task:0");
    h = af::var_handle_op(g, af::float32, af::PartialShape(af::Shape{2}), "w", "w");
  }
  // The handle's users carry no device: colocation puts them on the ps task (as TensorFlow's
  // resource ops, made under colocate_with(var)); the product runs on the worker.
  const af::Operation init = af::assign_variable_op(h, g.constant(vec({1, 2})), "init");
  const af::Output value = af::read_variable_op(h, af::float32, "read");
  af::Output twice;
  {
    auto on_worker = g.device("/job:worker/task:0");
    twice = af::mul(value, g.constant(af::Tensor(2.0f)));
  }
  const af::Operation step =
      g.create_op("ResourceApplyGradientDescent", {h, g.constant(af::Tensor(0.5f)), twice},
                  {{"T", af::float32}, {"use_locking", false}}, "sgd");
  af::Session sess(g, worker.target());
  sess.run({}, {}, {init});
  BOOST_TEST(sess.run(twice).to_vector<float>() == std::vector<float>({2, 4}),
             boost::test_tools::per_element());
  sess.run({}, {}, {step});  // w -= 0.5 * 2w
  BOOST_TEST(sess.run(af::read_variable_op(h, af::float32)).to_vector<float>() ==
                 std::vector<float>({0, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
