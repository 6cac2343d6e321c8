// The kernels TensorFlow 2.21 registers for the newer dtypes, against TensorFlow:
// tests/data/tf_dtypes (scripts/peers/make_dtype_fixtures.py) is a GraphDef of complex64 and
// complex128 MatMul, BatchMatMulV2 with adjoints, trigonometric and hyperbolic functions,
// Pow, Sign, comparisons, Select, Where, scans, Einsum, BiasAdd, EuclideanNorm, segment
// reductions and scatters; of the 8- to 64-bit integers through arithmetic that wraps
// around, comparisons, reductions, segment reductions, scatters, searches, bitwise ops,
// pools, resizes and DecodeRaw; and of float16 and bfloat16 through the kernels of training
// (convolutions, pools, batch normalisation, activation gradients, the softmax losses,
// segment reductions), images (resizes, crops, colours, boxes, transforms), LSTM cells and
// Philox random values, with TensorFlow's values and gradients; training.pb, one optimizer
// step, AssignAdd/AssignSub and the variable scatters on variables of those types. Then
// what TensorFlow refuses, refused alike, and the float kernels' errors for float16.
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/nn_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <complex>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "op_fixture.hpp"
#include "op_test_util.hpp"
#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_dtypes";

}  // namespace

BOOST_AUTO_TEST_SUITE(dtype_kernels_conformance_test)

// Every case's outputs and TensorFlow's own gradient graphs, imported and run here, give
// TensorFlow's values (integers bit for bit, float16 and bfloat16 within their rounding).
BOOST_AUTO_TEST_CASE(imported_cases_give_tensorflows_values, *boost::unit_test::timeout(300)) {
  af::test::fixture::Fixture m(dir);
  BOOST_TEST(af::test::fixture::check_imported_cases(m) > 600u);
}

// af::gradients through the imported forward ops (complex MatMul and BatchMatMulV2 with
// adjoints, Tan ... Atanh, Pow; float16 convolutions, pools and losses) equals tf.gradients.
BOOST_AUTO_TEST_CASE(gradients_built_here_equal_tensorflows, *boost::unit_test::timeout(300)) {
  af::test::fixture::Fixture m(dir);
  BOOST_TEST(af::test::fixture::check_built_gradients(m) > 100u);
}

// One step of ApplyAdam, ApplyGradientDescent, ApplyMomentum, ApplyFtrl, ApplyAdadelta,
// ApplyAddSign, SparseApply{Adagrad,Momentum,Ftrl,FtrlV2,Adadelta,AdagradV2} and the variable
// scatters on float16 and bfloat16 reference variables of TensorFlow's graph (training.pb),
// and the scatters of int8, uint16 and complex64 ones, give TensorFlow's variables and slots:
// bit for bit, but for Adam, GradientDescent, Momentum and the sparse Adagrad and Momentum
// in float16 and bfloat16, which compute in float and round once where TensorFlow rounds
// each step (within a rounding or two of the type).
BOOST_AUTO_TEST_CASE(float16_and_bfloat16_variables_train_as_tensorflows,
                     *boost::unit_test::timeout(120)) {
  std::ifstream in(dir / "training.json");
  const nlohmann::json ref = nlohmann::json::parse(in);
  af::Graph g;
  af::import_graph_def(g, af::read_graph_def((dir / "training.pb").string()), {.name = ""});
  af::Session sess(g);
  sess.run(g.operation(ref["init"].get<std::string>()));
  std::vector<Output> updates, reads;
  for (const auto& n : ref["updates"]) updates.push_back(g.output(n.get<std::string>()));
  for (const auto& n : ref["reads"]) reads.push_back(g.output(n.get<std::string>()));
  std::vector<Tensor> got;  // one run per update, in TensorFlow's order
  for (const Output& u : updates) got.push_back(sess.run(u));
  for (Tensor& t : sess.run(reads)) got.push_back(std::move(t));
  BOOST_REQUIRE_EQUAL(got.size(), ref["values"].size());
  // The updates (and slots) that compute in float and round once; the others (Ftrl, FtrlV2,
  // Adadelta, AdagradV2, AddSign, dense and sparse) round every step as TensorFlow's Eigen
  // half does, so they are TensorFlow's to the bit.
  const std::set<std::string> rounded_once = {
      "adam", "sgd", "momentum", "sparse_adagrad", "sparse_momentum", "m", "v", "acc", "emb_acc"};
  std::vector<std::string> names;
  for (const auto& n : ref["updates"]) names.push_back(n.get<std::string>());
  for (const auto& n : ref["reads"]) names.push_back(n.get<std::string>());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::string dtype = ref["values"][i]["dtype"].get<std::string>();
    std::string base = names[i].substr(0, names[i].rfind('_'));  // "read_m", "adam"
    if (base.rfind("read_", 0) == 0) base = base.substr(5);
    af::test::fixture::Tolerance tol;
    tol.exact = (dtype != "float16" && dtype != "bfloat16") || !rounded_once.contains(base);
    // Two units in the last place of the values and of the terms (up to 2) an update
    // subtracts: Ftrl's sqrt(accum + g^2) - sqrt(accum) cancels, and TensorFlow rounds each
    // step of it to the type.
    tol.relative = dtype == "float16" ? 2e-3 : 1.6e-2;
    tol.absolute = dtype == "float16" ? 2e-3 : 1.6e-2;
    BOOST_TEST_CONTEXT("value " << i) { af::test::fixture::check(got[i], ref["values"][i], tol); }
  }
}

// A float16 Conv2D runs the float kernel: its errors are the float kernel's.
BOOST_AUTO_TEST_CASE(float16_kernels_fail_as_the_float_kernels, *boost::unit_test::timeout(60)) {
  auto message = [](DType t) -> std::string {
    af::Graph g;
    const Output x = g.placeholder(t, af::PartialShape::unknown(), "x");
    const Output f = g.placeholder(t, af::PartialShape::unknown(), "f");
    const Output y = af::nn::conv2d(x, f, {1, 1, 1, 1}, "SAME", "conv");
    af::Session sess(g);
    try {
      sess.run(y, {{x, Tensor(t, Shape{1, 4, 4, 2})}, {f, Tensor(t, Shape{3, 3, 3, 1})}});
    } catch (const af::Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string f32 = message(DType::float32);
  BOOST_TEST(f32.find("input and filter must have the same depth: 2 vs 3") != std::string::npos);
  BOOST_TEST(message(DType::float16) == f32);
  BOOST_TEST(message(DType::bfloat16) == f32);
  // The float kernel's result, rounded: ones through a 1x1 filter of 0.5 and 0.25.
  auto check = [](auto tag) {
    using H = decltype(tag);
    af::Graph h;
    const Output ones =
        h.constant(Tensor::from_vector(std::vector<H>(8, H(1.0f)), Shape{1, 2, 2, 2}));
    const Output w =
        h.constant(Tensor::from_vector(std::vector<H>{H(0.5f), H(0.25f)}, Shape{1, 1, 2, 1}));
    af::Session s(h);
    const Tensor out = s.run(af::nn::conv2d(ones, w, {1, 1, 1, 1}, "VALID"));
    BOOST_TEST(out.dtype() == af::dtype_of_v<H>);
    BOOST_TEST(out.shape() == Shape({1, 2, 2, 1}));
    BOOST_TEST(static_cast<float>(out.data<H>()[3]) == 0.75f);
  };
  check(af::half_t{});
  check(af::bfloat16_t{});
}

// TensorFlow's OpDefs refuse types when the graph is built, with their lists: uint16 Add
// (AddV2 takes it); where the OpDef allows a type its CPU kernels lack (uint8 MatMul, complex
// ClipByValue) the session refuses the node, as TensorFlow's.
BOOST_AUTO_TEST_CASE(types_tensorflow_refuses_are_refused, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output u16 = g.constant(Tensor(DType::uint16, Shape{2}));
  af::test::refused_while_building(
      [&] {
        g.create_op("Add", {u16, u16}, {{"T", DType::uint16}}, "add");
      },
      "Value for attr 'T' of uint16 is not in the list of allowed values: bfloat16, half, float, "
      "double, uint8, int8, int16, int32, int64, complex64, complex128, string for 'add'");
  const Tensor sum =
      af::Session(g).run(g.create_op("AddV2", {u16, u16}, {{"T", DType::uint16}}, "y").output(0));
  BOOST_TEST(sum.dtype() == DType::uint16);
  // (The session places the whole graph, as TensorFlow's: one graph per refused node.)
  for (auto [op, dtype] :
       {std::pair{"MatMul", DType::uint8}, std::pair{"ClipByValue", DType::complex64}}) {
    af::Graph h;
    const Output x = h.constant(Tensor(dtype, Shape{2, 2}));
    std::vector<Output> in{x, x};
    if (std::string(op) == "ClipByValue") in.push_back(x);
    const Output y = h.create_op(op, in, {{"T", dtype}}, "y").output(0);
    af::Session sess(h);
    af::test::fails_with(sess, y, "No OpKernel was registered to support Op '" + std::string(op));
  }
  // AddV2 of uint16 wraps around.
  af::Graph h;
  const Output a = h.constant(Tensor::from_vector(std::vector<std::uint16_t>{65535, 2}));
  const Tensor wrapped =
      af::Session(h).run(h.create_op("AddV2", {a, a}, {{"T", DType::uint16}}, "y").output(0));
  BOOST_TEST(wrapped.data<std::uint16_t>()[0] == 65534);
  BOOST_TEST(wrapped.data<std::uint16_t>()[1] == 4);
}

// SplitV takes int8 size_splits, as TensorFlow's kernel (whose shape function aborts on a
// constant int8 list, so its graph cannot be a fixture): fed, and as a Const here.
BOOST_AUTO_TEST_CASE(split_v_takes_int8_sizes, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output x = g.constant(Tensor::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}), "x");
  const Output fed = g.placeholder(DType::int8, af::PartialShape{3}, "sizes");
  const Output sizes =
      g.constant(Tensor::from_vector(std::vector<std::int8_t>{1, -1, 2}), "const_sizes");
  const Output axis = g.constant(Tensor(std::int32_t{0}), "axis");
  for (const Output& s : {fed, sizes}) {
    const af::Operation split =
        g.create_op("SplitV", {x, s, axis},
                    {{"T", DType::float32}, {"Tlen", DType::int8}, {"num_split", std::int64_t{3}}});
    af::Session sess(g);
    const std::vector<Tensor> parts =
        sess.run({split.output(0), split.output(1), split.output(2)},
                 {{fed, Tensor::from_vector(std::vector<std::int8_t>{1, -1, 2})}});
    BOOST_TEST(parts[0].num_elements() == 1);
    BOOST_TEST(parts[1].num_elements() == 3);
    BOOST_TEST(parts[1].data<float>()[2] == 3.0f);
    BOOST_TEST(parts[2].data<float>()[1] == 5.0f);
  }
}

// The first Conv3DBackpropInput/Filter and AdjustContrast, which TensorFlow 2 builds no graph
// of: float16 as the V2 ops compute it, and int8 and int16 images as int32 ones.
BOOST_AUTO_TEST_CASE(first_conv3d_backprops_and_adjust_contrast_take_tensorflows_types,
                     *boost::unit_test::timeout(60)) {
  af::Graph g;
  std::vector<af::half_t> vol, flt, dy;
  for (int i = 0; i < 54; ++i) vol.emplace_back(static_cast<float>((i * 7) % 11) / 8.0f - 0.5f);
  for (int i = 0; i < 32; ++i) flt.emplace_back(static_cast<float>((i * 5) % 9) / 16.0f - 0.25f);
  for (int i = 0; i < 16; ++i) dy.emplace_back(static_cast<float>((i * 3) % 7) / 4.0f - 0.75f);
  const Output v = g.constant(Tensor::from_vector(vol, Shape{1, 3, 3, 3, 2}));
  const Output f = g.constant(Tensor::from_vector(flt, Shape{2, 2, 2, 2, 2}));
  const Output d = g.constant(Tensor::from_vector(dy, Shape{1, 2, 2, 2, 2}));
  const af::AttrMap attrs{{"T", DType::float16},
                          {"strides", std::vector<std::int64_t>{1, 1, 1, 1, 1}},
                          {"padding", std::string("VALID")}};
  af::AttrMap input_attrs = attrs;
  input_attrs["Tshape"] = DType::int32;
  const Output in_v1 = g.create_op("Conv3DBackpropInput", {v, f, d}, attrs).output(0);
  const Output in_v2 =
      g.create_op("Conv3DBackpropInputV2",
                  {g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 3, 3, 3, 2})), f, d},
                  input_attrs)
          .output(0);
  const Output filter_v1 = g.create_op("Conv3DBackpropFilter", {v, f, d}, attrs).output(0);
  const Output filter_v2 =
      g.create_op("Conv3DBackpropFilterV2",
                  {v, g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 2, 2, 2, 2})), d},
                  attrs)
          .output(0);
  std::vector<Output> contrast;
  for (DType t : {DType::int8, DType::int16, DType::int32}) {
    Tensor pixels(t, Shape{1, 2, 3, 1});
    const std::vector<double> values{9, -3, 7, 0, 5, 12};
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (t == DType::int8) pixels.data<std::int8_t>()[i] = static_cast<std::int8_t>(values[i]);
      if (t == DType::int16) pixels.data<std::int16_t>()[i] = static_cast<std::int16_t>(values[i]);
      if (t == DType::int32) pixels.data<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
    }
    contrast.push_back(g.create_op("AdjustContrast",
                                   {g.constant(pixels), g.constant(Tensor(1.5f)),
                                    g.constant(Tensor(-4.0f)), g.constant(Tensor(10.0f))},
                                   {{"T", t}})
                           .output(0));
  }
  af::Session sess(g);
  const auto out =
      sess.run({in_v1, in_v2, filter_v1, filter_v2, contrast[0], contrast[1], contrast[2]});
  BOOST_TEST(out[0].dtype() == DType::float16);
  BOOST_TEST(out[0].shape() == out[1].shape());
  BOOST_TEST(std::memcmp(out[0].raw_data(), out[1].raw_data(), out[0].total_bytes()) == 0);
  BOOST_TEST(std::memcmp(out[2].raw_data(), out[3].raw_data(), out[2].total_bytes()) == 0);
  BOOST_TEST(out[4].to_vector<float>() == out[6].to_vector<float>(),
             boost::test_tools::per_element());
  BOOST_TEST(out[5].to_vector<float>() == out[6].to_vector<float>(),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
