// Tensors into summary values, as TensorFlow's summary kernels and its summary writer's
// converters (tensorflow/core/summary/summary_converter.cc, kernels/summary_image_op.cc,
// summary_audio_op.cc, summary_tensor_op.cc) build them. Shared by the v1 summary ops
// (summary_ops.cpp) and the summary writer ops (summary_writer_ops.cpp). Private to the
// formats module. Errors are TensorFlow's InvalidArgument messages.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/tf/summary.pb.h"
#include "actorflow/tf/tensor.pb.h"

namespace af::summary::detail {

/// The elements of a real-valued tensor as doubles (TensorValueAt). Bool counts as real only
/// when `allow_bool` (WriteHistogramSummary takes it; the v1 ops do not); other dtypes are
/// InvalidArgument "summary values must be real numbers, not <dtype>".
Status to_doubles(const Tensor& t, std::vector<double>* out, bool allow_bool = false);

/// A summary value's tensor: strings in `string_val` (TensorFlow's AsProtoField), every
/// other dtype as raw `tensor_content` (AsProtoTensorContent), scalars included.
/// InvalidArgument for a resource or variant tensor, naming `where`.
Status tensor_proto(const Tensor& t, tensorflow::TensorProto* out, const std::string& where);

/// Appends `{tag, simple_value}` with the tensor's first element as a float
/// (AddTensorAsScalarToSummary). InvalidArgument for an empty tensor (where TensorFlow reads
/// out of bounds) or a non-real dtype.
Status add_scalar(const Tensor& t, const std::string& tag, tensorflow::Summary* s);

/// Appends `{tag, histo}` over every element with TensorFlow's default buckets
/// (AddTensorAsHistogramToSummary). InvalidArgument "Nan in summary histogram for: <tag>" or
/// "Infinity in summary histogram for: <tag>".
Status add_histogram(const Tensor& t, const std::string& tag, tensorflow::Summary* s);

/// Appends up to `max_images` PNG images of a [batch, height, width, 1|3|4] uint8, float32
/// or float64 tensor, tagged "<tag>/image" (`max_images` 1) or "<tag>/image/<i>"
/// (AddTensorAsImageToSummary, ImageSummary). Float images are scaled per image: by
/// 255 / max when no finite value is negative, else by 127 / max|v| around 128; pixels with a
/// non-finite channel take `bad_color`, which must hold at least `channels` bytes.
Status add_images(const Tensor& t, const std::string& tag, int max_images,
                  std::span<const std::uint8_t> bad_color, tensorflow::Summary* s);

/// Appends up to `max_outputs` 16-bit PCM WAVs of a float [batch, frames] or
/// [batch, frames, channels] tensor, tagged "<tag>/audio" (`max_outputs` 1) or
/// "<tag>/audio/<i>", with the sample rate (rounded to an integer, at least 1, in the WAV
/// header) and "audio/wav" (AddTensorAsAudioToSummary, AudioSummaryV2). InvalidArgument
/// "sample_rate must be > 0" or "Tensor must be 3-D or 2-D, got: <shape>".
Status add_audio(const Tensor& t, const std::string& tag, int max_outputs, float sample_rate,
                 tensorflow::Summary* s);

}  // namespace af::summary::detail
