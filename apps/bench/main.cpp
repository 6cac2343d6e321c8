// actorflow's local-runtime benchmarks. Each prints the median of several runs and its
// ratio to a baseline measured in the same run.
//
//   P1   step overhead of `c = a + b` vs one plain CAF request/response round trip
//   EX   executor throughput: 1,000-node chain and 1,000-wide fan-out of trivial ops
//   PAR  two independent 512x512 matmul chains on a 2-thread vs 1-thread inter-op pool
//   MM   matmul 1024^3 GFLOP/s through a session vs OpenBLAS and oneDNN sgemm, same threads
//   P2 / P3 / P8   queue handoff, CSV pipeline, pipeline memory (bench_queues.cpp)
//   P4 / P5 / null / P12 / soak   cluster transfers, remote steps, null steps, remote feeds,
//                  soak (bench_remote.cpp)
//   P6 / T85 / CKPT   training step, time to 85% on Fashion-MNIST, checkpoints (bench_train.cpp)
//   GRAPH / EVENTS   GraphDef import, events files (bench_graph.cpp)
//   TFDATA  epochs of a tf.data pipeline TensorFlow wrote (bench_data.cpp; not in all: its
//           pipelines and TensorFlow's figures come from scripts/peers/tf_data_peers.py)
//   SERVE   a SavedModel TensorFlow wrote, loaded and served request by request (bench_serve.cpp;
//           not in all: the model and TensorFlow's figures come from saved_model_peers.py)
//   WHILE   a while loop's cost per iteration vs the same arithmetic unrolled (bench_while.cpp)
//   WHILE-GRAD  a gradient through a while loop vs the recurrence unrolled (bench_while.cpp)
//   DYNAMIC-RNN  an RNN training step through TensorArrays vs the recurrence unrolled
//                (bench_while.cpp)
//
// Usage: actorflow-bench
// [all|p1|ex|par|mm|p2|p3|p8|p4|p5|null|p12|p6|t85|ckpt|graph|events|tfdata|serve|while|whilegrad|
// rnn|soak]
// [--quick] (--help)
//        actorflow-bench soak MINUTES
// For profiling: p2-pipelined (P2's pipelined case alone), p2-self (one thread's cost of an
// enqueue_many + dequeue_many pair, no second thread).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <caf/all.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.hpp"
#include "cli.hpp"
#include "gemm_baselines.hpp"

using Clock = std::chrono::steady_clock;
using ping_atom = caf::atom_constant<caf::atom("ping")>;

namespace {

bool quick = false;

double us_since(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

void bench_p1() {
  // Interleaved: a block of steps, then a block of round trips, 9 times; one ratio per pair.
  const int pairs = 9, block = quick ? 300 : 2000;
  af::Graph g;
  af::Output c = g.constant(1.0f, "a") + g.constant(2.0f, "b");
  af::Session sess(g);
  for (int i = 0; i < 200; ++i) sess.run(c);  // warm up, build the plan
  // Baseline: a plain request/response round trip from a blocking caller to an actor.
  auto& sys = af::Runtime::global().system();
  auto echo = sys.spawn([]() -> caf::behavior { return {[](ping_atom, int x) { return x; }}; });
  std::vector<double> step_us, rtt_us;
  {
    caf::scoped_actor self{sys};
    auto round_trip = [&](int i) {
      self->request(echo, std::chrono::seconds(5), ping_atom::value, i)
          .receive([](int) {}, [](caf::error&) {});
    };
    for (int i = 0; i < 200; ++i) round_trip(i);
    std::vector<double> a(static_cast<std::size_t>(block)), b(a.size());
    for (int p = 0; p < pairs; ++p) {
      for (auto& x : a) {
        auto t = Clock::now();
        sess.run(c);
        x = us_since(t);
      }
      for (int i = 0; i < block; ++i) {
        auto t = Clock::now();
        round_trip(i);
        b[static_cast<std::size_t>(i)] = us_since(t);
      }
      step_us.push_back(af::bench::median_of(a));
      rtt_us.push_back(af::bench::median_of(b));
    }
  }
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  const auto ratio = af::bench::record({"P1", "step overhead (c = a + b)", "us", step_us, rtt_us,
                                        "CAF request/response round trip", ""});
  std::printf(
      "P1 step overhead (c = a + b): median %.1f us (%d pairs of %d steps); CAF "
      "request/response round trip median %.1f us; ratio %s\n",
      af::bench::median_of(step_us), pairs, block, af::bench::median_of(rtt_us),
      af::bench::ratio_text(ratio).c_str());
}

void bench_executor() {
  const int width = 1000;
  const int reps = quick ? 20 : 200;
  for (int kind = 0; kind < 2; ++kind) {
    af::Graph g;
    af::Output one = g.constant(1.0f, "one");
    std::vector<af::Operation> targets;
    af::Output fetch;
    if (kind == 0) {
      af::Output x = one;
      for (int i = 0; i < width; ++i) x = af::add(x, one);
      fetch = x;
    } else {
      std::vector<af::Operation> leaves;
      for (int i = 0; i < width; ++i) leaves.push_back(af::identity(one).op());
      targets.push_back(g.group(leaves));
    }
    af::SessionConfig config;
    af::Session sess(g, config);
    auto run = [&] {
      if (kind == 0)
        sess.run(fetch);
      else
        sess.run(targets[0]);
    };
    for (int i = 0; i < 10; ++i) run();
    // Baseline: the empty step (one constant), to separate per-op cost from step overhead.
    af::Graph empty;
    af::Output k = empty.constant(1.0f);
    af::Session base(empty);
    for (int i = 0; i < 10; ++i) base.run(k);
    std::vector<double> step_us, base_us;
    for (int i = 0; i < reps; ++i) {
      auto t = Clock::now();
      run();
      step_us.push_back(us_since(t));
      t = Clock::now();
      base.run(k);
      base_us.push_back(us_since(t));
    }
    double s = af::bench::median_of(step_us), b = af::bench::median_of(base_us);
    double ops_per_s = width / ((s - b) * 1e-6);
    std::printf(
        "EX executor %s of %d trivial ops: median step %.1f us (empty step %.1f us); "
        "%.2f M ops/s on one device actor (one core)\n",
        kind == 0 ? "chain" : "fan-out", width, s, b, ops_per_s / 1e6);
  }
}

void bench_parallel() {
  const int depth = 4;
  const int reps = quick ? 3 : 9;
  auto time_with = [&](int inter_threads) {
    af::Graph g;
    af::Output a = af::random_uniform(g, af::Shape{512, 512}, af::float32, 0.0, 1.0 / 512, 1);
    af::Output b = af::random_uniform(g, af::Shape{512, 512}, af::float32, 0.0, 1.0 / 512, 2);
    af::Output x = a, y = b;
    for (int i = 0; i < depth; ++i) {
      x = af::matmul(x, a);
      y = af::matmul(y, b);
    }
    af::SessionConfig config;
    config.use_per_session_threads = true;
    config.inter_op_parallelism_threads = inter_threads;
    config.intra_op_parallelism_threads = 1;
    af::Session sess(g, config);
    sess.run({x, y});
    std::vector<double> us;
    for (int i = 0; i < reps; ++i) {
      auto t = Clock::now();
      sess.run({x, y});
      us.push_back(us_since(t));
    }
    return af::bench::median_of(us);
  };
  double one = time_with(1), two = time_with(2);
  std::printf(
      "PAR two independent chains of %d 512x512 matmuls: inter-op 1 thread %.1f ms, "
      "2 threads %.1f ms; speedup %.2fx\n",
      depth, one / 1000, two / 1000, one / two);
}

void bench_matmul() {
  const int n = 1024;
  const int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int reps = quick ? 3 : 7;
  af::Graph g;
  af::Output a = af::random_uniform(g, af::Shape{n, n}, af::float32, 0.0, 1.0, 1);
  af::Output b = af::random_uniform(g, af::Shape{n, n}, af::float32, 0.0, 1.0, 2);
  auto va = g.variable(a, {.name = "va"});
  auto vb = g.variable(b, {.name = "vb"});
  af::Output mm = af::matmul(va, vb);
  af::SessionConfig config;
  config.use_per_session_threads = true;
  config.intra_op_parallelism_threads = threads;
  config.inter_op_parallelism_threads = 1;
  af::Session sess(g, config);
  sess.run(g.global_variables_initializer());
  sess.run(mm);
  double flops = 2.0 * n * n * n;
  // Baselines: the same product called directly, on OpenBLAS and on oneDNN, each with its
  // own threads; the ratio is to the faster. In interleaved pairs, each block of 3 products
  // after a pause that lets the other side's spinning threads sleep.
  auto ta = sess.run(va.value()), tb = sess.run(vb.value());
  std::vector<float> out(static_cast<std::size_t>(n) * n);
  struct Direct {
    std::string name;
    std::function<void()> set_threads, call;
    std::vector<double> gflops;
  };
  std::vector<Direct> directs;
  if (const auto* blas = af::bench::openblas_baseline())
    directs.push_back({"OpenBLAS cblas_sgemm",
                       [blas, threads] { blas->set_num_threads(threads); },
                       [&, blas] {
                         blas->gemm(false, false, n, n, n, 1.0f, ta.data<float>(), n,
                                    tb.data<float>(), n, 0.0f, out.data(), n);
                       },
                       {}});
  if (auto sgemm = af::bench::dnnl_sgemm_fn())
    directs.push_back({"oneDNN dnnl_sgemm",
                       [threads] { af::bench::set_dnnl_threads(threads); },
                       [&, sgemm] {
                         sgemm('N', 'N', n, n, n, 1.0f, ta.data<float>(), n, tb.data<float>(), n,
                               0.0f, out.data(), n);
                       },
                       {}});
  auto block_gflops = [&](const std::function<void()>& call) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::vector<double> us;
    for (int i = 0; i < 3; ++i) {
      auto t = Clock::now();
      call();
      us.push_back(us_since(t));
    }
    return flops / (af::bench::median_of(us) * 1e-6) / 1e9;
  };
  for (auto& d : directs) {
    d.set_threads();
    d.call();  // warm: threads and packing buffers
  }
  std::vector<double> ours, best;
  for (int r = 0; r < reps; ++r) {
    ours.push_back(block_gflops([&] { sess.run(mm); }));
    double b = 0;
    for (auto& d : directs) {
      d.set_threads();
      d.gflops.push_back(block_gflops(d.call));
      b = std::max(b, d.gflops.back());
    }
    if (b > 0) best.push_back(b);
  }
  std::string line = "MM matmul " + std::to_string(n) + "^3 float32, " + std::to_string(threads) +
                     " threads: session " + af::bench::fixed(af::bench::median_of(ours), 1) +
                     " GFLOP/s (incl. step)";
  for (auto& d : directs)
    line += "; " + d.name + " " + af::bench::fixed(af::bench::median_of(d.gflops), 1) + " GFLOP/s";
  if (!best.empty()) {
    const auto ratio = af::bench::record(
        {"MM", "matmul 1024^3 float32, " + std::to_string(threads) + " threads", "GFLOP/s", ours,
         best, "the faster of OpenBLAS and oneDNN called directly", ""});
    line += "; ratio " + af::bench::ratio_text(ratio) + " of the faster";
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

namespace af::bench {
void bench_p2(bool quick);
void bench_p3(bool quick);
void bench_p2_pipelined(bool quick);
void bench_p2_self(bool quick);
void bench_p8(bool quick, const char* self_exe);
int p8_child(int argc, char** argv);
void bench_remote(bool quick, const char* self_exe, bool p4, bool p5);
int remote_child();
void bench_null_step(bool quick, const char* self_exe);
void bench_remote_feed(bool quick, const char* self_exe);
int cluster_child(int argc, char** argv);
void bench_soak(double minutes, const char* self_exe);
void bench_p6(bool quick);
void bench_time_to_accuracy(bool quick);
void bench_checkpoint(bool quick);
void bench_graph_import(bool quick, const std::string& file, int nodes);
void write_bench_graph(const std::string& path, int nodes);
void bench_events(bool quick);
void bench_tf_data(bool quick, const std::string& file);
void bench_serve(bool quick, const std::string& dir, int batch);
void bench_while(bool quick);
void bench_while_grad(bool quick);
void bench_rnn(bool quick);
}  // namespace af::bench

extern char** environ;

namespace {

/// Runs `actorflow-bench NAME` in a child process (its output goes to this one's) and adds
/// the rows it records to this run's; false when it could not run or failed.
bool run_child_benchmark(const char* name, bool quick) {
  std::fflush(stdout);
  // The child's JSON record, in a file of its own under the temporary directory.
  std::string json = (std::filesystem::temp_directory_path() / "actorflow-bench-XXXXXX").string();
  const int fd = ::mkstemp(json.data());
  if (fd < 0) return false;
  ::close(fd);
  const std::string self = "/proc/self/exe";
  std::vector<std::string> args = {"actorflow-bench", name, "--json", json};
  if (quick) args.push_back("--quick");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int status = -1;
  const bool ran = ::posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ) == 0 &&
                   ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0;
  const bool merged = ran && af::bench::merge_results_json(json);
  ::unlink(json.c_str());
  if (!ran) std::fprintf(stderr, "actorflow-bench: the %s child process failed\n", name);
  return merged;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__x86_64__) && defined(__GNUC__)
  // The baselines open OpenBLAS, which picks its kernels when it loads: make it pick the ones
  // actorflow's own loader picks (kernels/src/cpu_gemm.cpp) whoever opens it first.
  __builtin_cpu_init();
  if (std::getenv("OPENBLAS_CORETYPE") == nullptr && __builtin_cpu_is("amd") &&
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    ::setenv("OPENBLAS_CORETYPE", "SkylakeX", 1);
#endif
  if (argc > 1 && std::strcmp(argv[1], "p8-child") == 0) return af::bench::p8_child(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "remote-child") == 0) return af::bench::remote_child();
  if (argc > 1 && std::strcmp(argv[1], "cluster-child") == 0)
    return af::bench::cluster_child(argc, argv);
  std::string which = "all";
  double soak_minutes = 10.0;
  af::apps::App app(
      "actorflow-bench",
      "Runs actorflow's benchmarks; each line is a median of repeated runs beside a baseline\n"
      "measured in the same run.");
  app.cli
      .add_option("benchmark", which,
                  "which benchmark; soak runs for minutes and is not part of all")
      ->check(CLI::IsMember({"all",   "p1",           "ex",        "par",    "mm",
                             "p2",    "p2-pipelined", "p2-self",   "p3",     "p8",
                             "p4",    "p5",           "null",      "p12",    "p6",
                             "t85",   "ckpt",         "graph",     "events", "tfdata",
                             "serve", "while",        "whilegrad", "rnn",    "soak"}));
  app.cli.add_flag("--quick", quick, "fewer repetitions");
  std::string json_path, commit = "unknown";
  app.cli.add_option("--json", json_path,
                     "also write the figures as JSON to this file (machine, commit, each row "
                     "with its median, range and the ratio of its interleaved pairs)");
  app.cli.add_option("--commit", commit, "the commit to name in the JSON record");
  app.cli.add_option("minutes", soak_minutes, "how long soak runs")
      ->check(af::apps::positive_real());
  std::string graph_file, write_graph;
  int graph_nodes = 100000;
  app.cli.add_option("--graph-file", graph_file,
                     "graph: import this binary GraphDef instead of the generated one");
  app.cli.add_option("--write-graph", write_graph,
                     "graph: write the generated GraphDef to this file and exit");
  app.cli.add_option("--graph-nodes", graph_nodes, "graph: nodes of the generated GraphDef")
      ->check(af::apps::integer_in(2));
  std::string data_graph;
  app.cli.add_option("--data-graph", data_graph,
                     "tfdata: the tf.data pipeline to run (a binary GraphDef with nodes init "
                     "and next)");
  std::string saved_model_dir;
  int serve_batch = 1;
  app.cli.add_option("--saved-model", saved_model_dir,
                     "serve: the SavedModel to serve (its serving_default signature takes a "
                     "float32 [?, D] input)");
  app.cli.add_option("--batch", serve_batch, "serve: rows per request")
      ->check(af::apps::integer_in(1));
  if (auto code = app.parse(argc, argv)) return *code;
  if (!write_graph.empty()) {
    af::bench::write_bench_graph(write_graph, graph_nodes);
    return 0;
  }
  // The program the benchmarks' server processes run: this one, unless AF_BENCH_CHILD names
  // a wrapper that runs it under a profiler (docs/benchmarks.md, "Profiling a server").
  const char* const child_exe =
      std::getenv("AF_BENCH_CHILD") ? std::getenv("AF_BENCH_CHILD") : "/proc/self/exe";
  if (which == "soak") {
    af::bench::bench_soak(soak_minutes, child_exe);
    return 0;
  }
  std::printf(
      "actorflow-bench on %s (CAF scheduler: stealing, max-threads = max(2, cores), "
      "max-throughput = 300)\n",
      af::bench::machine_description().c_str());
  // T85 pins its process to one CPU: it needs a process whose shared thread pools are not
  // sized (and allowed to spin) for two CPUs by the benchmarks before it, and the threads it
  // starts while pinned must not confine the ones after it. Under `all` it runs in a child
  // process of its own (in the same process after the others, its step ran at 0.71-0.83x of
  // its floor against 0.96x alone; before them, the CAF workers it started stayed on one CPU).
  if (which == "t85") af::bench::bench_time_to_accuracy(quick);
  if (which == "all" && !run_child_benchmark("t85", quick)) return 1;
  if (which == "all" || which == "p1") bench_p1();
  if (which == "all" || which == "ex") bench_executor();
  if (which == "all" || which == "par") bench_parallel();
  if (which == "all" || which == "mm") bench_matmul();
  if (which == "all" || which == "p2") af::bench::bench_p2(quick);
  if (which == "p2-pipelined") af::bench::bench_p2_pipelined(quick);
  if (which == "p2-self") af::bench::bench_p2_self(quick);
  if (which == "all" || which == "p3") af::bench::bench_p3(quick);
  if (which == "all" || which == "p8") af::bench::bench_p8(quick, child_exe);
  if (which == "all" || which == "p4" || which == "p5")
    af::bench::bench_remote(quick, child_exe, which != "p5", which != "p4");
  if (which == "all" || which == "null") af::bench::bench_null_step(quick, child_exe);
  if (which == "all" || which == "p12") af::bench::bench_remote_feed(quick, child_exe);
  if (which == "all" || which == "p6") af::bench::bench_p6(quick);
  if (which == "all" || which == "ckpt") af::bench::bench_checkpoint(quick);
  if (which == "all" || which == "graph")
    af::bench::bench_graph_import(quick, graph_file, graph_nodes);
  if (which == "all" || which == "events") af::bench::bench_events(quick);
  if (which == "tfdata") af::bench::bench_tf_data(quick, data_graph);
  if (which == "serve") af::bench::bench_serve(quick, saved_model_dir, serve_batch);
  if (which == "all" || which == "while") af::bench::bench_while(quick);
  if (which == "all" || which == "whilegrad") af::bench::bench_while_grad(quick);
  if (which == "all" || which == "rnn") af::bench::bench_rnn(quick);
  if (!json_path.empty() && !af::bench::write_results_json(json_path, commit)) return 1;
  return 0;
}
