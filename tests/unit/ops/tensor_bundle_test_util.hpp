#pragma once

// What the tensor bundle tests share (tensor_bundle_test.cpp, tensor_bundle_corruption_test.cpp):
// file bytes, hex, the pieces of a LevelDB table (varints, blocks, trailers) and the tensors
// of the TensorFlow-written fixture tests/data/checkpoints/tf_v2.
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
#include "actorflow/ops/tensor_bundle.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace af::test::bundle {

namespace fs = std::filesystem;
using af::BundleReader;
using af::BundleWriter;
using af::DType;
using af::Shape;
using af::Tensor;

inline const std::string kFixtureDir = ACTORFLOW_TEST_DATA_DIR + "/checkpoints/tf_v2";

inline std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline std::string from_hex(const std::string& hex) {
  std::string out;
  std::string digits;
  for (char c : hex)
    if (std::isxdigit(static_cast<unsigned char>(c))) digits += c;
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16)));
  return out;
}

inline std::string to_hex(const std::string& bytes) {
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
inline void write_bundle(const std::string& prefix,
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

inline Tensor lookup(const BundleReader& reader, const std::string& name) {
  af::StatusOr<Tensor> t = reader.lookup(name);
  BOOST_REQUIRE_MESSAGE(t.ok(), name << ": " << t.status().to_string());
  return *t;
}

inline bool contains_text(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// -- a hand-made table, for index contents BundleWriter never writes ----------------------

inline std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

inline std::string fixed32(std::uint32_t v) {
  std::string out;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A block whose every entry is a restart point (valid, though not LevelDB's layout).
inline std::string block(const std::vector<std::pair<std::string, std::string>>& entries) {
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

inline std::string trailer(const std::string& contents) {
  const char type = 0;
  const std::uint32_t crc =
      af::crc32c_extend(af::crc32c_value(contents.data(), contents.size()), &type, 1);
  return std::string(1, type) + fixed32(af::crc32c_mask(crc));
}

// An SSTable of one data block holding `entries` (sorted, the header under "" first).
inline std::string table(const std::vector<std::pair<std::string, std::string>>& entries) {
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
inline const std::string kWorkedEntry = from_hex("08 01 12 04 12 02 08 02 28 08 35 59 3c e5 35");
inline const std::string kWorkedData = from_hex("00 00 80 3f 00 00 00 40");
inline const std::string kWorkedIndex = from_hex(
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
inline std::uint32_t data_block_count(const std::string& index_file) {
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
inline std::vector<std::pair<std::string, Tensor>> tensors_of_json(const nlohmann::json& doc) {
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

inline nlohmann::json read_fixture_json() {
  return nlohmann::json::parse(read_bytes(kFixtureDir + "/model.json"));
}

}  // namespace af::test::bundle
