// White-box tests of the array transforms (Tile, Transpose, ExpandDims, Squeeze, Slice, Rank,
// ShapeN, ZerosLike, OnesLike, StopGradient, PreventGradient): shape inference through the
// Graph builders, node naming, and the CPU kernels constructed and run directly. Expected
// messages are TensorFlow's. The encodings are in transform_encode_ops_test.cpp.
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

BOOST_AUTO_TEST_SUITE(transform_ops_test)

// -- Tile ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(tile_repeats_the_input_along_each_dimension) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  auto t = af::tile(x, Ints{2, 1});
  BOOST_TEST(t.op().name() == "Tile");
  BOOST_TEST(t.op().node_def().inputs == std::vector<std::string>({"x", "Tile/multiples"}),
             boost::test_tools::per_element());
  BOOST_TEST(t.shape() == PartialShape({4, 3}));
  Tensor out = eval(t, {tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3})});
  BOOST_TEST(out.shape() == Shape({4, 3}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}),
             boost::test_tools::per_element());

  auto v = g.placeholder(af::int32, {3});
  Tensor ints = eval(af::tile(v, Ints{2}), {tensor<std::int32_t>({7, 8, 9}, {3})});
  BOOST_TEST(ints.to_vector<std::int32_t>() == std::vector<std::int32_t>({7, 8, 9, 7, 8, 9}),
             boost::test_tools::per_element());

  // int64 multiples, three dimensions, every one repeated.
  auto cube = g.placeholder(af::int64, {1, 2, 1});
  auto m = g.constant(Tensor::from_vector(std::vector<std::int64_t>{2, 1, 3}));
  auto c = af::tile(cube, m);
  BOOST_TEST(c.shape() == PartialShape({2, 2, 3}));
  Tensor cubes = eval(c, {tensor<std::int64_t>({4, 5}, {1, 2, 1})});
  BOOST_TEST(cubes.to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({4, 4, 4, 5, 5, 5, 4, 4, 4, 5, 5, 5}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(tile_handles_strings_bools_scalars_and_identity_multiples) {
  Graph g;
  auto s = g.placeholder(af::string, {2, 1});
  Tensor out = eval(af::tile(s, Ints{1, 3}), {strings({"a", "b"}, {2, 1})});
  BOOST_TEST(
      out.to_vector<std::string>() == std::vector<std::string>({"a", "a", "a", "b", "b", "b"}),
      boost::test_tools::per_element());

  auto b = g.placeholder(af::boolean, {2});
  Tensor bools = eval(af::tile(b, Ints{2}), {tensor<bool>({true, false}, {2})});
  BOOST_TEST(bools.to_vector<bool>() == std::vector<bool>({true, false, true, false}),
             boost::test_tools::per_element());

  auto x = g.placeholder(af::float32);
  Tensor in = tensor<float>({1, 2}, {2});
  BOOST_TEST(eval(af::tile(x, Ints{1}), {in}).shares_buffer_with(in));  // output == input shape
  Tensor scalar(3.5f);
  BOOST_TEST(eval(af::tile(x, Ints{}), {scalar}).shares_buffer_with(scalar));
  BOOST_TEST(eval(af::tile(x, Ints{0}), {in}).shape() == Shape({0}));
}

BOOST_AUTO_TEST_CASE(tile_infers_shapes_from_constant_multiples_and_unknown_inputs) {
  Graph g;
  BOOST_TEST(af::tile(g.placeholder(af::float32, {-1, 3}), Ints{0, 2}).shape() ==
             PartialShape({0, 6}));
  BOOST_TEST(af::tile(g.placeholder(af::float32, {-1, 3}), Ints{2, 1}).shape() ==
             PartialShape({-1, 3}));
  BOOST_TEST(af::tile(g.placeholder(af::float32), Ints{2, 3}).shape() == PartialShape({-1, -1}));
  auto multiples = g.placeholder(af::int32, {2});
  BOOST_TEST(af::tile(g.placeholder(af::float32, {2, -1}), multiples).shape() ==
             PartialShape({-1, -1}));
  BOOST_TEST(!af::tile(g.placeholder(af::float32), g.placeholder(af::int32)).shape().rank_known());
}

BOOST_AUTO_TEST_CASE(tile_rejects_multiples_of_the_wrong_length) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  BOOST_TEST(
      construction_error([&] {
        af::tile(x, Ints{2, 1, 1});
      }) ==
      "Shape must be rank 2 but is rank 3 for 'Tile' (op: 'Tile') with input shapes: [2,3], [3].");
  BOOST_TEST(starts_with(construction_error([&] {
                           af::tile(x, Ints{2, -2});
                         }),
                         "Invalid value in tensor used for shape: -2"));

  auto any = g.placeholder(af::float32);
  auto m = g.placeholder(af::int32);
  auto t = af::tile(any, m, "t");
  Tensor in(af::float32, Shape{2, 3});
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({2, 1, 1}, {3})}),
                     "Expected multiples argument to be a vector of length 2 but got length 3",
                     "t");
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({2, -1}, {2})}),
                     "Expected multiples[1] >= 0, but got -1", "t");
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({2, 1}, {1, 2})}),
                     "Expected multiples to be 1-D, but got shape [1,2]", "t");
}

// -- Transpose ----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(transpose_permutes_dimensions) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  auto t = af::transpose(x, Ints{1, 0});
  BOOST_TEST(t.op().name() == "transpose");
  BOOST_TEST(t.op().type() == "Transpose");
  BOOST_TEST(t.op().node_def().inputs == std::vector<std::string>({"x", "transpose/perm"}),
             boost::test_tools::per_element());
  BOOST_TEST(t.shape() == PartialShape({3, 2}));
  Tensor out = eval(t, {tensor<float>({0, 1, 2, 3, 4, 5}, {2, 3})});
  BOOST_TEST(out.shape() == Shape({3, 2}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({0, 3, 1, 4, 2, 5}),
             boost::test_tools::per_element());

  // [2,3,2] int32 with perm (2, 0, 1): out[k][i][j] = in[i][j][k].
  auto y = g.placeholder(af::int32, {2, 3, 2});
  auto ty = af::transpose(y, Ints{2, 0, 1});
  BOOST_TEST(ty.op().name() == "transpose_1");
  BOOST_TEST(ty.shape() == PartialShape({2, 2, 3}));
  std::vector<std::int32_t> in(12);
  for (int i = 0; i < 12; ++i) in[static_cast<std::size_t>(i)] = i;
  Tensor out3 = eval(ty, {tensor(in, {2, 3, 2})});
  std::vector<std::int32_t> want;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(in[static_cast<std::size_t>(i * 6 + j * 2 + k)]);
  BOOST_TEST(out3.to_vector<std::int32_t>() == want, boost::test_tools::per_element());

  auto s = g.placeholder(af::string, {1, 2});
  Tensor words = eval(af::transpose(s), {strings({"x", "y"}, {1, 2})});
  BOOST_TEST(words.shape() == Shape({2, 1}));
  BOOST_TEST(words.to_vector<std::string>() == std::vector<std::string>({"x", "y"}),
             boost::test_tools::per_element());
  Tensor grid = eval(af::transpose(g.placeholder(af::string, {2, 2})),
                     {strings({"a", "b", "c", "d"}, {2, 2})});
  BOOST_TEST(grid.to_vector<std::string>() == std::vector<std::string>({"a", "c", "b", "d"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(transpose_keeps_the_buffer_when_only_unit_dimensions_move) {
  Graph g;
  auto x = g.placeholder(af::float64);
  auto perm = g.placeholder(af::int64);
  auto t = af::transpose(x, perm);
  Tensor row = tensor<double>({1, 2, 3}, {1, 3});
  Tensor moved = eval(t, {row, tensor<std::int64_t>({1, 0}, {2})});
  BOOST_TEST(moved.shape() == Shape({3, 1}));
  BOOST_TEST(moved.shares_buffer_with(row));
  Tensor square = tensor<double>({1, 2, 3, 4}, {2, 2});
  BOOST_TEST(eval(t, {square, tensor<std::int64_t>({0, 1}, {2})}).shares_buffer_with(square));
  Tensor swapped = eval(t, {square, tensor<std::int64_t>({1, 0}, {2})});
  BOOST_TEST(!swapped.shares_buffer_with(square));
  BOOST_TEST(swapped.to_vector<double>() == std::vector<double>({1, 3, 2, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(transpose_infers_shapes_with_unknown_inputs_and_permutations) {
  Graph g;
  BOOST_TEST(af::transpose(g.placeholder(af::float32), Ints{1, 0, 2}).shape() ==
             PartialShape({-1, -1, -1}));
  auto perm = g.placeholder(af::int32, {-1});
  BOOST_TEST(af::transpose(g.placeholder(af::float32, {2, 3}), perm).shape() ==
             PartialShape({-1, -1}));
  BOOST_TEST(af::transpose(g.placeholder(af::float32, {2, -1, 4}), Ints{2, 1, 0}).shape() ==
             PartialShape({4, -1, 2}));

  // Without a rank the reversed permutation is computed as TensorFlow 1.x does.
  auto u = g.placeholder(af::float32, PartialShape(std::vector<std::int64_t>{}), "u");
  auto unknown = g.placeholder(af::float32, PartialShape::unknown(), "unknown");
  auto t = af::transpose(unknown);
  BOOST_TEST(t.op().name() == "transpose_3");
  BOOST_TEST(!t.shape().rank_known());
  BOOST_TEST(g.operation("transpose_3/Rank").type() == "Rank");
  BOOST_TEST(g.operation("transpose_3/sub").type() == "Sub");
  BOOST_TEST(g.operation("transpose_3/Range").type() == "Range");
  BOOST_TEST(g.operation("transpose_3/sub_1").type() == "Sub");
  BOOST_TEST(t.op().node_def().inputs == std::vector<std::string>({"unknown", "transpose_3/sub_1"}),
             boost::test_tools::per_element());
  BOOST_TEST(af::transpose(u).shape() == PartialShape(std::vector<std::int64_t>{}));

  // The computed permutation, run node by node for a [2,3,4] input: (2, 1, 0).
  Tensor in(af::float32, Shape{2, 3, 4});
  Tensor r = eval(g.output("transpose_3/Rank"), {in});
  BOOST_TEST(r.scalar<std::int32_t>() == 3);
  Tensor last = eval(g.output("transpose_3/sub"), {r});
  Tensor range = eval(g.output("transpose_3/Range"), {r});
  Tensor perm_value = eval(g.output("transpose_3/sub_1"), {last, range});
  BOOST_TEST(perm_value.to_vector<std::int32_t>() == std::vector<std::int32_t>({2, 1, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(eval(t, {in, perm_value}).shape() == Shape({4, 3, 2}));
}

BOOST_AUTO_TEST_CASE(transpose_rejects_bad_permutations) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  BOOST_TEST(
      construction_error([&] {
        af::transpose(x, Ints{0, 2});
      }) ==
      "perm dim 2 is out of range of input rank 2 for 'transpose' (op: 'Transpose') with input "
      "shapes: [2,3], [2].");
  BOOST_TEST(starts_with(construction_error([&] {
                           af::transpose(x, Ints{0, 1, 2});
                         }),
                         "Dimension must be 2 but is 3 for 'transpose_1'"));

  auto any = g.placeholder(af::float32);
  auto perm = g.placeholder(af::int32);
  auto t = af::transpose(any, perm, "t");
  Tensor in(af::float32, Shape{2, 3});
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({0, 0}, {2})}),
                     "1 is missing from {0,0}.", "t");
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({0, 2}, {2})}),
                     "2 is out of range [0 .. 2)", "t");
  // TensorFlow 1.x's kernel takes no negative dimensions.
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({-1, 0}, {2})}),
                     "-1 is out of range [0 .. 2)", "t");
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({0, 1, 2}, {3})}),
                     "transpose expects a vector of size 2. But input(1) is a vector of size 3",
                     "t");
  check_kernel_error(run_kernel(t, {in, tensor<std::int32_t>({0, 1}, {1, 2})}),
                     "perm must be rank 1, got shape [1,2]", "t");
}

BOOST_AUTO_TEST_CASE(invert_permutation_undoes_a_permutation) {
  Graph g;
  auto p = g.placeholder(af::int32, {3});
  auto inv = af::invert_permutation(p);
  BOOST_TEST(inv.op().name() == "InvertPermutation");
  BOOST_TEST(inv.shape() == PartialShape({3}));
  BOOST_TEST(eval(inv, {tensor<std::int32_t>({2, 0, 1}, {3})}).to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({1, 2, 0}),
             boost::test_tools::per_element());
  auto wide = af::invert_permutation(g.placeholder(af::int64), "wide");
  BOOST_TEST(wide.shape() == PartialShape({-1}));
  BOOST_TEST(eval(wide, {tensor<std::int64_t>({1, 0}, {2})}).to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({1, 0}),
             boost::test_tools::per_element());
  check_kernel_error(run_kernel(wide, {tensor<std::int64_t>({0, 3, 1}, {3})}),
                     "3 is not between 0 and 3", "wide");
  check_kernel_error(run_kernel(wide, {tensor<std::int64_t>({0, 0}, {2})}),
                     "0 is duplicated in the input.", "wide");
  BOOST_TEST(starts_with(construction_error([&] {
                           af::invert_permutation(g.placeholder(af::int32, {2, 2}));
                         }),
                         "Shape must be rank 1 but is rank 2"));
}

// -- ExpandDims and Squeeze ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(expand_dims_inserts_a_dimension_of_one) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  auto e = af::expand_dims(x, -1);
  BOOST_TEST(e.op().name() == "ExpandDims");
  BOOST_TEST(e.op().node_def().inputs == std::vector<std::string>({"x", "ExpandDims/dim"}),
             boost::test_tools::per_element());
  BOOST_TEST(e.shape() == PartialShape({2, 3, 1}));
  BOOST_TEST(af::expand_dims(x, 0).shape() == PartialShape({1, 2, 3}));
  BOOST_TEST(af::expand_dims(x, 1).shape() == PartialShape({2, 1, 3}));
  BOOST_TEST(!af::expand_dims(g.placeholder(af::float32), 0).shape().rank_known());
  BOOST_TEST(!af::expand_dims(x, g.placeholder(af::int32)).shape().rank_known());

  Tensor in = tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor out = eval(af::expand_dims(x, -2), {in});
  BOOST_TEST(out.shape() == Shape({2, 1, 3}));
  BOOST_TEST(out.shares_buffer_with(in));
  Tensor words = eval(af::expand_dims(g.placeholder(af::string), 0), {strings({"a"}, {1})});
  BOOST_TEST(words.shape() == Shape({1, 1}));
  BOOST_TEST(words.to_vector<std::string>().at(0) == "a");

  BOOST_TEST(starts_with(construction_error([&] { af::expand_dims(x, 3); }),
                         "dim 3 not in the interval [-3, 2]. for 'ExpandDims_"));
  BOOST_TEST(starts_with(construction_error([&] { af::expand_dims(x, -4); }),
                         "dim -4 not in the interval [-3, 2]."));
  auto dim = g.placeholder(af::int32);
  auto any = af::expand_dims(g.placeholder(af::float32), dim, "e");
  check_kernel_error(run_kernel(any, {tensor<float>({1, 2}, {2}), Tensor(std::int32_t{3})}),
                     "Tried to expand dim index 3 for tensor with 1 dimensions.", "e");
  check_kernel_error(
      run_kernel(any, {tensor<float>({1, 2}, {2}), tensor<std::int32_t>({0, 1}, {2})}),
      "'dim' must be a tensor with a single value", "e");
}

BOOST_AUTO_TEST_CASE(squeeze_removes_listed_or_all_unit_dimensions) {
  Graph g;
  auto x = g.placeholder(af::int32, {1, 3, 1});
  auto all = af::squeeze(x);
  BOOST_TEST(all.op().name() == "Squeeze");
  BOOST_TEST(all.shape() == PartialShape({3}));
  auto first = af::squeeze(x, Ints{0});
  BOOST_TEST((*first.op().node_def().attr<std::vector<std::int64_t>>("squeeze_dims") == Ints{0}));
  BOOST_TEST(first.shape() == PartialShape({3, 1}));
  BOOST_TEST(af::squeeze(x, Ints{-1}).shape() == PartialShape({1, 3}));
  Tensor in = tensor<std::int32_t>({1, 2, 3}, {1, 3, 1});
  Tensor out = eval(all, {in});
  BOOST_TEST(out.shape() == Shape({3}));
  BOOST_TEST(out.shares_buffer_with(in));
  BOOST_TEST(out.to_vector<std::int32_t>() == std::vector<std::int32_t>({1, 2, 3}),
             boost::test_tools::per_element());

  auto partly = g.placeholder(af::float32, {1, -1, 1});
  BOOST_TEST(!af::squeeze(partly).shape().rank_known());
  BOOST_TEST(af::squeeze(partly, Ints{1, -1}).shape() == PartialShape({1}));
  BOOST_TEST(!af::squeeze(g.placeholder(af::float32)).shape().rank_known());

  Tensor word = eval(af::squeeze(g.placeholder(af::string)), {strings({"w"}, {1, 1})});
  BOOST_TEST(word.shape() == Shape{});
}

BOOST_AUTO_TEST_CASE(squeeze_rejects_a_dimension_that_is_not_one) {
  Graph g;
  auto x = g.placeholder(af::float32, {1, 3, 1});
  BOOST_TEST(
      construction_error([&] { af::squeeze(x, Ints{1}); }) ==
      "Can not squeeze dim[1], expected a dimension of 1, got 3 for 'Squeeze' (op: 'Squeeze') "
      "with input shapes: [1,3,1].");
  BOOST_TEST(starts_with(construction_error([&] { af::squeeze(x, Ints{3}); }),
                         "squeeze_dims[0] not in [-3,3)."));
  auto any = g.placeholder(af::float32);
  Tensor in(af::float32, Shape{2, 3});
  check_kernel_error(run_kernel(af::squeeze(any, Ints{0}, "s"), {in}),
                     "Can not squeeze dim[0], expected a dimension of 1, got 2", "s");
  check_kernel_error(run_kernel(af::squeeze(any, Ints{2}, "s2"), {in}),
                     "Tried to squeeze dim index 2 for tensor with 2 dimensions.", "s2");
}

// -- Slice --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(slice_takes_a_block_and_minus_one_means_to_the_end) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  auto s = af::slice(x, Ints{0, 1}, Ints{-1, 2});
  BOOST_TEST(s.op().name() == "Slice");
  BOOST_TEST(
      s.op().node_def().inputs == std::vector<std::string>({"x", "Slice/begin", "Slice/size"}),
      boost::test_tools::per_element());
  BOOST_TEST(*s.op().node_def().attr<DType>("Index") == af::int32);
  BOOST_TEST(s.shape() == PartialShape({2, 2}));
  Tensor out = eval(s, {tensor<float>({0, 1, 2, 3, 4, 5}, {2, 3})});
  BOOST_TEST(out.shape() == Shape({2, 2}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({1, 2, 4, 5}),
             boost::test_tools::per_element());

  // Three dimensions with int64 begin and size.
  auto y = g.placeholder(af::int64, {2, 3, 4});
  auto begin = g.constant(Tensor::from_vector(std::vector<std::int64_t>{1, 1, 2}));
  auto size = g.constant(Tensor::from_vector(std::vector<std::int64_t>{1, -1, 1}));
  auto s3 = af::slice(y, begin, size);
  BOOST_TEST(s3.shape() == PartialShape({1, 2, 1}));
  std::vector<std::int64_t> in(24);
  for (int i = 0; i < 24; ++i) in[static_cast<std::size_t>(i)] = i;
  Tensor out3 = eval(s3, {tensor(in, {2, 3, 4})});
  BOOST_TEST(out3.to_vector<std::int64_t>() == std::vector<std::int64_t>({12 + 4 + 2, 12 + 8 + 2}),
             boost::test_tools::per_element());

  auto words = g.placeholder(af::string, {3});
  Tensor w = eval(af::slice(words, Ints{1}, Ints{2}), {strings({"a", "b", "c"}, {3})});
  BOOST_TEST(w.to_vector<std::string>() == std::vector<std::string>({"b", "c"}),
             boost::test_tools::per_element());
  Tensor block = eval(af::slice(g.placeholder(af::string), Ints{0, 1}, Ints{2, 1}),
                      {strings({"a", "b", "c", "d"}, {2, 2})});
  BOOST_TEST(block.shape() == Shape({2, 1}));
  BOOST_TEST(block.to_vector<std::string>() == std::vector<std::string>({"b", "d"}),
             boost::test_tools::per_element());
  auto flags = g.placeholder(af::boolean);
  Tensor f = eval(af::slice(flags, Ints{1}, Ints{1}), {tensor<bool>({false, true, false}, {3})});
  BOOST_TEST(f.to_vector<bool>() == std::vector<bool>({true}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(slice_of_whole_rows_shares_the_buffer_and_whole_input_is_forwarded) {
  Graph g;
  auto x = g.placeholder(af::float32);
  Tensor in(af::float32, Shape{4, 16});  // rows of 64 bytes
  Tensor rows = eval(af::slice(x, Ints{2, 0}, Ints{2, -1}), {in});
  BOOST_TEST(rows.shape() == Shape({2, 16}));
  BOOST_TEST(rows.raw_data() ==
             static_cast<const void*>(static_cast<const float*>(in.raw_data()) + 32));
  BOOST_TEST(eval(af::slice(x, Ints{0, 0}, Ints{-1, -1}), {in}).shares_buffer_with(in));
  Tensor empty(af::float32, Shape{0, 3});
  BOOST_TEST(eval(af::slice(x, Ints{0, 1}, Ints{0, 1}), {empty}).shape() == Shape({0, 1}));
}

BOOST_AUTO_TEST_CASE(slice_infers_shapes_from_partly_known_inputs) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  auto begin = g.placeholder(af::int32, {2});
  auto size = g.placeholder(af::int32, {2});
  BOOST_TEST(af::slice(x, begin, g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, -1})))
                 .shape() == PartialShape({1, -1}));
  BOOST_TEST(af::slice(x, g.constant(Tensor::from_vector(std::vector<std::int32_t>{0, 1})), size)
                 .shape() == PartialShape({-1, -1}));
  BOOST_TEST(af::slice(g.placeholder(af::float32), Ints{1, 1}, Ints{1, -1}).shape() ==
             PartialShape({1, -1}));
  BOOST_TEST(starts_with(construction_error([&] {
                           af::slice(x, Ints{0, 4}, Ints{1, -1});
                         }),
                         "Negative dimension size caused by subtracting 4 from 3 for 'Slice_"));
  BOOST_TEST(
      starts_with(construction_error([&] {
                    af::slice(x, Ints{0, 1}, Ints{-2, 1});
                  }),
                  "Out of bounds slicing on dimension 0 of length 2: sizes vector cannot be < -1, "
                  "but was -2"));
  BOOST_TEST(starts_with(construction_error([&] {
                           af::slice(x, Ints{0, 1, 0}, Ints{1, 1, 1});
                         }),
                         "Shape must be rank 3 but is rank 2"));
  BOOST_TEST(starts_with(
      construction_error([&] {
        af::slice(x, Ints{0, 1}, Ints{1, 1, 1});
      }),
      "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3]."));
}

BOOST_AUTO_TEST_CASE(slice_out_of_bounds_fails_when_run) {
  Graph g;
  auto x = g.placeholder(af::float32);
  Tensor in(af::float32, Shape{2, 3});
  check_kernel_error(run_kernel(af::slice(x, Ints{0, 2}, Ints{1, 2}, "a"), {in}),
                     "Expected size[1] in [0, 1], but got 2", "a");
  check_kernel_error(run_kernel(af::slice(x, Ints{0, 4}, Ints{1, 0}, "b"), {in}),
                     "Expected begin[1] in [0, 3], but got 4", "b");
  check_kernel_error(run_kernel(af::slice(x, Ints{-1, 0}, Ints{1, 1}, "c"), {in}),
                     "Expected begin[0] in [0, 2], but got -1", "c");
  check_kernel_error(
      run_kernel(af::slice(x, Ints{0, 1}, Ints{1, 1}, "d"), {Tensor(af::float32, Shape{2, 3, 1})}),
      "Expected begin and size arguments to be 1-D tensors of size 3, but got shapes [2] and "
      "[2] instead.",
      "d");
  check_kernel_error(
      run_kernel(af::slice(x, Ints{1, 1}, Ints{0, 1}, "e"), {Tensor(af::float32, Shape{0, 3})}),
      "Expected begin[0] == 0 (got 1) and size[0] == 0 (got 0) when input.dim_size(0) == 0", "e");
}

// -- Rank and ShapeN ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(rank_is_a_constant_when_known_and_an_op_otherwise) {
  Graph g;
  auto known = af::rank(g.placeholder(af::float32, {2, -1, 4}));
  BOOST_TEST(known.op().type() == "Const");
  BOOST_TEST(known.op().name() == "Rank");
  BOOST_TEST(eval(known).scalar<std::int32_t>() == 3);
  auto unknown = af::rank(g.placeholder(af::string));
  BOOST_TEST(unknown.op().type() == "Rank");
  BOOST_TEST(unknown.op().name() == "Rank_1");
  BOOST_TEST(unknown.dtype() == af::int32);
  BOOST_TEST(unknown.shape() == PartialShape(std::vector<std::int64_t>{}));
  BOOST_TEST(eval(unknown, {strings({"a", "b"}, {1, 2})}).scalar<std::int32_t>() == 2);
}

BOOST_AUTO_TEST_CASE(shape_n_gives_one_shape_per_input) {
  Graph g;
  auto a = g.placeholder(af::float32, {2, 3});
  auto b = g.placeholder(af::float32);
  auto shapes = af::shape_n({a, b});
  BOOST_REQUIRE_EQUAL(shapes.size(), 2u);
  BOOST_TEST(shapes[0].op().name() == "ShapeN");
  BOOST_TEST(shapes[1].index() == 1);
  BOOST_TEST(shapes[0].shape() == PartialShape({2}));
  BOOST_TEST(shapes[1].shape() == PartialShape({-1}));
  KernelResult r =
      run_kernel(shapes[0], {Tensor(af::float32, Shape{2, 3}), Tensor(af::float32, Shape{4})});
  BOOST_REQUIRE(r.status.ok());
  BOOST_TEST(r.out(0).to_vector<std::int32_t>() == std::vector<std::int32_t>({2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(r.out(1).to_vector<std::int32_t>() == std::vector<std::int32_t>({4}),
             boost::test_tools::per_element());

  auto wide = af::shape_n({b}, af::int64);
  BOOST_TEST(wide[0].dtype() == af::int64);
  BOOST_TEST(eval(wide[0], {Tensor(af::float32, Shape{5, 1})}).to_vector<std::int64_t>() ==
                 std::vector<std::int64_t>({5, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(starts_with(
      construction_error([&] {
        af::shape_n({a, g.placeholder(af::int32)});
      }),
      "Tensors in list passed to 'input' of 'ShapeN' Op have types [float32, int32] that "
      "don't all match."));
}

// -- ZerosLike, OnesLike and the identities -----------------------------------------------

BOOST_AUTO_TEST_CASE(zeros_like_is_a_constant_for_known_shapes_and_an_op_otherwise) {
  Graph g;
  auto known = af::zeros_like(g.placeholder(af::int32, {2, 2}));
  BOOST_TEST(known.op().type() == "Const");
  BOOST_TEST(known.op().name() == "zeros_like");
  BOOST_TEST(eval(known).to_vector<std::int32_t>() == std::vector<std::int32_t>({0, 0, 0, 0}),
             boost::test_tools::per_element());

  auto x = g.placeholder(af::float32);
  auto z = af::zeros_like(x);
  BOOST_TEST(z.op().type() == "ZerosLike");
  BOOST_TEST(z.op().name() == "zeros_like_1");
  BOOST_TEST(!z.shape().rank_known());
  Tensor out = eval(z, {tensor<float>({1, 2, 3}, {3})});
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({0, 0, 0}),
             boost::test_tools::per_element());

  Tensor words = eval(af::zeros_like(g.placeholder(af::string)), {strings({"a", "b"}, {2})});
  BOOST_TEST(words.to_vector<std::string>() == std::vector<std::string>({"", ""}),
             boost::test_tools::per_element());

  auto as_bool = af::zeros_like(x, af::boolean);
  BOOST_TEST(as_bool.op().type() == "Fill");
  BOOST_TEST(as_bool.dtype() == af::boolean);
}

BOOST_AUTO_TEST_CASE(ones_like_fills_the_shape_of_its_input_as_tensorflow_1_builds_it) {
  Graph g;
  auto known = af::ones_like(g.placeholder(af::float32, {2, 3}));
  BOOST_TEST(known.op().type() == "Fill");
  BOOST_TEST(known.op().name() == "ones_like");
  BOOST_TEST(known.op().node_def().inputs ==
                 std::vector<std::string>({"ones_like/Shape", "ones_like/Const"}),
             boost::test_tools::per_element());
  BOOST_TEST(g.operation("ones_like/Shape").type() == "Const");
  BOOST_TEST(known.shape() == PartialShape({2, 3}));

  auto unknown = af::ones_like(g.placeholder(af::int64), af::float64);
  BOOST_TEST(g.operation("ones_like_1/Shape").type() == "Shape");
  BOOST_TEST(unknown.dtype() == af::float64);

  // OnesLike itself, for every numeric dtype and bool.
  auto x = g.placeholder(af::bfloat16);
  auto ones = g.create_op("OnesLike", {x}, {{"T", af::bfloat16}}).output(0);
  Tensor out = eval(ones, {Tensor(af::bfloat16, Shape{2})});
  BOOST_TEST(static_cast<float>(out.data<af::bfloat16_t>()[1]) == 1.0f);
  auto flags =
      g.create_op("OnesLike", {g.placeholder(af::boolean)}, {{"T", af::boolean}}).output(0);
  BOOST_TEST(eval(flags, {Tensor(af::boolean, Shape{3})}).to_vector<bool>() ==
                 std::vector<bool>({true, true, true}),
             boost::test_tools::per_element());
  BOOST_TEST(
      starts_with(construction_error([&] {
                    g.create_op("OnesLike", {g.placeholder(af::string)}, {{"T", af::string}});
                  }),
                  "Value for attr 'T' of string is not in the list of allowed values"));
  BOOST_CHECK_THROW(af::ones_like(g.placeholder(af::string)), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(stop_gradient_and_prevent_gradient_forward_their_input) {
  Graph g;
  auto x = g.placeholder(af::string, {2});
  auto s = af::stop_gradient(x);
  BOOST_TEST(s.op().name() == "StopGradient");
  BOOST_TEST(s.shape() == PartialShape({2}));
  Tensor in = strings({"a", "b"}, {2});
  BOOST_TEST(eval(s, {in}).shares_buffer_with(in));
  auto p = af::prevent_gradient(g.placeholder(af::float32, {3}), "no second derivative");
  BOOST_TEST(p.op().type() == "PreventGradient");
  BOOST_TEST(*p.op().node_def().attr<std::string>("message") == "no second derivative");
  Tensor f = tensor<float>({1, 2, 3}, {3});
  BOOST_TEST(eval(p, {f}).shares_buffer_with(f));
}

BOOST_AUTO_TEST_SUITE_END()
