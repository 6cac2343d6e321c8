#pragma once

#include <string_view>

#include "actorflow/ops/graph.hpp"

/// GIF decoding (TensorFlow's `tf.io.decode_gif`; kernels/image/decode_image_op.cc and
/// lib/gif/gif_io.cc).
namespace af::image {

/// `tf.io.decode_gif(contents)`: op DecodeGif (default name "DecodeGif") of a scalar string,
/// uint8 `[num_frames, height, width, 3]` (static shape `[?, ?, ?, 3]`). The canvas is the
/// size of the largest image in the file; each frame is drawn over a copy of the one before
/// (the first over black), clipped to the canvas, the pixels of a frame's transparent colour
/// keeping what is below them. Disposal methods are ignored, as TensorFlow ignores them. A
/// file cut short keeps its whole images. PNG and JPEG contents decode too, as one frame of
/// 3 channels. Errors (InvalidArgument, the op named): "Invalid GIF data (size 62), found
/// color index 3 outside of color map range 2", "Invalid GIF data (size 68), missing color
/// map for frame 1", "Invalid GIF data (size 13), failed to open gif file: No screen
/// descriptor detected", "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP,
/// WebP required.". Not differentiable (a string input).
Output decode_gif(const Output& contents, std::string_view name = {});

}  // namespace af::image
