// actorflow-devices: what actorflow sees on this machine, as `nvidia-smi` would tell it
// (name, compute capability, memory total/free, PCI bus id), and the devices a session
// gets under given gpu_options. With --allocate it also opens a session that holds a
// tensor of that many bytes on GPU:0, which shows how processes share a GPU's memory.
//
//   actorflow-devices                          list GPUs and a default session's devices
//   actorflow-devices --memory-fraction 0.4 --allocate 1000000 --hold-ms 5000
//   actorflow-devices --allow-growth --visible-device-list 1,0
//
// Exit status: 0 on success, 1 when the session or the allocation fails (the error is
// printed), 2 for bad flags.
#include <actorflow/actorflow.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "cli.hpp"

int main(int argc, char** argv) {
  af::SessionConfig config;
  long long allocate = -1;
  long long hold_ms = 0;
  af::apps::App app(
      "actorflow-devices",
      "Prints the GPUs CUDA shows this process and the devices a session gets under the given\n"
      "gpu_options; with --allocate, also holds a session that allocates that many bytes on "
      "GPU:0.");
  auto& cli = app.cli;
  cli.add_option(
         "--memory-fraction", config.gpu_options.per_process_gpu_memory_fraction,
         "gpu_options.per_process_gpu_memory_fraction (0: TensorFlow's default reservation)")
      ->check(CLI::Range(0.0, 1.0));
  cli.add_flag("--allow-growth", config.gpu_options.allow_growth, "gpu_options.allow_growth");
  cli.add_option("--visible-device-list", config.gpu_options.visible_device_list,
                 "gpu_options.visible_device_list, e.g. 1,0");
  cli.add_option("--allocate", allocate, "bytes to allocate on GPU:0 (-1: none)")
      ->check(af::apps::integer_in(-1));
  cli.add_option("--hold-ms", hold_ms, "how long to hold that allocation")
      ->check(af::apps::integer_in(0));
  if (auto code = app.parse(argc, argv)) return *code;

  auto gpus = af::list_gpus();
  std::cout << "CUDA: " << (af::built_with_cuda() ? "built in" : "not built in") << "\n";
  if (gpus.empty()) std::cout << "GPUs: none (" << af::gpu_unavailable_reason() << ")\n";
  for (const auto& g : gpus)
    std::cout << "GPU " << g.index << ": " << g.name << ", compute capability " << g.compute_major
              << "." << g.compute_minor << ", " << g.multiprocessors << " SMs, memory "
              << af::format_bytes(g.memory_total) << " total, " << af::format_bytes(g.memory_free)
              << " free, pci bus id " << g.pci_bus_id << "\n";
  try {
    af::Graph g;
    af::Output held;
    if (allocate >= 0) {
      auto on_gpu = g.device("/device:GPU:0");
      const std::int64_t floats = std::max<long long>(1, allocate / 4);
      held = af::reduce_sum(af::random_uniform(g, af::Shape{floats}, af::DType::float32, 0, 1, 1),
                            {}, false, "held");
    }
    af::Session sess(g, "", config);
    for (const auto& d : sess.list_devices())
      std::cout << "session device " << d.name << " (" << d.device_type << "), memory limit "
                << af::format_bytes(static_cast<std::size_t>(d.memory_limit)) << ": "
                << d.description << "\n";
    if (allocate >= 0) {
      sess.run(held);
      std::cout << "allocated " << allocate << " bytes on GPU:0\n" << std::flush;
      std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    }
  } catch (const af::Error& e) {
    std::cout << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
