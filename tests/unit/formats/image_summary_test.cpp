// tf.compat.v1.summary.image and .text in graphs: ImageSummary's PNGs, tags and scaling
// (summary_image_op.cc) and TensorSummaryV2 with the text plugin (summary_tensor_op.cc).
#include <zlib.h>

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "actorflow/actorflow.hpp"
#include "actorflow/tf/summary.pb.h"

namespace {

tensorflow::Summary run_summary(af::Graph& g, const af::Output& op) {
  af::Session sess(g);
  tensorflow::Summary s;
  BOOST_REQUIRE(s.ParseFromString(sess.run(op).scalar<std::string>()));
  return s;
}

std::uint32_t u32(const std::string& b, std::size_t at) {
  return (std::uint32_t(std::uint8_t(b[at])) << 24) |
         (std::uint32_t(std::uint8_t(b[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(b[at + 2])) << 8) | std::uint32_t(std::uint8_t(b[at + 3]));
}

// The pixels of a PNG written by encode_png (one IDAT, filter None on every row), checking
// the signature, the IHDR fields and every chunk's CRC on the way.
std::vector<std::uint8_t> decode(const std::string& png, int height, int width, int channels) {
  BOOST_REQUIRE(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0u);
  std::string idat;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const std::uint32_t n = u32(png, at);
    const std::string type = png.substr(at + 4, 4);
    const auto crc = ::crc32(0L, reinterpret_cast<const Bytef*>(png.data() + at + 4), n + 4);
    BOOST_TEST(u32(png, at + 8 + n) == crc);
    if (type == "IHDR") {
      BOOST_TEST(u32(png, at + 8) == std::uint32_t(width));
      BOOST_TEST(u32(png, at + 12) == std::uint32_t(height));
      BOOST_TEST(int(png[at + 16]) == 8);
    }
    if (type == "IDAT") idat = png.substr(at + 8, n);
    at += 12 + n;
  }
  const std::size_t row = std::size_t(width) * std::size_t(channels);
  std::string raw((row + 1) * std::size_t(height), '\0');
  uLongf size = raw.size();
  BOOST_REQUIRE(uncompress(reinterpret_cast<Bytef*>(raw.data()), &size,
                           reinterpret_cast<const Bytef*>(idat.data()), idat.size()) == Z_OK);
  BOOST_REQUIRE(size == raw.size());
  std::vector<std::uint8_t> pixels;
  for (int y = 0; y < height; ++y) {
    BOOST_TEST(raw[std::size_t(y) * (row + 1)] == '\0');
    for (std::size_t i = 0; i < row; ++i)
      pixels.push_back(std::uint8_t(raw[std::size_t(y) * (row + 1) + 1 + i]));
  }
  return pixels;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(image_summary_test)

BOOST_AUTO_TEST_CASE(uint8_images_are_stored_as_they_are_up_to_max_outputs,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  std::vector<std::uint8_t> values;
  for (int i = 0; i < 3 * 2 * 3 * 3; ++i) values.push_back(std::uint8_t(i * 5));
  auto images = g.constant(af::Tensor::from_vector(values, af::Shape{3, 2, 3, 3}));
  auto op = af::summary::image("batch", images, 2);
  BOOST_TEST(op.node()->type() == "ImageSummary");
  BOOST_TEST(op.node()->name() == "batch");
  BOOST_TEST(g.contains("batch/tag"));
  const auto s = run_summary(g, op);
  BOOST_REQUIRE(s.value_size() == 2);  // max_outputs of the 3
  BOOST_TEST(s.value(0).tag() == "batch/image/0");
  BOOST_TEST(s.value(1).tag() == "batch/image/1");
  BOOST_TEST(s.value(1).image().height() == 2);
  BOOST_TEST(s.value(1).image().width() == 3);
  BOOST_TEST(s.value(1).image().colorspace() == 3);
  const auto second = decode(s.value(1).image().encoded_image_string(), 2, 3, 3);
  BOOST_TEST(second == std::vector<std::uint8_t>(values.begin() + 18, values.begin() + 36),
             boost::test_tools::per_element());
  // One image: the tag has no index.
  af::Graph one;
  auto single = af::summary::image(
      "x", one.constant(af::Tensor::from_vector(values, af::Shape{3, 2, 3, 3})), 1);
  BOOST_TEST(run_summary(one, single).value(0).tag() == "x/image");
}

BOOST_AUTO_TEST_CASE(float_images_are_scaled_as_tensorflow_scales_them,
                     *boost::unit_test::timeout(30)) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // No negative value: 255 / max. A negative value: 127 / max|v| around 128. A non-finite
  // pixel: bad_color (red). Gray images take bad_color's first channel.
  struct Case {
    std::vector<float> in;
    std::vector<std::uint8_t> out;
  };
  const std::vector<Case> cases = {
      {{0.0f, 0.5f, 1.0f, 2.0f}, {0, 63, 127, 255}},
      {{-1.0f, 0.0f, 0.5f, 1.0f}, {1, 128, 191, 255}},
      {{0.0f, nan, 1.0f, 4.0f}, {0, 255, 63, 255}},
      {{0.0f, 0.0f, 0.0f, 0.0f}, {0, 0, 0, 0}},
  };
  for (const auto& c : cases) {
    af::Graph g;
    auto op =
        af::summary::image("img", g.constant(af::Tensor::from_vector(c.in, af::Shape{1, 2, 2, 1})));
    const auto s = run_summary(g, op);
    BOOST_REQUIRE(s.value_size() == 1);
    BOOST_TEST(s.value(0).tag() == "img/image/0");
    BOOST_TEST(decode(s.value(0).image().encoded_image_string(), 2, 2, 1) == c.out,
               boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_CASE(image_and_text_summaries_refuse_what_tensorflow_refuses,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto flat = af::summary::image(
      "flat", g.constant(af::Tensor::from_vector<float>({1, 2, 3}, af::Shape{1, 3})));
  af::Session sess(g);
  try {
    sess.run(flat);
    BOOST_FAIL("a 2-D image ran");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find(
                   "Tensor must be 4-D with last dim 1, 3, or 4, not [1,3]") != std::string::npos);
  }
  BOOST_CHECK_THROW(af::summary::text("n", g.constant(af::Tensor(1.0f))), af::InvalidArgumentError);
}

BOOST_AUTO_TEST_CASE(a_text_summary_is_a_string_tensor_for_the_text_plugin,
                     *boost::unit_test::timeout(30)) {
  af::Graph g;
  auto op =
      af::summary::text("notes", g.constant(af::Tensor::from_vector<std::string>({"a", "b"})));
  BOOST_TEST(op.node()->type() == "TensorSummaryV2");
  BOOST_TEST(g.contains("notes/serialized_summary_metadata"));
  const auto s = run_summary(g, op);
  BOOST_REQUIRE(s.value_size() == 1);
  BOOST_TEST(s.value(0).tag() == "notes");
  BOOST_TEST(s.value(0).metadata().plugin_data().plugin_name() == "text");
  BOOST_TEST(s.value(0).tensor().string_val_size() == 2);
  BOOST_TEST(s.value(0).tensor().string_val(1) == "b");
  BOOST_TEST(s.value(0).tensor().tensor_shape().dim(0).size() == 2);
  // It joins the summaries collection, so merge_all takes it.
  BOOST_TEST(af::summary::merge_all(g).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
