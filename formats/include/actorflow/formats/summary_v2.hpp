#pragma once

/// TensorFlow 2's summary API in a graph (`tf.summary` under `tf.compat.v1`): a summary
/// writer resource that writes its own events file, and summary ops that write to it when
/// they run (no FileWriter, no merged summary to fetch).
///
///   auto writer = af::summary::v2::create_file_writer(g, "/tmp/run1");
///   af::summary::v2::scalar(writer, "loss", loss, step);   // step: an int64 scalar
///   sess.run({}, {writer.init}); ...; sess.run({}, {v2::all_v2_summary_ops(g)...});
///   sess.run({}, {writer.flush()});
///
/// The events file is TensorFlow 2's: `events.out.tfevents.<seconds>.<host>.<pid>.<n>.v2`,
/// scalars and text as tensors with TensorBoard's plugin metadata. Graphs TensorFlow built
/// with `tf.summary.create_file_writer` import and run as they are.

#include <cstdint>
#include <string>
#include <vector>

#include "actorflow/ops/graph.hpp"

namespace af::summary::v2 {

/// The collection of the writers' init ops (`_SUMMARY_WRITER_V2`, what
/// `tf.compat.v1.summary.summary_writer_initializer_op()` groups).
inline constexpr const char* kWriterInitCollection = "_SUMMARY_WRITER_V2";
/// The collection of the summary ops' results (`_SUMMARY_V2`, what
/// `tf.compat.v1.summary.all_v2_summary_ops()` returns).
inline constexpr const char* kSummaryCollection = "_SUMMARY_V2";

/// How `create_file_writer` names and flushes its file (`tf.summary.create_file_writer`'s
/// arguments and defaults).
struct FileWriterOptions {
  std::int32_t max_queue = 10;          ///< events queued before a flush
  std::int32_t flush_millis = 120000;   ///< longest time between flushes
  std::string filename_suffix = ".v2";  ///< ends the events file's name
  std::string name;                     ///< the scope (default "create_file_writer")
};

/// A summary writer in a graph: its handle and the op that opens its file.
struct SummaryWriter {
  Output handle;   ///< SummaryWriter `<scope>/SummaryWriter`, shared_name the scope
  Operation init;  ///< CreateSummaryFileWriter: opens the file (again after `close`)
  /// A new FlushSummaryWriter op (`writer.flush()`).
  Operation flush(std::string_view name = {}) const;
  /// A new CloseSummaryWriter op (`writer.close()`): flushes and closes the file; writing
  /// before `init` runs again fails with NotFound.
  Operation close(std::string_view name = {}) const;
};

/// `tf.summary.create_file_writer(logdir, ...)` in a graph: under the uniquified scope
/// (`options.name`, default "create_file_writer") on the CPU, Consts for the arguments, a
/// SummaryWriter and its CreateSummaryFileWriter, which joins `kWriterInitCollection`.
/// Writing through a writer whose init has not run fails with NotFound "Resource
/// localhost/<scope>/N10tensorflow22SummaryWriterInterfaceE does not exist.".
SummaryWriter create_file_writer(Graph& g, const std::string& logdir,
                                 const FileWriterOptions& options = {});

/// `tf.summary.write(tag, tensor, step, metadata)`: under scope "write_summary" (in the
/// current one) a WriteSummary of `tensor` (any dtype, any shape) at `step` (int64 scalar)
/// with `metadata` (a serialized `tensorflow.SummaryMetadata`, empty for none), and a bool
/// Const `true` that runs after it; the Const joins `kSummaryCollection` and is returned.
Output write(const SummaryWriter& writer, const std::string& tag, const Output& tensor,
             const Output& step, const std::string& metadata = {});

/// `tf.summary.scalar(name, data, step)` (TensorBoard's scalar_v2): `write` of `data` cast to
/// float32 with the "scalars" plugin's metadata, in scope `name`; the tag is the current
/// name scope plus `name` (not uniquified). Throws InvalidArgumentError when `data` is not a
/// scalar or not real.
Output scalar(const SummaryWriter& writer, const std::string& name, const Output& data,
              const Output& step);

/// `tf.summary.text(name, data, step)`: `write` of a string tensor with the "text" plugin's
/// metadata. Throws InvalidArgumentError for another dtype.
Output text(const SummaryWriter& writer, const std::string& name, const Output& data,
            const Output& step);

/// `tf.summary.histogram(name, data, step, buckets)` (TensorBoard's histogram_v2): `write` of
/// a float64 [buckets, 3] tensor of (left edge, right edge, count) rows with the
/// "histograms" plugin's metadata, computed in the graph as TensorBoard computes it: `buckets`
/// equal-width buckets from the minimum to the maximum of `data` (any shape, cast to
/// float64), the last right edge exactly the maximum; all counts in the last bucket when every
/// value is the same; zeros when `data` is empty; a [0, 3] tensor when `buckets` is 0.
Output histogram(const SummaryWriter& writer, const std::string& name, const Output& data,
                 const Output& step, int buckets = 30);

/// `tf.summary.image(name, data, step, max_outputs)` (TensorBoard's image_v2): `write` of a
/// string tensor [width, height, PNG...] with the "images" plugin's metadata: `data`, a
/// [batch, height, width, 1|3|4] uint8 or float tensor (floats in [0, 1], scaled by 255.5
/// and clamped as `tf.image.convert_image_dtype(saturate=True)`), its first `max_outputs`
/// images as PNGs. Throws InvalidArgumentError for a known rank other than 4 or another
/// dtype.
Output image(const SummaryWriter& writer, const std::string& name, const Output& data,
             const Output& step, int max_outputs = 3);

/// `tf.summary.experimental.write_raw_pb(tensor, step)`: WriteRawProtoSummary of serialized
/// `tensorflow.Summary` strings (what the v1 summary ops output) as one event. Returns its
/// bool Const, in `kSummaryCollection`.
Output write_raw_pb(const SummaryWriter& writer, const Output& summaries, const Output& step);

/// `tf.summary.graph` / `tf.contrib.summary.graph`: WriteGraphSummary of a serialized
/// GraphDef (string scalar), an event with `graph_def` that TensorBoard's graph dashboard
/// shows. Returns its bool Const, in `kSummaryCollection` (as the writes below).
Output write_graph(const SummaryWriter& writer, const Output& graph_def, const Output& step);

/// `tf.contrib.summary.histogram`: WriteHistogramSummary, a legacy histogram value with
/// TensorFlow's default buckets (InvalidArgument "Nan in summary histogram for: <tag>").
Output write_histogram(const SummaryWriter& writer, const std::string& tag, const Output& values,
                       const Output& step);

/// `tf.contrib.summary.image`: WriteImageSummary, up to `max_images` PNG values of a
/// [batch, height, width, 1|3|4] uint8, float32 or float64 tensor (non-finite pixels red).
Output write_image(const SummaryWriter& writer, const std::string& tag, const Output& images,
                   const Output& step, int max_images = 3);

/// `tf.contrib.summary.audio`: WriteAudioSummary, up to `max_outputs` WAV values of a
/// float [batch, frames(, channels)] tensor at `sample_rate` Hz.
Output write_audio(const SummaryWriter& writer, const std::string& tag, const Output& audio,
                   float sample_rate, const Output& step, int max_outputs = 3);

/// `tf.compat.v1.summary.all_v2_summary_ops()`: the members of `kSummaryCollection`.
std::vector<Output> all_v2_summary_ops(Graph& g);

/// `tf.compat.v1.summary.summary_writer_initializer_op()`: the members of
/// `kWriterInitCollection`.
std::vector<Operation> summary_writer_initializer_ops(Graph& g);

}  // namespace af::summary::v2
