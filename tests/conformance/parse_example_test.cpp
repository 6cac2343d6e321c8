// af::io::parse_example against TensorFlow: built here on the records TensorFlow serialized
// for tests/data/tf_ops (case "ParseExampleV2"), it gives what TensorFlow's parse_example
// gave; bad records fail with TensorFlow's messages, naming the example; and an input
// pipeline reads a TFRecord file of Examples in batches and parses them.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reader_fixture.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Tensor;
using af::io::FixedLenFeature;
using af::io::VarLenFeature;
using af::test::TempDir;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_ops";

// -- a tiny protobuf writer for hand-made Examples -----------------------------------------

void varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

// Field `field` of wire type 2 (length-delimited) holding `bytes`.
std::string delimited(int field, const std::string& bytes) {
  std::string out(1, static_cast<char>(field << 3 | 2));
  varint(out, bytes.size());
  return out + bytes;
}

std::string float_feature(const std::vector<float>& values) {
  std::string packed(values.size() * 4, '\0');
  std::memcpy(packed.data(), values.data(), packed.size());
  return delimited(2, delimited(1, packed));  // Feature.float_list { value }
}

std::string int64_feature(const std::vector<std::int64_t>& values) {
  std::string packed;
  for (auto v : values) varint(packed, static_cast<std::uint64_t>(v));
  return delimited(3, delimited(1, packed));  // Feature.int64_list { value }
}

// An Example of (key, serialized Feature) pairs.
std::string example(const std::vector<std::pair<std::string, std::string>>& features) {
  std::string map;
  for (const auto& [key, feature] : features)
    map += delimited(1, delimited(1, key) + delimited(2, feature));
  return delimited(1, map);  // Example.features { feature: map }
}

Tensor records(const std::vector<std::string>& r) {
  return Tensor::from_vector(r, af::Shape{static_cast<std::int64_t>(r.size())});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parse_example_test)

// The features of TensorFlow's case, parsed here from the records it serialized.
BOOST_AUTO_TEST_CASE(parses_tensorflows_records_to_tensorflows_values,
                     *boost::unit_test::timeout(120)) {
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((dir / "graph.pb").string()), {.name = ""});
  std::ifstream in(dir / "reference.json");
  const auto ref = nlohmann::json::parse(in);
  const nlohmann::json* want = nullptr;
  for (const auto& c : ref["cases"])
    if (c["name"] == "ParseExampleV2") want = &c;
  BOOST_REQUIRE(want != nullptr);
  const Output serialized = g.output((*want)["inputs"][0].get<std::string>());
  const auto parsed = af::io::parse_example(
      serialized,
      {{"age", FixedLenFeature{{}, DType::int64, Tensor(std::int64_t{-1})}},
       {"img", FixedLenFeature{{2}, DType::float32, Tensor::from_vector(std::vector<float>{0, 0})}},
       {"seq", FixedLenFeature{{-1, 2}, DType::float32, Tensor(0.5f)}}},
      {{"tags", VarLenFeature{DType::string}},
       {"ids", VarLenFeature{DType::int64}},
       {"weights", VarLenFeature{DType::float32}}},
      "parsed_here");
  BOOST_TEST(parsed.dense.at("img").node()->type() == "ParseExampleV2");
  BOOST_TEST(parsed.dense.at("img").node()->name() == "parsed_here/ParseExampleV2");
  BOOST_TEST(g.operation("parsed_here/key_age").type() == "Const");
  BOOST_TEST(parsed.dense.at("seq").shape() == af::PartialShape({4, -1, 2}));
  BOOST_TEST(parsed.sparse.at("ids").indices.shape() == af::PartialShape({-1, 2}));
  // TensorFlow's outputs in the order of its sorted keys: age, ids (3), img, seq, tags (3),
  // weights (3); the fixture lists them as flat() did.
  const std::vector<Output> mine = {parsed.dense.at("age"),
                                    parsed.sparse.at("ids").indices,
                                    parsed.sparse.at("ids").values,
                                    parsed.sparse.at("ids").dense_shape,
                                    parsed.dense.at("img"),
                                    parsed.dense.at("seq"),
                                    parsed.sparse.at("tags").indices,
                                    parsed.sparse.at("tags").values,
                                    parsed.sparse.at("tags").dense_shape,
                                    parsed.sparse.at("weights").indices,
                                    parsed.sparse.at("weights").values,
                                    parsed.sparse.at("weights").dense_shape};
  af::Session sess(g);
  const auto got = sess.run(mine);
  const auto& outputs = (*want)["outputs"];
  BOOST_REQUIRE_EQUAL(outputs.size(), mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i) {
    BOOST_TEST_CONTEXT("output " << i) {
      const auto& w = outputs[i][1];
      BOOST_TEST(got[i].shape().dims() == w["shape"].get<std::vector<std::int64_t>>(),
                 boost::test_tools::per_element());
      for (std::size_t k = 0; k < w["values"].size(); ++k) {
        const auto& v = w["values"][k];
        if (got[i].dtype() == DType::string)
          BOOST_TEST(got[i].data<std::string>()[k] == v.get<std::string>());
        else if (got[i].dtype() == DType::int64)
          BOOST_TEST(got[i].data<std::int64_t>()[k] == v.get<std::int64_t>());
        else
          BOOST_TEST(got[i].data<float>()[k] == v.get<float>());
      }
    }
  }
}

// Bad records and features fail the step with TensorFlow's messages.
BOOST_AUTO_TEST_CASE(bad_records_fail_as_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output s = g.placeholder(DType::string, af::PartialShape({-1}), "s");
  const auto parsed =
      af::io::parse_example(s,
                            {{"img", FixedLenFeature{{2}, DType::float32, std::nullopt}},
                             {"seq", FixedLenFeature{{-1, 2}, DType::float32, std::nullopt}}},
                            {{"ids", VarLenFeature{DType::int64}}});
  af::Session sess(g);
  auto fails_with = [&](const std::vector<std::string>& r, const std::string& message) {
    try {
      sess.run(parsed.dense.at("img"), {{s, records(r)}});
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  const std::string ok = example({{"img", float_feature({1, 2})}});
  fails_with({ok, "garbage"}, "Could not parse example input, value: 'garbage'");
  fails_with({ok, example({})},
             "Name: <unknown>, Feature: img (data type: float) is required but could not be "
             "found.");
  fails_with({ok, example({{"img", float_feature({1})}})},
             "Name: <unknown>, Key: img, Index: 1.  Number of float values != expected.  Values "
             "size: 1 but output shape: [2]");
  fails_with({example({{"img", int64_feature({1, 2})}})},
             "Name: <unknown>, Key: img, Index: 0.  Data types don't match. Data type: int64 but "
             "expected type: float");
  fails_with({example({{"img", float_feature({1, 2})}, {"seq", float_feature({1, 2, 3})}})},
             "Name: <unknown>, Key: seq, Index: 0.  Number of float values is not a multiple of "
             "stride length. Saw 3 values but output shape is: [?,2]");
  fails_with({example({{"img", float_feature({1, 2})}, {"ids", float_feature({1})}})},
             "Name: <unknown>, Key: ids, Index: 0.  Data types don't match. Expected type: int64, "
             "Actual type: float");
  // Hand-made records parse: the sequence pads with zeros, the sparse ids keep their order.
  const auto v = sess.run(
      {parsed.dense.at("seq"), parsed.sparse.at("ids").values, parsed.sparse.at("ids").dense_shape},
      {{s, records({example({{"img", float_feature({1, 2})},
                             {"seq", float_feature({1, 2, 3, 4})},
                             {"ids", int64_feature({5, -3})}}),
                    example({{"img", float_feature({3, 4})}})})}});
  BOOST_TEST(v[0].shape() == af::Shape({2, 2, 2}));
  BOOST_TEST(v[0].to_vector<float>() == (std::vector<float>{1, 2, 3, 4, 0, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{5, -3}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{2, 2}),
             boost::test_tools::per_element());
  BOOST_CHECK_THROW(af::io::parse_example(s, {{"x", FixedLenFeature{{}, DType::int32, {}}}}),
                    af::InvalidArgumentError);
  // TensorFlow 1.x's ParseSingleExample names a feature by its key alone.
  const Output one = g.placeholder(DType::string, af::PartialShape({}), "one");
  const Output none = g.constant(Tensor(DType::float32, af::Shape{0}), "none");
  const Output single =
      g.create_op("ParseSingleExample", {one, none},
                  {{"num_sparse", std::int64_t{0}},
                   {"sparse_keys", std::vector<std::string>{}},
                   {"dense_keys", std::vector<std::string>{"img"}},
                   {"sparse_types", std::vector<DType>{}},
                   {"Tdense", std::vector<DType>{DType::float32}},
                   {"dense_shapes", std::vector<af::PartialShape>{af::PartialShape({2})}}},
                  "single")
          .output(0);
  auto single_fails_with = [&](const std::string& record, const std::string& message) {
    try {
      sess.run(single, {{one, Tensor(record)}});
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  single_fails_with(example({{"img", float_feature({1})}}),
                    "Key: img.  Can't parse serialized Example: Some float_list slice was not "
                    "parsed.");
  single_fails_with(example({}),
                    "Feature: img (data type: float) is required but could not be "
                    "found.");
  BOOST_TEST(sess.run(single, {{one, Tensor(ok)}}).to_vector<float>() == (std::vector<float>{1, 2}),
             boost::test_tools::per_element());
}

// The wire format as protobuf reads it (and TensorFlow's fast parser): unpacked lists, a list
// given twice (merged), a key given twice (the last wins), a oneof given two kinds (the last),
// unknown fields and groups skipped, a kindless Feature absent, a truncated record refused.
BOOST_AUTO_TEST_CASE(the_wire_format_read_as_protobuf_reads_it, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output s = g.placeholder(DType::string, af::PartialShape({-1}), "s");
  const auto parsed = af::io::parse_example(
      s, {{"f", FixedLenFeature{{3}, DType::float32, std::nullopt}}},
      {{"i", VarLenFeature{DType::int64}}, {"b", VarLenFeature{DType::string}}});
  af::Session sess(g);
  auto fixed32 = [](float v) {
    std::string out(1, static_cast<char>(1 << 3 | 5));  // value = 1, wire type 5
    out.resize(5);
    std::memcpy(out.data() + 1, &v, 4);
    return out;
  };
  auto unpacked_int64 = [](std::int64_t v) {
    std::string out(1, static_cast<char>(1 << 3 | 0));  // value = 1, wire type 0
    varint(out, static_cast<std::uint64_t>(v));
    return out;
  };
  const std::string unknown_varint = std::string(1, static_cast<char>(5 << 3 | 0)) + "\x07";
  const std::string group = std::string(1, static_cast<char>(7 << 3 | 3)) + unknown_varint +
                            std::string(1, static_cast<char>(7 << 3 | 4));
  // f: one float packed, two unpacked, in two float_lists of one Feature (merged).
  const std::string f = delimited(2, delimited(1, std::string("\0\0\x80\x3f", 4))) +
                        delimited(2, fixed32(2.5f) + unknown_varint + fixed32(-4.0f));
  // i: first an int64_list, then given again under the same key with two unpacked values.
  const std::string i_old = int64_feature({9});
  const std::string i_new = delimited(3, unpacked_int64(-7) + unpacked_int64(1ll << 40));
  // b: a float_list replaced by a bytes_list (the oneof's last member).
  const std::string b = float_feature({1}) + delimited(1, delimited(1, "x") + delimited(1, ""));
  std::string first = example({{"f", f}, {"i", i_old}, {"b", b}, {"i", i_new}});
  first = unknown_varint + first + unknown_varint;  // unknown fields around the features
  // The second: i has a kindless Feature (absent), f as plain packed floats.
  const std::string second = example({{"f", float_feature({7, 8, 9})}, {"i", ""}});
  // The third holds a group (the wire reader leaves it to protobuf).
  const std::string third = group + example({{"f", float_feature({4, 5, 6})}}) + group;
  const auto v = sess.run({parsed.dense.at("f"), parsed.sparse.at("i").values,
                           parsed.sparse.at("i").indices, parsed.sparse.at("b").values},
                          {{s, records({first, second, third})}});
  BOOST_TEST(v[0].to_vector<float>() == (std::vector<float>{1, 2.5f, -4, 7, 8, 9, 4, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{-7, 1ll << 40}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 0, 0, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<std::string>() == (std::vector<std::string>{"x", ""}),
             boost::test_tools::per_element());
  // A record cut short, and a packed float list of 5 bytes, are not Examples.
  for (const std::string& bad :
       {second.substr(0, second.size() - 3),
        example({{"f", delimited(2, delimited(1, std::string(5, '\0')))}})}) {
    try {
      sess.run(parsed.dense.at("f"), {{s, records({bad})}});
      BOOST_ERROR("no error for a bad record");
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find("Could not parse example input") != std::string::npos,
                 e.what());
    }
  }
}

// A pipeline as TensorFlow 1.x input code builds it: a file name queue, a TFRecordReader
// reading up to 2 records a step, parse_example of each batch; the last batch is short.
BOOST_AUTO_TEST_CASE(a_reader_pipeline_parses_tf_record_files_of_examples,
                     *boost::unit_test::timeout(60)) {
  TempDir dir;
  const std::string file = (dir.path / "examples.tfrecord").string();
  {
    af::TFRecordWriter w(file);
    for (int i = 0; i < 3; ++i)
      w.write(example({{"label", int64_feature({i})},
                       {"pixels", float_feature({0.5f * static_cast<float>(i), 1.0f})},
                       {"words", int64_feature(std::vector<std::int64_t>(i, 7))}}));
  }
  af::Graph g;
  af::test::FilenameQueue files(g);
  af::TFRecordReader reader(g);
  auto [keys, values] = reader.read_up_to(files, 2);
  const auto parsed = af::io::parse_example(values,
                                            {{"label", FixedLenFeature{{}, DType::int64, {}}},
                                             {"pixels", FixedLenFeature{{2}, DType::float32, {}}}},
                                            {{"words", VarLenFeature{DType::int64}}});
  af::Session sess(g);
  files.add(sess, file);
  const std::vector<Output> fetch = {parsed.dense.at("label"), parsed.dense.at("pixels"),
                                     parsed.sparse.at("words").dense_shape};
  auto first = sess.run(fetch);
  BOOST_TEST(first[0].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(first[1].to_vector<float>() == (std::vector<float>{0, 1, 0.5f, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(first[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{2, 1}),
             boost::test_tools::per_element());
  auto second = sess.run(fetch);
  BOOST_TEST(second[0].to_vector<std::int64_t>() == (std::vector<std::int64_t>{2}),
             boost::test_tools::per_element());
  BOOST_TEST(second[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{1, 2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
