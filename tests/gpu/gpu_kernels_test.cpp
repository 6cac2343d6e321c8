// GPU kernels against the CPU kernels on random inputs: the same graph is built twice,
// pinned to /gpu:0 and to /cpu:0, and run in one session. Every case skips where no GPU
// is visible (CI machines without one).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <actorflow/actorflow.hpp>

namespace {

bool has_gpu() { return !af::list_gpus().empty(); }

// The precondition of every case: a GPU is visible (else the case is skipped).
boost::test_tools::assertion_result gpu_present(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result r(has_gpu());
  if (!r) r.message() << "no GPU visible: " << af::gpu_unavailable_reason();
  return r;
}

af::Tensor random_tensor(const af::Shape& shape, std::uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (auto& x : v) x = u(rng);
  return af::Tensor::from_vector(v, shape);
}

std::vector<double> as_doubles(const af::Tensor& t) {
  std::vector<double> out;
  switch (t.dtype()) {
    case af::DType::float32: for (float v : t.flat<float>()) out.push_back(v); break;
    case af::DType::float64: for (double v : t.flat<double>()) out.push_back(v); break;
    case af::DType::bfloat16: for (auto v : t.flat<af::bfloat16_t>()) out.push_back(static_cast<float>(v)); break;
    case af::DType::int64: for (auto v : t.flat<std::int64_t>()) out.push_back(static_cast<double>(v)); break;
    default: BOOST_FAIL("unexpected dtype");
  }
  return out;
}

// Builds `f` on GPU:0 and on CPU:0 from the same inputs and checks the values agree.
void check_gpu_matches_cpu(const std::string& what, const std::function<af::Output(af::Graph&)>& f,
                           double tolerance = 1e-4) {
  af::Graph g;
  af::Output on_gpu, on_cpu;
  {
    auto scope = g.device("/device:GPU:0");
    on_gpu = f(g);
  }
  {
    auto scope = g.device("/cpu:0");
    on_cpu = f(g);
  }
  af::Session sess(g);
  auto r = sess.run({on_gpu, on_cpu});
  BOOST_TEST_CONTEXT(what) {
    BOOST_REQUIRE(r[0].shape() == r[1].shape());
    BOOST_TEST(!r[0].on_device());
    auto a = as_doubles(r[0]), b = as_doubles(r[1]);
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      worst = std::max(worst, std::abs(a[i] - b[i]) / std::max(1.0, std::abs(b[i])));
    BOOST_TEST(worst <= tolerance, what << ": worst relative difference " << worst);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_kernels_test, *boost::unit_test::label("gpu") * boost::unit_test::precondition(&gpu_present))

BOOST_AUTO_TEST_CASE(a_session_gets_gpu_0_and_places_unpinned_ops_there, *boost::unit_test::timeout(120)) {
  af::Graph g;
  auto a = g.constant(random_tensor({64, 32}, 1));
  auto b = g.constant(random_tensor({32, 16}, 2));
  auto c = af::matmul(a, b);
  af::Session sess(g);
  bool gpu0 = false;
  for (const auto& d : sess.list_devices())
    if (d.name == "/job:localhost/replica:0/task:0/device:GPU:0") {
      gpu0 = true;
      BOOST_TEST(d.description.find("compute capability") != std::string::npos);
      BOOST_TEST(d.memory_limit > 0);
    }
  BOOST_TEST(gpu0);
  auto value = sess.run(c);
  BOOST_TEST(value.shape() == (af::Shape{64, 16}));
  BOOST_TEST(c.op().device().empty());
}

BOOST_AUTO_TEST_CASE(elementwise_kernels_match_the_cpu, *boost::unit_test::timeout(120)) {
  auto x = random_tensor({33, 70}, 3), y = random_tensor({33, 70}, 4), row = random_tensor({70}, 5);
  auto pos = random_tensor({33, 70}, 6, 0.5f, 2.0f);
  check_gpu_matches_cpu("add", [&](af::Graph& g) { return g.constant(x) + g.constant(y); });
  check_gpu_matches_cpu("add broadcast", [&](af::Graph& g) { return g.constant(x) + g.constant(row); });
  check_gpu_matches_cpu("sub", [&](af::Graph& g) { return g.constant(x) - g.constant(row); });
  check_gpu_matches_cpu("mul", [&](af::Graph& g) { return g.constant(x) * g.constant(y); });
  check_gpu_matches_cpu("div", [&](af::Graph& g) { return af::div(g.constant(x), g.constant(pos)); });
  check_gpu_matches_cpu("neg", [&](af::Graph& g) { return af::neg(g.constant(x)); });
  check_gpu_matches_cpu("relu", [&](af::Graph& g) { return af::relu(g.constant(x)); });
  check_gpu_matches_cpu("sigmoid", [&](af::Graph& g) { return af::sigmoid(g.constant(x)); });
  check_gpu_matches_cpu("tanh", [&](af::Graph& g) { return af::tanh(g.constant(x)); });
  check_gpu_matches_cpu("softmax", [&](af::Graph& g) { return af::softmax(g.constant(x)); });
  check_gpu_matches_cpu("bias_add", [&](af::Graph& g) { return af::nn::bias_add(g.constant(x), g.constant(row)); });
  check_gpu_matches_cpu("cast to bfloat16 and back", [&](af::Graph& g) {
    return af::cast(af::cast(g.constant(x), af::DType::bfloat16), af::DType::float32);
  }, 0);
}

BOOST_AUTO_TEST_CASE(matmul_and_reductions_match_the_cpu, *boost::unit_test::timeout(120)) {
  auto a = random_tensor({96, 80}, 7), b = random_tensor({80, 64}, 8), bt = random_tensor({64, 80}, 9);
  check_gpu_matches_cpu("matmul", [&](af::Graph& g) { return af::matmul(g.constant(a), g.constant(b)); });
  check_gpu_matches_cpu("matmul transpose_b", [&](af::Graph& g) {
    return af::matmul(g.constant(a), g.constant(bt), false, true);
  });
  check_gpu_matches_cpu("matmul transpose_a", [&](af::Graph& g) {
    return af::matmul(g.constant(a), g.constant(a), true, false);
  });
  auto x = random_tensor({5, 6, 7, 8}, 10);
  check_gpu_matches_cpu("sum all", [&](af::Graph& g) { return af::reduce_sum(g.constant(x)); });
  check_gpu_matches_cpu("sum 1,3", [&](af::Graph& g) { return af::reduce_sum(g.constant(x), std::vector<std::int64_t>{1, 3}); });
  check_gpu_matches_cpu("mean 0 keep", [&](af::Graph& g) {
    return af::reduce_mean(g.constant(x), std::vector<std::int64_t>{0}, true);
  });
  check_gpu_matches_cpu("max -1", [&](af::Graph& g) { return af::reduce_max(g.constant(x), std::vector<std::int64_t>{-1}); });
}

BOOST_AUTO_TEST_CASE(convolution_and_pooling_match_the_cpu, *boost::unit_test::timeout(180)) {
  auto x = random_tensor({2, 9, 8, 3}, 11), w = random_tensor({3, 3, 3, 5}, 12);
  for (std::string padding : {"VALID", "SAME"})
    for (std::int64_t stride : {1, 2}) {
      const std::vector<std::int64_t> strides{1, stride, stride, 1};
      const std::string tag = padding + " stride " + std::to_string(stride);
      check_gpu_matches_cpu("conv2d " + tag, [&](af::Graph& g) {
        return af::nn::conv2d(g.constant(x), g.constant(w), strides, padding);
      });
      auto probe = af::conv2d_geometry(x.shape(), w.shape(), strides, padding).value();
      auto dy = random_tensor({probe.batch, probe.out_rows, probe.out_cols, probe.out_depth}, 13);
      check_gpu_matches_cpu("conv2d_backprop_input " + tag, [&](af::Graph& g) {
        return af::nn::conv2d_backprop_input(g.constant(af::Tensor::from_vector<std::int32_t>({2, 9, 8, 3})),
                                             g.constant(w), g.constant(dy), strides, padding);
      });
      check_gpu_matches_cpu("conv2d_backprop_filter " + tag, [&](af::Graph& g) {
        return af::nn::conv2d_backprop_filter(g.constant(x), g.constant(af::Tensor::from_vector<std::int32_t>({3, 3, 3, 5})),
                                              g.constant(dy), strides, padding);
      });
      check_gpu_matches_cpu("max_pool " + tag, [&](af::Graph& g) {
        return af::nn::max_pool(g.constant(x), {1, 3, 3, 1}, strides, padding);
      });
      check_gpu_matches_cpu("avg_pool " + tag, [&](af::Graph& g) {
        return af::nn::avg_pool(g.constant(x), {1, 3, 3, 1}, strides, padding);
      });
    }
}

// Philox on the GPU draws TensorFlow's sequence: uniform values equal the CPU's exactly,
// normal values up to the last bits of log/sin.
BOOST_AUTO_TEST_CASE(random_ops_draw_the_cpus_sequence, *boost::unit_test::timeout(120)) {
  check_gpu_matches_cpu("random_uniform", [](af::Graph& g) {
    return af::random_uniform(g, af::Shape{1001}, af::DType::float32, 0, 1, 42);
  }, 0);
  check_gpu_matches_cpu("random_normal", [](af::Graph& g) {
    return af::random_normal(g, af::Shape{1001}, af::DType::float32, 0, 1, 42);
  }, 1e-5);
  check_gpu_matches_cpu("random_uniform double", [](af::Graph& g) {
    return af::random_uniform(g, af::Shape{77}, af::DType::float64, 0, 1, 7);
  }, 0);
}

// Variables on the GPU: assign_add keeps the value in device memory across steps; a fetch
// brings it back to the host.
BOOST_AUTO_TEST_CASE(variables_on_the_gpu_update_across_steps, *boost::unit_test::timeout(120)) {
  af::Graph g;
  af::Variable v;
  af::Output add;
  {
    auto on_gpu = g.device("/device:GPU:0");
    v = g.variable(af::Tensor::from_vector<float>({1, 2, 3}), {.name = "v"});
    add = af::assign_add(v.ref(), g.constant(af::Tensor::from_vector<float>({1, 1, 1})));
  }
  af::Session sess(g);
  sess.run(v.initializer());
  for (int i = 0; i < 3; ++i) sess.run(add);
  BOOST_TEST(sess.run(v.value()).to_vector<float>() == (std::vector<float>{4, 5, 6}));
}

// Running out is ResourceExhausted naming the op, the bytes asked for and the bytes free.
BOOST_AUTO_TEST_CASE(running_out_of_gpu_memory_is_resource_exhausted_naming_the_op, *boost::unit_test::timeout(120)) {
  af::Graph g;
  af::Output huge;
  {
    auto on_gpu = g.device("/device:GPU:0");
    huge = af::reduce_sum(af::random_uniform(g, af::Shape{1 << 20, 1 << 20}, af::DType::float32, 0, 1, 1, "huge"));
  }
  af::Session sess(g);
  try {
    sess.run(huge);
    BOOST_FAIL("expected ResourceExhausted");
  } catch (const af::ResourceExhaustedError& e) {
    const std::string m = e.what();
    BOOST_TEST(m.find("OOM when allocating tensor with shape[1048576,1048576] and type float") != std::string::npos, m);
    BOOST_TEST(m.find("asked for 4398046511104 bytes") != std::string::npos, m);
    BOOST_TEST(m.find("huge") != std::string::npos, m);
  }
  // The device is still usable afterwards.
  af::Graph small;
  auto ok = af::reduce_sum(small.constant(random_tensor({16}, 1)));
  af::Session again(small);
  BOOST_TEST(std::isfinite(again.run(ok).scalar<float>()));
}

BOOST_AUTO_TEST_SUITE_END()
