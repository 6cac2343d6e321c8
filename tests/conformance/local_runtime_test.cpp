// TensorFlow 1.x behaviour of a local session, as the chapter "Distributing TensorFlow
// Across Devices and Servers" describes it (sections cited per case).
#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <map>
#include <string>

#include "log_capture.hpp"
#include "matchers.hpp"

using namespace std::chrono_literals;

namespace {

const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

using af::test::contains;

}  // namespace

BOOST_AUTO_TEST_SUITE(local_runtime_test)

// "Logging placements": a and b pinned to /cpu:0, c unpinned; every node is logged once,
// on the first run; sess.run(c) gives 12 and places nothing again.
BOOST_AUTO_TEST_CASE(placement_is_logged_once_and_c_evaluates_to_12,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable a;
  af::Output b;
  {
    auto on_cpu = g.device("/cpu:0");
    a = g.variable(3.0f, {.name = "a"});
    b = g.constant(4.0f, "b");
  }
  af::Output c = a * b;
  BOOST_TEST(c.op().name() == "mul");
  BOOST_TEST(c.op().device() == "");
  af::test::LogCapture log;
  af::SessionConfig config;
  config.log_device_placement = true;
  af::Session sess(g, "", config);
  sess.run(a.initializer());
  auto lines = log.take();
  for (auto name : {"a", "a/initial_value", "a/Assign", "a/read", "b", "mul"})
    BOOST_TEST(std::count(lines.begin(), lines.end(), std::string(name) + ": " + kCpu0) == 1,
               "placement of " << name);
  BOOST_TEST(sess.run(c).scalar<float>() == 12.0f);
  BOOST_TEST(log.take().empty(), "the second run places nothing");
}

// "Control Dependencies": x and y are evaluated only after a and b.
BOOST_AUTO_TEST_CASE(control_dependencies_order_execution, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output a = g.constant(1.0f, "a");
  af::Output b = a + 2.0f;
  af::Output x, y;
  {
    auto deps = g.control_dependencies({a.op(), b.op()});
    x = g.constant(3.0f, "x");
    y = g.constant(4.0f, "y");
  }
  af::Output z = x + y;
  BOOST_TEST(x.op().node_def().inputs == (std::vector<std::string>{"^a", "^add"}));
  af::Session sess(g);
  af::RunMetadata meta;
  for (int i = 0; i < 5; ++i) {
    auto r = sess.run({z}, {}, {}, {.trace = true}, &meta);
    BOOST_TEST(r[0].scalar<float>() == 7.0f);
    std::map<std::string, af::NodeExecStats> by_name;
    for (auto& s : meta.step_stats) by_name[s.node_name] = s;
    BOOST_REQUIRE(by_name.count("a") && by_name.count("add") && by_name.count("x") &&
                  by_name.count("y"));
    for (auto dep : {"a", "add"})
      for (auto after : {"x", "y"})
        BOOST_TEST(by_name[after].start_us >= by_name[dep].end_us, after << " after " << dep);
  }
}

// "Dynamic placement function": variables to /cpu:0, everything else to /gpu:0.
BOOST_AUTO_TEST_CASE(device_functions_choose_devices_per_op, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Variable a;
  af::Output b, c;
  {
    auto scope = g.device([](const af::NodeDef& n) -> std::string {
      return n.op == "VariableV2" ? "/cpu:0" : "/gpu:0";
    });
    a = g.variable(3.0f, {.name = "a"});
    b = g.constant(4.0f, "b");
    c = a * b;
  }
  // TensorFlow stores a device function's result as returned (Operation._set_device).
  BOOST_TEST(a.op().device() == "/cpu:0");
  BOOST_TEST(b.op().device() == "/gpu:0");
  BOOST_TEST(c.op().device() == "/gpu:0");
}

// "Pinning Operations Across Tasks": nested device blocks merge partial specs.
BOOST_AUTO_TEST_CASE(nested_device_blocks_merge_partial_specs, *boost::unit_test::timeout(30)) {
  af::Graph g;
  af::Output a, b, c;
  {
    auto worker = g.device("/job:worker");
    a = g.constant(1.0f, "a");
    {
      auto gpu1 = g.device("/gpu:1");
      b = g.constant(2.0f, "b");
      {
        auto task1 = g.device("/task:1");
        c = g.constant(3.0f, "c");
      }
    }
  }
  BOOST_TEST(a.op().device() == "/job:worker");
  BOOST_TEST(b.op().device() == "/job:worker/device:GPU:1");
  BOOST_TEST(c.op().device() == "/job:worker/task:1/device:GPU:1");
}

// "Operations and kernels" / "Soft placement": an int32 variable pinned to /gpu:0 cannot be
// placed in a process without that device; allow_soft_placement falls back to the CPU.
BOOST_AUTO_TEST_CASE(unsatisfiable_pin_is_invalid_argument_unless_soft_placement,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Variable i;
  {
    auto gpu = g.device("/gpu:0");
    i = g.variable(af::Tensor(3), {.name = "Variable"});
  }
  {
    af::Session sess(g);
    try {
      sess.run(i.initializer());
      BOOST_FAIL("expected InvalidArgumentError");
    } catch (const af::InvalidArgumentError& e) {
      std::string m = e.what();
      BOOST_TEST(contains(m, "Cannot assign a device for operation"));
      BOOST_TEST(contains(m, "Variable"));
      BOOST_TEST(contains(m, "Could not satisfy explicit device specification '/device:GPU:0'"));
      BOOST_TEST(contains(m, kCpu0));
    }
  }
  af::SessionConfig config;
  config.allow_soft_placement = true;
  af::Session soft(g, config);
  soft.run(i.initializer());
  BOOST_TEST(soft.run(i.value()).scalar<std::int32_t>() == 3);
  BOOST_TEST(soft.placement().at("Variable") == kCpu0);
}

// "Simple placement": a node placed in an earlier run stays where it was.
BOOST_AUTO_TEST_CASE(placement_persists_across_runs, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Output a = g.constant(1.0f, "a");
  af::Session sess(g, config);
  BOOST_TEST(sess.list_devices().size() == 2u);
  sess.run(a);
  BOOST_TEST(sess.placement().at("a") == kCpu0);
  af::Output b;
  {
    auto cpu1 = g.device("/cpu:1");
    b = a + 1.0f;  // a stays on CPU:0; b goes to CPU:1 through a send/recv pair
  }
  BOOST_TEST(sess.run(b).scalar<float>() == 2.0f);
  auto placement = sess.placement();
  BOOST_TEST(placement.at("a") == kCpu0);
  BOOST_TEST(placement.at("add") == "/job:localhost/replica:0/task:0/device:CPU:1");
}

// Variables: uninitialized reads fail naming the variable; assign/assign_add/assign_sub.
BOOST_AUTO_TEST_CASE(variables_initialize_assign_and_fail_when_uninitialized,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto v = g.variable(af::Tensor::from_vector<float>({1, 2}), {.name = "v"});
  auto add = v.assign_add(g.constant(af::Tensor::from_vector<float>({10, 10})));
  auto sub = v.assign_sub(g.constant(af::Tensor::from_vector<float>({1, 1})));
  auto set = v.assign(g.constant(af::Tensor::from_vector<float>({5, 6})));
  af::Session sess(g);
  try {
    sess.run(v.value());
    BOOST_FAIL("expected FailedPreconditionError");
  } catch (const af::FailedPreconditionError& e) {
    BOOST_TEST(contains(e.what(), "Attempting to use uninitialized value v"));
  }
  sess.run(g.global_variables_initializer());
  BOOST_TEST(sess.run(add).to_vector<float>() == (std::vector<float>{11, 12}));
  BOOST_TEST(sess.run(sub).to_vector<float>() == (std::vector<float>{10, 11}));
  BOOST_TEST(sess.run(v.value()).to_vector<float>() == (std::vector<float>{10, 11}));
  BOOST_TEST(sess.run(set).to_vector<float>() == (std::vector<float>{5, 6}));
}

// "as soon as it ends, all variable values are lost".
BOOST_AUTO_TEST_CASE(variable_values_end_with_the_session, *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto v = g.variable(1.0f, {.name = "x"});
  {
    af::Session sess(g);
    sess.run(v.initializer());
    BOOST_TEST(sess.run(v.value()).scalar<float>() == 1.0f);
  }
  af::Session fresh(g);
  BOOST_CHECK_THROW(fresh.run(v.value()), af::FailedPreconditionError);
}

// Feeds: placeholders by dtype and shape.
BOOST_AUTO_TEST_CASE(placeholders_must_be_fed_with_matching_dtype_and_shape,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output x = g.placeholder(af::float32, {-1, 2}, "x");
  af::Output y = x * 2.0f;
  af::Session sess(g);
  auto r = sess.run(y, {{x, af::Tensor::from_vector<float>({1, 2, 3, 4}, af::Shape{2, 2})}});
  BOOST_TEST(r.to_vector<float>() == (std::vector<float>{2, 4, 6, 8}));
  try {
    sess.run(y);
    BOOST_FAIL("expected InvalidArgumentError");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(
        contains(e.what(), "You must feed a value for placeholder tensor 'x' with dtype float"));
  }
  try {
    sess.run(y, {{x, af::Tensor::from_vector<std::int32_t>({1, 2})}});
    BOOST_FAIL("expected InvalidArgumentError");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(contains(e.what(), "'x:0'"));
  }
  try {
    sess.run(y, {{x, af::Tensor::from_vector<float>({1, 2, 3})}});
    BOOST_FAIL("expected InvalidArgumentError");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(contains(e.what(), "Cannot feed value of shape (3,) for Tensor 'x:0'"));
  }
}

// RunOptions.timeout_in_ms ends a step with DeadlineExceeded; the session stays usable.
BOOST_AUTO_TEST_CASE(step_deadline_is_deadline_exceeded_and_session_stays_usable,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Output a = g.constant(1.0f, "a");
  af::Output slow = af::delay(a, 30s);
  af::Output across;
  {
    auto cpu1 = g.device("/cpu:1");
    across = slow + 1.0f;  // CPU:1 waits in a recv for CPU:0's delayed value
  }
  af::Session sess(g, config);
  auto start = std::chrono::steady_clock::now();
  BOOST_CHECK_THROW(sess.run({across}, {}, {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
  BOOST_TEST((std::chrono::steady_clock::now() - start) < 10s);
  BOOST_TEST(sess.run(a + 2.0f).scalar<float>() == 3.0f);
  af::SessionConfig op_timeout = config;
  op_timeout.operation_timeout_in_ms = 50;
  af::Session sess2(g, op_timeout);
  BOOST_CHECK_THROW(sess2.run(slow), af::DeadlineExceededError);
}

// A failing kernel's error reaches the client and the step is cancelled everywhere.
BOOST_AUTO_TEST_CASE(first_error_wins_and_cancels_other_devices, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::SessionConfig config;
  config.device_count["CPU"] = 2;
  af::Output p = g.placeholder(af::float32, {}, "p");
  af::Output waiting;
  {
    auto cpu1 = g.device("/cpu:1");
    waiting = af::delay(g.constant(1.0f, "one"), 30s) + p;
  }
  af::Session sess(g, config);
  auto start = std::chrono::steady_clock::now();
  try {
    sess.run(waiting);
    BOOST_FAIL("expected InvalidArgumentError");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(contains(e.what(), "placeholder tensor 'p'"));
  }
  BOOST_TEST((std::chrono::steady_clock::now() - start) < 10s);
}

// Tensors of every supported dtype flow through a session; bfloat16 rounds to nearest even.
BOOST_AUTO_TEST_CASE(every_dtype_flows_through_a_session, *boost::unit_test::timeout(60)) {
  af::Graph g;
  std::vector<af::Tensor> values{
      af::Tensor::from_vector<float>({1.5f, -2}),
      af::Tensor::from_vector<double>({0.25}),
      af::Tensor::from_vector<std::int32_t>({7, 8, 9}),
      af::Tensor::from_vector<std::int64_t>({1LL << 40}),
      af::Tensor::from_vector<std::uint8_t>({255}),
      af::Tensor::from_vector<bool>({true, false}),
      af::Tensor::from_vector<std::string>({"ab", std::string("c\0d", 3)}),
      af::Tensor(af::bfloat16_t(1.0f))};
  std::vector<af::Output> outs;
  for (auto& v : values) outs.push_back(af::identity(g.constant(v)));
  af::Output rounded = af::cast(af::cast(g.constant(1.00390625f), af::bfloat16), af::float32);
  outs.push_back(rounded);
  af::Session sess(g);
  auto r = sess.run(outs);
  for (std::size_t i = 0; i < values.size(); ++i)
    BOOST_TEST((r[i] == values[i]), "dtype " << values[i].dtype());
  // 1 + 2^-8 lies exactly between two bfloat16 values: ties go to the even one, 1.0.
  BOOST_TEST(r.back().scalar<float>() == 1.0f);
  BOOST_TEST(r[5].to_string() == "[ True False]");
}

// tf.reduce_sum(x, axis=None) reduces everything; axis=[] reduces nothing.
BOOST_AUTO_TEST_CASE(reduction_over_no_axes_is_identity_and_over_none_is_total,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::Output x = g.constant(af::Tensor::from_vector<float>({1, 2, 3, 4}, af::Shape{2, 2}));
  af::Session sess(g);
  auto r = sess.run({af::reduce_sum(x), af::reduce_sum(x, std::vector<std::int64_t>{}),
                     af::reduce_mean(x, std::vector<std::int64_t>{-1}, true)});
  BOOST_TEST(r[0].scalar<float>() == 10.0f);
  BOOST_TEST(r[1].to_vector<float>() == (std::vector<float>{1, 2, 3, 4}));
  BOOST_TEST(r[1].shape() == (af::Shape{2, 2}));
  BOOST_TEST(r[2].to_vector<float>() == (std::vector<float>{1.5f, 3.5f}));
  BOOST_TEST(r[2].shape() == (af::Shape{2, 1}));
}

// logging_ops.cc AssertOp: a false condition fails the step with InvalidArgument
// "assertion failed: " and each data tensor's first `summarize` elements (Tensor::
// SummarizeValue: space-separated, "..." when cut, strings C-escaped); a true one passes.
BOOST_AUTO_TEST_CASE(assert_fails_the_step_with_its_data_summarized,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  auto flag = g.placeholder(af::DType::boolean, af::PartialShape{}, "flag");
  auto check =
      af::assert_that(flag, {g.constant(af::Tensor(std::string("x is \"bad\"\n"))),
                             g.constant(af::Tensor::from_vector<std::int32_t>({1, 2, 3, 4})),
                             g.constant(af::Tensor::from_vector<float>({1.5f, 2.0f, 0.1f}))});
  af::Session sess(g);
  BOOST_CHECK_NO_THROW(sess.run(check, {{flag, af::Tensor(true)}}));
  try {
    sess.run(check, {{flag, af::Tensor(false)}});
    BOOST_FAIL("expected InvalidArgument");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(
        std::string(e.what()).find(
            "assertion failed: [x is \\\"bad\\\"\\n] [1 2 3...] [1.5 2 0.1]") != std::string::npos,
        e.what());
  }
  auto msg = af::test::construction_error([&] {
    (void)af::assert_that(g.constant(af::Tensor::from_vector<bool>({true, false})), {});
  });
  BOOST_TEST(msg.find("Shape must be rank 0 but is rank 1") != std::string::npos, msg);
}

BOOST_AUTO_TEST_SUITE_END()
