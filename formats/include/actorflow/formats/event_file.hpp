#pragma once

/// TensorFlow's events files, both ways: `FileWriter` writes
/// `<logdir>/events.out.tfevents.<seconds>.<host><suffix>` (TFRecord framing of
/// `tensorflow.Event` protos, first record the file version), which TensorBoard reads;
/// `EventFileReader` reads such files, whoever wrote them.
///
///   af::summary::FileWriter writer("/tmp/run1");
///   writer.add_summary(af::summary::scalar("loss", 0.25f), step);
///   writer.flush();

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actorflow/actors/step_stats.hpp"
#include "actorflow/ops/tensor.hpp"

namespace af::summary {

/// How a `FileWriter` names and flushes its file.
struct FileWriterOptions {
  /// Appended to the file name (TensorFlow's `filename_suffix`).
  std::string filename_suffix;
  /// Events are buffered; they reach the file at `flush`, `close`, and at the first write
  /// after this long since the last flush (TensorFlow's `flush_secs`, 120 s).
  std::chrono::milliseconds flush_every{std::chrono::seconds(120)};
};

/// Writes an events file, as TensorFlow's `tf.compat.v1.summary.FileWriter`. The constructor
/// creates `logdir` (and its parents) and the file, and writes and flushes the first record
/// `Event{wall_time: whole seconds, file_version: "brain.Event:2", source_metadata.writer:
/// "tensorflow.core.util.events_writer"}` byte for byte as TensorFlow's EventsWriter does.
/// Errors throw `af::Error` subclasses naming the file. Thread-safe.
class FileWriter {
 public:
  /// Opens a new events file in `logdir` (see the class comment).
  explicit FileWriter(const std::string& logdir, FileWriterOptions options = {});
  /// Flushes and closes; errors are lost (call `close` to see them).
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  /// Appends `Event{wall_time: now, step, summary}`; `summary` is a serialized
  /// `tensorflow.Summary` (what the summary ops output). A string that is not one throws
  /// InvalidArgument.
  void add_summary(const std::string& summary, std::int64_t step);

  /// Appends `Event{wall_time: now, step, graph_def}`; `graph_def` is a serialized GraphDef.
  void add_graph(const std::string& graph_def, std::int64_t step = 0);

  /// Appends `Event{wall_time: now, step, meta_graph_def}` (a serialized MetaGraphDef).
  void add_meta_graph(const std::string& meta_graph_def, std::int64_t step = 0);

  /// Appends `Event{wall_time: now, step, tagged_run_metadata{tag, run_metadata}}` with
  /// `metadata` as a serialized `tensorflow.RunMetadata` (`run_metadata_proto`), as
  /// TensorFlow's `FileWriter.add_run_metadata`: TensorBoard's graph dashboard shows each node's
  /// compute time for that run. A tag used before by this writer throws InvalidArgumentError
  /// "The provided tag was already used for this event type".
  void add_run_metadata(const RunMetadata& metadata, const std::string& tag, std::int64_t step = 0);

  /// Session log statuses (TensorFlow's `SessionLog.SessionStatus`).
  enum class SessionStatus { unspecified = 0, start = 1, stop = 2, checkpoint = 3 };

  /// Appends `Event{wall_time: now, step, session_log{status, checkpoint_path, msg}}`.
  void add_session_log(SessionStatus status, std::int64_t step,
                       const std::string& checkpoint_path = {}, const std::string& msg = {});

  /// Appends an already serialized `tensorflow.Event` as it is.
  void add_event(const std::string& event);

  /// Pushes the buffered events to the file.
  void flush();

  /// Flushes and closes the file. Idempotent; later adds throw FailedPrecondition.
  void close();

  /// The events file's path.
  const std::string& path() const noexcept { return path_; }

 private:
  struct Impl;
  void write_locked(const std::string& event);
  std::mutex mutex_;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  FileWriterOptions options_;
  std::chrono::steady_clock::time_point last_flush_;
  std::set<std::string> run_metadata_tags_;
};

/// `metadata` as a serialized `tensorflow.RunMetadata`: `step_stats.dev_stats` per device in
/// order of appearance, each node as `NodeExecStats{node_name, all_start_micros,
/// op_start_rel_micros: 0, op_end_rel_micros and all_end_rel_micros: its duration,
/// timeline_label: "<node> = <op>()", thread_id}` (with the same times in nanoseconds).
std::string run_metadata_proto(const RunMetadata& metadata);

/// One value of a summary, as read back.
struct SummaryValue {
  /// What the value holds.
  enum class Kind { simple_value, histogram, image, tensor, audio, other };
  std::string tag;          ///< the value's tag
  Kind kind = Kind::other;  ///< which of the fields below is set
  float simple_value = 0;   ///< for simple_value
  std::string plugin_name;  ///< the metadata's plugin, when the value carries one
  double histo_min = 0, histo_max = 0, histo_num = 0, histo_sum = 0,
         histo_sum_squares = 0;              ///< histogram
  std::vector<double> bucket_limit, bucket;  ///< histogram buckets: (limit, count) pairs
  int image_height = 0, image_width = 0, image_colorspace = 0;  ///< image
  std::string encoded;  ///< image: the PNG; tensor: a serialized TensorProto
  /// tensor: the value (TensorFlow 2's scalars are float32 scalars with plugin "scalars");
  /// empty (dtype invalid) when its dtype is one actorflow lacks or it does not decode.
  Tensor tensor;
};

/// One event, as read back: the fields TensorBoard uses.
struct Event {
  double wall_time = 0;               ///< seconds since the epoch
  std::int64_t step = 0;              ///< the global step
  std::string file_version;           ///< set on a file's first event ("brain.Event:2")
  std::string source_writer;          ///< source_metadata.writer
  bool has_summary = false;           ///< whether the event holds a summary
  std::vector<SummaryValue> summary;  ///< its values
  std::string graph_def;              ///< a serialized GraphDef, when the event holds one
  std::string meta_graph_def;         ///< a serialized MetaGraphDef, when the event holds one
  int session_log_status = -1;        ///< SessionLog status, -1 when the event holds none
  std::string checkpoint_path;        ///< SessionLog's checkpoint path
  std::string run_metadata_tag;       ///< TaggedRunMetadata's tag, when the event holds one
  std::string run_metadata;           ///< ... and its serialized RunMetadata
};

/// Reads an events file record by record (a file still being written yields its new records
/// on later calls). Errors throw `af::Error` subclasses: NotFound for a missing file;
/// DataLoss "<file>: corrupted record at <offset>" or "truncated record at <offset>" for bad
/// framing; DataLoss "<file>: the record at <offset> is not an Event" for bytes that do not
/// parse.
class EventFileReader {
 public:
  /// Opens `path`.
  explicit EventFileReader(const std::string& path);
  ~EventFileReader();
  EventFileReader(const EventFileReader&) = delete;
  EventFileReader& operator=(const EventFileReader&) = delete;

  /// The next event; nullopt at the end of the file (so far).
  std::optional<Event> next();

  /// The next record's raw bytes (a serialized Event); nullopt at the end.
  std::optional<std::string> next_record();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Every event in the file at `path` (see `EventFileReader` for the errors).
std::vector<Event> read_events(const std::string& path);

/// The events files in `logdir` (basename containing "tfevents"), sorted by name, as
/// TensorBoard finds them.
std::vector<std::string> event_files(const std::string& logdir);

}  // namespace af::summary
