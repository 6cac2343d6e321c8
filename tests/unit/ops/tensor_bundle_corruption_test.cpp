// The V2 checkpoint format's failures (BundleWriter, BundleReader): flipped and truncated
// data and index files, missing files and keys, names added twice, unfinished saves and index
// fields TensorFlow's reader refuses, each a clear error naming the file or tensor.
#include "actorflow/ops/tensor_bundle.hpp"
#include "tensor_bundle_test_util.hpp"

using namespace af::test::bundle;  // NOLINT: the shared helpers

BOOST_AUTO_TEST_SUITE(tensor_bundle_corruption_test)

BOOST_AUTO_TEST_CASE(a_flipped_data_byte_is_data_loss_naming_the_file_and_tensor) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "P").string();
  write_bundle(prefix, {{"a", Tensor(1.0f)},
                        {"w", Tensor::from_vector(std::vector<float>{1.0f, 2.0f})},
                        {"s", Tensor::from_vector(std::vector<std::string>{"abc", "de"})}});
  const std::string data_file = prefix + ".data-00000-of-00001";
  std::string data = read_bytes(data_file);
  data[4 + 5] ^= 0x01;            // inside w (a takes bytes 0-3)
  data[data.size() - 1] ^= 0x20;  // inside s's string bytes
  write_bytes(data_file, data);

  BundleReader reader(prefix);
  BOOST_REQUIRE(reader.status().ok());
  BOOST_TEST(lookup(reader, "a") == Tensor(1.0f));  // the other tensors are intact
  for (const std::string name : {"w", "s"}) {
    auto w = reader.lookup(name);
    BOOST_REQUIRE(!w.ok());
    BOOST_TEST(w.status().code() == af::Code::data_loss);
    BOOST_TEST_MESSAGE(w.status().to_string());
    BOOST_TEST(contains_text(w.status().message(), "Checksum does not match"));
    BOOST_TEST(contains_text(w.status().message(), "P.data-00000-of-00001"));
    BOOST_TEST(contains_text(w.status().message(), "tensor " + name));
  }
  // A flipped string length fails the lengths' checksum first.
  data = read_bytes(data_file);
  data[12] ^= 0x01;  // s's first varint length (a: 4 bytes, w: 8 bytes)
  write_bytes(data_file, data);
  BundleReader again(prefix);
  auto s = again.lookup("s");
  BOOST_REQUIRE(!s.ok());
  BOOST_TEST(s.status().code() == af::Code::data_loss);
  BOOST_TEST_MESSAGE(s.status().to_string());
}

// TensorFlow's BundleReader reads through RandomAccessFile::Read, which answers a read past
// the end with OutOfRange "Read less bytes than requested" (core/platform/file_system.h).
BOOST_AUTO_TEST_CASE(a_truncated_data_file_is_out_of_range_read_less_bytes_than_requested) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "P").string();
  write_bundle(prefix, {{"a", Tensor::from_vector(std::vector<double>{1, 2, 3})},
                        {"s", Tensor::from_vector(std::vector<std::string>{"xyz"})}});
  const std::string data_file = prefix + ".data-00000-of-00001";
  fs::resize_file(data_file, 20);  // a needs 24 bytes
  BundleReader reader(prefix);
  BOOST_REQUIRE(reader.status().ok());
  for (const std::string name : {"a", "s"}) {
    auto t = reader.lookup(name);
    BOOST_REQUIRE(!t.ok());
    BOOST_TEST(t.status().code() == af::Code::out_of_range);
    BOOST_TEST_MESSAGE(t.status().to_string());
    BOOST_TEST(t.status().message().rfind("Read less bytes than requested", 0) == 0u);
    BOOST_TEST(contains_text(t.status().message(), data_file));
    BOOST_TEST(contains_text(t.status().message(), "tensor " + name));
  }
  // A missing data file is NotFound naming it.
  fs::remove(data_file);
  BundleReader gone(prefix);
  auto t = gone.lookup("a");
  BOOST_REQUIRE(!t.ok());
  BOOST_TEST(t.status().code() == af::Code::not_found);
  BOOST_TEST(contains_text(t.status().message(), data_file));
}

BOOST_AUTO_TEST_CASE(a_truncated_or_corrupt_index_is_data_loss_naming_the_file) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "P").string();
  write_bundle(prefix, {{"w", Tensor::from_vector(std::vector<float>{1.0f, 2.0f})}});
  const std::string index_file = prefix + ".index";
  const std::string good = read_bytes(index_file);
  struct Case {
    std::string what;
    std::string bytes;
    std::string message;
  };
  std::string flipped = good;
  flipped[14] ^= 0x04;  // inside the entry of w, in the data block
  std::string bad_magic = good;
  bad_magic[good.size() - 1] = 0;
  const std::vector<Case> cases = {
      {"truncated", good.substr(0, good.size() - 10), "bad magic number"},
      {"too short", good.substr(0, 20), "too short"},
      {"empty", "", "too short"},
      {"bad magic", bad_magic, "bad magic number"},
      {"flipped", flipped, "checksum mismatch"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      write_bytes(index_file, c.bytes);
      BundleReader reader(prefix);
      BOOST_TEST(reader.status().code() == af::Code::data_loss);
      BOOST_TEST_MESSAGE(reader.status().to_string());
      BOOST_TEST(contains_text(reader.status().message(), index_file));
      BOOST_TEST(contains_text(reader.status().message(), c.message));
      BOOST_TEST(!reader.contains("w"));
      BOOST_TEST(reader.lookup("w").status().code() == af::Code::data_loss);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_missing_index_is_not_found_naming_the_index_file) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "nothing_here").string();
  BundleReader reader(prefix);
  BOOST_TEST(reader.status().code() == af::Code::not_found);
  BOOST_TEST(reader.status().message() == prefix + ".index; No such file or directory");
  BOOST_TEST(reader.entries().empty());
}

BOOST_AUTO_TEST_CASE(a_missing_key_is_not_found_with_tensorflows_text) {
  BundleReader reader(kFixtureDir + "/worked_example");
  auto t = reader.lookup("dense/kernel");
  BOOST_TEST(t.status().code() == af::Code::not_found);
  BOOST_TEST(t.status().message() == "Key dense/kernel not found in checkpoint");
  BOOST_TEST(reader.lookup_dtype_and_shape("v").status().message() ==
             "Key v not found in checkpoint");
}

BOOST_AUTO_TEST_CASE(adding_a_name_twice_is_invalid_argument) {
  af::test::TempDir dir;
  BundleWriter writer((dir.path / "P").string());
  BOOST_REQUIRE(writer.add("w", Tensor(1.0f)).ok());
  af::Status s = writer.add("w", Tensor(2.0f));
  BOOST_TEST(s.code() == af::Code::invalid_argument);
  BOOST_TEST(s.message() == "Adding duplicate key: w");
  BOOST_TEST(writer.finish().message() == "Adding duplicate key: w");
  BOOST_TEST(!fs::exists(dir.path / "P.index"));
  BOOST_TEST(fs::is_empty(dir.path));  // the temporary files are gone
  BundleWriter other((dir.path / "Q").string());
  BOOST_TEST(other.add("", Tensor(1.0f)).code() == af::Code::invalid_argument);
  BOOST_TEST(other.add("r", Tensor()).code() == af::Code::invalid_argument);
  BOOST_TEST(other.finish().ok());
  BOOST_TEST(other.finish().code() == af::Code::internal);
}

BOOST_AUTO_TEST_CASE(an_unfinished_save_leaves_the_previous_checkpoint_readable) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "model").string();
  write_bundle(prefix, {{"v", Tensor(1.0f)}});
  const std::string old_index = read_bytes(prefix + ".index");
  {
    BundleWriter writer(prefix);
    BOOST_REQUIRE(writer.add("v", Tensor::from_vector(std::vector<float>(100000, 2.0f))).ok());
    // Mid-save: the temporary files exist beside the old checkpoint, which still reads.
    std::size_t temporaries = 0;
    for (const auto& e : fs::directory_iterator(dir.path))
      if (contains_text(e.path().filename().string(), ".tempstate")) ++temporaries;
    BOOST_TEST(temporaries == 1u);
    BundleReader reader(prefix);
    BOOST_TEST(lookup(reader, "v") == Tensor(1.0f));
    // The writer is dropped without finish(), as by an exception or a crash.
  }
  BOOST_TEST(read_bytes(prefix + ".index") == old_index);
  BOOST_TEST(lookup(BundleReader(prefix), "v") == Tensor(1.0f));
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) {
    BOOST_TEST(!contains_text(e.path().filename().string(), ".tempstate"));
    ++files;
  }
  BOOST_TEST(files == 2u);
  // A finished save replaces it.
  write_bundle(prefix, {{"v", Tensor(3.0f)}});
  BOOST_TEST(lookup(BundleReader(prefix), "v") == Tensor(3.0f));
}

BOOST_AUTO_TEST_CASE(index_decoding_skips_unknown_fields_and_rejects_big_endian_and_new_versions) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "P").string();
  write_bytes(prefix + ".data-00000-of-00001", kWorkedData);
  auto open_with = [&](const std::string& header, const std::string& entry) {
    write_bytes(prefix + ".index", table({{"", header}, {"w", entry}}));
    return std::make_unique<BundleReader>(prefix);
  };
  const std::string header = from_hex("08 01 1a 02 08 01");
  // Unknown fields (a varint field 15, a length-delimited field 9) are skipped.
  {
    auto reader = open_with(header + from_hex("4a 03 61 62 63"), kWorkedEntry + from_hex("78 05"));
    BOOST_REQUIRE_MESSAGE(reader->status().ok(), reader->status().to_string());
    BOOST_TEST(lookup(*reader, "w") == Tensor::from_vector(std::vector<float>{1.0f, 2.0f}));
  }
  {
    auto reader = open_with(from_hex("08 01 10 01 1a 02 08 01"), kWorkedEntry);
    BOOST_TEST(reader->status().code() == af::Code::unimplemented);
    BOOST_TEST(contains_text(reader->status().message(), "big-endian"));
  }
  {
    auto reader = open_with(from_hex("08 01 1a 04 08 02 10 02"), kWorkedEntry);  // min_consumer 2
    BOOST_TEST(reader->status().code() == af::Code::invalid_argument);
    BOOST_TEST(contains_text(reader->status().message(),
                             "Checkpoint min consumer version 2 above current version 1"));
  }
  {
    auto reader =
        open_with(from_hex("08 01 1a 04 08 02 18 01"), kWorkedEntry);  // bad_consumers [1]
    BOOST_TEST(reader->status().code() == af::Code::invalid_argument);
    BOOST_TEST(
        contains_text(reader->status().message(), "Checkpoint disallows consumer version 1"));
  }
  {
    // A stored size that does not fit float32 [2].
    auto reader = open_with(header, from_hex("08 01 12 04 12 02 08 02 28 0c 35 59 3c e5 35"));
    BOOST_REQUIRE(reader->status().ok());
    auto t = reader->lookup("w");
    BOOST_TEST(t.status().code() == af::Code::data_loss);
    BOOST_TEST(t.status().message() ==
               "Invalid size in bundle entry: key w; stored size 12; expected size 8");
  }
  {
    // A dtype actorflow has no type for (DT_QINT8).
    auto reader = open_with(header, from_hex("08 0b 12 04 12 02 08 02 28 04 35 59 3c e5 35"));
    BOOST_REQUIRE(reader->status().ok());
    BOOST_TEST(reader->entries().at(0).tf_dtype == 11);
    BOOST_TEST(reader->lookup("w").status().code() == af::Code::unimplemented);
  }
  {
    // An entry that is not a protobuf.
    auto reader = open_with(header, from_hex("0a ff"));
    BOOST_TEST(reader->status().code() == af::Code::data_loss);
    BOOST_TEST(contains_text(reader->status().message(), "Entry for key w not parseable."));
  }
}

// -- merging
// -------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE_END()
