// TensorFlow 1.x readers (the chapter's "Reading the training data directly from the
// graph" and tensorflow/python/kernel_tests/reader_ops_test.py).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/parsing_ops.hpp>
#include <actorflow/queues/tf_record.hpp>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "matchers.hpp"
#include "reader_fixture.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

using af::test::contains;
using af::test::error_of;

/// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir : af::test::TempDir {
  TempDir() : af::test::TempDir("af_reader_test") {}
};

// CRC-32 (ISO 3309, the gzip trailer's), bit by bit.
std::uint32_t crc32_of(const std::string& data) {
  std::uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void append_le32(std::string* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

/// `data` (under 64 KiB) as a gzip file (RFC 1952) of one stored deflate block: a 10-byte
/// header, the block's 5 bytes of framing, the data at offset 15, then CRC-32 and size.
std::string gzip_stored(const std::string& data) {
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
  const auto n = static_cast<std::uint16_t>(data.size());
  out.push_back('\x01');  // BFINAL, stored
  out.push_back(static_cast<char>(n & 0xff));
  out.push_back(static_cast<char>(n >> 8));
  out.push_back(static_cast<char>(~n & 0xff));
  out.push_back(static_cast<char>((~n >> 8) & 0xff));
  out += data;
  append_le32(&out, crc32_of(data));
  append_le32(&out, static_cast<std::uint32_t>(data.size()));
  return out;
}

/// What a FixedLengthRecordReader yields for one file: its values up to the first error,
/// the error's kind ("OutOfRange" once the closed file queue is drained, "DataLoss", ...)
/// and message.
struct FixedLengthRun {
  std::vector<std::string> values;
  std::string error, message;
};

FixedLengthRun read_fixed_length(const std::string& file,
                                 af::FixedLengthRecordReaderOptions options) {
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::FixedLengthRecordReader reader(g, options);
  auto [key, value] = reader.read(files);
  af::Session sess(g);
  files.add(sess, file);
  sess.run(files.close());
  FixedLengthRun run;
  try {
    for (int i = 0; i < 100; ++i) run.values.push_back(sess.run(value).scalar<std::string>());
    run.error = "<none>";
  } catch (const af::OutOfRangeError& e) {
    run.error = "OutOfRange";
    run.message = e.what();
  } catch (const af::DataLossError& e) {
    run.error = "DataLoss";
    run.message = e.what();
  } catch (const af::Error& e) {
    run.error = "other";
    run.message = e.what();
  }
  return run;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reader_test)

// The chapter's my_test.csv: TextLineReader(skip_header_lines=1) through a filename queue,
// decode_csv with defaults, a RandomShuffleQueue of (features, target); the read loop ends
// with OutOfRange once the filename queue is closed and drained; dequeue_up_to(2) then
// gives a batch of two and a batch of one.
BOOST_AUTO_TEST_CASE(chapter_csv_pipeline_reads_every_instance, *boost::unit_test::timeout(60)) {
  TempDir dir;
  // The third line's x2 is empty (as in the book's notebook, "7.,, 0"): it takes the default.
  // (A field of spaces is not empty: TensorFlow parses " " as 0.0.)
  auto file = dir.write("my_test.csv", "x1, x2, target\n1. , 2. , 0\n4. , 5 , 1\n7.,, 0\n");
  af::Graph g;
  af::TextLineReader reader(g, {.skip_header_lines = 1});
  af::FIFOQueue filename_queue(g, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  auto filename = g.placeholder(af::string);
  auto enqueue_filename = filename_queue.enqueue({filename});
  auto close_filename_queue = filename_queue.close();
  auto [key, value] = reader.read(filename_queue);
  auto cols = af::decode_csv(value, {af::Tensor(-1.0f), af::Tensor(-1.0f), af::Tensor(-1)});
  auto features = af::stack({cols[0], cols[1]});
  af::RandomShuffleQueue instance_queue(g, {.capacity = 10,
                                            .min_after_dequeue = 2,
                                            .dtypes = {af::float32, af::int32},
                                            .shapes = {{2}, {}},
                                            .name = "instance_q",
                                            .shared_name = "chapter_instance_q"});
  auto enqueue_instance = instance_queue.enqueue({features, cols[2]});
  auto close_instance_queue = instance_queue.close();
  auto batch = instance_queue.dequeue_up_to(2);

  af::Session sess(g);
  sess.run(enqueue_filename, {{filename, af::Tensor(file)}});
  sess.run(close_filename_queue);
  BOOST_TEST(sess.run(key).scalar<std::string>() == file + ":2", "keys are file:line, 1-based");
  // Put the first record back by reading it again from a fresh reader state.
  sess.run(reader.reset());
  af::Session sess2(g);
  sess2.run(enqueue_filename, {{filename, af::Tensor(file)}});
  sess2.run(close_filename_queue);
  int records = 0;
  try {
    for (;;) {
      sess2.run(enqueue_instance);
      ++records;
    }
  } catch (const af::OutOfRangeError& e) {
    BOOST_TEST(contains(e.what(), "is closed and has insufficient elements"), e.what());
  }
  BOOST_TEST(records == 3);
  sess2.run(close_instance_queue);
  auto first = sess2.run({batch[0], batch[1]});
  auto second = sess2.run({batch[0], batch[1]});
  BOOST_TEST(first[1].num_elements() == 2);
  BOOST_TEST(second[1].num_elements() == 1);
  BOOST_CHECK_THROW(sess2.run(batch[0]), af::OutOfRangeError);
  // The third instance's missing x2 took its default.
  std::vector<float> all;
  for (auto* t : {&first[0], &second[0]}) {
    auto v = t->to_vector<float>();
    all.insert(all.end(), v.begin(), v.end());
  }
  std::sort(all.begin(), all.end());
  BOOST_TEST(all == (std::vector<float>{-1, 1, 2, 4, 5, 7}),
             af::Tensor::from_vector<float>(all).to_string());
}

// Keys, skip_header_lines per file, counters, and OutOfRange at the end of the work.
BOOST_AUTO_TEST_CASE(text_line_reader_keys_and_counters, *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto a = dir.write("a.txt", "header\nA1\nA2\n");
  auto b = dir.write("b.txt", "header\nB1\r\n\nB3");  // CRLF, an empty line, no final newline
  af::Graph g;
  af::FIFOQueue files(g, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  auto names = g.placeholder(af::string, af::PartialShape{-1});
  auto enqueue = files.enqueue_many({names});
  af::TextLineReader reader(g, {.skip_header_lines = 1});
  auto [key, value] = reader.read(files);
  af::Session sess(g);
  sess.run(enqueue, {{names, af::Tensor::from_vector<std::string>({a, b})}});
  sess.run(files.close());
  std::vector<std::pair<std::string, std::string>> got;
  try {
    for (;;) {
      auto r = sess.run({key, value});
      got.emplace_back(r[0].scalar<std::string>(), r[1].scalar<std::string>());
    }
  } catch (const af::OutOfRangeError&) {
  }
  std::vector<std::pair<std::string, std::string>> expected{
      {a + ":2", "A1"}, {a + ":3", "A2"}, {b + ":2", "B1"}, {b + ":3", ""}, {b + ":4", "B3"}};
  BOOST_TEST(got == expected);
  BOOST_TEST(sess.run(reader.num_records_produced()).scalar<std::int64_t>() == 5);
  BOOST_TEST(sess.run(reader.num_work_units_completed()).scalar<std::int64_t>() == 2);
  sess.run(reader.reset());
  BOOST_TEST(sess.run(reader.num_records_produced()).scalar<std::int64_t>() == 0);
}

// read_up_to stops at the end of a file; a missing file is NotFound.
BOOST_AUTO_TEST_CASE(read_up_to_stops_at_file_end_and_missing_file_is_not_found,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto a = dir.write("a.txt", "1\n2\n3\n");
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::TextLineReader reader(g);
  auto [keys, values] = reader.read_up_to(files, 2);
  af::Session sess(g);
  files.add(sess, a);
  files.add(sess, (dir.path / "missing.txt").string());
  BOOST_TEST(sess.run(values).to_vector<std::string>() == (std::vector<std::string>{"1", "2"}));
  BOOST_TEST(sess.run(values).to_vector<std::string>() == (std::vector<std::string>{"3"}));
  auto msg = error_of<af::NotFoundError>([&] { sess.run(values); });
  BOOST_TEST(contains(msg, "missing.txt"), msg);
  // The reader waits for more work; the step deadline ends the wait.
  BOOST_CHECK_THROW(sess.run(values, {}, {.timeout_in_ms = 100}), af::DeadlineExceededError);
  files.add(sess, a);
  BOOST_TEST(sess.run(values).to_vector<std::string>() == (std::vector<std::string>{"1", "2"}),
             "the timed-out read took no file name");
}

// read_up_to takes num_records as TensorFlow's ReaderBase::ReadUpTo (reader_base.cc): 0
// returns nothing without taking a file; a negative count never matches the records read,
// so it reads to the end of the current file (past empty ones), as the loop there does.
BOOST_AUTO_TEST_CASE(read_up_to_zero_reads_nothing_and_a_negative_count_reads_the_rest_of_the_file,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto empty = dir.write("empty.txt", "");
  auto a = dir.write("a.txt", "1\n2\n3\n4\n");
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::TextLineReader reader(g);
  auto count = g.placeholder(af::DType::int64, af::PartialShape{}, "count");
  auto [keys, values] = reader.read_up_to(files.queue_ref(), count);
  af::Session sess(g);
  files.add(sess, empty);
  files.add(sess, a);
  auto none = sess.run(values, {{count, af::Tensor(std::int64_t{0})}});
  BOOST_TEST(none.shape() == (af::Shape{0}));
  BOOST_TEST(sess.run(reader.num_work_units_completed()).scalar<std::int64_t>() == 0,
             "no file was taken");
  BOOST_TEST(sess.run(values, {{count, af::Tensor(std::int64_t{1})}}).to_vector<std::string>() ==
             (std::vector<std::string>{"1"}));
  BOOST_TEST(sess.run(values, {{count, af::Tensor(std::int64_t{-1})}}).to_vector<std::string>() ==
             (std::vector<std::string>{"2", "3", "4"}));
  files.add(sess, empty);
  files.add(sess, a);
  BOOST_TEST(sess.run(values, {{count, af::Tensor(std::int64_t{-5})}}).to_vector<std::string>() ==
                 (std::vector<std::string>{"1", "2", "3", "4"}),
             "an empty file is passed over");
  // The same when the records go straight to decode_csv (the read and the decode are fused).
  af::Graph fused;
  af::test::FilenameQueue fused_files(fused);
  af::TextLineReader fused_reader(fused);
  auto fused_count = fused.placeholder(af::DType::int64, af::PartialShape{}, "count");
  auto column = af::decode_csv(fused_reader.read_up_to(fused_files.queue_ref(), fused_count).second,
                               {af::Tensor(std::int32_t{-1})})[0];
  af::Session fused_sess(fused);
  fused_files.add(fused_sess, empty);
  fused_files.add(fused_sess, a);
  BOOST_TEST(fused_sess.run(column, {{fused_count, af::Tensor(std::int64_t{0})}}).shape() ==
             (af::Shape{0}));
  BOOST_TEST(fused_sess.run(column, {{fused_count, af::Tensor(std::int64_t{1})}})
                 .to_vector<std::int32_t>() == (std::vector<std::int32_t>{1}));
  BOOST_TEST(fused_sess.run(column, {{fused_count, af::Tensor(std::int64_t{-1})}})
                 .to_vector<std::int32_t>() == (std::vector<std::int32_t>{2, 3, 4}));
}

// fixed_length_record_reader_op.cc skips the header with SkipNBytes: a file shorter than
// header_bytes makes the read fail with OutOfRange ("reached end of file", from
// RandomAccessInputStream) before the file counts as started; the next read takes the next
// file.
BOOST_AUTO_TEST_CASE(fixed_length_record_reader_fails_a_file_shorter_than_its_header,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto short_file = dir.write("short.bin", "HH");
  auto good = dir.write("good.bin", "HHHHaabb");
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::FixedLengthRecordReader reader(g, {.record_bytes = 2, .header_bytes = 4});
  auto [key, value] = reader.read(files);
  af::Session sess(g);
  files.add(sess, short_file);
  files.add(sess, good);
  auto msg = error_of<af::OutOfRangeError>([&] { sess.run(value); });
  BOOST_TEST(contains(msg, "reached end of file"), msg);
  BOOST_TEST(contains(msg, "short.bin"), msg);
  BOOST_TEST(sess.run(reader.num_work_units_completed()).scalar<std::int64_t>() == 0);
  BOOST_TEST(sess.run(value).scalar<std::string>() == "aa");
  BOOST_TEST(sess.run(value).scalar<std::string>() == "bb");
}

// FixedLengthRecordReader: header, footer, records and hops.
BOOST_AUTO_TEST_CASE(fixed_length_record_reader_skips_header_and_footer,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto f = dir.write("f.bin", "HHaabbccFFF");
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::FixedLengthRecordReader reader(g, {.record_bytes = 2, .header_bytes = 2, .footer_bytes = 3});
  auto [key, value] = reader.read(files);
  af::FixedLengthRecordReader hopping(
      g, {.record_bytes = 4, .header_bytes = 2, .footer_bytes = 3, .hop_bytes = 2});
  auto [hkey, hvalue] = hopping.read(files);
  af::Session sess(g);
  files.add(sess, f);
  files.add(sess, f);
  sess.run(files.close());
  std::vector<std::string> got, keys;
  for (int i = 0; i < 3; ++i) {
    auto r = sess.run({key, value});
    keys.push_back(r[0].scalar<std::string>());
    got.push_back(r[1].scalar<std::string>());
  }
  BOOST_TEST(got == (std::vector<std::string>{"aa", "bb", "cc"}));
  BOOST_TEST(keys[0] == f + ":0");
  BOOST_TEST(sess.run(hvalue).scalar<std::string>() == "aabb");
  BOOST_TEST(sess.run(hvalue).scalar<std::string>() == "bbcc");
  BOOST_CHECK_THROW(sess.run(hvalue), af::OutOfRangeError);
}

// TFRecordReader reads files written by TensorFlow (tests/data, see make_tfrecord_fixtures.py)
// and by our writer; a damaged file is DataLoss naming the file and offset.
BOOST_AUTO_TEST_CASE(tf_record_reader_reads_and_detects_damage, *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto ours = (dir.path / "ours.tfrecord").string();
  {
    af::TFRecordWriter w(ours);
    w.write("first");
    w.write("second");
  }
  std::string bytes;
  {
    std::ifstream in(ours, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  bytes[bytes.size() - 6] ^= 0x20;  // flip a bit in "second"
  auto damaged = dir.write("damaged.tfrecord", bytes);
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::TFRecordReader reader(g);
  auto [key, value] = reader.read(files);
  af::Session sess(g);
  files.add(sess, ours);
  files.add(sess, damaged);
  BOOST_TEST(sess.run(value).scalar<std::string>() == "first");
  auto r = sess.run({key, value});
  BOOST_TEST(r[0].scalar<std::string>() == ours + ":21");
  BOOST_TEST(r[1].scalar<std::string>() == "second");
  BOOST_TEST(sess.run(value).scalar<std::string>() == "first");
  auto msg = error_of<af::DataLossError>([&] { sess.run(value); });
  BOOST_TEST(contains(msg, "damaged.tfrecord"), msg);
  BOOST_TEST(contains(msg, "corrupted record at"), msg);

  af::Graph g2;
  af::FIFOQueue files2(g2, {.capacity = 10, .dtypes = {af::string}, .shapes = {{}}});
  auto name2 = g2.placeholder(af::string);
  auto enqueue2 = files2.enqueue({name2});
  af::TFRecordReader gz(g2, {.compression_type = "GZIP"});
  auto [k2, v2] = gz.read(files2);
  af::Session sess2(g2);
  sess2.run(
      enqueue2,
      {{name2, af::Tensor(std::string(ACTORFLOW_TEST_DATA_DIR) + "/tf_written_gzip.tfrecord")}});
  sess2.run(files2.close());
  int n = 0;
  try {
    for (;;) {
      sess2.run(v2);
      ++n;
    }
  } catch (const af::OutOfRangeError&) {
  }
  BOOST_TEST(n == static_cast<int>(af::tf_record_iterator_all(std::string(ACTORFLOW_TEST_DATA_DIR) +
                                                              "/tf_written.tfrecord")
                                       .size()));
  BOOST_TEST(n > 0);
}

// WholeFileReader: the file name and the whole contents.
BOOST_AUTO_TEST_CASE(whole_file_reader_reads_whole_files, *boost::unit_test::timeout(60)) {
  TempDir dir;
  std::string big(300000, 'x');
  big[123456] = 'y';
  auto f = dir.write("big.bin", big);
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::WholeFileReader reader(g);
  auto [key, value] = reader.read(files);
  af::Session sess(g);
  files.add(sess, f);
  auto r = sess.run({key, value});
  BOOST_TEST(r[0].scalar<std::string>() == f);
  BOOST_TEST(r[1].scalar<std::string>() == big);
}

// whole_file_read_ops.cc: the read that returns a file also finishes its work unit
// (*at_end with *produced), and the reader's state (ReaderBase's alone) serializes and
// restores.
BOOST_AUTO_TEST_CASE(whole_file_reader_finishes_each_file_with_its_read_and_saves_its_state,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto a = dir.write("a.txt", "alpha");
  auto b = dir.write("b.txt", "beta");
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::WholeFileReader reader(g);
  auto [key, value] = reader.read(files);
  auto state = reader.serialize_state();
  af::Session sess(g);
  files.add(sess, a);
  files.add(sess, b);
  BOOST_TEST(sess.run(value).scalar<std::string>() == "alpha");
  BOOST_TEST(sess.run(reader.num_work_units_completed()).scalar<std::int64_t>() == 1);
  const std::string saved = sess.run(state).scalar<std::string>();
  BOOST_TEST(sess.run(value).scalar<std::string>() == "beta");
  BOOST_TEST(sess.run(reader.num_records_produced()).scalar<std::int64_t>() == 2);
  sess.run(reader.restore_state(saved));
  BOOST_TEST(sess.run(reader.num_records_produced()).scalar<std::int64_t>() == 1);
  BOOST_TEST(sess.run(reader.num_work_units_completed()).scalar<std::int64_t>() == 1);
}

// decode_csv errors name file:line when the record came from a reader.
BOOST_AUTO_TEST_CASE(decode_csv_errors_name_file_and_line, *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto f = dir.write("bad.csv", "1,2\n3,oops\n");
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::TextLineReader reader(g);
  auto [key, value] = reader.read(files);
  auto cols = af::decode_csv(value, {af::Tensor(0.0f), af::Tensor(0.0f)});
  af::Session sess(g);
  files.add(sess, f);
  BOOST_TEST(sess.run(cols[1]).scalar<float>() == 2.0f);
  auto msg = error_of<af::InvalidArgumentError>([&] { sess.run(cols[1]); });
  BOOST_TEST(contains(msg, f + ":2"), msg);
}

// -- IdentityReader (reader_ops_test.py's IdentityReaderTest) ---------------------------------

namespace {

/// A FIFOQueue(99, [string], shapes=()) and an op enqueueing `items` into it.
struct WorkQueue {
  af::FIFOQueue queue;
  WorkQueue(af::Graph& g) : queue(g, {.capacity = 99, .dtypes = {af::string}, .shapes = {{}}}) {}
  af::Operation enqueue_many(af::Graph& g, std::vector<std::string> items) {
    return queue.enqueue_many({g.constant(af::Tensor::from_vector<std::string>(std::move(items)))});
  }
};

void expect_read(af::Session& sess, const af::Output& key, const af::Output& value,
                 const std::string& want) {
  auto r = sess.run({key, value});
  BOOST_TEST(r[0].scalar<std::string>() == want);
  BOOST_TEST(r[1].scalar<std::string>() == want);
}

std::int64_t int64_of(af::Session& sess, const af::Output& o) {
  return sess.run(o).scalar<std::int64_t>();
}

const char* const kClosedEmpty =
    "is closed and has insufficient elements (requested 1, current size 0)";

}  // namespace

BOOST_AUTO_TEST_CASE(identity_reader_one_epoch, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::IdentityReader reader(g, {.name = "test_reader"});
  auto work_completed = reader.num_work_units_completed();
  auto produced = reader.num_records_produced();
  WorkQueue q(g);
  auto queued_length = q.queue.size();
  auto [key, value] = reader.read(q.queue);
  af::Session sess(g);
  BOOST_TEST(int64_of(sess, work_completed) == 0);
  BOOST_TEST(int64_of(sess, produced) == 0);
  BOOST_TEST(sess.run(queued_length).scalar<std::int32_t>() == 0);
  sess.run(q.enqueue_many(g, {"A", "B", "C"}));
  sess.run(q.queue.close());
  BOOST_TEST(sess.run(queued_length).scalar<std::int32_t>() == 3);
  expect_read(sess, key, value, "A");
  BOOST_TEST(int64_of(sess, produced) == 1);
  expect_read(sess, key, value, "B");
  expect_read(sess, key, value, "C");
  BOOST_TEST(int64_of(sess, produced) == 3);
  BOOST_TEST(sess.run(queued_length).scalar<std::int32_t>() == 0);
  auto msg = error_of<af::OutOfRangeError>([&] { sess.run({key, value}); });
  BOOST_TEST(contains(msg, kClosedEmpty), msg);
  BOOST_TEST(int64_of(sess, work_completed) == 3);
  BOOST_TEST(int64_of(sess, produced) == 3);
}

BOOST_AUTO_TEST_CASE(identity_reader_multiple_epochs, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::IdentityReader reader(g, {.name = "test_reader"});
  WorkQueue q(g);
  auto enqueue = q.enqueue_many(g, {"DD", "EE"});
  auto [key, value] = reader.read(q.queue);
  af::Session sess(g);
  for (int epoch = 0; epoch < 3; ++epoch) {
    sess.run(enqueue);
    expect_read(sess, key, value, "DD");
    expect_read(sess, key, value, "EE");
  }
  sess.run(q.queue.close());
  auto msg = error_of<af::OutOfRangeError>([&] { sess.run({key, value}); });
  BOOST_TEST(contains(msg, kClosedEmpty), msg);
}

BOOST_AUTO_TEST_CASE(identity_reader_serialize_restore, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::IdentityReader reader(g, {.name = "test_reader"});
  auto produced = reader.num_records_produced();
  WorkQueue q(g);
  auto [key, value] = reader.read(q.queue);
  auto serialize = reader.serialize_state();
  auto state_in = g.placeholder(af::string);
  auto restore = reader.restore_state(state_in);
  af::Session sess(g);
  sess.run(q.enqueue_many(g, {"X", "Y", "Z"}));
  expect_read(sess, key, value, "X");
  BOOST_TEST(int64_of(sess, produced) == 1);
  const std::string state = sess.run(serialize).scalar<std::string>();
  // ReaderBaseState{work_started: 1, work_finished: 1, num_records_produced: 1,
  // current_work: "X"} in protobuf wire format, as TensorFlow writes it.
  BOOST_TEST(state == std::string("\x08\x01\x10\x01\x18\x01\x22\x01X", 9));
  expect_read(sess, key, value, "Y");
  expect_read(sess, key, value, "Z");
  BOOST_TEST(int64_of(sess, produced) == 3);
  sess.run(q.enqueue_many(g, {"Y", "Z"}));
  sess.run(q.queue.close());
  sess.run(restore, {{state_in, af::Tensor(state)}});
  BOOST_TEST(int64_of(sess, produced) == 1);
  expect_read(sess, key, value, "Y");
  expect_read(sess, key, value, "Z");
  auto msg = error_of<af::OutOfRangeError>([&] { sess.run({key, value}); });
  BOOST_TEST(contains(msg, kClosedEmpty), msg);
  BOOST_TEST(int64_of(sess, produced) == 3);

  // The state must be a scalar: a vector is refused when the graph is built.
  BOOST_CHECK_THROW(
      reader.restore_state(g.constant(af::Tensor::from_vector<std::string>({state, state}))),
      af::InvalidArgumentError);
  // Damaged bytes do not parse (TensorFlow's five cases).
  for (const std::string& bad :
       {state.substr(1), state.substr(0, state.size() - 1), state + "ExtraJunk", "PREFIX" + state,
        "BOGUS" + state.substr(5)}) {
    auto m = error_of<af::InvalidArgumentError>([&] {
      sess.run(restore, {{state_in, af::Tensor(bad)}});
    });
    BOOST_TEST(contains(m, "Could not parse state for IdentityReader 'test_reader'"), m);
  }
  // A failed restore resets the reader.
  BOOST_TEST(int64_of(sess, produced) == 0);
}

BOOST_AUTO_TEST_CASE(identity_reader_restore_checks_counters, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::IdentityReader reader(g, {.name = "r"});
  auto produced = reader.num_records_produced();
  auto state_in = g.placeholder(af::string);
  auto restore = reader.restore_state(state_in);
  af::Session sess(g);
  // num_records_produced = -1 (a ten-byte varint).
  std::string negative("\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
  auto m = error_of<af::InvalidArgumentError>([&] {
    sess.run(restore, {{state_in, af::Tensor(negative)}});
  });
  BOOST_TEST(contains(m, "Unexpected negative value when restoring in IdentityReader 'r'"), m);
  // work_started 2 > work_finished 1.
  m = error_of<af::InvalidArgumentError>([&] {
    sess.run(restore, {{state_in, af::Tensor(std::string("\x08\x02\x10\x01", 4))}});
  });
  BOOST_TEST(
      contains(m, "Inconsistent work started vs. finished when restoring in IdentityReader 'r'"),
      m);
  // Unknown fields are skipped, as protobuf parsing does; the empty state is all zeros.
  sess.run(restore,
           {{state_in, af::Tensor(std::string("\x18\x07\x28\x05\x35\x01\x02\x03\x04", 9))}});
  BOOST_TEST(int64_of(sess, produced) == 7);
  sess.run(restore, {{state_in, af::Tensor(std::string())}});
  BOOST_TEST(int64_of(sess, produced) == 0);
}

BOOST_AUTO_TEST_CASE(identity_reader_reset, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::IdentityReader reader(g, {.name = "test_reader"});
  auto work_completed = reader.num_work_units_completed();
  auto produced = reader.num_records_produced();
  WorkQueue q(g);
  auto queued_length = q.queue.size();
  auto [key, value] = reader.read(q.queue);
  af::Session sess(g);
  sess.run(q.enqueue_many(g, {"X", "Y", "Z"}));
  expect_read(sess, key, value, "X");
  BOOST_TEST(sess.run(queued_length).scalar<std::int32_t>() > 0);
  BOOST_TEST(int64_of(sess, produced) == 1);
  expect_read(sess, key, value, "Y");
  BOOST_TEST(int64_of(sess, work_completed) > 0);
  BOOST_TEST(int64_of(sess, produced) == 2);
  sess.run(reader.reset());
  BOOST_TEST(int64_of(sess, work_completed) == 0);
  BOOST_TEST(int64_of(sess, produced) == 0);
  BOOST_TEST(sess.run(queued_length).scalar<std::int32_t>() == 1);
  expect_read(sess, key, value, "Z");
  sess.run(q.enqueue_many(g, {"K", "L"}));
  expect_read(sess, key, value, "K");
}

// ReadUpTo on an IdentityReader returns one record per call: every work unit ends with its
// record (ReaderBase's default ReadUpToLocked).
BOOST_AUTO_TEST_CASE(identity_reader_read_up_to_returns_one_work_unit_per_call,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::IdentityReader reader(g);
  WorkQueue q(g);
  auto [keys, values] = reader.read_up_to(q.queue, 5);
  af::Session sess(g);
  sess.run(q.enqueue_many(g, {"a", "b"}));
  BOOST_TEST(sess.run(values).to_vector<std::string>() == std::vector<std::string>{"a"});
  BOOST_TEST(sess.run(keys).to_vector<std::string>() == std::vector<std::string>{"b"});
  BOOST_TEST(sess.run(reader.num_work_units_completed()).scalar<std::int64_t>() == 2);
}

// The file readers cannot serialize their state (TensorFlow's ReaderBase default); a
// failed restore still resets them.
BOOST_AUTO_TEST_CASE(file_readers_do_not_serialize_state, *boost::unit_test::timeout(60)) {
  TempDir dir;
  auto a = dir.write("a.txt", "1\n2\n");
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::TextLineReader reader(g);
  auto [key, value] = reader.read(files);
  af::Session sess(g);
  files.add(sess, a);
  BOOST_TEST(sess.run(value).scalar<std::string>() == "1");
  auto m = error_of<af::UnimplementedError>([&] { sess.run(reader.serialize_state()); });
  BOOST_TEST(contains(m, "Reader SerializeState"), m);
  m = error_of<af::UnimplementedError>(
      [&] { sess.run(reader.restore_state(std::string("\x08\x01", 2))); });
  BOOST_TEST(contains(m, "Reader RestoreState"), m);
  BOOST_TEST(sess.run(reader.num_records_produced()).scalar<std::int64_t>() == 0);
}

// FixedLengthRecordReader over a GZIP file: header 2, record 2, footer 1 around "aabbccdd".
// An intact stream gives the four records; one cut in the middle of the compressed data
// gives the records inflated before the cut and then DataLoss naming the file and the
// offsets (TensorFlow's ZlibInputStream reports such a cut as end of file, so TensorFlow
// would end the epoch short without a word; actorflow refuses to).
BOOST_AUTO_TEST_CASE(fixed_length_record_reader_fails_on_a_gzip_stream_cut_short,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  const std::string gz = gzip_stored("HHaabbccddF");
  const af::FixedLengthRecordReaderOptions options{
      .record_bytes = 2, .header_bytes = 2, .footer_bytes = 1, .encoding = "GZIP"};
  FixedLengthRun intact = read_fixed_length(dir.write("intact.gz", gz), options);
  BOOST_TEST(intact.values == (std::vector<std::string>{"aa", "bb", "cc", "dd"}),
             boost::test_tools::per_element());
  BOOST_TEST(intact.error == "OutOfRange");
  // 15 bytes of framing, then 9 of the 11 data bytes: "HHaabbccd".
  const std::string file = dir.write("cut.gz", gz.substr(0, 15 + 9));
  FixedLengthRun cut = read_fixed_length(file, options);
  BOOST_TEST(cut.values == (std::vector<std::string>{"aa", "bb", "cc"}),
             boost::test_tools::per_element());
  BOOST_TEST(cut.error == "DataLoss", cut.error << ": " << cut.message);
  BOOST_TEST(contains(cut.message, file + ": GZIP stream cut short"), cut.message);
  BOOST_TEST(contains(cut.message,
                      "record 3 of " + file + ", uncompressed offset 9, compressed offset 24"),
             cut.message);
  // Cut inside the gzip header: nothing inflates at all.
  FixedLengthRun header_cut =
      read_fixed_length(dir.write("header_cut.gz", gz.substr(0, 6)), options);
  BOOST_TEST(header_cut.values.empty());
  BOOST_TEST(header_cut.error == "DataLoss", header_cut.error << ": " << header_cut.message);
}

// A flipped byte in the compressed data of a GZIP file: inflate's check of the CRC-32 in the
// trailer fails, DataLoss "inflate() failed with error -3: incorrect data check" (TensorFlow's
// ZlibInputStream message) naming the file and where the reader stood.
BOOST_AUTO_TEST_CASE(fixed_length_record_reader_fails_on_a_gzip_crc_mismatch,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  std::string gz = gzip_stored("HHaabbccddF");
  gz[15 + 4] ^= 0x01;  // the data "HHaab..." becomes "HHaac..."
  const std::string file = dir.write("flipped.gz", gz);
  FixedLengthRun run = read_fixed_length(
      file, {.record_bytes = 2, .header_bytes = 2, .footer_bytes = 1, .encoding = "GZIP"});
  BOOST_TEST(run.error == "DataLoss", run.error << ": " << run.message);
  BOOST_TEST(contains(run.message, file + ": inflate() failed with error -3: incorrect data check"),
             run.message);
  BOOST_TEST(contains(run.message, "of " + file + ", uncompressed offset"), run.message);
  BOOST_TEST(contains(run.message, "compressed offset"), run.message);
  // No record is taken from a stream that failed its check.
  BOOST_TEST(run.values.empty());
}

// A body that is not header + k * record + footer: TensorFlow 1.x's
// FixedLengthRecordReader::ReadLocked (tensorflow/core/kernels/fixed_length_record_reader_op.cc)
// reads record_bytes + footer_bytes into its look-ahead with ReadNBytes and, when that is
// OutOfRange (the file ended first), sets *at_end and returns OK: the trailing partial record
// is dropped silently, for plain files and for intact compressed streams alike.
BOOST_AUTO_TEST_CASE(fixed_length_record_reader_drops_a_trailing_partial_record_as_tensorflow,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  const af::FixedLengthRecordReaderOptions plain{
      .record_bytes = 2, .header_bytes = 2, .footer_bytes = 1};
  FixedLengthRun run = read_fixed_length(dir.write("partial.bin", "HHaabbcF"), plain);
  BOOST_TEST(run.values == (std::vector<std::string>{"aa", "bb"}),
             boost::test_tools::per_element());
  BOOST_TEST(run.error == "OutOfRange", run.error << ": " << run.message);
  af::FixedLengthRecordReaderOptions gzip = plain;
  gzip.encoding = "GZIP";
  FixedLengthRun gz = read_fixed_length(dir.write("partial.gz", gzip_stored("HHaabbcF")), gzip);
  BOOST_TEST(gz.values == (std::vector<std::string>{"aa", "bb"}), boost::test_tools::per_element());
  BOOST_TEST(gz.error == "OutOfRange", gz.error << ": " << gz.message);
}

// The reader ops' constructors check their attributes as TensorFlow's do
// (text_line_reader_op.cc, fixed_length_record_reader_op.cc): the first step that runs the
// reader fails with InvalidArgument naming the attribute and its value.
BOOST_AUTO_TEST_CASE(reader_attributes_are_checked_as_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  af::TextLineReader text(g, {.skip_header_lines = -1});
  af::FixedLengthRecordReader hop(g, {.record_bytes = 4, .hop_bytes = -2});
  af::FixedLengthRecordReader header(g, {.record_bytes = 4, .header_bytes = -1});
  af::FixedLengthRecordReader footer(g, {.record_bytes = 4, .footer_bytes = -3});
  af::TextLineReader fine(g, {.skip_header_lines = 0});
  af::Session sess(g);
  auto msg = error_of<af::InvalidArgumentError>([&] { sess.run(text.num_records_produced()); });
  BOOST_TEST(contains(msg, "skip_header_lines must be >= 0 not -1"), msg);
  msg = error_of<af::InvalidArgumentError>([&] { sess.run(hop.num_records_produced()); });
  BOOST_TEST(contains(msg, "hop_bytes must be >= 0 not -2"), msg);
  msg = error_of<af::InvalidArgumentError>([&] { sess.run(header.num_records_produced()); });
  BOOST_TEST(contains(msg, "header_bytes must be >= 0 not -1"), msg);
  msg = error_of<af::InvalidArgumentError>([&] { sess.run(footer.num_records_produced()); });
  BOOST_TEST(contains(msg, "footer_bytes must be >= 0 not -3"), msg);
  BOOST_TEST(sess.run(fine.num_records_produced()).scalar<std::int64_t>() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
