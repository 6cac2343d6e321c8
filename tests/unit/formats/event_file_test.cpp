// Events files as TensorFlow's EventsWriter writes them and TensorBoard reads them: the file
// name, the first record byte for byte (but its time), TFRecord framing, summaries, graphs
// and session logs read back, and clear errors for files that are not events files.
#include "actorflow/formats/event_file.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "actorflow/formats/summary.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/queues/tf_record.hpp"
#include "actorflow/tf/event.pb.h"
#include "temp_dir.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const af::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(event_file_test)

BOOST_AUTO_TEST_CASE(the_file_is_named_and_begins_as_tensorflows_events_writer_has_it) {
  af::test::TempDir dir("af_events");
  const std::string logdir = (dir.path / "run" / "a").string();  // created with its parents
  af::summary::FileWriter writer(logdir, {.filename_suffix = ".v2"});
  const std::string name = std::filesystem::path(writer.path()).filename().string();
  BOOST_TEST(std::regex_match(name, std::regex(R"(events\.out\.tfevents\.\d{10}\..+\.v2)")), name);
  BOOST_TEST(std::filesystem::path(writer.path()).parent_path() == std::filesystem::path(logdir));

  // Flushed at once: 62 bytes of Event, framed; the length's masked crc32c as TensorFlow's.
  const std::string bytes = slurp(writer.path());
  BOOST_REQUIRE(bytes.size() == 8u + 4u + 62u + 4u);
  BOOST_TEST(bytes.substr(0, 12) == std::string("\x3e\0\0\0\0\0\0\0\xd9\xd2\x40\xe7", 12));
  BOOST_TEST(bytes[12] == '\x09');  // wall_time, a double
  const std::string after_time = bytes.substr(21, 62 - 9);
  BOOST_TEST(after_time == std::string("\x1a\x0d"
                                       "brain.Event:2"
                                       "\x52\x24\x0a\x22"
                                       "tensorflow.core.util.events_writer"));
  tensorflow::Event first;
  BOOST_REQUIRE(first.ParseFromString(bytes.substr(12, 62)));
  BOOST_TEST(first.wall_time() == std::floor(first.wall_time()));  // whole seconds
  BOOST_TEST(name.find(std::to_string(static_cast<long long>(first.wall_time()))) !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(summaries_graphs_and_session_logs_read_back_in_order) {
  af::test::TempDir dir("af_events");
  std::string path;
  {
    af::summary::FileWriter writer(dir.path.string());
    path = writer.path();
    writer.add_session_log(af::summary::FileWriter::SessionStatus::start, 0);
    writer.add_graph("graph bytes", 0);
    for (int step = 1; step <= 3; ++step)
      writer.add_summary(af::summary::scalar("loss", 1.0f / step), step);
    writer.add_summary(af::summary::histogram("w", std::vector<double>{0.5, -0.5, 2.0}).value(), 3);
    writer.add_session_log(af::summary::FileWriter::SessionStatus::checkpoint, 3,
                           "/ckpt/model.ckpt-3");
  }  // the destructor flushes and closes
  BOOST_TEST(af::summary::event_files(dir.path.string()) == std::vector<std::string>{path});
  const auto events = af::summary::read_events(path);
  BOOST_REQUIRE(events.size() == 8u);
  BOOST_TEST(events[0].file_version == "brain.Event:2");
  BOOST_TEST(events[0].source_writer == "tensorflow.core.util.events_writer");
  BOOST_TEST(events[1].session_log_status == 1);
  BOOST_TEST(events[2].graph_def == "graph bytes");
  for (int step = 1; step <= 3; ++step) {
    const auto& e = events[static_cast<std::size_t>(step) + 2];
    BOOST_TEST(e.step == step);
    BOOST_TEST(e.has_summary);
    BOOST_REQUIRE(e.summary.size() == 1u);
    BOOST_TEST(e.summary[0].tag == "loss");
    BOOST_TEST(e.summary[0].simple_value == 1.0f / step);
    BOOST_TEST(e.wall_time >= events[0].wall_time);
  }
  const auto& h = events[6].summary.at(0);
  BOOST_TEST(h.tag == "w");
  BOOST_TEST((h.kind == af::summary::SummaryValue::Kind::histogram));
  BOOST_TEST(h.histo_num == 3.0);
  BOOST_TEST(h.histo_min == -0.5);
  BOOST_TEST(h.histo_max == 2.0);
  BOOST_TEST(h.bucket.size() == h.bucket_limit.size());
  BOOST_TEST(events[7].session_log_status == 3);
  BOOST_TEST(events[7].checkpoint_path == "/ckpt/model.ckpt-3");
}

BOOST_AUTO_TEST_CASE(a_closed_writer_refuses_and_bad_summaries_are_named) {
  af::test::TempDir dir("af_events");
  af::summary::FileWriter writer(dir.path.string());
  BOOST_CHECK_THROW(writer.add_summary(std::string("\xff\xff\xff", 3), 1),
                    af::InvalidArgumentError);
  writer.close();
  writer.close();  // idempotent
  const std::string e = error_of([&] { writer.add_summary(af::summary::scalar("x", 1), 1); });
  BOOST_TEST(e.find(writer.path()) != std::string::npos, e);
  BOOST_TEST(e.find("closed") != std::string::npos, e);
  BOOST_TEST(af::summary::read_events(writer.path()).size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_reader_sees_records_flushed_after_it_reached_the_end) {
  af::test::TempDir dir("af_events");
  af::summary::FileWriter writer(dir.path.string());
  af::summary::EventFileReader reader(writer.path());
  BOOST_TEST(reader.next().has_value());
  BOOST_TEST(!reader.next().has_value());
  writer.add_summary(af::summary::scalar("acc", 0.5f), 7);
  writer.flush();
  auto e = reader.next();
  BOOST_REQUIRE(e.has_value());
  BOOST_TEST(e->step == 7);
}

BOOST_AUTO_TEST_CASE(bad_files_fail_with_dataloss_naming_the_file_and_offset) {
  af::test::TempDir dir("af_events");
  std::string path;
  {
    af::summary::FileWriter writer(dir.path.string());
    writer.add_summary(af::summary::scalar("loss", 1), 1);
    path = writer.path();
  }
  const std::string whole = slurp(path);
  // Cut inside the second record's data.
  const std::string cut = (dir.path / "cut.tfevents").string();
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() - 5);
  af::summary::EventFileReader reader(cut);
  BOOST_TEST(reader.next().has_value());
  const std::string truncated = error_of([&] { reader.next(); });
  BOOST_TEST(truncated.find(cut) != std::string::npos, truncated);
  BOOST_TEST(truncated.find("truncated record at 78") != std::string::npos, truncated);

  const std::string garbage = (dir.path / "garbage.tfevents").string();
  std::ofstream(garbage, std::ios::binary) << std::string(64, 'x');
  BOOST_CHECK_THROW(af::summary::read_events(garbage), af::DataLossError);
  BOOST_TEST(error_of([&] { af::summary::read_events(garbage); }).find("corrupted record at 0") !=
             std::string::npos);

  // Well framed, but not an Event.
  const std::string other = (dir.path / "other.tfevents").string();
  {
    af::TFRecordWriter w(other);
    w.write(std::string("\xff\xff\xff", 3));
  }
  const std::string not_event = error_of([&] { af::summary::read_events(other); });
  BOOST_TEST(not_event == other + ": the record at 0 is not an Event", not_event);

  BOOST_CHECK_THROW(af::summary::EventFileReader((dir.path / "missing").string()),
                    af::NotFoundError);
}

BOOST_AUTO_TEST_SUITE_END()
