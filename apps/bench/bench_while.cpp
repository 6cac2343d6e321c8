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
