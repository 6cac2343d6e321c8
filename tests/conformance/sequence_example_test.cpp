// af::io::parse_single_sequence_example and af::io::parse_sequence_example (op
// ParseSequenceExampleV2) and the older ParseSingleSequenceExample, on SequenceExamples written
// here by hand: the values and shapes TensorFlow 2.21 gives (scripts/peers/
// op_cases_sequence_example.py) and its messages for bad records.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/parse_sequence_example_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using af::DType;
using af::Output;
using af::Tensor;
using af::io::FixedLenFeature;
using af::io::FixedLenSequenceFeature;
using af::io::VarLenFeature;

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

std::string floats(const std::vector<float>& values) {
  std::string packed(values.size() * 4, '\0');
  std::memcpy(packed.data(), values.data(), packed.size());
  return delimited(2, delimited(1, packed));  // Feature.float_list { value }
}

std::string int64s(const std::vector<std::int64_t>& values) {
  std::string packed;
  for (auto v : values) varint(packed, static_cast<std::uint64_t>(v));
  return delimited(3, delimited(1, packed));  // Feature.int64_list { value }
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// A SequenceExample: context (key, serialized Feature) pairs and feature lists (key, rows).
std::string sequence_example(
    const Pairs& context,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& lists) {
  std::string features;
  for (const auto& [key, f] : context)
    features += delimited(1, delimited(1, key) + delimited(2, f));
  std::string fl;
  for (const auto& [key, rows] : lists) {
    std::string list;
    for (const auto& row : rows) list += delimited(1, row);  // FeatureList.feature
    fl += delimited(1, delimited(1, key) + delimited(2, list));
  }
  return delimited(1, features) + delimited(2, fl);  // SequenceExample{context, feature_lists}
}

Tensor records(const std::vector<std::string>& r) {
  return Tensor::from_vector(r, af::Shape{static_cast<std::int64_t>(r.size())});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sequence_example_test)

BOOST_AUTO_TEST_CASE(single_record_parses_as_tensorflow) {
  af::Graph g;
  const Output s = g.placeholder(DType::string, af::PartialShape({}), "s");
  const auto parsed = af::io::parse_single_sequence_example(
      s, {{"age", FixedLenFeature{{}, DType::int64, Tensor(std::int64_t{-1})}}},
      {{"tags", VarLenFeature{DType::int64}}},
      {{"frames", FixedLenSequenceFeature{{2}, DType::float32, true}}},
      {{"ids", VarLenFeature{DType::int64}}});
  BOOST_TEST(parsed.context_dense.at("age").op().type() == "ParseSequenceExampleV2");
  BOOST_TEST(parsed.context_dense.at("age").op().name() ==
             "ParseSingleSequenceExample/ParseSequenceExample/ParseSequenceExampleV2");
  BOOST_TEST(parsed.sequence_dense.at("frames").shape() == af::PartialShape({-1, 2}));
  BOOST_TEST(parsed.sequence_sparse.at("ids").indices.shape() == af::PartialShape({-1, 2}));
  af::Session sess(g);
  const std::string r = sequence_example({{"tags", int64s({4, 5})}},
                                         {{"frames", {floats({1, 2}), floats({3, 4})}},
                                          {"ids", {int64s({1}), int64s({}), int64s({2, 3})}}});
  const auto v =
      sess.run({parsed.context_dense.at("age"), parsed.context_sparse.at("tags").indices,
                parsed.sequence_dense.at("frames"), parsed.sequence_sparse.at("ids").indices,
                parsed.sequence_sparse.at("ids").dense_shape},
               {{s, Tensor(r)}});
  BOOST_TEST(v[0].to_vector<std::int64_t>() == (std::vector<std::int64_t>{-1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].shape() == af::Shape({2, 1}));
  BOOST_TEST(v[2].shape() == af::Shape({2, 2}));
  BOOST_TEST(v[2].to_vector<float>() == (std::vector<float>{1, 2, 3, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 0, 2, 0, 2, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<std::int64_t>() == (std::vector<std::int64_t>{3, 2}),
             boost::test_tools::per_element());
  BOOST_CHECK_THROW(af::io::parse_single_sequence_example(s, {}, {}, {}, {}),
                    af::InvalidArgumentError);
  BOOST_CHECK_THROW(
      af::io::parse_single_sequence_example(g.placeholder(DType::string, af::PartialShape({-1})),
                                            {}, {{"t", VarLenFeature{DType::int64}}}, {}),
      af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(batches_pad_and_fail_as_tensorflow) {
  af::Graph g;
  const Output s = g.placeholder(DType::string, af::PartialShape({-1}), "s");
  const auto parsed = af::io::parse_sequence_example(
      s, {{"img", FixedLenFeature{{2}, DType::float32, std::nullopt}}}, {},
      {{"x", FixedLenSequenceFeature{{2}, DType::float32, false}},
       {"y", FixedLenSequenceFeature{{}, DType::int64, true}}},
      {{"ids", VarLenFeature{DType::int64}}});
  BOOST_TEST(parsed.sequence_dense.at("x").shape() == af::PartialShape({-1, -1, 2}));
  BOOST_TEST(parsed.sequence_lengths.at("x").shape() == af::PartialShape({-1}));
  af::Session sess(g);
  const std::string ok =
      sequence_example({{"img", floats({1, 2})}}, {{"x", {floats({1, 2}), floats({3, 4})}}});
  const std::string short_one =
      sequence_example({{"img", floats({5, 6})}}, {{"x", {floats({7, 8})}}, {"y", {int64s({9})}}});
  const auto v = sess.run({parsed.sequence_dense.at("x"), parsed.sequence_lengths.at("x"),
                           parsed.sequence_dense.at("y"), parsed.context_dense.at("img")},
                          {{s, records({ok, short_one})}});
  BOOST_TEST(v[0].shape() == af::Shape({2, 2, 2}));
  BOOST_TEST(v[0].to_vector<float>() == (std::vector<float>{1, 2, 3, 4, 7, 8, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[1].to_vector<std::int64_t>() == (std::vector<std::int64_t>{2, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 9}),
             boost::test_tools::per_element());
  auto fails_with = [&](const std::vector<std::string>& r, const std::string& message) {
    try {
      sess.run(parsed.sequence_dense.at("x"), {{s, records(r)}});
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  fails_with({ok, sequence_example({{"img", floats({1, 2})}}, {})},
             "Name: <unknown>, Feature list 'x' is required but could not be found.  Did you mean "
             "to include it in feature_list_dense_missing_assumed_empty or "
             "feature_list_dense_defaults?");
  fails_with({ok, sequence_example({}, {{"x", {floats({1, 2})}}})},
             "Feature: img (data type: float) is required but could not be found.");
  fails_with({sequence_example({{"img", int64s({1, 2})}}, {{"x", {floats({1, 2})}}})},
             "Name: <unknown>, Context feature: img.  Data types don't match. Expected type: "
             "float");
  fails_with({sequence_example({{"img", floats({1, 2, 3})}}, {{"x", {floats({1, 2})}}})},
             "Inconsistent max number of elements for feature img: expected 2, but found 3");
  // Fewer values than the shape: in a record of its own, the batch's largest count is off
  // ("Inconsistent max number ... expected 2, but found 1", as TensorFlow); beside a full
  // record, the record is.
  fails_with({sequence_example({{"img", floats({1})}}, {{"x", {floats({1, 2})}}})},
             "Inconsistent max number of elements for feature img: expected 2, but found 1");
  fails_with({ok, sequence_example({{"img", floats({1})}}, {{"x", {floats({1, 2})}}})},
             "Unexpected number of elements in example <unknown>");
  fails_with(
      {sequence_example({{"img", floats({1, 2})}}, {{"x", {floats({1, 2}), int64s({1, 2})}}})},
      "Name: <unknown>, Feature list: x, Index: 1.  Data types don't match. Expected type: "
      "float");
  fails_with({sequence_example({{"img", floats({1, 2})}}, {{"x", {floats({1, 2}), floats({3})}}})},
             "Feature list 'x' has an unexpected number of values.  Total values size: 3 is not "
             "consistent with output shape: [?,2]");
  fails_with(
      {sequence_example({{"img", floats({1, 2})}}, {{"x", {floats({1}), floats({2, 3, 4})}}})},
      "Name: <unknown>, Key: x, Index: 0.  Number of values != expected.  values size: 1 "
      "but output shape: [2]");
  fails_with({ok, "\xff\xff"}, "Invalid protocol message input, example id: <unknown>");
}

BOOST_AUTO_TEST_CASE(old_single_op_keeps_its_messages) {
  af::Graph g;
  const Output one = g.placeholder(DType::string, af::PartialShape({}), "one");
  auto str = [&](const std::string& v) { return g.constant(Tensor(v)); };
  const Output none = g.constant(Tensor(DType::float32, af::Shape{0}));
  const Output missing = g.constant(Tensor::from_vector(std::vector<std::string>{}, af::Shape{0}));
  const af::Operation op = g.create_op(
      "ParseSingleSequenceExample", {one, missing, str("img"), str("x"), none, str("r0")},
      {{"Ncontext_sparse", std::int64_t{0}},
       {"Ncontext_dense", std::int64_t{1}},
       {"Nfeature_list_sparse", std::int64_t{0}},
       {"Nfeature_list_dense", std::int64_t{1}},
       {"context_sparse_types", std::vector<DType>{}},
       {"Tcontext_dense", std::vector<DType>{DType::float32}},
       {"feature_list_dense_types", std::vector<DType>{DType::int64}},
       {"context_dense_shapes", std::vector<af::PartialShape>{af::PartialShape({2})}},
       {"feature_list_sparse_types", std::vector<DType>{}},
       {"feature_list_dense_shapes", std::vector<af::PartialShape>{af::PartialShape({})}}},
      "single");
  BOOST_TEST(op.output(1).shape() == af::PartialShape({-1}));
  af::Session sess(g);
  auto fails_with = [&](const std::string& record, const std::string& message) {
    try {
      sess.run(op.output(1), {{one, Tensor(record)}});
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  fails_with(sequence_example({}, {{"x", {int64s({1})}}}),
             "Name: r0, Context feature 'img' is required but could not be found.");
  fails_with(sequence_example({{"img", floats({1})}}, {{"x", {int64s({1})}}}),
             "Name: r0, Key: img, Index: 0.  Number of float values != expected.  values size: 1 "
             "but output shape: [2]");
  fails_with(sequence_example({{"img", floats({1, 2})}}, {}),
             "Name: r0, Feature list 'x' is required but could not be found.");
  fails_with(sequence_example({{"img", floats({1, 2})}}, {{"x", {floats({1})}}}),
             "Name: r0, Feature list: x, Index: 0.  Data types don't match. Expected type: int64");
  const auto v = sess.run(op.output(1),
                          {{one, Tensor(sequence_example({{"img", floats({1, 2})}},
                                                         {{"x", {int64s({4}), int64s({5})}}}))}});
  BOOST_TEST(v.to_vector<std::int64_t>() == (std::vector<std::int64_t>{4, 5}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
