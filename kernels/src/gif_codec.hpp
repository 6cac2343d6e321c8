#pragma once

// GIF reading as TensorFlow's lib/gif/gif_io.cc does it (gif::Decode), on Debian's giflib.
// Private to the kernels module: DecodeGif and DecodeImage (kernels/src/image_codec_ops.cpp)
// call it.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace af::detail::gif_codec {

/// Called once the frame count and canvas size are known, before any pixel is written:
/// returns where the `num_frames * height * width * 3` RGB bytes go, or null to stop (the
/// caller keeps its own reason, as TensorFlow's allocate_output callback does).
using AllocateOutput =
    std::function<std::uint8_t*(int num_frames, int width, int height, int channels)>;

/// gif::Decode: decodes `data` to RGB frames of the size of the largest image descriptor,
/// each frame drawn over a copy of the previous one (the first over black): an image's pixels
/// outside the canvas are clipped, a pixel of the image's transparent colour index (its
/// Graphics Control Extension) keeps what was below it, black on the first frame. Disposal
/// methods are ignored, as TensorFlow ignores them. With `expand_animations` false only the
/// first frame is decoded (the canvas is still the largest image's size).
///
/// A truncated stream keeps the images read completely and drops one cut short (as the giflib
/// TensorFlow builds with); no complete image fails. Returns false with `*error` set to
/// TensorFlow's reason ("failed to open gif file: No screen descriptor detected", "failed to
/// slurp gif file: Failed to read from given file", "missing color map for frame 1", "found
/// color index 3 outside of color map range 2"), or with `*error` empty when `allocate`
/// returned null. The caller prefixes "Invalid GIF data (size N), ".
bool decode_gif(std::string_view data, bool expand_animations, const AllocateOutput& allocate,
                std::string* error);

}  // namespace af::detail::gif_codec
