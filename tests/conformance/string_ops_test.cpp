// The string ops of TensorFlow 1.x input pipelines through their builders: StringSplit,
// StringSplitV2, Substr, AsString, StringToNumber, StringLength, StringStrip, StringLower,
// StringUpper, RegexReplace, StaticRegexReplace, RegexFullMatch, ReduceJoin, the hash buckets
// and base64: the values TensorFlow 2.21 computes and its error messages. (The fixture
// comparison of every case is tests/data/tf_ops, built by scripts/peers/op_cases_string.py.)
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

using Strings = std::vector<std::string>;

af::Output strs(af::Graph& g, const Strings& v, std::optional<af::Shape> shape = {}) {
  return g.constant(af::Tensor::from_vector(v, shape));
}

template <class T = std::string>
std::vector<T> run(af::Graph& g, const af::Output& y, const af::FeedDict& feeds = {}) {
  af::Session s(g);
  return s.run(y, feeds).to_vector<T>();
}

// Whether running `y` throws E with `message` in its text.
template <class E>
bool fails_with(af::Graph& g, const af::Output& y, const std::string& message,
                const af::FeedDict& feeds = {}) {
  af::Session s(g);
  try {
    s.run(y, feeds);
  } catch (const E& e) {
    if (std::string(e.what()).find(message) != std::string::npos) return true;
    BOOST_TEST_MESSAGE("unexpected message: " << e.what());
  }
  return false;
}

// Whether `build` throws E with `message` in its text.
template <class E, class F>
bool build_fails_with(F&& build, const std::string& message) {
  try {
    build();
  } catch (const E& e) {
    return std::string(e.what()).find(message) != std::string::npos;
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(string_ops_test)

// tf.add of strings (the Add op; `tf.strings.join` without a separator does the same):
// concatenation, broadcast like numbers.
BOOST_AUTO_TEST_CASE(add_concatenates_strings_with_broadcasting, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const af::Output col = strs(g, {"a", "bc"}, af::Shape{2, 1});
  const af::Output row = strs(g, {"1", "", "23"}, af::Shape{3});
  const af::Output sum = g.create_op("Add", {col, row}, {{"T", af::DType::string}}).output(0);
  BOOST_TEST(run(g, sum) == (Strings{"a1", "a", "a23", "bc1", "bc", "bc23"}),
             boost::test_tools::per_element());
  const af::Output scalar = strs(g, {"/x"}, af::Shape{});
  const af::Output suffixed =
      g.create_op("Add", {row, scalar}, {{"T", af::DType::string}}).output(0);
  BOOST_TEST(run(g, suffixed) == (Strings{"1/x", "/x", "23/x"}), boost::test_tools::per_element());
  const af::Output bad = strs(g, {"p", "q"}, af::Shape{2});
  BOOST_TEST(build_fails_with<af::InvalidArgumentError>(
      [&] {
        g.create_op("Add", {row, bad}, {{"T", af::DType::string}});
      },
      "Dimensions must be equal"));
}

BOOST_AUTO_TEST_CASE(string_split_cuts_at_every_delimiter_character_into_a_sparse_tensor,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = strs(g, {"", "a", "a,,b;c"});
  auto kept = af::string_split(x, ",;", /*skip_empty=*/false);
  BOOST_TEST(kept.indices.shape() == (af::PartialShape{-1, 2}));
  BOOST_TEST(run<std::int64_t>(g, kept.indices) ==
                 (std::vector<std::int64_t>{1, 0, 2, 0, 2, 1, 2, 2, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, kept.values) == (Strings{"a", "a", "", "b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(run<std::int64_t>(g, kept.dense_shape) == (std::vector<std::int64_t>{3, 4}),
             boost::test_tools::per_element());
  auto skipped = af::string_split(x, ",;");
  BOOST_TEST(run(g, skipped.values) == (Strings{"a", "a", "b", "c"}),
             boost::test_tools::per_element());
  auto bytes = af::string_split(strs(g, {"ab"}), "");
  BOOST_TEST(run(g, bytes.values) == (Strings{"a", "b"}), boost::test_tools::per_element());
  BOOST_TEST(build_fails_with<af::InvalidArgumentError>(
      [&] {
        af::string_split(strs(g, {"a"}, af::Shape{1, 1}), ",");
      },
      "Shape must be rank 1 but is rank 2"));
}

BOOST_AUTO_TEST_CASE(string_split_v2_follows_python_str_split, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto cut = af::string_split_v2(strs(g, {"a,b,c", "", ",,"}), ",", /*maxsplit=*/1);
  BOOST_TEST(run(g, cut.values) == (Strings{"a", "b,c", "", "", ","}),
             boost::test_tools::per_element());
  BOOST_TEST(run<std::int64_t>(g, cut.dense_shape) == (std::vector<std::int64_t>{3, 2}),
             boost::test_tools::per_element());
  auto spaced = af::string_split_v2(strs(g, {"  4  5    6  ", "   ", "a   "}));
  BOOST_TEST(run(g, spaced.values) == (Strings{"4", "5", "6", "a"}),
             boost::test_tools::per_element());
  // After maxsplit cuts the rest is kept, even when empty (Python would drop it).
  auto rest = af::string_split_v2(strs(g, {"a   "}), "", 1);
  BOOST_TEST(run(g, rest.values) == (Strings{"a", ""}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(substr_counts_bytes_or_utf8_characters_and_names_the_bad_position,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto words = strs(g, {"hello", "h\xc3\xa9llo"});
  BOOST_TEST(run(g, af::substr(words, 1, 3)) == (Strings{"ell", "\xc3\xa9l"}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, af::substr(words, 1, 3, "UTF8_CHAR")) == (Strings{"ell", "\xc3\xa9ll"}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, af::substr(words, -3, 2, "UTF8_CHAR")) == (Strings{"ll", "ll"}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, af::substr(words, 1, -1)) == (Strings{"ello", "\xc3\xa9llo"}),
             boost::test_tools::per_element());
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::substr(words, 6, 1),
                                                  "pos 6 out of range for string b'hello' at "
                                                  "index 0"));
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::substr(words, 6, 1, "UTF8_CHAR"),
                                                  "pos 6 out of range for string at index 0"));
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::substr(words, -3, -1, "UTF8_CHAR"),
                                                  "pos -3 out of range for string at index 0"));
  // Broadcasting: a column of positions against a row of strings.
  auto grid = strs(g, {"hello", "h\xc3\xa9llo", "abc", "xyz"}, af::Shape{2, 2});
  auto column = [&](std::vector<std::int32_t> v) {
    return g.constant(af::Tensor::from_vector(v, af::Shape{2, 1}));
  };
  BOOST_TEST(run(g, af::substr(grid, column({1, 0}), column({1, 2}))) ==
                 (Strings{"e", "\xc3", "ab", "xy"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      fails_with<af::InvalidArgumentError>(g, af::substr(grid, column({1, 7}), column({1, 2})),
                                           "pos 7 out of range for string b'abc' at index (1, 0)"));
  auto pos3 = g.constant(af::Tensor::from_vector<std::int32_t>({1, 2}, af::Shape{1, 1, 2}));
  BOOST_TEST(fails_with<af::UnimplementedError>(g, af::substr(strs(g, {"hello"}), pos3, pos3),
                                                "Substr broadcast not implemented for 3 "
                                                "dimensions"));
  auto two = g.constant(af::Tensor::from_vector<std::int32_t>({1, 2}));
  auto three = g.constant(af::Tensor::from_vector<std::int32_t>({1, 2, 3}));
  BOOST_TEST(build_fails_with<af::InvalidArgumentError>(
      [&] { af::substr(words, two, three); }, "pos and len shapes must match: [2] vs. [3]"));
  BOOST_TEST(build_fails_with<af::InvalidArgumentError>(
      [&] { af::substr(words, 1, 1, "UTF8"); },
      "Value for attr 'unit' of \"UTF8\" is not in the list of allowed values: \"BYTE\", "
      "\"UTF8_CHAR\""));
}

BOOST_AUTO_TEST_CASE(as_string_formats_like_printf_and_refuses_bad_attrs,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto f = g.constant(af::Tensor::from_vector<float>({1.5f, -0.25f}));
  BOOST_TEST(run(g, af::as_string(f)) == (Strings{"1.500000", "-0.250000"}),
             boost::test_tools::per_element());
  af::AsStringOptions zero_fill;
  zero_fill.precision = 2;
  zero_fill.width = 8;
  zero_fill.fill = "0";
  BOOST_TEST(run(g, af::as_string(f, zero_fill)) == (Strings{"00001.50", "-0000.25"}),
             boost::test_tools::per_element());
  af::AsStringOptions shortest;
  shortest.shortest = true;
  BOOST_TEST(run(g, af::as_string(f, shortest)) == (Strings{"1.5", "-0.25"}),
             boost::test_tools::per_element());
  auto i = g.constant(af::Tensor::from_vector<std::int32_t>({3, -4}));
  af::AsStringOptions left;
  left.width = 5;
  left.fill = "-";
  BOOST_TEST(run(g, af::as_string(i, left)) == (Strings{"3    ", "-4   "}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, af::as_string(g.constant(af::Tensor::from_vector<bool>({true, false})))) ==
                 (Strings{"true", "false"}),
             boost::test_tools::per_element());
  af::AsStringOptions precise;
  precise.precision = 2;
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::as_string(i, precise),
                                                  "precision not supported for datatype int32"));
  af::AsStringOptions bad_fill;
  bad_fill.fill = "x";
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::as_string(i, bad_fill),
                                                  "Fill argument not supported: \"x\""));
  af::AsStringOptions both;
  both.scientific = both.shortest = true;
  BOOST_TEST(fails_with<af::InvalidArgumentError>(
      g, af::as_string(f, both), "Cannot select both scientific and shortest notation"));
}

BOOST_AUTO_TEST_CASE(string_to_number_parses_whole_strings_only, *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = strs(g, {" 1.5 ", "+3", "-inf", "0x10", "1e5"});
  const auto v = run<float>(g, af::string_to_number(x));
  BOOST_TEST(v[0] == 1.5f);
  BOOST_TEST(v[1] == 3.0f);
  BOOST_TEST(v[2] == -std::numeric_limits<float>::infinity());
  BOOST_TEST(v[3] == 16.0f);
  BOOST_TEST(v[4] == 1e5f);
  BOOST_TEST(run<std::int64_t>(g, af::string_to_number(strs(g, {" -12 ", "+7"}), af::int64)) ==
                 (std::vector<std::int64_t>{-12, 7}),
             boost::test_tools::per_element());
  BOOST_TEST(fails_with<af::InvalidArgumentError>(
      g, af::string_to_number(strs(g, {"1.5x"})),
      "StringToNumberOp could not correctly convert string: 1.5x"));
  BOOST_TEST(fails_with<af::InvalidArgumentError>(
      g, af::string_to_number(strs(g, {"2147483648"}), af::int32),
      "StringToNumberOp could not correctly convert string: 2147483648"));
  BOOST_TEST(fails_with<af::InvalidArgumentError>(
      g, af::string_to_number(strs(g, {"1.0"}), af::int32),
      "StringToNumberOp could not correctly convert string: 1.0"));
}

BOOST_AUTO_TEST_CASE(length_strip_and_case_work_on_bytes_and_ascii,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = strs(g, {"h\xc3\xa9llo", ""});
  BOOST_TEST(run<std::int32_t>(g, af::string_length(x)) == (std::vector<std::int32_t>{6, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(
      run<std::int32_t>(g, af::string_length(x, "UTF8_CHAR")) == (std::vector<std::int32_t>{5, 0}),
      boost::test_tools::per_element());
  BOOST_TEST(run(g, af::string_strip(strs(g, {" \t a b \r\n", "  "}))) == (Strings{"a b", ""}),
             boost::test_tools::per_element());
  auto mixed = strs(g, {"Hello \xc3\x89t\xc3\xa9"});
  BOOST_TEST(run(g, af::string_lower(mixed)) == (Strings{"hello \xc3\x89t\xc3\xa9"}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, af::string_upper(mixed)) == (Strings{"HELLO \xc3\x89T\xc3\xa9"}),
             boost::test_tools::per_element());
  // "utf-8": ICU's case mapping of every letter, as TensorFlow's.
  BOOST_TEST(run(g, af::string_lower(mixed, "utf-8")) == (Strings{"hello \xc3\xa9t\xc3\xa9"}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, af::string_upper(mixed, "utf-8")) == (Strings{"HELLO \xc3\x89T\xc3\x89"}),
             boost::test_tools::per_element());
  BOOST_TEST(fails_with<af::InvalidArgumentError>(
      g, af::string_upper(mixed, "latin1"),
      "only utf-8 or '' (no encoding) is supported, received latin1"));
}

BOOST_AUTO_TEST_CASE(regexes_follow_re2_with_its_rewrites_and_errors,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto names = strs(g, {"john smith", "solo"});
  BOOST_TEST(run(g, af::regex_replace(names, "(\\w+) (\\w+)", "\\2, \\1")) ==
                 (Strings{"smith, john", "solo"}),
             boost::test_tools::per_element());
  BOOST_TEST(run(g, af::regex_replace(names, "o", "0", /*replace_global=*/false)) ==
                 (Strings{"j0hn smith", "s0lo"}),
             boost::test_tools::per_element());
  auto dynamic = af::regex_replace(strs(g, {"h\xc3\xa9"}), g.constant(af::Tensor(".")),
                                   g.constant(af::Tensor("<\\0>")));
  BOOST_TEST(run(g, dynamic) == (Strings{"<h><\xc3\xa9>"}), boost::test_tools::per_element());
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::regex_replace(names, "(", "x"),
                                                  "Invalid pattern: (, error: missing ): ("));
  auto match = af::regex_full_match(strs(g, {"abcabc", "ab", "h\xc3\xa9llo"}),
                                    g.constant(af::Tensor("(abc)+|h.llo")));
  BOOST_TEST(run<bool>(g, match) == (std::vector<bool>{true, false, true}),
             boost::test_tools::per_element());
  auto patterns = strs(g, {"a", "b"});
  BOOST_TEST(build_fails_with<af::InvalidArgumentError>(
      [&] { af::regex_full_match(names, patterns); }, "Shape must be rank 0 but is rank 1"));
}

BOOST_AUTO_TEST_CASE(reduce_join_joins_along_axes_in_the_order_listed,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto cube = strs(g, {"a", "b", "c", "d", "e", "f", "g", "h"}, af::Shape{2, 2, 2});
  auto all = af::reduce_join(cube);
  BOOST_TEST(all.shape() == (af::PartialShape(std::vector<std::int64_t>{})));
  BOOST_TEST(run(g, all) == (Strings{"abcdefgh"}), boost::test_tools::per_element());
  BOOST_TEST(
      run(g, af::reduce_join(cube, std::vector<std::int64_t>{0, 2})) == (Strings{"aebf", "cgdh"}),
      boost::test_tools::per_element());
  auto kept = af::reduce_join(cube, std::vector<std::int64_t>{-1}, true, "|");
  BOOST_TEST(kept.shape() == (af::PartialShape{2, 2, 1}));
  BOOST_TEST(run(g, kept) == (Strings{"a|b", "c|d", "e|f", "g|h"}),
             boost::test_tools::per_element());
  BOOST_TEST(build_fails_with<af::InvalidArgumentError>(
      [&] { af::reduce_join(cube, std::vector<std::int64_t>{3}); },
      "Invalid reduction dimension 3 for input with 3 dimensions."));
  auto axes = g.placeholder(af::int32, af::PartialShape{-1}, "axes");
  auto joined =
      g.create_op("ReduceJoin", {cube, axes}, {{"keep_dims", false}, {"separator", std::string()}})
          .output(0);
  BOOST_TEST(fails_with<af::OutOfRangeError>(
      g, joined, "Invalid reduction dimension -4 for input with 3 dimension(s)",
      {{axes, af::Tensor::from_vector<std::int32_t>({-4})}}));
  BOOST_TEST(fails_with<af::InvalidArgumentError>(
      g, joined, "Duplicate reduction dimension -2",
      {{axes, af::Tensor::from_vector<std::int32_t>({1, -2})}}));
}

BOOST_AUTO_TEST_CASE(hash_buckets_match_tensorflow_on_every_platform,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = strs(g, {"", "a", "hello"});
  BOOST_TEST(run<std::int64_t>(g, af::string_to_hash_bucket(x, 1000003)) ==
                 (std::vector<std::int64_t>{598820, 789371, 546981}),
             boost::test_tools::per_element());
  BOOST_TEST(run<std::int64_t>(g, af::string_to_hash_bucket_strong(x, 1000003, {1, 2})) ==
                 (std::vector<std::int64_t>{383377, 332029, 430577}),
             boost::test_tools::per_element());
  BOOST_TEST(fails_with<af::InvalidArgumentError>(
      g, af::string_to_hash_bucket_strong(x, 10, {1, 2, 3}), "Key must have 2 elements"));
  BOOST_TEST(build_fails_with<af::InvalidArgumentError>(
      [&] { af::string_to_hash_bucket(x, 0); },
      "Value for attr 'num_buckets' of 0 must be at least minimum 1"));
}

BOOST_AUTO_TEST_CASE(base64_is_web_safe_and_decodes_with_or_without_padding,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto x = strs(g, {"", "f", "fo", "foo", "?\?>>"});
  BOOST_TEST(run(g, af::encode_base64(x)) == (Strings{"", "Zg", "Zm8", "Zm9v", "Pz8-Pg"}),
             boost::test_tools::per_element());
  BOOST_TEST(
      run(g, af::encode_base64(x, true)) == (Strings{"", "Zg==", "Zm8=", "Zm9v", "Pz8-Pg=="}),
      boost::test_tools::per_element());
  BOOST_TEST(
      run(g, af::decode_base64(strs(g, {"Zg", "Zg==", "Pz8-Pg"}))) == (Strings{"f", "f", "?\?>>"}),
      boost::test_tools::per_element());
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::decode_base64(strs(g, {"Zm9vY"})),
                                                  "Base64 string length cannot be 1 modulo 4."));
  BOOST_TEST(fails_with<af::InvalidArgumentError>(g, af::decode_base64(strs(g, {"Zm+v"})),
                                                  "Invalid character found in base64."));
}

BOOST_AUTO_TEST_SUITE_END()
