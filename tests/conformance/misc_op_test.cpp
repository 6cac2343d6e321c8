// Single ops of TensorFlow's Python that the other fixtures do not hold: DecodeJSONExample
// (tf.io.decode_json_example), EncodeJpegVariableQuality (tf.image.adjust_jpeg_quality's
// encoder) and the first Concat (the dimension first, in GraphDefs before TensorFlow 1.0) with
// its gradient. tests/data/tf_misc_ops (scripts/peers/make_misc_op_fixtures.py) is TensorFlow's
// graph of them with the values (binary strings as web-safe base64) and errors a sequence of
// session runs gave, imported and run here to them; the builders make the same ops.
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

// A feed of make_misc_op_fixtures.py: JSON strings, an image ([h, w, c] uint8), a quality,
// a concat dimension or the float matrices cx and cy.
Tensor feed_of(const std::string& name, const nlohmann::json& v) {
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
  af::test::replay_fixture("tf_misc_ops", "graph.pb", "reference.json",
                           {"DecodeJSONExample", "EncodeJpegVariableQuality", "Concat"}, feed_of);
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
