// GIF decoding as TensorFlow's gif::Decode (lib/gif/gif_io.cc) on Debian's giflib. The
// record loop is DGifSlurp's, written out so that an image cut short by the end of the data
// is dropped, as the giflib TensorFlow builds with leaves it (Debian's keeps it half read).
#include "gif_codec.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

namespace af::detail::gif_codec {

namespace {

// TensorFlow's InputBufferInfo and input_callback: reads from memory, short at the end.
struct InputBuffer {
  const std::uint8_t* data;
  int bytes_left;
};

int read_input(GifFileType* gif, GifByteType* buf, int size) {
  auto* in = static_cast<InputBuffer*>(gif->UserData);
  if (in == nullptr) return 0;
  size = std::min(size, in->bytes_left);
  std::memcpy(buf, in->data, static_cast<std::size_t>(size));
  in->data += size;
  in->bytes_left -= size;
  return size;
}

// GifErrorStringNonNull.
std::string error_string(int code) {
  const char* s = GifErrorString(code);
  return s ? s : "Unknown error";
}

// What DGifSlurp keeps of one image: its descriptor, colour map, pixels and the transparent
// colour of the first Graphics Control Extension before it (DGifSavedExtensionToGCB).
struct Frame {
  int left = 0, top = 0, width = 0, height = 0;
  const ColorMapObject* color_map = nullptr;  // owned by the GifFileType
  std::vector<GifPixelType> raster;
  int transparent = NO_TRANSPARENT_COLOR;
};

// DGifCloseFile on scope exit.
struct GifCloser {
  GifFileType* gif;
  ~GifCloser() {
    int error = D_GIF_SUCCEEDED;
    if (gif) DGifCloseFile(gif, &error);
  }
};

// DGifSlurp: reads every record into `frames`. False (and gif->Error set) where the data ends
// or is malformed; the images read completely stay in `frames`.
bool slurp(GifFileType* gif, std::vector<Frame>* frames) {
  GraphicsControlBlock gcb{};
  bool have_gcb = false;
  for (;;) {
    GifRecordType type;
    if (DGifGetRecordType(gif, &type) == GIF_ERROR) return false;
    switch (type) {
      case IMAGE_DESC_RECORD_TYPE: {
        if (DGifGetImageDesc(gif) == GIF_ERROR) return false;
        const SavedImage& saved = gif->SavedImages[gif->ImageCount - 1];
        Frame f;
        f.left = saved.ImageDesc.Left;
        f.top = saved.ImageDesc.Top;
        f.width = saved.ImageDesc.Width;
        f.height = saved.ImageDesc.Height;
        f.color_map = saved.ImageDesc.ColorMap;
        if (f.width <= 0 || f.height <= 0 || f.width > INT_MAX / f.height) return false;
        f.raster.assign(static_cast<std::size_t>(f.width) * static_cast<std::size_t>(f.height), 0);
        if (saved.ImageDesc.Interlace) {
          // The four passes of an interlaced image.
          static constexpr int kOffsets[] = {0, 4, 2, 1};
          static constexpr int kJumps[] = {8, 8, 4, 2};
          for (int pass = 0; pass < 4; ++pass)
            for (int row = kOffsets[pass]; row < f.height; row += kJumps[pass])
              if (DGifGetLine(gif, f.raster.data() + static_cast<std::size_t>(row) * f.width,
                              f.width) == GIF_ERROR)
                return false;
        } else if (DGifGetLine(gif, f.raster.data(), f.width * f.height) == GIF_ERROR) {
          return false;
        }
        f.transparent = have_gcb ? gcb.TransparentColor : NO_TRANSPARENT_COLOR;
        have_gcb = false;
        frames->push_back(std::move(f));
        break;
      }
      case EXTENSION_RECORD_TYPE: {
        int code = 0;
        GifByteType* block = nullptr;
        if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return false;
        // The first Graphics Control Extension of an image decides (DGifSavedExtensionToGCB);
        // one of the wrong size leaves no transparent colour.
        if (code == GRAPHICS_EXT_FUNC_CODE && block != nullptr && !have_gcb) {
          have_gcb = true;
          gcb = GraphicsControlBlock{};
          gcb.TransparentColor = NO_TRANSPARENT_COLOR;
          DGifExtensionToGCB(block[0], block + 1, &gcb);
        }
        while (block != nullptr)
          if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return false;
        break;
      }
      case TERMINATE_RECORD_TYPE:
        if (frames->empty()) {
          gif->Error = D_GIF_ERR_NO_IMAG_DSCR;
          return false;
        }
        return true;
      default:  // UNDEFINED_RECORD_TYPE, SCREEN_DESC_RECORD_TYPE: skipped as DGifSlurp does
        break;
    }
  }
}

}  // namespace

bool decode_gif(std::string_view data, bool expand_animations, const AllocateOutput& allocate,
                std::string* error) {
  error->clear();
  InputBuffer input{reinterpret_cast<const std::uint8_t*>(data.data()),
                    static_cast<int>(data.size())};
  int open_error = D_GIF_SUCCEEDED;
  GifCloser closer{DGifOpen(&input, &read_input, &open_error)};
  if (open_error != D_GIF_SUCCEEDED || closer.gif == nullptr) {
    *error = "failed to open gif file: " + error_string(open_error);
    return false;
  }
  GifFileType* gif = closer.gif;
  std::vector<Frame> frames;
  if (!slurp(gif, &frames)) {
    // TensorFlow goes on with the images read when there is one (and logs the error).
    if (frames.empty()) {
      *error = "failed to slurp gif file: " + error_string(gif->Error);
      return false;
    }
  }
  // The canvas is as large as the largest image, whatever the screen descriptor says.
  int width = 0, height = 0;
  for (const Frame& f : frames) {
    width = std::max(width, f.width);
    height = std::max(height, f.height);
  }
  const int num_frames = expand_animations ? static_cast<int>(frames.size()) : 1;
  constexpr int kChannels = 3;
  std::uint8_t* out = allocate(num_frames, width, height, kChannels);
  if (out == nullptr) return false;
  const std::size_t frame_bytes =
      static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * kChannels;
  for (int k = 0; k < num_frames; ++k) {
    const Frame& f = frames[static_cast<std::size_t>(k)];
    std::uint8_t* dst = out + frame_bytes * static_cast<std::size_t>(k);
    if (k > 0)
      std::memcpy(dst, dst - frame_bytes, frame_bytes);
    else
      std::memset(dst, 0, frame_bytes);
    const int left = std::max(f.left, 0), top = std::max(f.top, 0);
    const int right = std::min(f.left + f.width, width);
    const int bottom = std::min(f.top + f.height, height);
    const ColorMapObject* color_map = f.color_map ? f.color_map : gif->SColorMap;
    if (color_map == nullptr) {
      *error = "missing color map for frame " + std::to_string(k);
      return false;
    }
    for (int i = top; i < bottom; ++i) {
      std::uint8_t* row = dst + static_cast<std::size_t>(i) * width * kChannels;
      for (int j = left; j < right; ++j) {
        const GifByteType index =
            f.raster[static_cast<std::size_t>(i - f.top) * f.width + (j - f.left)];
        if (index == f.transparent) continue;  // the pixel below stays (black on frame 0)
        if (index >= color_map->ColorCount) {
          *error = "found color index " + std::to_string(index) + " outside of color map range " +
                   std::to_string(color_map->ColorCount);
          return false;
        }
        const GifColorType& c = color_map->Colors[index];
        row[j * kChannels + 0] = c.Red;
        row[j * kChannels + 1] = c.Green;
        row[j * kChannels + 2] = c.Blue;
      }
    }
  }
  return true;
}

}  // namespace af::detail::gif_codec
