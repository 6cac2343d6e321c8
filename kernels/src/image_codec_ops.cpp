// DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeBmp, DecodeImage, EncodeJpeg, EncodePng and
// ExtractJpegShape: CPU kernels with TensorFlow's checks and messages
// (kernels/image/decode_image_op.cc, encode_jpeg_op.cc, encode_png_op.cc,
// extract_jpeg_shape_op.cc), and DecodeGif. As TensorFlow's DecodeImageV2Op, one kernel
// serves every decode op and dispatches on the contents' magic bytes, so DecodeJpeg reads PNG
// too and the op type only decides the output's rank and which formats are refused (DecodeGif
// gives [1, height, width, 3] for a PNG or JPEG); WebP and JPEG XL count as unknown formats.
// Their definitions are in ops/src/defs/image_codec_ops.cpp and gif_ops.cpp; the codecs in
// image_codec.cpp and gif_codec.cpp.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/kernel.hpp"
#include "gif_codec.hpp"
#include "image_codec.hpp"
#include "kernel_helpers.hpp"
#include "standard_kernels.hpp"

namespace af {

namespace {

namespace codec = detail::image_codec;
using detail::Index;
using detail::node_suffix;
using detail::StatusKernel;

enum class FileFormat { kUnknown, kPng, kJpeg, kGif, kBmp };

// ClassifyFileFormat by magic bytes (WebP and JPEG XL, which actorflow does not read, fall
// through to unknown).
FileFormat classify(std::string_view data) {
  auto starts = [&](std::string_view magic) { return data.substr(0, magic.size()) == magic; };
  if (starts("\xff\xd8\xff")) return FileFormat::kJpeg;
  if (starts(std::string_view("\x89PNG\r\n\x1a\n", 8))) return FileFormat::kPng;
  if (starts("GIF8")) return FileFormat::kGif;
  if (starts("BM")) return FileFormat::kBmp;
  return FileFormat::kUnknown;
}

// Little-endian reads of the BMP header.
std::int32_t read_le32(const std::uint8_t* p) {
  return static_cast<std::int32_t>(
      static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
      (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24));
}
std::int16_t read_le16(const std::uint8_t* p) {
  return static_cast<std::int16_t>(p[0] | (p[1] << 8));
}

// DecodeImageV2Op: DecodeJpeg, DecodeAndCropJpeg, DecodePng, DecodeBmp and DecodeImage.
class DecodeImageOp : public StatusKernel {
 public:
  DecodeImageOp(OpKernelConstruction& c, Status* s) : StatusKernel(c), op_(c.def.op) {
    *s = init(c);
    if (!s->ok()) *s = s->with_context(node_suffix(c.def.name));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& contents = ctx.input(0);
    if (contents.rank() != 0)
      return invalid_argument("`contents` must be scalar but got shape" +
                              contents.shape().to_string());
    const std::string& input = contents.data<std::string>()[0];
    if (input.empty()) return invalid_argument("Input is empty.");
    if (input.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      return invalid_argument("Input contents are too large for int: " +
                              std::to_string(input.size()));
    switch (classify(input)) {
      case FileFormat::kJpeg:
        return decode_jpeg(ctx, input);
      case FileFormat::kPng:
        return decode_png(ctx, input);
      case FileFormat::kGif:
        return decode_gif(ctx, input);
      case FileFormat::kBmp:
        return decode_bmp(ctx, input);
      default:
        return invalid_argument(
            "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.");
    }
  }

 private:
  Status init(OpKernelConstruction& c) {
    if (op_ == "DecodeJpeg" || op_ == "DecodeAndCropJpeg") {
      std::int64_t ratio = 1;
      ACTORFLOW_RETURN_IF_ERROR(c.get_attr("ratio", &ratio));
      if (ratio != 1 && ratio != 2 && ratio != 4 && ratio != 8)
        return invalid_argument("ratio must be 1, 2, 4, or 8, got " + std::to_string(ratio));
      flags_.ratio = static_cast<int>(ratio);
      ACTORFLOW_RETURN_IF_ERROR(c.get_attr("fancy_upscaling", &flags_.fancy_upscaling));
      ACTORFLOW_RETURN_IF_ERROR(
          c.get_attr("try_recover_truncated", &flags_.try_recover_truncated_jpeg));
      ACTORFLOW_RETURN_IF_ERROR(c.get_attr("acceptable_fraction", &flags_.min_acceptable_fraction));
      std::string dct_method;
      ACTORFLOW_RETURN_IF_ERROR(c.get_attr("dct_method", &dct_method));
      if (!dct_method.empty() && dct_method != "INTEGER_FAST" && dct_method != "INTEGER_ACCURATE")
        return invalid_argument(
            "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}");
      // TensorFlow's default is the fast integer IDCT.
      flags_.dct_method = dct_method == "INTEGER_ACCURATE" ? codec::DctMethod::kIntegerAccurate
                                                           : codec::DctMethod::kIntegerFast;
    }
    if (op_ == "DecodePng" || op_ == "DecodeImage") {
      if (!c.get_attr("dtype", &dtype_).ok()) dtype_ = DType::uint8;
      // 16-bit decoding is not implemented: the definitions refuse uint16 before a kernel is
      // made.
      if (op_ == "DecodePng" && dtype_ != DType::uint8)
        return invalid_argument("`dtype` for `DecodePng` must be unit8, unit16 but got: " +
                                std::string(data_type_string(dtype_)));
      if (op_ == "DecodeImage" && dtype_ != DType::uint8 && dtype_ != DType::float32)
        return invalid_argument("`dtype` for `DecodeImage` must be unit8, unit16, float but got: " +
                                std::string(data_type_string(dtype_)));
      if (op_ == "DecodeImage" && !c.get_attr("expand_animations", &expand_animations_).ok())
        expand_animations_ = true;
    }
    if (op_ == "DecodeGif") {  // no channels attr: always RGB
      channels_ = 3;
      return {};
    }
    std::int64_t channels = 0;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("channels", &channels));
    if (channels != 0 && channels != 1 && channels != 3 && channels != 4)
      return invalid_argument("`channels` must be 0, 1, 3 or 4 but got " +
                              std::to_string(channels));
    channels_ = static_cast<int>(channels);
    return {};
  }

  // The shape of one decoded image: DecodeGif's outputs are 4-D, one frame for PNG and JPEG.
  Shape image_shape(Index height, Index width, Index channels) const {
    if (op_ == "DecodeGif") return Shape{1, height, width, channels};
    return Shape{height, width, channels};
  }

  // The uint8 `image` as the output: uint8, or float32 scaled by 1/255 (DecodeImage).
  void emit(OpKernelContext& ctx, const std::vector<std::uint8_t>& image, Index height, Index width,
            Index channels) {
    emit(ctx, image, image_shape(height, width, channels));
  }
  void emit(OpKernelContext& ctx, const std::vector<std::uint8_t>& image, const Shape& shape) {
    if (dtype_ == DType::uint8) {
      Tensor& out = ctx.allocate_output_for_overwrite(0, DType::uint8, shape);
      if (!image.empty()) std::memcpy(out.raw_data(), image.data(), image.size());
      return;
    }
    Tensor& out = ctx.allocate_output_for_overwrite(0, DType::float32, shape);
    const float scale = static_cast<float>(1. / std::numeric_limits<std::uint8_t>::max());
    float* o = out.data<float>();
    for (std::size_t i = 0; i < image.size(); ++i) o[i] = static_cast<float>(image[i]) * scale;
  }

  Status decode_jpeg(OpKernelContext& ctx, std::string_view input) {
    if (channels_ != 0 && channels_ != 1 && channels_ != 3)
      return invalid_argument("JPEG does not support 4 channels");
    codec::UncompressFlags flags = flags_;
    flags.components = channels_;
    if (op_ == "DecodeAndCropJpeg") {
      flags.crop = true;
      const Tensor& crop_window = ctx.input(1);
      if (crop_window.rank() != 1)
        return invalid_argument("crop_window must be 1-D, got shape " +
                                crop_window.shape().to_string());
      if (crop_window.shape().dim(0) != 4)
        return invalid_argument("crop_size must have four elements " +
                                crop_window.shape().to_string());
      const std::int32_t* w = crop_window.data<std::int32_t>();
      flags.crop_y = w[0];
      flags.crop_x = w[1];
      flags.crop_height = w[2];
      flags.crop_width = w[3];
    } else if (op_ == "DecodeBmp") {
      return invalid_argument(
          "Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or "
          "`decode_image` instead.");
    }
    codec::DecodedImage image;
    if (!codec::uncompress_jpeg(input, flags, &image))
      return invalid_argument("jpeg::Uncompress failed. Invalid JPEG data or crop window.");
    emit(ctx, image.pixels, image.height, image.width, image.components);
    return {};
  }

  Status decode_png(OpKernelContext& ctx, std::string_view input) {
    // Floats come from a 16-bit decode, as TensorFlow's (lossless for 16-bit files).
    const int channel_bits = dtype_ == DType::uint8 ? 8 : 16;
    Status refused;
    std::vector<std::uint8_t> pixels;
    codec::PngInfo info;
    bool init_failed = false, header_refused = false;
    const bool ok = codec::decode_png(
        input, channels_, channel_bits,
        [&](const codec::PngInfo& h) {
          const std::int64_t width = h.width, height = h.height;
          if (width <= 0 || width >= (1LL << 27) || height <= 0 || height >= (1LL << 27) ||
              width * height >= (1LL << 29)) {
            refused = invalid_argument("PNG size too large for int: " + std::to_string(h.width) +
                                       " by " + std::to_string(h.height));
          } else if (op_ == "DecodeBmp") {
            refused = invalid_argument(
                "Trying to decode PNG format using DecodeBmp op. Use `decode_png` or "
                "`decode_image` instead.");
          } else if (op_ == "DecodeAndCropJpeg") {
            refused = invalid_argument(
                "DecodeAndCropJpeg operation can run on JPEG only, but detected PNG.");
          }
          return refused.ok();
        },
        &pixels, &info, &init_failed, &header_refused);
    if (init_failed) return invalid_argument("Invalid PNG. Failed to initialize decoder.");
    if (header_refused) return refused;
    if (!ok) return invalid_argument("Invalid PNG data, size " + std::to_string(input.size()));
    const Shape shape = image_shape(static_cast<Index>(info.height), static_cast<Index>(info.width),
                                    static_cast<Index>(info.channels));
    if (dtype_ == DType::uint8) {
      Tensor& out = ctx.allocate_output_for_overwrite(0, DType::uint8, shape);
      std::memcpy(out.raw_data(), pixels.data(), pixels.size());
      return {};
    }
    Tensor& out = ctx.allocate_output_for_overwrite(0, DType::float32, shape);
    const float scale = static_cast<float>(1. / std::numeric_limits<std::uint16_t>::max());
    float* o = out.data<float>();
    for (std::size_t i = 0; i < pixels.size() / 2; ++i) {
      std::uint16_t v;
      std::memcpy(&v, pixels.data() + 2 * i, sizeof(v));
      o[i] = static_cast<float>(v) * scale;
    }
    return {};
  }

  // gif::Decode: DecodeGif and an expanding DecodeImage give [frames, height, width, 3],
  // DecodeImage without expand_animations the first frame, DecodeJpeg and DecodePng a GIF of
  // one frame only.
  Status decode_gif(OpKernelContext& ctx, std::string_view input) {
    if (channels_ != 0 && channels_ != 3)
      return invalid_argument("channels must be 0 or 3 for GIF, got " + std::to_string(channels_));
    if (op_ == "DecodeBmp")
      return invalid_argument(
          "Trying to decode GIF format using DecodeBmp op. Use `decode_gif` or "
          "`decode_image` instead.");
    if (op_ == "DecodeAndCropJpeg")
      return invalid_argument(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected GIF.");
    const bool expand = op_ != "DecodeImage" || expand_animations_;
    Status refused;
    Shape shape;
    std::vector<std::uint8_t> frames;
    std::string error;
    const bool ok = detail::gif_codec::decode_gif(
        input, expand,
        [&](int num_frames, int width, int height, int channels) -> std::uint8_t* {
          if (op_ == "DecodeGif" || (op_ == "DecodeImage" && expand_animations_)) {
            shape = Shape{num_frames, height, width, channels};
          } else if (op_ == "DecodeImage" || num_frames == 1) {
            shape = Shape{height, width, channels};
          } else {
            refused = invalid_argument("Got " + std::to_string(num_frames) +
                                       " frames, but animated gifs can only be decoded by "
                                       "tf.io.decode_gif or tf.io.decode_image");
            return nullptr;
          }
          frames.assign(static_cast<std::size_t>(shape.num_elements()), 0);
          return frames.data();
        },
        &error);
    if (!refused.ok()) return refused;
    if (!ok)
      return invalid_argument("Invalid GIF data (size " + std::to_string(input.size()) + "), " +
                              error);
    emit(ctx, frames, shape);
    return {};
  }

  Status decode_bmp(OpKernelContext& ctx, std::string_view input) {
    if (channels_ == 1)
      return invalid_argument("`channels` must be 0, 3 or 4 for BMP, but got " +
                              std::to_string(channels_));
    if (op_ != "DecodeBmp" && op_ != "DecodeImage") {
      if (op_ == "DecodeAndCropJpeg")
        return invalid_argument(
            "DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.");
      return invalid_argument(
          "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` "
          "instead. Op used: " +
          op_);
    }
    if (input.size() < 32)
      return invalid_argument(
          "Incomplete bmp content, requires at least 32 bytes to find the header size, width, "
          "height, and bpp, got " +
          std::to_string(input.size()) + " bytes");
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(input.data());
    const std::int32_t header_size = read_le32(bytes + 10);
    const std::int32_t width = read_le32(bytes + 18);
    const std::int32_t height = read_le32(bytes + 22);
    const std::int16_t bpp = read_le16(bytes + 28);
    const int img_channels = bpp / 8;
    if (img_channels != 1 && img_channels != 3 && img_channels != 4)
      return invalid_argument("Number of channels inherent in the image must be 1, 3 or 4, was " +
                              std::to_string(img_channels));
    const int requested_channels = channels_ ? channels_ : img_channels;
    if (width <= 0) return invalid_argument("Width must be positive");
    if (height == 0) return invalid_argument("Height must be nonzero");
    if (header_size < 0) return invalid_argument("header size must be nonnegative");
    const std::int64_t abs_height = height < 0 ? -static_cast<std::int64_t>(height) : height;
    if (static_cast<std::int64_t>(width) * abs_height >=
        static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max() / 8))
      return invalid_argument("Total possible pixel bytes must be less than 2^30");
    const std::int64_t row_size = (static_cast<std::int64_t>(img_channels) * width + 3) / 4 * 4;
    // TensorFlow computes the difference in int.
    const auto size_diff = static_cast<int>(static_cast<std::int64_t>(input.size()) - header_size -
                                            row_size * abs_height);
    if (size_diff != 0)
      return invalid_argument(
          "Input size should match (header_size + row_size * abs_height) but they differ by " +
          std::to_string(size_diff));
    const std::int64_t expected_file_size = static_cast<std::int64_t>(header_size) +
                                            (abs_height - 1) * row_size +
                                            (width - 1) * img_channels + img_channels;
    if (expected_file_size > static_cast<std::int64_t>(input.size()))
      return invalid_argument("Incomplete bmp content, requires at least " +
                              std::to_string(expected_file_size) + " bytes, got " +
                              std::to_string(input.size()) + " bytes");
    const bool top_down = height < 0;
    const std::uint8_t* src = bytes + header_size;
    std::vector<std::uint8_t> image(static_cast<std::size_t>(abs_height * width) *
                                    static_cast<std::size_t>(requested_channels));
    for (std::int64_t i = 0; i < abs_height; ++i) {
      for (std::int64_t j = 0; j < width; ++j) {
        const std::int64_t src_pos =
            (top_down ? i : abs_height - 1 - i) * row_size + j * img_channels;
        std::uint8_t* dst = image.data() + (i * width + j) * requested_channels;
        const std::uint8_t* px = src + src_pos;
        if (img_channels == 1) {
          dst[0] = px[0];
          if (requested_channels >= 3) dst[1] = dst[2] = px[0];
          if (requested_channels == 4) dst[3] = 255;
        } else {
          // BGR(A) -> RGB(A); a missing alpha is opaque.
          dst[0] = px[2];
          dst[1] = px[1];
          dst[2] = px[0];
          if (requested_channels == 4) dst[3] = img_channels == 4 ? px[3] : 255;
        }
      }
    }
    emit(ctx, image, abs_height, width, requested_channels);
    return {};
  }

  std::string op_;
  int channels_ = 0;
  DType dtype_ = DType::uint8;
  bool expand_animations_ = true;
  codec::UncompressFlags flags_;
};

// EncodeJpeg(image; format, quality, progressive, optimize_size, chroma_downsampling,
// density_unit, x_density, y_density, xmp_metadata): a scalar JPEG string.
class EncodeJpegOp : public StatusKernel {
 public:
  EncodeJpegOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    *s = init(c);
    if (!s->ok()) *s = s->with_context(node_suffix(c.def.name));
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& image = ctx.input(0);
    if (image.rank() != 3)
      return invalid_argument("image must be 3-dimensional" + image.shape().to_string());
    if (image.num_elements() >= std::numeric_limits<std::int32_t>::max())
      return invalid_argument("Cannot encode images with >= max int32 elements");
    const auto height = static_cast<int>(image.shape().dim(0));
    const auto width = static_cast<int>(image.shape().dim(1));
    const auto depth = image.shape().dim(2);
    codec::CompressFlags flags = flags_;
    if (format_.empty()) {
      if (depth != 1 && depth != 3)
        return invalid_argument("image must have 1 or 3 channels, got " +
                                image.shape().to_string());
      flags.components = static_cast<int>(depth);
    } else {
      flags.components = format_ == "grayscale" ? 1 : 3;
      if (flags.components != depth)
        return invalid_argument("format " + format_ + " expects " +
                                std::to_string(flags.components) + " channels, got " +
                                image.shape().to_string());
    }
    Tensor& out = ctx.allocate_output(0, DType::string, Shape{});
    if (!codec::compress_jpeg(image.data<std::uint8_t>(), width, height, flags,
                              &out.data<std::string>()[0]))
      return internal("JPEG encoding failed");
    return {};
  }

 private:
  Status init(OpKernelConstruction& c) {
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("format", &format_));
    if (!format_.empty() && format_ != "grayscale" && format_ != "rgb")
      return invalid_argument("format must be '', grayscale or rgb, got " + format_);
    std::int64_t quality = 95, x_density = 300, y_density = 300;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("quality", &quality));
    if (quality < 0 || quality > 100)
      return invalid_argument("quality must be in [0,100], got " + std::to_string(quality));
    flags_.quality = static_cast<int>(quality);
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("progressive", &flags_.progressive));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("optimize_size", &flags_.optimize_jpeg_size));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("chroma_downsampling", &flags_.chroma_downsampling));
    std::string density_unit;
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("density_unit", &density_unit));
    if (density_unit == "in")
      flags_.density_unit = 1;
    else if (density_unit == "cm")
      flags_.density_unit = 2;
    else
      return invalid_argument("density_unit must be 'in' or 'cm'" + density_unit);
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("x_density", &x_density));
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("y_density", &y_density));
    flags_.x_density = static_cast<int>(x_density);
    flags_.y_density = static_cast<int>(y_density);
    ACTORFLOW_RETURN_IF_ERROR(c.get_attr("xmp_metadata", &flags_.xmp_metadata));
    return {};
  }

  std::string format_;
  codec::CompressFlags flags_;
};

// EncodeJpegVariableQuality(images, quality): EncodeJpeg's default flags, the format from the
// channels, the quality from a scalar input (tf.image.adjust_jpeg_quality).
class EncodeJpegVariableQualityOp : public StatusKernel {
 public:
  using StatusKernel::StatusKernel;

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& image = ctx.input(0);
    if (image.rank() != 3)
      return invalid_argument("image must be 3-dimensional" + image.shape().to_string());
    if (image.num_elements() >= std::numeric_limits<std::int32_t>::max())
      return invalid_argument("Cannot encode images with >= max int32 elements");
    const Tensor& quality = ctx.input(1);
    if (quality.rank() != 0)
      return invalid_argument("quality must be scalar: " + quality.shape().to_string());
    codec::CompressFlags flags;
    flags.quality = quality.scalar<std::int32_t>();
    if (flags.quality < 0 || flags.quality > 100)
      return invalid_argument("quality must be in [0,100], got " + std::to_string(flags.quality));
    const auto depth = image.shape().dim(2);
    if (depth != 1 && depth != 3)
      return invalid_argument("image must have 1 or 3 channels, got " + image.shape().to_string());
    flags.components = static_cast<int>(depth);
    Tensor& out = ctx.allocate_output(0, DType::string, Shape{});
    if (!codec::compress_jpeg(image.data<std::uint8_t>(), static_cast<int>(image.shape().dim(1)),
                              static_cast<int>(image.shape().dim(0)), flags,
                              &out.data<std::string>()[0]))
      return internal("JPEG encoding failed");
    return {};
  }
};

// EncodePng(image; compression): each [height, width, channels] image of a uint8 batch as a
// PNG string, the output of the batch's shape.
class EncodePngOp : public StatusKernel {
 public:
  EncodePngOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    std::int64_t compression = -1;
    *s = c.get_attr("compression", &compression);
    if (s->ok() && (compression < -1 || compression > 9))
      *s = invalid_argument("compression should be in [-1,9], got " + std::to_string(compression) +
                            node_suffix(c.def.name));
    compression_ = static_cast<int>(compression);
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& image = ctx.input(0);
    if (image.rank() < 3)
      return invalid_argument("images must be at least rank 3" + image.shape().to_string());
    if (image.num_elements() >= std::numeric_limits<std::int32_t>::max())
      return invalid_argument("image cannot have >= int32 max elements");
    const int batch_dims = image.rank() - 3;
    const Index height = image.shape().dim(batch_dims);
    const Index width = image.shape().dim(batch_dims + 1);
    const Index channels = image.shape().dim(batch_dims + 2);
    if (width * channels >= std::numeric_limits<std::int32_t>::max() / 2)
      return invalid_argument("image too wide to encode");
    if (channels < 1 || channels > 4)
      return invalid_argument("image must have 1, 2, 3, or 4 channels, got " +
                              std::to_string(channels));
    std::vector<std::int64_t> dims(image.shape().dims().begin(),
                                   image.shape().dims().begin() + batch_dims);
    Index batches = 1;
    for (Index d : dims) batches *= d;
    Tensor& out = ctx.allocate_output(0, DType::string, Shape(dims));
    const auto* data = image.data<std::uint8_t>();
    const Index image_bytes = height * width * channels;
    std::string bad;
    for (Index i = 0; i < batches; ++i) {
      if (!codec::encode_png(data + i * image_bytes, static_cast<int>(width),
                             static_cast<int>(height), static_cast<int>(channels), 8, compression_,
                             &out.data<std::string>()[i]))
        bad += (bad.empty() ? "" : ", ") + std::to_string(i);
    }
    if (!bad.empty())
      return internal("PNG encoding failed at the following flattened batch indices: " + bad);
    return {};
  }

 private:
  int compression_ = -1;
};

// ExtractJpegShape(contents; output_type): [height, width, components] of a JPEG.
class ExtractJpegShapeOp : public StatusKernel {
 public:
  ExtractJpegShapeOp(OpKernelConstruction& c, Status* s) : StatusKernel(c) {
    if (!c.get_attr("output_type", &output_type_).ok()) output_type_ = DType::int32;
    *s = {};
  }

 protected:
  Status run(OpKernelContext& ctx) override {
    const Tensor& contents = ctx.input(0);
    if (contents.rank() != 0)
      return invalid_argument("contents must be scalar, got shape " + contents.shape().to_string());
    const std::string& input = contents.data<std::string>()[0];
    if (input.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      return invalid_argument("JPEG contents are too large for int: " +
                              std::to_string(input.size()));
    int width = 0, height = 0, components = 0;
    if (!codec::jpeg_image_info(input, &width, &height, &components))
      return invalid_argument("Invalid JPEG data, size " + std::to_string(input.size()));
    Tensor& out = ctx.allocate_output(0, output_type_, Shape{3});
    const std::int64_t v[3] = {height, width, components};
    for (int i = 0; i < 3; ++i) {
      if (output_type_ == DType::int64)
        out.data<std::int64_t>()[i] = v[i];
      else
        out.data<std::int32_t>()[i] = static_cast<std::int32_t>(v[i]);
    }
    return {};
  }

 private:
  DType output_type_ = DType::int32;
};

}  // namespace

namespace detail {

void register_image_codec_kernels(KernelRegistry& r) {
  for (const char* type :
       {"DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeBmp", "DecodeImage", "DecodeGif"})
    r.add(make_kernel_def<DecodeImageOp>(type, "CPU"));
  r.add(make_kernel_def<EncodeJpegOp>("EncodeJpeg", "CPU"));
  r.add(make_kernel_def<EncodeJpegVariableQualityOp>("EncodeJpegVariableQuality", "CPU"));
  r.add(make_kernel_def<EncodePngOp>("EncodePng", "CPU", {{"T", {DType::uint8}}}));
  r.add(make_kernel_def<ExtractJpegShapeOp>("ExtractJpegShape", "CPU",
                                            {{"output_type", kIndexTypes}}));
}

}  // namespace detail

}  // namespace af
