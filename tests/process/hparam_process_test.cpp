// apps/hparam (the chapter's exercises 8 and 9) against a real actorflow-server: a trial
// trains in its own resource container on the server's task, reports its validation
// accuracy and saves a checkpoint, and the container is reset afterwards; an ensemble of two
// trials restored from their checkpoints is scored on the test set. Skips when Debian's
// dataset-fashion-mnist is not installed.
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>

#include "free_port.hpp"
#include "http_client.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(hparam_process_test)

BOOST_AUTO_TEST_CASE(trials_run_in_their_own_containers_and_their_checkpoints_ensemble,
                     *boost::unit_test::timeout(300)) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_hparam");
  af::test::ProcessGroup group;
  const std::string addr = "127.0.0.1:" + std::to_string(af::test::free_port());
  const std::uint16_t status = af::test::free_port();
  group.spawn({ACTORFLOW_SERVER_BINARY, "--cluster", R"({"worker": [")" + addr + R"("]})", "--job",
               "worker", "--task", "0", "--threads", "1", "--status-port", std::to_string(status)},
              (dir.path / "server.log").string());
  const std::string target = "caf://" + addr;
  auto run = [&](const std::vector<std::string>& args, const std::string& log) {
    std::vector<std::string> argv = {ACTORFLOW_HPARAM_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    auto i = group.spawn(argv, (dir.path / log).string());
    const int st = group.wait(i, 200s);
    const std::string out = group.log(i);
    BOOST_TEST_INFO(out);
    BOOST_REQUIRE(st != -1);
    BOOST_REQUIRE(WIFEXITED(st));
    BOOST_REQUIRE(WEXITSTATUS(st) == 0);
    return out;
  };
  std::vector<std::string> models;
  for (int k = 0; k < 2; ++k) {
    const std::string prefix = (dir.path / ("trial_" + std::to_string(k))).string();
    // The server may still be starting: the client waits for it (peer_wait).
    const std::string out =
        run({"--role", "train", "--target", target, "--device", "/job:worker/task:0", "--container",
             "trial_" + std::to_string(k), "--hidden1", k ? "128" : "64", "--hidden2", "32",
             "--steps", "150", "--checkpoint", prefix},
            "trial_" + std::to_string(k) + ".log");
    std::smatch m;
    BOOST_REQUIRE(std::regex_search(
        out, m, std::regex("VALIDATION ([0-9.]+) (\\S+) .* container trial_" + std::to_string(k))));
    BOOST_TEST(std::stod(m[1]) > 0.6);
    BOOST_TEST(std::filesystem::exists(m[2].str() + ".index"));
    models.push_back(m[2].str() + (k ? ":128:32" : ":64:32"));
  }
  // Both trials' containers were reset on the server.
  const std::string json = af::test::body_of(af::test::http_get(status, "/status"));
  BOOST_TEST_INFO(json);
  BOOST_TEST(json.find("trial_0") == std::string::npos);
  BOOST_TEST(json.find("trial_1") == std::string::npos);
  const std::string out = run({"--role", "ensemble", "--target", target, "--models",
                               models[0] + "," + models[1], "--devices", "/job:worker/task:0"},
                              "ensemble.log");
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(out, m, std::regex("TEST ensemble of 2: ([0-9.]+)")));
  BOOST_TEST(std::stod(m[1]) > 0.6);
}

BOOST_AUTO_TEST_SUITE_END()
