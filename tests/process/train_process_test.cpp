// apps/train (the chapter's exercise 7): Fashion-MNIST training killed with SIGKILL after its
// first checkpoint and restarted with --restore goes on from that checkpoint's global step.
// Skips when Debian's dataset-fashion-mnist is not installed.
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

const char* kData = "/usr/share/datasets/fashion-mnist";

bool have_data() {
  return std::filesystem::exists(std::string(kData) + "/train-images-idx3-ubyte.gz");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(train_process_test)

BOOST_AUTO_TEST_CASE(a_killed_training_resumes_from_its_last_checkpoint,
                     *boost::unit_test::timeout(300)) {
  if (!have_data()) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_train");
  const std::string ckpt = (dir.path / "ckpt").string();
  // 20 steps per "epoch" (2560 examples / 128), 8 epochs; a checkpoint after each.
  const std::vector<std::string> args = {ACTORFLOW_TRAIN_BINARY,
                                         "--epochs",
                                         "8",
                                         "--train-examples",
                                         "2560",
                                         "--checkpoint-dir",
                                         ckpt,
                                         "--threads",
                                         "1",
                                         "--quiet",
                                         "--restore"};
  af::test::ProcessGroup group;
  auto first = group.spawn(args, (dir.path / "first.log").string());
  // Kill it once the first checkpoint's state file is there.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(200);
  while (!std::filesystem::exists(ckpt + "/checkpoint") &&
         std::chrono::steady_clock::now() < until &&
         group.wait(first, std::chrono::milliseconds(0)) == -1)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  BOOST_REQUIRE_MESSAGE(std::filesystem::exists(ckpt + "/checkpoint"), "no checkpoint:\n"
                                                                           << group.log(first));
  group.kill(first);
  const std::string first_log = group.log(first);
  BOOST_TEST_INFO("first run:\n" << first_log);
  BOOST_TEST(first_log.find("final:") == std::string::npos);  // it did not finish

  auto second = group.spawn(args, (dir.path / "second.log").string());
  int status = group.wait(second, std::chrono::seconds(240));
  const std::string out = group.log(second);
  BOOST_TEST_INFO("second run:\n" << out);
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(out, m, std::regex("restored .*model\\.ckpt-(\\d+)")));
  const int restored_step = std::stoi(m[1]);
  BOOST_TEST(restored_step >= 20);
  BOOST_TEST(restored_step % 20 == 0);
  // It went on from there rather than from 0: no epoch before the restored one is repeated.
  BOOST_TEST(out.find("epoch " + std::to_string(restored_step / 20) + ":") == std::string::npos);
  BOOST_TEST(out.find("final: global step 160") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(logdir_gets_the_graph_the_training_curves_and_histograms,
                     *boost::unit_test::timeout(120)) {
  if (!have_data()) {
    BOOST_TEST_MESSAGE("dataset-fashion-mnist not installed: skipped");
    return;
  }
  af::test::TempDir dir("af_train_logdir");
  const std::string logdir = (dir.path / "run1").string();
  af::test::ProcessGroup group;
  auto i = group.spawn({ACTORFLOW_TRAIN_BINARY, "--epochs", "1", "--train-examples", "1280",
                        "--threads", "1", "--quiet", "--logdir", logdir, "--summary-every", "5"},
                       (dir.path / "out.log").string());
  const int status = group.wait(i, std::chrono::seconds(100));
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WEXITSTATUS(status) == 0, group.log(i));
  const auto files = af::summary::event_files(logdir);
  BOOST_REQUIRE(files.size() == 1u);
  std::map<std::string, std::vector<std::int64_t>> steps_by_tag;
  bool graph = false;
  for (const auto& e : af::summary::read_events(files[0])) {
    if (!e.graph_def.empty()) graph = af::parse_graph_def(e.graph_def).nodes.size() > 100;
    for (const auto& v : e.summary) steps_by_tag[v.tag].push_back(e.step);
  }
  BOOST_TEST(graph);
  // 10 steps of 128: training summaries at steps 5 and 10, the epoch's at step 10.
  BOOST_TEST(steps_by_tag["loss"] == (std::vector<std::int64_t>{5, 10}),
             boost::test_tools::per_element());
  BOOST_TEST(steps_by_tag["accuracy"].size() == 2u);
  BOOST_TEST(steps_by_tag["learning_rate"].size() == 2u);
  BOOST_TEST(steps_by_tag["dense/kernel/values"].size() == 2u);
  BOOST_TEST(steps_by_tag["test_accuracy"] == (std::vector<std::int64_t>{10}),
             boost::test_tools::per_element());
  BOOST_TEST(steps_by_tag["examples_per_sec"].size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_missing_data_directory_is_reported_by_name, *boost::unit_test::timeout(60)) {
  af::test::TempDir dir("af_train_missing");
  af::test::ProcessGroup group;
  auto i = group.spawn({ACTORFLOW_TRAIN_BINARY, "--data-dir", dir.path.string(), "--quiet"},
                       (dir.path / "out.log").string());
  int status = group.wait(i, std::chrono::seconds(30));
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WEXITSTATUS(status) == 1);
  BOOST_TEST(group.log(i).find("train-images-idx3-ubyte.gz not found") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
