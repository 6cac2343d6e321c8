// White-box tests of the V2 checkpoint format (BundleWriter, BundleReader, merge_bundles):
// the bytes of docs/training-notes.md section 6.6, round trips of every dtype, sharded
// merges, and the files real TensorFlow 2.21 wrote (tests/data/checkpoints/tf_v2, made by
// scripts/peers/make_checkpoint_fixture.py); the failures are in
// tensor_bundle_corruption_test.cpp.
#include "tensor_bundle_test_util.hpp"

using namespace af::test::bundle;  // NOLINT: the shared helpers

BOOST_AUTO_TEST_SUITE(tensor_bundle_test)

// -- format pieces ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(crc32c_matches_the_castagnoli_check_value) {
  const std::string check = "123456789";
  BOOST_TEST(af::crc32c_value(check.data(), check.size()) == 0xE3069283u);
  BOOST_TEST(af::crc32c_value(nullptr, 0) == 0u);
  // Extending byte by byte (the SSE4.2 byte path) agrees with whole words.
  std::string long_input;
  for (int i = 0; i < 1000; ++i) long_input.push_back(static_cast<char>(i * 7 + 3));
  std::uint32_t piecewise = 0;
  for (char c : long_input) piecewise = af::crc32c_extend(piecewise, &c, 1);
  BOOST_TEST(piecewise == af::crc32c_value(long_input.data(), long_input.size()));
  BOOST_TEST(af::crc32c_value(long_input.data() + 1, 999) ==
             af::crc32c_extend(af::crc32c_value(long_input.data() + 1, 500),
                               long_input.data() + 501, 499));
  // The worked example's data crc, and masking.
  BOOST_TEST(af::crc32c_mask(af::crc32c_value(kWorkedData.data(), kWorkedData.size())) ==
             0x35e53c59u);
  for (std::uint32_t v : {0u, 1u, 0xE3069283u, 0xffffffffu})
    BOOST_TEST(af::crc32c_unmask(af::crc32c_mask(v)) == v);
}

BOOST_AUTO_TEST_CASE(file_names_and_dtype_numbers_are_tensorflows) {
  BOOST_TEST(af::bundle_data_filename("/a/model.ckpt-7", 0, 1) ==
             "/a/model.ckpt-7.data-00000-of-00001");
  BOOST_TEST(af::bundle_data_filename("p", 3, 12) == "p.data-00003-of-00012");
  BOOST_TEST(af::bundle_index_filename("p") == "p.index");
  BOOST_TEST(af::tf_data_type(DType::float32) == 1);
  BOOST_TEST(af::tf_data_type(DType::float64) == 2);
  BOOST_TEST(af::tf_data_type(DType::int32) == 3);
  BOOST_TEST(af::tf_data_type(DType::uint8) == 4);
  BOOST_TEST(af::tf_data_type(DType::string) == 7);
  BOOST_TEST(af::tf_data_type(DType::int64) == 9);
  BOOST_TEST(af::tf_data_type(DType::boolean) == 10);
  BOOST_TEST(af::tf_data_type(DType::bfloat16) == 14);
  BOOST_TEST(af::tf_data_type(DType::resource) == 0);
  BOOST_TEST(af::tf_data_type(DType::int16) == 5);
  BOOST_TEST(af::tf_data_type(DType::complex128) == 18);
  BOOST_TEST(af::tf_data_type(DType::float16) == 19);
  BOOST_TEST(af::tf_data_type(DType::uint64) == 23);
  BOOST_TEST(af::tf_data_type(DType::variant) == 0);
  for (DType t :
       {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8, DType::boolean,
        DType::string, DType::bfloat16, DType::float16, DType::int8, DType::int16, DType::uint16,
        DType::uint32, DType::uint64, DType::complex64, DType::complex128})
    BOOST_TEST(af::dtype_from_tf_data_type(af::tf_data_type(t)) == t);
  BOOST_TEST(af::dtype_from_tf_data_type(11) == DType::invalid);  // qint8
  BOOST_TEST(af::tf_data_type_string(1) == "float");
  BOOST_TEST(af::tf_data_type_string(5) == "int16");
}

// -- the worked example -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(writer_reproduces_the_worked_example_byte_for_byte) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "P").string();
  write_bundle(prefix, {{"w", Tensor::from_vector(std::vector<float>{1.0f, 2.0f})}});
  const std::string data = read_bytes(prefix + ".data-00000-of-00001");
  const std::string index = read_bytes(prefix + ".index");
  BOOST_TEST(to_hex(data) == to_hex(kWorkedData));
  BOOST_TEST(index.size() == 121u);
  BOOST_TEST(to_hex(index) == to_hex(kWorkedIndex));
  BOOST_TEST(index.substr(11, 2 + kWorkedEntry.size()).substr(2) == kWorkedEntry);
  // The same bytes TensorFlow 2.21 wrote for this variable.
  BOOST_TEST(to_hex(data) ==
             to_hex(read_bytes(kFixtureDir + "/worked_example.data-00000-of-00001")));
  BOOST_TEST(to_hex(index) == to_hex(read_bytes(kFixtureDir + "/worked_example.index")));
  // Nothing but the two files is left in the directory.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  BOOST_TEST(names == (std::vector<std::string>{"P.data-00000-of-00001", "P.index"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reader_reads_the_worked_example_written_by_tensorflow) {
  BundleReader reader(kFixtureDir + "/worked_example");
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  BOOST_TEST(reader.num_shards() == 1);
  BOOST_TEST(reader.contains("w"));
  BOOST_TEST(!reader.contains("v"));
  BOOST_TEST(!reader.contains(""));
  BOOST_TEST(lookup(reader, "w") == Tensor::from_vector(std::vector<float>{1.0f, 2.0f}));
  const auto entries = reader.entries();
  BOOST_REQUIRE_EQUAL(entries.size(), 1u);
  BOOST_TEST(entries[0].name == "w");
  BOOST_TEST(entries[0].dtype == DType::float32);
  BOOST_TEST(entries[0].tf_dtype == 1);
  BOOST_TEST(entries[0].shape == Shape({2}));
  BOOST_TEST(!entries[0].partitioned);
}

// -- round trips
// -----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(every_dtype_round_trips_with_scalars_empty_and_3d_tensors) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "ckpt" / "model.ckpt-1").string();  // ckpt/ is created
  std::vector<float> cube(24);
  for (std::size_t i = 0; i < cube.size(); ++i) cube[i] = static_cast<float>(i) * 0.5f - 3.0f;
  Tensor flags(DType::boolean, Shape{3});
  flags.data<bool>()[0] = true;
  flags.data<bool>()[2] = true;
  const std::string long_string(100000, 'q');
  std::vector<std::pair<std::string, Tensor>> tensors = {
      // Added out of order: the index sorts the names.
      {"z/float32", Tensor::from_vector(std::vector<float>{1.5f, -0.0f, 3e38f, 1e-45f})},
      {"a/float64", Tensor::from_vector(std::vector<double>{1.0 / 3, -2.5e300}, Shape{2, 1})},
      {"int32", Tensor::from_vector(
                    std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), 0, 7})},
      {"int64", Tensor(std::int64_t{1} << 40)},
      {"uint8", Tensor::from_vector(std::vector<std::uint8_t>{0, 127, 255}, Shape{1, 3})},
      {"bool", flags},
      {"bfloat16", Tensor::from_vector(
                       std::vector<af::bfloat16_t>{af::bfloat16_t(1.0f), af::bfloat16_t(-2.5f)})},
      {"float16",
       Tensor::from_vector(std::vector<af::half_t>{af::half_t(0.1f), af::half_t(-6e4f)})},
      {"int8", Tensor::from_vector(std::vector<std::int8_t>{-128, 127})},
      {"int16", Tensor::from_vector(std::vector<std::int16_t>{-32768, 2})},
      {"uint16", Tensor::from_vector(std::vector<std::uint16_t>{65535, 0})},
      {"uint32", Tensor::from_vector(std::vector<std::uint32_t>{4294967295u, 1})},
      {"uint64", Tensor::from_vector(std::vector<std::uint64_t>{~std::uint64_t{0}, 3})},
      {"complex64", Tensor::from_vector(std::vector<af::complex64_t>{{1, -2}, {0.5f, 3}})},
      {"complex128", Tensor::from_vector(std::vector<af::complex128_t>{{1e-300, 2}}, Shape{1, 1})},
      {"strings",
       Tensor::from_vector(std::vector<std::string>{"", "hello", std::string(200, 'x'), long_string,
                                                    std::string("nul\0byte", 8)},
                           Shape{5})},
      {"string_scalar", Tensor(std::string("scalar"))},
      {"empty_string", Tensor(std::string())},
      {"scalar_float", Tensor(2.75f)},
      {"empty_vector", Tensor(DType::float32, Shape{0})},
      {"empty_3d", Tensor(DType::int64, Shape{2, 0, 3})},
      {"empty_strings", Tensor(DType::string, Shape{0})},
      {"cube", Tensor::from_vector(cube, Shape{2, 3, 4})},
  };
  write_bundle(prefix, tensors);

  BundleReader reader(prefix);
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  for (const auto& [name, t] : tensors) {
    const Tensor got = lookup(reader, name);
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(got.dtype() == t.dtype());
      BOOST_TEST(got.shape() == t.shape());
      BOOST_TEST(got == t);
    }
  }
  // entries(): every tensor in bytewise name order, with dtype and shape.
  const auto entries = reader.entries();
  BOOST_REQUIRE_EQUAL(entries.size(), tensors.size());
  for (std::size_t i = 1; i < entries.size(); ++i)
    BOOST_TEST((entries[i - 1].name < entries[i].name));
  for (const auto& e : entries) {
    auto it = std::find_if(tensors.begin(), tensors.end(),
                           [&](const auto& p) { return p.first == e.name; });
    BOOST_REQUIRE(it != tensors.end());
    BOOST_TEST(e.dtype == it->second.dtype());
    BOOST_TEST(e.shape == it->second.shape());
  }
  auto info = reader.lookup_dtype_and_shape("cube");
  BOOST_REQUIRE(info.ok());
  BOOST_TEST(info->shape == Shape({2, 3, 4}));
}

BOOST_AUTO_TEST_CASE(string_tensors_are_laid_out_as_tensorflow_lays_them_out) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "s").string();
  write_bundle(
      prefix,
      {{"s", Tensor::from_vector(std::vector<std::string>{"", "ab", std::string(130, 'c')})}});
  const std::string data = read_bytes(prefix + ".data-00000-of-00001");
  // varint lengths 0, 2, 130 (two bytes), the masked crc32c of the lengths as uint32s, bytes.
  std::uint32_t lengths_crc = 0;
  for (std::uint32_t len : {0u, 2u, 130u}) lengths_crc = af::crc32c_extend(lengths_crc, &len, 4);
  const std::string expected = from_hex("00 02 82 01") + fixed32(af::crc32c_mask(lengths_crc)) +
                               "ab" + std::string(130, 'c');
  BOOST_TEST(to_hex(data) == to_hex(expected));
  // The entry's crc covers the length values, the 4 checksum bytes and the string bytes.
  std::uint32_t entry_crc = lengths_crc;
  const std::string checksum = fixed32(af::crc32c_mask(lengths_crc));
  entry_crc = af::crc32c_extend(entry_crc, checksum.data(), 4);
  entry_crc = af::crc32c_extend(entry_crc, "ab", 2);
  const std::string cs(130, 'c');
  entry_crc = af::crc32c_extend(entry_crc, cs.data(), cs.size());
  const std::string index = read_bytes(prefix + ".index");
  const std::string entry_tail =
      from_hex("28") + varint(data.size()) + "\x35" + fixed32(af::crc32c_mask(entry_crc));
  BOOST_TEST(contains_text(index, entry_tail));
}

BOOST_AUTO_TEST_CASE(many_tensors_span_several_index_blocks_and_megabytes_of_data) {
  af::test::TempDir dir;
  std::string prefix = (dir.path / "big").string();
  // With ACTORFLOW_CHECKPOINT_EXPORT_DIR set, the files stay there (for a comparison with
  // the files TensorFlow writes for the same tensors).
  if (const char* env = std::getenv("ACTORFLOW_CHECKPOINT_EXPORT_DIR"))
    prefix = std::string(env) + "/actorflow_big";
  constexpr int kTensors = 3000;
  constexpr std::int64_t kElements = 1000;
  const std::string padding(90, 'p');  // long names fill index blocks sooner
  auto name_of = [&](int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%05d", i);
    return "layer_" + std::string(buf) + "/" + padding;
  };
  auto tensor_of = [&](int i) {
    std::vector<float> v(kElements);
    for (std::int64_t k = 0; k < kElements; ++k)
      v[static_cast<std::size_t>(k)] = static_cast<float>(i * kElements + k);
    return Tensor::from_vector(v);
  };
  std::vector<float> huge(3 << 20);  // one 12 MiB tensor, larger than any buffer
  for (std::size_t k = 0; k < huge.size(); ++k) huge[k] = static_cast<float>(k % 9973);
  {
    BundleWriter writer(prefix);
    for (int i = kTensors - 1; i >= 0; --i)
      BOOST_REQUIRE(writer.add(name_of(i), tensor_of(i)).ok());
    BOOST_REQUIRE(writer.add("huge", Tensor::from_vector(huge)).ok());
    BOOST_REQUIRE(writer.finish().ok());
  }
  const std::string index = read_bytes(prefix + ".index");
  BOOST_TEST(index.size() > 262144u);
  BOOST_TEST(data_block_count(index) >= 2u);
  BOOST_TEST(fs::file_size(prefix + ".data-00000-of-00001") ==
             static_cast<std::uintmax_t>(kTensors * kElements * 4 + huge.size() * 4));

  BundleReader reader(prefix);
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  BOOST_TEST(reader.entries().size() == static_cast<std::size_t>(kTensors + 1));
  for (int i = 0; i < kTensors; ++i)
    if (!(lookup(reader, name_of(i)) == tensor_of(i))) BOOST_FAIL("tensor " << i << " differs");
  BOOST_TEST(lookup(reader, "huge").to_vector<float>() == huge);
}

BOOST_AUTO_TEST_CASE(lookups_from_several_threads_agree, *boost::unit_test::timeout(60)) {
  af::test::TempDir dir;
  const std::string p0 = (dir.path / "t" / "part0").string();
  const std::string p1 = (dir.path / "t" / "part1").string();
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (int i = 0; i < 64; ++i)
    tensors.emplace_back(
        "v" + std::to_string(i),
        i % 3 == 0 ? Tensor::from_vector(std::vector<std::string>(i, std::string(i, 'k')))
                   : Tensor::from_vector(std::vector<double>(static_cast<std::size_t>(i * 10), i)));
  write_bundle(p0, {tensors.begin(), tensors.begin() + 32});
  write_bundle(p1, {tensors.begin() + 32, tensors.end()});
  const std::string prefix = (dir.path / "merged").string();
  BOOST_REQUIRE(af::merge_bundles({p0, p1}, prefix, true).ok());
  BundleReader reader(prefix);  // two data files, opened lazily by whichever thread comes first
  BOOST_REQUIRE(reader.status().ok());
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round)
        for (std::size_t i = 0; i < tensors.size(); ++i) {
          const auto& [name, value] =
              tensors[(i * 7 + static_cast<std::size_t>(t)) % tensors.size()];
          auto got = reader.lookup(name);
          if (!got.ok() || !(*got == value)) ++mismatches;
        }
    });
  for (auto& th : threads) th.join();
  BOOST_TEST(mismatches.load() == 0);
}

// -- errors
// ------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(merging_two_shards_reads_every_tensor_back) {
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "model.ckpt-5").string();
  const std::string temp = prefix + "_temp";
  const std::string part0 = temp + "/part-00000-of-00002";
  const std::string part1 = temp + "/part-00001-of-00002";
  const std::vector<std::pair<std::string, Tensor>> shard0 = {
      {"b/kernel", Tensor::from_vector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2})},
      {"global_step", Tensor(std::int64_t{5})}};
  const std::vector<std::pair<std::string, Tensor>> shard1 = {
      {"a/bias", Tensor::from_vector(std::vector<double>{0.5, -0.5})},
      {"c/vocab", Tensor::from_vector(std::vector<std::string>{"x", "", "yz"})}};
  write_bundle(part0, shard0);
  write_bundle(part1, shard1);
  BOOST_REQUIRE(af::merge_bundles({part0, part1}, prefix, /*delete_old_dirs=*/true).ok());

  BOOST_TEST(fs::exists(prefix + ".index"));
  BOOST_TEST(fs::exists(prefix + ".data-00000-of-00002"));
  BOOST_TEST(fs::exists(prefix + ".data-00001-of-00002"));
  BOOST_TEST(!fs::exists(temp));  // the emptied temporary directory is gone
  BundleReader reader(prefix);
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  BOOST_TEST(reader.num_shards() == 2);
  for (const auto* shard : {&shard0, &shard1})
    for (const auto& [name, t] : *shard) BOOST_TEST(lookup(reader, name) == t);
  BOOST_TEST(reader.entries().size() == 4u);
  // Shard ids follow the order in which the merge met the data files: part 0 first.
  BOOST_TEST(fs::file_size(prefix + ".data-00000-of-00002") == 16u + 8u);

  // Without delete_old_dirs the (empty) directory stays; the part index files go anyway.
  const std::string prefix2 = (dir.path / "other").string();
  write_bundle(temp + "/p0", shard0);
  write_bundle(temp + "/p1", shard1);
  BOOST_REQUIRE(af::merge_bundles({temp + "/p0", temp + "/p1"}, prefix2, false).ok());
  BOOST_TEST(fs::exists(temp));
  BOOST_TEST(fs::is_empty(temp));
  BOOST_TEST(lookup(BundleReader(prefix2), "c/vocab") == shard1[1].second);
}

BOOST_AUTO_TEST_CASE(merging_shards_that_share_a_tensor_is_invalid_argument) {
  af::test::TempDir dir;
  const std::string p0 = (dir.path / "t" / "p0").string();
  const std::string p1 = (dir.path / "t" / "p1").string();
  write_bundle(p0, {{"w", Tensor(1.0f)}});
  write_bundle(p1, {{"w", Tensor(2.0f)}});
  af::Status s = af::merge_bundles({p0, p1}, (dir.path / "out").string(), true);
  BOOST_TEST(s.code() == af::Code::invalid_argument);
  BOOST_TEST(s.message() == "Duplicate tensor keyed by w encountered, when merging prefix: " + p1);
  af::Status missing =
      af::merge_bundles({(dir.path / "none").string()}, (dir.path / "out").string(), true);
  BOOST_TEST(missing.code() == af::Code::not_found);
}

// -- real TensorFlow's files
// -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reads_every_tensor_of_the_checkpoint_tensorflow_wrote) {
  const nlohmann::json doc = read_fixture_json();
  const auto expected = tensors_of_json(doc);
  BOOST_REQUIRE_GE(expected.size(), 17u);
  BundleReader reader(kFixtureDir + "/model.ckpt");
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  BOOST_TEST(reader.entries().size() == expected.size());
  for (const auto& [name, t] : expected) {
    BOOST_TEST_CONTEXT(name) {
      auto info = reader.lookup_dtype_and_shape(name);
      BOOST_REQUIRE(info.ok());
      BOOST_TEST(info->dtype == t.dtype());
      BOOST_TEST(info->shape == t.shape());
      BOOST_TEST(lookup(reader, name) == t);
    }
  }
  // Spot checks against the script's literals.
  BOOST_TEST(lookup(reader, "global_step") == Tensor(std::int64_t{1}));
  BOOST_TEST(lookup(reader, "vocab").data<std::string>()[2] == std::string(300, 'x'));
  BOOST_TEST(lookup(reader, "vocab").data<std::string>()[3] == "caf\xc3\xa9");
  BOOST_TEST(lookup(reader, "empty").shape() == Shape({0, 3}));
  BOOST_TEST(lookup(reader, "dense/kernel/Adam_1").shape() == Shape({3, 2}));
}

BOOST_AUTO_TEST_CASE(reads_and_reproduces_the_sharded_checkpoint_tensorflow_merged) {
  const std::vector<std::pair<std::string, Tensor>> part0 = {
      {"a", Tensor::from_vector(std::vector<float>{0.5f, -1.0f})},
      {"c", Tensor::from_vector(std::vector<std::string>{"x", "yz"})}};
  const std::vector<std::pair<std::string, Tensor>> part1 = {
      {"b", Tensor(std::int64_t{7})},
      {"d", Tensor::from_vector(std::vector<double>{1, 2, 3, 4}, Shape{2, 2})}};
  BundleReader reader(kFixtureDir + "/sharded.ckpt");
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  BOOST_TEST(reader.num_shards() == 2);
  for (const auto* part : {&part0, &part1})
    for (const auto& [name, t] : *part) BOOST_TEST(lookup(reader, name) == t);

  // The same parts written and merged here give TensorFlow's three files, byte for byte.
  af::test::TempDir dir;
  const std::string prefix = (dir.path / "sharded.ckpt").string();
  const std::string p0 = prefix + "_temp/part-00000-of-00002";
  const std::string p1 = prefix + "_temp/part-00001-of-00002";
  write_bundle(p0, part0);
  write_bundle(p1, part1);
  BOOST_REQUIRE(af::merge_bundles({p0, p1}, prefix, true).ok());
  for (const std::string suffix : {".index", ".data-00000-of-00002", ".data-00001-of-00002"})
    BOOST_TEST(to_hex(read_bytes(prefix + suffix)) ==
               to_hex(read_bytes(kFixtureDir + "/sharded.ckpt" + suffix)));
}

BOOST_AUTO_TEST_CASE(rewriting_tensorflows_tensors_gives_tensorflows_bytes) {
  // Python's Saver sorts the variables by name before SaveV2; adding in that order must
  // reproduce both files exactly.
  const nlohmann::json doc = read_fixture_json();
  auto tensors = tensors_of_json(doc);
  std::sort(tensors.begin(), tensors.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  af::test::TempDir dir;
  std::string out_dir = dir.path.string();
  // With ACTORFLOW_CHECKPOINT_EXPORT_DIR set, the files stay there for
  // scripts/peers/check_actorflow_checkpoint.py (real TensorFlow reading actorflow's files).
  if (const char* env = std::getenv("ACTORFLOW_CHECKPOINT_EXPORT_DIR")) out_dir = env;
  const std::string prefix = out_dir + "/actorflow.ckpt";
  write_bundle(prefix, tensors);
  if (std::getenv("ACTORFLOW_CHECKPOINT_EXPORT_DIR"))
    write_bytes(out_dir + "/actorflow.json", doc.dump(1));
  BOOST_TEST(to_hex(read_bytes(prefix + ".data-00000-of-00001")) ==
             to_hex(read_bytes(kFixtureDir + "/model.ckpt.data-00000-of-00001")));
  BOOST_TEST(to_hex(read_bytes(prefix + ".index")) ==
             to_hex(read_bytes(kFixtureDir + "/model.ckpt.index")));

  // The same tensors as a two-shard checkpoint (alternate tensors per shard), merged.
  const std::string sharded = out_dir + "/actorflow_sharded.ckpt";
  std::vector<std::pair<std::string, Tensor>> parts[2];
  for (std::size_t i = 0; i < tensors.size(); ++i) parts[i % 2].push_back(tensors[i]);
  const std::string part0 = sharded + "_temp/part-00000-of-00002";
  const std::string part1 = sharded + "_temp/part-00001-of-00002";
  write_bundle(part0, parts[0]);
  write_bundle(part1, parts[1]);
  BOOST_REQUIRE(af::merge_bundles({part0, part1}, sharded, true).ok());
  BundleReader reader(sharded);
  BOOST_REQUIRE_MESSAGE(reader.status().ok(), reader.status().to_string());
  BOOST_TEST(reader.num_shards() == 2);
  for (const auto& [name, t] : tensors) BOOST_TEST(lookup(reader, name) == t);
}

// Large buffers are checksummed in three interleaved lanes joined by crc32c_combine; the
// result must equal the plain chained crc of the same bytes, for every split remainder.
BOOST_AUTO_TEST_CASE(large_crcs_in_lanes_equal_the_chained_crc) {
  std::vector<unsigned char> bytes(3 * 1024 * 1024 + 29);
  std::uint32_t x = 12345;
  for (auto& b : bytes) b = static_cast<unsigned char>((x = x * 1103515245u + 12345u) >> 24);
  for (std::size_t size :
       {std::size_t{256 * 1024}, std::size_t{256 * 1024 + 7}, std::size_t{1000003}, bytes.size()}) {
    std::uint32_t chained = 0;
    for (std::size_t at = 0; at < size; at += 4096)
      chained =
          af::crc32c_extend(chained, bytes.data() + at, std::min<std::size_t>(4096, size - at));
    BOOST_TEST(af::crc32c_value(bytes.data(), size) == chained, "size " << size);
    // Extending a non-zero crc goes through the lanes too.
    const std::uint32_t head = af::crc32c_value(bytes.data(), 100);
    std::uint32_t rest_chained = head;
    for (std::size_t at = 100; at < size; at += 4096)
      rest_chained = af::crc32c_extend(rest_chained, bytes.data() + at,
                                       std::min<std::size_t>(4096, size - at));
    BOOST_TEST(af::crc32c_extend(head, bytes.data() + 100, size - 100) == rest_chained,
               "size " << size);
  }
}

BOOST_AUTO_TEST_SUITE_END()
