#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "actorflow/ops/graph.hpp"
#include "actorflow/queues/queues.hpp"

namespace af {

/// A reader in a graph (TensorFlow's `tf.ReaderBase`): a stateful op whose resource is a
/// reader actor. It keeps the current file and position across steps, takes file names
/// from a string queue when it needs work, and reads one record (`read`) or several
/// (`read_up_to`) per step. When the work queue is closed and drained, `read` fails with
/// OutOfRange; a step deadline or cancellation ends a read waiting for work without
/// taking a file name.
class ReaderBase {
 public:
  /// The reader handle (a resource tensor).
  Output reader_ref() const noexcept { return handle_; }
  std::string name() const { return handle_.node()->name(); }

  /// Reads the next record: (key, value) string scalars. Keys are `file:line` (1-based) for
  /// TextLineReader, `file:record` for FixedLengthRecordReader, `file:offset` for
  /// TFRecordReader and the file name for WholeFileReader.
  std::pair<Output, Output> read(const QueueBase& queue, std::string_view name = {}) const;
  std::pair<Output, Output> read(const Output& queue_ref, std::string_view name = {}) const;
  /// Reads up to `num_records` records (1-D keys and values); fewer when a file ends.
  std::pair<Output, Output> read_up_to(const QueueBase& queue, std::int64_t num_records,
                                       std::string_view name = {}) const;
  std::pair<Output, Output> read_up_to(const Output& queue_ref, const Output& num_records,
                                       std::string_view name = {}) const;
  /// Records produced so far (int64 scalar).
  Output num_records_produced(std::string_view name = {}) const;
  /// Files finished so far (int64 scalar).
  Output num_work_units_completed(std::string_view name = {}) const;
  /// Forgets the current file and zeroes the counters.
  Operation reset(std::string_view name = {}) const;
  /// The reader's state as a string scalar (`ReaderSerializeStateV2`). As in TensorFlow,
  /// only IdentityReader supports it; the file readers fail with Unimplemented.
  Output serialize_state(std::string_view name = {}) const;
  /// Restores a state from `serialize_state` (`ReaderRestoreStateV2`; `state` must be a
  /// string scalar). Bytes that do not parse fail with InvalidArgument "Could not parse
  /// state for IdentityReader '<name>': <escaped bytes>"; a failed restore resets the reader.
  Operation restore_state(const Output& state, std::string_view name = {}) const;
  Operation restore_state(const std::string& state, std::string_view name = {}) const;

  Graph& graph() const noexcept { return *graph_; }

 protected:
  ReaderBase(Graph& g, const std::string& op, AttrMap attrs, std::string_view name,
             std::string_view shared_name);

 private:
  Graph* graph_;
  Output handle_;
};

/// `tf.TextLineReader`: one record per line, without the newline.
struct TextLineReaderOptions {
  /// Lines skipped at the start of every file.
  std::int64_t skip_header_lines = 0;
  std::string name;
  std::string shared_name;
};

class TextLineReader : public ReaderBase {
 public:
  explicit TextLineReader(Graph& g, const TextLineReaderOptions& options = {});
};

/// `tf.FixedLengthRecordReader`: records of `record_bytes` between a header and a footer;
/// `hop_bytes` > 0 makes records start every `hop_bytes` (they may overlap).
struct FixedLengthRecordReaderOptions {
  std::int64_t record_bytes = 0;
  std::int64_t header_bytes = 0;
  std::int64_t footer_bytes = 0;
  std::int64_t hop_bytes = 0;
  /// "" or "ZLIB" / "GZIP" for compressed files.
  std::string encoding;
  std::string name;
  std::string shared_name;
};

class FixedLengthRecordReader : public ReaderBase {
 public:
  FixedLengthRecordReader(Graph& g, const FixedLengthRecordReaderOptions& options);
};

/// `tf.TFRecordReader`: TFRecord files (length + masked CRC32C framing, CRCs verified); a
/// damaged file fails with DataLoss naming the file and offset.
struct TFRecordReaderOptions {
  /// "", "ZLIB" or "GZIP".
  std::string compression_type;
  std::string name;
  std::string shared_name;
};

class TFRecordReader : public ReaderBase {
 public:
  explicit TFRecordReader(Graph& g, const TFRecordReaderOptions& options = {});
};

/// `tf.WholeFileReader`: one record per file, the whole contents.
struct WholeFileReaderOptions {
  std::string name;
  std::string shared_name;
};

class WholeFileReader : public ReaderBase {
 public:
  explicit WholeFileReader(Graph& g, const WholeFileReaderOptions& options = {});
};

/// `tf.IdentityReader`: each work unit (string taken from the queue) is one record, with the
/// work string as both key and value. Its state can be serialized and restored.
struct IdentityReaderOptions {
  std::string name;
  std::string shared_name;
};

class IdentityReader : public ReaderBase {
 public:
  explicit IdentityReader(Graph& g, const IdentityReaderOptions& options = {});
};

}  // namespace af
