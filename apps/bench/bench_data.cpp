// TFDATA: a tf.data input pipeline that TensorFlow wrote (a tf.compat.v1 GraphDef with an
// initializable iterator: `init` initializes it, `next` is its get_next), run an epoch at a
// time: `init`, then `next` until OutOfRange. Its baseline, the same GraphDef run the same way
// by TensorFlow's session, is measured by scripts/peers/tf_data_peers.py in the same run
// (interleaved): that script writes the pipelines and their files.
#include <actorflow/actorflow.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace af::bench {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

void bench_tf_data(bool quick, const std::string& file) {
  if (file.empty()) {
    std::printf(
        "TFDATA needs --data-graph FILE (a tf.data pipeline TensorFlow wrote: "
        "scripts/peers/tf_data_peers.py makes them and runs this beside TensorFlow)\n");
    return;
  }
  Graph g;
  import_graph_def(g, read_graph_def(file), {.name = ""});
  Operation next = g.operation("next");
  std::vector<Output> fetches;
  for (int i = 0; i < next.num_outputs(); ++i) fetches.push_back(next.output(i));
  Session sess(g);
  const int reps = quick ? 3 : 7;
  std::vector<double> epoch_ms;
  std::size_t steps = 0;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t0 = Clock::now();
    sess.run(g.operation("init"));
    steps = 0;
    try {
      for (;;) {
        sess.run(fetches);
        ++steps;
      }
    } catch (const OutOfRangeError&) {
    }
    const double ms = ms_since(t0);
    if (r > 0) epoch_ms.push_back(ms);  // the first epoch warms up
  }
  std::printf("TFDATA epoch of %s: %zu steps, median %.1f ms (%s); %.0f steps/s\n", file.c_str(),
              steps, median_of(epoch_ms), spread(epoch_ms).c_str(),
              static_cast<double>(steps) / median_of(epoch_ms) * 1e3);
  std::fflush(stdout);
}

}  // namespace af::bench
