// gpu_options across processes and CUDA_VISIBLE_DEVICES numbering, with actorflow-devices
// child processes (a GPU's memory options are fixed per process, as in TensorFlow). Every
// case skips where no GPU is visible.
#include <sys/wait.h>

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "process.hpp"
#include "test_paths.hpp"

using namespace std::chrono_literals;

namespace {

// The precondition of every case: a GPU is visible (else the case is skipped).
boost::test_tools::assertion_result gpu_present(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result r(!af::list_gpus().empty());
  if (!r) r.message() << "no GPU visible: " << af::gpu_unavailable_reason();
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string log_path(const std::string& name) {
  std::string p = "/tmp/actorflow-gpu-" + name + "-" + std::to_string(::getpid()) + ".log";
  std::remove(p.c_str());
  return p;
}

// The exit code of a child from ProcessGroup::wait's wait status (-1: still running or killed).
int exit_code(int wait_status) {
  return wait_status >= 0 && WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

// Runs actorflow-devices with `args` (and `env_cuda_visible` when given) to completion.
std::pair<int, std::string> run_devices(std::vector<std::string> args,
                                        const char* env_cuda_visible = nullptr) {
  std::vector<std::string> argv{ACTORFLOW_DEVICES_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const char* old = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string saved = old ? old : "";
  if (env_cuda_visible) ::setenv("CUDA_VISIBLE_DEVICES", env_cuda_visible, 1);
  af::test::ProcessGroup group;
  auto log = log_path("run");
  auto i = group.spawn(argv, log);
  if (env_cuda_visible) {
    if (old)
      ::setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
    else
      ::unsetenv("CUDA_VISIBLE_DEVICES");
  }
  int rc = exit_code(group.wait(i, 120s));
  return {rc, slurp(log)};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gpu_memory_test, *boost::unit_test::label("gpu") *
                                           boost::unit_test::precondition(&gpu_present))

// Two processes with per_process_gpu_memory_fraction 0.4 coexist; a third does not fit and
// fails with ResourceExhausted instead of crashing.
BOOST_AUTO_TEST_CASE(two_processes_at_0_4_coexist_and_a_third_fails,
                     *boost::unit_test::timeout(240)) {
  af::test::ProcessGroup group;
  std::vector<std::string> logs{log_path("a"), log_path("b"), log_path("c")};
  std::vector<std::size_t> ids;
  for (int p = 0; p < 2; ++p) {
    ids.push_back(group.spawn({ACTORFLOW_DEVICES_BINARY, "--memory-fraction", "0.4", "--allocate",
                               "1048576", "--hold-ms", "15000"},
                              logs[static_cast<std::size_t>(p)]));
  }
  // Wait until both hold their memory.
  auto until = std::chrono::steady_clock::now() + 90s;
  while (std::chrono::steady_clock::now() < until &&
         (slurp(logs[0]).find("allocated") == std::string::npos ||
          slurp(logs[1]).find("allocated") == std::string::npos))
    std::this_thread::sleep_for(100ms);
  BOOST_REQUIRE_MESSAGE(slurp(logs[0]).find("allocated") != std::string::npos, slurp(logs[0]));
  BOOST_REQUIRE_MESSAGE(slurp(logs[1]).find("allocated") != std::string::npos, slurp(logs[1]));
  auto third = group.spawn(
      {ACTORFLOW_DEVICES_BINARY, "--memory-fraction", "0.4", "--allocate", "1048576"}, logs[2]);
  BOOST_TEST(exit_code(group.wait(third, 90s)) == 1);
  const std::string out = slurp(logs[2]);
  BOOST_TEST(out.find("could not reserve") != std::string::npos, out);
  BOOST_TEST(exit_code(group.wait(ids[0], 60s)) == 0);
  BOOST_TEST(exit_code(group.wait(ids[1], 60s)) == 0);
}

// allow_growth takes memory on demand: a growing process leaves room for a 0.9 process.
BOOST_AUTO_TEST_CASE(allow_growth_takes_memory_on_demand, *boost::unit_test::timeout(240)) {
  af::test::ProcessGroup group;
  auto grow_log = log_path("grow");
  auto grower = group.spawn(
      {ACTORFLOW_DEVICES_BINARY, "--allow-growth", "--allocate", "1048576", "--hold-ms", "15000"},
      grow_log);
  auto until = std::chrono::steady_clock::now() + 90s;
  while (std::chrono::steady_clock::now() < until &&
         slurp(grow_log).find("allocated") == std::string::npos)
    std::this_thread::sleep_for(100ms);
  BOOST_REQUIRE_MESSAGE(slurp(grow_log).find("allocated") != std::string::npos, slurp(grow_log));
  auto [rc, out] = run_devices({"--memory-fraction", "0.9", "--allocate", "1048576"});
  BOOST_TEST(rc == 0, out);
  BOOST_TEST(exit_code(group.wait(grower, 60s)) == 0);
}

// CUDA_VISIBLE_DEVICES decides what is visible and how it is numbered; an empty value
// hides every GPU; a bad visible_device_list is InvalidArgument.
BOOST_AUTO_TEST_CASE(cuda_visible_devices_renumbers_gpus, *boost::unit_test::timeout(240)) {
  auto gpus = af::list_gpus();
  auto [rc_none, none] = run_devices({}, "");
  BOOST_TEST(rc_none == 0);
  BOOST_TEST(none.find("GPUs: none") != std::string::npos, none);
  BOOST_TEST(none.find("device:GPU:0") == std::string::npos, none);
  const int last = static_cast<int>(gpus.size()) - 1;
  const std::string reversed = gpus.size() > 1 ? std::to_string(last) + ",0" : "0";
  auto [rc, out] = run_devices({}, reversed.c_str());
  BOOST_TEST(rc == 0);
  BOOST_TEST(out.find("GPU 0: " + gpus[static_cast<std::size_t>(last)].name) != std::string::npos,
             out);
  BOOST_TEST(
      out.find("pci bus id " + gpus[static_cast<std::size_t>(last)].pci_bus_id) < out.find("GPU 1"),
      out);
  auto [rc_bad, bad] = run_devices({"--visible-device-list", "0,99"});
  BOOST_TEST(rc_bad == 1);
  BOOST_TEST(bad.find("'visible_device_list' listed an invalid GPU id '99'") != std::string::npos,
             bad);
}

BOOST_AUTO_TEST_SUITE_END()
