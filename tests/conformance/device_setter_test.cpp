// replica_device_setter and its strategies (the chapter's "Pinning Operations Across Tasks"
// for replicated training; tensorflow/python/training/device_setter_test.py and
// tensorflow/contrib/training/python/training/device_setter_test.py).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <string>

namespace {

// TensorFlow's assertDeviceEqual: both sides in canonical form.
void expect_device(const std::string& expected, const std::string& actual) {
  BOOST_TEST(
      af::DeviceSpec::parse(expected).to_string() == af::DeviceSpec::parse(actual).to_string(),
      "expected device '" << expected << "', got '" << actual << "'");
}

af::Tensor ints(std::vector<std::int32_t> values) { return af::Tensor::from_vector(values); }

const af::ClusterSpec& cluster_spec() {
  static const af::ClusterSpec spec({{"ps", {"ps0:2222", "ps1:2222"}},
                                     {"worker", {"worker0:2222", "worker1:2222", "worker2:2222"}}});
  return spec;
}

const af::ClusterSpec& sun_moon_spec() {
  static const af::ClusterSpec spec(
      {{"sun", {"sun0:2222", "sun1:2222", "sun2:2222"}}, {"moon", {"moon0:2222", "moon1:2222"}}});
  return spec;
}

void expect_variable_on(const std::string& device, const af::Variable& v) {
  expect_device(device, v.op().device());
  expect_device(device, v.initializer().device());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_setter_test)

BOOST_AUTO_TEST_CASE(variables_round_robin_over_ps_tasks_of_the_cluster) {
  af::Graph g;
  af::Variable v, w;
  af::Output a;
  {
    auto scope = g.device(af::replica_device_setter(cluster_spec()));
    v = g.variable(ints({1, 2}));
    w = g.variable(ints({2, 1}));
    a = af::add(v, w);
  }
  expect_variable_on("/job:ps/task:0", v);
  expect_variable_on("/job:ps/task:1", w);
  expect_device("/job:worker", a.op().device());
  // A third variable wraps around.
  auto scope = g.device(af::replica_device_setter(cluster_spec()));
  auto x = g.variable(ints({0}));
  auto y = g.variable(ints({0}));
  auto z = g.variable(ints({0}));
  expect_variable_on("/job:ps/task:0", x);
  expect_variable_on("/job:ps/task:1", y);
  expect_variable_on("/job:ps/task:0", z);
}

BOOST_AUTO_TEST_CASE(inner_cpu_scope_merges_with_the_setters_devices) {
  af::Graph g;
  auto setter = g.device(af::replica_device_setter(cluster_spec()));
  af::Variable v;
  {
    auto cpu = g.device("/cpu:0");
    v = g.variable(ints({1, 2}));
  }
  auto w = g.variable(ints({2, 1}));
  af::Output a;
  {
    auto cpu = g.device("/cpu:0");
    a = af::add(v, w);
  }
  expect_variable_on("/job:ps/task:0/cpu:0", v);
  expect_variable_on("/job:ps/task:1", w);
  expect_device("/job:worker/cpu:0", a.op().device());
}

BOOST_AUTO_TEST_CASE(
    a_variable_pinned_to_another_job_stays_there_and_an_explicit_ps_job_gets_a_task) {
  af::Graph g;
  auto setter = g.device(af::replica_device_setter(cluster_spec()));
  auto v = g.variable(ints({1, 2}));
  af::Variable w, x;
  {
    auto moon = g.device("/job:moon");
    w = g.variable(ints({2, 1}));
    auto ps = g.device("/job:ps");
    x = g.variable(ints({0, 1}));
  }
  auto a = af::add(af::add(v, w), x);
  expect_variable_on("/job:ps/task:0", v);
  expect_variable_on("/job:moon", w);  // and the strategy did not advance for it
  expect_variable_on("/job:ps/task:1", x);
  expect_device("/job:worker", a.op().device());
}

BOOST_AUTO_TEST_CASE(a_ps_device_without_job_gets_no_task) {
  af::Graph g;
  auto setter = g.device(af::replica_device_setter({.ps_tasks = 1, .ps_device = "/cpu:0"}));
  auto v = g.variable(ints({1, 2}));
  af::Variable w;
  {
    auto moon = g.device("/job:moon");
    w = g.variable(ints({2, 1}));
  }
  auto a = af::add(v, w);
  expect_variable_on("/cpu:0", v);
  expect_variable_on("/job:moon/cpu:0", w);
  expect_device("/job:worker", a.op().device());
}

BOOST_AUTO_TEST_CASE(without_merging_an_inner_device_is_kept_as_is) {
  af::Graph g;
  auto setter = g.device(af::replica_device_setter(cluster_spec(), {.merge_devices = false}));
  auto v = g.variable(ints({1, 2}));
  af::Variable w;
  {
    auto ps = g.device("/job:ps");  // no task assigned without merging
    w = g.variable(ints({2, 1}));
  }
  auto a = af::add(v, w);
  expect_variable_on("/job:ps/task:0", v);
  expect_variable_on("/job:ps", w);
  expect_device("/job:worker", a.op().device());
}

BOOST_AUTO_TEST_CASE(custom_ps_and_worker_jobs) {
  af::Graph g;
  auto setter = g.device(af::replica_device_setter(
      sun_moon_spec(), {.ps_device = "/job:moon", .worker_device = "/job:sun"}));
  auto v = g.variable(ints({1, 2}));
  auto w = g.variable(ints({2, 1}));
  auto a = af::add(v, w);
  expect_variable_on("/job:moon/task:0", v);
  expect_variable_on("/job:moon/task:1", w);
  expect_device("/job:sun", a.op().device());
}

BOOST_AUTO_TEST_CASE(a_ps_device_with_cpu_constraint_keeps_it) {
  af::Graph g;
  auto setter = g.device(af::replica_device_setter(
      sun_moon_spec(), {.ps_device = "/job:moon/cpu:0", .worker_device = "/job:sun"}));
  auto v = g.variable(ints({1, 2}));
  auto w = g.variable(ints({2, 1}));
  auto a = af::add(v, w);
  expect_variable_on("/job:moon/task:0/cpu:0", v);
  expect_variable_on("/job:moon/task:1/cpu:0", w);
  expect_device("/job:sun", a.op().device());
}

BOOST_AUTO_TEST_CASE(no_ps_tasks_gives_a_function_that_clears_enclosing_scopes) {
  // TensorFlow returns None, and tf.device(None) clears the device stack.
  BOOST_TEST(!af::replica_device_setter(af::ReplicaDeviceSetterOptions{}));
  BOOST_TEST(!af::replica_device_setter(sun_moon_spec()));  // no "ps" job in the cluster
  af::Graph g;
  auto outer = g.device("/job:worker/task:1");
  auto setter = g.device(af::replica_device_setter(sun_moon_spec()));
  auto v = g.variable(ints({1}));
  BOOST_TEST(v.op().device() == "");
}

BOOST_AUTO_TEST_CASE(ps_ops_selects_which_ops_go_to_ps_tasks) {
  af::Graph g;
  auto setter = g.device(
      af::replica_device_setter(cluster_spec(), {.ps_ops = std::vector<std::string>{"Const"}}));
  auto c = g.constant(ints({1}));
  auto v = g.variable(ints({2}));
  expect_device("/job:ps/task:0", c.op().device());
  expect_device("/job:worker", v.op().device());
}

BOOST_AUTO_TEST_CASE(malformed_ps_device_is_invalid_argument) {
  BOOST_CHECK_THROW(af::replica_device_setter({.ps_tasks = 1, .ps_device = "/job:ps/nonsense:x"}),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::RoundRobinStrategy(0), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(greedy_with_uniform_load_equals_round_robin) {
  af::Graph g;
  af::GreedyLoadBalancingStrategy greedy(2, [](const af::NodeDef&) { return 1.0; });
  auto setter = g.device(af::replica_device_setter(cluster_spec(), {.ps_strategy = greedy}));
  auto u = g.variable(af::zeros(g, af::Shape({2, 2})));
  auto v = g.variable(af::zeros(g, af::Shape({2, 1})));
  auto w = g.variable(af::zeros(g, af::Shape({2, 2})));
  auto x = g.variable(af::zeros(g, af::Shape({1, 3})));
  auto a = af::add(v, w);
  expect_variable_on("/job:ps/task:0", u);
  expect_variable_on("/job:ps/task:1", v);
  expect_variable_on("/job:ps/task:0", w);
  expect_variable_on("/job:ps/task:1", x);
  expect_device("/job:worker", a.op().device());
  BOOST_TEST(greedy.loads() == (std::vector<double>{2.0, 2.0}));
}

BOOST_AUTO_TEST_CASE(greedy_by_byte_size_places_on_the_least_loaded_task) {
  af::Graph g;
  af::GreedyLoadBalancingStrategy greedy(2, af::byte_size_load_fn);
  auto setter = g.device(af::replica_device_setter(cluster_spec(), {.ps_strategy = greedy}));
  auto u = g.variable(af::zeros(g, af::Shape({2, 2})));  // 16 bytes -> 0 (16, 0)
  auto v = g.variable(af::zeros(g, af::Shape({2, 1})));  //  8 bytes -> 1 (16, 8)
  auto w = g.variable(af::zeros(g, af::Shape({2, 2})));  // 16 bytes -> 1 (16, 24)
  auto x = g.variable(af::zeros(g, af::Shape({1, 3})));  // 12 bytes -> 0 (28, 24)
  auto a = af::add(v, w);
  expect_variable_on("/job:ps/task:0", u);
  expect_variable_on("/job:ps/task:1", v);
  expect_variable_on("/job:ps/task:1", w);
  expect_variable_on("/job:ps/task:0", x);
  expect_device("/job:worker", a.op().device());
  BOOST_TEST(greedy.loads() == (std::vector<double>{28.0, 24.0}));
}

BOOST_AUTO_TEST_CASE(byte_size_of_a_scalar_variable_is_its_element_size) {
  af::Graph g;
  af::GreedyLoadBalancingStrategy greedy(2, af::byte_size_load_fn);
  auto setter = g.device(af::replica_device_setter(cluster_spec(), {.ps_strategy = greedy}));
  auto u = g.variable(af::Tensor::from_vector<std::int32_t>({0}, af::Shape({})));
  expect_variable_on("/job:ps/task:0", u);
  BOOST_TEST(greedy.loads() == (std::vector<double>{4.0, 0.0}));
}

BOOST_AUTO_TEST_CASE(byte_size_of_an_op_without_a_shape_is_invalid_argument) {
  af::NodeDef node{.name = "c", .op = "Const"};
  BOOST_CHECK_EXCEPTION(af::byte_size_load_fn(node), af::InvalidArgumentError,
                        [](const af::InvalidArgumentError& e) {
                          return std::string(e.what()).find("'c' (Const)") != std::string::npos;
                        });
}

// TensorFlow's callable initial value (get_variable): the initializer's ops carry no device
// of their own and `_class: loc:@<variable>`, so the placer puts them on the variable's ps
// task; the variable and its Assign go where the setter says.
BOOST_AUTO_TEST_CASE(a_callable_initial_value_is_built_colocated_with_its_variable) {
  af::Graph g;
  auto scope = g.device(af::replica_device_setter(cluster_spec()));
  g.variable(ints({0}));  // takes ps task 0
  af::Variable v = g.variable(
      [](af::Graph& graph) {
        return af::random_uniform(graph, af::Shape{4, 3}, af::DType::float32, -1, 1, {},
                                  "random_uniform");
      },
      {.name = "table"});
  expect_variable_on("/job:ps/task:1", v);
  BOOST_TEST(v.name() == "table");
  for (const char* name :
       {"table/Initializer/random_uniform/RandomUniform", "table/Initializer/random_uniform"}) {
    const af::Operation op = g.operation(name);
    BOOST_TEST(op.device().empty(), name << " on " << op.device());
    BOOST_TEST(op.node()->colocation_names() == std::vector<std::string>{"table"},
               boost::test_tools::per_element());
  }
  // The Assign reads the initial value built in that scope.
  BOOST_TEST(v.initial_value().op().name() == "table/Initializer/random_uniform");
}

BOOST_AUTO_TEST_SUITE_END()
