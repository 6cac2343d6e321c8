// WHILE: what a TensorFlow while loop (control flow v1) costs per iteration in actorflow's
// executor: `while i < n: i += 1; acc += x * i` on 16 floats, 10,000 iterations a step, the
// loop built as tf.compat.v1.while_loop builds it (Enter, Merge, Less, LoopCond, Switch,
// Identity, NextIteration, Exit: 15 nodes an iteration, 10 parallel iterations). Baseline,
// in interleaved pairs: the same arithmetic unrolled into a straight graph (a Const, a Mul
// and an AddV2 per iteration), which the executor walks without frames. TensorFlow's own
// loop on the same work: scripts/peers/while_peers.py.
#include <actorflow/actorflow.hpp>
#include <chrono>
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

}  // namespace

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
