// The element-wise, activation, scan, split, reverse, set, logical-reduction and fused batch
// norm ops, the batched products, GatherNd, ScatterNd, TensorScatter*, TopKV2 and InTopKV2
// against TensorFlow: tests/data/tf_ops/graph.pb is a GraphDef tf.compat.v1 built of
// each op on constant inputs (edge values: NaN, infinities, signed zeros, halves, huge values) with
// tf.gradients of a weighted sum of each differentiable case, and reference.json what
// TensorFlow 2.21 computed for every output and gradient (scripts/peers/make_op_fixtures.py).
// The import runs TensorFlow's forward and gradient ops here; af::gradients, built here on
// the imported forward ops, must give TensorFlow's gradients too. Builders and errors follow.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "op_fixture.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Tensor;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_ops";

}  // namespace

BOOST_AUTO_TEST_SUITE(op_coverage_conformance_test)

// TensorFlow's forward ops and its gradient graphs (SoftplusGrad, EluGrad, Relu6Grad, ...),
// imported and run here, give TensorFlow's values.
BOOST_AUTO_TEST_CASE(imported_ops_and_their_tensorflow_gradients_give_tensorflows_values,
                     *boost::unit_test::timeout(300)) {
  af::test::fixture::Fixture m(dir);
  BOOST_TEST(af::test::fixture::check_imported_cases(m) > 200u);
}

// af::gradients of each case's loss, built here through the imported forward ops, equals
// tf.gradients: the same None where TensorFlow has no gradient (Ceil, Round, Rint), zeros
// for the slices a Split's loss does not read.
BOOST_AUTO_TEST_CASE(gradients_built_here_equal_tensorflows, *boost::unit_test::timeout(300)) {
  af::test::fixture::Fixture m(dir);
  BOOST_TEST(af::test::fixture::check_built_gradients(m) > 80u);
}

// The builders lay the ops out as TensorFlow's Python does and infer their shapes.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output x =
      g.constant(Tensor::from_vector(std::vector<float>(24, 1.0f), af::Shape{4, 6}), "x");
  const auto parts = af::split(x, 3, 1);
  BOOST_REQUIRE_EQUAL(parts.size(), 3u);
  BOOST_TEST(parts[2].name() == "split:2");
  BOOST_TEST(g.operation("split/split_dim").type() == "Const");
  BOOST_TEST(parts[0].shape() == af::PartialShape({4, 2}));
  const auto sized = af::split(x, std::vector<std::int64_t>{1, -1, 2}, -1);
  BOOST_REQUIRE_EQUAL(sized.size(), 3u);
  BOOST_TEST(sized[0].node()->type() == "SplitV");
  BOOST_TEST(sized[1].shape() == af::PartialShape({4, 3}));
  const Output r = af::reverse(x, {0});
  BOOST_TEST(r.name() == "ReverseV2:0");
  BOOST_TEST(g.operation("ReverseV2/axis").type() == "Const");
  const Output c = af::cumsum(x, 1, true, true);
  BOOST_TEST(c.name() == "Cumsum:0");
  BOOST_TEST(*c.node()->def().attr<bool>("reverse"));
  const auto [out, idx] =
      af::setdiff1d(g.constant(Tensor::from_vector(std::vector<int>{1, 2})),
                    g.constant(Tensor::from_vector(std::vector<int>{2})), DType::int64);
  BOOST_TEST(out.node()->type() == "ListDiff");
  BOOST_TEST(idx.dtype() == DType::int64);
  const Output b = g.constant(Tensor::from_vector(std::vector<bool>{true, false}));
  const Output any = af::reduce_any(b, std::vector<std::int64_t>{0}, true);
  BOOST_TEST(any.name() == "Any:0");
  BOOST_TEST(any.node()->def().attrs.count("T") == 0u);  // Any and All have no T attribute
  BOOST_TEST(af::is_nan(x).dtype() == DType::boolean);
  BOOST_TEST(af::relu6(x).name() == "Relu6:0");
  BOOST_TEST(af::atan2(x, x).name() == "Atan2:0");
  BOOST_TEST(af::truncatediv(af::cast(x, DType::int32), af::cast(x, DType::int32)).name() ==
             "truncatediv:0");
  af::Session sess(g);
  const auto v = sess.run({sized[1], af::selu(x), af::softplus(x)});
  BOOST_TEST(v[0].shape() == af::Shape({4, 3}));
  BOOST_TEST(v[1].data<float>()[0] == 1.0507009873554805f);
  BOOST_TEST(v[2].data<float>()[0] == std::log1p(std::exp(1.0f)),
             boost::test_tools::tolerance(1e-6f));
}

// Bad input gets TensorFlow's errors, while building where the shapes say so and when
// running otherwise.
BOOST_AUTO_TEST_CASE(bad_input_gets_tensorflows_errors) {
  af::Graph g;
  const Output x =
      g.constant(Tensor::from_vector(std::vector<float>(8, 1.0f), af::Shape{2, 4}), "x");
  BOOST_CHECK_EXCEPTION(af::split(x, 3, 1), af::InvalidArgumentError, [](const auto& e) {
    return std::string(e.what()).find("Dimension size must be evenly divisible by 3 but is 4") !=
           std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(af::split(x, std::vector<std::int64_t>{1, 1}, 1), af::InvalidArgumentError,
                        [](const auto& e) {
                          return std::string(e.what()).find("Determined shape must either match") !=
                                 std::string::npos;
                        });
  BOOST_CHECK_THROW(af::reduce_all(x), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::reverse(x, {0, -2}), af::InvalidArgumentError);
  BOOST_CHECK_THROW(af::softplus(af::cast(x, DType::int32)), af::InvalidArgumentError);
  const Output ints = g.placeholder(DType::int32, af::PartialShape({-1}), "ints");
  const Output q = af::truncatediv(ints, ints);
  const Output axes = g.placeholder(DType::int32, af::PartialShape({-1}), "axes");
  const Output rev =
      g.create_op("ReverseV2", {x, axes}, {{"T", DType::float32}, {"Tidx", DType::int32}}, "rev")
          .output(0);
  af::Session sess(g);
  auto fails_with = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    try {
      sess.run(y, feeds);
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  fails_with(q, {{ints, Tensor::from_vector(std::vector<int>{1, 0})}}, "Integer division by zero");
  fails_with(rev, {{axes, Tensor::from_vector(std::vector<int>{1, -1})}},
             "axis 1 specified more than once.");
  fails_with(rev, {{axes, Tensor::from_vector(std::vector<int>{2})}},
             "'axis'[0] = 2 is out of valid range [0, 1");
}

// nn::fused_batch_norm builds TensorFlow's FusedBatchNormV3, refuses channel counts that do
// not match while building, and running fails with TensorFlow's messages for run-time
// shapes; an empty batch gives NaN statistics.
BOOST_AUTO_TEST_CASE(fused_batch_norm_builds_and_refuses_as_tensorflow) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, af::PartialShape({-1, 3, 2, 4}), "x");
  const Output scale = g.constant(Tensor::from_vector(std::vector<float>{1, 1, 1, 1}), "scale");
  const Output offset = g.constant(Tensor::from_vector(std::vector<float>{0, 0, 0, 0}), "offset");
  const auto bn = af::nn::fused_batch_norm(x, scale, offset, {}, {}, 1e-9f);
  BOOST_TEST(bn.y.name() == "FusedBatchNormV3:0");
  BOOST_TEST(bn.mean.shape() == af::PartialShape({4}));
  BOOST_TEST(*bn.y.node()->def().attr<float>("epsilon") == 1.001e-5f);  // raised as TensorFlow
  const Output three = g.constant(Tensor::from_vector(std::vector<float>{1, 1, 1}), "three");
  BOOST_CHECK_THROW(af::nn::fused_batch_norm(x, three, offset), af::InvalidArgumentError);
  // Inference reads the statistics: empty ones do not match the 4 channels.
  BOOST_CHECK_THROW(af::nn::fused_batch_norm(x, scale, offset, {}, {}, 0.001f, "NHWC", false),
                    af::InvalidArgumentError);
  const Output any_x = g.placeholder(DType::float32, af::PartialShape::unknown_of_rank(4), "any_x");
  const Output any_scale = g.placeholder(DType::float32, af::PartialShape({-1}), "any_scale");
  const auto open = af::nn::fused_batch_norm(any_x, any_scale, offset);
  af::Session sess(g);
  try {
    sess.run(open.y, {{any_x, Tensor(DType::float32, af::Shape{1, 1, 1, 4})},
                      {any_scale, Tensor::from_vector(std::vector<float>{1, 1, 1})}});
    BOOST_ERROR("a scale of 3 for 4 channels ran");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("scale must have the same number of elements as the "
                                          "channels of x, got 3 and 4") != std::string::npos,
               e.what());
  }
  const auto empty =
      sess.run({bn.y, bn.mean}, {{x, Tensor(DType::float32, af::Shape{0, 3, 2, 4})}});
  BOOST_TEST(empty[0].num_elements() == 0);
  BOOST_TEST(std::isnan(empty[1].data<float>()[0]));
}

// The batched product, the N-dimensional gathers and scatters and top-k are laid out as
// TensorFlow's Python lays them out, infer their shapes, and compute.
BOOST_AUTO_TEST_CASE(products_indexing_and_top_k_build_as_tensorflow) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, af::PartialShape({2, 1, 3, 4}), "x");
  const Output y = g.placeholder(DType::float32, af::PartialShape({3, 4, 5}), "y");
  const Output p = af::batch_matmul(x, y);
  BOOST_TEST(p.name() == "MatMul:0");
  BOOST_TEST(p.node()->type() == "BatchMatMulV2");
  BOOST_TEST(p.shape() == af::PartialShape({2, 3, 3, 5}));
  BOOST_TEST(af::batch_matmul(x, x, false, true).shape() == af::PartialShape({2, 1, 3, 3}));
  const Output params =
      g.constant(Tensor::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}, af::Shape{3, 2}), "p");
  const Output rows = g.constant(Tensor::from_vector(std::vector<int>{2, 0}, af::Shape{2, 1}));
  const Output picked = af::gather_nd(params, rows);
  BOOST_TEST(picked.name() == "GatherNd:0");
  BOOST_TEST(picked.shape() == af::PartialShape({2, 2}));
  const Output shape = g.constant(Tensor::from_vector(std::vector<int>{4, 2}));
  const Output scattered = af::scatter_nd(rows, picked, shape);
  BOOST_TEST(scattered.shape() == af::PartialShape({4, 2}));
  const Output updated = af::tensor_scatter_sub(params, rows, picked);
  BOOST_TEST(updated.name() == "TensorScatterSub:0");
  const auto top = af::nn::top_k(params, 1);
  BOOST_TEST(top.values.name() == "TopKV2:0");
  BOOST_TEST(top.indices.name() == "TopKV2:1");
  BOOST_TEST(g.operation("TopKV2/k").type() == "Const");
  BOOST_TEST(top.indices.shape() == af::PartialShape({3, 1}));
  const Output targets = g.constant(Tensor::from_vector(std::vector<int>{1, 0, 1}));
  const Output in = af::nn::in_top_k(params, targets, 1);
  BOOST_TEST(in.name() == "in_top_k/InTopKV2:0");
  BOOST_TEST(g.operation("in_top_k/InTopKV2/k").type() == "Const");
  BOOST_TEST(in.shape() == af::PartialShape({3}));
  // x[b, 0] (3x4) times y[c] (4x5), every b and c: the batches broadcast.
  std::vector<float> xv(24), yv(60);
  for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i % 7) - 3.0f;
  for (std::size_t i = 0; i < yv.size(); ++i) yv[i] = static_cast<float>(i % 5) * 0.5f - 1.0f;
  af::Session sess(g);
  const auto v = sess.run({p, scattered, updated, top.indices, in},
                          {{x, Tensor::from_vector(xv, af::Shape{2, 1, 3, 4})},
                           {y, Tensor::from_vector(yv, af::Shape{3, 4, 5})}});
  for (int b = 0; b < 2; ++b)
    for (int c = 0; c < 3; ++c)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
          float want = 0;
          for (int k = 0; k < 4; ++k) want += xv[b * 12 + i * 4 + k] * yv[c * 20 + k * 5 + j];
          BOOST_TEST(v[0].data<float>()[((b * 3 + c) * 3 + i) * 5 + j] == want);
        }
  BOOST_TEST(v[1].to_vector<float>() == (std::vector<float>{0, 1, 0, 0, 4, 5, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[2].to_vector<float>() == (std::vector<float>{0, 0, 2, 3, 0, 0}),
             boost::test_tools::per_element());
  BOOST_TEST(v[3].to_vector<std::int32_t>() == (std::vector<std::int32_t>{1, 1, 1}),
             boost::test_tools::per_element());
  BOOST_TEST(v[4].to_vector<bool>() == (std::vector<bool>{true, false, true}),
             boost::test_tools::per_element());
}

// Indices out of range, shapes that do not fit and k past the row fail with TensorFlow's
// messages, the op named.
BOOST_AUTO_TEST_CASE(products_indexing_and_top_k_refuse_as_tensorflow) {
  af::Graph g;
  const Output m = g.placeholder(DType::float32, af::PartialShape({2, 3, 4}), "m");
  BOOST_CHECK_EXCEPTION(af::batch_matmul(m, m), af::InvalidArgumentError, [](const auto& e) {
    return std::string(e.what()).find("Dimensions must be equal, but are 4 and 3") !=
           std::string::npos;
  });
  const Output a = g.placeholder(DType::float32, af::PartialShape::unknown(), "a");
  const Output b = g.placeholder(DType::float32, af::PartialShape::unknown(), "b");
  const Output prod = af::batch_matmul(a, b);
  const Output params = g.placeholder(DType::float32, af::PartialShape::unknown(), "params");
  const Output idx = g.placeholder(DType::int32, af::PartialShape::unknown(), "idx");
  const Output gathered = af::gather_nd(params, idx, "g");
  const Output upd = g.placeholder(DType::float32, af::PartialShape::unknown(), "upd");
  const Output shape = g.placeholder(DType::int32, af::PartialShape({-1}), "shape");
  const Output scattered = af::scatter_nd(idx, upd, shape, "s");
  const Output tensor_added = af::tensor_scatter_add(params, idx, upd, "t");
  const Output k = g.placeholder(DType::int32, af::PartialShape({}), "k");
  const auto top = af::nn::top_k(params, k);
  const Output targets = g.placeholder(DType::int32, af::PartialShape::unknown(), "targets");
  const Output in = af::nn::in_top_k(params, targets, 1);
  af::Session sess(g);
  auto fails_with = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    try {
      sess.run(y, feeds);
      BOOST_ERROR("no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  const Tensor p32 = Tensor::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}, af::Shape{3, 2});
  fails_with(prod,
             {{a, Tensor(DType::float32, af::Shape{2, 3, 4})},
              {b, Tensor(DType::float32, af::Shape{3, 4, 5})}},
             "In[0] and In[1] must have compatible batch dimensions: [2,3,4] vs. [3,4,5]");
  fails_with(prod,
             {{a, Tensor(DType::float32, af::Shape{2, 3, 4})},
              {b, Tensor(DType::float32, af::Shape{2, 5, 6})}},
             "Matrix size-incompatible: In[0]: [2,3,4], In[1]: [2,5,6]");
  fails_with(
      gathered,
      {{params, p32}, {idx, Tensor::from_vector(std::vector<int>{0, 1, 4, 0}, af::Shape{2, 2})}},
      "indices[1] = [4, 0] does not index into param shape [3,2], node name: g");
  fails_with(scattered,
             {{idx, Tensor::from_vector(std::vector<int>{1, 7}, af::Shape{2, 1})},
              {upd, Tensor::from_vector(std::vector<float>{1, 2})},
              {shape, Tensor::from_vector(std::vector<int>{4})}},
             "indices[1] = [7] does not index into shape [4]");
  fails_with(tensor_added,
             {{params, p32},
              {idx, Tensor::from_vector(std::vector<int>{1}, af::Shape{1, 1})},
              {upd, Tensor(DType::float32, af::Shape{1, 3})}},
             "The inner 1 dimensions of output.shape=[3,2] must match the inner 1 dimensions of "
             "updates.shape=[1,3]");
  fails_with(top.values, {{params, p32}, {k, Tensor(std::int32_t{3})}},
             "input must have at least k columns. Had 2, needed 3");
  fails_with(top.values, {{params, p32}, {k, Tensor(std::int32_t{-1})}}, "Need k >= 0, got -1");
  fails_with(in, {{params, p32}, {targets, Tensor::from_vector(std::vector<int>{0, 1})}},
             "First dimension of predictions 3 must match length of targets 2");
}

// Several rows out of range: the CPU kernels (GatherNd's too) report the last one. Index
// depths past their functors fail with their texts (the scatters' still says 5) only when
// there is something to do. Rows longer than a scatter's output rank leave an empty suffix
// in the shape function (TensorFlow's Subshape clamps); the kernels then refuse them.
BOOST_AUTO_TEST_CASE(nd_gathers_and_scatters_report_as_tensorflow) {
  af::Graph g;
  const Output params = g.placeholder(DType::float32, af::PartialShape::unknown(), "params");
  const Output idx = g.placeholder(DType::int32, af::PartialShape::unknown(), "idx");
  const Output upd = g.placeholder(DType::float32, af::PartialShape::unknown(), "upd");
  const Output shape = g.placeholder(DType::int32, af::PartialShape({-1}), "shape");
  const Output gathered = af::gather_nd(params, idx, "g");
  const Output scattered = af::scatter_nd(idx, upd, shape, "s");
  std::vector<Output> tensor_scatters = {af::tensor_scatter_update(params, idx, upd),
                                         af::tensor_scatter_add(params, idx, upd),
                                         af::tensor_scatter_sub(params, idx, upd)};
  for (const char* type : {"TensorScatterMax", "TensorScatterMin"})
    tensor_scatters.push_back(
        g.create_op(type, {params, idx, upd}, {{"T", DType::float32}, {"Tindices", DType::int32}})
            .output(0));
  af::Session sess(g);
  auto fails_with = [&](const Output& y, af::FeedDict feeds, const std::string& message) {
    try {
      sess.run(y, feeds);
      BOOST_ERROR(y.name() << ": no error; expected " << message);
    } catch (const af::InvalidArgumentError& e) {
      BOOST_TEST(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  };
  const Tensor p32(DType::float32, af::Shape{3, 2});
  const Tensor rows = Tensor::from_vector(std::vector<int>{5, 0, 4, 1}, af::Shape{4, 1});
  const Tensor batched = Tensor::from_vector(std::vector<int>{5, 0, 4, 1}, af::Shape{2, 2, 1});
  const Tensor u42(DType::float32, af::Shape{4, 2});
  fails_with(gathered, {{params, p32}, {idx, rows}},
             "indices[2] = [4] does not index into param shape [3,2], node name: g");
  fails_with(gathered, {{params, p32}, {idx, batched}},
             "indices[1,0] = [4] does not index into param shape [3,2]");
  fails_with(scattered,
             {{idx, rows}, {upd, u42}, {shape, Tensor::from_vector(std::vector<int>{3, 2})}},
             "indices[2] = [4] does not index into shape [3,2]");
  for (const Output& y : tensor_scatters) {
    fails_with(y, {{params, p32}, {idx, rows}, {upd, u42}},
               "indices[2] = [4] does not index into shape [3,2]");
    fails_with(y,
               {{params, p32}, {idx, batched}, {upd, Tensor(DType::float32, af::Shape{2, 2, 2})}},
               "indices[1,0] = [4] does not index into shape [3,2]");
  }
  // Depth 8 on [1]*8: GatherNd's limit is 7 and says so; the scatters' says 5.
  const std::vector<std::int64_t> ones8(8, 1);
  const Tensor p8(DType::float32, af::Shape(ones8));
  const Tensor i8(DType::int32, af::Shape{1, 8});
  const Tensor u1(DType::float32, af::Shape{1});
  fails_with(gathered, {{params, p8}, {idx, i8}},
             "Only indices.shape[-1] values between 1 and 7 are currently supported.  Requested "
             "rank: 8");
  const std::string five =
      "Only indices.shape[-1] values between 1 and 5 are currently supported.  Requested rank: ";
  fails_with(scattered,
             {{idx, i8}, {upd, u1}, {shape, Tensor::from_vector(std::vector<int>(8, 1))}},
             five + "8");
  for (const Output& y : tensor_scatters)
    fails_with(y, {{params, p8}, {idx, i8}, {upd, u1}}, five + "8");
  // ... even with no rows, while the output has elements; rows of length 0 too.
  fails_with(tensor_scatters[1],
             {{params, p8},
              {idx, Tensor(DType::int32, af::Shape{0, 8})},
              {upd, Tensor(DType::float32, af::Shape{0})}},
             five + "8");
  fails_with(scattered,
             {{idx, Tensor(DType::int32, af::Shape{0, 0})},
              {upd, Tensor(DType::float32, af::Shape{0, 3})},
              {shape, Tensor::from_vector(std::vector<int>{3})}},
             five + "0");
  // No rows to gather, or an empty output: no depth check.
  std::vector<std::int64_t> empty8 = ones8;
  empty8[0] = 0;
  const auto quiet =
      sess.run({gathered, tensor_scatters[0]}, {{params, Tensor(DType::float32, af::Shape(empty8))},
                                                {idx, Tensor(DType::int32, af::Shape{0, 8})},
                                                {upd, Tensor(DType::float32, af::Shape{0})}});
  BOOST_TEST(quiet[0].num_elements() == 0);
  BOOST_TEST(quiet[1].shape() == af::Shape(empty8));
  fails_with(gathered, {{params, Tensor(DType::float32, af::Shape(empty8))}, {idx, i8}},
             "Requested more than 0 entries, but params is empty.  Params shape: "
             "[0,1,1,1,1,1,1,1]");
  // Rows of 3 into a [3,2] output: an empty suffix, which updates [2] fits at inference.
  const Output long_rows = g.constant(Tensor(DType::int32, af::Shape{2, 3}), "long_rows");
  const Output out_shape = g.constant(Tensor::from_vector(std::vector<int>{3, 2}), "out_shape");
  const Output u2 = g.placeholder(DType::float32, af::PartialShape({2}), "u2");
  const Output fits = af::scatter_nd(long_rows, u2, out_shape, "fits");
  BOOST_TEST(fits.shape() == af::PartialShape({3, 2}));
  const Output t32 = g.placeholder(DType::float32, af::PartialShape({3, 2}), "t32");
  const Output fits_too = af::tensor_scatter_update(t32, long_rows, u2, "fits_too");
  BOOST_TEST(fits_too.shape() == af::PartialShape({3, 2}));
  af::Session sess2(g);
  const Tensor two(DType::float32, af::Shape{2});
  try {
    sess2.run(fits, {{u2, two}});
    BOOST_ERROR("fits ran");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(
        std::string(e.what()).find("Dimensions [3,2) of input[shape=[3,2]] must match "
                                   "dimensions [1,1) of updates[shape=[2]]") != std::string::npos,
        e.what());
  }
  try {
    sess2.run(fits_too, {{u2, two}, {t32, p32}});
    BOOST_ERROR("fits_too ran");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("Inner dimensions of output shape must match inner "
                                          "dimensions of updates shape. Output: [3,2] updates: "
                                          "[2]") != std::string::npos,
               e.what());
  }
  // Updates [2,2] keep a suffix [2] the empty one cannot merge with. ScatterNd fails in the
  // pass before `shape`'s value is read, so its output prints as [?,?].
  const Output u22 = g.placeholder(DType::float32, af::PartialShape({2, 2}), "u22");
  BOOST_CHECK_EXCEPTION(
      af::scatter_nd(long_rows, u22, out_shape), af::InvalidArgumentError, [](const auto& e) {
        return std::string(e.what()).find(
                   "Dimensions [3,2) of input[shape=[?,?]] = [] must match dimensions [1,2) of "
                   "updates[shape=[2,2]] = [2]: Shapes must be equal rank, but are 0 and 1") !=
               std::string::npos;
      });
  BOOST_CHECK_EXCEPTION(
      af::tensor_scatter_update(t32, long_rows, u22), af::InvalidArgumentError, [](const auto& e) {
        return std::string(e.what()).find(
                   "Dimensions [3,2) of input[shape=[3,2]] = [] must match dimensions [1,2) of "
                   "updates[shape=[2,2]] = [2]: Shapes must be equal rank, but are 0 and 1") !=
               std::string::npos;
      });
}

BOOST_AUTO_TEST_SUITE_END()
