// The definitions of the image codec ops (DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeBmp,
// DecodeImage, EncodeJpeg, EncodePng, ExtractJpegShape) and the colour ops (RGBToHSV,
// HSVToRGB, AdjustContrastv2, AdjustSaturation, AdjustHue), with TensorFlow's shape functions
// (ops/image_ops.cc: DecodeImageShapeFn, DecodeImageV2ShapeFn, EncodeImageShapeFn,
// BatchedEncodeImageShapeFn, ColorspaceShapeFn), and their builders (tf.io / tf.image).
// Kernels: kernels/src/image_codec_ops.cpp and image_color_ops.cpp; RGBToHSV's gradient:
// ops/src/gradients/image_color_grad.cpp.
#include "actorflow/ops/image_codec_ops.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/detail/cwise_defs.hpp"
#include "actorflow/ops/detail/op_def_types.hpp"
#include "actorflow/ops/detail/shape_util.hpp"
#include "actorflow/ops/graph.hpp"
#include "actorflow/ops/ops.hpp"
#include "standard_ops.hpp"

namespace af {

namespace {

using detail::with_value;

using Index = std::int64_t;
using detail::index_values;
using detail::with_rank;
using detail::with_rank_at_least;

// The channels attr as a dimension: -1 for 0 (as the file), InvalidArgument when negative.
Status channels_dim(const InferenceContext& c, Index* dim) {
  std::int64_t channels = 0;
  if (auto p = c.node.attr<std::int64_t>("channels")) channels = *p;
  if (channels < 0)
    return invalid_argument("channels must be non-negative, got " + std::to_string(channels));
  *dim = channels == 0 ? -1 : channels;
  return {};
}

// The dtype attr of DecodePng / DecodeImage (uint8 where absent). 16-bit decoding is not
// implemented here: uint16 is refused.
Status decode_dtype(const InferenceContext& c, bool allow_float, DType* dtype) {
  *dtype = DType::uint8;
  if (auto p = c.node.attr<DType>("dtype")) *dtype = *p;
  if (*dtype == DType::uint8 || (allow_float && *dtype == DType::float32)) return {};
  return invalid_argument("Value for attr 'dtype' of " + std::string(dtype_name(*dtype)) +
                          " is not in the list of allowed values: " +
                          (allow_float ? "uint8, float (actorflow does not decode uint16)"
                                       : "uint8 (actorflow does not decode uint16)"));
}

// DecodeImageShapeFn (DecodeJpeg, DecodePng, DecodeBmp), DecodeAndCropJpeg's (height and width
// from a constant crop window) and DecodeImageV2ShapeFn (DecodeImage: unknown rank when
// animations expand).
Status infer_decode(InferenceContext& c) {
  const std::string& op = c.node.op;
  const bool crop = op == "DecodeAndCropJpeg";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(crop ? 2 : 1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  Index channels = -1;
  ACTORFLOW_RETURN_IF_ERROR(channels_dim(c, &channels));
  DType dtype = DType::uint8;
  if (op == "DecodePng" || op == "DecodeImage")
    ACTORFLOW_RETURN_IF_ERROR(decode_dtype(c, op == "DecodeImage", &dtype));
  Index height = -1, width = -1;
  if (crop) {
    ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
    const PartialShape& window = c.input_shapes[1];
    ACTORFLOW_RETURN_IF_ERROR(with_rank(window, 1));
    if (window.rank_known()) ACTORFLOW_RETURN_IF_ERROR(with_value(window.dim(0), 4));
    if (const Tensor* value = c.input_values[1]) {
      const std::vector<Index> v = index_values(*value);
      height = v[2];
      width = v[3];
    }
  }
  if (op == "DecodeImage") {
    bool expand = true;
    if (auto p = c.node.attr<bool>("expand_animations")) expand = *p;
    if (expand) {
      c.add_output(dtype, PartialShape::unknown());
      return {};
    }
  }
  c.add_output(dtype, PartialShape{height, width, channels});
  return {};
}

// EncodeImageShapeFn: a rank-3 uint8 image to a scalar string.
// EncodeJpegVariableQuality also takes an int32 quality (its shape checked by the kernel).
Status infer_encode_jpeg(InferenceContext& c) {
  const bool variable_quality = c.node.op == "EncodeJpegVariableQuality";
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(variable_quality ? 2 : 1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::uint8));
  if (variable_quality) ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::int32));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 3));
  c.add_output(DType::string, PartialShape(std::vector<std::int64_t>{}));
  return {};
}

// BatchedEncodeImageShapeFn: `[..., height, width, channels]` to strings of shape `[...]`.
Status infer_encode_png(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(
      cwise::check_allowed_type(c.input_types[0], {DType::uint8}));  // uint16: not in actorflow
  const PartialShape& image = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(image, 3));
  if (!image.rank_known()) {
    c.add_output(DType::string, PartialShape::unknown());
    return {};
  }
  c.add_output(DType::string, PartialShape(std::vector<std::int64_t>(image.dims().begin(),
                                                                     image.dims().end() - 3)));
  return {};
}

// ExtractJpegShape: a vector of 3 of output_type.
Status infer_extract_jpeg_shape(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(0, DType::string));
  ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[0], 0));
  DType out = DType::int32;
  if (auto p = c.node.attr<DType>("output_type")) out = *p;
  ACTORFLOW_RETURN_IF_ERROR(detail::check_index_type(out, "output_type"));
  c.add_output(out, PartialShape{3});
  return {};
}

// ColorspaceShapeFn: rank >= 1, the last dimension 3, the input's shape and type.
Status infer_colorspace(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(1));
  ACTORFLOW_RETURN_IF_ERROR(detail::check_op_def_type(c.input_types[0], c.node.op));
  PartialShape s = c.input_shapes[0];
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(s, 1));
  if (s.rank_known()) {
    ACTORFLOW_RETURN_IF_ERROR(with_value(s.dim(s.rank() - 1), 3));
    std::vector<std::int64_t> dims = s.dims();
    dims.back() = 3;
    s = PartialShape(std::move(dims));
  }
  c.add_output(c.input_types[0], s);
  return {};
}

// AdjustContrastv2 (a scalar factor), AdjustHue and AdjustSaturation:
// UnchangedShapeWithRankAtLeast(images, 3), float32 only (TensorFlow's also take half).
Status infer_adjust(InferenceContext& c) {
  ACTORFLOW_RETURN_IF_ERROR(c.expect_inputs(2));
  ACTORFLOW_RETURN_IF_ERROR(cwise::check_allowed_type(c.input_types[0], {DType::float32}));
  ACTORFLOW_RETURN_IF_ERROR(c.expect_input_type(1, DType::float32));
  if (c.node.op == "AdjustContrastv2") ACTORFLOW_RETURN_IF_ERROR(with_rank(c.input_shapes[1], 0));
  ACTORFLOW_RETURN_IF_ERROR(with_rank_at_least(c.input_shapes[0], 3));
  c.add_output(DType::float32, c.input_shapes[0]);
  return {};
}

std::string op_name(std::string_view name, const char* default_name) {
  return std::string(name.empty() ? default_name : name);
}

}  // namespace

namespace detail {

void register_image_codec_ops(OpRegistry& r) {
  for (const char* type :
       {"DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeBmp", "DecodeImage"})
    r.add({type, infer_decode});
  r.add({"EncodeJpeg", infer_encode_jpeg});
  r.add({"EncodeJpegVariableQuality", infer_encode_jpeg});
  r.add({"EncodePng", infer_encode_png});
  r.add({"ExtractJpegShape", infer_extract_jpeg_shape});
  r.add({"RGBToHSV", infer_colorspace});
  r.add({"HSVToRGB", infer_colorspace});
  for (const char* type : {"AdjustContrastv2", "AdjustHue", "AdjustSaturation"})
    r.add({type, infer_adjust});
}

}  // namespace detail

namespace image {

namespace {

AttrMap jpeg_attrs(const DecodeJpegOptions& o) {
  return {{"channels", std::int64_t{o.channels}},
          {"ratio", std::int64_t{o.ratio}},
          {"fancy_upscaling", o.fancy_upscaling},
          {"try_recover_truncated", o.try_recover_truncated},
          {"acceptable_fraction", o.acceptable_fraction},
          {"dct_method", o.dct_method}};
}

}  // namespace

Output decode_jpeg(const Output& contents, const DecodeJpegOptions& options,
                   std::string_view name) {
  return contents.graph()
      .create_op("DecodeJpeg", {contents}, jpeg_attrs(options), op_name(name, "DecodeJpeg"))
      .output(0);
}

Output decode_and_crop_jpeg(const Output& contents, const Output& crop_window,
                            const DecodeJpegOptions& options, std::string_view name) {
  return contents.graph()
      .create_op("DecodeAndCropJpeg", {contents, crop_window}, jpeg_attrs(options),
                 op_name(name, "DecodeAndCropJpeg"))
      .output(0);
}

Output decode_and_crop_jpeg(const Output& contents, const std::array<std::int32_t, 4>& crop_window,
                            const DecodeJpegOptions& options, std::string_view name) {
  Graph& g = contents.graph();
  const std::string full = g.unique_name(op_name(name, "DecodeAndCropJpeg"));
  Output window;
  {
    auto scope = g.name_scope(full + "/");
    window = g.constant(
        Tensor::from_vector(std::vector<std::int32_t>(crop_window.begin(), crop_window.end())),
        "crop_window");
  }
  return decode_and_crop_jpeg(contents, window, options, full + "/");
}

Output decode_png(const Output& contents, std::int64_t channels, std::string_view name) {
  return contents.graph()
      .create_op("DecodePng", {contents}, {{"channels", channels}, {"dtype", DType::uint8}},
                 op_name(name, "DecodePng"))
      .output(0);
}

Output decode_bmp(const Output& contents, std::int64_t channels, std::string_view name) {
  return contents.graph()
      .create_op("DecodeBmp", {contents}, {{"channels", channels}}, op_name(name, "DecodeBmp"))
      .output(0);
}

Output decode_image(const Output& contents, std::int64_t channels, DType dtype,
                    bool expand_animations, std::string_view name) {
  Graph& g = contents.graph();
  auto scope = g.name_scope(name.empty() ? "decode_image" : name);
  return g
      .create_op(
          "DecodeImage", {contents},
          {{"channels", channels}, {"dtype", dtype}, {"expand_animations", expand_animations}},
          "DecodeImage")
      .output(0);
}

Output encode_jpeg(const Output& image, const EncodeJpegOptions& o, std::string_view name) {
  return image.graph()
      .create_op("EncodeJpeg", {image},
                 {{"format", o.format},
                  {"quality", std::int64_t{o.quality}},
                  {"progressive", o.progressive},
                  {"optimize_size", o.optimize_size},
                  {"chroma_downsampling", o.chroma_downsampling},
                  {"density_unit", o.density_unit},
                  {"x_density", std::int64_t{o.x_density}},
                  {"y_density", std::int64_t{o.y_density}},
                  {"xmp_metadata", o.xmp_metadata}},
                 op_name(name, "EncodeJpeg"))
      .output(0);
}

Output encode_jpeg_variable_quality(const Output& images, const Output& quality,
                                    std::string_view name) {
  return images.graph()
      .create_op("EncodeJpegVariableQuality", {images, quality}, {},
                 op_name(name, "EncodeJpegVariableQuality"))
      .output(0);
}

Output encode_png(const Output& image, std::int64_t compression, std::string_view name) {
  return image.graph()
      .create_op("EncodePng", {image}, {{"compression", compression}, {"T", image.dtype()}},
                 op_name(name, "EncodePng"))
      .output(0);
}

Output extract_jpeg_shape(const Output& contents, DType output_type, std::string_view name) {
  return contents.graph()
      .create_op("ExtractJpegShape", {contents}, {{"output_type", output_type}},
                 op_name(name, "ExtractJpegShape"))
      .output(0);
}

Output rgb_to_hsv(const Output& images, std::string_view name) {
  return images.graph()
      .create_op("RGBToHSV", {images}, {{"T", images.dtype()}}, op_name(name, "RGBToHSV"))
      .output(0);
}

Output hsv_to_rgb(const Output& images, std::string_view name) {
  return images.graph()
      .create_op("HSVToRGB", {images}, {{"T", images.dtype()}}, op_name(name, "HSVToRGB"))
      .output(0);
}

Output adjust_contrast(const Output& images, float contrast_factor, std::string_view name) {
  Graph& g = images.graph();
  // The op takes the scope's own name: "adjust_contrast", its factor
  // "adjust_contrast/contrast_factor", the result "adjust_contrast/Identity".
  const std::string scope_name = g.unique_name(name.empty() ? "adjust_contrast" : name);
  auto scope = g.name_scope(scope_name + "/");
  const Output factor = g.constant(Tensor(contrast_factor), "contrast_factor");
  const Output adjusted =
      g.create_op("AdjustContrastv2", {images, factor}, {{"T", DType::float32}}, scope_name + "/")
          .output(0);
  return identity(adjusted, "Identity");
}

namespace {

// adjust_hue and adjust_saturation: scope "<scope>", op "<scope>/<type>" with its scalar
// "<scope>/<type>/<input>", the result "<scope>/Identity".
Output adjust_hsv(const Output& images, float value, const char* type, const char* input,
                  const char* default_scope, std::string_view name) {
  Graph& g = images.graph();
  auto scope = g.name_scope(name.empty() ? default_scope : name);
  const std::string full = g.unique_name(type);
  Output scalar;
  {
    auto inner = g.name_scope(full + "/");
    scalar = g.constant(Tensor(value), input);
  }
  const Output adjusted =
      g.create_op(type, {images, scalar}, {{"T", DType::float32}}, full + "/").output(0);
  return identity(adjusted, "Identity");
}

}  // namespace

Output adjust_hue(const Output& images, float delta, std::string_view name) {
  return adjust_hsv(images, delta, "AdjustHue", "delta", "adjust_hue", name);
}

Output adjust_saturation(const Output& images, float saturation_factor, std::string_view name) {
  return adjust_hsv(images, saturation_factor, "AdjustSaturation", "scale", "adjust_saturation",
                    name);
}

}  // namespace image

}  // namespace af
