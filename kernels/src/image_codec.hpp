#pragma once

// JPEG, PNG, BMP and GIF reading and writing as TensorFlow's image kernels do it
// (lib/jpeg/jpeg_mem.cc, lib/jpeg/jpeg_handle.cc, lib/png/png_io.cc and the BMP decoder of
// kernels/image/decode_image_op.cc), on Debian's libjpeg-turbo and libpng. Private to the
// kernels module (kernels/src/image_codec_ops.cpp is the only user).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace af::detail::image_codec {

// -- JPEG ----------------------------------------------------------------------------------

/// The IDCT libjpeg runs (TensorFlow's dct_method "" and "INTEGER_FAST" are kIntegerFast,
/// "INTEGER_ACCURATE" is kIntegerAccurate).
enum class DctMethod { kIntegerFast, kIntegerAccurate };

/// TensorFlow's jpeg::UncompressFlags (stride always 0: rows packed).
struct UncompressFlags {
  int ratio = 1;       ///< 1, 2, 4 or 8: libjpeg's scale_denom
  int components = 0;  ///< 0 (as the file), 1 or 3
  bool fancy_upscaling = true;
  bool try_recover_truncated_jpeg = false;
  float min_acceptable_fraction = 1.0f;
  DctMethod dct_method = DctMethod::kIntegerFast;
  bool crop = false;  ///< decode only the window below (libjpeg-turbo's crop and skip)
  int crop_x = 0, crop_y = 0, crop_width = 0, crop_height = 0;
};

/// A decoded image: `height` rows of `width * components` bytes.
struct DecodedImage {
  std::vector<std::uint8_t> pixels;
  int width = 0, height = 0, components = 0;
};

/// jpeg::Uncompress: decodes `data` as TensorFlow does (CMYK and YCCK converted to RGB,
/// lines a truncated file lacks copied from the line above with `try_recover_truncated_jpeg`
/// or left black when at least `min_acceptable_fraction` of them were read). False for
/// anything TensorFlow's returns nullptr for: bad data, a bad crop window, a bad ratio or
/// component count, an image of 2^29 bytes or more.
bool uncompress_jpeg(std::string_view data, const UncompressFlags& flags, DecodedImage* out);

/// jpeg::GetImageInfo: the height, width and component count libjpeg would decode `data` to
/// by default; false for data that is not a JPEG.
bool jpeg_image_info(std::string_view data, int* width, int* height, int* components);

/// TensorFlow's jpeg::CompressFlags (format by channel count: 1 grayscale, 3 RGB).
struct CompressFlags {
  int components = 3;  ///< 1 or 3
  int quality = 95;
  bool progressive = false;
  bool optimize_jpeg_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;  ///< 1 inch, 2 cm
  int x_density = 300;
  int y_density = 300;
  std::string xmp_metadata;  ///< written as an APP1 marker after Adobe's XMP namespace
};

/// jpeg::Compress: encodes `height` rows of `width * flags.components` bytes; false (and
/// `out` empty) for a size of 0 or 2^29 pixels and more or a libjpeg error.
bool compress_jpeg(const std::uint8_t* pixels, int width, int height, const CompressFlags& flags,
                   std::string* out);

// -- PNG -----------------------------------------------------------------------------------

/// What png::CommonInitDecode found: the image's size and the channels it decodes to.
struct PngInfo {
  std::uint32_t width = 0, height = 0;
  int channels = 0;
};

/// png::CommonInitDecode + CommonFinishDecode at 8 or 16 bits a channel (`channel_bits`),
/// converted to `desired_channels` (0: as the file; palettes expand to RGB or RGBA, a tRNS
/// chunk becomes alpha, gray <-> RGB with Rec. 601 weights). `on_header` sees the header
/// and returns false to stop (the caller's own checks); then decode_png returns true with
/// `*header_refused` set. 16-bit samples are native-endian uint16 in `out`.
/// Returns false with `*init_failed` set when the header cannot be read ("Invalid PNG.
/// Failed to initialize decoder."), false otherwise for bad image data.
template <class OnHeader>
bool decode_png(std::string_view data, int desired_channels, int channel_bits, OnHeader&& on_header,
                std::vector<std::uint8_t>* out, PngInfo* info, bool* init_failed,
                bool* header_refused);

/// png::WriteImageToBuffer: `height` rows of `width * channels` samples of 8 or 16 bits
/// (native-endian uint16) as a PNG of zlib level `compression` (-1: zlib's default).
/// False for an empty image or a libpng error.
bool encode_png(const void* image, int width, int height, int channels, int channel_bits,
                int compression, std::string* out);

// -- implementation of decode_png ------------------------------------------------------------

/// The two halves of decode_png, split around the header callback.
struct PngDecoder {
  PngDecoder();
  ~PngDecoder();
  PngDecoder(const PngDecoder&) = delete;
  PngDecoder& operator=(const PngDecoder&) = delete;
  /// CommonInitDecode; false when the header cannot be read.
  bool init(std::string_view data, int desired_channels, int channel_bits, PngInfo* info);
  /// CommonFinishDecode into `out` (rows of `row_bytes`); false for bad image data.
  bool finish(std::uint8_t* out, int row_bytes);

 private:
  struct State;
  State* state_;
};

template <class OnHeader>
bool decode_png(std::string_view data, int desired_channels, int channel_bits, OnHeader&& on_header,
                std::vector<std::uint8_t>* out, PngInfo* info, bool* init_failed,
                bool* header_refused) {
  *init_failed = false;
  *header_refused = false;
  PngDecoder decoder;
  if (!decoder.init(data, desired_channels, channel_bits, info)) {
    *init_failed = true;
    return false;
  }
  if (!on_header(*info)) {
    *header_refused = true;
    return true;
  }
  const int row_bytes = info->channels * static_cast<int>(info->width) * (channel_bits / 8);
  out->assign(static_cast<std::size_t>(row_bytes) * info->height, 0);
  return decoder.finish(out->data(), row_bytes);
}

}  // namespace af::detail::image_codec
