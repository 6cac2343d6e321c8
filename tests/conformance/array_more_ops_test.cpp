// Bitcast, DataFormatDimMap, DataFormatVecPermute, UnravelIndex, LowerBound, UpperBound,
// NthElement, the in-place ops, Empty, ParallelConcat, AccumulateNV2, ConjugateTranspose,
// GuaranteeConst, CheckNumericsV2, BiasAddV1, SparseMatMul, the first Conv3DBackprop versions
// and MaxPoolV2 with its gradients, through their builders: values, static shapes, the
// gradients' graphs and TensorFlow 2.21's error messages (the strings below are what
// TensorFlow gave). The fixture comparison of many more cases is tests/data/tf_ops, built by
// scripts/peers/op_cases_array_more.py and checked by op_coverage_conformance_test.cpp.
#include "actorflow/ops/array_more_ops.hpp"

#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "op_test_util.hpp"

namespace {

using af::DType;
using af::Output;
using af::PartialShape;
using af::Shape;
using af::Tensor;
using af::test::refuses;
using af::test::vec;

// The `n` floats `from`, `from + 1`, ...: from 0 unless told (op_test_util.hpp's iota
// starts at 1).
std::vector<float> iota(int n, float from = 0.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = from + static_cast<float>(i);
  return v;
}

using i32s = std::vector<std::int32_t>;
using i64s = std::vector<std::int64_t>;
using floats = std::vector<float>;

}  // namespace

BOOST_AUTO_TEST_SUITE(array_more_ops_test)

// Bitcast reads the bytes as the other type, adding or removing the last dimension.
BOOST_AUTO_TEST_CASE(bitcast_reshapes_by_the_size_ratio, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output f = g.constant(vec<float>({1.0f, -2.0f}), "f");
  const Output as_int = af::bitcast(f, DType::int32);
  const Output as_bytes = af::bitcast(f, DType::uint8, "bytes");
  const Output bytes = g.constant(vec<std::uint8_t>({0, 0, 128, 63, 0, 0, 0, 192}, Shape{2, 4}));
  const Output back = af::bitcast(bytes, DType::float32);
  const Output scalar_bytes = g.placeholder(DType::uint8, PartialShape::unknown(), "sb");
  const Output unknown = af::bitcast(scalar_bytes, DType::float32);
  BOOST_TEST(as_int.name() == "Bitcast:0");
  BOOST_TEST(as_bytes.shape() == PartialShape({2, 4}));
  BOOST_TEST(back.shape() == PartialShape({2}));
  BOOST_TEST(!unknown.shape().rank_known());
  af::Session s(g);
  BOOST_TEST(s.run(as_int).to_vector<std::int32_t>() == (i32s{1065353216, -1073741824}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(as_bytes).to_vector<std::uint8_t>() ==
                 (std::vector<std::uint8_t>{0, 0, 128, 63, 0, 0, 0, 192}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(back).to_vector<float>() == (floats{1.0f, -2.0f}),
             boost::test_tools::per_element());
  refuses(
      [&] {
        s.run(unknown, {{scalar_bytes, Tensor(DType::uint8, Shape{2, 3})}});
      },
      "Cannot bitcast from 4 to 1");
  refuses(
      [&] {
        af::bitcast(g.constant(Tensor(DType::uint8, Shape{2, 3})), DType::float32);
      },
      "Cannot bitcast from 4 to 1 due to shape. 3 does not match 4");
  refuses([&] { af::bitcast(g.constant(Tensor(DType::uint8, Shape{})), DType::float32); },
          "Shape must be at least rank 1 but is rank 0");
  // TensorFlow registers no gradient for Bitcast.
  const Output wide = af::bitcast(f, DType::float64, "wide");
  BOOST_TEST(wide.shape() == PartialShape(std::vector<std::int64_t>{}));
  refuses<af::NotFoundError>([&] { af::gradients({wide}, {f}); },
                             "No gradient defined for operation 'wide'");
}

// DataFormatDimMap maps dimension indices, wrapping as TensorFlow's functor;
// DataFormatVecPermute reorders vectors and [n, 2] matrices.
BOOST_AUTO_TEST_CASE(data_format_ops_permute_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output dims = g.constant(vec<std::int32_t>({-5, -4, -1, 0, 3, 4, 7, -9}), "dims");
  const Output nchw = af::nn::data_format_dim_map(dims);
  const Output nwhc = af::nn::data_format_dim_map(dims, "NHWC", "NWHC");
  const Output bad = af::nn::data_format_dim_map(dims, "NHW", "NCHW", "bad");
  const Output not_perm = af::nn::data_format_dim_map(dims, "NHWC", "NCHH", "not_perm");
  const Output v4 = af::nn::data_format_vec_permute(g.constant(vec<std::int32_t>({1, 2, 3, 4})));
  const Output v2 =
      af::nn::data_format_vec_permute(g.constant(vec<std::int32_t>({5, 6})), "NHWC", "NWHC");
  const Output m = af::nn::data_format_vec_permute(
      g.constant(vec<std::int64_t>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{4, 2})));
  const Output v5 = af::nn::data_format_vec_permute(g.constant(vec<std::int32_t>({1, 2, 3, 4, 5})),
                                                    "NDHWC", "NCDHW");
  const Output x = g.placeholder(DType::int32, PartialShape::unknown(), "x");
  const Output p4 = af::nn::data_format_vec_permute(x);
  const Output p5 = af::nn::data_format_vec_permute(x, "NDHWC", "NCDHW");
  const Output no_hw = af::nn::data_format_vec_permute(x, "ABCD", "DCBA");
  BOOST_TEST(nchw.name() == "DataFormatDimMap:0");
  BOOST_TEST(m.shape() == PartialShape({4, 2}));
  af::Session s(g);
  BOOST_TEST(s.run(nchw).to_vector<std::int32_t>() == (i32s{1, 0, 1, 0, 1, 0, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(nwhc).to_vector<std::int32_t>() == (i32s{3, 0, 3, 0, 3, 0, 3, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(v4).to_vector<std::int32_t>() == (i32s{1, 4, 2, 3}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(v2).to_vector<std::int32_t>() == (i32s{6, 5}), boost::test_tools::per_element());
  BOOST_TEST(s.run(m).to_vector<std::int64_t>() == (i64s{1, 2, 7, 8, 3, 4, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(v5).to_vector<std::int32_t>() == (i32s{1, 5, 2, 3, 4}),
             boost::test_tools::per_element());
  refuses([&] { s.run(bad); }, "Source format must be of length 4 or 5, received src_format = NHW");
  refuses([&] { s.run(not_perm); },
          "Destination and source format must determine a permutation, got NHWC and NCHH");
  refuses(
      [&] {
        s.run(p4, {{x, vec<std::int32_t>({1, 2, 3})}});
      },
      "1D input must be of size 2 or 4, but got shape [3]");
  refuses(
      [&] {
        s.run(p5, {{x, vec<std::int32_t>({1, 2, 3, 4})}});
      },
      "1D input must be of size 3 or 5, but got shape [4]");
  refuses(
      [&] {
        s.run(p4, {{x, vec<std::int32_t>(i32s(12, 0), Shape{4, 3})}});
      },
      "Second dimension of 2D input must be of size 2, but got shape [4,3]");
  refuses(
      [&] {
        s.run(p4, {{x, Tensor(std::int32_t{1})}});
      },
      "input must be a vector or 2D tensor, but got shape []");
  refuses(
      [&] {
        s.run(no_hw, {{x, vec<std::int32_t>({5, 6})}});
      },
      "Format specifier must contain H and W for 2D case");
}

// UnravelIndex: coordinates by C++'s % and /, TensorFlow's checks of dims and indices.
BOOST_AUTO_TEST_CASE(unravel_index_computes_and_checks_as_tensorflow,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output dims = g.constant(vec<std::int32_t>({3, 3}), "dims");
  const Output u = af::unravel_index(g.constant(vec<std::int32_t>({2, 5, 7})), dims);
  const Output neg = af::unravel_index(g.constant(vec<std::int32_t>({-1, -7})), dims);
  const Output scalar = af::unravel_index(g.constant(Tensor(std::int32_t{1621})),
                                          g.constant(vec<std::int32_t>({6, 7, 8, 9})));
  const Output i = g.placeholder(DType::int32, PartialShape::unknown(), "i");
  const Output d = g.placeholder(DType::int32, PartialShape({-1}), "d");
  const Output open = af::unravel_index(i, d, "open");
  BOOST_TEST(u.shape() == PartialShape({2, 3}));
  BOOST_TEST(scalar.shape() == PartialShape({4}));
  BOOST_TEST(!open.shape().rank_known());
  af::Session s(g);
  BOOST_TEST(s.run(u).to_vector<std::int32_t>() == (i32s{0, 1, 2, 2, 2, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(neg).to_vector<std::int32_t>() == (i32s{0, -2, -1, -1}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(scalar).to_vector<std::int32_t>() == (i32s{3, 1, 4, 1}),
             boost::test_tools::per_element());
  auto run = [&](Tensor indices, Tensor dims_value) {
    s.run(open, {{i, std::move(indices)}, {d, std::move(dims_value)}});
  };
  refuses(
      [&] {
        run(vec<std::int32_t>({9}), vec<std::int32_t>({3, 3}));
      },
      "index is out of bound as with dims");
  refuses(
      [&] {
        run(Tensor(DType::int32, Shape{0}), vec<std::int32_t>({3, 3}));
      },
      "received empty tensor indices: Tensor<type: int32 shape: [0] values: >");
  refuses(
      [&] {
        run(vec<std::int32_t>({1}), vec<std::int32_t>({3, 0}));
      },
      "Input dims cannot contain a dim of zero, but dims contains zero at index 1");
  refuses(
      [&] {
        run(vec<std::int32_t>({1}), vec<std::int32_t>({3, -2}));
      },
      "Input dims cannot be negative. Got dim = -2 at index 1");
  refuses(
      [&] {
        run(vec<std::int32_t>({1}), vec<std::int32_t>({100000, 100000}));
      },
      "Input dims product is causing integer overflow: (100000 100000)");
  refuses(
      [&] {
        run(vec<std::int32_t>({0, 0, 0, 0}, Shape{2, 2}), vec<std::int32_t>({3}));
      },
      "The indices can only be scalar or vector, got \"[2,2]\"");
}

// LowerBound and UpperBound search each row; both inputs must be matrices.
BOOST_AUTO_TEST_CASE(bounds_search_rows_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output sorted = g.constant(vec<float>({1, 2, 2, 3, 0, 5, 6, 7}, Shape{2, 4}), "sorted");
  const Output values = g.constant(vec<float>({2, 2.5f, 4, 0, 6, 9}, Shape{2, 3}), "values");
  const Output lower = af::lower_bound(sorted, values);
  const Output upper = af::upper_bound(sorted, values, DType::int64);
  const Output a = g.placeholder(DType::float32, PartialShape({-1, -1}), "a");
  const Output b = g.placeholder(DType::float32, PartialShape({-1, -1}), "b");
  const Output open = af::lower_bound(a, b, DType::int32, "open");
  BOOST_TEST(lower.name() == "LowerBound:0");
  BOOST_TEST(lower.shape() == PartialShape({2, 3}));
  BOOST_TEST(upper.dtype() == DType::int64);
  af::Session s(g);
  BOOST_TEST(s.run(lower).to_vector<std::int32_t>() == (i32s{1, 3, 4, 0, 2, 4}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(upper).to_vector<std::int64_t>() == (i64s{3, 3, 4, 1, 3, 4}),
             boost::test_tools::per_element());
  refuses(
      [&] {
        s.run(open, {{a, vec<float>({1, 2}, Shape{1, 2})}, {b, vec<float>({1, 2}, Shape{2, 1})}});
      },
      "Leading dim_size of both tensors must match.");
  refuses(
      [&] {
        af::lower_bound(g.constant(vec<float>({1, 2})), values);
      },
      "Shape must be rank 2 but is rank 1");
}

// NthElement picks as std::nth_element; its gradient splits among equal entries.
BOOST_AUTO_TEST_CASE(nth_element_and_its_gradient_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({3, 1, 2, 6, 5, 4}, Shape{2, 3}), "x");
  const Output second = af::nn::nth_element(x, 1);
  const Output largest = af::nn::nth_element(x, 0, true, "largest");
  const Output ties = g.constant(vec<float>({1, 1, 0.5f}, Shape{1, 3}), "ties");
  const Output middle = af::nn::nth_element(ties, 1, false, "middle");
  const Output grad = af::gradients({middle}, {ties})[0];
  const Output n = g.placeholder(DType::int32, PartialShape({}), "n");
  const Output open = af::nn::nth_element(x, n, false, "open");
  BOOST_TEST(second.name() == "NthElement:0");
  BOOST_TEST(second.shape() == PartialShape({2}));
  BOOST_TEST(second.op().node()->inputs()[1].name() == "NthElement/n:0");
  af::Session s(g);
  BOOST_TEST(s.run(second).to_vector<float>() == (floats{2, 5}), boost::test_tools::per_element());
  BOOST_TEST(s.run(largest).to_vector<float>() == (floats{3, 6}), boost::test_tools::per_element());
  BOOST_TEST(s.run(grad).to_vector<float>() == (floats{0.5f, 0.5f, 0.0f}),
             boost::test_tools::per_element());
  refuses(
      [&] {
        s.run(open, {{n, Tensor(std::int32_t{3})}});
      },
      "Input must have last dimension > n = 3");
  refuses(
      [&] {
        s.run(open, {{n, Tensor(std::int32_t{-1})}});
      },
      "n must be non-negative but is -1");
  refuses([&] { af::nn::nth_element(x, 3); }, "Input must have last dimension > n = 3 but is 3");
  refuses([&] { af::nn::nth_element(x, -1); },
          "Dimension size, given by scalar input 1, must be non-negative but is -1");
}

// The in-place ops change a copy of x (TensorFlow changes x's buffer); indices wrap.
BOOST_AUTO_TEST_CASE(inplace_ops_update_rows_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2}), "x");
  const Output i = g.constant(vec<std::int32_t>({0, 2, -1}), "i");
  const Output v = g.constant(vec<float>({10, 10, 20, 20, 30, 30}, Shape{3, 2}), "v");
  const Output added = af::inplace_add(x, i, v);
  const Output subtracted = af::inplace_sub(x, g.constant(vec<std::int32_t>({1})),
                                            g.constant(vec<float>({10, 10}, Shape{1, 2})));
  const Output updated = af::inplace_update(x, g.constant(vec<std::int32_t>({1, 4})),
                                            g.constant(vec<float>({10, 10, 7, 7}, Shape{2, 2})));
  const Output flags = g.constant(vec<bool>({true, false}), "flags");
  const Output one = g.constant(vec<std::int32_t>({1}), "one");
  const Output bool_add = af::inplace_add(flags, one, g.constant(vec<bool>({true})), "bool_add");
  const Output bool_update = af::inplace_update(flags, one, g.constant(vec<bool>({true})));
  const Output ip = g.placeholder(DType::int32, PartialShape::unknown(), "ip");
  const Output vp = g.placeholder(DType::float32, PartialShape::unknown(), "vp");
  const Output open = af::inplace_add(x, ip, vp, "open");
  BOOST_TEST(added.name() == "InplaceAdd:0");
  BOOST_TEST(added.shape() == PartialShape({3, 2}));
  af::Session s(g);
  BOOST_TEST(s.run(added).to_vector<float>() == (floats{11, 12, 3, 4, 55, 56}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(subtracted).to_vector<float>() == (floats{1, 2, -7, -6, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(updated).to_vector<float>() == (floats{1, 2, 7, 7, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(x).to_vector<float>() == (floats{1, 2, 3, 4, 5, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(bool_update).to_vector<bool>() == (std::vector<bool>{true, true}),
             boost::test_tools::per_element());
  refuses([&] { s.run(bool_add); }, "Unsupported data type: bool");
  auto run = [&](Tensor index, Tensor value) {
    s.run(open, {{ip, std::move(index)}, {vp, std::move(value)}});
  };
  refuses(
      [&] {
        run(Tensor(std::int32_t{1}), vec<float>({1, 2}, Shape{1, 2}));
      },
      "i must be a vector. []");
  refuses(
      [&] {
        run(vec<std::int32_t>({1}), vec<float>({1, 2}));
      },
      "x and v shape doesn't match (ranks differ): [3,2] vs. [2]");
  refuses(
      [&] {
        run(vec<std::int32_t>({1}), vec<float>({1, 2, 3}, Shape{1, 3}));
      },
      "x and v shape doesn't match at index 1 : [3,2] vs. [1,3]");
  refuses(
      [&] {
        run(vec<std::int32_t>({1, 2}), vec<float>({1, 2}, Shape{1, 2}));
      },
      "i and x shape doesn't match at index 0: [2] vs. [1,2]");
  refuses<af::NotFoundError>([&] { af::gradients({added}, {x}); },
                             "No gradient defined for operation 'InplaceAdd'");
}

// Empty: zeros of the shape (TensorFlow's are uninitialized unless `init`).
BOOST_AUTO_TEST_CASE(empty_makes_a_tensor_of_the_shape, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output e = af::empty(g.constant(vec<std::int32_t>({2, 3})), DType::float32, true);
  const Output strings = af::empty(g.constant(vec<std::int32_t>({2})), DType::string);
  const Output shape = g.placeholder(DType::int32, PartialShape({2}), "shape");
  const Output open = af::empty(shape, DType::int64, false, "open");
  BOOST_TEST(e.name() == "Empty:0");
  BOOST_TEST(e.shape() == PartialShape({2, 3}));
  BOOST_TEST(open.shape() == PartialShape({-1, -1}));
  af::Session s(g);
  BOOST_TEST(s.run(e).to_vector<float>() == floats(6, 0.0f), boost::test_tools::per_element());
  BOOST_TEST(s.run(strings).to_vector<std::string>() == (std::vector<std::string>{"", ""}),
             boost::test_tools::per_element());
  refuses([&] { s.run(open, {{shape, vec<std::int32_t>({2, -1})}}); }, "Dimension -1 must be >= 0");
  refuses(
      [&] {
        af::empty(g.constant(vec<std::int32_t>({2, -2})), DType::float32);
      },
      "Invalid value in tensor used for shape: -2");
  refuses([&] { af::empty(g.constant(Tensor(std::int32_t{2})), DType::float32); },
          "Shape must be rank 1 but is rank 0");
}

// ParallelConcat places one row per input in the shape attr; parallel_stack builds on it.
BOOST_AUTO_TEST_CASE(parallel_concat_and_stack_as_tensorflow, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output a = g.constant(vec<float>({1, 2}, Shape{1, 2}), "a");
  const Output b = g.constant(vec<float>({3, 4}, Shape{1, 2}), "b");
  const Output c = af::parallel_concat({a, b}, PartialShape({2, 2}));
  const Output short_shape = af::parallel_concat({a, b}, PartialShape({1, 2}), "short");
  const Output stacked = af::parallel_stack(
      {g.constant(vec<std::int32_t>({1, 2})), g.constant(vec<std::int32_t>({3, 4}))});
  BOOST_TEST(c.name() == "ParallelConcat:0");
  BOOST_TEST(stacked.name() == "parallel_stack/ParallelConcat:0");
  BOOST_TEST(stacked.shape() == PartialShape({2, 2}));
  af::Session s(g);
  BOOST_TEST(s.run(c).to_vector<float>() == (floats{1, 2, 3, 4}), boost::test_tools::per_element());
  BOOST_TEST(s.run(stacked).to_vector<std::int32_t>() == (i32s{1, 2, 3, 4}),
             boost::test_tools::per_element());
  refuses([&] { s.run(short_shape); }, "0th dimension of value = 1 must be greater than loc_ = 1");
  refuses(
      [&] {
        af::parallel_concat({a}, PartialShape({-1, 2}));
      },
      "shape attr must be fully defined.");
  refuses(
      [&] {
        af::parallel_concat({g.constant(Tensor(DType::float32, Shape{2, 2}))},
                            PartialShape({2, 2}));
      },
      "Size of first dimension must be 1.");
  refuses(
      [&] {
        af::parallel_concat({a, g.constant(Tensor(DType::float32, Shape{1, 3}))},
                            PartialShape({2, 2}));
      },
      "Dimension 1 in both shapes must be equal, but are 3 and 2. Shapes are [1,3] and [1,2].\n"
      "\tFrom merging shape 1 with other shapes.");
  refuses<af::NotFoundError>([&] { af::gradients({c}, {a}); },
                             "No gradient defined for operation 'ParallelConcat'");
}

// AccumulateNV2 adds like AddN; its static shape is the attr; its gradient reaches each input.
BOOST_AUTO_TEST_CASE(accumulate_n_v2_sums_with_the_shape_attr, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output a = g.constant(vec<float>({1, 2}), "a");
  const Output b = g.constant(vec<float>({3, 4}), "b");
  const Output sum = af::accumulate_n_v2({a, b, a}, PartialShape({-1}));
  const auto grads = af::gradients({sum}, {a, b});
  BOOST_TEST(sum.name() == "AccumulateNV2:0");
  BOOST_TEST(sum.shape() == PartialShape({-1}));
  af::Session s(g);
  BOOST_TEST(s.run(sum).to_vector<float>() == (floats{5, 8}), boost::test_tools::per_element());
  BOOST_TEST(s.run(grads[0]).to_vector<float>() == (floats{2, 2}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(grads[1]).to_vector<float>() == (floats{1, 1}),
             boost::test_tools::per_element());
  refuses(
      [&] {
        af::accumulate_n_v2({a, g.constant(vec<double>({1.0}))}, PartialShape({2}));
      },
      "Tensors in list passed to 'inputs' of 'AccumulateNV2' Op have types [float32, "
      "float64] that don't all match.");
}

// ConjugateTranspose of real types is Transpose; its gradient undoes the permutation.
BOOST_AUTO_TEST_CASE(conjugate_transpose_is_transpose_for_reals, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>(iota(6, 1.0f), Shape{2, 3}), "x");
  const Output t = af::conjugate_transpose(x, i64s{1, 0});
  const Output weights = g.constant(vec<float>(iota(6, 1.0f), Shape{3, 2}), "w");
  const Output grad = af::gradients({af::mul(t, weights)}, {x})[0];
  const Output perm = g.placeholder(DType::int32, PartialShape::unknown(), "perm");
  const Output open = af::conjugate_transpose(x, perm, "open");
  BOOST_TEST(t.name() == "ConjugateTranspose:0");
  BOOST_TEST(t.shape() == PartialShape({3, 2}));
  BOOST_TEST(grad.op().type() == "Transpose");
  af::Session s(g);
  BOOST_TEST(s.run(t).to_vector<float>() == (floats{1, 4, 2, 5, 3, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(grad).to_vector<float>() == (floats{1, 3, 5, 2, 4, 6}),
             boost::test_tools::per_element());
  refuses([&] { s.run(open, {{perm, vec<std::int32_t>({1, 1})}}); }, "0 is missing from {1,1}.");
  refuses(
      [&] {
        af::conjugate_transpose(x, i64s{3, 0});
      },
      "perm dim 3 is out of range of input rank 2");
}

// GuaranteeConst passes the input through and has no gradient; CheckNumericsV2 tells -Inf
// from +Inf and checks its gradient too.
BOOST_AUTO_TEST_CASE(guarantee_const_and_check_numerics_v2, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output x = g.constant(vec<float>({1, 2}), "x");
  const Output same = af::guarantee_const(x);
  const Output p = g.placeholder(DType::float32, PartialShape::unknown(), "p");
  const Output checked = af::check_numerics_v2(p, "msg");
  const Output checked_x = af::check_numerics_v2(x, "m", "checked_x");
  const Output grad = af::gradients({checked_x}, {x})[0];
  BOOST_TEST(same.name() == "GuaranteeConst:0");
  BOOST_TEST(grad.op().type() == "CheckNumericsV2");
  BOOST_TEST(*grad.op().node_def().attr<std::string>("message") ==
             "Not a number (NaN) or infinity (Inf) values detected in gradient. m");
  af::Session s(g);
  BOOST_TEST(s.run(same).to_vector<float>() == (floats{1, 2}), boost::test_tools::per_element());
  BOOST_TEST(s.run(grad).to_vector<float>() == (floats{1, 1}), boost::test_tools::per_element());
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto check = [&](std::vector<float> values, const std::string& message) {
    refuses([&] { s.run(checked, {{p, vec<float>(values)}}); }, message);
  };
  BOOST_TEST(s.run(checked, {{p, vec<float>({3})}}).to_vector<float>() == (floats{3}),
             boost::test_tools::per_element());
  check({1, nan}, "msg : Tensor had NaN values");
  check({1, inf}, "msg : Tensor had +Inf values");
  check({-inf, 1}, "msg : Tensor had -Inf values");
  check({inf, -inf}, "msg : Tensor had -Inf and +Inf values");
  check({nan, inf}, "msg : Tensor had +Inf and NaN values");
  check({nan, -inf}, "msg : Tensor had -Inf and NaN values");
  check({nan, inf, -inf}, "msg : Tensor had -Inf, +Inf, and NaN values");
  refuses<af::NotFoundError>([&] { af::gradients({same}, {x}); },
                             "No gradient defined for operation 'GuaranteeConst'");
  refuses([&] { af::check_numerics_v2(g.constant(vec<std::int32_t>({1})), "m"); },
          "Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, "
          "float, double");
}

// BiasAddV1 is an NHWC BiasAdd; the bias gradient sums over the other dimensions.
BOOST_AUTO_TEST_CASE(bias_add_v1_and_its_gradient, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output value = g.constant(vec<float>({1, 2, 3, 4}, Shape{2, 2}), "value");
  const Output bias = g.constant(vec<float>({10, 20}), "bias");
  const Output y = af::nn::bias_add_v1(value, bias);
  const auto grads = af::gradients({y}, {value, bias});
  const Output vp = g.placeholder(DType::float32, PartialShape::unknown(), "vp");
  const Output open = af::nn::bias_add_v1(vp, g.constant(vec<float>({1, 2, 3})), "open");
  BOOST_TEST(y.name() == "BiasAddV1:0");
  BOOST_TEST(grads[1].op().type() == "BiasAddGrad");
  af::Session s(g);
  BOOST_TEST(s.run(y).to_vector<float>() == (floats{11, 22, 13, 24}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(grads[0]).to_vector<float>() == (floats{1, 1, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(grads[1]).to_vector<float>() == (floats{2, 2}),
             boost::test_tools::per_element());
  refuses(
      [&] {
        s.run(open, {{vp, vec<float>({1, 2, 3, 4}, Shape{2, 2})}});
      },
      "Must provide as many biases as the last dimension of the input tensor: [3] vs. "
      "[2,2]");
  refuses(
      [&] {
        s.run(open, {{vp, vec<float>({1, 2, 3})}});
      },
      "Input tensor must be at least 2D: [3]");
  refuses(
      [&] {
        af::nn::bias_add_v1(value, g.constant(vec<float>({1, 2, 3})));
      },
      "Dimensions must be equal, but are 2 and 3");
}

// SparseMatMul multiplies float and bfloat16 matrices into float; the gradient casts back.
BOOST_AUTO_TEST_CASE(sparse_matmul_and_its_gradient, *boost::unit_test::timeout(30)) {
  af::Graph g;
  const Output a = g.constant(vec<float>({1, 0, 0, 2}, Shape{2, 2}), "a");
  const Output b = g.constant(vec<af::bfloat16_t>({af::bfloat16_t(1.0f), af::bfloat16_t(2.0f),
                                                   af::bfloat16_t(3.0f), af::bfloat16_t(4.0f)},
                                                  Shape{2, 2}),
                              "b");
  const Output y = af::sparse_matmul(a, b, false, false, true);
  const Output yt = af::sparse_matmul(a, a, true, true, false, false, "yt");
  const auto grads = af::gradients({y}, {a, b});
  const Output ap = g.placeholder(DType::float32, PartialShape::unknown(), "ap");
  const Output open = af::sparse_matmul(ap, a, false, false, false, false, "open");
  BOOST_TEST(y.name() == "SparseMatMul:0");
  BOOST_TEST(y.dtype() == DType::float32);
  BOOST_TEST(y.shape() == PartialShape({2, 2}));
  // grad * b^T mixes float and bfloat16 (SparseMatMul); a^T * grad has a's hint
  // (SparseMatMul too), cast back to b's bfloat16.
  BOOST_TEST(grads[0].op().type() == "SparseMatMul");
  BOOST_TEST(grads[1].dtype() == DType::bfloat16);
  BOOST_TEST(grads[1].op().type() == "Cast");
  af::Session s(g);
  BOOST_TEST(s.run(y).to_vector<float>() == (floats{1, 2, 6, 8}), boost::test_tools::per_element());
  BOOST_TEST(s.run(yt).to_vector<float>() == (floats{1, 0, 0, 4}),
             boost::test_tools::per_element());
  // d/da = ones * b^T: row sums of b; d/db = a^T * ones: column sums of a.
  BOOST_TEST(s.run(grads[0]).to_vector<float>() == (floats{3, 7, 3, 7}),
             boost::test_tools::per_element());
  const Tensor gb = s.run(grads[1]);
  const std::vector<float> expected_b{1, 1, 2, 2};
  for (std::size_t k = 0; k < expected_b.size(); ++k)
    BOOST_TEST(static_cast<float>(gb.data<af::bfloat16_t>()[k]) == expected_b[k]);
  refuses(
      [&] {
        s.run(open, {{ap, vec<float>({1, 2, 3}, Shape{1, 3})}});
      },
      "Matrix size incompatible: a: [1,3], b: [2,2]");
  refuses([&] { s.run(open, {{ap, vec<float>({1, 2})}}); }, "a is not a matrix");
  refuses(
      [&] {
        af::sparse_matmul(a, g.constant(Tensor(DType::float32, Shape{3, 4})));
      },
      "Dimensions must be equal, but are 2 and 3");
}

// The first Conv3DBackprop versions compute what the V2 ops do with the sizes of their
// input (or filter) tensor.
BOOST_AUTO_TEST_CASE(conv3d_backprop_v1_matches_v2, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Shape in_shape{1, 4, 4, 4, 2}, filter_shape{2, 2, 2, 2, 3}, out_shape{1, 3, 3, 3, 3};
  const Output input = g.constant(vec<float>(iota(128, -3.0f), in_shape), "input");
  const Output filter = g.constant(vec<float>(iota(48, -1.0f), filter_shape), "filter");
  const Output dy = g.constant(vec<float>(iota(81, 0.5f), out_shape), "dy");
  const i64s ones{1, 1, 1, 1, 1};
  const Output dx1 = af::nn::conv3d_backprop_input(input, filter, dy, ones, "VALID");
  const Output dw1 = af::nn::conv3d_backprop_filter(input, filter, dy, ones, "VALID");
  const Output dx2 = af::nn::conv3d_backprop_input_v2(
      g.constant(vec<std::int32_t>({1, 4, 4, 4, 2})), filter, dy, ones, "VALID", "NDHWC", ones);
  const Output dw2 = af::nn::conv3d_backprop_filter_v2(
      input, g.constant(vec<std::int32_t>({2, 2, 2, 2, 3})), dy, ones, "VALID", "NDHWC", ones);
  BOOST_TEST(dx1.name() == "Conv3DBackpropInput:0");
  BOOST_TEST(dx1.shape() == PartialShape(in_shape));
  BOOST_TEST(dw1.shape() == PartialShape(filter_shape));
  af::Session s(g);
  BOOST_TEST(s.run(dx1).to_vector<float>() == s.run(dx2).to_vector<float>(),
             boost::test_tools::per_element());
  BOOST_TEST(s.run(dw1).to_vector<float>() == s.run(dw2).to_vector<float>(),
             boost::test_tools::per_element());
  refuses(
      [&] {
        af::nn::conv3d_backprop_input(g.constant(Tensor(DType::float32, Shape{1, 4, 4, 2})), filter,
                                      dy, ones, "VALID");
      },
      "Shape must be rank 5 but is rank 4");
}

// MaxPoolV2 is MaxPool with the window as inputs: unknown static shape unless constant,
// TensorFlow's checks of the window, MaxPoolGradV2 and MaxPoolGradGradV2 for its gradients.
BOOST_AUTO_TEST_CASE(max_pool_v2_family_as_tensorflow, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.constant(vec<float>(iota(50), Shape{1, 5, 5, 2}), "x");
  const i64s window{1, 2, 2, 1};
  const Output y = af::nn::max_pool_v2(x, window, window, "VALID");
  const Output k = g.placeholder(DType::int32, PartialShape::unknown(), "k");
  const Output st = g.placeholder(DType::int32, PartialShape::unknown(), "st");
  const Output open = af::nn::max_pool_v2(x, k, st, "VALID", "NHWC", "open");
  const Output dx = af::gradients({y}, {x})[0];
  const Output ksize = y.op().node()->inputs()[1], strides = y.op().node()->inputs()[2];
  const Output dy = g.constant(vec<float>(iota(8, 1.0f), Shape{1, 2, 2, 2}), "dy");
  const Output grad = af::nn::max_pool_grad_v2(x, y, dy, ksize, strides, "VALID");
  const auto grad_grads = af::gradients({grad}, {x, dy});
  const Output ddx = g.constant(vec<float>(iota(50, 100.0f), Shape{1, 5, 5, 2}), "ddx");
  const Output grad_grad = af::nn::max_pool_grad_grad_v2(x, y, ddx, ksize, strides, "VALID");
  const Output nchw = af::nn::max_pool_v2(x, window, window, "VALID", "NCHW", "nchw");
  const Output yp = g.placeholder(DType::float32, PartialShape::unknown(), "yp");
  const Output open_grad = af::nn::max_pool_grad_v2(x, yp, dy, k, st, "VALID", "NHWC", "og");
  BOOST_TEST(y.name() == "MaxPoolV2:0");
  BOOST_TEST(ksize.name() == "MaxPoolV2/ksize:0");
  BOOST_TEST(y.shape() == PartialShape({1, 2, 2, 2}));
  BOOST_TEST(!open.shape().rank_known());
  BOOST_TEST(dx.op().type() == "MaxPoolGradV2");
  BOOST_TEST(grad_grads[1].op().type() == "MaxPoolGradGradV2");
  BOOST_TEST(grad_grad.shape() == PartialShape({1, 2, 2, 2}));
  af::Session s(g);
  BOOST_TEST(s.run(y).to_vector<float>() == (floats{12, 13, 16, 17, 32, 33, 36, 37}),
             boost::test_tools::per_element());
  std::vector<float> expected_dx(50, 0.0f);
  for (int at : {12, 13, 16, 17, 32, 33, 36, 37}) expected_dx[static_cast<std::size_t>(at)] = 1;
  BOOST_TEST(s.run(dx).to_vector<float>() == expected_dx, boost::test_tools::per_element());
  BOOST_TEST(s.run(grad_grads[1]).to_vector<float>() == (floats{1, 1, 1, 1, 1, 1, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(
      s.run(grad_grad).to_vector<float>() == (floats{112, 113, 116, 117, 132, 133, 136, 137}),
      boost::test_tools::per_element());
  auto pool = [&](i32s ksize_value, i32s strides_value) {
    s.run(open, {{k, vec<std::int32_t>(ksize_value)}, {st, vec<std::int32_t>(strides_value)}});
  };
  BOOST_TEST(
      s.run(open, {{k, vec<std::int32_t>({1, 2, 2, 1})}, {st, vec<std::int32_t>({1, 2, 2, 1})}})
              .to_vector<float>() == (floats{12, 13, 16, 17, 32, 33, 36, 37}),
      boost::test_tools::per_element());
  // The kernel kept for one window is not used for another, nor lost for the first.
  const Tensor whole =
      s.run(open, {{k, vec<std::int32_t>({1, 5, 5, 1})}, {st, vec<std::int32_t>({1, 1, 1, 1})}});
  BOOST_TEST(whole.shape() == Shape({1, 1, 1, 2}));
  BOOST_TEST(whole.to_vector<float>() == (floats{48, 49}), boost::test_tools::per_element());
  BOOST_TEST(
      s.run(open, {{k, vec<std::int32_t>({1, 2, 2, 1})}, {st, vec<std::int32_t>({1, 2, 2, 1})}})
              .to_vector<float>() == (floats{12, 13, 16, 17, 32, 33, 36, 37}),
      boost::test_tools::per_element());
  refuses(
      [&] {
        pool({1, 2, 2}, {1, 2, 2, 1});
      },
      "Sliding window ksize field must specify 4 dimensions");
  refuses(
      [&] {
        pool({1, 2, 2, 1}, {1, 2, 2});
      },
      "Sliding window stride field must specify 4 dimensions");
  refuses([&] { pool({1, 0, 2, 1}, {1, 2, 2, 1}); }, "Sliding window ksize must be positive.");
  refuses<af::UnimplementedError>(
      [&] {
        pool({2, 2, 2, 1}, {1, 2, 2, 1});
      },
      "Pooling is not yet supported on the batch dimension.");
  refuses<af::UnimplementedError>(
      [&] {
        pool({1, 2, 1, 2}, {1, 1, 1, 2});
      },
      "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
  refuses([&] { s.run(nchw); }, "MaxPoolingV2Op only supports NHWC or NCHW_VECT_C. Got: NCHW");
  auto pool_grad = [&](Tensor orig_output, i32s ksize_value) {
    s.run(open_grad, {{yp, std::move(orig_output)},
                      {k, vec<std::int32_t>(ksize_value)},
                      {st, vec<std::int32_t>({1, 2, 2, 1})}});
  };
  refuses(
      [&] {
        pool_grad(Tensor(DType::float32, Shape{1, 3, 2, 2}), {1, 2, 2, 1});
      },
      "Expected orig_output shape to be [1,2,2,2], but got [1,3,2,2]");
  refuses(
      [&] {
        pool_grad(Tensor(DType::float32, Shape{2, 2, 2}), {1, 2, 2, 1});
      },
      "tensor_out must be 4-dimensional");
  refuses<af::UnimplementedError>(
      [&] {
        pool_grad(Tensor(DType::float32, Shape{1, 2, 2, 2}), {1, 2, 2, 2});
      },
      "MaxPoolingGrad is not yet supported on the depth dimension.");
  refuses(
      [&] {
        af::nn::max_pool_v2(x, i64s{1, 2, 2}, window, "VALID");
      },
      "Dimension must be 4 but is 3");
  refuses(
      [&] {
        af::nn::max_pool_v2(x, i64s{1, 7, 2, 1}, window, "VALID");
      },
      "Negative dimension size caused by subtracting 7 from 5");
  refuses<af::NotFoundError>([&] { af::gradients({grad_grad}, {ddx}); },
                             "No gradient defined for operation");
}

BOOST_AUTO_TEST_SUITE_END()
