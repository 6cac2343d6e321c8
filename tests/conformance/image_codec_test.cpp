// The image codec ops against TensorFlow: tests/data/tf_images holds JPEGs and PNGs
// TensorFlow 2.21 encoded (tf.io.encode_jpeg / encode_png) from known pixels, hand-written
// palette, 1-bit, 16-bit and interlaced PNGs, BMPs and GIFs, and reference.json what
// TensorFlow decoded from each with each attr combination, its ExtractJpegShape answers and
// its error messages (scripts/peers/make_image_fixtures.py). Decodes must equal TensorFlow's
// exactly: both run libjpeg-turbo with the same IDCT, upsampling and scaling, and libpng with
// the same transformations. EncodeJpeg must write TensorFlow's bytes; EncodePng's output must
// decode to its input. The colour ops are in the op fixture (scripts/peers/
// op_cases_image_color.py).
#include <actorflow/actorflow.hpp>
#include <actorflow/ops/image_codec_ops.hpp>
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace {

using af::DType;
using af::Output;
using af::Tensor;

const std::filesystem::path dir = std::filesystem::path(ACTORFLOW_TEST_DATA_DIR) / "tf_images";

const nlohmann::json& reference() {
  static const nlohmann::json ref = [] {
    std::ifstream in(dir / "reference.json");
    return nlohmann::json::parse(in);
  }();
  return ref;
}

std::string file_bytes(const std::string& name) {
  if (name.empty()) return {};
  std::ifstream in(dir / name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// TensorFlow's defaults of each decode op's attrs, overridden by the case's.
af::AttrMap decode_attrs(const std::string& op, const nlohmann::json& attrs) {
  af::AttrMap m;
  if (op == "DecodeJpeg" || op == "DecodeAndCropJpeg") {
    m = {{"channels", std::int64_t{0}}, {"ratio", std::int64_t{1}},
         {"fancy_upscaling", true},     {"try_recover_truncated", false},
         {"acceptable_fraction", 1.0f}, {"dct_method", std::string()}};
  } else if (op == "DecodePng") {
    m = {{"channels", std::int64_t{0}}, {"dtype", DType::uint8}};
  } else if (op == "DecodeBmp") {
    m = {{"channels", std::int64_t{0}}};
  } else if (op == "DecodeImage") {
    m = {{"channels", std::int64_t{0}}, {"dtype", DType::uint8}, {"expand_animations", true}};
  } else if (op == "ExtractJpegShape") {
    m = {{"output_type", DType::int32}};
  }
  for (const auto& [key, v] : attrs.items()) {
    if (v.is_boolean())
      m[key] = v.get<bool>();
    else if (v.is_number_integer())
      m[key] = v.get<std::int64_t>();
    else if (v.is_number_float())
      m[key] = v.get<float>();
    else if (key == "dtype")
      m[key] = v.get<std::string>() == "float32" ? DType::float32 : DType::uint8;
    else
      m[key] = v.get<std::string>();
  }
  return m;
}

// The decode op of case `c` on its file's bytes.
Output build_decode(af::Graph& g, const nlohmann::json& c) {
  const std::string op = c["op"].get<std::string>();
  std::vector<Output> inputs = {g.constant(Tensor(file_bytes(c["file"].get<std::string>())))};
  if (c.contains("crop_window"))
    inputs.push_back(
        g.constant(Tensor::from_vector(c["crop_window"].get<std::vector<std::int32_t>>())));
  return g.create_op(op, inputs, decode_attrs(op, c["attrs"]), op).output(0);
}

// A case's name for messages: op, file and attrs.
std::string describe(const nlohmann::json& c) {
  return c["op"].get<std::string>() + "(" + c["file"].get<std::string>() + ", " +
         c["attrs"].dump() + (c.contains("crop_window") ? c["crop_window"].dump() : "") + ")";
}

// `t` equals TensorFlow's `want` (shape, dtype, every value exactly).
void check_equal(const Tensor& t, const nlohmann::json& want) {
  BOOST_TEST(t.shape().dims() == want["shape"].get<std::vector<std::int64_t>>(),
             boost::test_tools::per_element());
  const std::string dtype = want["dtype"].get<std::string>();
  BOOST_TEST(std::string(af::dtype_name(t.dtype())) == dtype);
  const auto& values = want["values"];
  BOOST_REQUIRE_EQUAL(static_cast<std::size_t>(t.num_elements()), values.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    double got = 0;
    if (t.dtype() == DType::uint8)
      got = t.data<std::uint8_t>()[i];
    else if (t.dtype() == DType::float32)
      got = t.data<float>()[i];
    else if (t.dtype() == DType::int32)
      got = t.data<std::int32_t>()[i];
    else
      got = static_cast<double>(t.data<std::int64_t>()[i]);
    if (got != values[i].get<double>() && ++mismatches <= 5)
      BOOST_ERROR("element " << i << ": got " << got << ", TensorFlow " << values[i]);
  }
  BOOST_TEST(mismatches == 0u);
}

// The message of the af::Error running `y` throws ("" when it succeeds).
std::string run_error(af::Graph& g, const Output& y) {
  af::Session s(g);
  try {
    s.run(y);
  } catch (const af::Error& e) {
    return e.what();
  }
  return {};
}

// The source pixels of the fixture named `name` as a uint8 Const.
Output source(af::Graph& g, const std::string& name) {
  const auto& src = reference()["sources"][name];
  const auto values = src["values"].get<std::vector<std::uint8_t>>();
  return g.constant(
      Tensor::from_vector(values, af::Shape(src["shape"].get<std::vector<std::int64_t>>())));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(image_codec_test)

// JPEG (baseline 4:2:0 and 4:4:4, progressive, grayscale; every ratio, both IDCTs, plain and
// fancy upsampling, crops, a truncated file recovered), PNG (1, 2, 3, 4 channels, palette
// with and without tRNS, 1-bit, 16-bit, interlaced; converted to every channel count) and
// BMP (24-bit bottom-up, 32-bit top-down, 8-bit) decode to exactly TensorFlow's pixels, as
// uint8 and as DecodeImage's float32.
BOOST_AUTO_TEST_CASE(decodes_equal_tensorflows_bit_for_bit, *boost::unit_test::timeout(120)) {
  std::size_t checked = 0;
  for (const auto& c : reference()["decodes"]) {
    BOOST_TEST_CONTEXT(describe(c)) {
      af::Graph g;
      const Output y = build_decode(g, c);
      af::Session s(g);
      check_equal(s.run(y), c);
      ++checked;
    }
  }
  BOOST_TEST(checked >= 90u);
}

// Bad contents and attrs fail with TensorFlow's InvalidArgument messages, naming the node:
// "jpeg::Uncompress failed. Invalid JPEG data or crop window.", "Got 12 frames, but animated
// gifs can only be decoded by tf.io.decode_gif or tf.io.decode_image", "Invalid PNG. Failed to
// initialize decoder.", "ratio must be 1, 2, 4, or 8, got 3", "Input is empty.", ...
BOOST_AUTO_TEST_CASE(bad_inputs_fail_with_tensorflows_messages, *boost::unit_test::timeout(60)) {
  std::size_t checked = 0;
  for (const auto& c : reference()["errors"]) {
    BOOST_TEST_CONTEXT(describe(c)) {
      af::Graph g;
      const Output y = build_decode(g, c);
      const std::string message = run_error(g, y);
      BOOST_TEST(message.find(c["message"].get<std::string>()) != std::string::npos, message);
      BOOST_TEST(message.find(c["op"].get<std::string>()) != std::string::npos, message);
      ++checked;
    }
  }
  BOOST_TEST(checked >= 20u);
}

// ExtractJpegShape reads [height, width, components] from the header, as int32 or int64,
// truncated files included.
BOOST_AUTO_TEST_CASE(extract_jpeg_shape_reads_tensorflows_shapes) {
  for (const auto& c : reference()["jpeg_shapes"]) {
    BOOST_TEST_CONTEXT(c["file"] << " " << c["output_type"]) {
      af::Graph g;
      const DType out = c["output_type"] == "int64" ? DType::int64 : DType::int32;
      const Output y = af::image::extract_jpeg_shape(
          g.constant(Tensor(file_bytes(c["file"].get<std::string>()))), out);
      BOOST_TEST(y.shape() == af::PartialShape({3}));
      af::Session s(g);
      const Tensor t = s.run(y);
      BOOST_TEST(t.dtype() == out);
      std::vector<std::int64_t> got;
      for (int i = 0; i < 3; ++i)
        got.push_back(out == DType::int64 ? t.data<std::int64_t>()[i] : t.data<std::int32_t>()[i]);
      BOOST_TEST(got == c["values"].get<std::vector<std::int64_t>>(),
                 boost::test_tools::per_element());
    }
  }
}

// EncodeJpeg writes TensorFlow's bytes for each attr combination (quality, 4:4:4,
// progressive with optimised tables, grayscale, density in cm with XMP metadata): the same
// libjpeg-turbo settings. EncodePng's PNGs decode back to their pixels, and TensorFlow's
// PNGs decode here to the same pixels (byte equality with TensorFlow's zlib is not required).
BOOST_AUTO_TEST_CASE(encoders_write_what_tensorflow_writes, *boost::unit_test::timeout(60)) {
  for (const auto& c : reference()["encodes"]) {
    const std::string op = c["op"].get<std::string>();
    BOOST_TEST_CONTEXT(op << " " << c["file"] << " " << c["attrs"].dump()) {
      af::Graph g;
      const Output pixels = source(g, c["source"].get<std::string>());
      const auto& a = c["attrs"];
      af::Session s(g);
      if (op == "EncodeJpeg") {
        af::image::EncodeJpegOptions o;
        o.format = a.value("format", std::string());
        o.quality = a.value("quality", std::int64_t{95});
        o.progressive = a.value("progressive", false);
        o.optimize_size = a.value("optimize_size", false);
        o.chroma_downsampling = a.value("chroma_downsampling", true);
        o.density_unit = a.value("density_unit", std::string("in"));
        o.x_density = a.value("x_density", std::int64_t{300});
        o.y_density = a.value("y_density", std::int64_t{300});
        o.xmp_metadata = a.value("xmp_metadata", std::string());
        const Output jpeg = af::image::encode_jpeg(pixels, o);
        BOOST_TEST(jpeg.shape() == af::PartialShape(std::vector<std::int64_t>{}));
        const std::string bytes = s.run(jpeg).data<std::string>()[0];
        BOOST_TEST((bytes == file_bytes(c["file"].get<std::string>())),
                   "EncodeJpeg wrote " << bytes.size() << " bytes, TensorFlow "
                                       << file_bytes(c["file"].get<std::string>()).size());
      } else {
        const Output png = af::image::encode_png(pixels, a["compression"].get<std::int64_t>());
        const Output back = af::image::decode_png(png);
        const Output theirs =
            af::image::decode_png(g.constant(Tensor(file_bytes(c["file"].get<std::string>()))));
        const auto out = s.run({back, theirs, pixels, png});
        check_equal(out[0], reference()["sources"][c["source"].get<std::string>()]);
        check_equal(out[1], reference()["sources"][c["source"].get<std::string>()]);
        BOOST_WARN_MESSAGE(
            out[3].data<std::string>()[0] == file_bytes(c["file"].get<std::string>()),
            "EncodePng's bytes differ from TensorFlow's (zlib or libpng version)");
      }
    }
  }
}

// EncodePng encodes each image of a batch: [2, H, W, 3] gives a [2] vector of PNGs.
BOOST_AUTO_TEST_CASE(encode_png_encodes_a_batch) {
  af::Graph g;
  const Output rgb = source(g, "rgb");
  const Output batch = af::stack({rgb, af::reverse(rgb, {0})});
  const Output pngs = af::image::encode_png(batch);
  BOOST_TEST(pngs.shape() == af::PartialShape(std::vector<std::int64_t>{2}));
  af::Session s(g);
  const Tensor t = s.run(pngs);
  BOOST_TEST(t.shape().dims() == reference()["batched_png_shape"].get<std::vector<std::int64_t>>(),
             boost::test_tools::per_element());
  const Output second = af::image::decode_png(g.constant(Tensor(t.data<std::string>()[1])));
  const auto out = s.run({second, af::reverse(rgb, {0})});
  BOOST_TEST(out[0].to_vector<std::uint8_t>() == out[1].to_vector<std::uint8_t>(),
             boost::test_tools::per_element());
}

// The encoders' attr and shape errors are TensorFlow's.
BOOST_AUTO_TEST_CASE(encoders_fail_with_tensorflows_messages) {
  std::map<std::string, std::string> want;
  for (const auto& c : reference()["encode_errors"])
    want[c["case"].get<std::string>()] = c["message"].get<std::string>();
  af::Graph g;
  const Output rgb = source(g, "rgb"), rgba = source(g, "rgba");
  auto expect = [&](const Output& y, const std::string& key) {
    const std::string message = run_error(g, y);
    BOOST_TEST(message.find(want.at(key)) != std::string::npos, key << ": " << message);
  };
  expect(af::image::encode_jpeg(rgba), "EncodeJpeg 4 channels");
  expect(af::image::encode_jpeg(rgb, {.format = "grayscale"}), "EncodeJpeg format");
  expect(af::image::encode_jpeg(rgb, {.quality = 101}), "EncodeJpeg quality");
  expect(af::image::encode_png(
             g.constant(Tensor::from_vector(std::vector<std::uint8_t>(20), af::Shape{2, 2, 5}))),
         "EncodePng 5 channels");
  expect(af::image::encode_png(rgb, 10), "EncodePng compression");
  try {
    af::image::encode_png(
        g.constant(Tensor::from_vector(std::vector<std::uint8_t>(4), af::Shape{2, 2})));
    BOOST_ERROR("a rank-2 image built");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find("Shape must be at least rank 3 but is rank 2") !=
               std::string::npos);
  }
}

// The builders name their ops as TensorFlow's Python and infer TensorFlow's static shapes;
// shapes known to be wrong fail at build time with the shape functions' messages.
BOOST_AUTO_TEST_CASE(builders_name_and_shape_their_ops_as_tensorflow) {
  af::Graph g;
  const Output contents = g.constant(Tensor(file_bytes("rgb420.jpg")), "contents");
  const Output jpeg = af::image::decode_jpeg(contents, {.channels = 3});
  BOOST_TEST(jpeg.name() == "DecodeJpeg:0");
  BOOST_TEST(jpeg.shape() == af::PartialShape({-1, -1, 3}));
  BOOST_TEST(jpeg.dtype() == DType::uint8);
  const Output crop = af::image::decode_and_crop_jpeg(contents, {2, 3, 7, 9});
  BOOST_TEST(crop.name() == "DecodeAndCropJpeg:0");
  BOOST_TEST(g.operation("DecodeAndCropJpeg/crop_window").type() == "Const");
  BOOST_TEST(crop.shape() == af::PartialShape({7, 9, -1}));
  const Output any = af::image::decode_image(contents);
  BOOST_TEST(any.name() == "decode_image/DecodeImage:0");
  BOOST_TEST(!any.shape().rank_known());
  const Output flat = af::image::decode_image(contents, 3, DType::float32, false);
  BOOST_TEST(flat.shape() == af::PartialShape({-1, -1, 3}));
  BOOST_TEST(flat.dtype() == DType::float32);
  BOOST_TEST(af::image::decode_bmp(contents, 4).shape() == af::PartialShape({-1, -1, 4}));
  BOOST_TEST(af::image::decode_png(contents).name() == "DecodePng:0");

  const Output rgb = af::cast(jpeg, DType::float32) / 255.0f;
  BOOST_TEST(af::image::rgb_to_hsv(rgb).name() == "RGBToHSV:0");
  BOOST_TEST(af::image::hsv_to_rgb(rgb).name() == "HSVToRGB:0");
  const Output contrast = af::image::adjust_contrast(rgb, 1.5f);
  BOOST_TEST(contrast.name() == "adjust_contrast/Identity:0");
  BOOST_TEST(g.operation("adjust_contrast").type() == "AdjustContrastv2");
  BOOST_TEST(g.operation("adjust_contrast/contrast_factor").type() == "Const");
  BOOST_TEST(af::image::adjust_hue(rgb, 0.2f).name() == "adjust_hue/Identity:0");
  BOOST_TEST(g.operation("adjust_hue/AdjustHue/delta").type() == "Const");
  BOOST_TEST(af::image::adjust_saturation(rgb, 2.0f).name() == "adjust_saturation/Identity:0");
  BOOST_TEST(g.operation("adjust_saturation/AdjustSaturation").type() == "AdjustSaturation");

  auto build_fails = [](auto&& build, const std::string& message) {
    try {
      build();
    } catch (const af::InvalidArgumentError& e) {
      return std::string(e.what()).find(message) != std::string::npos;
    }
    return false;
  };
  const Output two = g.constant(Tensor::from_vector(std::vector<std::string>{"a", "b"}));
  BOOST_TEST(
      build_fails([&] { af::image::decode_jpeg(two); }, "Shape must be rank 0 but is rank 1"));
  BOOST_TEST(build_fails([&] { af::image::decode_png(contents, -1); },
                         "channels must be non-negative, got -1"));
  BOOST_TEST(build_fails(
      [&] {
        af::image::decode_and_crop_jpeg(
            contents, g.constant(Tensor::from_vector(std::vector<std::int32_t>{1, 2, 3})));
      },
      "Dimension must be 4 but is 3"));
  const Output four = g.constant(Tensor::from_vector(std::vector<float>(8), af::Shape{2, 4}));
  BOOST_TEST(build_fails([&] { af::image::rgb_to_hsv(four); }, "Dimension must be 3 but is 4"));
  BOOST_TEST(build_fails([&] { af::image::adjust_hue(four, 0.1f); },
                         "Shape must be at least rank 3 but is rank 2"));
}

// The colour ops check their inputs when the step runs as TensorFlow's kernels do.
BOOST_AUTO_TEST_CASE(colour_ops_refuse_what_tensorflow_refuses) {
  af::Graph g;
  const Output x = g.placeholder(DType::float32, af::PartialShape::unknown(), "x");
  const Output hsv = af::image::rgb_to_hsv(x);
  const Output hue = af::image::adjust_hue(x, 0.1f);
  af::Session s(g);
  const Tensor four = Tensor::from_vector(std::vector<float>(8), af::Shape{1, 2, 4});
  try {
    s.run(hsv, {{x, four}});
    BOOST_ERROR("RGBToHSV ran on 4 channels");
  } catch (const af::FailedPreconditionError& e) {
    BOOST_TEST(
        std::string(e.what()).find("input must have 3 channels but input only has 4 channels.") !=
        std::string::npos);
  }
  try {
    s.run(hue, {{x, four}});
    BOOST_ERROR("AdjustHue ran on 4 channels");
  } catch (const af::InvalidArgumentError& e) {
    BOOST_TEST(std::string(e.what()).find(
                   "input must have 3 channels but instead has 4 channels.") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
