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
  /// The reader op's name.
  std::string name() const { return handle_.node()->name(); }

  /// Reads the next record: (key, value) string scalars. Keys are `file:line` (1-based) for
  /// TextLineReader, `file:record` for FixedLengthRecordReader, `file:offset` for
  /// TFRecordReader, the file name for WholeFileReader and the database's key for
  /// LMDBReader.
  std::pair<Output, Output> read(const QueueBase& queue, std::string_view name = {}) const;
  /// As above, taking work from the string queue `queue_ref`.
  std::pair<Output, Output> read(const Output& queue_ref, std::string_view name = {}) const;
  /// Reads up to `num_records` records (1-D keys and values); fewer when a file ends. As
  /// TensorFlow's ReaderReadUpTo: 0 reads nothing, a negative count reads the rest of the
  /// current file (the next non-empty one when none is open).
  std::pair<Output, Output> read_up_to(const QueueBase& queue, std::int64_t num_records,
                                       std::string_view name = {}) const;
  /// As above with the queue handle and an int64 scalar `num_records`.
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
  /// As above with `state` as a constant.
  Operation restore_state(const std::string& state, std::string_view name = {}) const;

  /// The graph the reader op was built in.
  Graph& graph() const noexcept { return *graph_; }

 protected:
  /// Adds the reader op `op` (named `name`, default `op`) to `g`.
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
  std::string name;         ///< the reader op's name (default: the op type)
  std::string shared_name;  ///< readers with the same non-empty one share state; "" = per session
};

/// `tf.TextLineReader` (see TextLineReaderOptions).
class TextLineReader : public ReaderBase {
 public:
  /// Adds the reader op to `g`.
  explicit TextLineReader(Graph& g, const TextLineReaderOptions& options = {});
};

/// `tf.FixedLengthRecordReader`: records of `record_bytes` between a header and a footer;
/// `hop_bytes` > 0 makes records start every `hop_bytes` (they may overlap).
struct FixedLengthRecordReaderOptions {
  /// Bytes per record (must be > 0).
  std::int64_t record_bytes = 0;
  /// Bytes skipped at the start of every file.
  std::int64_t header_bytes = 0;
  /// Bytes ignored at the end of every file.
  std::int64_t footer_bytes = 0;
  /// Distance between record starts; 0 = `record_bytes`.
  std::int64_t hop_bytes = 0;
  /// "" or "ZLIB" / "GZIP" for compressed files.
  std::string encoding;
  std::string name;         ///< the reader op's name (default: the op type)
  std::string shared_name;  ///< readers with the same non-empty one share state; "" = per session
};

/// `tf.FixedLengthRecordReader` (see FixedLengthRecordReaderOptions).
class FixedLengthRecordReader : public ReaderBase {
 public:
  /// Adds the reader op to `g`; throws InvalidArgumentError when `record_bytes <= 0`.
  FixedLengthRecordReader(Graph& g, const FixedLengthRecordReaderOptions& options);
};

/// `tf.TFRecordReader`: TFRecord files (length + masked CRC32C framing, CRCs verified); a
/// damaged file fails with DataLoss naming the file and offset.
struct TFRecordReaderOptions {
  /// "", "ZLIB" or "GZIP".
  std::string compression_type;
  std::string name;         ///< the reader op's name (default: the op type)
  std::string shared_name;  ///< readers with the same non-empty one share state; "" = per session
};

/// `tf.TFRecordReader` (see TFRecordReaderOptions).
class TFRecordReader : public ReaderBase {
 public:
  /// Adds the reader op to `g`.
  explicit TFRecordReader(Graph& g, const TFRecordReaderOptions& options = {});
};

/// `tf.WholeFileReader`: one record per file, the whole contents.
struct WholeFileReaderOptions {
  std::string name;         ///< the reader op's name (default: the op type)
  std::string shared_name;  ///< readers with the same non-empty one share state; "" = per session
};

/// `tf.WholeFileReader` (see WholeFileReaderOptions).
class WholeFileReader : public ReaderBase {
 public:
  /// Adds the reader op to `g`.
  explicit WholeFileReader(Graph& g, const WholeFileReaderOptions& options = {});
};

/// `tf.IdentityReader`: each work unit (string taken from the queue) is one record, with the
/// work string as both key and value. Its state can be serialized and restored.
struct IdentityReaderOptions {
  std::string name;         ///< the reader op's name (default: the op type)
  std::string shared_name;  ///< readers with the same non-empty one share state; "" = per session
};

/// `tf.IdentityReader` (see IdentityReaderOptions).
class IdentityReader : public ReaderBase {
 public:
  /// Adds the reader op to `g`.
  explicit IdentityReader(Graph& g, const IdentityReaderOptions& options = {});
};

/// `tf.compat.v1.LMDBReader`: the key and value of each entry of an LMDB database, in key
/// order; a work unit names the database's directory or its `.mdb` file.
struct LMDBReaderOptions {
  std::string name;         ///< the reader op's name (default: the op type)
  std::string shared_name;  ///< readers with the same non-empty one share state; "" = per session
};

/// `tf.compat.v1.LMDBReader` (see LMDBReaderOptions): the op "LMDBReader" (TensorFlow has
/// no V2 form of it). Keys are the database's keys. A file that is not an LMDB database fails
/// the read with InvalidArgument "<LMDB's text> (LMDB file F)", where TensorFlow's reader
/// aborts the process; the state cannot be serialized (Unimplemented, as TensorFlow).
class LMDBReader : public ReaderBase {
 public:
  /// Adds the reader op to `g`.
  explicit LMDBReader(Graph& g, const LMDBReaderOptions& options = {});
};

}  // namespace af
