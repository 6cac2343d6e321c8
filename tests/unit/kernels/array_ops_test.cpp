// White-box tests of the array ops (Reshape, Pack, ConcatV2, Fill, Cast): shape inference
// through the Graph builders, node naming, and the CPU kernels constructed and run directly.
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

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

using af::test::KernelResult;
using af::test::KernelRunner;
using af::test::run_kernel;

using af::test::construction_error;
using af::test::eval;
using af::test::starts_with;
using af::test::tensor;

}  // namespace

BOOST_AUTO_TEST_SUITE(array_ops_test)

// -- Reshape ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reshape_infers_the_minus_one_dimension_from_a_constant_shape) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3}, "x");
  auto r = af::reshape(x, std::vector<std::int64_t>{3, -1});
  BOOST_TEST(r.op().type() == "Reshape");
  BOOST_TEST(r.op().name() == "Reshape");
  BOOST_TEST(r.shape() == PartialShape({3, 2}));
  BOOST_TEST(r.op().node_def().inputs == std::vector<std::string>({"x", "Reshape/shape"}),
             boost::test_tools::per_element());
  BOOST_TEST(*r.op().node_def().attr<DType>("Tshape") == af::int32);
  BOOST_TEST(af::reshape(x, std::vector<std::int64_t>{-1}).op().name() == "Reshape_1");
}

BOOST_AUTO_TEST_CASE(reshape_to_a_wrong_element_count_fails_at_construction) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  std::string msg = construction_error([&] { af::reshape(x, std::vector<std::int64_t>{4}); });
  BOOST_TEST(msg ==
             "Cannot reshape a tensor with 6 elements to shape [4] (4 elements) for 'Reshape' "
             "(op: 'Reshape') with input shapes: [2,3], [1].");
  BOOST_TEST(starts_with(construction_error([&] {
                           af::reshape(x, std::vector<std::int64_t>{4, -1});
                         }),
                         "Cannot reshape a tensor with 6 elements to shape [4,?] (4 elements)"));
}

BOOST_AUTO_TEST_CASE(reshape_with_a_computed_shape_knows_only_the_rank) {
  Graph g;
  auto x = g.placeholder(af::float32, {2, 3});
  auto shape = g.placeholder(af::int32, {3});
  BOOST_TEST(af::reshape(x, shape).shape() == PartialShape({-1, -1, -1}));
  auto unknown = g.placeholder(af::float32);
  BOOST_TEST(af::reshape(unknown, std::vector<std::int64_t>{-1, 2}).shape() ==
             PartialShape({-1, 2}));
}

BOOST_AUTO_TEST_CASE(reshape_kernel_shares_the_buffer_and_resolves_minus_one) {
  Graph g;
  auto x = g.placeholder(af::float32);
  auto r = af::reshape(x, std::vector<std::int64_t>{-1, 2});
  Tensor in = tensor<float>({1, 2, 3, 4, 5, 6}, {6});
  Tensor out = eval(r, {in});
  BOOST_TEST(out.shape() == Shape({3, 2}));
  BOOST_TEST(out.shares_buffer_with(in));
  BOOST_TEST(out.to_vector<float>() == in.to_vector<float>(), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(reshape_kernel_rejects_incompatible_sizes) {
  Graph g;
  auto x = g.placeholder(af::float32);
  Tensor in(af::float32, Shape{2, 3});
  KernelResult r = run_kernel(af::reshape(x, std::vector<std::int64_t>{4}), {in});
  BOOST_TEST((r.status.code() == af::Code::invalid_argument));
  BOOST_TEST(
      starts_with(r.status.message(),
                  "Input to reshape is a tensor with 6 values, but the requested shape has 4"));
  r = run_kernel(af::reshape(x, std::vector<std::int64_t>{4, -1}), {in});
  BOOST_TEST(starts_with(r.status.message(),
                         "Input to reshape is a tensor with 6 values, but the "
                         "requested shape requires a multiple of 4"));
  r = run_kernel(af::reshape(x, std::vector<std::int64_t>{-1, -1}), {in});
  BOOST_TEST(starts_with(r.status.message(), "Only one input size may be -1, not both 0 and 1"));
}

// -- Pack ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(stack_packs_along_the_requested_axis) {
  Graph g;
  auto a = g.placeholder(af::int32, {3}, "a");
  auto b = g.placeholder(af::int32, {3}, "b");
  auto s0 = af::stack({a, b});
  BOOST_TEST(s0.op().type() == "Pack");
  BOOST_TEST(s0.op().name() == "stack");
  BOOST_TEST(*s0.op().node_def().attr<std::int64_t>("N") == 2);
  BOOST_TEST(s0.shape() == PartialShape({2, 3}));
  Tensor av = tensor<std::int32_t>({1, 2, 3}, {3}), bv = tensor<std::int32_t>({4, 5, 6}, {3});
  Tensor out0 = eval(s0, {av, bv});
  BOOST_TEST(out0.shape() == Shape({2, 3}));
  BOOST_TEST(out0.to_vector<std::int32_t>() == std::vector<std::int32_t>({1, 2, 3, 4, 5, 6}),
             boost::test_tools::per_element());
  auto s1 = af::stack({a, b}, -1);
  BOOST_TEST(s1.op().name() == "stack_1");
  BOOST_TEST(s1.shape() == PartialShape({3, 2}));
  Tensor out1 = eval(s1, {av, bv});
  BOOST_TEST(out1.shape() == Shape({3, 2}));
  BOOST_TEST(out1.to_vector<std::int32_t>() == std::vector<std::int32_t>({1, 4, 2, 5, 3, 6}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(stack_of_scalars_and_strings) {
  Graph g;
  auto s = af::stack({g.constant(Tensor("a")), g.constant(Tensor("bc"))});
  BOOST_TEST(s.shape() == PartialShape({2}));
  Tensor out = eval(s, {});
  BOOST_TEST(out.to_vector<std::string>() == std::vector<std::string>({"a", "bc"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(stack_rejects_mismatched_shapes_and_types) {
  Graph g;
  auto a = g.placeholder(af::float32, {2});
  auto b = g.placeholder(af::float32, {3});
  BOOST_TEST(starts_with(
      construction_error([&] {
        af::stack({a, b});
      }),
      "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]"));
  auto c = g.placeholder(af::int32, {2});
  BOOST_TEST(construction_error([&] {
               af::stack({a, c});
             }) ==
             "Tensors in list passed to 'values' of 'Pack' Op have types [float32, int32] that "
             "don't all match.");
  BOOST_TEST(starts_with(construction_error([&] {
                           af::stack({a, a}, 2);
                         }),
                         "Invalid axis: 2; must be in [-2,2)"));
  auto u = g.placeholder(af::float32);
  KernelResult r =
      run_kernel(af::stack({u, u}), {Tensor(af::float32, Shape{2}), Tensor(af::float32, Shape{3})});
  BOOST_TEST(starts_with(
      r.status.message(),
      "Shapes of all inputs must match: values[0].shape = [2] != values[1].shape = [3]"));
}

// -- ConcatV2 -----------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(concat_joins_along_the_axis) {
  Graph g;
  auto a = g.placeholder(af::float32, {2, 2}, "a");
  auto b = g.placeholder(af::float32, {2, 1}, "b");
  auto c = af::concat({a, b}, 1);
  BOOST_TEST(c.op().type() == "ConcatV2");
  BOOST_TEST(c.op().name() == "concat");
  BOOST_TEST(c.op().node_def().inputs == std::vector<std::string>({"a", "b", "concat/axis"}),
             boost::test_tools::per_element());
  BOOST_TEST(c.shape() == PartialShape({2, 3}));
  Tensor av = tensor<float>({1, 2, 3, 4}, {2, 2}), bv = tensor<float>({9, 8}, {2, 1});
  Tensor out = eval(c, {av, bv});
  BOOST_TEST(out.shape() == Shape({2, 3}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>({1, 2, 9, 3, 4, 8}),
             boost::test_tools::per_element());
  auto rows = af::concat({a, a}, -2);
  BOOST_TEST(rows.op().name() == "concat_1");
  BOOST_TEST(rows.shape() == PartialShape({4, 2}));
  Tensor out_rows = eval(rows, {av, av});
  BOOST_TEST(out_rows.to_vector<float>() == std::vector<float>({1, 2, 3, 4, 1, 2, 3, 4}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(concat_shape_inference_merges_unknown_dimensions) {
  Graph g;
  auto a = g.placeholder(af::float32, {-1, 3});
  auto b = g.placeholder(af::float32, {2, -1});
  BOOST_TEST(af::concat({a, b}, 0).shape() == PartialShape({-1, 3}));
  auto c = g.placeholder(af::float32, {2, 3});
  BOOST_TEST(af::concat({b, c}, 0).shape() == PartialShape({4, 3}));
  BOOST_TEST(af::concat({a, g.placeholder(af::float32)}, 1).shape() == PartialShape({-1, -1}));
}

BOOST_AUTO_TEST_CASE(concat_rejects_mismatched_shapes) {
  Graph g;
  auto a = g.placeholder(af::float32, {2, 3});
  auto b = g.placeholder(af::float32, {3, 3});
  BOOST_TEST(starts_with(construction_error([&] {
                           af::concat({a, b}, 1);
                         }),
                         "Dimension 0 in both shapes must be equal, but are 2 and 3"));
  BOOST_TEST(starts_with(construction_error([&] {
                           af::concat({a, b}, 2);
                         }),
                         "Shape must be at least rank 3 but is rank 2"));
  auto s = g.placeholder(af::float32, PartialShape({}));
  BOOST_TEST(starts_with(construction_error([&] {
                           af::concat({s, s}, 0);
                         }),
                         "Shape must be at least rank 1 but is rank 0"));
  auto u = g.placeholder(af::float32);
  KernelResult r = run_kernel(af::concat({u, u}, 1),
                              {Tensor(af::float32, Shape{2, 3}), Tensor(af::float32, Shape{3, 3})});
  BOOST_TEST(starts_with(r.status.message(),
                         "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [2,3] "
                         "vs. shape[1] = [3,3]"));
  r = run_kernel(af::concat({u, u}, 2),
                 {Tensor(af::float32, Shape{2, 3}), Tensor(af::float32, Shape{2, 3})});
  BOOST_TEST(
      starts_with(r.status.message(),
                  "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2"));
}

BOOST_AUTO_TEST_CASE(concat_of_one_value_is_an_identity) {
  Graph g;
  auto a = g.placeholder(af::float32, {2});
  auto c = af::concat({a}, 0);
  BOOST_TEST(c.op().type() == "Identity");
  BOOST_TEST(c.op().name() == "concat");
  BOOST_TEST(c.shape() == PartialShape({2}));
}

// -- Fill, zeros, ones --------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(fill_takes_its_shape_from_constant_dims) {
  Graph g;
  auto f = af::fill(g.constant(tensor<std::int32_t>({2, 3}, {2})), g.constant(Tensor(7.0f)));
  BOOST_TEST(f.op().name() == "Fill");
  BOOST_TEST(f.shape() == PartialShape({2, 3}));
  Tensor out = eval(f, {});
  BOOST_TEST(out.shape() == Shape({2, 3}));
  BOOST_TEST(out.to_vector<float>() == std::vector<float>(6, 7.0f),
             boost::test_tools::per_element());
  auto dims = g.placeholder(af::int32, {2});
  BOOST_TEST(af::fill(dims, g.constant(Tensor(1))).shape() == PartialShape({-1, -1}));
  BOOST_TEST(starts_with(construction_error([&] {
                           af::fill(dims, g.constant(tensor<float>({1, 2}, {2})));
                         }),
                         "Shape must be rank 0 but is rank 1"));
}

BOOST_AUTO_TEST_CASE(zeros_and_ones_are_constants_when_small_and_fills_when_large) {
  Graph g;
  auto z = af::zeros(g, Shape{2, 3});
  BOOST_TEST(z.op().type() == "Const");
  BOOST_TEST(z.op().name() == "zeros");
  BOOST_TEST(z.shape() == PartialShape({2, 3}));
  auto o = af::ones(g, Shape{2}, af::int32);
  BOOST_TEST(o.op().name() == "ones");
  BOOST_TEST(o.op().node_def().attr<Tensor>("value")->to_vector<std::int32_t>() ==
                 std::vector<std::int32_t>({1, 1}),
             boost::test_tools::per_element());
  auto big = af::ones(g, Shape{100, 100});
  BOOST_TEST(big.op().type() == "Fill");
  BOOST_TEST(big.op().name() == "ones_1");
  BOOST_TEST(big.op().node_def().inputs ==
                 std::vector<std::string>({"ones_1/shape_as_tensor", "ones_1/Const"}),
             boost::test_tools::per_element());
  BOOST_TEST(big.shape() == PartialShape({100, 100}));
  Tensor out = eval(big, {});
  BOOST_TEST(out.num_elements() == 10000);
  BOOST_TEST(out.flat<float>()[9999] == 1.0f);
  BOOST_TEST(af::zeros(g, Shape{1000}).op().type() == "Fill");
  BOOST_TEST(af::zeros(g, Shape{999}).op().type() == "Const");
}

// -- Cast ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(cast_from_float_to_int_truncates_toward_zero) {
  Graph g;
  auto x = g.placeholder(af::float32, {4});
  auto c = af::cast(x, af::int32);
  BOOST_TEST(c.op().type() == "Cast");
  BOOST_TEST(c.op().name() == "Cast");
  BOOST_TEST(*c.op().node_def().attr<DType>("SrcT") == af::float32);
  BOOST_TEST(*c.op().node_def().attr<DType>("DstT") == af::int32);
  BOOST_TEST(c.dtype() == af::int32);
  BOOST_TEST(c.shape() == PartialShape({4}));
  Tensor out = eval(c, {tensor<float>({1.9f, -1.9f, 0.5f, -0.5f}, {4})});
  BOOST_TEST(out.to_vector<std::int32_t>() == std::vector<std::int32_t>({1, -1, 0, 0}),
             boost::test_tools::per_element());
  // NaN and out-of-range values give the minimum, as x86's conversions do.
  Tensor odd = eval(c, {tensor<float>({std::nanf(""), 1e10f, -1e10f, 3.0f}, {4})});
  const auto min = std::numeric_limits<std::int32_t>::min();
  BOOST_TEST(odd.to_vector<std::int32_t>() == std::vector<std::int32_t>({min, min, min, 3}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cast_to_and_from_bool) {
  Graph g;
  auto x = g.placeholder(af::float32, {3});
  Tensor b = eval(af::cast(x, af::boolean), {tensor<float>({0.0f, -2.0f, 0.5f}, {3})});
  BOOST_TEST(b.to_vector<bool>() == std::vector<bool>({false, true, true}),
             boost::test_tools::per_element());
  auto flags = g.placeholder(af::boolean, {2});
  Tensor f =
      eval(af::cast(flags, af::float64), {Tensor::from_vector(std::vector<bool>{true, false})});
  BOOST_TEST(f.to_vector<double>() == std::vector<double>({1.0, 0.0}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cast_to_bfloat16_rounds_to_nearest_even) {
  Graph g;
  auto x = g.placeholder(af::float32, {3});
  // 1 + 2^-8 is halfway between bfloat16 1 and 1 + 2^-7: ties go to the even (1.0);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties go to 1 + 2^-6.
  Tensor out = eval(af::cast(x, af::bfloat16),
                    {tensor<float>({1.0f + 1.0f / 256, 1.0f + 3.0f / 256, -2.5f}, {3})});
  auto o = out.flat<af::bfloat16_t>();
  BOOST_TEST(static_cast<float>(o[0]) == 1.0f);
  BOOST_TEST(static_cast<float>(o[1]) == 1.0f + 1.0f / 64);
  BOOST_TEST(static_cast<float>(o[2]) == -2.5f);
  auto back = g.placeholder(af::bfloat16, {3});
  Tensor ints = eval(af::cast(back, af::int64), {out});
  BOOST_TEST(ints.to_vector<std::int64_t>() == std::vector<std::int64_t>({1, 1, -2}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cast_between_integers_wraps) {
  Graph g;
  auto x = g.placeholder(af::int32, {3});
  Tensor out = eval(af::cast(x, af::uint8), {tensor<std::int32_t>({255, 256, -1}, {3})});
  BOOST_TEST(out.to_vector<std::uint8_t>() == std::vector<std::uint8_t>({255, 0, 255}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(cast_to_the_same_type_adds_no_node) {
  Graph g;
  auto x = g.placeholder(af::float32, {3});
  BOOST_TEST(af::cast(x, af::float32) == x);
  BOOST_TEST(g.num_nodes() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
