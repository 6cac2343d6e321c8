// White-box tests of UnsortedSegmentSum, Pad and Cumprod (kernels/src/segment_ops.cpp):
// shape inference through the Graph builders, and the CPU kernels constructed and run
// directly. Values and messages are TensorFlow 1.x's (segment_reduction_ops.cc, pad_op.cc,
// scan_ops.cc), checked against TensorFlow 2.21's tf.compat.v1.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/kernel.hpp"
#include "actorflow/ops/math_ops.hpp"
#include "actorflow/ops/ops.hpp"
#include "kernel_runner.hpp"

namespace {

using af::DType;
using af::Graph;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;

using af::test::KernelResult;
using af::test::KernelRunner;
using af::test::run_kernel;

using af::test::eval;
using af::test::tensor;

// Runs the kernel and requires it to fail with `code` and a message starting with `message`.
void expect_failure(const Output& node, std::vector<Tensor> inputs, af::Code code,
                    const std::string& message) {
  KernelResult r = run_kernel(node, std::move(inputs));
  BOOST_REQUIRE(!r.status.ok());
  BOOST_TEST(static_cast<int>(r.status.code()) == static_cast<int>(code));
  BOOST_TEST(r.status.message().rfind(message, 0) == 0, r.status.message());
  BOOST_TEST(r.status.message().find("[[{{node " + node.op().name() + "}}]]") != std::string::npos);
}

template <class T>
Tensor vec(std::vector<T> values) {
  return Tensor::from_vector(values);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(segment_ops_test)

// -- UnsortedSegmentSum -------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(unsorted_segment_sum_adds_rows_into_their_segments) {
  Graph g;
  Output data = g.placeholder(DType::float32, PartialShape{3, 2}, "data");
  Output sum = af::unsorted_segment_sum(data, g.constant(vec<std::int32_t>({1, 0, 1})), 3);
  BOOST_TEST(sum.op().type() == "UnsortedSegmentSum");
  BOOST_TEST(sum.shape() == PartialShape({3, 2}));
  Tensor out = eval(sum, {tensor<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2})});
  BOOST_TEST(out.shape() == Shape({3, 2}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({3, 4, 6, 8, 0, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(unsorted_segment_sum_works_for_every_numeric_type_and_2d_ids) {
  Graph g;
  auto check = [&](auto tag) {
    using T = decltype(tag);
    Output data = g.placeholder(af::dtype_of<T>::value, PartialShape{2, 2, 2});
    Output ids = g.constant(tensor<std::int64_t>({2, 0, 2, 2}, Shape{2, 2}));
    Output sum = af::unsorted_segment_sum(data, ids, g.constant(Tensor(std::int64_t{3})));
    BOOST_TEST(sum.shape() == PartialShape({3, 2}));
    Tensor out = eval(sum, {tensor<T>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 2, 2})});
    BOOST_TEST(out.to_vector<T>() == std::vector<T>({3, 4, 0, 0, 13, 16}),
               boost::test_tools::per_element());
  };
  check(float{});
  check(double{});
  check(std::int32_t{});
  check(std::int64_t{});
}

// segment_reduction_ops.cc's CPU functor: `if (j < 0) continue;`.
BOOST_AUTO_TEST_CASE(unsorted_segment_sum_drops_rows_with_negative_ids) {
  Graph g;
  Output data = g.placeholder(DType::float32, PartialShape{3, 2}, "data");
  Output sum = af::unsorted_segment_sum(data, g.constant(vec<std::int32_t>({0, -1, 0})), 2);
  BOOST_TEST(eval(sum, {tensor<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2})}).to_vector<float>() ==
                 std::vector<float>({6, 8, 0, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(unsorted_segment_sum_rejects_ids_out_of_range_with_tensorflows_message) {
  Graph g;
  Output data = g.placeholder(DType::float32, PartialShape{3, 2}, "data");
  Output ids = g.placeholder(DType::int32, PartialShape::unknown(), "ids");
  Output sum = af::unsorted_segment_sum(data, ids, 2);
  const Tensor d = tensor<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  expect_failure(sum, {d, vec<std::int32_t>({0, 2, 1})}, af::Code::invalid_argument,
                 "segment_ids[1] = 2 is out of range [0, 2)");
  expect_failure(
      sum,
      {tensor<float>({1, 2, 3, 4}, Shape{2, 2}), tensor<std::int32_t>({0, 1, 1, 3}, Shape{2, 2})},
      af::Code::invalid_argument, "segment_ids[1,1] = 3 is out of range [0, 2)");
  expect_failure(sum, {d, vec<std::int32_t>({0, 1})}, af::Code::invalid_argument,
                 "data.shape = [3,2] does not start with segment_ids.shape = [2]");
  Output n = g.placeholder(DType::int32, PartialShape::unknown(), "n");
  Output by_n = af::unsorted_segment_sum(data, g.constant(vec<std::int32_t>({0, 1, 0})), n);
  expect_failure(by_n, {d, Tensor(std::int32_t{-1})}, af::Code::invalid_argument,
                 "Input num_segments == -1 must not be negative.");
  expect_failure(by_n, {d, vec<std::int32_t>({2})}, af::Code::invalid_argument,
                 "num_segments should be a scalar, not shape [1]");
}

BOOST_AUTO_TEST_CASE(unsorted_segment_sum_infers_shapes_as_tensorflow) {
  Graph g;
  Output data = g.placeholder(DType::float32, PartialShape{-1, 3, 4});
  Output ids = g.placeholder(DType::int32, PartialShape{5, -1});
  BOOST_TEST(af::unsorted_segment_sum(data, ids, 7).shape() == PartialShape({7, 4}));
  BOOST_TEST(
      af::unsorted_segment_sum(data, ids, g.placeholder(DType::int32, PartialShape{})).shape() ==
      PartialShape({-1, 4}));
  BOOST_TEST(
      !af::unsorted_segment_sum(data, g.placeholder(DType::int32, PartialShape::unknown()), 7)
           .shape()
           .rank_known());
  Output small = g.constant(tensor<float>({1}, Shape{1, 1}));
  BOOST_CHECK_EXCEPTION(
      af::unsorted_segment_sum(small, g.constant(tensor<std::int32_t>({0, 1}, Shape{1, 2})), 2),
      af::InvalidArgumentError, [](const af::InvalidArgumentError& e) {
        return std::string(e.what()).find("Dimensions must be equal, but are 1 and 2") !=
               std::string::npos;
      });
}

// -- Pad ----------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(pad_surrounds_the_input_with_zeros) {
  Graph g;
  Output x = g.placeholder(DType::float32, PartialShape{2, 2}, "x");
  Output padded = af::pad(x, {{1, 2}, {0, 1}});
  BOOST_TEST(padded.op().type() == "Pad");
  BOOST_TEST(padded.shape() == PartialShape({5, 3}));
  Tensor out = eval(padded, {tensor<float>({1, 2, 3, 4}, Shape{2, 2})});
  BOOST_TEST(out.shape() == Shape({5, 3}));
  BOOST_TEST(
      out.to_vector<float>() == std::vector<float>({0, 0, 0, 1, 2, 0, 3, 4, 0, 0, 0, 0, 0, 0, 0}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(pad_works_for_every_numeric_type_and_ranks_0_to_3) {
  Graph g;
  auto check = [&](auto tag) {
    using T = decltype(tag);
    Output x = g.placeholder(af::dtype_of<T>::value, PartialShape{1, 2, 1});
    Tensor out = eval(af::pad(x, {{0, 1}, {1, 0}, {1, 1}}), {tensor<T>({5, 6}, Shape{1, 2, 1})});
    BOOST_TEST(out.shape() == Shape({2, 3, 3}));
    BOOST_TEST(out.to_vector<T>() ==
                   std::vector<T>({0, 0, 0, 0, 5, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
               boost::test_tools::per_element());
  };
  check(float{});
  check(double{});
  check(std::int32_t{});
  check(std::int64_t{});
  Output scalar = g.placeholder(DType::float32, PartialShape{});
  Output none = g.constant(Tensor(DType::int32, Shape{0, 2}));
  BOOST_TEST(
      eval(af::pad(scalar, none), {Tensor(7.0f)}).to_vector<float>() == std::vector<float>({7}),
      boost::test_tools::per_element());
  Output v = g.placeholder(DType::int64, PartialShape{2});
  BOOST_TEST(eval(af::pad(v, {{2, 1}}), {vec<std::int64_t>({8, 9})}).to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({0, 0, 8, 9, 0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(pad_fails_with_tensorflows_messages) {
  Graph g;
  Output x = g.placeholder(DType::float32, PartialShape::unknown(), "x");
  Output p = g.placeholder(DType::int32, PartialShape::unknown(), "p");
  Output padded = af::pad(x, p);
  const Tensor x22 = tensor<float>({1, 2, 3, 4}, Shape{2, 2});
  expect_failure(padded, {x22, tensor<std::int32_t>({-1, 0, 0, 0}, Shape{2, 2})},
                 af::Code::invalid_argument, "Paddings must be non-negative: -1 0");
  expect_failure(padded, {x22, tensor<std::int32_t>({1, 2}, Shape{1, 2})},
                 af::Code::invalid_argument,
                 "The first dimension of paddings must be the rank of inputs[1,2] [2,2]");
  expect_failure(padded, {x22, tensor<std::int32_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3})},
                 af::Code::invalid_argument, "paddings must be a matrix with 2 columns: [2,3]");
  expect_failure(
      padded,
      {Tensor(DType::float32, Shape{1, 1, 1, 1, 1, 1, 1, 1, 1}), Tensor(DType::int32, Shape{9, 2})},
      af::Code::unimplemented, "inputs rank not in [0,8]: 9");
}

BOOST_AUTO_TEST_CASE(pad_infers_shapes_and_rejects_bad_constants_while_building) {
  Graph g;
  Output x = g.placeholder(DType::float32, PartialShape{-1, 3});
  BOOST_TEST(af::pad(x, {{1, 2}, {3, 4}}).shape() == PartialShape({-1, 10}));
  BOOST_TEST(af::pad(x, g.placeholder(DType::int32, PartialShape::unknown())).shape() ==
             PartialShape({-1, -1}));
  BOOST_TEST(af::pad(g.placeholder(DType::float32, PartialShape::unknown()),
                     g.placeholder(DType::int32, PartialShape{4, 2}))
                 .shape() == PartialShape::unknown_of_rank(4));
  Output c = g.constant(tensor<float>({1}, Shape{1, 1}));
  BOOST_CHECK_EXCEPTION(af::pad(c, {{1, 2}}), af::InvalidArgumentError,
                        [](const af::InvalidArgumentError& e) {
                          return std::string(e.what()).find("Shape must be rank 1 but is rank 2") !=
                                 std::string::npos;
                        });
  BOOST_CHECK_EXCEPTION(af::pad(c, {{1, -2}, {0, 0}}), af::InvalidArgumentError,
                        [](const af::InvalidArgumentError& e) {
                          return std::string(e.what()).find("Paddings must be non-negative") !=
                                 std::string::npos;
                        });
}

// -- Cumprod (the exclusive products of Prod's gradient) ----------------------------------

BOOST_AUTO_TEST_CASE(cumprod_runs_forward_backward_and_exclusive) {
  Graph g;
  Output x = g.placeholder(DType::float64, PartialShape{2, 3});
  const Tensor v = tensor<double>({1, 2, 3, 4, 0, 6}, Shape{2, 3});
  using V = std::vector<double>;
  BOOST_TEST(eval(af::cumprod(x, 1), {v}).to_vector<double>() == V({1, 2, 6, 4, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(af::cumprod(x, 1, true), {v}).to_vector<double>() == V({1, 1, 2, 1, 4, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(af::cumprod(x, -1, true, true), {v}).to_vector<double>() == V({6, 3, 1, 0, 6, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(
      eval(af::cumprod(x, 0, false, true), {v}).to_vector<double>() == V({4, 0, 18, 4, 0, 6}),
      boost::test_tools::per_element());
  expect_failure(af::cumprod(x, 2), {v}, af::Code::invalid_argument,
                 "ScanOp: Expected scan axis in the range [-2, 2), but got 2");
}

BOOST_AUTO_TEST_SUITE_END()
