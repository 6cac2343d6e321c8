// GPU kernels against the CPU kernels on random inputs: the same graph is built twice,
// pinned to /gpu:0 and to /cpu:0, and run in one session. Every case skips where no GPU
// is visible (CI machines without one).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

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

af::Tensor random_tensor_f64(const af::Shape& shape, std::uint32_t seed, double lo = -1,
                             double hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(shape.num_elements()));
  for (auto& x : v) x = u(rng);
  return af::Tensor::from_vector(v, shape);
}

std::vector<double> as_doubles(const af::Tensor& t) {
  std::vector<double> out;
  switch (t.dtype()) {
    case af::DType::float32:
      for (float v : t.flat<float>()) out.push_back(v);
      break;
    case af::DType::float64:
      for (double v : t.flat<double>()) out.push_back(v);
      break;
    case af::DType::bfloat16:
      for (auto v : t.flat<af::bfloat16_t>()) out.push_back(static_cast<float>(v));
      break;
    case af::DType::int64:
      for (auto v : t.flat<std::int64_t>()) out.push_back(static_cast<double>(v));
      break;
    default:
      BOOST_FAIL("unexpected dtype");
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

double worst_relative_difference(const af::Tensor& a, const af::Tensor& b) {
  auto x = as_doubles(a), y = as_doubles(b);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(x[i] - y[i]) / std::max(1.0, std::abs(y[i])));
  return worst;
}

// Creates variables holding `initial` on GPU:0 and on CPU:0, builds the update `f` on each,
// runs both updates `steps` times and checks every variable (slots included) agrees.
void check_update_matches_cpu(
    const std::string& what, const std::vector<af::Tensor>& initial,
    const std::function<af::Output(af::Graph&, const std::vector<af::Variable>&)>& f, int steps = 3,
    double tolerance = 1e-5) {
  af::Graph g;
  std::vector<af::Variable> gpu_vars, cpu_vars;
  af::Output gpu_update, cpu_update;
  {
    auto scope = g.device("/device:GPU:0");
    for (std::size_t i = 0; i < initial.size(); ++i)
      gpu_vars.push_back(g.variable(initial[i], {.name = "gpu_v" + std::to_string(i)}));
    gpu_update = f(g, gpu_vars);
  }
  {
    auto scope = g.device("/cpu:0");
    for (std::size_t i = 0; i < initial.size(); ++i)
      cpu_vars.push_back(g.variable(initial[i], {.name = "cpu_v" + std::to_string(i)}));
    cpu_update = f(g, cpu_vars);
  }
  af::Session sess(g);
  for (const auto& v : gpu_vars) sess.run(v.initializer());
  for (const auto& v : cpu_vars) sess.run(v.initializer());
  for (int step = 0; step < steps; ++step)
    sess.run(std::vector<af::Output>{}, {}, {gpu_update.op(), cpu_update.op()});
  BOOST_TEST_CONTEXT(what) {
    for (std::size_t i = 0; i < initial.size(); ++i) {
      auto r = sess.run({gpu_vars[i].value(), cpu_vars[i].value()});
      BOOST_REQUIRE(r[0].shape() == r[1].shape());
      BOOST_TEST(!r[0].on_device());
      const double worst = worst_relative_difference(r[0], r[1]);
      BOOST_TEST(worst <= tolerance,
                 what << " variable " << i << ": worst relative difference " << worst);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_kernels_test, *boost::unit_test::label("gpu") *
                                            boost::unit_test::precondition(&gpu_present))

BOOST_AUTO_TEST_CASE(a_session_gets_gpu_0_and_places_unpinned_ops_there,
                     *boost::unit_test::timeout(120)) {
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
  // A GPU device opened cuBLAS and cuDNN (which a process without one never maps:
  // tests/unit/devices/cuda_libraries_test.cpp).
  std::ifstream maps_file("/proc/self/maps");
  const std::string maps((std::istreambuf_iterator<char>(maps_file)),
                         std::istreambuf_iterator<char>());
  BOOST_TEST(maps.find("libcublas") != std::string::npos);
  BOOST_TEST(maps.find("libcudnn") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(elementwise_kernels_match_the_cpu, *boost::unit_test::timeout(120)) {
  auto x = random_tensor({33, 70}, 3), y = random_tensor({33, 70}, 4), row = random_tensor({70}, 5);
  auto pos = random_tensor({33, 70}, 6, 0.5f, 2.0f);
  check_gpu_matches_cpu("add", [&](af::Graph& g) { return g.constant(x) + g.constant(y); });
  check_gpu_matches_cpu("add broadcast",
                        [&](af::Graph& g) { return g.constant(x) + g.constant(row); });
  check_gpu_matches_cpu("sub", [&](af::Graph& g) { return g.constant(x) - g.constant(row); });
  check_gpu_matches_cpu("mul", [&](af::Graph& g) { return g.constant(x) * g.constant(y); });
  check_gpu_matches_cpu("div",
                        [&](af::Graph& g) { return af::div(g.constant(x), g.constant(pos)); });
  check_gpu_matches_cpu("neg", [&](af::Graph& g) { return af::neg(g.constant(x)); });
  check_gpu_matches_cpu("relu", [&](af::Graph& g) { return af::relu(g.constant(x)); });
  check_gpu_matches_cpu("sigmoid", [&](af::Graph& g) { return af::sigmoid(g.constant(x)); });
  check_gpu_matches_cpu("tanh", [&](af::Graph& g) { return af::tanh(g.constant(x)); });
  check_gpu_matches_cpu("softmax", [&](af::Graph& g) { return af::softmax(g.constant(x)); });
  check_gpu_matches_cpu(
      "bias_add", [&](af::Graph& g) { return af::nn::bias_add(g.constant(x), g.constant(row)); });
  check_gpu_matches_cpu(
      "cast to bfloat16 and back",
      [&](af::Graph& g) {
        return af::cast(af::cast(g.constant(x), af::DType::bfloat16), af::DType::float32);
      },
      0);
}

BOOST_AUTO_TEST_CASE(matmul_and_reductions_match_the_cpu, *boost::unit_test::timeout(120)) {
  auto a = random_tensor({96, 80}, 7), b = random_tensor({80, 64}, 8),
       bt = random_tensor({64, 80}, 9);
  check_gpu_matches_cpu("matmul",
                        [&](af::Graph& g) { return af::matmul(g.constant(a), g.constant(b)); });
  check_gpu_matches_cpu("matmul transpose_b", [&](af::Graph& g) {
    return af::matmul(g.constant(a), g.constant(bt), false, true);
  });
  check_gpu_matches_cpu("matmul transpose_a", [&](af::Graph& g) {
    return af::matmul(g.constant(a), g.constant(a), true, false);
  });
  auto x = random_tensor({5, 6, 7, 8}, 10);
  check_gpu_matches_cpu("sum all", [&](af::Graph& g) { return af::reduce_sum(g.constant(x)); });
  check_gpu_matches_cpu("sum 1,3", [&](af::Graph& g) {
    return af::reduce_sum(g.constant(x), std::vector<std::int64_t>{1, 3});
  });
  check_gpu_matches_cpu("mean 0 keep", [&](af::Graph& g) {
    return af::reduce_mean(g.constant(x), std::vector<std::int64_t>{0}, true);
  });
  check_gpu_matches_cpu("max -1", [&](af::Graph& g) {
    return af::reduce_max(g.constant(x), std::vector<std::int64_t>{-1});
  });
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
        return af::nn::conv2d_backprop_input(
            g.constant(af::Tensor::from_vector<std::int32_t>({2, 9, 8, 3})), g.constant(w),
            g.constant(dy), strides, padding);
      });
      check_gpu_matches_cpu("conv2d_backprop_filter " + tag, [&](af::Graph& g) {
        return af::nn::conv2d_backprop_filter(
            g.constant(x), g.constant(af::Tensor::from_vector<std::int32_t>({3, 3, 3, 5})),
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
  check_gpu_matches_cpu(
      "random_uniform",
      [](af::Graph& g) {
        return af::random_uniform(g, af::Shape{1001}, af::DType::float32, 0, 1, 42);
      },
      0);
  check_gpu_matches_cpu(
      "random_normal",
      [](af::Graph& g) {
        return af::random_normal(g, af::Shape{1001}, af::DType::float32, 0, 1, 42);
      },
      1e-5);
  check_gpu_matches_cpu(
      "random_uniform double",
      [](af::Graph& g) {
        return af::random_uniform(g, af::Shape{77}, af::DType::float64, 0, 1, 7);
      },
      0);
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

// A cond on the GPU (Switch reads its predicate from device memory, Merge forwards device
// tensors) gives the CPU's values and gradients for both branches; the variable its branch
// reads stays on the GPU.
BOOST_AUTO_TEST_CASE(a_cond_runs_on_the_gpu_and_matches_the_cpu, *boost::unit_test::timeout(120)) {
  af::Graph g;
  auto build = [&](const char* device, const char* name) {
    auto on = g.device(device);
    auto x = g.placeholder(af::float32, af::PartialShape{3}, std::string(name) + "_x");
    auto p = g.placeholder(af::boolean, af::PartialShape(af::Shape{}), std::string(name) + "_p");
    auto w =
        g.variable(af::Tensor::from_vector<float>({1, 2, 3}), {.name = std::string(name) + "_w"});
    auto y = af::cond(
        p, [&] { return x * w.value(); }, [&] { return af::square(x) + 1.0f; },
        std::string(name) + "_cond");
    auto grad = af::gradients({af::reduce_sum(y)}, {w.value(), x});
    return std::make_tuple(x, p, w, y, grad[0], grad[1]);
  };
  auto [gx, gp, gw, gy, gdw, gdx] = build("/device:GPU:0", "gpu");
  auto [cx, cp, cw, cy, cdw, cdx] = build("/cpu:0", "cpu");
  af::Session sess(g);
  sess.run(g.global_variables_initializer());
  const af::Tensor xv = af::Tensor::from_vector<float>({0.5f, -2.0f, 3.0f});
  for (bool taken : {true, false}) {
    auto gpu = sess.run({gy, gdw, gdx}, {{gx, xv}, {gp, af::Tensor(taken)}});
    auto cpu = sess.run({cy, cdw, cdx}, {{cx, xv}, {cp, af::Tensor(taken)}});
    for (std::size_t i = 0; i < 3; ++i)
      BOOST_TEST(gpu[i].to_vector<float>() == cpu[i].to_vector<float>(),
                 boost::test_tools::per_element());
  }
  BOOST_TEST(sess.placement().at("gpu_w").find("GPU:0") != std::string::npos);
  BOOST_TEST(sess.placement().at("gpu_cond/Merge").find("GPU:0") != std::string::npos);
}

// A large feed reaches GPU kernels intact, staged in slices from pageable memory or sent
// straight from a pinned_host_tensor.
BOOST_AUTO_TEST_CASE(large_feeds_reach_the_gpu_from_pageable_and_pinned_memory,
                     *boost::unit_test::timeout(120)) {
  const std::int64_t count = 5 << 20;  // 20 MiB: more than one staging slice
  af::Graph g;
  af::Output fed, negated;
  {
    auto on_gpu = g.device("/device:GPU:0");
    fed = g.placeholder(af::DType::float32, af::PartialShape{count}, "fed");
    negated = af::neg(fed);
  }
  af::Session sess(g);
  for (bool pinned : {false, true}) {
    af::Tensor host = pinned ? af::pinned_host_tensor(af::DType::float32, af::Shape{count})
                             : af::Tensor(af::DType::float32, af::Shape{count});
    for (std::int64_t i = 0; i < count; ++i)
      host.data<float>()[i] = static_cast<float>(i % 1000) - 500.0f;
    for (int step = 0; step < 3; ++step) {
      auto out = sess.run(negated, {{fed, host}});
      BOOST_TEST_CONTEXT((pinned ? "pinned" : "pageable") << " step " << step) {
        BOOST_REQUIRE(out.shape() == host.shape());
        std::int64_t wrong = 0;
        for (std::int64_t i = 0; i < count; ++i)
          wrong += out.data<float>()[i] != -host.data<float>()[i];
        BOOST_TEST(wrong == 0);
      }
    }
  }
}

// Running out is ResourceExhausted naming the op, the bytes asked for and the bytes free.
BOOST_AUTO_TEST_CASE(running_out_of_gpu_memory_is_resource_exhausted_naming_the_op,
                     *boost::unit_test::timeout(120)) {
  af::Graph g;
  af::Output huge;
  {
    auto on_gpu = g.device("/device:GPU:0");
    huge = af::reduce_sum(
        af::random_uniform(g, af::Shape{1 << 20, 1 << 20}, af::DType::float32, 0, 1, 1, "huge"));
  }
  af::Session sess(g);
  try {
    sess.run(huge);
    BOOST_FAIL("expected ResourceExhausted");
  } catch (const af::ResourceExhaustedError& e) {
    const std::string m = e.what();
    BOOST_TEST(m.find("OOM when allocating tensor with shape[1048576,1048576] and type float") !=
                   std::string::npos,
               m);
    BOOST_TEST(m.find("asked for 4398046511104 bytes") != std::string::npos, m);
    BOOST_TEST(m.find("huge") != std::string::npos, m);
  }
  // The device is still usable afterwards.
  af::Graph small;
  auto ok = af::reduce_sum(small.constant(random_tensor({16}, 1)));
  af::Session again(small);
  BOOST_TEST(std::isfinite(again.run(ok).scalar<float>()));
}

BOOST_AUTO_TEST_CASE(training_elementwise_kernels_match_the_cpu, *boost::unit_test::timeout(120)) {
  auto x = random_tensor({33, 70}, 20), y = random_tensor({33, 70}, 21);
  auto pos = random_tensor({33, 70}, 22, 0.5f, 2.0f);
  auto as_f64 = [](af::Graph& g, const af::Tensor& t) {
    return af::cast(g.constant(t), af::DType::float64);
  };
  check_gpu_matches_cpu("square", [&](af::Graph& g) { return af::square(g.constant(x)); });
  check_gpu_matches_cpu("sqrt", [&](af::Graph& g) { return af::sqrt(g.constant(pos)); });
  check_gpu_matches_cpu("rsqrt", [&](af::Graph& g) { return af::rsqrt(g.constant(pos)); });
  check_gpu_matches_cpu("exp", [&](af::Graph& g) { return af::exp(g.constant(x)); });
  check_gpu_matches_cpu("log", [&](af::Graph& g) { return af::log(g.constant(pos)); });
  check_gpu_matches_cpu("reciprocal",
                        [&](af::Graph& g) { return af::reciprocal(g.constant(pos)); });
  check_gpu_matches_cpu(
      "log double", [&](af::Graph& g) { return af::log(as_f64(g, pos)); }, 1e-12);
  check_gpu_matches_cpu(
      "rsqrt double", [&](af::Graph& g) { return af::rsqrt(as_f64(g, pos)); }, 1e-12);
  check_gpu_matches_cpu(
      "relu_grad", [&](af::Graph& g) { return af::nn::relu_grad(g.constant(y), g.constant(x)); },
      0);
  check_gpu_matches_cpu("sigmoid_grad", [&](af::Graph& g) {
    return af::nn::sigmoid_grad(af::sigmoid(g.constant(x)), g.constant(y));
  });
  check_gpu_matches_cpu("tanh_grad", [&](af::Graph& g) {
    return af::nn::tanh_grad(af::tanh(g.constant(x)), g.constant(y));
  });
  check_gpu_matches_cpu(
      "tanh_grad double",
      [&](af::Graph& g) { return af::nn::tanh_grad(as_f64(g, x), as_f64(g, y)); }, 1e-12);
  check_gpu_matches_cpu(
      "add_n of one", [&](af::Graph& g) { return af::add_n({g.constant(x)}); }, 0);
  check_gpu_matches_cpu(
      "add_n of three",
      [&](af::Graph& g) {
        return af::add_n({g.constant(x), g.constant(y), g.constant(pos)});
      },
      0);
  check_gpu_matches_cpu(
      "add_n double",
      [&](af::Graph& g) {
        return af::add_n({as_f64(g, x), as_f64(g, y)});
      },
      0);
  // af::zeros_like and af::ones_like fold known shapes into constants: build the ops themselves.
  auto like = [](const char* type, const af::Output& input) {
    return input.graph().create_op(type, {input}, {{"T", input.dtype()}}).output(0);
  };
  check_gpu_matches_cpu(
      "ZerosLike", [&](af::Graph& g) { return like("ZerosLike", g.constant(x)); }, 0);
  check_gpu_matches_cpu(
      "OnesLike", [&](af::Graph& g) { return like("OnesLike", g.constant(x)); }, 0);
  check_gpu_matches_cpu(
      "OnesLike double", [&](af::Graph& g) { return like("OnesLike", as_f64(g, x)); }, 0);
  check_gpu_matches_cpu(
      "OnesLike bfloat16",
      [&](af::Graph& g) { return like("OnesLike", af::cast(g.constant(x), af::DType::bfloat16)); },
      0);
}

BOOST_AUTO_TEST_CASE(bias_add_grad_matches_the_cpu, *boost::unit_test::timeout(120)) {
  auto x2 = random_tensor({33, 70}, 23), x4 = random_tensor({2, 9, 8, 5}, 24),
       column = random_tensor({40, 1}, 25);
  check_gpu_matches_cpu("bias_add_grad 2d",
                        [&](af::Graph& g) { return af::nn::bias_add_grad(g.constant(x2)); });
  check_gpu_matches_cpu("bias_add_grad 4d",
                        [&](af::Graph& g) { return af::nn::bias_add_grad(g.constant(x4)); });
  check_gpu_matches_cpu("bias_add_grad one channel",
                        [&](af::Graph& g) { return af::nn::bias_add_grad(g.constant(column)); });
  check_gpu_matches_cpu(
      "bias_add_grad double",
      [&](af::Graph& g) {
        return af::nn::bias_add_grad(af::cast(g.constant(x4), af::DType::float64));
      },
      1e-12);
}

BOOST_AUTO_TEST_CASE(sparse_softmax_cross_entropy_matches_the_cpu,
                     *boost::unit_test::timeout(120)) {
  auto logits = random_tensor({33, 10}, 26, -3, 3);
  std::mt19937 rng(27);
  std::uniform_int_distribution<std::int32_t> pick(0, 9);
  std::vector<std::int32_t> label_values(33);
  for (auto& l : label_values) l = pick(rng);
  auto labels = af::Tensor::from_vector(label_values);
  for (int output : {0, 1}) {
    const std::string tag = output == 0 ? " loss" : " backprop";
    check_gpu_matches_cpu("sparse_softmax_cross_entropy" + tag, [&](af::Graph& g) {
      auto [loss, backprop] = af::nn::sparse_softmax_cross_entropy_with_logits_op(
          g.constant(logits), g.constant(labels));
      return output == 0 ? loss : backprop;
    });
    check_gpu_matches_cpu(
        "sparse_softmax_cross_entropy double" + tag,
        [&](af::Graph& g) {
          auto [loss, backprop] = af::nn::sparse_softmax_cross_entropy_with_logits_op(
              af::cast(g.constant(logits), af::DType::float64), g.constant(labels));
          return output == 0 ? loss : backprop;
        },
        1e-12);
  }
}

// Reductions that leave few outputs split the reduced dimension across blocks (a second pass
// sums the partials): every kernel shape, long and short rows, few and many columns.
BOOST_AUTO_TEST_CASE(large_reductions_match_the_cpu, *boost::unit_test::timeout(180)) {
  auto flat = random_tensor({1 << 20}, 50);
  check_gpu_matches_cpu(
      "sum of 2^20", [&](af::Graph& g) { return af::reduce_sum(g.constant(flat)); }, 1e-4);
  check_gpu_matches_cpu(
      "mean of 2^20", [&](af::Graph& g) { return af::reduce_mean(g.constant(flat)); }, 1e-5);
  check_gpu_matches_cpu(
      "max of 2^20", [&](af::Graph& g) { return af::reduce_max(g.constant(flat)); }, 0);
  auto activations = random_tensor({128, 28, 28, 16}, 51);
  check_gpu_matches_cpu(
      "bias_add_grad of a conv layer's gradient",
      [&](af::Graph& g) { return af::nn::bias_add_grad(g.constant(activations)); }, 1e-4);
  check_gpu_matches_cpu(
      "sum over the batch of [100352, 16]",
      [&](af::Graph& g) {
        return af::reduce_sum(
            af::reshape(g.constant(activations), std::vector<std::int64_t>{-1, 16}),
            std::vector<std::int64_t>{0});
      },
      1e-4);
  auto wide = random_tensor({3, 300000}, 52);
  check_gpu_matches_cpu(
      "mean of three long rows",
      [&](af::Graph& g) { return af::reduce_mean(g.constant(wide), std::vector<std::int64_t>{1}); },
      1e-5);
  auto tall = random_tensor({5000, 40}, 53);
  check_gpu_matches_cpu(
      "max over 5000 rows of 40 columns",
      [&](af::Graph& g) { return af::reduce_max(g.constant(tall), std::vector<std::int64_t>{0}); },
      0);
  auto many_rows = random_tensor({70000, 10}, 54);
  check_gpu_matches_cpu(
      "sum of 70000 short rows",
      [&](af::Graph& g) {
        return af::reduce_sum(g.constant(many_rows), std::vector<std::int64_t>{1});
      },
      1e-5);
  auto cube = random_tensor({40, 3000, 7}, 55);
  check_gpu_matches_cpu(
      "sum of the middle of [40, 3000, 7]",
      [&](af::Graph& g) { return af::reduce_sum(g.constant(cube), std::vector<std::int64_t>{1}); },
      1e-4);
  check_gpu_matches_cpu(
      "sum of 2^20 in bfloat16",
      [&](af::Graph& g) {
        return af::cast(af::reduce_sum(af::cast(g.constant(flat), af::DType::bfloat16)),
                        af::DType::float32);
      },
      2e-2);
}

// Pooling gradients, gathered per input element on the GPU, equal the CPU's bit for bit,
// ties (small integer values) included.
BOOST_AUTO_TEST_CASE(pooling_gradients_match_the_cpu, *boost::unit_test::timeout(180)) {
  std::mt19937 rng(60);
  std::uniform_int_distribution<int> level(0, 3);
  std::vector<float> tied(2 * 9 * 8 * 3);
  for (auto& v : tied) v = static_cast<float>(level(rng));
  auto x = af::Tensor::from_vector(tied, af::Shape{2, 9, 8, 3});
  for (std::string padding : {"VALID", "SAME"})
    for (std::int64_t window : {2, 3})
      for (std::int64_t stride : {1, 2}) {
        const std::vector<std::int64_t> ksize{1, window, window, 1}, strides{1, stride, stride, 1};
        const std::string tag =
            padding + " window " + std::to_string(window) + " stride " + std::to_string(stride);
        auto geo = af::pool2d_geometry(x.shape(), ksize, strides, padding).value();
        auto dy = random_tensor({geo.batch, geo.out_rows, geo.out_cols, geo.depth}, 61);
        check_gpu_matches_cpu(
            "max_pool_grad " + tag,
            [&](af::Graph& g) {
              auto in = g.constant(x);
              return af::nn::max_pool_grad(in, af::nn::max_pool(in, ksize, strides, padding),
                                           g.constant(dy), ksize, strides, padding);
            },
            0);
        check_gpu_matches_cpu(
            "avg_pool_grad " + tag,
            [&](af::Graph& g) {
              return af::nn::avg_pool_grad(
                  g.constant(af::Tensor::from_vector<std::int32_t>({2, 9, 8, 3})), g.constant(dy),
                  ksize, strides, padding);
            },
            1e-6);
      }
}

// Tile, Fill, and the shape ops that a training graph runs between GPU kernels (a GPU device
// runs them without a copy to the CPU and back).
BOOST_AUTO_TEST_CASE(tile_and_shape_ops_run_on_the_gpu, *boost::unit_test::timeout(120)) {
  auto x = random_tensor({3, 1, 5}, 70);
  check_gpu_matches_cpu(
      "tile",
      [&](af::Graph& g) {
        return af::tile(g.constant(x), std::vector<std::int64_t>{2, 4, 1});
      },
      0);
  check_gpu_matches_cpu(
      "tile bfloat16",
      [&](af::Graph& g) {
        return af::cast(af::tile(af::cast(g.constant(x), af::DType::bfloat16),
                                 std::vector<std::int64_t>{1, 3, 2}),
                        af::DType::float32);
      },
      0);
  check_gpu_matches_cpu(
      "tile int64",
      [&](af::Graph& g) {
        return af::tile(af::cast(g.constant(x), af::DType::int64),
                        std::vector<std::int64_t>{2, 2, 2});
      },
      0);
  auto fill = [](af::Graph& g, const af::Tensor& value) {
    return g
        .create_op(
            "Fill",
            {g.constant(af::Tensor::from_vector<std::int32_t>({40, 3, 5})), g.constant(value)},
            {{"T", value.dtype()}, {"index_type", af::DType::int32}})
        .output(0);
  };
  check_gpu_matches_cpu(
      "fill", [&](af::Graph& g) { return fill(g, af::Tensor(2.5f)); }, 0);
  check_gpu_matches_cpu(
      "fill double", [&](af::Graph& g) { return fill(g, af::Tensor(-1.25)); }, 0);
  check_gpu_matches_cpu(
      "fill int64", [&](af::Graph& g) { return fill(g, af::Tensor(std::int64_t{7})); }, 0);
  check_gpu_matches_cpu(
      "reshape, expand_dims, squeeze",
      [&](af::Graph& g) {
        auto r = af::reshape(af::neg(g.constant(x)), std::vector<std::int64_t>{-1, 5});
        return af::squeeze(af::expand_dims(r, 0), {0});
      },
      0);
  check_gpu_matches_cpu(
      "reshape to a computed shape",
      [&](af::Graph& g) {
        auto y = af::neg(g.constant(x));
        return af::reshape(af::tile(y, std::vector<std::int64_t>{1, 2, 1}),
                           af::shape(af::tile(y, std::vector<std::int64_t>{1, 2, 1})));
      },
      0);
}

// The dense softmax cross-entropy, LogSoftmax and L2Loss on the GPU follow the CPU kernels.
BOOST_AUTO_TEST_CASE(losses_match_the_cpu, *boost::unit_test::timeout(120)) {
  auto logits = random_tensor({33, 10}, 80, -3, 3);
  auto weights = random_tensor({33, 10}, 81, 0.0f, 1.0f);
  for (int output : {0, 1}) {
    check_gpu_matches_cpu(
        output == 0 ? "softmax_cross_entropy loss" : "softmax_cross_entropy backprop",
        [&](af::Graph& g) {
          // Labels: each row a distribution (normalised weights), with exact zeros in column 0.
          auto w =
              af::mul(g.constant(weights),
                      g.constant(af::Tensor::from_vector<float>({0, 1, 1, 1, 1, 1, 1, 1, 1, 1})));
          auto labels = af::div(w, af::reduce_sum(w, std::vector<std::int64_t>{1}, true));
          auto [loss, backprop] =
              af::nn::softmax_cross_entropy_with_logits_op(g.constant(logits), labels);
          return output == 0 ? loss : backprop;
        });
  }
  check_gpu_matches_cpu("log_softmax",
                        [&](af::Graph& g) { return af::nn::log_softmax(g.constant(logits)); });
  check_gpu_matches_cpu(
      "log_softmax double",
      [&](af::Graph& g) {
        return af::nn::log_softmax(af::cast(g.constant(logits), af::DType::float64));
      },
      1e-12);
  auto big = random_tensor({300, 700}, 82);
  check_gpu_matches_cpu(
      "l2_loss", [&](af::Graph& g) { return af::l2_loss(g.constant(big)); }, 1e-4);
  check_gpu_matches_cpu(
      "l2_loss double",
      [&](af::Graph& g) { return af::l2_loss(af::cast(g.constant(big), af::DType::float64)); },
      1e-12);
}

// The optimizers' updates keep the variable and its slots in device memory across steps and
// follow the CPU kernels' arithmetic.
BOOST_AUTO_TEST_CASE(optimizer_updates_on_the_gpu_match_the_cpu, *boost::unit_test::timeout(180)) {
  const af::Shape shape{17, 9};
  auto grad = random_tensor(shape, 30);
  check_update_matches_cpu("apply_gradient_descent", {random_tensor(shape, 31)},
                           [&](af::Graph& g, const std::vector<af::Variable>& v) {
                             return af::apply_gradient_descent(
                                 v[0].ref(), g.constant(af::Tensor(0.1f)), g.constant(grad));
                           });
  check_update_matches_cpu(
      "apply_gradient_descent double", {random_tensor_f64(shape, 32)},
      [&](af::Graph& g, const std::vector<af::Variable>& v) {
        return af::apply_gradient_descent(v[0].ref(), g.constant(af::Tensor(0.1)),
                                          g.constant(random_tensor_f64(shape, 33)));
      },
      3, 1e-12);
  for (bool nesterov : {false, true})
    check_update_matches_cpu(nesterov ? "apply_momentum nesterov" : "apply_momentum",
                             {random_tensor(shape, 34), random_tensor(shape, 35)},
                             [&](af::Graph& g, const std::vector<af::Variable>& v) {
                               return af::apply_momentum(
                                   v[0].ref(), v[1].ref(), g.constant(af::Tensor(0.05f)),
                                   g.constant(grad), g.constant(af::Tensor(0.9f)), false, nesterov);
                             });
  for (bool nesterov : {false, true})
    check_update_matches_cpu(
        nesterov ? "apply_adam nesterov" : "apply_adam",
        {random_tensor(shape, 36), random_tensor(shape, 37), random_tensor(shape, 38, 0.0f, 1.0f)},
        [&](af::Graph& g, const std::vector<af::Variable>& v) {
          auto c = [&](float value) { return g.constant(af::Tensor(value)); };
          return af::apply_adam(v[0].ref(), v[1].ref(), v[2].ref(), c(0.9f), c(0.999f), c(0.001f),
                                c(0.9f), c(0.999f), c(1e-8f), g.constant(grad), false, nesterov);
        });
  for (bool update_slots : {true, false})
    check_update_matches_cpu(update_slots ? "apply_adagrad" : "apply_adagrad without update_slots",
                             {random_tensor(shape, 43), random_tensor(shape, 44, 0.1f, 1.0f)},
                             [&](af::Graph& g, const std::vector<af::Variable>& v) {
                               return af::apply_adagrad(v[0].ref(), v[1].ref(),
                                                        g.constant(af::Tensor(0.05f)),
                                                        g.constant(grad), false, update_slots);
                             });
  check_update_matches_cpu(
      "apply_rms_prop",
      {random_tensor(shape, 45), random_tensor(shape, 46, 0.1f, 1.0f), random_tensor(shape, 47)},
      [&](af::Graph& g, const std::vector<af::Variable>& v) {
        auto c = [&](float value) { return g.constant(af::Tensor(value)); };
        return af::apply_rms_prop(v[0].ref(), v[1].ref(), v[2].ref(), c(0.01f), c(0.9f), c(0.5f),
                                  c(1e-6f), g.constant(grad));
      });
  check_update_matches_cpu("apply_centered_rms_prop",
                           {random_tensor(shape, 48), random_tensor(shape, 49, -0.1f, 0.1f),
                            random_tensor(shape, 50, 0.5f, 1.0f), random_tensor(shape, 51)},
                           [&](af::Graph& g, const std::vector<af::Variable>& v) {
                             auto c = [&](float value) { return g.constant(af::Tensor(value)); };
                             return af::apply_centered_rms_prop(
                                 v[0].ref(), v[1].ref(), v[2].ref(), v[3].ref(), c(0.01f), c(0.9f),
                                 c(0.5f), c(1e-6f), g.constant(grad));
                           });
  check_update_matches_cpu(
      "apply_rms_prop double",
      {random_tensor_f64(shape, 52), random_tensor_f64(shape, 53, 0.1, 1.0),
       random_tensor_f64(shape, 54)},
      [&](af::Graph& g, const std::vector<af::Variable>& v) {
        auto c = [&](double value) { return g.constant(af::Tensor(value)); };
        return af::apply_rms_prop(v[0].ref(), v[1].ref(), v[2].ref(), c(0.01), c(0.9), c(0.5),
                                  c(1e-6), g.constant(random_tensor_f64(shape, 55)));
      },
      3, 1e-12);
  check_update_matches_cpu(
      "apply_adam double",
      {random_tensor_f64(shape, 39), random_tensor_f64(shape, 40),
       random_tensor_f64(shape, 41, 0.0, 1.0)},
      [&](af::Graph& g, const std::vector<af::Variable>& v) {
        auto c = [&](double value) { return g.constant(af::Tensor(value)); };
        return af::apply_adam(v[0].ref(), v[1].ref(), v[2].ref(), c(0.81), c(0.998), c(0.01),
                              c(0.9), c(0.999), c(1e-8), g.constant(random_tensor_f64(shape, 42)));
      },
      3, 1e-12);
}

BOOST_AUTO_TEST_SUITE_END()
