// White-box tests of StridedSlice and StridedSliceGrad: Python's `x[...]` spellings through
// the strided_slice builders (node naming, masks, shape inference), the CPU kernels run
// directly, and the gradient built by af::gradients evaluated node by node. Expected values
// are NumPy's slicing; expected messages are TensorFlow 1.x's.
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "actorflow/ops/array_ops.hpp"
#include "actorflow/ops/gradients.hpp"
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
using af::StridedSliceMasks;
using af::Tensor;
using Ints = std::vector<std::int64_t>;
using Floats = std::vector<float>;

using af::test::construction_error;
using af::test::eval;
using af::test::KernelResult;
using af::test::require_ok;
using af::test::run_kernel;
using af::test::starts_with;
using af::test::tensor;

// 0, 1, 2, ... in a float tensor of `shape`.
Tensor iota(Shape shape) {
  std::vector<float> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  return Tensor::from_vector(values, shape);
}

// A kernel's failure: `code` with TensorFlow's message and the node suffix.
void check_kernel_error(const KernelResult& r, const std::string& message, const std::string& node,
                        af::Code code = af::Code::invalid_argument) {
  BOOST_TEST((r.status.code() == code));
  BOOST_TEST(r.status.message() == message + "\n\t [[{{node " + node + "}}]]");
}

// The value of `out`, computed without a session by running the CPU kernel of every node it
// depends on: placeholders take their value from `feeds`, Consts their own.
Tensor evaluate(const Output& out, const std::map<std::string, Tensor>& feeds = {}) {
  const af::Node* node = out.node();
  if (node->type() == "Placeholder") return feeds.at(node->name());
  if (node->type() == "Const") return *node->def().attr<Tensor>("value");
  std::vector<Tensor> inputs;
  for (const Output& in : node->inputs())
    if (in.node()->type() != "Const") inputs.push_back(evaluate(in, feeds));
  KernelResult r = run_kernel(out.op(), inputs);
  require_ok(r);
  return r.out(out.index());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(strided_slice_test)

BOOST_AUTO_TEST_CASE(a_range_of_rows_is_named_and_packed_as_python_getitem_builds_it,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {4, 2}, "x");
  auto y = af::strided_slice(x, Ints{1}, Ints{3}, Ints{1});  // x[1:3]
  BOOST_TEST(y.op().name() == "strided_slice");
  BOOST_TEST(y.op().type() == "StridedSlice");
  BOOST_TEST(y.op().node_def().inputs ==
                 std::vector<std::string>({"x", "strided_slice/stack", "strided_slice/stack_1",
                                           "strided_slice/stack_2"}),
             boost::test_tools::per_element());
  BOOST_TEST((*y.op().node_def().attr<DType>("Index") == DType::int32));
  BOOST_TEST(*y.op().node_def().attr<std::int64_t>("shrink_axis_mask") == 0);
  BOOST_TEST(y.shape() == PartialShape({2, 2}));
  Tensor out = eval(y, {iota({4, 2})});
  BOOST_TEST(out.shape() == Shape({2, 2}));
  BOOST_TEST(out.to_vector<float>() == Floats({2, 3, 4, 5}), boost::test_tools::per_element());

  auto again = af::strided_slice(x, Ints{0}, Ints{1}, Ints{1});
  BOOST_TEST(again.op().name() == "strided_slice_1");
  BOOST_TEST(again.op().node_def().inputs[1] == "strided_slice_1/stack");
  auto named = af::strided_slice(x, Ints{0}, Ints{1}, Ints{1}, {}, "rows");
  BOOST_TEST(named.op().node_def().inputs[3] == "rows/stack_2");
}

BOOST_AUTO_TEST_CASE(
    rows_that_keep_the_alignment_share_the_buffer_and_a_full_slice_forwards_the_input,
    *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {4, 16}, "x");  // rows of 64 bytes
  Tensor in = iota({4, 16});
  Tensor rows = eval(af::strided_slice(x, Ints{1}, Ints{3}, Ints{1}), {in});
  BOOST_TEST(static_cast<const float*>(rows.raw_data()) ==
             in.data<float>() + 16);  // a view of rows 1..2
  BOOST_TEST(rows.shape() == Shape({2, 16}));
  BOOST_TEST(rows.to_vector<float>()[0] == 16.0f);
  Tensor row =
      eval(af::strided_slice(x, Ints{2}, Ints{3}, Ints{1}, {.shrink_axis_mask = 1}), {in});  // x[2]
  BOOST_TEST(static_cast<const float*>(row.raw_data()) == in.data<float>() + 32);
  BOOST_TEST(row.shape() == Shape({16}));
  BOOST_TEST(row.to_vector<float>()[15] == 47.0f);
  Tensor all =
      eval(af::strided_slice(x, Ints{0}, Ints{0}, Ints{1}, {.begin_mask = 1, .end_mask = 1}), {in});
  BOOST_TEST(all.shares_buffer_with(in));

  // Columns are copied.
  Tensor columns = eval(
      af::strided_slice(x, Ints{0, 1}, Ints{0, 3}, Ints{1, 1}, {.begin_mask = 1, .end_mask = 1}),
      {in});
  BOOST_TEST(!columns.shares_buffer_with(in));
  BOOST_TEST(columns.to_vector<float>() == Floats({1, 2, 17, 18, 33, 34, 49, 50}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_negative_stride_walks_backwards_and_bounds_are_clamped,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto v = g.placeholder(af::int32, {4}, "v");
  Tensor values = tensor<std::int32_t>({1, 2, 3, 4}, {4});
  auto reversed = af::strided_slice(v, Ints{0}, Ints{0}, Ints{-1},
                                    {.begin_mask = 1, .end_mask = 1});  // v[::-1]
  BOOST_TEST(reversed.shape() == PartialShape({4}));
  BOOST_TEST(
      eval(reversed, {values}).to_vector<std::int32_t>() == std::vector<std::int32_t>({4, 3, 2, 1}),
      boost::test_tools::per_element());
  auto from_second_last =
      af::strided_slice(v, Ints{-2}, Ints{0}, Ints{-1}, {.end_mask = 1});  // v[-2::-1]
  BOOST_TEST(from_second_last.shape() == PartialShape({3}));
  BOOST_TEST(eval(from_second_last, {values}).to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({3, 2, 1}),
             boost::test_tools::per_element());
  auto every_other = af::strided_slice(v, Ints{3}, Ints{0}, Ints{-2});  // v[3:0:-2]
  BOOST_TEST(
      eval(every_other, {values}).to_vector<std::int32_t>() == std::vector<std::int32_t>({4, 2}),
      boost::test_tools::per_element());
  auto clamped = af::strided_slice(v, Ints{-100}, Ints{100}, Ints{1});  // v[-100:100]
  BOOST_TEST(clamped.shape() == PartialShape({4}));
  BOOST_TEST(
      eval(clamped, {values}).to_vector<std::int32_t>() == std::vector<std::int32_t>({1, 2, 3, 4}),
      boost::test_tools::per_element());
  auto backwards_empty = af::strided_slice(v, Ints{1}, Ints{3}, Ints{-1});  // v[1:3:-1]
  BOOST_TEST(backwards_empty.shape() == PartialShape({0}));
  BOOST_TEST(eval(backwards_empty, {values}).shape() == Shape({0}));

  auto m = g.placeholder(af::float32, {2, 3}, "m");
  auto flipped = af::strided_slice(m, Ints{0, 0}, Ints{0, 0}, Ints{-1, 2},
                                   {.begin_mask = 3, .end_mask = 3});  // m[::-1, ::2]
  BOOST_TEST(flipped.shape() == PartialShape({2, 2}));
  BOOST_TEST(eval(flipped, {iota({2, 3})}).to_vector<float>() == Floats({3, 5, 0, 2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_ellipsis_and_an_index_drop_the_indexed_dimension,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3, 2}, "x");
  // x[..., 0]
  auto last = af::strided_slice(x, Ints{0, 0}, Ints{0, 1}, Ints{1, 1},
                                {.ellipsis_mask = 1, .shrink_axis_mask = 2});
  BOOST_TEST(last.shape() == PartialShape({2, 3}));
  Tensor out = eval(last, {iota({2, 3, 2})});
  BOOST_TEST(out.shape() == Shape({2, 3}));
  BOOST_TEST(out.to_vector<float>() == Floats({0, 2, 4, 6, 8, 10}),
             boost::test_tools::per_element());
  // x[1, ...]
  auto first = af::strided_slice(x, Ints{1, 0}, Ints{2, 0}, Ints{1, 1},
                                 {.ellipsis_mask = 2, .shrink_axis_mask = 1});
  BOOST_TEST(first.shape() == PartialShape({3, 2}));
  BOOST_TEST(eval(first, {iota({2, 3, 2})}).to_vector<float>() == Floats({6, 7, 8, 9, 10, 11}),
             boost::test_tools::per_element());
  // x[-1, 1:, -1]: every kind of entry at once.
  auto mixed = af::strided_slice(x, Ints{-1, 1, -1}, Ints{0, 0, 0}, Ints{1, 1, 1},
                                 {.end_mask = 2, .shrink_axis_mask = 5});
  BOOST_TEST(mixed.shape() == PartialShape({2}));
  BOOST_TEST(eval(mixed, {iota({2, 3, 2})}).to_vector<float>() == Floats({9, 11}),
             boost::test_tools::per_element());

  // v[-1] of a vector is a scalar.
  auto v = g.placeholder(af::int64, {3}, "v");
  auto scalar = af::strided_slice(v, Ints{-1}, Ints{0}, Ints{1}, {.shrink_axis_mask = 1});
  BOOST_TEST(scalar.shape() == PartialShape({}));
  Tensor s = eval(scalar, {tensor<std::int64_t>({7, 8, 9}, {3})});
  BOOST_TEST(s.shape() == Shape({}));
  BOOST_TEST(s.scalar<std::int64_t>() == 9);
}

BOOST_AUTO_TEST_CASE(newaxis_inserts_a_dimension_of_one, *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  // x[:, tf.newaxis]
  auto inner = af::strided_slice(x, Ints{0, 0}, Ints{0, 0}, Ints{1, 1},
                                 {.begin_mask = 1, .end_mask = 1, .new_axis_mask = 2});
  BOOST_TEST(inner.shape() == PartialShape({2, 1, 3}));
  Tensor in = iota({2, 3});
  Tensor out = eval(inner, {in});
  BOOST_TEST(out.shape() == Shape({2, 1, 3}));
  BOOST_TEST(out.to_vector<float>() == Floats({0, 1, 2, 3, 4, 5}),
             boost::test_tools::per_element());
  BOOST_TEST(out.shares_buffer_with(in));  // nothing is cut: the input reshaped
  // x[tf.newaxis, ..., tf.newaxis]
  auto outer = af::strided_slice(x, Ints{0, 0, 0}, Ints{0, 0, 0}, Ints{1, 1, 1},
                                 {.ellipsis_mask = 2, .new_axis_mask = 5});
  BOOST_TEST(outer.shape() == PartialShape({1, 2, 3, 1}));
  BOOST_TEST(eval(outer, {in}).shape() == Shape({1, 2, 3, 1}));
  // x[1, tf.newaxis, ::2]
  auto picked = af::strided_slice(
      x, Ints{1, 0, 0}, Ints{2, 0, 0}, Ints{1, 1, 2},
      {.begin_mask = 4, .end_mask = 4, .new_axis_mask = 2, .shrink_axis_mask = 1});
  BOOST_TEST(picked.shape() == PartialShape({1, 2}));
  BOOST_TEST(eval(picked, {in}).to_vector<float>() == Floats({3, 5}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_first_entry_of_the_shape_of_a_fed_placeholder_is_its_batch_size,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {-1, 3}, "x");
  auto shape = af::shape(x);
  BOOST_TEST(shape.op().type() == "Shape");
  auto batch = af::strided_slice(shape, Ints{0}, Ints{1}, Ints{1},
                                 {.shrink_axis_mask = 1});  // tf.shape(x)[0]
  BOOST_TEST((batch.dtype() == DType::int32));
  BOOST_TEST(batch.shape() == PartialShape({}));
  const std::map<std::string, Tensor> feeds{{"x", Tensor(af::float32, Shape{5, 3})}};
  Tensor n = evaluate(batch, feeds);
  BOOST_TEST(n.shape() == Shape({}));
  BOOST_TEST(n.scalar<std::int32_t>() == 5);
  auto rest =
      af::strided_slice(shape, Ints{1}, Ints{0}, Ints{1}, {.end_mask = 1});  // tf.shape(x)[1:]
  BOOST_TEST(rest.shape() == PartialShape({1}));
  BOOST_TEST(evaluate(rest, feeds).to_vector<std::int32_t>() == std::vector<std::int32_t>({3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(out_of_bounds_indices_and_zero_strides_fail_with_tensorflow_messages,
                     *boost::unit_test::timeout(30)) {
  {
    // Known while building: the shape function rejects the node.
    Graph g;
    auto x = g.placeholder(af::float32, {3}, "x");
    BOOST_TEST(construction_error([&] {
                 af::strided_slice(x, Ints{5}, Ints{6}, Ints{1}, {.shrink_axis_mask = 1});
               }) ==
               "slice index 5 of dimension 0 out of bounds. for 'strided_slice' (op: "
               "'StridedSlice') with input "
               "shapes: [3], [1], [1], [1].");
    BOOST_TEST(
        starts_with(construction_error([&] { af::strided_slice(x, Ints{0}, Ints{3}, Ints{0}); }),
                    "strides[0] must be non-zero for '"));
  }
  Graph g;
  auto x = g.placeholder(af::float32, PartialShape::unknown(), "x");
  Tensor vector3 = tensor<float>({1, 2, 3}, {3});
  auto past_end =
      af::strided_slice(x, Ints{5}, Ints{6}, Ints{1}, {.shrink_axis_mask = 1}, "past_end");
  BOOST_TEST(!past_end.shape().rank_known());
  check_kernel_error(run_kernel(past_end, {vector3}), "slice index 5 of dimension 0 out of bounds.",
                     "past_end");
  auto before_start =
      af::strided_slice(x, Ints{-4}, Ints{-3}, Ints{1}, {.shrink_axis_mask = 1}, "before_start");
  check_kernel_error(run_kernel(before_start, {vector3}),
                     "slice index -1 of dimension 0 out of bounds.", "before_start");
  auto zero_stride = af::strided_slice(x, Ints{0}, Ints{3}, Ints{0}, {}, "zero_stride");
  check_kernel_error(run_kernel(zero_stride, {vector3}), "strides[0] must be non-zero",
                     "zero_stride");
  auto two_ellipses = af::strided_slice(x, Ints{0, 0}, Ints{0, 0}, Ints{1, 1}, {.ellipsis_mask = 3},
                                        "two_ellipses");
  check_kernel_error(run_kernel(two_ellipses, {vector3}),
                     "Multiple ellipses in slice spec not allowed", "two_ellipses");
  auto too_many = af::strided_slice(x, Ints{0, 0, 0}, Ints{1, 1, 1}, Ints{1, 1, 1}, {}, "too_many");
  check_kernel_error(run_kernel(too_many, {iota({2, 2})}),
                     "Index out of range using input dim 2; input has only 2 dims", "too_many");
  auto backwards_index =
      af::strided_slice(x, Ints{0}, Ints{1}, Ints{-1}, {.shrink_axis_mask = 1}, "backwards_index");
  check_kernel_error(run_kernel(backwards_index, {vector3}),
                     "only stride 1 allowed on non-range indexing.", "backwards_index");

  auto begin = g.placeholder(af::int32, PartialShape::unknown(), "begin");
  auto end = g.placeholder(af::int32, PartialShape::unknown(), "end");
  auto strides = g.placeholder(af::int32, PartialShape::unknown(), "strides");
  auto fed = af::strided_slice(x, begin, end, strides, {}, "fed");
  BOOST_TEST(fed.op().name() == "fed");
  check_kernel_error(
      run_kernel(fed, {vector3, tensor<std::int32_t>({0, 1}, {2}), tensor<std::int32_t>({1}, {1}),
                       tensor<std::int32_t>({1}, {1})}),
      "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [1], and "
      "[1] "
      "instead.",
      "fed");

  // TensorFlow's kernel handles up to 8 dimensions.
  auto nine = af::strided_slice(x, Ints{0}, Ints{2}, Ints{2}, {}, "nine");
  check_kernel_error(run_kernel(nine, {Tensor(af::float32, Shape{2, 1, 1, 1, 1, 1, 1, 1, 1})}),
                     "Unhandled input dimensions 9", "nine", af::Code::unimplemented);
}

BOOST_AUTO_TEST_CASE(shapes_are_inferred_from_constant_bounds_and_partly_known_inputs,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {4, 6}, "x");
  const StridedSliceMasks whole_second = {.begin_mask = 2, .end_mask = 2};
  BOOST_TEST(af::strided_slice(x, Ints{1, 0}, Ints{3, 0}, Ints{1, 2}, whole_second).shape() ==
             PartialShape({2, 3}));
  BOOST_TEST(af::strided_slice(x, Ints{0, 1}, Ints{0, 2}, Ints{1, 1},
                               {.begin_mask = 1, .end_mask = 1, .shrink_axis_mask = 2})
                 .shape() == PartialShape({4}));
  BOOST_TEST(af::strided_slice(x, Ints{0}, Ints{0}, Ints{1}, {.ellipsis_mask = 1}).shape() ==
             PartialShape({4, 6}));
  BOOST_TEST(af::strided_slice(x, Ints{5}, Ints{1}, Ints{1}).shape() == PartialShape({0, 6}));
  BOOST_TEST(
      af::strided_slice(x, Ints{0}, Ints{0}, Ints{-3}, {.begin_mask = 1, .end_mask = 1}).shape() ==
      PartialShape({2, 6}));

  auto partly = g.placeholder(af::float32, {-1, 6}, "partly");
  BOOST_TEST(af::strided_slice(partly, Ints{1, 0}, Ints{3, 0}, Ints{1, 2}, whole_second).shape() ==
             PartialShape({-1, 3}));
  BOOST_TEST(
      af::strided_slice(partly, Ints{1}, Ints{2}, Ints{1}, {.shrink_axis_mask = 1}).shape() ==
      PartialShape({6}));

  // Bounds fed at run time with constant strides: the rank, and the whole ranges' lengths.
  auto begin = g.placeholder(af::int32, {2}, "begin");
  auto end = g.placeholder(af::int32, {2}, "end");
  auto strides = g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 1}), "strides");
  BOOST_TEST(af::strided_slice(x, begin, end, strides).shape() == PartialShape({-1, -1}));
  BOOST_TEST(af::strided_slice(x, begin, end, strides,
                               {.begin_mask = 2, .end_mask = 2, .shrink_axis_mask = 1})
                 .shape() == PartialShape({6}));
  // Strides fed too, or an input of unknown rank: nothing is known.
  auto fed_strides = g.placeholder(af::int32, {2}, "fed_strides");
  BOOST_TEST(!af::strided_slice(x, begin, end, fed_strides).shape().rank_known());
  BOOST_TEST(!af::strided_slice(g.placeholder(af::float32), Ints{1}, Ints{2}, Ints{1})
                  .shape()
                  .rank_known());

  BOOST_TEST(starts_with(
      construction_error([&] {
        af::strided_slice(x, Ints{1, 2}, Ints{3}, Ints{1});
      }),
      "Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are [2] and [1]."));
  auto end64 = g.constant(Tensor::from_vector(std::vector<std::int64_t>{1, 1}), "end64");
  BOOST_TEST(starts_with(
      construction_error([&] { af::strided_slice(x, begin, end64, strides); }),
      "Input 'end' of 'StridedSlice' Op has type int64 that does not match type int32 of argument "
      "'begin'."));
}

BOOST_AUTO_TEST_CASE(bounds_that_need_int64_make_every_bound_int64,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {4}, "x");
  auto y = af::strided_slice(x, Ints{1}, Ints{std::int64_t{1} << 40}, Ints{1});  // x[1:2**40]
  BOOST_TEST((*y.op().node_def().attr<DType>("Index") == DType::int64));
  BOOST_TEST(y.op().node_def().inputs ==
                 std::vector<std::string>(
                     {"x", "strided_slice/Cast", "strided_slice/stack_1", "strided_slice/Cast_1"}),
             boost::test_tools::per_element());
  Tensor out = evaluate(y, {{"x", tensor<float>({1, 2, 3, 4}, {4})}});
  BOOST_TEST(out.to_vector<float>() == Floats({2, 3, 4}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(every_value_dtype_is_sliced, *boost::unit_test::timeout(30)) {
  Graph g;
  const StridedSliceMasks whole = {.begin_mask = 1, .end_mask = 1};
  auto s = g.placeholder(af::string, {3}, "s");
  Tensor words = Tensor::from_vector(std::vector<std::string>{"a", "b", "c"}, Shape{3});
  BOOST_TEST(eval(af::strided_slice(s, Ints{0}, Ints{0}, Ints{-1}, whole), {words})
                     .to_vector<std::string>() == std::vector<std::string>({"c", "b", "a"}),
             boost::test_tools::per_element());
  auto b = g.placeholder(af::boolean, {3}, "b");
  BOOST_TEST(eval(af::strided_slice(b, Ints{0}, Ints{0}, Ints{2}, whole),
                  {tensor<bool>({true, false, false}, {3})})
                     .to_vector<bool>() == std::vector<bool>({true, false}),
             boost::test_tools::per_element());
  auto u = g.placeholder(af::uint8, {3}, "u");
  BOOST_TEST(eval(af::strided_slice(u, Ints{1}, Ints{0}, Ints{1}, {.end_mask = 1}),
                  {tensor<std::uint8_t>({1, 2, 3}, {3})})
                     .to_vector<std::uint8_t>() == std::vector<std::uint8_t>({2, 3}),
             boost::test_tools::per_element());
  auto d = g.placeholder(af::float64, {3}, "d");
  BOOST_TEST(eval(af::strided_slice(d, Ints{0}, Ints{0}, Ints{-1}, whole),
                  {tensor<double>({1.5, 2.5, 3.5}, {3})})
                     .to_vector<double>() == std::vector<double>({3.5, 2.5, 1.5}),
             boost::test_tools::per_element());
  auto h = g.placeholder(af::bfloat16, {3}, "h");
  Tensor halves = Tensor::from_vector(
      std::vector<af::bfloat16_t>{af::bfloat16_t(1.0f), af::bfloat16_t(2.0f), af::bfloat16_t(3.0f)},
      Shape{3});
  Tensor flipped = eval(af::strided_slice(h, Ints{0}, Ints{0}, Ints{-1}, whole), {halves});
  BOOST_TEST((flipped.dtype() == DType::bfloat16));
  BOOST_TEST(static_cast<float>(flipped.to_vector<af::bfloat16_t>()[0]) == 3.0f);
  BOOST_TEST(static_cast<float>(flipped.to_vector<af::bfloat16_t>()[2]) == 1.0f);
}

BOOST_AUTO_TEST_CASE(strided_slice_grad_scatters_dy_into_zeros_of_the_input_shape,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto shape = g.constant(Tensor::from_vector(std::vector<std::int32_t>{5}), "shape");
  auto begin = g.constant(Tensor::from_vector(std::vector<std::int32_t>{0}), "begin");
  auto end = g.constant(Tensor::from_vector(std::vector<std::int32_t>{0}), "end");
  auto strides = g.constant(Tensor::from_vector(std::vector<std::int32_t>{-2}), "strides");
  auto dy = g.placeholder(af::float32, PartialShape::unknown(), "dy");
  auto grad = af::strided_slice_grad(shape, begin, end, strides, dy,
                                     {.begin_mask = 1, .end_mask = 1});  // x[::-2]
  BOOST_TEST(grad.op().name() == "StridedSliceGrad");
  BOOST_TEST(grad.shape() == PartialShape({5}));
  BOOST_TEST(
      eval(grad, {tensor<float>({1, 2, 3}, {3})}).to_vector<float>() == Floats({3, 0, 2, 0, 1}),
      boost::test_tools::per_element());
  check_kernel_error(run_kernel(grad, {tensor<float>({1, 2}, {2})}),
                     "shape of dy was [2] instead of [3]", "StridedSliceGrad");

  auto words = g.placeholder(af::string, PartialShape::unknown(), "words");
  auto string_grad =
      af::strided_slice_grad(shape, begin, end, strides, words, {.begin_mask = 1, .end_mask = 1});
  BOOST_TEST(
      eval(string_grad, {Tensor::from_vector(std::vector<std::string>{"a", "b", "c"}, Shape{3})})
              .to_vector<std::string>() == std::vector<std::string>({"c", "", "b", "", "a"}),
      boost::test_tools::per_element());

  // A scalar input's gradient is dy.
  auto scalar_shape = g.constant(Tensor::from_vector(std::vector<std::int32_t>{}), "scalar_shape");
  auto none = g.constant(Tensor::from_vector(std::vector<std::int32_t>{}), "none");
  auto scalar_grad = af::strided_slice_grad(scalar_shape, none, none, none, dy);
  BOOST_TEST(scalar_grad.shape() == PartialShape({}));
  BOOST_TEST(eval(scalar_grad, {Tensor(2.5f)}).scalar<float>() == 2.5f);

  auto fed_shape = g.placeholder(af::int32, PartialShape::unknown(), "fed_shape");
  auto negative = af::strided_slice_grad(fed_shape, begin, end, strides, dy, {}, "negative");
  check_kernel_error(
      run_kernel(negative, {tensor<std::int32_t>({-1}, {1}), tensor<float>({1}, {1})}),
      "Dimension -1 must be >= 0", "negative");
}

BOOST_AUTO_TEST_CASE(the_gradient_puts_the_incoming_gradient_where_the_slice_took_it,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto x = g.placeholder(af::float32, {3, 4}, "x");
  // x[1:, ::-2]: rows 1 and 2, columns 3 and 1.
  auto y =
      af::strided_slice(x, Ints{1, 0}, Ints{0, 0}, Ints{1, -2}, {.begin_mask = 2, .end_mask = 3});
  BOOST_TEST(y.shape() == PartialShape({2, 2}));
  auto gy = g.constant(tensor<float>({1, 2, 3, 4}, {2, 2}), "gy");
  std::vector<Output> grads = af::gradients({y}, {x}, {gy});
  BOOST_REQUIRE(grads.size() == 1u);
  BOOST_REQUIRE(grads[0].valid());
  BOOST_TEST(grads[0].op().type() == "StridedSliceGrad");
  BOOST_TEST(grads[0].op().name() == "gradients/strided_slice_grad/StridedSliceGrad");
  BOOST_TEST(*grads[0].op().node_def().attr<std::int64_t>("end_mask") == 3);
  BOOST_TEST(grads[0].shape() == PartialShape({3, 4}));
  Tensor dx = evaluate(grads[0], {{"x", iota({3, 4})}});
  BOOST_TEST(dx.shape() == Shape({3, 4}));
  BOOST_TEST(dx.to_vector<float>() == Floats({0, 0, 0, 0, 0, 2, 0, 1, 0, 4, 0, 3}),
             boost::test_tools::per_element());

  // x[..., 0] with the default gradient of ones; a partly known input shape is taken at
  // run time.
  auto p = g.placeholder(af::float32, {-1, 3}, "p");
  auto first_column = af::strided_slice(p, Ints{0, 0}, Ints{0, 1}, Ints{1, 1},
                                        {.ellipsis_mask = 1, .shrink_axis_mask = 2});
  Output dp = af::gradient(af::reduce_sum(first_column), p);
  BOOST_REQUIRE(dp.valid());
  Tensor dp_value = evaluate(dp, {{"p", iota({2, 3})}});
  BOOST_TEST(dp_value.shape() == Shape({2, 3}));
  BOOST_TEST(dp_value.to_vector<float>() == Floats({1, 0, 0, 1, 0, 0}),
             boost::test_tools::per_element());

  // The bounds get no gradient.
  auto begin = g.placeholder(af::int32, {1}, "begin");
  auto fed =
      af::strided_slice(x, begin, g.constant(Tensor::from_vector(std::vector<std::int32_t>{2})),
                        g.constant(Tensor::from_vector(std::vector<std::int32_t>{1})));
  std::vector<Output> bound_grads = af::gradients({fed}, {x, begin});
  BOOST_TEST(bound_grads[0].valid());
  BOOST_TEST(!bound_grads[1].valid());
}

BOOST_AUTO_TEST_CASE(the_gradient_of_strided_slice_grad_is_the_same_slice,
                     *boost::unit_test::timeout(30)) {
  Graph g;
  auto shape = g.constant(Tensor::from_vector(std::vector<std::int32_t>{4}), "shape");
  auto bound = g.constant(Tensor::from_vector(std::vector<std::int32_t>{1}), "bound");
  auto step = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2}), "step");
  auto dy = g.placeholder(af::float32, {2}, "dy");
  auto grad = af::strided_slice_grad(shape, bound, bound, step, dy, {.end_mask = 1});  // x[1::2]
  auto ddy = af::gradients({grad}, {dy}, {g.constant(tensor<float>({1, 2, 3, 4}, {4}))});
  BOOST_REQUIRE(ddy[0].valid());
  BOOST_TEST(ddy[0].op().type() == "StridedSlice");
  BOOST_TEST(
      evaluate(ddy[0], {{"dy", tensor<float>({0, 0}, {2})}}).to_vector<float>() == Floats({2, 4}),
      boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
