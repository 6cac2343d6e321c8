// White-box tests of the V2 checkpoint format (BundleWriter, BundleReader, merge_bundles):
// the bytes of docs/training-notes.md section 6.6, round trips of every dtype, corruption,
// sharded merges, and the files real TensorFlow 2.21 wrote (tests/data/checkpoints/tf_v2,
// made by scripts/peers/make_checkpoint_fixture.py).
#include "actorflow/ops/tensor_bundle.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "actorflow/ops/tensor.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;
using af::BundleReader;
using af::BundleWriter;
using af::DType;
using af::Shape;
using af::Tensor;

const std::string kFixtureDir = ACTORFLOW_TEST_DATA_DIR + "/checkpoints/tf_v2";

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  std::string digits;
  for (char c : hex)
    if (std::isxdigit(static_cast<unsigned char>(c))) digits += c;
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  return out;
}

std::string to_hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
    out += ' ';
  }
  return out;
}

// Writes `tensors` (in the given order) as a bundle at `prefix`; requires success.
void write_bundle(const std::string& prefix,
                  const std::vector<std::pair<std::string, Tensor>>& tensors) {
  BundleWriter writer(prefix);
  BOOST_REQUIRE_MESSAGE(writer.status().ok(), writer.status().to_string());
  for (const auto& [name, t] : tensors) {
    af::Status s = writer.add(name, t);
    BOOST_REQUIRE_MESSAGE(s.ok(), s.to_string());
  }
  af::Status s = writer.finish();
  BOOST_REQUIRE_MESSAGE(s.ok(), s.to_string());
}

Tensor lookup(const BundleReader& reader, const std::string& name) {
  af::StatusOr<Tensor> t = reader.lookup(name);
  BOOST_REQUIRE_MESSAGE(t.ok(), name << ": " << t.status().to_string());
  return *t;
}

bool contains_text(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// -- a hand-made table, for index contents BundleWriter never writes ----------------------

std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string fixed32(std::uint32_t v) {
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A block whose every entry is a restart point (valid, though not LevelDB's layout).
std::string block(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string b;
  std::vector<std::uint32_t> restarts;
  for (const auto& [k, v] : entries) {
    restarts.push_back(static_cast<std::uint32_t>(b.size()));
    b += varint(0) + varint(k.size()) + varint(v.size()) + k + v;
  }
  if (restarts.empty()) restarts.push_back(0);
  for (auto r : restarts) b += fixed32(r);
  return b + fixed32(static_cast<std::uint32_t>(restarts.size()));
}

std::string trailer(const std::string& contents) {
  const char type = 0;
  const std::uint32_t crc =
      af::crc32c_extend(af::crc32c_value(contents.data(), contents.size()), &type, 1);
  return std::string(1, type) + fixed32(af::crc32c_mask(crc));
}

// An SSTable of one data block holding `entries` (sorted, the header under "" first).
std::string table(const std::vector<std::pair<std::string, std::string>>& entries) {
  const std::string data = block(entries);
  std::string file = data + trailer(data);
  const std::string meta = block({});
  const std::size_t meta_offset = file.size();
  file += meta + trailer(meta);
  const std::string index = block({{"\xff", varint(0) + varint(data.size())}});
  const std::size_t index_offset = file.size();
  file += index + trailer(index);
  std::string footer =
      varint(meta_offset) + varint(meta.size()) + varint(index_offset) + varint(index.size());
  footer.resize(40, '\0');
  return file + footer + fixed32(0x8b80fb57u) + fixed32(0xdb477524u);
}

// The entry of `w` in the worked example (float32 [2], offset 0, 8 bytes).
const std::string kWorkedEntry = from_hex("08 01 12 04 12 02 08 02 28 08 35 59 3c e5 35");
const std::string kWorkedData = from_hex("00 00 80 3f 00 00 00 40");
const std::string kWorkedIndex = from_hex(
    "00 00 06 08 01 1a 02 08 01 00 01 0f 77 08 01 12"
    "04 12 02 08 02 28 08 35 59 3c e5 35 00 00 00 00"
    "01 00 00 00 00 09 21 ad c3 00 00 00 00 01 00 00"
    "00 00 c0 f2 a1 b0 00 01 02 78 00 24 00 00 00 00"
    "01 00 00 00 00 ab 30 70 7f 29 08 36 0e 00 00 00"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
    "00 57 fb 80 8b 24 75 47 db");

// The number of data blocks of an index file: the entries of its index block (one per data
// block, every one a restart point).
std::uint32_t data_block_count(const std::string& index_file) {
  const std::string footer = index_file.substr(index_file.size() - 48);
  const char* p = footer.data();
  auto get = [&p]() {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto b = static_cast<std::uint8_t>(*p++);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
  };
  get();
  get();  // metaindex handle
  const std::uint64_t index_offset = get();
  const std::uint64_t index_size = get();
  std::uint32_t restarts;
  std::memcpy(&restarts, index_file.data() + index_offset + index_size - 4, 4);
  return restarts;
}

// The tensors of a model.json file (see make_checkpoint_fixture.py), by name.
std::vector<std::pair<std::string, Tensor>> tensors_of_json(const nlohmann::json& doc) {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, spec] : doc.at("tensors").items()) {
    const std::string dtype = spec.at("dtype");
    const Shape shape(spec.at("shape").get<std::vector<std::int64_t>>());
    const auto& v = spec.at("values");
    Tensor t;
    if (dtype == "float32") {
      t = Tensor::from_vector(v.get<std::vector<float>>(), shape);
    } else if (dtype == "float64") {
      t = Tensor::from_vector(v.get<std::vector<double>>(), shape);
    } else if (dtype == "int32") {
      t = Tensor::from_vector(v.get<std::vector<std::int32_t>>(), shape);
    } else if (dtype == "int64") {
      t = Tensor::from_vector(v.get<std::vector<std::int64_t>>(), shape);
    } else if (dtype == "uint8") {
      t = Tensor::from_vector(v.get<std::vector<std::uint8_t>>(), shape);
    } else if (dtype == "bool") {
      std::vector<bool> b = v.get<std::vector<bool>>();
      t = Tensor(DType::boolean, shape);
      for (std::size_t i = 0; i < b.size(); ++i) t.data<bool>()[i] = b[i];
    } else if (dtype == "bfloat16") {
      std::vector<af::bfloat16_t> b;
      for (float f : v.get<std::vector<float>>()) b.emplace_back(f);
      t = Tensor::from_vector(b, shape);
    } else if (dtype == "string") {
      // latin-1 text in the JSON: one byte per code point.
      std::vector<std::string> strings;
      for (const std::string& utf8 : v.get<std::vector<std::string>>()) {
        std::string bytes;
        for (std::size_t i = 0; i < utf8.size(); ++i) {
          const auto c = static_cast<unsigned char>(utf8[i]);
          if (c < 0x80) {
            bytes.push_back(static_cast<char>(c));
          } else {
            bytes.push_back(static_cast<char>(((c & 0x1f) << 6) |
                                              (static_cast<unsigned char>(utf8[++i]) & 0x3f)));
          }
        }
        strings.push_back(bytes);
      }
      t = Tensor::from_vector(strings, shape);
    } else {
      BOOST_FAIL("unexpected dtype " << dtype);
    }
    out.emplace_back(name, t);
  }
  return out;
}

nlohmann::json read_fixture_json() {
  return nlohmann::json::parse(read_bytes(kFixtureDir + "/model.json"));
}

}  // namespace

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
