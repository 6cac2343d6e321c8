// StringFormat (tf.strings.format) through its builders: tensors summarized as TensorFlow
// 2.21's Tensor::SummarizeValue prints them (the strings below are what TensorFlow printed),
// the template cut at each placeholder, and the errors of the builder and the shape function.
// (The fixture comparison of every case is tests/data/tf_ops, built by
// scripts/peers/op_cases_string_format.py.)
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace {

using af::DType;
using af::Output;
using af::Tensor;

// The string StringFormat gives for `x` in the template "{}".
std::string format_one(const Tensor& x, std::int64_t summarize = 3) {
  af::Graph g;
  const Output y = af::string_format("{}", g.constant(x), "{}", summarize);
  af::Session s(g);
  return s.run(y).scalar<std::string>();
}

Tensor ints(std::vector<std::int32_t> v, af::Shape shape) { return Tensor::from_vector(v, shape); }

Tensor iota(std::int64_t n, af::Shape shape) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int32_t>(i);
  return Tensor::from_vector(v, shape);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(string_format_test)

// The builders make one StringFormat node with the attrs tf.strings.format sets, a string
// scalar; the single-tensor form and an empty list (the graph given) too.
BOOST_AUTO_TEST_CASE(string_format_builds_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output a = g.constant(ints({1, 2}, af::Shape{2}), "a");
  const Output b = g.constant(Tensor(2.5f), "b");
  const Output y = af::string_format(g, "a: {}, b: {}", {a, b});
  BOOST_TEST(y.name() == "StringFormat:0");
  BOOST_TEST(y.dtype() == DType::string);
  BOOST_TEST(y.shape() == af::PartialShape(std::vector<std::int64_t>{}));
  const af::NodeDef& def = g.operation("StringFormat").node_def();
  BOOST_REQUIRE(def.attr<std::vector<DType>>("T"));
  BOOST_TEST(
      (*def.attr<std::vector<DType>>("T") == std::vector<DType>{DType::int32, DType::float32}));
  BOOST_REQUIRE(def.attr<std::string>("template"));
  BOOST_TEST(*def.attr<std::string>("template") == "a: {}, b: {}");
  BOOST_REQUIRE(def.attr<std::string>("placeholder"));
  BOOST_TEST(*def.attr<std::string>("placeholder") == "{}");
  BOOST_REQUIRE(def.attr<std::int64_t>("summarize"));
  BOOST_TEST(*def.attr<std::int64_t>("summarize") == 3);
  const Output single = af::string_format("tensor: {}, suffix", a, "{}", 3, "fmt");
  BOOST_TEST(single.name() == "fmt:0");
  const Output none = af::string_format(g, "no placeholders", {});
  af::Session s(g);
  const auto v = s.run({y, single, none});
  BOOST_TEST(v[0].scalar<std::string>() == "a: [1 2], b: 2.5");
  BOOST_TEST(v[1].scalar<std::string>() == "tensor: [1 2], suffix");
  BOOST_TEST(v[2].scalar<std::string>() == "no placeholders");
}

// Nested brackets, one space inside the innermost dimension and newlines plus indentation
// between the outer ones; the first and last `summarize` entries of each dimension.
BOOST_AUTO_TEST_CASE(string_format_summarizes_as_tensorflow, *boost::unit_test::timeout(30)) {
  BOOST_TEST(format_one(ints({1, 2, 3}, af::Shape{3})) == "[1 2 3]");
  BOOST_TEST(format_one(Tensor(std::int32_t{5})) == "5");
  BOOST_TEST(format_one(ints({1, 2, 3, 4}, af::Shape{2, 2})) == "[[1 2]\n [3 4]]");
  BOOST_TEST(format_one(iota(10, af::Shape{10})) == "[0 1 2 ... 7 8 9]");
  // Five entries show whole with 3 at each end.
  BOOST_TEST(format_one(iota(25, af::Shape{5, 5})) ==
             "[[0 1 2 3 4]\n [5 6 7 8 9]\n [10 11 12 13 14]\n [15 16 17 18 19]\n [20 21 22 23 "
             "24]]");
  BOOST_TEST(format_one(iota(24, af::Shape{2, 3, 4})) ==
             "[[[0 1 2 3]\n  [4 5 6 7]\n  [8 9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  "
             "[20 21 22 23]]]");
  BOOST_TEST(format_one(iota(25, af::Shape{5, 5}), 1) == "[[0 ... 4]\n ...\n [20 ... 24]]");
  BOOST_TEST(format_one(iota(25, af::Shape{5, 5}), 2) ==
             "[[0 1 ... 3 4]\n [5 6 ... 8 9]\n ...\n [15 16 ... 18 19]\n [20 21 ... 23 24]]");
  // The limit is min(summarize, elements): 2 of 6 still shows all of a [2,3].
  BOOST_TEST(format_one(iota(6, af::Shape{2, 3}), 2) == "[[0 1 2]\n [3 4 5]]");
  BOOST_TEST(format_one(iota(10, af::Shape{10}), -1) == "[0 1 2 3 4 5 6 7 8 9]");
  BOOST_TEST(format_one(iota(10, af::Shape{10}), 100) == "[0 1 2 3 4 5 6 7 8 9]");
  BOOST_TEST(format_one(iota(10, af::Shape{10}), 0) == "[ ...]");
  BOOST_TEST(format_one(iota(25, af::Shape{5, 5}), 0) == "[\n ...]");
  BOOST_TEST(format_one(Tensor(std::int32_t{7}), 0) == "...");
  // Empty tensors: no entries to show at the ends of any dimension.
  BOOST_TEST(format_one(Tensor(DType::float32, af::Shape{0})) == "[]");
  BOOST_TEST(format_one(Tensor(DType::float32, af::Shape{0, 2})) == "[]");
  BOOST_TEST(format_one(Tensor(DType::float32, af::Shape{2, 0})) == "[\n ...]");
  BOOST_TEST(format_one(Tensor(DType::float32, af::Shape{2, 3, 0})) == "[\n\n ...]");
}

// Floats as strings::StrCat prints them (%.6g, or %.9g when that does not read back; doubles
// 15 or 17 digits), subnormals as the zero TensorFlow's flushing reads; bools as 1 and 0;
// strings quoted and C-escaped.
BOOST_AUTO_TEST_CASE(string_format_prints_elements_as_tensorflow, *boost::unit_test::timeout(30)) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  BOOST_TEST(format_one(Tensor::from_vector(std::vector<float>{
                            0.1f, 1.0f / 3, 1e10f, 1e-5f, -0.0f, 2.5f, 100.0f, 123456789.0f, nan,
                            -nan, inf, -inf, 1e-40f, -1e-40f, 3.4028235e38f}),
                        -1) ==
             "[0.1 0.333333343 1e+10 1e-05 -0 2.5 100 123456792 nan -nan inf -inf 0 -0 "
             "3.40282347e+38]");
  BOOST_TEST(format_one(Tensor(0.1f)) == "0.1");
  BOOST_TEST(format_one(Tensor::from_vector(std::vector<double>{
                            0.1, 1.0 / 3, 1e22, 0.1 + 0.2, 1e-310, 1e-40, 123456789012345678.0}),
                        -1) ==
             "[0.1 0.33333333333333331 1e+22 0.30000000000000004 0 1e-40 "
             "1.2345678901234568e+17]");
  std::vector<af::bfloat16_t> halves;
  for (float v : {0.1f, 1.0f / 3, 3.0f, 1e10f, 123456.0f}) halves.push_back(af::bfloat16_t(v));
  BOOST_TEST(format_one(Tensor::from_vector(halves), -1) ==
             "[0.100097656 0.333984375 3 9.99922074e+09 123392]");
  BOOST_TEST(
      format_one(Tensor::from_vector(std::vector<std::int64_t>{
          std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()})) ==
      "[-9223372036854775808 9223372036854775807]");
  BOOST_TEST(format_one(Tensor::from_vector(std::vector<std::uint8_t>{0, 200, 255})) ==
             "[0 200 255]");
  BOOST_TEST(format_one(Tensor::from_vector(std::vector<bool>{true, false, true})) == "[1 0 1]");
  BOOST_TEST(format_one(Tensor::from_vector(std::vector<std::string>{
                 "a", "b\"c'\\", "\n\t\r\x01\x7f", "h\xc3\xa9llo", "\xff"})) ==
             "[\"a\" \"b\\\"c\\'\\\\\" \"\\n\\t\\r\\001\\177\" \"h\xc3\xa9llo\" \"\xff\"]");
  BOOST_TEST(format_one(Tensor(std::string("hi\n"))) == "\"hi\\n\"");
}

// The template is cut at each placeholder left to right without overlap; an empty
// placeholder (reachable through the raw op) cuts between every byte.
BOOST_AUTO_TEST_CASE(string_format_cuts_templates_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output one = g.constant(Tensor(std::int32_t{1}), "one");
  const Output two = g.constant(Tensor(std::int32_t{2}), "two");
  const Output adjacent = af::string_format(g, "{}{}", {one, two});
  const Output percent = af::string_format("x%sy", one, "%s");
  const Output overlap = af::string_format("aaa", one, "aa");
  auto raw = [&](const std::string& templ, const std::string& placeholder,
                 const std::vector<Output>& inputs) {
    std::vector<DType> types(inputs.size(), DType::int32);
    return g
        .create_op("StringFormat", inputs,
                   {{"T", types},
                    {"template", templ},
                    {"placeholder", placeholder},
                    {"summarize", std::int64_t{3}}})
        .output(0);
  };
  const Output bytes = raw("ab", "", {one});
  const Output empty = raw("", "", {});
  af::Session s(g);
  const auto v = s.run({adjacent, percent, overlap, bytes, empty});
  BOOST_TEST(v[0].scalar<std::string>() == "12");
  BOOST_TEST(v[1].scalar<std::string>() == "x1y");
  BOOST_TEST(v[2].scalar<std::string>() == "1a");
  BOOST_TEST(v[3].scalar<std::string>() == "a1b");
  BOOST_TEST(v[4].scalar<std::string>() == "");
  // The shape function counts as the kernel does.
  for (const auto& [templ, placeholder, inputs, message] :
       {std::tuple{std::string("a{}b"), std::string("{}"), std::vector<Output>{one, two},
                   std::string("num placeholders in template and num inputs must match: 1 vs. "
                               "2")},
        std::tuple{std::string("{}}{"), std::string("{}"), std::vector<Output>{one, two},
                   std::string("num placeholders in template and num inputs must match: 1 vs. "
                               "2")},
        std::tuple{std::string(""), std::string(""), std::vector<Output>{one},
                   std::string("num placeholders in template and num inputs must match: 0 vs. "
                               "1")}}) {
    try {
      raw(templ, placeholder, inputs);
      BOOST_ERROR("template '" << templ << "' built");
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  }
}

// tf.strings.format's ValueError (Python's str.count of the placeholder) before any node.
BOOST_AUTO_TEST_CASE(string_format_refuses_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output one = g.constant(Tensor(std::int32_t{1}), "one");
  auto refuses = [&](auto&& build, const std::string& message) {
    try {
      build();
      BOOST_ERROR("built; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  refuses(
      [&] {
        af::string_format(g, "a{}b", {one, one});
      },
      "The template expects 1 tensors, but the inputs only has 2. Please ensure the number "
      "of placeholders in template matches inputs length.");
  refuses([&] { af::string_format(g, "none", {one}); },
          "The template expects 0 tensors, but the inputs only has 1.");
  refuses([&] { af::string_format("ab", one, ""); },
          "The template expects 3 tensors, but the inputs only has 1.");
  BOOST_TEST(g.num_nodes() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
