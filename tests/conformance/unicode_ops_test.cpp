// The Unicode ops (UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode,
// UnicodeScript): tests/data/tf_unicode (scripts/peers/make_unicode_fixtures.py) is
// TensorFlow's graph of them with the values and errors a sequence of session runs gave
// (well-formed and malformed UTF-8, UTF-16-BE, UTF-32-BE and Latin-1, each error policy,
// control characters, code points out of range, bad splits, an encoding ICU does not know),
// imported and run here to them; the builders of string_ops.hpp make the same ops.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session_steps.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

// A feed of make_unicode_fixtures.py: base64 strings (s), code points (values), splits.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  const auto n = static_cast<std::int64_t>(v.size());
  if (name == "s") return Tensor::from_vector(v.get<std::vector<std::string>>(), Shape{n});
  if (name == "splits") return Tensor::from_vector(v.get<std::vector<std::int64_t>>(), Shape{n});
  return Tensor::from_vector(v.get<std::vector<std::int32_t>>(), Shape{n});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(unicode_ops_test)

// TensorFlow's graph of the Unicode ops gives TensorFlow's code points, offsets, bytes,
// scripts and errors.
BOOST_AUTO_TEST_CASE(tensorflows_unicode_ops_give_its_values, *boost::unit_test::timeout(60)) {
  af::test::replay_fixture("tf_unicode", "graph.pb", "reference.json",
                           {"UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode",
                            "UnicodeTranscode", "UnicodeScript", "StringLower"},
                           feed_of);
}

// The builders: decode with offsets, encode back, transcode to UTF-16-BE and name scripts;
// int32 offsets run (TensorFlow's kernel aborts there); unknown attr values are refused when
// the graph is built.
BOOST_AUTO_TEST_CASE(builders_decode_encode_transcode, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output text = g.constant(
      Tensor::from_vector(std::vector<std::string>{"a\xc3\xa9", "\xe2\x82\xac!"}, Shape{2}));
  const af::UnicodeDecoded d = af::unicode_decode_with_offsets(text, "UTF-8");
  BOOST_TEST(d.row_splits.shape().to_string() == af::PartialShape({3}).to_string());
  const af::UnicodeDecoded d32 =
      af::unicode_decode_with_offsets(text, "UTF-8", {.splits_type = DType::int32});
  const Output back = af::unicode_encode(d.char_values, d.row_splits, "UTF-8");
  const Output utf16 = af::unicode_transcode(text, "UTF-8", "UTF-16-BE");
  const Output scripts = af::unicode_script(d.char_values);
  BOOST_CHECK_THROW(af::unicode_transcode(text, "UTF-8", "UTF-16"), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::unicode_decode(text, "UTF-8", {.errors = "loose"}),
                    af::InvalidArgumentError);
  af::Session sess(g);
  const std::vector<Tensor> got =
      sess.run({d.row_splits, d.char_values, d.char_to_byte_starts, back, utf16, scripts,
                d32.row_splits, d32.char_to_byte_starts});
  BOOST_TEST(got[0].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 2, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(got[1].to_vector<std::int32_t>() == (std::vector<std::int32_t>{97, 233, 8364, 33}),
             boost::test_tools::per_element());
  BOOST_TEST(got[2].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 1, 0, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(
      got[3].to_vector<std::string>() == (std::vector<std::string>{"a\xc3\xa9", "\xe2\x82\xac!"}),
      boost::test_tools::per_element());
  BOOST_TEST(got[4].to_vector<std::string>()[1] == std::string("\x20\xac\x00!", 4));
  BOOST_TEST(got[5].to_vector<std::int32_t>() == (std::vector<std::int32_t>{25, 25, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(got[6].to_vector<std::int32_t>() == (std::vector<std::int32_t>{0, 2, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(got[7].to_vector<std::int64_t>() == (std::vector<std::int64_t>{0, 1, 0, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
