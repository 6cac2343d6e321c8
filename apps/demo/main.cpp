// The chapter's local examples, in C++: placement logging, control dependencies, soft
// placement, and a traced step written as a Chrome trace.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <actorflow/actorflow.hpp>

int main(int argc, char** argv) {
  std::string trace_path = argc > 1 ? argv[1]
                                    : (std::filesystem::temp_directory_path() / "actorflow-demo-trace.json").string();
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
  return 0;
}
