// apps/in_graph (the chapter's in-graph replication): towers of the MLP on two CPU devices in
// one graph learn Fashion-MNIST, synchronously (averaged gradients) and asynchronously (an
// optimizer and a loop per tower). Skips when Debian's dataset-fashion-mnist is not installed.
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>

#include "process.hpp"
#include "temp_dir.hpp"

BOOST_AUTO_TEST_SUITE(in_graph_process_test)

BOOST_AUTO_TEST_CASE(towers_on_two_cpu_devices_learn_in_sync_and_async_modes, *boost::unit_test::timeout(240)) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_in_graph");
  for (const std::string mode : {"sync", "async"}) {
    af::test::ProcessGroup group;
    auto i = group.spawn({ACTORFLOW_IN_GRAPH_BINARY, "--mode", mode, "--replicas", "2", "--steps", "200",
                          "--train-examples", "12000"},
                         (dir.path / (mode + ".log")).string());
    const int status = group.wait(i, std::chrono::seconds(200));
    const std::string out = group.log(i);
    BOOST_TEST_INFO(out);
    BOOST_REQUIRE(status != -1);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 0);
    std::smatch m;
    BOOST_REQUIRE(std::regex_search(out, m, std::regex(mode + ", 2 towers: global step (\\d+) .* test accuracy ([0-9.]+)")));
    // sync: 200 averaged updates; async: 200 updates from each tower.
    BOOST_TEST(std::stoi(m[1]) == (mode == "sync" ? 200 : 400));
    BOOST_TEST(std::stod(m[2]) > 0.75);
  }
}

// Model parallelism (exercise 10): the MLP's hidden layers split by units over two CPU
// devices still learn.
BOOST_AUTO_TEST_CASE(the_mlp_split_over_two_devices_learns, *boost::unit_test::timeout(240)) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_split");
  af::test::ProcessGroup group;
  auto i = group.spawn({ACTORFLOW_IN_GRAPH_BINARY, "--mode", "split", "--replicas", "2", "--steps", "200",
                        "--train-examples", "12000"},
                       (dir.path / "split.log").string());
  const int status = group.wait(i, std::chrono::seconds(200));
  const std::string out = group.log(i);
  BOOST_TEST_INFO(out);
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WEXITSTATUS(status) == 0);
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(out, m, std::regex("split over 2 devices: 200 steps .* test accuracy ([0-9.]+)")));
  BOOST_TEST(std::stod(m[1]) > 0.75);
}

BOOST_AUTO_TEST_SUITE_END()
