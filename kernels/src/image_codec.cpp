// JPEG and PNG helpers of the image codec kernels: TensorFlow's lib/jpeg/jpeg_mem.cc,
// lib/jpeg/jpeg_handle.cc and lib/png/png_io.cc on Debian's libjpeg-turbo and libpng, with
// the same libjpeg settings (IFAST or ISLOW IDCT, fancy upsampling, scale_denom, crop and
// skip) so that decodes equal TensorFlow's bit for bit. libjpeg and libpng report fatal
// errors by longjmp; the functions that call setjmp hold no object with a destructor, and
// what outlives a jump lives in the caller's frame.
#include "image_codec.hpp"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>

// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>

// jerror.h after jpeglib.h: the ERREXIT and WARNMS macros jpeg_handle.cc uses.
#include <jerror.h>
#include <png.h>
#include <zlib.h>

namespace af::detail::image_codec {

namespace {

// -- libjpeg glue (jpeg_handle.cc) -----------------------------------------------------------

// The error manager: fatal errors jump back to the decoder; messages are not printed.
struct JpegErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};

// CatchError: destroys the object and jumps back.
void catch_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  jpeg_destroy(cinfo);
  std::longjmp(err->jump, 1);
}

void no_message(j_common_ptr) {}

// MemSourceMgr.
struct MemSource {
  jpeg_source_mgr pub;
  const JOCTET* data;
  unsigned long datasize;
  bool try_recover_truncated_jpeg;
};

const JOCTET kEoiBuffer[2] = {0xff, JPEG_EOI};

void mem_init_source(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<MemSource*>(cinfo->src);
  src->pub.next_input_byte = src->data;
  src->pub.bytes_in_buffer = src->datasize;
}

// MemFillInputBuffer: the end of the data is an error, or with try_recover_truncated_jpeg
// once a fake EOI marker.
boolean mem_fill_input_buffer(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<MemSource*>(cinfo->src);
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY);
    return FALSE;
  } else if (src->pub.bytes_in_buffer) {
    return src->try_recover_truncated_jpeg ? TRUE : FALSE;
  } else if (src->pub.next_input_byte != kEoiBuffer && src->try_recover_truncated_jpeg) {
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = kEoiBuffer;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  } else {
    ERREXIT(cinfo, JERR_FILE_READ);
    return FALSE;
  }
}

void mem_term_source(j_decompress_ptr) {}

void mem_skip_input_data(j_decompress_ptr cinfo, long jump) {
  auto* src = reinterpret_cast<MemSource*>(cinfo->src);
  if (jump < 0) return;
  if (static_cast<unsigned long>(jump) > src->pub.bytes_in_buffer) {
    src->pub.bytes_in_buffer = 0;
    (void)mem_fill_input_buffer(cinfo);
  } else {
    src->pub.bytes_in_buffer -= static_cast<std::size_t>(jump);
    src->pub.next_input_byte += jump;
  }
}

void set_source(j_decompress_ptr cinfo, std::string_view data, bool try_recover) {
  auto* src = static_cast<MemSource*>((*cinfo->mem->alloc_small)(
      reinterpret_cast<j_common_ptr>(cinfo), JPOOL_PERMANENT, sizeof(MemSource)));
  cinfo->src = &src->pub;
  src->pub.init_source = mem_init_source;
  src->pub.fill_input_buffer = mem_fill_input_buffer;
  src->pub.skip_input_data = mem_skip_input_data;
  src->pub.resync_to_restart = jpeg_resync_to_restart;
  src->pub.term_source = mem_term_source;
  src->data = reinterpret_cast<const JOCTET*>(data.data());
  src->datasize = data.size();
  src->pub.bytes_in_buffer = 0;
  src->pub.next_input_byte = nullptr;
  src->try_recover_truncated_jpeg = try_recover;
}

// MemDestMgr: output appended to a string through a buffer.
struct MemDest {
  jpeg_destination_mgr pub;
  JOCTET* buffer;
  std::size_t bufsize;
  std::string* out;
};

void mem_init_destination(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<MemDest*>(cinfo->dest);
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = dest->bufsize;
  dest->out->clear();
}

boolean mem_empty_output_buffer(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<MemDest*>(cinfo->dest);
  dest->out->append(reinterpret_cast<const char*>(dest->buffer), dest->bufsize);
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = dest->bufsize;
  return TRUE;
}

void mem_term_destination(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<MemDest*>(cinfo->dest);
  dest->out->append(reinterpret_cast<const char*>(dest->buffer),
                    dest->bufsize - dest->pub.free_in_buffer);
}

// What UncompressLow leaves for Uncompress (TensorFlow's FewerArgsForCompiler) and the
// buffers that must survive a longjmp.
struct JpegState {
  DecodedImage* out;
  std::vector<JSAMPLE> temp;
  int height_read = 0;
  int height = 0;
  int stride = 0;
};

bool crop_window_valid(const UncompressFlags& flags, int width, int height) {
  return flags.crop_width > 0 && flags.crop_height > 0 && flags.crop_x >= 0 && flags.crop_y >= 0 &&
         flags.crop_y + flags.crop_height <= height && flags.crop_x + flags.crop_width <= width;
}

// UncompressLow (libjpeg-turbo branch). No object with a destructor lives in this frame.
bool uncompress_low(std::string_view data, const UncompressFlags& flags, JpegState* state) {
  const int ratio = flags.ratio;
  int components = flags.components;
  if (ratio != 1 && ratio != 2 && ratio != 4 && ratio != 8) return false;
  if (!(components == 0 || components == 1 || components == 3)) return false;
  if (data.empty()) return false;

  jpeg_decompress_struct cinfo;
  JpegErrorManager jerr;
  cinfo.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = catch_error;
  jerr.pub.output_message = no_message;
  if (setjmp(jerr.jump)) return false;  // catch_error destroyed cinfo

  jpeg_create_decompress(&cinfo);
  set_source(&cinfo, data, flags.try_recover_truncated_jpeg);
  jpeg_read_header(&cinfo, TRUE);

  if (components == 0) components = std::min(cinfo.num_components, 3);
  switch (components) {
    case 1:
      cinfo.out_color_space = JCS_GRAYSCALE;
      break;
    case 3:
      // A four-channel JPEG decodes as CMYK and is converted to RGB below.
      cinfo.out_color_space =
          (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) ? JCS_CMYK
                                                                                     : JCS_RGB;
      break;
    default:
      jpeg_destroy_decompress(&cinfo);
      return false;
  }
  cinfo.do_fancy_upsampling = flags.fancy_upscaling ? TRUE : FALSE;
  cinfo.scale_num = 1;
  cinfo.scale_denom = static_cast<unsigned>(ratio);
  cinfo.dct_method = flags.dct_method == DctMethod::kIntegerAccurate ? JDCT_ISLOW : JDCT_IFAST;

  jpeg_calc_output_dimensions(&cinfo);
  const std::int64_t total_size = static_cast<std::int64_t>(cinfo.output_height) *
                                  static_cast<std::int64_t>(cinfo.output_width) *
                                  static_cast<std::int64_t>(cinfo.num_components);
  if (cinfo.output_width <= 0 || cinfo.output_height <= 0 || total_size >= (1LL << 29)) {
    jpeg_destroy_decompress(&cinfo);
    return false;
  }

  jpeg_start_decompress(&cinfo);

  JDIMENSION target_output_width = cinfo.output_width;
  JDIMENSION target_output_height = cinfo.output_height;
  JDIMENSION skipped_scanlines = 0;
  if (flags.crop) {
    target_output_height = static_cast<JDIMENSION>(flags.crop_height);
    target_output_width = static_cast<JDIMENSION>(flags.crop_width);
    if (!crop_window_valid(flags, static_cast<int>(cinfo.output_width),
                           static_cast<int>(cinfo.output_height))) {
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
    // The window's left edge moves to an iMCU boundary and its width grows to match.
    JDIMENSION crop_width = static_cast<JDIMENSION>(flags.crop_width);
    JDIMENSION crop_x = static_cast<JDIMENSION>(flags.crop_x);
    jpeg_crop_scanline(&cinfo, &crop_x, &crop_width);
    skipped_scanlines = jpeg_skip_scanlines(&cinfo, static_cast<JDIMENSION>(flags.crop_y));
    if (skipped_scanlines != static_cast<JDIMENSION>(flags.crop_y)) {
      jpeg_destroy_decompress(&cinfo);
      return false;
    }
  }

  const int min_stride = static_cast<int>(target_output_width) * components;
  const int stride = min_stride;
  state->height = static_cast<int>(target_output_height);
  state->stride = stride;
  DecodedImage* out = state->out;
  out->width = static_cast<int>(target_output_width);
  out->height = static_cast<int>(target_output_height);
  out->components = components;
  out->pixels.assign(static_cast<std::size_t>(stride) * target_output_height, 0);
  JSAMPLE* output_line = out->pixels.data();

  const bool need_realign_cropped_scanline = target_output_width != cinfo.output_width;
  const bool use_cmyk = cinfo.out_color_space == JCS_CMYK;
  if (use_cmyk)
    state->temp.assign(static_cast<std::size_t>(cinfo.output_width) * 4, 0);
  else if (need_realign_cropped_scanline)
    state->temp.assign(static_cast<std::size_t>(cinfo.output_width) * components, 0);
  JSAMPLE* tempdata = state->temp.data();

  bool end_of_data = false;
  state->height_read = static_cast<int>(target_output_height);
  const JDIMENSION max_scanlines_to_read = skipped_scanlines + target_output_height;
  const int mcu_align_offset =
      static_cast<int>(cinfo.output_width - target_output_width) * (use_cmyk ? 4 : components);
  while (cinfo.output_scanline < max_scanlines_to_read) {
    JDIMENSION num_lines_read = 0;
    if (use_cmyk) {
      num_lines_read = jpeg_read_scanlines(&cinfo, &tempdata, 1);
      if (num_lines_read > 0) {
        for (JDIMENSION i = 0; i < target_output_width; ++i) {
          int offset = 4 * static_cast<int>(i);
          if (need_realign_cropped_scanline) offset += mcu_align_offset;
          const int c = tempdata[offset + 0];
          const int m = tempdata[offset + 1];
          const int y = tempdata[offset + 2];
          const int k = tempdata[offset + 3];
          int r, g, b;
          if (cinfo.saw_Adobe_marker) {
            r = (k * c) / 255;
            g = (k * m) / 255;
            b = (k * y) / 255;
          } else {
            r = (255 - k) * (255 - c) / 255;
            g = (255 - k) * (255 - m) / 255;
            b = (255 - k) * (255 - y) / 255;
          }
          output_line[3 * i + 0] = static_cast<JSAMPLE>(r);
          output_line[3 * i + 1] = static_cast<JSAMPLE>(g);
          output_line[3 * i + 2] = static_cast<JSAMPLE>(b);
        }
      }
    } else if (need_realign_cropped_scanline) {
      num_lines_read = jpeg_read_scanlines(&cinfo, &tempdata, 1);
      if (num_lines_read > 0)
        std::memcpy(output_line, tempdata + mcu_align_offset, static_cast<std::size_t>(min_stride));
    } else {
      num_lines_read = jpeg_read_scanlines(&cinfo, &output_line, 1);
    }
    if (num_lines_read == 0) {
      // Premature end of data: stop, or fill the rest from the line above.
      if (!flags.try_recover_truncated_jpeg) {
        state->height_read = static_cast<int>(cinfo.output_scanline - skipped_scanlines);
        end_of_data = true;
      } else {
        for (JDIMENSION line = cinfo.output_scanline; line < max_scanlines_to_read; ++line) {
          if (line == 0)
            std::memset(output_line, 0, static_cast<std::size_t>(min_stride));
          else
            std::memcpy(output_line, output_line - stride, static_cast<std::size_t>(min_stride));
          output_line += stride;
        }
        state->height_read = static_cast<int>(target_output_height);
        cinfo.output_scanline = max_scanlines_to_read;
      }
      break;
    }
    output_line += stride;
  }

  if (flags.crop && cinfo.output_scanline < cinfo.output_height) {
    // jpeg_destroy_decompress needs the remaining lines skipped.
    jpeg_skip_scanlines(&cinfo, cinfo.output_height - static_cast<JDIMENSION>(flags.crop_y) -
                                    static_cast<JDIMENSION>(flags.crop_height));
  }

  bool bad_param = false;
  if (components == 1)
    bad_param = cinfo.output_components != 1;
  else
    bad_param = cinfo.output_components != (cinfo.out_color_space == JCS_CMYK ? 4 : 3);

  if (!end_of_data && !bad_param)
    jpeg_finish_decompress(&cinfo);
  else
    jpeg_abort(reinterpret_cast<j_common_ptr>(&cinfo));
  jpeg_destroy_decompress(&cinfo);
  return true;
}

// -- libpng glue (png_io.cc) -------------------------------------------------------------------

struct PngReadContext {
  const std::uint8_t* data = nullptr;
  std::size_t data_left = 0;
  bool error_condition = false;
};

void png_error_handler(png_structp png_ptr, png_const_charp) {
  auto* ctx = static_cast<PngReadContext*>(png_get_error_ptr(png_ptr));
  if (ctx) ctx->error_condition = true;
  png_longjmp(png_ptr, 1);
}

void png_warning_handler(png_structp, png_const_charp) {}

void png_string_reader(png_structp png_ptr, png_bytep data, png_size_t length) {
  auto* ctx = static_cast<PngReadContext*>(png_get_io_ptr(png_ptr));
  if (ctx->data_left < length) {
    png_error(png_ptr, "More bytes requested to read than available");
  } else {
    std::memcpy(data, ctx->data, length);
    ctx->data += length;
    ctx->data_left -= length;
  }
}

void png_string_writer(png_structp png_ptr, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png_ptr))
      ->append(reinterpret_cast<const char*>(data), length);
}

void png_string_flush(png_structp) {}

// Convert8to16: 8-bit samples widened in place to 16 (v * 257), backwards.
void convert_8_to_16(std::uint8_t* data, int num_comps, int row_bytes, int width, int height) {
  const std::int64_t samples = static_cast<std::int64_t>(width) * num_comps;
  for (std::int64_t y = height - 1; y >= 0; --y) {
    std::uint8_t* row = data + y * row_bytes;
    for (std::int64_t x = samples - 1; x >= 0; --x) {
      std::uint32_t pix = row[x];
      pix |= pix << 8;
      const auto wide = static_cast<std::uint16_t>(pix);
      std::memcpy(row + 2 * x, &wide, sizeof(wide));
    }
  }
}

}  // namespace

// -- JPEG --------------------------------------------------------------------------------------

bool uncompress_jpeg(std::string_view data, const UncompressFlags& flags, DecodedImage* out) {
  JpegState state;
  state.out = out;
  const bool ok = uncompress_low(data, flags, &state);
  const float fraction_read =
      state.height == 0 ? 1.0f
                        : static_cast<float>(state.height_read) / static_cast<float>(state.height);
  if (!ok || fraction_read < std::min(1.0f, flags.min_acceptable_fraction)) return false;
  // Lines a truncated file lacked are black.
  if (state.height_read != state.height) {
    const auto first_bad = static_cast<std::size_t>(state.height_read) * state.stride;
    std::fill(out->pixels.begin() + static_cast<std::ptrdiff_t>(first_bad), out->pixels.end(), 0);
  }
  return true;
}

bool jpeg_image_info(std::string_view data, int* width, int* height, int* components) {
  *width = *height = *components = 0;
  if (data.empty()) return false;
  jpeg_decompress_struct cinfo;
  JpegErrorManager jerr;
  cinfo.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = catch_error;
  jerr.pub.output_message = no_message;
  if (setjmp(jerr.jump)) return false;
  jpeg_create_decompress(&cinfo);
  set_source(&cinfo, data, false);
  jpeg_read_header(&cinfo, TRUE);
  jpeg_start_decompress(&cinfo);  // what transfers the output size to cinfo
  *width = static_cast<int>(cinfo.output_width);
  *height = static_cast<int>(cinfo.output_height);
  *components = cinfo.output_components;
  jpeg_destroy_decompress(&cinfo);
  return true;
}

namespace {

// CompressInternal; `buffer` and `out` belong to the caller. No object with a destructor
// lives in this frame.
bool compress_low(const std::uint8_t* pixels, int width, int height, const CompressFlags& flags,
                  std::vector<JOCTET>* buffer, std::vector<JOCTET>* xmp, std::string* out) {
  const int components = flags.components;
  jpeg_compress_struct cinfo;
  JpegErrorManager jerr;
  cinfo.err = jpeg_std_error(&jerr.pub);
  jerr.pub.error_exit = catch_error;
  jerr.pub.output_message = no_message;
  if (setjmp(jerr.jump)) {
    out->clear();
    return false;
  }
  jpeg_create_compress(&cinfo);
  auto* dest = static_cast<MemDest*>((*cinfo.mem->alloc_small)(
      reinterpret_cast<j_common_ptr>(&cinfo), JPOOL_PERMANENT, sizeof(MemDest)));
  cinfo.dest = &dest->pub;
  dest->buffer = buffer->data();
  dest->bufsize = buffer->size();
  dest->out = out;
  dest->pub.init_destination = mem_init_destination;
  dest->pub.empty_output_buffer = mem_empty_output_buffer;
  dest->pub.term_destination = mem_term_destination;

  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  if (flags.optimize_jpeg_size) cinfo.optimize_coding = TRUE;
  cinfo.density_unit = static_cast<UINT8>(flags.density_unit);
  cinfo.X_density = static_cast<UINT16>(flags.x_density);
  cinfo.Y_density = static_cast<UINT16>(flags.y_density);
  jpeg_set_quality(&cinfo, flags.quality, TRUE);
  if (flags.progressive) jpeg_simple_progression(&cinfo);
  if (!flags.chroma_downsampling) {
    for (int i = 0; i < cinfo.num_components; ++i) {
      cinfo.comp_info[i].h_samp_factor = 1;
      cinfo.comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(&cinfo, TRUE);
  if (!xmp->empty())
    jpeg_write_marker(&cinfo, JPEG_APP0 + 1, xmp->data(), static_cast<unsigned>(xmp->size()));
  const auto in_stride = static_cast<std::size_t>(width) * components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPLE*>(pixels + cinfo.next_scanline * in_stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return true;
}

}  // namespace

bool compress_jpeg(const std::uint8_t* pixels, int width, int height, const CompressFlags& flags,
                   std::string* out) {
  out->clear();
  const std::int64_t total_size = static_cast<std::int64_t>(width) * height;
  if (width <= 0 || height <= 0 || total_size >= (1LL << 29)) return false;
  if (flags.components != 1 && flags.components != 3) return false;
  std::vector<JOCTET> buffer(
      static_cast<std::size_t>(std::min<std::int64_t>(total_size * flags.components, 1 << 20)));
  // The XMP packet: Adobe's namespace, a NUL, the metadata.
  std::vector<JOCTET> xmp;
  if (!flags.xmp_metadata.empty()) {
    const std::string name_space = "http://ns.adobe.com/xap/1.0/";
    xmp.assign(name_space.begin(), name_space.end());
    xmp.push_back(0);
    xmp.insert(xmp.end(), flags.xmp_metadata.begin(), flags.xmp_metadata.end());
  }
  return compress_low(pixels, width, height, flags, &buffer, &xmp, out);
}

// -- PNG ---------------------------------------------------------------------------------------

struct PngDecoder::State {
  PngReadContext io;
  png_structp png_ptr = nullptr;
  png_infop info_ptr = nullptr;
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, channels = 0, num_passes = 1;
  bool need_to_synthesize_16 = false;

  // CommonFreeDecode.
  void free() {
    if (png_ptr) {
      png_destroy_read_struct(&png_ptr, info_ptr ? &info_ptr : nullptr, nullptr);
      png_ptr = nullptr;
      info_ptr = nullptr;
    }
  }
};

PngDecoder::PngDecoder() : state_(new State) {}

PngDecoder::~PngDecoder() {
  state_->free();
  delete state_;
}

// CommonInitDecode. No object with a destructor lives in this frame.
bool PngDecoder::init(std::string_view data, int desired_channels, int channel_bits,
                      PngInfo* info) {
  State* s = state_;
  s->io.error_condition = false;
  s->channels = desired_channels;
  s->png_ptr =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &s->io, png_error_handler, png_warning_handler);
  if (!s->png_ptr) return false;
  if (setjmp(png_jmpbuf(s->png_ptr))) {
    s->free();
    return false;
  }
  s->info_ptr = png_create_info_struct(s->png_ptr);
  if (!s->info_ptr || s->io.error_condition) {
    s->free();
    return false;
  }
  s->io.data = reinterpret_cast<const std::uint8_t*>(data.data());
  s->io.data_left = data.size();
  png_set_read_fn(s->png_ptr, &s->io, png_string_reader);
  png_read_info(s->png_ptr, s->info_ptr);
  png_get_IHDR(s->png_ptr, s->info_ptr, &s->width, &s->height, &s->bit_depth, &s->color_type,
               nullptr, nullptr, nullptr);
  if (s->io.error_condition || s->width <= 0 || s->height <= 0) {
    s->free();
    return false;
  }
  const bool has_trns = png_get_valid(s->png_ptr, s->info_ptr, PNG_INFO_tRNS) != 0;
  if (s->channels == 0) {
    if (s->color_type == PNG_COLOR_TYPE_PALETTE)
      s->channels = has_trns ? 4 : 3;
    else
      s->channels = png_get_channels(s->png_ptr, s->info_ptr);
  }
  const bool has_alpha = (s->color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if ((s->channels & 1) == 0) {  // alpha wanted
    if (has_alpha) {
    } else if (has_trns) {
      png_set_tRNS_to_alpha(s->png_ptr);
    } else {
      png_set_add_alpha(s->png_ptr, (1u << s->bit_depth) - 1, PNG_FILLER_AFTER);
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(s->png_ptr);
  }
  if (s->bit_depth > 8 && channel_bits <= 8) png_set_strip_16(s->png_ptr);
  s->need_to_synthesize_16 = s->bit_depth <= 8 && channel_bits == 16;
  png_set_packing(s->png_ptr);
  s->num_passes = png_set_interlace_handling(s->png_ptr);
  if (channel_bits > 8) {
    const std::uint16_t probe = 1;
    std::uint8_t first = 0;
    std::memcpy(&first, &probe, 1);
    if (first == 1) png_set_swap(s->png_ptr);  // little-endian host
  }
  if (s->color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s->png_ptr);
  const bool want_gray = s->channels < 3;
  const bool is_gray = !(s->color_type & PNG_COLOR_MASK_COLOR);
  if (is_gray && s->bit_depth < 8) png_set_expand_gray_1_2_4_to_8(s->png_ptr);
  if (want_gray) {
    if (!is_gray) png_set_rgb_to_gray(s->png_ptr, 1, 0.299, 0.587);  // Rec. 601, as JPEG
  } else if (is_gray) {
    png_set_gray_to_rgb(s->png_ptr);
  }
  png_read_update_info(s->png_ptr, s->info_ptr);
  info->width = s->width;
  info->height = s->height;
  info->channels = s->channels;
  return true;
}

// CommonFinishDecode. No object with a destructor lives in this frame.
bool PngDecoder::finish(std::uint8_t* out, int row_bytes) {
  State* s = state_;
  if (setjmp(png_jmpbuf(s->png_ptr))) {
    s->free();
    return false;
  }
  for (int p = 0; p < s->num_passes; ++p) {
    png_bytep row = out;
    for (png_uint_32 h = s->height; h-- != 0; row += row_bytes)
      png_read_row(s->png_ptr, row, nullptr);
  }
  png_set_rows(s->png_ptr, s->info_ptr, png_get_rows(s->png_ptr, s->info_ptr));
  png_read_end(s->png_ptr, s->info_ptr);
  const bool ok = !s->io.error_condition;
  s->free();
  if (s->need_to_synthesize_16)
    convert_8_to_16(out, s->channels, row_bytes, static_cast<int>(s->width),
                    static_cast<int>(s->height));
  return ok;
}

namespace {

// WriteImageToBuffer. No object with a destructor lives in this frame.
bool encode_png_low(const void* image, int width, int height, int channels, int channel_bits,
                    int compression, std::string* out) {
  png_infop info_ptr = nullptr;
  png_structp png_ptr = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, png_error_handler,
                                                png_warning_handler);
  if (png_ptr == nullptr) return false;
  if (setjmp(png_jmpbuf(png_ptr))) {
    png_destroy_write_struct(&png_ptr, info_ptr ? &info_ptr : nullptr);
    return false;
  }
  info_ptr = png_create_info_struct(png_ptr);
  if (info_ptr == nullptr) {
    png_destroy_write_struct(&png_ptr, nullptr);
    return false;
  }
  int color_type = -1;
  switch (channels) {
    case 1:
      color_type = PNG_COLOR_TYPE_GRAY;
      break;
    case 2:
      color_type = PNG_COLOR_TYPE_GRAY_ALPHA;
      break;
    case 3:
      color_type = PNG_COLOR_TYPE_RGB;
      break;
    case 4:
      color_type = PNG_COLOR_TYPE_RGB_ALPHA;
      break;
    default:
      png_destroy_write_struct(&png_ptr, &info_ptr);
      return false;
  }
  png_set_write_fn(png_ptr, out, png_string_writer, png_string_flush);
  if (compression < 0) compression = Z_DEFAULT_COMPRESSION;
  png_set_compression_level(png_ptr, compression);
  png_set_compression_mem_level(png_ptr, MAX_MEM_LEVEL);
  png_set_IHDR(png_ptr, info_ptr, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height),
               channel_bits, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png_ptr, info_ptr);
  if (channel_bits > 8) {
    const std::uint16_t probe = 1;
    std::uint8_t first = 0;
    std::memcpy(&first, &probe, 1);
    if (first == 1) png_set_swap(png_ptr);
  }
  const auto row_bytes = static_cast<std::size_t>(width) * channels * (channel_bits / 8);
  auto* row = static_cast<png_byte*>(const_cast<void*>(image));
  for (int y = 0; y < height; ++y, row += row_bytes) png_write_row(png_ptr, row);
  png_write_end(png_ptr, nullptr);
  png_destroy_write_struct(&png_ptr, &info_ptr);
  return true;
}

}  // namespace

bool encode_png(const void* image, int width, int height, int channels, int channel_bits,
                int compression, std::string* out) {
  out->clear();
  if (width == 0 || height == 0) return false;
  return encode_png_low(image, width, height, channels, channel_bits, compression, out);
}

}  // namespace af::detail::image_codec
