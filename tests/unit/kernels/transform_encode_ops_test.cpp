// White-box tests of the encodings and splits (OneHot, Unpack, ConcatOffset, DecodeRaw) and
// TruncatedNormal: shape inference through the Graph builders, node naming, and the CPU
// kernels constructed and run directly. Expected messages are TensorFlow's.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/ops.hpp"
#include "kernel_runner.hpp"
#include "matchers.hpp"

namespace {

using af::DType;
using af::Graph;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using Ints = std::vector<std::int64_t>;

using af::test::KernelResult;
using af::test::KernelRunner;
using af::test::run_kernel;

using af::test::construction_error;
using af::test::eval;
using af::test::starts_with;
using af::test::tensor;

Tensor strings(std::vector<std::string> values, Shape shape) {
  return Tensor::from_vector(values, shape);
}

// A kernel's failure: InvalidArgument with TensorFlow's message and the node suffix.
void check_kernel_error(const KernelResult& r, const std::string& message,
                        const std::string& node) {
  BOOST_TEST((r.status.code() == af::Code::invalid_argument));
  BOOST_TEST(r.status.message() == message + "\n\t [[{{node " + node + "}}]]");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transform_encode_ops_test)

// -- OneHot -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(one_hot_encodes_indices_along_the_axis) {
  Graph g;
  auto i = g.placeholder(af::int32, {4}, "i");
  auto h = af::one_hot(i, 3);
  BOOST_TEST(h.op().name() == "one_hot");
  BOOST_TEST(
      h.op().node_def().inputs ==
          std::vector<std::string>({"i", "one_hot/depth", "one_hot/on_value", "one_hot/off_value"}),
      boost::test_tools::per_element());
  BOOST_TEST(*h.op().node_def().attr<std::int64_t>("axis") == -1);
  BOOST_TEST(h.shape() == PartialShape({4, 3}));
  Tensor out = eval(h, {tensor<std::int32_t>({0, 2, -1, 3}, {4})});
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}),
             boost::test_tools::per_element());

  // axis 0 on a matrix of int64 indices, int32 values 5 / -1 (checked against TensorFlow).
  auto m = g.placeholder(af::int64, {2, 2});
  auto h0 = af::one_hot(m, 3, 5, -1, 0, af::int32);
  BOOST_TEST(h0.shape() == PartialShape({3, 2, 2}));
  Tensor out0 = eval(h0, {tensor<std::int64_t>({0, 2, -1, 3}, {2, 2})});
  BOOST_TEST(out0.to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1}),
             boost::test_tools::per_element());

  // uint8 indices, bool values, axis 1 of 2.
  auto u = g.placeholder(af::uint8, {2});
  Tensor flags = eval(af::one_hot(u, 2, 1, 0, 1, af::boolean), {tensor<std::uint8_t>({1, 0}, {2})});
  BOOST_TEST(flags.to_vector<bool>() == std::vector<bool>({false, true, true, false}),
             boost::test_tools::per_element());

  // Strings through the tensor overload.
  auto words = af::one_hot(i, g.constant(Tensor(std::int32_t{2})), g.constant(Tensor("on")),
                           g.constant(Tensor("off")), -1, "words");
  Tensor w = eval(words, {tensor<std::int32_t>({1, 0, 5, 1}, {4})});
  BOOST_TEST(w.to_vector<std::string>() ==
                 std::vector<std::string>({"off", "on", "on", "off", "off", "off", "off", "on"}),
             boost::test_tools::per_element());
  BOOST_TEST(!af::one_hot(g.placeholder(af::int32), 3).shape().rank_known());
  BOOST_TEST(af::one_hot(i, g.placeholder(af::int32, PartialShape(std::vector<std::int64_t>{})),
                         g.constant(Tensor(1.0f)), g.constant(Tensor(0.0f)))
                 .shape() == PartialShape({4, -1}));
}

BOOST_AUTO_TEST_CASE(one_hot_rejects_a_negative_depth_and_a_bad_axis) {
  Graph g;
  auto i = g.placeholder(af::int32, {4});
  BOOST_TEST(
      starts_with(construction_error([&] { af::one_hot(i, -1); }),
                  "Dimension size, given by scalar input 1, must be non-negative but is -1 for "
                  "'one_hot' (op: 'OneHot')"));
  BOOST_TEST(starts_with(construction_error([&] { af::one_hot(i, 3, 1, 0, -2); }),
                         "axis must be >= -1 for"));
  BOOST_TEST(starts_with(construction_error([&] { af::one_hot(g.placeholder(af::float32), 3); }),
                         "Value for attr 'TI' of float is not in the list of allowed values: "
                         "uint8, int8, int32, int64"));

  auto depth = g.placeholder(af::int32);
  auto h = af::one_hot(g.placeholder(af::int32), depth, g.constant(Tensor(1.0f)),
                       g.constant(Tensor(0.0f)), -1, "h");
  check_kernel_error(run_kernel(h, {tensor<std::int32_t>({0, 1}, {2}), Tensor(std::int32_t{-1})}),
                     "depth must be non-negative, got: -1", "h");
  // An axis past the end passes shape inference (it wraps there) and fails when run.
  auto wide = af::one_hot(g.placeholder(af::int32, {2}), 3, 1, 0, 5, af::float32, "wide");
  BOOST_TEST(wide.shape() == PartialShape({2, 3}));
  check_kernel_error(run_kernel(wide, {tensor<std::int32_t>({0, 1}, {2})}),
                     "Expected axis to be -1 or between [0, 2).  But received: 5", "wide");
}

// -- Unpack -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(unstack_splits_along_an_axis) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  auto rows = af::unstack(x);
  BOOST_REQUIRE_EQUAL(rows.size(), 2u);
  BOOST_TEST(rows[0].op().name() == "unstack");
  BOOST_TEST(rows[0].op().type() == "Unpack");
  BOOST_TEST(rows[1].shape() == PartialShape({3}));
  Tensor in = tensor<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  KernelResult r = run_kernel(rows[0], {in});
  BOOST_REQUIRE(r.status.ok());
  BOOST_TEST(r.out(0).to_vector<float>() == std::vector<float>({0, 1, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(r.out(1).to_vector<float>() == std::vector<float>({3, 4, 5}),
             boost::test_tools::per_element());

  auto cols = af::unstack(x, {}, -1);
  BOOST_REQUIRE_EQUAL(cols.size(), 3u);
  BOOST_TEST(cols[0].shape() == PartialShape({2}));
  KernelResult c = run_kernel(cols[0], {in});
  BOOST_REQUIRE(c.status.ok());
  BOOST_TEST(c.out(2).to_vector<float>() == std::vector<float>({2, 5}),
             boost::test_tools::per_element());

  // Aligned rows (16 floats = 64 bytes) are views of the input.
  auto wide = af::unstack(g.placeholder(af::float32, {2, 16}));
  Tensor big(af::float32, Shape{2, 16});
  KernelResult w = run_kernel(wide[0], {big});
  BOOST_TEST(w.out(0).shares_buffer_with(big));
  BOOST_TEST(w.out(1).raw_data() ==
             static_cast<const void*>(static_cast<const float*>(big.raw_data()) + 16));

  auto words = af::unstack(g.placeholder(af::string), 2, 1);
  KernelResult s = run_kernel(words[0], {strings({"a", "b", "c", "d"}, {2, 2})});
  BOOST_REQUIRE(s.status.ok());
  BOOST_TEST(s.out(0).to_vector<std::string>() == std::vector<std::string>({"a", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(!words[1].shape().rank_known());
}

BOOST_AUTO_TEST_CASE(unstack_rejects_a_bad_axis_or_count) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  BOOST_TEST(construction_error([&] { af::unstack(x, 3); }) ==
             "Dimension must be 3 but is 2 for 'unstack' (op: 'Unpack') with input shapes: [2,3].");
  BOOST_TEST(starts_with(construction_error([&] { af::unstack(x, 2, 2); }),
                         "Invalid axis: 2; must be in [-2,2)"));
  BOOST_TEST(construction_error([&] { af::unstack(x, {}, 2); }) == "axis = 2 not in [-2, 2)");
  BOOST_TEST(construction_error([&] {
               af::unstack(g.placeholder(af::float32, {-1, 3}));
             }) == "Cannot infer num from shape (?, 3)");
  auto any = af::unstack(g.placeholder(af::float32), 3, 0, "u");
  check_kernel_error(run_kernel(any[0], {Tensor(af::float32, Shape{2, 3})}),
                     "Input shape axis 0 must equal 3, got shape [2,3]", "u");
  check_kernel_error(run_kernel(any[0], {Tensor(1.0f)}), "axis = 0 not in [0, 0)", "u");
}

// -- ConcatOffset -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(concat_offset_gives_each_input_its_offset_in_the_concatenation) {
  Graph g;
  auto dim = g.constant(Tensor(std::int32_t{1}));
  auto a = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 2, 5, 7}));
  auto b = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 3, 5, 7}));
  auto c = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 4, 5, 7}));
  auto offsets = af::concat_offset(dim, {a, b, c});
  BOOST_REQUIRE_EQUAL(offsets.size(), 3u);
  BOOST_TEST(offsets[0].op().name() == "ConcatOffset");
  BOOST_TEST(offsets[2].shape() == PartialShape({4}));
  KernelResult r = run_kernel(offsets[0]);
  BOOST_REQUIRE(r.status.ok());
  BOOST_TEST(r.out(0).to_vector<std::int32_t>() == std::vector<std::int32_t>({0, 0, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(r.out(1).to_vector<std::int32_t>() == std::vector<std::int32_t>({0, 2, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(r.out(2).to_vector<std::int32_t>() == std::vector<std::int32_t>({0, 5, 0, 0}),
             boost::test_tools::per_element());

  BOOST_TEST(starts_with(
      construction_error([&] { af::concat_offset(dim, {a}); }),
      "List argument 'shape' to 'ConcatOffset' Op with length 1 shorter than minimum length 2."));
  auto p = g.placeholder(af::int32);
  auto q = g.placeholder(af::int32);
  auto o = af::concat_offset(g.placeholder(af::int32), {p, q}, "co");
  auto vec = [](std::vector<std::int32_t> v) { return Tensor::from_vector(v); };
  check_kernel_error(run_kernel(o[0], {Tensor(std::int32_t{1}), vec({2, 3}), vec({3, 4})}),
                     "input[1,0] mismatch: 2 vs. 3", "co");
  check_kernel_error(run_kernel(o[0], {Tensor(std::int32_t{2}), vec({2, 3}), vec({2, 4})}),
                     "Concat dim is out of range: 2 vs. 2", "co");
  check_kernel_error(run_kernel(o[0], {Tensor(std::int32_t{1}), vec({2, 3}), vec({2, 4, 1})}),
                     "input 1 should contain 2 elements, but got3", "co");
  check_kernel_error(run_kernel(o[0], {vec({1}), vec({2, 3}), vec({2, 4})}),
                     "Concat dim tensor should be a scalar integer, but got shape [1]", "co");
}

// -- DecodeRaw ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(decode_raw_reads_each_string_as_a_vector) {
  Graph g;
  auto bytes = g.placeholder(af::string, {2}, "bytes");
  auto f = af::decode_raw(bytes, af::float32);
  BOOST_TEST(f.op().name() == "DecodeRaw");
  BOOST_TEST(f.shape() == PartialShape({2, -1}));
  const float values[] = {1.5f, -2.25f, 3.0f, 1e-3f};
  std::string first(reinterpret_cast<const char*>(values), 8);
  std::string second(reinterpret_cast<const char*>(values + 2), 8);
  Tensor out = eval(f, {strings({first, second}, {2})});
  BOOST_TEST(out.shape() == Shape({2, 2}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({1.5f, -2.25f, 3.0f, 1e-3f}),
             boost::test_tools::per_element());

  // Big-endian int32 (TensorFlow gives 16909060 for "\x01\x02\x03\x04").
  auto be = af::decode_raw(g.placeholder(af::string), af::int32, false);
  BOOST_TEST(!be.shape().rank_known());
  BOOST_TEST(eval(be, {strings({std::string("\x01\x02\x03\x04", 4)}, {1})})
                 .to_vector<std::int32_t>()
                 .at(0) == 16909060);
  auto le = af::decode_raw(g.placeholder(af::string), af::int64);
  std::string eight("\x01\x00\x00\x00\x00\x00\x00\x80", 8);
  BOOST_TEST(eval(le, {strings({eight}, {})}).to_vector<std::int64_t>().at(0) ==
             static_cast<std::int64_t>(0x8000000000000001ull));
  auto u8 = af::decode_raw(g.placeholder(af::string), af::uint8, false);
  BOOST_TEST(eval(u8, {strings({"AB"}, {1, 1})}).shape() == Shape({1, 1, 2}));
  auto flags = af::decode_raw(g.placeholder(af::string), af::boolean);
  BOOST_TEST(eval(flags, {strings({std::string("\x00\x01\x02", 3)}, {1})}).to_vector<bool>() ==
                 std::vector<bool>({false, true, true}),
             boost::test_tools::per_element());
  auto d = af::decode_raw(g.placeholder(af::string), af::float64);
  BOOST_TEST(eval(d, {strings({"", ""}, {1, 2})}).shape() == Shape({1, 2, 0}));
}

BOOST_AUTO_TEST_CASE(decode_raw_rejects_lengths_that_are_not_a_multiple_of_the_element_size) {
  Graph g;
  auto f = af::decode_raw(g.placeholder(af::string), af::float32, true, "raw");
  check_kernel_error(
      run_kernel(f, {strings({"abc", "def"}, {2})}),
      "Input to DecodeRaw has length 3 that is not a multiple of 4, the size of float", "raw");
  check_kernel_error(
      run_kernel(f, {strings({"abcd", "abcdefgh"}, {2})}),
      "DecodeRaw requires input strings to all be the same size, but element 1 has size 4 != 8",
      "raw");
  BOOST_TEST(starts_with(
      construction_error([&] { af::decode_raw(g.placeholder(af::float32), af::int32); }),
      "Input 'bytes' of 'DecodeRaw' Op has type float32 that does not match expected type of "
      "string."));
  BOOST_TEST(starts_with(
      construction_error([&] { af::decode_raw(g.placeholder(af::string), af::string); }),
      "Value for attr 'out_type' of string is not in the list of allowed values"));
}

// -- TruncatedNormal ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(truncated_normal_stays_within_two_standard_deviations) {
  Graph g;
  auto t = af::truncated_normal(g, Shape{2000}, af::float32, 3.0, 0.5, 5);
  BOOST_TEST(t.op().name() == "truncated_normal");
  BOOST_TEST(t.shape() == PartialShape({2000}));
  Tensor raw = eval(g.output("truncated_normal/TruncatedNormal"));
  Tensor scaled = eval(g.output("truncated_normal/mul"), {raw});
  Tensor values = eval(t, {scaled});
  double sum = 0;
  for (float v : values.to_vector<float>()) {
    BOOST_REQUIRE(v > 2.0f && v < 4.0f);
    sum += v;
  }
  BOOST_TEST(std::abs(sum / 2000 - 3.0) < 0.05);
  for (double v :
       eval(g.create_op("TruncatedNormal",
                        {g.constant(Tensor::from_vector(std::vector<std::int32_t>{999}))},
                        {{"dtype", af::float64},
                         {"T", af::int32},
                         {"seed", std::int64_t{1}},
                         {"seed2", std::int64_t{2}}})
                .output(0))
           .to_vector<double>())
    BOOST_REQUIRE(std::abs(v) < 2.0);
}

// Reference values from TensorFlow 2.21.0 (tensorflow-cpu from PyPI, CPU kernel unchanged
// since 1.x), graph mode:
//   tf1 = tf.compat.v1; tf1.disable_eager_execution()
//   a = tf.raw_ops.TruncatedNormal(shape=[10], dtype=tf.float32, seed=42, seed2=7)
//   b = tf.raw_ops.TruncatedNormal(shape=[5], dtype=tf.float64, seed=42, seed2=7)
//   c = tf.raw_ops.TruncatedNormal(shape=[6], dtype=tf.bfloat16, seed=42, seed2=7)
//   with tf1.Session() as s: s.run(a); s.run(a); s.run(b); s.run(c)
// and for the builder:
//   tf1.set_random_seed(42); t = tf1.truncated_normal([2, 3], mean=1.0, stddev=0.5, seed=11)
BOOST_AUTO_TEST_CASE(truncated_normal_matches_tensorflow_for_fixed_seeds) {
  Graph g;
  auto shape = [&](std::vector<std::int32_t> dims) {
    return g.constant(Tensor::from_vector(dims));
  };
  auto op = [&](DType dtype, std::vector<std::int32_t> dims) {
    return g
        .create_op("TruncatedNormal", {shape(dims)},
                   {{"dtype", dtype},
                    {"T", af::int32},
                    {"seed", std::int64_t{42}},
                    {"seed2", std::int64_t{7}}})
        .output(0);
  };
  KernelRunner floats(op(af::float32, {10}));
  KernelResult first = floats.run();
  BOOST_REQUIRE(first.status.ok());
  const std::vector<float> want_first = {
      -0.4527415633201599f, -0.3004075288772583f, -0.07882861793041229f, 0.11306749284267426f,
      -1.4650040864944458f, 1.0752620697021484f,  0.9512687921524048f,   0.40139707922935486f,
      1.0589500665664673f,  0.6612830758094788f};
  BOOST_TEST(first.out().to_vector<float>() == want_first, boost::test_tools::per_element());
  // The second run continues the sequence (256 samples reserved per element).
  const std::vector<float> want_second = {
      0.11857492476701736f, -0.27809593081474304f, 1.2959040403366089f,   -0.5897378921508789f,
      -0.5594393610954285f, -0.15304096043109894f, -0.21539805829524994f, 0.9285690188407898f,
      0.10197717696428299f, -0.12700745463371277f};
  BOOST_TEST(floats.run().out().to_vector<float>() == want_second,
             boost::test_tools::per_element());

  Tensor doubles = eval(op(af::float64, {5}));
  const std::vector<double> want_doubles = {-0.20764251101661857, 0.40354718604348067,
                                            -1.2929919425062262, -0.11919838962386561,
                                            -1.052260730714152};
  BOOST_TEST(doubles.to_vector<double>() == want_doubles, boost::test_tools::per_element());

  Tensor halves = eval(op(af::bfloat16, {6}));
  const std::vector<float> want_halves = {-0.453125f,  -0.30078125f, -0.07861328125f,
                                          0.11328125f, -1.46875f,    1.078125f};
  for (std::size_t i = 0; i < want_halves.size(); ++i)
    BOOST_TEST(static_cast<float>(halves.data<af::bfloat16_t>()[i]) == want_halves[i]);

  Graph h;
  h.set_random_seed(42);
  auto t = af::truncated_normal(h, Shape{2, 3}, af::float32, 1.0, 0.5, 11);
  auto rnd = h.operation("truncated_normal/TruncatedNormal");
  BOOST_TEST(*rnd.node_def().attr<std::int64_t>("seed") == 42);
  BOOST_TEST(*rnd.node_def().attr<std::int64_t>("seed2") == 11);
  BOOST_TEST(h.operation("truncated_normal/shape").type() == "Const");
  BOOST_TEST(h.operation("truncated_normal/mean").type() == "Const");
  BOOST_TEST(h.operation("truncated_normal/stddev").type() == "Const");
  Tensor raw = eval(rnd.output(0));
  Tensor values = eval(t, {eval(h.output("truncated_normal/mul"), {raw})});
  BOOST_TEST(values.shape() == Shape({2, 3}));
  const std::vector<float> want_builder = {0.8419607877731323f, 1.572676420211792f,
                                           1.1310999393463135f, 1.0526527166366577f,
                                           0.5293256640434265f, 0.879463255405426f};
  BOOST_TEST(values.to_vector<float>() == want_builder, boost::test_tools::per_element());
  BOOST_CHECK_THROW(af::truncated_normal(h, Shape{2}, af::int32), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_SUITE_END()
