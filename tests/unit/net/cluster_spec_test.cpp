// ClusterSpec as TensorFlow's tf.train.ClusterSpec (python/training/server_lib_test.py).
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(cluster_spec_test)

BOOST_AUTO_TEST_CASE(parses_the_chapters_cluster_from_json) {
  auto c = af::ClusterSpec::from_json(
      R"({"ps": ["127.0.0.1:2221"], "worker": ["127.0.0.1:2222", "127.0.0.1:2223"]})");
  BOOST_TEST(c.jobs() == (std::vector<std::string>{"ps", "worker"}));
  BOOST_TEST(c.num_tasks("ps") == 1);
  BOOST_TEST(c.num_tasks("worker") == 2);
  BOOST_TEST(c.task_address("worker", 1) == "127.0.0.1:2223");
  BOOST_TEST(c.task_indices("worker") == (std::vector<int>{0, 1}));
}

BOOST_AUTO_TEST_CASE(sparse_jobs_keep_their_task_indices) {
  auto c =
      af::ClusterSpec::from_json(R"({"worker": {"1": "127.0.0.1:2223", "3": "127.0.0.1:2225"}})");
  BOOST_TEST(c.num_tasks("worker") == 2);
  BOOST_TEST(c.task_indices("worker") == (std::vector<int>{1, 3}));
  BOOST_TEST(c.task_address("worker", 3) == "127.0.0.1:2225");
  BOOST_CHECK_THROW(c.task_address("worker", 0), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(json_round_trips_dense_and_sparse_jobs) {
  af::ClusterSpec c(std::map<std::string, af::ClusterSpec::Tasks>{{"ps", {{0, "a:1"}, {1, "b:2"}}},
                                                                  {"worker", {{2, "c:3"}}}});
  BOOST_TEST(c.to_json() == R"({"ps":["a:1","b:2"],"worker":{"2":"c:3"}})");
  BOOST_TEST((af::ClusterSpec::from_json(c.to_json()) == c));
}

BOOST_AUTO_TEST_CASE(unknown_jobs_and_tasks_are_errors_in_tensorflows_words) {
  af::ClusterSpec c(
      std::map<std::string, std::vector<std::string>>{{"worker", {"127.0.0.1:2222"}}});
  try {
    c.num_tasks("ps");
    BOOST_FAIL("expected an error");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("No such job in cluster: 'ps'") != std::string::npos);
  }
  try {
    c.task_address("worker", 5);
    BOOST_FAIL("expected an error");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("No task with index 5 in job 'worker'") !=
               std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(malformed_specs_name_the_job_and_task) {
  auto message = [](const char* json) {
    try {
      af::ClusterSpec::from_json(json);
    } catch (const af::InvalidArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  BOOST_TEST(message(R"({"worker": ["127.0.0.1"]})").find("job 'worker' task 0") !=
             std::string::npos);
  BOOST_TEST(message(R"({"worker": ["127.0.0.1:99999"]})").find("0..65535") != std::string::npos);
  BOOST_TEST(message(R"({"worker": {"x": "h:1"}})").find("task index 'x'") != std::string::npos);
  BOOST_TEST(message(R"({"1job": ["h:1"]})").find("not a valid name") != std::string::npos);
  BOOST_TEST(message(R"(["h:1"])").find("expected an object") != std::string::npos);
  BOOST_TEST(message(R"({"worker": ["h:1")").find("ClusterSpec JSON") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(addresses_split_into_host_and_port) {
  BOOST_TEST(af::ClusterSpec::split_address("localhost:2222").first == "localhost");
  BOOST_TEST(af::ClusterSpec::split_address("localhost:2222").second == 2222);
  BOOST_TEST(af::ClusterSpec::split_address("[::1]:2222").first == "::1");
  BOOST_CHECK_THROW(af::ClusterSpec::split_address(":2222"), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::ClusterSpec::split_address("::1:2222"), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_SUITE_END()
