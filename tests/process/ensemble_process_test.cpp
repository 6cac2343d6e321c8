// apps/ensemble (the chapter's Figure 12-13): predictor clients in processes of their own,
// queues on the aggregator's task, one predictor killed with SIGKILL midway; the aggregator's
// dequeue timeout keeps the ensemble answering without it. (A generous 2 s timeout: on a
// loaded CI machine a live predictor may take longer than the demo's 300 ms.)
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <iterator>
#include <regex>
#include <string>

#include "process.hpp"
#include "test_paths.hpp"

BOOST_AUTO_TEST_SUITE(ensemble_process_test)

BOOST_AUTO_TEST_CASE(the_ensemble_answers_every_query_after_a_predictor_is_killed,
                     *boost::unit_test::timeout(120)) {
  auto log = (std::filesystem::temp_directory_path() /
              ("af_ensemble_" + std::to_string(::getpid()) + ".log"))
                 .string();
  std::filesystem::remove(log);
  af::test::ProcessGroup group;
  auto i = group.spawn(
      {ACTORFLOW_ENSEMBLE_BINARY, "--processes", "--predictors", "3", "--queries", "10",
       "--kill-after", "3", "--kill-index", "2", "--timeout-ms", "5000", "--drop-after", "2"},
      log);
  int status = group.wait(i, std::chrono::seconds(100));
  std::string out = group.log(i);
  BOOST_TEST_INFO("output:\n" << out);
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);
  // Before the kill every predictor answers; right after it, predictor 2 times out; then it
  // is dropped and the other two keep answering.
  BOOST_TEST(out.find("query 2: ensemble prediction") != std::string::npos);
  BOOST_TEST(std::regex_search(
      out, std::regex("query 2: ensemble prediction [0-9.]+ from 3 of 3 predictors\n")));
  BOOST_TEST(out.find("-- killing predictor 2 (SIGKILL)") != std::string::npos);
  BOOST_TEST(
      std::regex_search(out, std::regex("query 3: ensemble prediction [0-9.]+ from 2 of 3 "
                                        "predictors; timed out \\(DeadlineExceededError\\): 2")));
  BOOST_TEST(out.find("-- predictor 2 dropped after 2 timeouts in a row") != std::string::npos);
  BOOST_TEST(std::regex_search(
      out, std::regex("query 9: ensemble prediction [0-9.]+ from 2 of 3 predictors\n")));
  // The summary counts what the queries printed (a loaded machine may make a live predictor
  // miss a deadline too: the counts are checked against the lines, not fixed).
  const auto count = [&](const std::regex& r) {
    return std::distance(std::sregex_iterator(out.begin(), out.end(), r), std::sregex_iterator());
  };
  const auto answered = count(std::regex("query [0-9]+: ensemble prediction"));
  const auto by_all =
      count(std::regex("query [0-9]+: ensemble prediction [0-9.]+ from 3 of 3 predictors\n"));
  BOOST_TEST(answered == 10);
  BOOST_TEST(by_all >= 1);
  BOOST_TEST(by_all <= 3);  // after the kill, predictor 2 never answers
  BOOST_TEST(out.find("ensemble: " + std::to_string(by_all) +
                      " queries answered by all predictors, " + std::to_string(answered - by_all) +
                      " without the missing ones") != std::string::npos);
  std::filesystem::remove(log);
}

BOOST_AUTO_TEST_CASE(bad_flags_exit_with_status_2, *boost::unit_test::timeout(30)) {
  auto log = (std::filesystem::temp_directory_path() /
              ("af_ensemble_flags_" + std::to_string(::getpid()) + ".log"))
                 .string();
  std::filesystem::remove(log);
  af::test::ProcessGroup group;
  auto i = group.spawn({ACTORFLOW_ENSEMBLE_BINARY, "--kill-index", "5"}, log);
  int status = group.wait(i, std::chrono::seconds(20));
  BOOST_REQUIRE(status != -1);
  BOOST_TEST(WEXITSTATUS(status) == 2);
  BOOST_TEST(group.log(i).find("--kill-index must name a predictor") != std::string::npos);
  std::filesystem::remove(log);
}

BOOST_AUTO_TEST_SUITE_END()
