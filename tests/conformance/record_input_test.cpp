// RecordInput (data_flow_ops.RecordInput) against TensorFlow: tests/data/tf_record_input
// (scripts/peers/make_record_input_fixtures.py) lists TFRecord files and the records
// TensorFlow's RecordInput yielded from them, run after run, where its order depends on the
// seed and the files only; written here again, the same files give the same records in the
// same order. Then what no fixture pins: many reader threads yield each record once per
// epoch, a run waiting for records holds no thread and ends with its deadline, a failed
// step's records come back, and the errors.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <actorflow/actorflow.hpp>
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_test_util.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

using af::Output;
using af::Tensor;

// Writes `records` to `path` (compressed as `compression`).
void write_records(const std::string& path, const std::vector<std::string>& records,
                   const std::string& compression = "") {
  af::TFRecordWriter w(path, af::TFRecordOptions::from_string(compression));
  for (const auto& r : records) w.write(r);
  w.close();
}

std::vector<std::string> strings_of(const Tensor& t) {
  return {t.flat<std::string>().begin(), t.flat<std::string>().end()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(record_input_test)

// With one reader thread, each of TensorFlow's cases yields TensorFlow's records run by run:
// a buffer of 100 and of 1 record, chunks of 16 with a shifted file list, GZIP files.
BOOST_AUTO_TEST_CASE(record_input_yields_tensorflows_records, *boost::unit_test::timeout(120)) {
  std::ifstream in(std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_record_input" /
                   "reference.json");
  const nlohmann::json ref = nlohmann::json::parse(in);
  af::test::TempDir tmp("af_record_input");
  for (const auto& c : ref["cases"]) {
    const std::string name = c["name"].get<std::string>();
    BOOST_TEST_CONTEXT(name) {
      const std::string compression = c.value("compression_type", "");
      std::string pattern;
      for (std::size_t i = 0; i < c["files"].size(); ++i) {
        const std::string path = (tmp.path / (name + "_" + std::to_string(i))).string();
        write_records(path, c["files"][i].get<std::vector<std::string>>(), compression);
        pattern += (i ? "," : "") + path;
      }
      af::Graph g;
      const Output records = af::RecordInput(g, pattern,
                                             {.batch_size = c["batch_size"].get<std::int64_t>(),
                                              .buffer_size = c["buffer_size"].get<std::int64_t>(),
                                              .shift_ratio = c.value("shift_ratio", 0.0f),
                                              .seed = c["seed"].get<std::int64_t>(),
                                              .compression_type = compression})
                                 .get_yield_op();
      BOOST_TEST(records.node()->name() == "RecordInput");
      af::Session sess(g);
      for (const auto& want : c["outputs"])
        BOOST_TEST(strings_of(sess.run(records)) == want.get<std::vector<std::string>>(),
                   boost::test_tools::per_element());
    }
  }
}

// Four reader threads and a small buffer: every record once in each epoch; `batches` splits
// a run into lists of scalars, record i into list i % batches.
BOOST_AUTO_TEST_CASE(parallel_readers_yield_every_record_once_per_epoch,
                     *boost::unit_test::timeout(120)) {
  af::test::TempDir tmp("af_record_input_parallel");
  std::vector<std::string> all;
  for (int f = 0; f < 5; ++f) {
    std::vector<std::string> records;
    for (int r = 0; r < 30; ++r)
      records.push_back("f" + std::to_string(f) + "r" + std::to_string(r));
    write_records((tmp.path / ("part-" + std::to_string(f))).string(), records);
    all.insert(all.end(), records.begin(), records.end());
  }
  std::sort(all.begin(), all.end());
  af::Graph g;
  af::RecordInput input(
      g, (tmp.path / "part-*").string(),
      {.batch_size = 5, .buffer_size = 8, .parallelism = 4, .seed = 3, .batches = 2});
  const std::vector<std::vector<Output>> lists = input.get_yield_op_batches();
  BOOST_REQUIRE_EQUAL(lists.size(), 2u);
  BOOST_REQUIRE_EQUAL(lists[0].size(), 5u);
  BOOST_TEST(lists[0][0].shape().rank() == 0);
  std::vector<Output> fetches = lists[0];
  fetches.insert(fetches.end(), lists[1].begin(), lists[1].end());
  af::Session sess(g);
  for (int epoch = 0; epoch < 2; ++epoch) {
    std::vector<std::string> seen;
    for (int run = 0; run < 15; ++run)
      for (const Tensor& t : sess.run(fetches)) seen.push_back(t.scalar<std::string>());
    std::sort(seen.begin(), seen.end());
    BOOST_TEST(seen == all, boost::test_tools::per_element());
  }
}

// A run waiting for records (its file a pipe nobody writes yet) ends with its deadline while
// the session runs other steps; the records come once written. A step that fails after its
// run puts the records back: the next run yields them in the same order.
BOOST_AUTO_TEST_CASE(waiting_and_failed_runs_lose_nothing, *boost::unit_test::timeout(120)) {
  af::test::TempDir tmp("af_record_input_wait");
  const std::string pipe = (tmp.path / "pipe").string();
  BOOST_REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  const std::string staged = (tmp.path / "staged").string();
  write_records(staged, {"r0", "r1", "r2"});
  // Copies the three records into the pipe (opening it waits for the reader thread).
  auto feed_pipe = [&] {
    std::ifstream src(staged, std::ios::binary);
    std::ofstream dst(pipe, std::ios::binary);
    dst << src.rdbuf();
  };
  af::Graph g;
  const Output records =
      af::RecordInput(g, pipe, {.batch_size = 2, .buffer_size = 10, .seed = 5}).get_yield_op();
  const Output numbers = af::string_to_number(records);
  const Output one = g.constant(Tensor(1.0f));
  {
    af::Session sess(g);
    BOOST_CHECK_THROW(sess.run(records, {}, {.timeout_in_ms = 200}), af::DeadlineExceededError);
    BOOST_TEST(sess.run(one).scalar<float>() == 1.0f);
    feed_pipe();
    BOOST_CHECK_THROW(sess.run(numbers), af::InvalidArgumentError);
    // The failed step's two records came back: the next two runs yield the whole first
    // epoch (the pipe's three records) before the second epoch's first.
    std::vector<std::string> got = strings_of(sess.run(records));
    auto second_epoch = std::async(std::launch::async, feed_pipe);
    const std::vector<std::string> more = strings_of(sess.run(records));
    second_epoch.get();
    got.push_back(more[0]);
    std::sort(got.begin(), got.end());
    BOOST_TEST(got == (std::vector<std::string>{"r0", "r1", "r2"}),
               boost::test_tools::per_element());
  }
  // Should a reader still wait for a writer, this lets it go.
  const int fd = ::open(pipe.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
}

// No matching file, a file that is no TFRecord file, and options TensorFlow would take and
// then hang on.
BOOST_AUTO_TEST_CASE(record_input_errors, *boost::unit_test::timeout(60)) {
  af::test::TempDir tmp("af_record_input_errors");
  {
    af::Graph g;
    const std::string pattern = (tmp.path / "none-*").string();
    const Output records = af::RecordInput(g, pattern).get_yield_op();
    af::Session sess(g);
    af::test::fails_with(sess, records, "Found no files at " + pattern);
    af::test::fails_with(sess, records, "Found no files at " + pattern);
  }
  {
    const std::string bad = (tmp.path / "bad.tfrecord").string();
    std::ofstream(bad) << "not a tfrecord file at all";
    af::Graph g;
    const Output records = af::RecordInput(g, bad).get_yield_op();
    af::Session sess(g);
    BOOST_CHECK_THROW(sess.run(records), af::DataLossError);
  }
  af::Graph g;
  BOOST_CHECK_THROW(af::RecordInput(g, "x", {.buffer_size = 0}), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::RecordInput(g, "x", {.parallelism = 0}), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::RecordInput(g, "x", {.compression_type = "LZ4"}), af::InvalidArgumentError);
  const Output raw =
      g.create_op("RecordInput", {},
                  {{"file_pattern", std::string("x")}, {"file_buffer_size", std::int64_t{0}}})
          .output(0);
  af::Session sess(g);
  af::test::fails_with(sess, raw, "file_buffer_size must be >= 1, got 0");
}

BOOST_AUTO_TEST_SUITE_END()
