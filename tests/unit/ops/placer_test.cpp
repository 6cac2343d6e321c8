#include "actorflow/ops/placer.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>

#include "actorflow/kernels/cpu_kernels.hpp"
#include "actorflow/ops/gradients.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"

namespace {

const std::string kCpu = "/job:localhost/replica:0/task:0/device:CPU:0";
const std::string kGpu = "/job:localhost/replica:0/task:0/device:GPU:0";

class FakeKernel : public af::OpKernel {
 public:
  using OpKernel::OpKernel;
  void compute(af::OpKernelContext&) override {}
};

/// GPU registrations as TensorFlow has them for these ops: float variables and their
/// reads/assigns have GPU kernels, int32 ones do not (variable_ops.cc registers
/// TF_CALL_GPU_NUMBER_TYPES + int64 + ... but not int32).
void register_fake_gpu_kernels() {
  static bool done = [] {
    auto& r = af::KernelRegistry::global();
    std::vector<af::DType> gpu_types{af::float32, af::float64, af::int64};
    r.add(af::make_kernel_def<FakeKernel>("VariableV2", "GPU", {{"dtype", gpu_types}}));
    r.add(af::make_kernel_def<FakeKernel>("Assign", "GPU", {{"T", gpu_types}}));
    r.add(af::make_kernel_def<FakeKernel>("Identity", "GPU", {{"T", gpu_types}}));
    r.add(af::make_kernel_def<FakeKernel>("Const", "GPU"));
    r.add(af::make_kernel_def<FakeKernel>("Mul", "GPU", {{"T", gpu_types}}));
    return true;
  }();
  (void)done;
}

std::vector<af::DeviceAttributes> cpu_and_gpu() {
  return {{kCpu, "CPU", "host", 0}, {kGpu, "GPU", "fake GPU", 0}};
}

std::vector<const af::Node*> all_nodes(const af::Graph& g) {
  auto nodes = g.nodes();
  return {nodes.begin(), nodes.end()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(placer_test)

// Simple placement: "it defaults to GPU #0, or the CPU if there is no GPU".
BOOST_AUTO_TEST_CASE(unpinned_nodes_default_to_gpu0_when_it_has_a_kernel) {
  register_fake_gpu_kernels();
  af::Graph g;
  auto a = g.constant(1.0f, "a");
  (void)(a * a);
  af::Placement placement;
  BOOST_REQUIRE(af::place_nodes(all_nodes(g), cpu_and_gpu(), {}, af::KernelRegistry::global(),
                                &placement, nullptr)
                    .ok());
  BOOST_TEST(placement.at("a") == kGpu);
  BOOST_TEST(placement.at("mul") == kGpu);
}

// "Operations and kernels": no GPU kernel for an int32 variable.
BOOST_AUTO_TEST_CASE(int32_variable_pinned_to_gpu_is_invalid_argument_naming_op_and_devices) {
  register_fake_gpu_kernels();
  af::Graph g;
  {
    auto gpu = g.device("/gpu:0");
    g.variable(af::Tensor(3), {.name = "Variable"});
  }
  af::Placement placement;
  af::Status s = af::place_nodes(all_nodes(g), cpu_and_gpu(), {}, af::KernelRegistry::global(),
                                 &placement, nullptr);
  BOOST_TEST(s.code() == af::Code::invalid_argument);
  BOOST_TEST(s.message().find("Cannot assign a device for operation Variable") != std::string::npos,
             s.message());
  BOOST_TEST(s.message().find("'/device:GPU:0'") != std::string::npos);
  BOOST_TEST(s.message().find("no supported kernel for GPU devices") != std::string::npos);
  BOOST_TEST(s.message().find(kCpu) != std::string::npos, "names the device with a kernel");
}

// "Soft placement": falls back to the CPU; the variable's assign and read follow it.
BOOST_AUTO_TEST_CASE(soft_placement_falls_back_to_cpu_and_keeps_colocation) {
  register_fake_gpu_kernels();
  af::Graph g;
  {
    auto gpu = g.device("/gpu:0");
    g.variable(af::Tensor(3), {.name = "Variable"});
  }
  af::Placement placement;
  af::PlacerOptions soft{.allow_soft_placement = true};
  BOOST_REQUIRE(af::place_nodes(all_nodes(g), cpu_and_gpu(), soft, af::KernelRegistry::global(),
                                &placement, nullptr)
                    .ok());
  BOOST_TEST(placement.at("Variable") == kCpu);
  BOOST_TEST(placement.at("Variable/Assign") == kCpu);
  BOOST_TEST(placement.at("Variable/read") == kCpu);
}

// "If a node was already placed on a device in a previous run, it is left on that device."
BOOST_AUTO_TEST_CASE(previously_placed_nodes_stay_and_pull_their_colocation_group) {
  register_fake_gpu_kernels();
  af::Graph g;
  g.variable(1.0f, {.name = "v"});
  af::Placement placement{{"v", kCpu}};
  std::vector<std::string> newly;
  BOOST_REQUIRE(af::place_nodes(all_nodes(g), cpu_and_gpu(), {}, af::KernelRegistry::global(),
                                &placement, &newly)
                    .ok());
  BOOST_TEST(placement.at("v") == kCpu);
  BOOST_TEST(placement.at("v/read") == kCpu, "colocated with the variable");
  BOOST_TEST(placement.at("v/Assign") == kCpu);
  // Not colocated, but a generator whose only consumer (v/Assign) is on the CPU goes there
  // (placer.cc's heuristic A).
  BOOST_TEST(placement.at("v/initial_value") == kCpu);
  BOOST_TEST(std::count(newly.begin(), newly.end(), "v") == 0);
}

// TensorFlow's placer (placer.cc, FilterSupportedDevices): parts a spec omits match any
// device, and the first match by type priority and then full name wins, whichever task is
// the master: an unpinned node goes to the cluster's first device (a GPU of the ps job
// here), `/cpu:0` to the first CPU of the cluster. A constant goes with its consumers, a
// Shape with its input.
BOOST_AUTO_TEST_CASE(omitted_device_parts_match_any_device_and_the_first_sorted_one_wins) {
  register_fake_gpu_kernels();
  const std::string ps0 = "/job:ps/replica:0/task:0/device:CPU:0";
  const std::string ps1_cpu = "/job:ps/replica:0/task:1/device:CPU:0";
  const std::string ps1_gpu = "/job:ps/replica:0/task:1/device:GPU:0";
  const std::string w0 = "/job:worker/replica:0/task:0/device:CPU:0";
  const std::string w1_cpu = "/job:worker/replica:0/task:1/device:CPU:0";
  const std::string w1_gpu = "/job:worker/replica:0/task:1/device:GPU:0";
  std::vector<af::DeviceAttributes> devices{{ps0, "CPU", "", 0},     {ps1_cpu, "CPU", "", 0},
                                            {ps1_gpu, "GPU", "", 0}, {w0, "CPU", "", 0},
                                            {w1_cpu, "CPU", "", 0},  {w1_gpu, "GPU", "", 0}};
  af::Graph g;
  g.constant(1.0f, "unpinned");
  {
    auto pin = g.device("/job:ps");
    g.constant(1.0f, "job_only");  // ps task 1's GPU: GPUs come first
  }
  {
    auto pin = g.device("/job:ps/task:1");
    g.constant(1.0f, "task_default");  // the task's default device: its GPU
  }
  {
    auto pin = g.device("/cpu:0");
    g.constant(1.0f, "device_only");  // the first CPU of the cluster
  }
  {
    auto pin = g.device("/job:ps/task:1/cpu:0");
    g.constant(1.0f, "full");
  }
  auto feeds = g.placeholder(af::float32, af::PartialShape{-1}, "feeds_w1");  // a generator too
  af::Output doubled;
  {
    auto pin = g.device("/job:worker/task:1/cpu:0");
    doubled = af::identity(feeds * 2.0f, "doubled_on_w1");
  }
  {
    auto pin = g.device("/job:worker/task:0");
    af::identity(doubled, "on_w0");
  }
  af::shape(doubled, af::int32, "shape_of_doubled");  // unpinned metadata: with its input
  af::Placement placement;
  BOOST_REQUIRE(
      af::place_nodes(all_nodes(g), devices, {}, af::KernelRegistry::global(), &placement, nullptr)
          .ok());
  BOOST_TEST(placement.at("unpinned") == ps1_gpu);
  BOOST_TEST(placement.at("job_only") == ps1_gpu);
  BOOST_TEST(placement.at("task_default") == ps1_gpu);
  BOOST_TEST(placement.at("device_only") == ps0);
  BOOST_TEST(placement.at("full") == ps1_cpu);
  BOOST_TEST(placement.at("doubled_on_w1") == w1_cpu);
  BOOST_TEST(placement.at("feeds_w1") == w1_cpu);
  BOOST_TEST(placement.at("shape_of_doubled") == w1_cpu);
  BOOST_TEST(placement.at("on_w0") == w0);
  // The same graph placed from another master's point of view places the same way.
  af::Placement again;
  BOOST_REQUIRE(
      af::place_nodes(all_nodes(g), devices, {}, af::KernelRegistry::global(), &again, nullptr)
          .ok());
  BOOST_TEST((again == placement));
  af::PlacerOptions options;
  // A task that does not exist is an error naming the requested spec.
  af::Graph bad;
  {
    auto pin = bad.device("/job:ps/task:7");
    bad.constant(1.0f, "nowhere");
  }
  af::Placement none;
  af::Status s = af::place_nodes(all_nodes(bad), devices, options, af::KernelRegistry::global(),
                                 &none, nullptr);
  BOOST_TEST(s.code() == af::Code::invalid_argument);
  BOOST_TEST(s.message().find("'/job:ps/task:7'") != std::string::npos, s.message());
}

// -- tf.group's placement (control_flow_ops.group) ------------------------------------------

BOOST_AUTO_TEST_CASE(group_places_its_noop_on_the_device_its_inputs_share) {
  af::Graph g;
  af::Operation a, b;
  {
    auto on = g.device("/job:worker/task:0");
    a = g.no_op("a");
    b = g.no_op("b");
  }
  auto on_ps = g.device("/job:ps/task:0");  // the enclosing scope does not win over the inputs'
  af::Operation group = g.group({a, b}, "grouped");
  BOOST_TEST(group.name() == "grouped");
  BOOST_TEST(group.node()->def().device == "/job:worker/task:0");
}

BOOST_AUTO_TEST_CASE(
    group_of_ops_on_two_devices_gives_one_noop_per_device_and_a_root_in_the_current_scope) {
  af::Graph g;
  af::Operation on_ps, on_worker;
  {
    auto on = g.device("/job:ps/task:0");
    on_ps = g.no_op("p");
  }
  {
    auto on = g.device("/job:worker/task:0");
    on_worker = g.no_op("w");
  }
  af::Operation group = g.group({on_worker, on_ps});
  BOOST_TEST(group.name() == "group_deps");
  BOOST_TEST(group.node()->def().device.empty());
  // The per-device NoOps, sorted by device, as TensorFlow names them.
  const auto& deps = group.node()->def().inputs;
  BOOST_REQUIRE(deps.size() == 2u);
  BOOST_TEST(deps[0] == "^group_deps/NoOp");
  BOOST_TEST(deps[1] == "^group_deps/NoOp_1");
  BOOST_TEST(g.operation("group_deps/NoOp").node()->def().device == "/job:ps/task:0");
  BOOST_TEST(g.operation("group_deps/NoOp_1").node()->def().device == "/job:worker/task:0");
}

BOOST_AUTO_TEST_CASE(gradient_tuples_stay_on_the_worker_when_the_variables_are_on_a_ps) {
  // Between-graph training: variables on the ps, the model on the worker. Each gradient's
  // tuple NoOp must be on the worker, or every layer's gradients wait for a ps round trip.
  af::Graph g;
  af::Output w;
  {
    auto on = g.device("/job:ps/task:0");
    w = g.variable(af::Tensor::from_vector<float>({1.0f, 2.0f}), {.name = "w"}).value();
  }
  auto on = g.device("/job:worker/task:0");
  auto x = g.placeholder(af::float32, af::PartialShape{2}, "x");
  auto y = af::reduce_sum(x * w + x);
  af::GradientsOptions gated;
  gated.gate_gradients = true;  // as the optimizers compute them (GATE_OP)
  auto grads = af::gradients({y}, {w, x}, {}, gated);
  BOOST_REQUIRE(grads.size() == 2u);
  int tuples = 0;
  for (auto* node : g.nodes())
    if (node->def().name.find("tuple/group_deps") != std::string::npos) {
      ++tuples;
      BOOST_TEST(node->def().device == "/job:worker/task:0", node->def().name);
    }
  BOOST_TEST(tuples > 0);
}

BOOST_AUTO_TEST_SUITE_END()
