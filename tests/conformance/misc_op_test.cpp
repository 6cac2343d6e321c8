// Single ops of TensorFlow's Python that the other fixtures do not hold: DecodeJSONExample
// (tf.io.decode_json_example), EncodeJpegVariableQuality (tf.image.adjust_jpeg_quality's
// encoder), the first Concat (the dimension first, in GraphDefs before TensorFlow 1.0), the
// first Gather (axis 0) and Reverse (a bool per dimension), with their gradients.
// tests/data/tf_misc_ops (scripts/peers/make_misc_op_fixtures.py) is TensorFlow's graph of them
// with the values (binary strings as web-safe base64) and errors a sequence of session runs gave,
// imported and run here to them; the builders make the same ops.
#include <actorflow/actorflow.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "session_steps.hpp"

namespace {

using af::DType;
using af::Output;
using af::Shape;
using af::Tensor;

// Flattens nested JSON lists into `flat`, recording the shape on the way down.
void flatten(const nlohmann::json& v, std::size_t depth, std::vector<std::int64_t>* shape,
             std::vector<nlohmann::json>* flat) {
  if (!v.is_array()) {
    flat->push_back(v);
    return;
  }
  if (shape->size() == depth) shape->push_back(static_cast<std::int64_t>(v.size()));
  for (const auto& x : v) flatten(x, depth + 1, shape, flat);
}

// A nested list of numbers or bools as a tensor of `dtype` (float32, int32 or bool).
Tensor nested(const nlohmann::json& v, DType dtype) {
  std::vector<std::int64_t> dims;
  std::vector<nlohmann::json> flat;
  flatten(v, 0, &dims, &flat);
  Tensor t(dtype, Shape(dims));
  for (std::size_t i = 0; i < flat.size(); ++i) {
    if (dtype == DType::float32) t.data<float>()[i] = flat[i].get<float>();
    if (dtype == DType::int32) t.data<std::int32_t>()[i] = flat[i].get<std::int32_t>();
    if (dtype == DType::boolean) t.data<bool>()[i] = flat[i].get<bool>();
  }
  return t;
}

// A feed of make_misc_op_fixtures.py: JSON strings, an image ([h, w, c] uint8), a quality,
// a concat dimension, the float matrices cx and cy, Gather's params gp and indices gi, or
// Reverse's tensor rx and dims rd.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
  if (name == "gp" || name == "rx") return nested(v, DType::float32);
  if (name == "gi") return nested(v, DType::int32);
  if (name == "rd") return nested(v, DType::boolean);
  if (name == "dim") return Tensor(v.get<std::int32_t>());
  if (name == "cx" || name == "cy") {
    std::vector<float> flat;
    for (const auto& row : v)
      for (const auto& x : row) flat.push_back(x.get<float>());
    return Tensor::from_vector(
        flat, Shape{static_cast<std::int64_t>(v.size()), static_cast<std::int64_t>(v[0].size())});
  }
  if (name == "json")
    return Tensor::from_vector(v.get<std::vector<std::string>>(),
                               Shape{static_cast<std::int64_t>(v.size())});
  if (name == "quality") {
    if (v.is_array()) return Tensor::from_vector(v.get<std::vector<std::int32_t>>());
    return Tensor(v.get<std::int32_t>());
  }
  std::vector<std::uint8_t> flat;
  for (const auto& row : v)
    for (const auto& pixel : row)
      for (const auto& c : pixel) flat.push_back(c.get<std::uint8_t>());
  return Tensor::from_vector(
      flat, Shape{static_cast<std::int64_t>(v.size()), static_cast<std::int64_t>(v[0].size()),
                  static_cast<std::int64_t>(v[0][0].size())});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(misc_op_test)

// TensorFlow's graph: JSON Examples to the bytes TensorFlow wrote and back through
// ParseExampleV2, JPEGs at several qualities to TensorFlow's bytes, Concat along each
// dimension with its gradients, and the ops' errors.
BOOST_AUTO_TEST_CASE(tensorflows_misc_ops_give_its_values, *boost::unit_test::timeout(60)) {
  af::test::replay_fixture(
      "tf_misc_ops", "graph.pb", "reference.json",
      {"DecodeJSONExample", "EncodeJpegVariableQuality", "Concat", "Gather", "Reverse"}, feed_of);
}

// actorflow's gradients of the first Gather and Reverse (TensorFlow's _GatherGrad, an
// IndexedSlices over the gathered rows, and _ReverseGrad), taken here on the ops.
BOOST_AUTO_TEST_CASE(gather_and_reverse_gradients, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output params =
      g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{3, 2}));
  const Output indices = g.constant(Tensor::from_vector(std::vector<std::int32_t>{2, 0, 2}));
  const Output gathered =
      g.create_op("Gather", {params, indices},
                  {{"Tparams", DType::float32}, {"Tindices", DType::int32}}, "gather")
          .output(0);
  BOOST_TEST(gathered.shape().to_string() == af::PartialShape({3, 2}).to_string());
  const Output w =
      g.constant(Tensor::from_vector(std::vector<float>{0, 1, 2, 3, 4, 5}, Shape{3, 2}));
  const Output x =
      g.constant(Tensor::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, Shape{2, 3}));
  Tensor both(DType::boolean, Shape{2});
  both.data<bool>()[0] = both.data<bool>()[1] = true;
  const Output dims = g.constant(both);
  const Output reversed =
      g.create_op("Reverse", {x, dims}, {{"T", DType::float32}}, "reverse").output(0);
  const Output loss =
      af::reduce_sum(gathered * w) + af::reduce_sum(reversed * af::reshape(w, {2, 3}));
  const auto grads = af::gradients({loss}, {params, x});
  // The gather's gradient is IndexedSlices, as tf.gradients returns it.
  BOOST_TEST(af::gradients_with_slices({loss}, {params})[0].is_slices());
  af::Session sess(g);
  // Rows 2, 0, 2 gathered: row 0 gets w's row 1, row 2 its rows 0 and 2, row 1 nothing.
  BOOST_TEST(sess.run(grads[0]).to_vector<float>() == (std::vector<float>{2, 3, 0, 0, 4, 6}),
             boost::test_tools::per_element());
  BOOST_TEST(sess.run(grads[1]).to_vector<float>() == (std::vector<float>{5, 4, 3, 2, 1, 0}),
             boost::test_tools::per_element());
}

// The builders: a JSON Example decodes to the Example a parse reads back, and a JPEG encoded
// at a quality decodes to the image's shape.
BOOST_AUTO_TEST_CASE(builders_decode_json_and_encode_jpeg, *boost::unit_test::timeout(60)) {
  af::Graph g;
  const Output json = g.constant(Tensor::from_vector(
      std::vector<std::string>{
          R"({"features": {"feature": {"x": {"floatList": {"value": [2.5]}}}}})"},
      Shape{1}));
  const Output binary = af::decode_json_example(json);
  BOOST_TEST(binary.shape().to_string() == af::PartialShape({1}).to_string());
  const Output image =
      g.constant(Tensor::from_vector(std::vector<std::uint8_t>(4 * 6 * 3, 200), Shape{4, 6, 3}));
  const Output jpeg = af::image::encode_jpeg_variable_quality(image, g.constant(Tensor(50)));
  const Output pixels = af::image::decode_jpeg(jpeg);
  af::Session sess(g);
  // Example{features{feature{"x": Feature{float_list{value: 2.5}}}}}, as TensorFlow's kernel
  // writes it (protobuf's JsonToBinaryStream does not pack the float): 0a 0e (features) 0a 0c
  // (the map entry) 0a 01 'x' (key) 12 07 (value) 12 05 (float_list) 0d 2.5f.
  const std::string want("\x0a\x0e\x0a\x0c\x0a\x01x\x12\x07\x12\x05\x0d\x00\x00\x20\x40", 16);
  BOOST_TEST(sess.run(binary).to_vector<std::string>() == std::vector<std::string>{want});
  BOOST_TEST(sess.run(pixels).shape() == (Shape{4, 6, 3}));
}

BOOST_AUTO_TEST_SUITE_END()
