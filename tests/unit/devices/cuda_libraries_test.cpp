// cuBLAS and cuDNN are opened lazily: a process of a CUDA build that never creates a GPU
// device (no GPU, or device_count {"GPU": 0}) does not map them. The check runs in a child
// process (this test binary, re-run on this case alone), since other cases of the binary
// may open GPU sessions on a machine with a GPU.
#include <sys/wait.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "process.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What the child does: a CPU-only session and the GPU queries, then its own mappings.
int child_main() {
  af::Graph g;
  auto c = g.constant(1.0f, "a") + g.constant(2.0f, "b");
  af::SessionConfig config;
  config.device_count["GPU"] = 0;
  af::Session sess(g, "", config);
  if (sess.run(c).scalar<float>() != 3.0f) return 3;
  (void)af::list_gpus();
  (void)af::gpu_unavailable_reason();
  const std::string maps = slurp("/proc/self/maps");
  int rc = 0;
  for (const char* library : {"libcublas", "libcudnn"})
    if (maps.find(library) != std::string::npos) {
      std::printf("mapped: %s\n", library);
      rc = 1;
    }
  return rc;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(cuda_libraries_test)

BOOST_AUTO_TEST_CASE(a_process_without_a_gpu_device_maps_neither_cublas_nor_cudnn,
                     *boost::unit_test::timeout(120)) {
  if (std::getenv("ACTORFLOW_CUDA_LIBRARIES_CHILD") != nullptr) {
    std::fflush(stdout);
    std::_Exit(child_main());
  }
  const std::string self = boost::unit_test::framework::master_test_suite().argv[0];
  const std::string log = "/tmp/actorflow-cuda-libraries-" + std::to_string(::getpid()) + ".log";
  std::remove(log.c_str());
  ::setenv("ACTORFLOW_CUDA_LIBRARIES_CHILD", "1", 1);
  af::test::ProcessGroup group;
  auto child = group.spawn({self,
                            "--run_test=cuda_libraries_test/"
                            "a_process_without_a_gpu_device_maps_neither_cublas_nor_cudnn"},
                           log);
  ::unsetenv("ACTORFLOW_CUDA_LIBRARIES_CHILD");
  const int status = group.wait(child, std::chrono::seconds(90));
  const std::string out = slurp(log);
  std::remove(log.c_str());
  BOOST_TEST_MESSAGE("built with CUDA: " << af::built_with_cuda() << "; child said: " << out);
  BOOST_REQUIRE_MESSAGE(status >= 0 && WIFEXITED(status), "the child did not exit: " << out);
  BOOST_TEST(WEXITSTATUS(status) == 0, out);
  BOOST_TEST(out.find("mapped:") == std::string::npos, out);
}

BOOST_AUTO_TEST_SUITE_END()
