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
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include <actorflow/actorflow.hpp>

namespace {

int usage(const std::string& why) {
  std::cerr << "actorflow-devices: " << why << "\n"
            << "usage: actorflow-devices [--memory-fraction F] [--allow-growth] [--visible-device-list L]\n"
            << "                         [--allocate BYTES] [--hold-ms N]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  af::SessionConfig config;
  long long allocate = -1;
  long long hold_ms = 0;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
      return argv[++i];
    };
    try {
      if (flag == "--memory-fraction") config.gpu_options.per_process_gpu_memory_fraction = std::stod(value());
      else if (flag == "--allow-growth") config.gpu_options.allow_growth = true;
      else if (flag == "--visible-device-list") config.gpu_options.visible_device_list = value();
      else if (flag == "--allocate") allocate = std::stoll(value());
      else if (flag == "--hold-ms") hold_ms = std::stoll(value());
      else if (flag == "--help" || flag == "-h") return usage("help"), 0;
      else return usage("unknown flag " + flag);
    } catch (const std::exception& e) {
      return usage(e.what());
    }
  }

  auto gpus = af::list_gpus();
  std::cout << "CUDA: " << (af::built_with_cuda() ? "built in" : "not built in") << "\n";
  if (gpus.empty()) std::cout << "GPUs: none (" << af::gpu_unavailable_reason() << ")\n";
  for (const auto& g : gpus)
    std::cout << "GPU " << g.index << ": " << g.name << ", compute capability " << g.compute_major << "."
              << g.compute_minor << ", " << g.multiprocessors << " SMs, memory " << af::format_bytes(g.memory_total)
              << " total, " << af::format_bytes(g.memory_free) << " free, pci bus id " << g.pci_bus_id << "\n";
  try {
    af::Graph g;
    af::Output held;
    if (allocate >= 0) {
      auto on_gpu = g.device("/device:GPU:0");
      const std::int64_t floats = std::max<long long>(1, allocate / 4);
      held = af::reduce_sum(af::random_uniform(g, af::Shape{floats}, af::DType::float32, 0, 1, 1), {}, false, "held");
    }
    af::Session sess(g, "", config);
    for (const auto& d : sess.list_devices())
      std::cout << "session device " << d.name << " (" << d.device_type << "), memory limit "
                << af::format_bytes(static_cast<std::size_t>(d.memory_limit)) << ": " << d.description << "\n";
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
