// White-box tests of TFRecord reading and writing: files written by TensorFlow 2.21 itself
// (tests/data/make_tfrecord_fixtures.py), round trips of our writer, byte identity with
// TensorFlow's output, CRC-32C vectors from TensorFlow's crc32c_test.cc, and the errors for
// truncated, corrupted, missing and empty files.
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../../queues/src/record_io.hpp"
#include "actorflow/ops/errors.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/queues/tf_record.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;
using af::TFRecordCompressionType;
using af::TFRecordOptions;

const fs::path data_dir{ACTORFLOW_TEST_DATA_DIR};

// The records of tests/data/tf_written*.tfrecord (make_tfrecord_fixtures.py, `records()`).
std::vector<std::string> fixture_records() {
  std::string every_byte(256, '\0');
  for (int i = 0; i < 256; ++i) every_byte[i] = static_cast<char>(i);
  std::string pattern(1000, '\0');
  for (int i = 0; i < 1000; ++i) pattern[i] = static_cast<char>((i * 7 + 3) % 251);
  return {"first record", "", every_byte, pattern,
          std::string{'\0', '\xff', 'l', 'a', 's', 't', '\n'}};
}

// Offsets of the fixture records in the uncompressed stream: 16 bytes of framing each.
const std::vector<std::uint64_t> fixture_offsets{0, 28, 44, 316, 1332};
constexpr std::uint64_t fixture_size = 1355;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  BOOST_REQUIRE(out.good());
}

// Reads records with io::RecordReader until the first non-OK status, which it returns.
af::Status read_all(const fs::path& path, const std::string& compression,
                    std::vector<std::string>* records) {
  std::unique_ptr<af::io::RecordReader> reader;
  af::Status s = af::io::RecordReader::open(path.string(), compression, &reader);
  if (!s.ok()) return s;
  for (;;) {
    std::string record;
    s = reader->read(&record);
    if (!s.ok()) return s;
    records->push_back(std::move(record));
  }
}

std::string write_records(const fs::path& path, const std::vector<std::string>& records,
                          TFRecordOptions options = {}) {
  af::TFRecordWriter writer(path.string(), options);
  for (const auto& r : records) writer.write(r);
  writer.close();
  return read_file(path);
}

// A fresh directory per test case, removed afterwards.
struct TempDir : af::test::TempDir {
  TempDir() : af::test::TempDir("actorflow_tf_record_test") {}
};

const std::vector<std::pair<std::string, TFRecordCompressionType>> compressions{
    {"", TFRecordCompressionType::none},
    {"ZLIB", TFRecordCompressionType::zlib},
    {"GZIP", TFRecordCompressionType::gzip}};

}  // namespace

BOOST_AUTO_TEST_SUITE(tf_record_conformance_test)

// -- crc32c -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(crc32c_matches_the_check_value_and_rfc3720_vectors) {
  using af::io::crc32c;
  BOOST_TEST(crc32c("123456789", 9) == 0xE3069283u);
  BOOST_TEST(crc32c("", 0) == 0u);

  // tsl/lib/hash/crc32c_test.cc, StandardResults (RFC 3720 section B.4).
  unsigned char buf[32];
  std::fill(std::begin(buf), std::end(buf), 0);
  BOOST_TEST(crc32c(buf, sizeof(buf)) == 0x8a9136aau);
  std::fill(std::begin(buf), std::end(buf), 0xff);
  BOOST_TEST(crc32c(buf, sizeof(buf)) == 0x62a8ab43u);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<unsigned char>(i);
  BOOST_TEST(crc32c(buf, sizeof(buf)) == 0x46dd794eu);
  for (int i = 0; i < 32; ++i) buf[i] = static_cast<unsigned char>(31 - i);
  BOOST_TEST(crc32c(buf, sizeof(buf)) == 0x113fdb5cu);
  const unsigned char iscsi[48] = {
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
      0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  };
  BOOST_TEST(crc32c(iscsi, sizeof(iscsi)) == 0xd9963a56u);
  // Unaligned sizes and offsets.
  BOOST_TEST(crc32c(iscsi, sizeof(iscsi) - 7) == 0xdd1b19beu);
  BOOST_TEST(crc32c(iscsi + 1, sizeof(iscsi) - 4) == 0x4930c4b1u);
  BOOST_TEST(crc32c("a", 1) != crc32c("foo", 3));
}

BOOST_AUTO_TEST_CASE(crc32c_extend_equals_the_crc_of_the_concatenation_at_every_split) {
  using af::io::crc32c;
  using af::io::crc32c_extend;
  BOOST_TEST(crc32c("hello world", 11) == crc32c_extend(crc32c("hello ", 6), "world", 5));
  std::string data(1000, '\0');
  std::mt19937 rng(42);
  for (auto& c : data) c = static_cast<char>(rng());
  const std::uint32_t whole = crc32c(data.data(), data.size());
  for (std::size_t split = 0; split <= 40; ++split) {
    for (std::size_t start = 0; start < 9; ++start) {
      const std::string_view piece(data.data() + start, data.size() - start);
      const std::uint32_t expected = crc32c(piece.data(), piece.size());
      BOOST_TEST(crc32c_extend(crc32c(piece.data(), split), piece.data() + split,
                               piece.size() - split) == expected);
    }
  }
  BOOST_TEST(crc32c_extend(crc32c(data.data(), 517), data.data() + 517, 483) == whole);
}

BOOST_AUTO_TEST_CASE(table_crc32c_agrees_with_the_dispatched_one) {
  // crc32c_extend uses SSE4.2 where the CPU has it; the table code must agree everywhere.
  using af::io::crc32c_extend_portable;
  BOOST_TEST(crc32c_extend_portable(0, "123456789", 9) == 0xE3069283u);
  std::string data(300, '\0');
  std::mt19937 rng(3);
  for (auto& c : data) c = static_cast<char>(rng());
  for (std::size_t start = 0; start < 9; ++start) {
    for (std::size_t n = 0; n + start <= data.size(); n += 7) {
      BOOST_TEST(crc32c_extend_portable(0x1234u, data.data() + start, n) ==
                 af::io::crc32c_extend(0x1234u, data.data() + start, n));
    }
  }
}

BOOST_AUTO_TEST_CASE(mask_rotates_and_adds_the_delta_and_unmask_inverts_it) {
  using af::io::mask_crc;
  using af::io::unmask_crc;
  const std::uint32_t crc = af::io::crc32c("foo", 3);
  BOOST_TEST(crc != mask_crc(crc));
  BOOST_TEST(crc != mask_crc(mask_crc(crc)));
  BOOST_TEST(crc == unmask_crc(mask_crc(crc)));
  BOOST_TEST(crc == unmask_crc(unmask_crc(mask_crc(mask_crc(crc)))));
  BOOST_TEST(mask_crc(0x12345678u) ==
             ((((0x12345678u >> 15) | (0x12345678u << 17)) + 0xa282ead8u) & 0xffffffffu));
}

// -- files TensorFlow wrote --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reads_the_records_tensorflow_wrote_in_every_compression) {
  const std::vector<std::pair<std::string, TFRecordCompressionType>> files{
      {"tf_written.tfrecord", TFRecordCompressionType::none},
      {"tf_written_zlib.tfrecord", TFRecordCompressionType::zlib},
      {"tf_written_gzip.tfrecord", TFRecordCompressionType::gzip}};
  for (const auto& [name, compression] : files) {
    BOOST_TEST_CONTEXT(name) {
      const auto records = af::tf_record_iterator_all((data_dir / name).string(), {compression});
      BOOST_TEST(records == fixture_records(), boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(reader_reports_the_uncompressed_offset_of_each_record) {
  for (const char* name : {"tf_written.tfrecord", "tf_written_gzip.tfrecord"}) {
    BOOST_TEST_CONTEXT(name) {
      const std::string compression =
          std::string(name).find("gzip") != std::string::npos ? "GZIP" : "";
      std::unique_ptr<af::io::RecordReader> reader;
      BOOST_REQUIRE(
          af::io::RecordReader::open((data_dir / name).string(), compression, &reader).ok());
      const auto expected = fixture_records();
      for (std::size_t i = 0; i < expected.size(); ++i) {
        BOOST_TEST(reader->offset() == fixture_offsets[i]);
        std::string record;
        BOOST_REQUIRE(reader->read(&record).ok());
        BOOST_TEST(record == expected[i]);
      }
      BOOST_TEST(reader->offset() == fixture_size);
      std::string record;
      BOOST_TEST(reader->read(&record).code() == af::Code::out_of_range);
      BOOST_TEST(reader->read(&record).code() == af::Code::out_of_range);
    }
  }
}

BOOST_AUTO_TEST_CASE(iterator_yields_records_one_at_a_time_then_nullopt) {
  af::TFRecordIterator records((data_dir / "tf_written_zlib.tfrecord").string(),
                               TFRecordOptions::from_string("ZLIB"));
  for (const auto& expected : fixture_records()) {
    auto record = records.next();
    BOOST_REQUIRE(record.has_value());
    BOOST_TEST(*record == expected);
  }
  BOOST_TEST(!records.next().has_value());
  BOOST_TEST(records.offset() == fixture_size);
  records.close();
  records.close();
  BOOST_TEST(!records.next().has_value());
}

BOOST_AUTO_TEST_CASE(reads_tensorflow_files_from_memory_streams) {
  for (const auto& [name, compression] : std::vector<std::pair<std::string, af::io::Compression>>{
           {"tf_written.tfrecord", af::io::Compression::none},
           {"tf_written_zlib.tfrecord", af::io::Compression::zlib},
           {"tf_written_gzip.tfrecord", af::io::Compression::gzip}}) {
    BOOST_TEST_CONTEXT(name) {
      const std::string bytes = read_file(data_dir / name);
      // Tiny buffers exercise every refill path.
      af::io::RecordReader reader(std::make_unique<af::io::MemoryInputStream>(bytes), compression,
                                  "<memory>", /*buffer_size=*/13);
      std::vector<std::string> records;
      std::string record;
      af::Status s;
      while ((s = reader.read(&record)).ok()) records.push_back(record);
      BOOST_TEST(s.code() == af::Code::out_of_range);
      BOOST_TEST(records == fixture_records(), boost::test_tools::per_element());
    }
  }
}

// -- writing ------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(uncompressed_output_is_byte_identical_to_tensorflows) {
  TempDir tmp;
  const std::string ours = write_records(tmp.file("ours.tfrecord"), fixture_records());
  BOOST_TEST(ours == read_file(data_dir / "tf_written.tfrecord"));
}

BOOST_AUTO_TEST_CASE(compressed_output_uses_tensorflows_zlib_settings) {
  // Same deflate parameters and buffering as tsl::io::ZlibOutputBuffer, so the bytes match
  // TensorFlow's as long as both link a zlib whose deflate emits the same stream (every
  // release from 1.2.x to 1.3.x does for these settings).
  TempDir tmp;
  BOOST_TEST(write_records(tmp.file("z"), fixture_records(), {TFRecordCompressionType::zlib}) ==
             read_file(data_dir / "tf_written_zlib.tfrecord"));
  BOOST_TEST(write_records(tmp.file("g"), fixture_records(), {TFRecordCompressionType::gzip}) ==
             read_file(data_dir / "tf_written_gzip.tfrecord"));
}

BOOST_AUTO_TEST_CASE(round_trips_in_every_compression) {
  TempDir tmp;
  // Small, empty and binary records plus one larger than the 256 KiB buffers, which bypasses
  // them on both sides.
  std::vector<std::string> records = fixture_records();
  std::mt19937 rng(7);
  std::string big(600 << 10, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(rng() % 16);
  records.push_back(big);
  for (int i = 0; i < 1000; ++i) records.push_back("Record " + std::to_string(i));
  records.emplace_back();
  for (const auto& [name, compression] : compressions) {
    BOOST_TEST_CONTEXT("compression \"" << name << "\"") {
      const fs::path path = tmp.file("round_trip" + name);
      write_records(path, records, {compression});
      BOOST_TEST(af::tf_record_iterator_all(path.string(), {compression}) == records);
      std::vector<std::string> read;
      BOOST_TEST(read_all(path, name, &read).code() == af::Code::out_of_range);
      BOOST_TEST(read.size() == records.size());
    }
  }
}

BOOST_AUTO_TEST_CASE(flush_makes_the_records_so_far_readable_before_close) {
  TempDir tmp;
  for (const auto& [name, compression] : compressions) {
    BOOST_TEST_CONTEXT("compression \"" << name << "\"") {
      const fs::path path = tmp.file("flushed" + name);
      af::TFRecordWriter writer(path.string(), {compression});
      writer.write("one");
      writer.write("two");
      writer.flush();
      af::TFRecordIterator records(path.string(), {compression});
      BOOST_TEST(records.next().value_or("<none>") == "one");
      BOOST_TEST(records.next().value_or("<none>") == "two");
      BOOST_TEST(!records.next().has_value());
      // The iterator, like TensorFlow's, picks up what is appended after its end.
      writer.write("three");
      writer.flush();
      BOOST_TEST(records.next().value_or("<none>") == "three");
      BOOST_TEST(!records.next().has_value());
      writer.close();
      BOOST_TEST(!records.next().has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(close_is_idempotent_and_later_writes_and_flushes_fail) {
  TempDir tmp;
  for (const auto& [name, compression] : compressions) {
    BOOST_TEST_CONTEXT("compression \"" << name << "\"") {
      const fs::path path = tmp.file("closed" + name);
      af::TFRecordWriter writer(path.string(), {compression});
      writer.write("Record 0");
      writer.close();
      writer.close();
      BOOST_CHECK_THROW(writer.write("Record 1"), af::FailedPreconditionError);
      BOOST_CHECK_THROW(writer.flush(), af::FailedPreconditionError);
      BOOST_TEST(af::tf_record_iterator_all(path.string(), {compression}) ==
                 std::vector<std::string>{"Record 0"});
    }
  }
}

BOOST_AUTO_TEST_CASE(writer_destructor_finishes_the_file) {
  TempDir tmp;
  const fs::path path = tmp.file("unclosed.gz");
  {
    af::TFRecordWriter writer(path.string(), {TFRecordCompressionType::gzip});
    writer.write("left open");
  }
  BOOST_TEST(af::tf_record_iterator_all(path.string(), {TFRecordCompressionType::gzip}) ==
             std::vector<std::string>{"left open"});
}

BOOST_AUTO_TEST_CASE(options_parse_tensorflows_compression_strings) {
  BOOST_TEST((TFRecordOptions::from_string("").compression_type == TFRecordCompressionType::none));
  BOOST_TEST(
      (TFRecordOptions::from_string("ZLIB").compression_type == TFRecordCompressionType::zlib));
  BOOST_TEST(
      (TFRecordOptions::from_string("GZIP").compression_type == TFRecordCompressionType::gzip));
  for (const auto& [name, compression] : compressions) {
    BOOST_TEST(TFRecordOptions{compression}.compression_string() == name);
  }
  try {
    TFRecordOptions::from_string("gzip");
    BOOST_FAIL("lower-case gzip accepted");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()) == "Not a valid compression_type: \"gzip\"");
  }
  std::unique_ptr<af::io::RecordReader> reader;
  BOOST_TEST(
      af::io::RecordReader::open((data_dir / "tf_written.tfrecord").string(), "SNAPPY", &reader)
          .code() == af::Code::invalid_argument);
}

// -- errors -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(missing_file_is_not_found_naming_the_path) {
  TempDir tmp;
  const std::string path = tmp.file("does_not_exist.tfrecord").string();
  std::unique_ptr<af::io::RecordReader> reader;
  const af::Status s = af::io::RecordReader::open(path, "", &reader);
  BOOST_TEST(s.code() == af::Code::not_found);
  BOOST_TEST(s.message() == path + "; No such file or directory");
  BOOST_CHECK_THROW(af::TFRecordIterator{path}, af::NotFoundError);
  BOOST_CHECK_THROW(af::tf_record_iterator_all(path), af::NotFoundError);
  const std::string in_missing_dir = tmp.file("no_such_dir/out.tfrecord").string();
  try {
    af::TFRecordWriter writer(in_missing_dir);
    BOOST_FAIL("writer opened a file in a missing directory");
  } catch (const af::NotFoundError& e) {
    BOOST_TEST(std::string(e.what()) == in_missing_dir + "; No such file or directory");
  }
}

BOOST_AUTO_TEST_CASE(empty_file_is_out_of_range_at_the_first_read) {
  TempDir tmp;
  const fs::path path = tmp.file("empty.tfrecord");
  write_file(path, "");
  for (const auto& [name, compression] : compressions) {
    BOOST_TEST_CONTEXT("compression \"" << name << "\"") {
      std::unique_ptr<af::io::RecordReader> reader;
      BOOST_REQUIRE(af::io::RecordReader::open(path.string(), name, &reader).ok());
      std::string record;
      BOOST_TEST(reader->read(&record).code() == af::Code::out_of_range);
      BOOST_TEST(af::tf_record_iterator_all(path.string(), {compression}).empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(truncation_after_a_header_is_data_loss_naming_the_record_offset) {
  TempDir tmp;
  const std::string full = read_file(data_dir / "tf_written.tfrecord");
  const auto expected = fixture_records();
  // (cut, records before the damaged one, offset of the damaged record): cuts inside the data
  // and inside the footer of records 0, 2 and 4, and right after a header.
  const std::vector<std::tuple<std::size_t, std::size_t, std::uint64_t>> cuts{
      {12, 0, 0},   {14, 0, 0},   {24, 0, 0},     {27, 0, 0},      {40, 1, 28},    {56, 2, 44},
      {200, 2, 44}, {315, 2, 44}, {1000, 3, 316}, {1344, 4, 1332}, {1354, 4, 1332}};
  for (const auto& [cut, good, offset] : cuts) {
    BOOST_TEST_CONTEXT("cut at " << cut) {
      const fs::path path = tmp.file("truncated_" + std::to_string(cut));
      write_file(path, std::string_view(full).substr(0, cut));
      std::vector<std::string> records;
      const af::Status s = read_all(path, "", &records);
      BOOST_TEST(s.code() == af::Code::data_loss);
      BOOST_TEST(s.message() == path.string() + ": truncated record at " + std::to_string(offset));
      BOOST_TEST(records == std::vector<std::string>(expected.begin(), expected.begin() + good));
      BOOST_CHECK_THROW(af::tf_record_iterator_all(path.string()), af::DataLossError);
    }
  }
}

BOOST_AUTO_TEST_CASE(truncation_inside_a_header_reads_as_the_end_of_the_file_as_tensorflow) {
  // TensorFlow's ReadChecksummed passes on the OutOfRange of a short header read, so
  // tf_record_iterator stops there without an error; we keep that behaviour.
  TempDir tmp;
  const std::string full = read_file(data_dir / "tf_written.tfrecord");
  const auto expected = fixture_records();
  for (const auto& [cut, good] : std::vector<std::pair<std::size_t, std::size_t>>{
           {1, 0}, {11, 0}, {29, 1}, {50, 2}, {1343, 4}}) {
    BOOST_TEST_CONTEXT("cut at " << cut) {
      const fs::path path = tmp.file("header_cut_" + std::to_string(cut));
      write_file(path, std::string_view(full).substr(0, cut));
      BOOST_TEST(af::tf_record_iterator_all(path.string()) ==
                 std::vector<std::string>(expected.begin(), expected.begin() + good));
    }
  }
}

BOOST_AUTO_TEST_CASE(truncated_compressed_files_yield_a_prefix_then_end_or_data_loss) {
  TempDir tmp;
  const auto expected = fixture_records();
  for (const auto& [name, compression] : std::vector<std::pair<std::string, std::string>>{
           {"tf_written_zlib.tfrecord", "ZLIB"}, {"tf_written_gzip.tfrecord", "GZIP"}}) {
    const std::string full = read_file(data_dir / name);
    std::size_t data_losses = 0;
    for (std::size_t cut = 0; cut < full.size(); ++cut) {
      BOOST_TEST_CONTEXT(name << " cut at " << cut) {
        const fs::path path = tmp.file("cut");
        write_file(path, std::string_view(full).substr(0, cut));
        std::vector<std::string> records;
        const af::Status s = read_all(path, compression, &records);
        BOOST_TEST((s.code() == af::Code::out_of_range || s.code() == af::Code::data_loss));
        if (s.code() == af::Code::data_loss) {
          ++data_losses;
          BOOST_TEST(s.message().find(": truncated record at ") != std::string::npos);
        }
        BOOST_REQUIRE_LE(records.size(), expected.size());
        BOOST_TEST(records ==
                   std::vector<std::string>(expected.begin(), expected.begin() + records.size()));
      }
    }
    BOOST_TEST(data_losses > 0u);
  }
}

BOOST_AUTO_TEST_CASE(flipped_bytes_are_data_loss_naming_the_path_and_offset) {
  TempDir tmp;
  const std::string full = read_file(data_dir / "tf_written.tfrecord");
  // (byte flipped, records read before the error, message after "<path>: ")
  const std::vector<std::tuple<std::size_t, std::size_t, std::string>> flips{
      {0, 0, "corrupted record at 0 (Is this even a TFRecord file?)"},  // length
      {9, 0, "corrupted record at 0 (Is this even a TFRecord file?)"},  // length crc
      {12, 0, "corrupted record at 12"},                                // data
      {25, 0, "corrupted record at 12"},                                // data crc
      {30, 1, "corrupted record at 28"},                                // empty record's length
      {40, 1, "corrupted record at 40"},                                // empty record's data crc
      {100, 2, "corrupted record at 56"},                               // data
      {312, 2, "corrupted record at 56"},                               // data crc
      {1000, 3, "corrupted record at 328"},                             // data
      {1340, 4, "corrupted record at 1332"},                            // length crc
      {1354, 4, "corrupted record at 1344"}};                           // data crc
  for (const auto& [at, good, message] : flips) {
    BOOST_TEST_CONTEXT("byte " << at) {
      std::string damaged = full;
      damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
      const fs::path path = tmp.file("flipped_" + std::to_string(at));
      write_file(path, damaged);
      std::vector<std::string> records;
      const af::Status s = read_all(path, "", &records);
      BOOST_TEST(s.code() == af::Code::data_loss);
      BOOST_TEST(s.message() == path.string() + ": " + message);
      BOOST_TEST(records.size() == good);
      try {
        af::tf_record_iterator_all(path.string());
        BOOST_FAIL("no error for a flipped byte");
      } catch (const af::DataLossError& e) {
        BOOST_TEST(std::string(e.what()) == path.string() + ": " + message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(data_loss_is_sticky) {
  TempDir tmp;
  std::string damaged = read_file(data_dir / "tf_written.tfrecord");
  damaged[100] = static_cast<char>(damaged[100] ^ 1);
  const fs::path path = tmp.file("sticky");
  write_file(path, damaged);
  af::TFRecordIterator records(path.string());
  BOOST_TEST(records.next().has_value());
  BOOST_TEST(records.next().has_value());
  BOOST_CHECK_THROW(records.next(), af::DataLossError);
  BOOST_CHECK_THROW(records.next(), af::DataLossError);
  BOOST_TEST(records.offset() == 44u);
}

BOOST_AUTO_TEST_CASE(corrupted_compressed_stream_is_data_loss_from_inflate) {
  TempDir tmp;
  const fs::path path = tmp.file("garbage");
  write_file(path, "garbage!garbage!garbage!");
  for (const std::string compression : {"ZLIB", "GZIP"}) {
    std::vector<std::string> records;
    const af::Status s = read_all(path, compression, &records);
    BOOST_TEST(s.code() == af::Code::data_loss);
    BOOST_TEST(s.message() ==
               path.string() + ": inflate() failed with error -3: incorrect header check");
  }
  // A valid stream read without decompression is just a corrupted TFRecord file.
  std::vector<std::string> records;
  BOOST_TEST(read_all(data_dir / "tf_written_zlib.tfrecord", "", &records).code() ==
             af::Code::data_loss);
}

BOOST_AUTO_TEST_CASE(huge_lengths_fail_without_allocating_them) {
  auto header = [](std::uint64_t length) {
    std::string h(12, '\0');
    for (int i = 0; i < 8; ++i) h[i] = static_cast<char>((length >> (8 * i)) & 0xff);
    const std::uint32_t masked = af::io::mask_crc(af::io::crc32c(h.data(), 8));
    for (int i = 0; i < 4; ++i) h[8 + i] = static_cast<char>((masked >> (8 * i)) & 0xff);
    return h;
  };
  {
    const std::string bytes = header(std::uint64_t{1} << 62) + "only a few bytes of data";
    af::io::RecordReader reader(std::make_unique<af::io::MemoryInputStream>(bytes),
                                af::io::Compression::none, "<memory>");
    std::string record;
    const af::Status s = reader.read(&record);
    BOOST_TEST(s.code() == af::Code::data_loss);
    BOOST_TEST(s.message() == "<memory>: truncated record at 0");
  }
  {
    const std::string bytes = header(~std::uint64_t{0});
    af::io::RecordReader reader(std::make_unique<af::io::MemoryInputStream>(bytes),
                                af::io::Compression::none, "<memory>");
    std::string record;
    const af::Status s = reader.read(&record);
    BOOST_TEST(s.code() == af::Code::data_loss);
    BOOST_TEST(s.message() == "<memory>: record size too large at 0");
  }
}

BOOST_AUTO_TEST_CASE(io_errors_carry_tensorflows_codes) {
  BOOST_TEST(af::io::io_error("p", ENOENT).code() == af::Code::not_found);
  BOOST_TEST(af::io::io_error("p", EACCES).code() == af::Code::permission_denied);
  BOOST_TEST(af::io::io_error("p", EISDIR).code() == af::Code::failed_precondition);
  BOOST_TEST(af::io::io_error("p", ENOSPC).code() == af::Code::resource_exhausted);
  BOOST_TEST(af::io::io_error("p", EIO).code() == af::Code::unknown);
  BOOST_TEST(af::io::io_error("p", ENOENT).message() == "p; No such file or directory");
  // Reading a directory fails at the first read, as TensorFlow's RandomAccessFile does.
  TempDir tmp;
  std::unique_ptr<af::io::RecordReader> reader;
  BOOST_REQUIRE(af::io::RecordReader::open(tmp.path.string(), "", &reader).ok());
  std::string record;
  const af::Status s = reader->read(&record);
  BOOST_TEST(s.code() == af::Code::failed_precondition);
  BOOST_TEST(s.message() == tmp.path.string() + "; Is a directory");
}

BOOST_AUTO_TEST_SUITE_END()
