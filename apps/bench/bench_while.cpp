// WHILE: what a TensorFlow while loop (control flow v1) costs per iteration in actorflow's
// executor: `while i < n: i += 1; acc += x * i` on 16 floats, 10,000 iterations a step, the
// loop built as tf.compat.v1.while_loop builds it (Enter, Merge, Less, LoopCond, Switch,
// Identity, NextIteration, Exit: 15 nodes an iteration, 10 parallel iterations). Baseline,
// in interleaved pairs: the same arithmetic unrolled into a straight graph (a Const, a Mul
// and an AddV2 per iteration), which the executor walks without frames. TensorFlow's own
// loop on the same work: scripts/peers/while_peers.py.
//
// WHILE-GRAD: a gradient through a while loop, the recurrence h = tanh(h U + b) on a batch
// of 16 rows of 32 units, 50 iterations, built with `while_loop` and differentiated by
// `gradients` (the forward loop pushing each iteration's values on stacks, the gradient loop
// popping them in reverse); a step computes d sum(h) / dU. Baseline, in interleaved pairs:
// the same recurrence unrolled into 50 copies and differentiated as a straight graph.
//
// DYNAMIC-RNN: a training step of an RNN over a sequence held in TensorArrays, as
// tf.compat.v1.nn.dynamic_rnn builds it: x [20 steps, 16, 32] unstacked into an array, a
// loop reading x_t and writing h = tanh(x_t W + h U + b) to another, the outputs stacked;
// a step computes d sum(outputs) / d(W, U) through the gradient arrays (TensorArrayGradV3)
// and the gradient loop. Baseline, in interleaved pairs: the recurrence unrolled over slices
// of x. TensorFlow's dynamic_rnn on the same work: scripts/peers/while_peers.py --rnn.
#include <actorflow/actorflow.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace af::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

/// `acc` after the loop `i = 0; while i < n: acc += x * i; i += 1`, built as _BuildLoop.
Output while_sum(Graph& g, const Output& n, const Output& x, const Output& acc0) {
  auto scope = g.name_scope("while");
  const std::string frame = "while/while_context";
  Output enter_i = enter(g.constant(0), frame, false, 10, "Enter");
  Output enter_acc = enter(acc0, frame, false, 10, "Enter_1");
  auto merge_i = merge({enter_i, enter_i}, "Merge");
  auto merge_acc = merge({enter_acc, enter_acc}, "Merge_1");
  Output go = loop_cond(less(merge_i.output, enter(n, frame, true, 10)), "LoopCond");
  auto switch_i = switch_op(merge_i.output, go);
  auto switch_acc = switch_op(merge_acc.output, go);
  Output i = identity(switch_i.output_true, "Identity");
  Output acc = identity(switch_acc.output_true, "Identity_1");
  Output one;
  {
    auto deps = g.control_dependencies({i.op()});
    one = g.constant(1, "one");
  }
  Output acc_next = acc + enter(x, frame, true, 10) * cast(i, DType::float32);
  g.update_input(merge_i.output.op(), 1, next_iteration(i + one));
  g.update_input(merge_acc.output.op(), 1, next_iteration(acc_next));
  exit_op(switch_i.output_false, "Exit");
  return exit_op(switch_acc.output_false, "Exit_1");
}

/// The recurrence `h = tanh(h U + b)` `steps` times, unrolled.
Output unrolled_recurrence(Graph& g, const Output& h0, const Output& u, const Output& b,
                           int steps) {
  auto scope = g.name_scope("unrolled");
  Output h = h0;
  for (int i = 0; i < steps; ++i) h = tanh(matmul(h, u) + b);
  return h;
}

}  // namespace

void bench_while_grad(bool quick) {
  const int steps = 50;
  const int pairs = quick ? 3 : 9;
  Graph g;
  std::vector<float> uv(32 * 32), hv(16 * 32), bv(32);
  for (std::size_t k = 0; k < uv.size(); ++k)
    uv[k] = 0.05f * static_cast<float>((k * 7) % 11) - 0.25f;
  for (std::size_t k = 0; k < hv.size(); ++k) hv[k] = 0.1f * static_cast<float>((k * 5) % 9) - 0.4f;
  for (std::size_t k = 0; k < bv.size(); ++k) bv[k] = 0.01f * static_cast<float>(k % 5);
  const Output u = g.placeholder(DType::float32, PartialShape{32, 32}, "u");
  const Output h0 = g.constant(Tensor::from_vector(hv, Shape{16, 32}), "h0");
  const Output b = g.constant(Tensor::from_vector(bv, Shape{32}), "b");
  std::vector<Output> looped =
      while_loop([&](const std::vector<Output>& v) { return less(v[0], g.constant(steps)); },
                 [&](const std::vector<Output>& v) {
                   return std::vector<Output>{v[0] + 1, tanh(matmul(v[1], u) + b)};
                 },
                 {g.constant(0), h0}, {.name = "rnn"});
  const Output loop_grad = gradients({reduce_sum(looped[1])}, {u})[0];
  const Output unrolled = unrolled_recurrence(g, h0, u, b, steps);
  const Output unrolled_grad = gradients({reduce_sum(unrolled)}, {u})[0];
  const FeedDict feeds = {{u, Tensor::from_vector(uv, Shape{32, 32})}};
  Session sess(g);
  const auto a = sess.run(loop_grad, feeds).to_vector<float>();
  const auto c = sess.run(unrolled_grad, feeds).to_vector<float>();
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::abs(a[k] - c[k]) > 1e-3f * (1.0f + std::abs(c[k])))
      throw std::runtime_error("WHILE-GRAD: the loop's and the unrolled gradients disagree");
  std::vector<double> loop_ms, unrolled_ms;
  for (int r = 0; r < pairs; ++r) {
    auto t0 = Clock::now();
    sess.run(loop_grad, feeds);
    auto t1 = Clock::now();
    sess.run(unrolled_grad, feeds);
    auto t2 = Clock::now();
    loop_ms.push_back(ms_between(t0, t1));
    unrolled_ms.push_back(ms_between(t1, t2));
  }
  const auto ratio = record({"WHILE-GRAD", "gradient through a while loop, per step", "ms", loop_ms,
                             unrolled_ms, "the recurrence unrolled", ""});
  std::printf(
      "WHILE-GRAD %d iterations of h = tanh(h U + b) on 16x32, d sum(h)/dU: gradient loop median "
      "%.3f ms/step (%s); unrolled %.3f ms/step (%s); ratio %s\n",
      steps, median_of(loop_ms), spread(loop_ms).c_str(), median_of(unrolled_ms),
      spread(unrolled_ms).c_str(), ratio_text(ratio).c_str());
  std::fflush(stdout);
}

void bench_rnn(bool quick) {
  const std::int64_t steps = 20, batch = 16, units = 32;
  const int pairs = quick ? 3 : 9;
  Graph g;
  auto values = [](std::size_t n, int mul, int mod, float scale, float shift) {
    std::vector<float> v(n);
    for (std::size_t k = 0; k < n; ++k)
      v[k] = scale * static_cast<float>((k * static_cast<std::size_t>(mul)) %
                                        static_cast<std::size_t>(mod)) -
             shift;
    return v;
  };
  const Output x = g.placeholder(DType::float32, PartialShape{steps, batch, units}, "x");
  const Output w = g.placeholder(DType::float32, PartialShape{units, units}, "w");
  const Output u = g.placeholder(DType::float32, PartialShape{units, units}, "u");
  const Output b = g.constant(Tensor::from_vector(values(units, 1, 5, 0.01f, 0.0f)), "b");
  const Output h0 = g.constant(Tensor(DType::float32, Shape{batch, units}), "h0");
  const auto n = static_cast<std::int32_t>(steps);
  const TensorArray inputs = TensorArray(g, DType::float32, n).unstack(x);
  const TensorArray outputs(g, DType::float32, n);
  std::vector<Output> r = while_loop(
      [&](const std::vector<Output>& v) { return less(v[0], g.constant(n)); },
      [&](const std::vector<Output>& v) {
        Output h = tanh(matmul(inputs.read(v[0]), w) + matmul(v[1], u) + b);
        return std::vector<Output>{v[0] + 1, h, outputs.with_flow(v[2]).write(v[0], h).flow()};
      },
      {g.constant(0), h0, outputs.flow()}, {.name = "rnn"});
  const Output looped = reduce_sum(outputs.with_flow(r[2]).stack());
  const std::vector<Output> loop_grads = gradients({looped}, {w, u});
  Output h = h0, unrolled = reduce_sum(h0) * 0.0f;
  {
    auto scope = g.name_scope("unrolled");
    for (std::int64_t t = 0; t < steps; ++t) {
      Output xt =
          reshape(strided_slice(x, {t}, {t + 1}, {1}), std::vector<std::int64_t>{batch, units});
      h = tanh(matmul(xt, w) + matmul(h, u) + b);
      unrolled = unrolled + reduce_sum(h);
    }
  }
  const std::vector<Output> unrolled_grads = gradients({unrolled}, {w, u});
  const FeedDict feeds = {
      {x, Tensor::from_vector(
              values(static_cast<std::size_t>(steps * batch * units), 7, 13, 0.02f, 0.12f),
              Shape{steps, batch, units})},
      {w, Tensor::from_vector(values(units * units, 5, 11, 0.02f, 0.1f), Shape{units, units})},
      {u, Tensor::from_vector(values(units * units, 3, 7, 0.02f, 0.06f), Shape{units, units})}};
  Session sess(g);
  const auto a = sess.run(loop_grads, feeds);
  const auto c = sess.run(unrolled_grads, feeds);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto p = a[i].to_vector<float>(), q = c[i].to_vector<float>();
    for (std::size_t k = 0; k < p.size(); ++k)
      if (std::abs(p[k] - q[k]) > 1e-3f * (1.0f + std::abs(q[k])))
        throw std::runtime_error("DYNAMIC-RNN: the arrays' and the unrolled gradients disagree");
  }
  std::vector<double> loop_ms, unrolled_ms;
  for (int k = 0; k < pairs; ++k) {
    auto t0 = Clock::now();
    sess.run(loop_grads, feeds);
    auto t1 = Clock::now();
    sess.run(unrolled_grads, feeds);
    auto t2 = Clock::now();
    loop_ms.push_back(ms_between(t0, t1));
    unrolled_ms.push_back(ms_between(t1, t2));
  }
  const auto ratio = record({"DYNAMIC-RNN", "RNN training step through TensorArrays", "ms", loop_ms,
                             unrolled_ms, "the recurrence unrolled", ""});
  std::printf(
      "DYNAMIC-RNN %lld steps of h = tanh(x_t W + h U + b) on 16x32 through TensorArrays, "
      "d sum(outputs)/d(W, U): arrays and loops median %.3f ms/step (%s); unrolled %.3f "
      "ms/step (%s); ratio %s\n",
      static_cast<long long>(steps), median_of(loop_ms), spread(loop_ms).c_str(),
      median_of(unrolled_ms), spread(unrolled_ms).c_str(), ratio_text(ratio).c_str());
  std::fflush(stdout);
}

void bench_while(bool quick) {
  const int iterations = quick ? 1000 : 10000;
  const int pairs = quick ? 3 : 9;
  Graph g;
  Output n = g.placeholder(DType::int32, PartialShape(Shape{}), "n");
  Output x = g.placeholder(DType::float32, PartialShape{16}, "x");
  Output zeros = g.constant(Tensor::from_vector(std::vector<float>(16, 0.0f)), "zeros");
  Output looped = while_sum(g, n, x, zeros);
  Output unrolled = zeros;
  {
    auto scope = g.name_scope("unrolled");
    for (int i = 0; i < iterations; ++i)
      unrolled = unrolled + x * g.constant(static_cast<float>(i));
  }
  std::vector<float> xs(16);
  for (int k = 0; k < 16; ++k) xs[static_cast<std::size_t>(k)] = 0.001f * static_cast<float>(k);
  const FeedDict feeds = {{n, Tensor(iterations)}, {x, Tensor::from_vector(xs)}};
  Session sess(g);
  // Warm-up (each plan built once), and the two must agree.
  const auto a = sess.run(looped, feeds).to_vector<float>();
  const auto b = sess.run(unrolled, feeds).to_vector<float>();
  if (a != b) throw std::runtime_error("WHILE: the loop and the unrolled graph disagree");
  std::vector<double> loop_us, unrolled_us;
  for (int r = 0; r < pairs; ++r) {
    auto t0 = Clock::now();
    sess.run(looped, feeds);
    auto t1 = Clock::now();
    sess.run(unrolled, feeds);
    auto t2 = Clock::now();
    loop_us.push_back(ms_between(t0, t1) * 1e3 / iterations);
    unrolled_us.push_back(ms_between(t1, t2) * 1e3 / iterations);
  }
  const auto ratio = record({"WHILE", "while loop (control flow v1), per iteration", "us", loop_us,
                             unrolled_us, "the same arithmetic unrolled", ""});
  std::printf(
      "WHILE %d iterations of acc += x * i on 16 floats: while loop median %.2f us/iteration "
      "(%s); unrolled into a straight graph %.2f us/iteration (%s); ratio %s\n",
      iterations, median_of(loop_us), spread(loop_us).c_str(), median_of(unrolled_us),
      spread(unrolled_us).c_str(), ratio_text(ratio).c_str());
  std::fflush(stdout);
}

}  // namespace af::bench
