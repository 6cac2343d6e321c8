#pragma once

/// TensorFlow 1.x's summary ops in graphs (`tf.compat.v1.summary`): ScalarSummary,
/// HistogramSummary, ImageSummary, AudioSummaryV2, TensorSummaryV2 (text and tensors) and
/// MergeSummary, each a node whose
/// output is a serialized `tensorflow.Summary` string for `af::summary::FileWriter::add_summary`.
///
///   af::Output s = af::summary::scalar("loss", loss);    // joins the "summaries" collection
///   af::Output all = af::summary::merge_all(g);           // MergeSummary of that collection
///   auto [bytes] = sess.run({all}) ...; writer.add_summary(bytes.scalar<std::string>(), step);

#include <optional>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"

namespace af::summary {

/// The collection summary ops join by default (`tf.GraphKeys.SUMMARIES`).
inline constexpr const char* kSummariesCollection = "summaries";

/// Registers the summary ops with their CPU kernels (once; the functions below, graph
/// imports and servers call it).
void register_summary_ops();

/// `tf.compat.v1.summary.scalar(name, tensor)`: op ScalarSummary named after the
/// uniquified name scope `name` (illegal tag characters replaced by `_`), whose tag is that
/// scope's full name; `tensor` is a real-valued scalar. Added to `collections` (default
/// {"summaries"}; an empty list adds it nowhere). Running it with tags and values of different
/// shapes fails with InvalidArgument "tags and values are not the same shape: ...".
Output scalar(const std::string& name, const Output& tensor,
              const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.histogram(name, values)`: op HistogramSummary over all elements
/// of `values` (TensorFlow's default buckets). Running it over a NaN or an infinity fails
/// with InvalidArgument "Nan in summary histogram for: <op name>".
Output histogram(const std::string& name, const Output& values,
                 const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.image(name, tensor, max_outputs)`: op ImageSummary (max_images,
/// bad_color red) over a [batch, height, width, channels] tensor (channels 1, 3 or 4; uint8,
/// float32 or float64): one PNG per image of the first `max_outputs`, tagged
/// "<tag>/image/<i>" ("<tag>/image" when `max_outputs` is 1). Float images are scaled as
/// TensorFlow does: by 255 / max when no value is negative, else by 127 / max|v| around 128.
/// Running it on another shape fails with InvalidArgument "Tensor must be 4-D with last dim
/// 1, 3, or 4, not [...]".
Output image(const std::string& name, const Output& tensor, int max_outputs = 3,
             const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.text(name, tensor)`: op TensorSummaryV2 of a string tensor with
/// the text plugin's metadata, as TensorBoard's Text dashboard reads it. Throws
/// InvalidArgumentError for a tensor of another dtype.
Output text(const std::string& name, const Output& tensor,
            const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.audio(name, tensor, sample_rate, max_outputs)`: op AudioSummaryV2
/// (max_outputs) of a float [batch, frames] or [batch, frames, channels] tensor in [-1, 1]
/// with the float Const "<scope>/sample_rate": one 16-bit PCM WAV per clip of the first
/// `max_outputs`, tagged "<tag>/audio/<i>" ("<tag>/audio" when `max_outputs` is 1). Running it
/// on another rank fails with InvalidArgument "Tensor must be 3-D or 2-D, got: [...]", with a
/// rate of 0 or less "sample_rate must be > 0".
Output audio(const std::string& name, const Output& tensor, float sample_rate, int max_outputs = 3,
             const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.tensor_summary(name, tensor, summary_description, ...,
/// display_name)`: op TensorSummaryV2 of any tensor, its metadata holding `display_name` and
/// `description` (and no plugin), read back as a tensor value.
Output tensor_summary(const std::string& name, const Output& tensor,
                      const std::string& description = {}, const std::string& display_name = {},
                      const std::optional<std::vector<std::string>>& collections = std::nullopt);

/// `tf.compat.v1.summary.merge(inputs)`: op MergeSummary (scope "Merge") of serialized
/// summaries; a tag seen twice fails with InvalidArgument "Duplicate tag ... found in summary
/// inputs".
Output merge(const std::vector<Output>& inputs, const std::string& name = {});

/// `tf.compat.v1.summary.merge_all()`: `merge` of the summaries in collection `key`, or
/// nullopt when it is empty (TensorFlow returns None).
std::optional<Output> merge_all(Graph& g, const std::string& key = kSummariesCollection);

}  // namespace af::summary
