#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "actorflow/ops/graph.hpp"

/// Decoding and encoding images, and their colour adjustments (TensorFlow 1.x's
/// `tf.image.decode_*` / `encode_*`, `rgb_to_hsv`, `adjust_*`; kernels/image/
/// decode_image_op.cc, encode_jpeg_op.cc, encode_png_op.cc, colorspace_op.h, adjust_*_op.cc).
///
/// The decoders take a scalar string and, as TensorFlow's one decode kernel, dispatch on its
/// magic bytes: DecodeJpeg and DecodePng read JPEG and PNG alike (`decode_jpeg` of a PNG file
/// decodes it) but refuse BMP, DecodeBmp reads only BMP, DecodeImage reads all three.
/// JPEGs decode with Debian's libjpeg-turbo and TensorFlow's settings (fast integer IDCT
/// unless `dct_method` is "INTEGER_ACCURATE"), equal to TensorFlow's decodes bit for bit;
/// PNGs with libpng (palettes and tRNS to RGB(A), gray <-> RGB, 1/2/4-bit and interlaced
/// files); GIFs with giflib as TensorFlow's gif_io.cc (see gif_ops.hpp), an animated GIF
/// given to DecodeJpeg or DecodePng failing as TensorFlow's ("Got 12 frames, but animated gifs
/// can only be decoded by tf.io.decode_gif or tf.io.decode_image"). WebP and JPEG XL are
/// unknown formats. uint16 outputs do not exist in actorflow: DecodePng is uint8 only.
///
/// Errors when the step runs (InvalidArgument, the op named): "jpeg::Uncompress failed.
/// Invalid JPEG data or crop window.", "Invalid PNG. Failed to initialize decoder.",
/// "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.",
/// "Input is empty.", "JPEG does not support 4 channels", "`channels` must be 0, 3 or 4 for
/// BMP, but got 1", "Trying to decode PNG format using DecodeBmp op. Use `decode_png` or
/// `decode_image` instead.", "DecodeAndCropJpeg operation can run on JPEG only, but detected
/// PNG.", and at kernel construction "ratio must be 1, 2, 4, or 8, got 3", "dct_method must be
/// one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}". Building fails (InvalidArgumentError)
/// for a non-scalar `contents` ("Shape must be rank 0 but is rank 1"), negative channels
/// ("channels must be non-negative, got -1") or a dtype not allowed. None of these ops is
/// differentiable.
namespace af::image {

/// The attrs of DecodeJpeg and DecodeAndCropJpeg, with TensorFlow's defaults.
struct DecodeJpegOptions {
  std::int64_t channels = 0;           ///< 0: as the file (CMYK becomes RGB), 1 gray, 3 RGB
  std::int64_t ratio = 1;              ///< downscaling while decoding: 1, 2, 4 or 8
  bool fancy_upscaling = true;         ///< smooth chroma upsampling (libjpeg's fancy)
  bool try_recover_truncated = false;  ///< a truncated file's missing lines repeat the last
  /// Below this fraction of lines read, a truncated file fails; missing lines are black.
  float acceptable_fraction = 1.0f;
  std::string dct_method;  ///< "" or "INTEGER_FAST" (TensorFlow's default), "INTEGER_ACCURATE"
};

/// `tf.io.decode_jpeg(contents, ...)`: op DecodeJpeg (default name "DecodeJpeg"), a uint8
/// `[height, width, channels]` (height and width known when the step runs). PNG contents
/// decode too; BMP fails ("Trying to decode BMP format using a wrong op. ..."). Errors: see
/// the namespace.
Output decode_jpeg(const Output& contents, const DecodeJpegOptions& options = {},
                   std::string_view name = {});

/// `tf.image.decode_and_crop_jpeg(contents, crop_window, ...)`: op DecodeAndCropJpeg (default
/// name "DecodeAndCropJpeg"), decoding only the window `crop_window` (int32 `[y, x, height,
/// width]`) of a JPEG with libjpeg-turbo's crop and skip; the output `[height, width,
/// channels]`, known statically when the window is a Const. A window outside the image fails
/// with "jpeg::Uncompress failed. Invalid JPEG data or crop window.", any other format with
/// "DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.".
Output decode_and_crop_jpeg(const Output& contents, const Output& crop_window,
                            const DecodeJpegOptions& options = {}, std::string_view name = {});
/// `decode_and_crop_jpeg` with the window the int32 Const "<op>/crop_window", as Python
/// converts a list.
Output decode_and_crop_jpeg(const Output& contents, const std::array<std::int32_t, 4>& crop_window,
                            const DecodeJpegOptions& options = {}, std::string_view name = {});

/// `tf.io.decode_png(contents, channels)`: op DecodePng (default name "DecodePng", dtype
/// uint8), `[height, width, channels]` with channels 0 (as the file), 1, 3 or 4; 16-bit
/// files keep their high bytes. JPEG contents decode too.
Output decode_png(const Output& contents, std::int64_t channels = 0, std::string_view name = {});

/// `tf.io.decode_bmp(contents, channels)`: op DecodeBmp (default name "DecodeBmp"), an
/// uncompressed 8-, 24- or 32-bit BMP as uint8 `[height, width, channels]` (channels 0, 3 or
/// 4; BGR(A) reordered to RGB(A), alpha 255 where the file has none). Errors: "Incomplete bmp
/// content, ...", "Input size should match (header_size + row_size * abs_height) but they
/// differ by -7", "Number of channels inherent in the image must be 1, 3 or 4, was 2".
Output decode_bmp(const Output& contents, std::int64_t channels = 0, std::string_view name = {});

/// `tf.io.decode_image(contents, channels, dtype, expand_animations=...)`: op DecodeImage
/// ("decode_image/DecodeImage") of any format by its magic bytes, uint8 or float32 (JPEG and
/// BMP samples times 1/255, PNG samples decoded at 16 bits times 1/65535). The static shape is
/// unknown when `expand_animations` (GIFs would be 4-D), else `[?, ?, channels]`.
Output decode_image(const Output& contents, std::int64_t channels = 0, DType dtype = DType::uint8,
                    bool expand_animations = true, std::string_view name = {});

/// The attrs of EncodeJpeg, with TensorFlow's defaults.
struct EncodeJpegOptions {
  std::string format;         ///< "" (by channel count), "grayscale" (1 channel) or "rgb" (3)
  std::int64_t quality = 95;  ///< 0 to 100
  bool progressive = false;
  bool optimize_size = false;       ///< optimised Huffman tables
  bool chroma_downsampling = true;  ///< 4:2:0; false keeps full-resolution chroma
  std::string density_unit = "in";  ///< "in" or "cm"
  std::int64_t x_density = 300, y_density = 300;
  std::string xmp_metadata;  ///< embedded as an XMP APP1 marker when not empty
};

/// `tf.io.encode_jpeg(image, ...)`: op EncodeJpeg (default name "EncodeJpeg"), a uint8
/// `[height, width, 1 or 3]` image as a scalar JPEG string, byte for byte what TensorFlow's
/// libjpeg-turbo writes. Errors: "image must have 1 or 3 channels, got [2,2,4]", "format
/// grayscale expects 1 channels, got [2,2,3]", "quality must be in [0,100], got 101"; a rank
/// other than 3 fails at build time.
Output encode_jpeg(const Output& image, const EncodeJpegOptions& options = {},
                   std::string_view name = {});

/// `gen_image_ops.encode_jpeg_variable_quality(images, quality)` (what
/// `tf.image.adjust_jpeg_quality` encodes with): op EncodeJpegVariableQuality (default name
/// "EncodeJpegVariableQuality"), a uint8 `[height, width, 1 or 3]` image as a scalar JPEG
/// string at the int32 scalar `quality`, every other setting EncodeJpeg's default. Errors:
/// "quality must be scalar: [2]", "quality must be in [0,100], got 101", "image must have 1 or
/// 3 channels, got [2,2,4]".
Output encode_jpeg_variable_quality(const Output& images, const Output& quality,
                                    std::string_view name = {});

/// `tf.io.encode_png(image, compression)`: op EncodePng (default name "EncodePng"), uint8
/// `[..., height, width, channels]` (1 to 4 channels) to PNG strings of shape `[...]`, zlib
/// level `compression` (-1 the default, 0 to 9). Errors: "image must have 1, 2, 3, or 4
/// channels, got 5", "compression should be in [-1,9], got 10".
Output encode_png(const Output& image, std::int64_t compression = -1, std::string_view name = {});

/// `tf.image.extract_jpeg_shape(contents, output_type)`: op ExtractJpegShape (default name
/// "ExtractJpegShape"), `[height, width, components]` of a JPEG's header as int32 or int64,
/// without decoding it. Error: "Invalid JPEG data, size 744".
Output extract_jpeg_shape(const Output& contents, DType output_type = DType::int32,
                          std::string_view name = {});

/// `tf.image.rgb_to_hsv(images)`: op RGBToHSV (default name "RGBToHSV"), float32, float64 or
/// bfloat16 `[..., 3]` RGB to hue, saturation and value, all in [0, 1] for inputs in
/// [0, 1]. Fails with FailedPrecondition "input must have 3 channels but input only has 4
/// channels." (at build time "Dimension must be 3 but is 4" when the shape is known).
/// Gradient: TensorFlow 2's piecewise formula (image_grad.py's _RGBToHSVGrad), built of the
/// same ops.
Output rgb_to_hsv(const Output& images, std::string_view name = {});

/// `tf.image.hsv_to_rgb(images)`: op HSVToRGB (default name "HSVToRGB"), the inverse of
/// `rgb_to_hsv`. Not differentiable (TensorFlow registers it so).
Output hsv_to_rgb(const Output& images, std::string_view name = {});

/// `tf.image.adjust_contrast(images, contrast_factor)` for float32 images: op
/// AdjustContrastv2 named "adjust_contrast" (the factor "adjust_contrast/contrast_factor",
/// the result "adjust_contrast/Identity"): per image and channel, `mean + factor * (x -
/// mean)`, the mean summed in TensorFlow's order. Images of rank >= 3. No gradient (as
/// TensorFlow: tf.gradients raises LookupError).
Output adjust_contrast(const Output& images, float contrast_factor, std::string_view name = {});

/// `tf.image.adjust_hue(images, delta)` for float32 RGB images: op AdjustHue
/// ("adjust_hue/AdjustHue", delta "adjust_hue/AdjustHue/delta", the result
/// "adjust_hue/Identity"): hue rotated by `delta` (in [-1, 1]) turns. Fails with "input must
/// have 3 channels but instead has 4 channels.". No gradient.
Output adjust_hue(const Output& images, float delta, std::string_view name = {});

/// `tf.image.adjust_saturation(images, saturation_factor)` for float32 RGB images: op
/// AdjustSaturation ("adjust_saturation/AdjustSaturation", its scale
/// "adjust_saturation/AdjustSaturation/scale", the result "adjust_saturation/Identity"):
/// saturation times the factor, clamped to [0, 1]. No gradient.
Output adjust_saturation(const Output& images, float saturation_factor, std::string_view name = {});

}  // namespace af::image
