// The chapter's examples, in C++: placement logging, control dependencies, soft
// placement, a traced step written as a Chrome trace, then a cluster of three tasks
// (ps:0, worker:0, worker:1): simple_client through two tasks and replica_device_setter.
//
// usage: actorflow-demo [TRACE.json] [--cluster CLUSTER.json]
// Without --cluster the three tasks are Servers in this process; with it the demo is only a
// client of the servers the file describes (scripts/demo.sh --processes starts them).
#include <actorflow/actorflow.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli.hpp"

namespace {

void cluster_demo(const std::string& cluster_file) {
  af::ClusterSpec cluster;
  std::vector<std::unique_ptr<af::Server>> servers;
  if (cluster_file.empty()) {
    auto free_address = [] { return "127.0.0.1:" + std::to_string(af::pick_unused_port()); };
    cluster = af::ClusterSpec(std::map<std::string, std::vector<std::string>>{
        {"ps", {free_address()}}, {"worker", {free_address(), free_address()}}});
    for (auto [job, task] : {std::pair<const char*, int>{"ps", 0}, {"worker", 0}, {"worker", 1}})
      servers.push_back(std::make_unique<af::Server>(cluster, job, task));
    std::cout << "\n== A cluster of three tasks in this process: " << cluster.to_json() << "\n";
  } else {
    cluster = af::ClusterSpec::from_json(af::apps::cluster_json(cluster_file));
    std::cout << "\n== A cluster of server processes: " << cluster.to_json() << "\n";
  }
  auto target = [&](const std::string& job, int task) {
    return "caf://" + cluster.task_address(job, task);
  };

  // simple_client.py as the chapter prints it: x is unpinned, so it lives on the cluster's
  // first device (ps:0), whichever task is the master, and the two workers share it.
  auto simple_client = [&](const std::string& on, bool init) {
    af::Graph g;
    auto x = g.variable(0.0f, {.name = "x"});
    auto increment_x = x.assign(x.value() + 1.0f);
    af::Session sess(g, on);
    if (init) sess.run(x.initializer());
    sess.run(increment_x);
    return sess.run(x.value()).scalar<float>();
  };
  float first = simple_client(target("worker", 0), true);
  std::cout << "simple_client via /job:worker/task:0 (init): x = " << first << "\n";
  float second = simple_client(target("worker", 1), false);
  std::cout << "simple_client via /job:worker/task:1:        x = " << second << "\n";

  // Between-graph replication: variables round-robin over the ps tasks, the rest on the worker.
  af::Graph g;
  af::Variable w, b;
  af::Output y;
  {
    auto setter =
        g.device(af::replica_device_setter(cluster, {.worker_device = "/job:worker/task:1"}));
    w = g.variable(af::Tensor::from_vector<float>({1.0f, 2.0f}), {.name = "w"});
    b = g.variable(0.5f, {.name = "b"});
    y = af::reduce_sum(w.value() * 3.0f) + b;
  }
  af::Session sess(g, target("worker", 1));
  sess.run(g.global_variables_initializer());
  auto value = sess.run(y);
  std::cout << "replica_device_setter: w on " << w.op().device() << ", b on " << b.op().device()
            << ", y on " << y.op().device() << "; y = " << value << "\n";
  // A traced distributed step: every task's kernels in one Chrome trace, one process track
  // per task, flow arrows for the tensors crossing tasks.
  af::RunMetadata trace;
  sess.run({y}, {}, {}, {.trace = true}, &trace);
  auto trace_path =
      (std::filesystem::temp_directory_path() / "actorflow-demo-cluster-trace.json").string();
  trace.write_chrome_trace(trace_path);
  std::cout << "distributed step trace (" << trace.step_stats.size() << " kernels on "
            << "ps:0 and worker:1): " << trace_path << "\n";
  af::Session::reset(target("ps", 0), {""});
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace_path =
      (std::filesystem::temp_directory_path() / "actorflow-demo-trace.json").string();
  std::string cluster_file;
  af::apps::App app("actorflow-demo",
                    "The chapter's examples: placement logging, a timed-out dequeue, a distributed "
                    "step with its\n"
                    "Chrome trace, and simple_client on a cluster (in-process tasks, or the "
                    "servers of --cluster).");
  app.cli.add_option("trace", trace_path, "where the distributed step's Chrome trace is written");
  app.cli
      .add_option("--cluster", cluster_file,
                  "a cluster spec of running actorflow-server processes (JSON file)")
      ->check(CLI::ExistingFile);
  if (auto code = app.parse(argc, argv)) return *code;
  std::cout << std::unitbuf;  // interleave with the placement log on stderr
  std::cout << "== Logging placements (a, b pinned to /cpu:0; c = a * b unpinned)\n";
  af::Graph g;
  af::Variable a;
  af::Output b;
  {
    auto on_cpu = g.device("/cpu:0");
    a = g.variable(3.0f, {.name = "a"});
    b = g.constant(4.0f, "b");
  }
  af::Output c = a * b;
  af::SessionConfig config;
  config.log_device_placement = true;
  config.allow_soft_placement = true;
  af::Session sess(g, config);
  sess.run(a.initializer());
  std::cout << "sess.run(c) = " << sess.run(c) << "\n";

  std::cout << "\n== Control dependencies (x, y after a, b)\n";
  af::Graph g2;
  af::Output a2 = g2.constant(1.0f, "a");
  af::Output b2 = a2 + 2.0f;
  af::Output x, y;
  {
    auto deps = g2.control_dependencies({a2.op(), b2.op()});
    x = g2.constant(3.0f, "x");
    y = g2.constant(4.0f, "y");
  }
  af::Output z = x + y;
  af::Session sess2(g2);
  af::RunMetadata meta;
  std::cout << "z = " << sess2.run({z}, {}, {}, {.trace = true}, &meta)[0] << "\n";
  for (auto& s : meta.step_stats)
    std::cout << "  " << s.node_name << " (" << s.op << ") on " << s.device << "\n";

  std::cout << "\n== Soft placement: int32 variable pinned to /gpu:0\n";
  af::Graph g3;
  af::Variable i;
  {
    auto gpu = g3.device("/gpu:0");
    i = g3.variable(af::Tensor(3), {.name = "i"});
  }
  try {
    af::Session strict(g3);
    strict.run(i.initializer());
  } catch (const af::InvalidArgumentError& e) {
    std::cout << "without allow_soft_placement: InvalidArgumentError: "
              << std::string(e.what()).substr(0, 160) << "...\n";
  }
  af::Session soft(g3, config);
  soft.run(i.initializer());
  std::cout << "with allow_soft_placement: i = " << soft.run(i.value()) << " on "
            << soft.placement().at("i") << "\n";

  std::cout << "\n== A traced step across two CPU devices\n";
  af::Graph g4;
  af::SessionConfig two_cpus;
  two_cpus.device_count["CPU"] = 2;
  af::Output m = af::random_normal(g4, af::Shape{256, 256}, af::float32, 0.0, 1.0, 42);
  af::Output p0 = af::matmul(m, m);
  af::Output p1;
  {
    auto cpu1 = g4.device("/cpu:1");
    p1 = af::matmul(m, m, true, false);
  }
  af::Output total = af::reduce_sum(p0 + p1);
  af::Session sess4(g4, two_cpus);
  af::RunMetadata trace;
  auto result = sess4.run({total}, {}, {}, {.trace = true}, &trace);
  std::cout << "sum = " << result[0] << " (" << trace.step_stats.size() << " kernels traced)\n";
  trace.write_chrome_trace(trace_path);
  std::cout << "step trace (Chrome trace-event JSON, open in Perfetto): " << trace_path << "\n";

  cluster_demo(cluster_file);
  return 0;
}
