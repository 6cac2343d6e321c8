// TensorFlow 2's summary writer resource (tensorflow/core/summary/summary_file_writer.cc,
// kernels/summary_kernels.cc): a SummaryWriter op hands out a handle, CreateSummaryFileWriter
// opens an events file behind it, the Write*Summary ops queue events to it, and
// FlushSummaryWriter / CloseSummaryWriter flush it and let it go. Private to the formats
// module; the ops are in summary_writer_ops.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actorflow/formats/event_file.hpp"
#include "actorflow/ops/resource.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/tf/event.pb.h"

namespace af::summary::detail {

/// TensorFlow's SummaryFileWriter: events wait in a queue and reach the events file
/// `<logdir>/events.out.tfevents.<seconds>.<host>.<pid>.<n>[.]<suffix>` (`n` counts the
/// process's writers from 0; the dot only when `suffix` does not start with one) when the
/// queue holds more than `max_queue` events, when `flush_millis` passed since the last flush,
/// and at `flush`. Thread-safe.
class SummaryFileWriter {
 public:
  /// Creates `logdir` when missing and the file with its first record. FailedPrecondition
  /// "<logdir> is not a directory" when `logdir` is a file; other errors name the path.
  static Status open(const std::string& logdir, std::int32_t max_queue, std::int32_t flush_millis,
                     const std::string& filename_suffix, std::shared_ptr<SummaryFileWriter>* out);
  /// Flushes (errors are lost).
  ~SummaryFileWriter();

  /// Queues `event` (whose wall time and step the caller set); flushes as the class says.
  Status write(const tensorflow::Event& event);
  /// Writes the queued events to the file and flushes it.
  Status flush();
  /// The events file's path.
  const std::string& path() const;

 private:
  SummaryFileWriter() = default;
  Status flush_locked();
  std::mutex mu_;
  std::unique_ptr<FileWriter> file_;
  std::vector<std::string> queue_;
  std::size_t max_queue_ = 10;
  std::chrono::milliseconds flush_every_{120000};
  std::chrono::steady_clock::time_point last_flush_;
};

/// What a SummaryWriter handle names: a slot in the session's resources, keyed by the op's
/// container and shared_name, that CreateSummaryFileWriter fills and CloseSummaryWriter
/// empties. Thread-safe.
class SummaryWriterResource : public ResourceBase {
 public:
  /// An empty slot; `key` is "<container>/<shared_name>" for messages.
  explicit SummaryWriterResource(std::string key) : key_(std::move(key)) {}

  /// The writer, or NotFound "Resource <key>/N10tensorflow22SummaryWriterInterfaceE does not
  /// exist." (TensorFlow's failed lookup) when none was created or it was closed.
  Status get(std::shared_ptr<SummaryFileWriter>* out) const;
  /// Opens a writer with `SummaryFileWriter::open`'s arguments unless the slot holds one
  /// (then nothing changes, as TensorFlow's LookupOrCreateResource).
  Status get_or_open(const std::string& logdir, std::int32_t max_queue, std::int32_t flush_millis,
                     const std::string& filename_suffix);
  /// Flushes the writer and empties the slot; NotFound as `get` when it is empty.
  Status close();

  /// "SummaryWriter <key>" and the file when open.
  std::string debug_string() const override;

 private:
  Status missing() const;
  std::string key_;
  mutable std::mutex mu_;
  std::shared_ptr<SummaryFileWriter> writer_;
};

/// Registers the summary writer ops and their CPU kernels (register_summary_ops calls it).
void register_summary_writer_ops();

}  // namespace af::summary::detail
