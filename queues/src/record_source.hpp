#pragma once

// The file formats a reader actor reads (TensorFlow's ReaderBase subclasses, minus the
// locking and queue plumbing): one source per reader, one file ("work unit") at a time.
// Calls block on file I/O; they run on the reader actor's own thread.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "actorflow/ops/status.hpp"

namespace af::detail {

/// One reader's file format.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  /// Opens `filename` (OnWorkStartedLocked): NotFound "<file>; No such file or directory".
  virtual Status open(const std::string& filename) = 0;
  /// Reads the next record (ReadLocked): sets `*produced` with key and value, or `*at_end`.
  virtual Status read(std::string* key, std::string* value, bool* produced, bool* at_end) = 0;
  /// As `read`, but the value is a view valid until the next call on this source and no
  /// key is built (`last_key` builds the key of the record produced last). For readers
  /// that decode records themselves; the default reads with `read`.
  virtual Status read_view(std::string_view* value, bool* produced, bool* at_end) {
    ACTORFLOW_RETURN_IF_ERROR(read(&view_key_, &view_value_, produced, at_end));
    *value = view_value_;
    return {};
  }
  /// The key of the record that `read_view` produced last.
  virtual std::string last_key() const { return view_key_; }
  /// As `read_view` for up to `max` records at once: `*count` views into `views`, all valid
  /// until the next call on this source; none only at the end of the file (`*at_end`) or on
  /// an error. The default reads one record with `read_view`.
  virtual Status read_views(std::int64_t max, std::string_view* views, std::int64_t* count,
                            bool* at_end) {
    bool produced = false;
    *count = 0;
    if (max <= 0) return {};
    ACTORFLOW_RETURN_IF_ERROR(read_view(views, &produced, at_end));
    *count = produced ? 1 : 0;
    return {};
  }
  /// The key of the record `back` records before the one produced last (`last_key` for 0);
  /// `back` is below the count of the last `read_views`.
  virtual std::string key_back(std::int64_t back) const {
    return back == 0 ? last_key() : std::string();
  }
  /// Ends the current file (OnWorkFinishedLocked / reset).
  virtual void close() = 0;
  /// Whether the reader's state can be saved and restored (TensorFlow: IdentityReader
  /// only; the other readers answer Unimplemented).
  virtual bool supports_serialize() const { return false; }

 private:
  std::string view_key_, view_value_;
};

struct TextLineOptions {
  std::int64_t skip_header_lines = 0;
  std::string encoding;  ///< "", "ZLIB" or "GZIP" (TextLineDataset's compression_type)
};

struct FixedLengthOptions {
  std::int64_t header_bytes = 0;
  std::int64_t record_bytes = 0;
  std::int64_t footer_bytes = 0;
  std::int64_t hop_bytes = 0;
  std::string encoding;  ///< "", "ZLIB" or "GZIP"
};

std::unique_ptr<RecordSource> make_text_line_source(TextLineOptions options);
std::unique_ptr<RecordSource> make_fixed_length_source(FixedLengthOptions options);
std::unique_ptr<RecordSource> make_tf_record_source(std::string compression_type);
std::unique_ptr<RecordSource> make_whole_file_source();
/// IdentityReader: each work unit is one record, the work string as key and value.
std::unique_ptr<RecordSource> make_identity_source();
/// LMDBReader's source (lmdb_source.cpp): each key and value of an LMDB database (a directory
/// holding data.mdb, or the .mdb file itself) in key order, read-only and without locking.
/// Errors: InvalidArgument "<LMDB's text> (LMDB file F)", e.g. "No such file or directory
/// (LMDB file F)" and "MDB_INVALID: File is not an LMDB file (LMDB file F)".
std::unique_ptr<RecordSource> make_lmdb_source();

/// TensorFlow's ReaderBaseState proto (work_started = 1, work_finished = 2,
/// num_records_produced = 3, current_work = 4), in protobuf wire format.
struct ReaderBaseState {
  std::int64_t work_started = 0;
  std::int64_t work_finished = 0;
  std::int64_t num_records_produced = 0;
  std::string current_work;
};
std::string serialize_reader_state(const ReaderBaseState& state);
/// False when `bytes` is not a valid encoding (truncated, bad tags, trailing garbage).
bool parse_reader_state(std::string_view bytes, ReaderBaseState* state);
/// The proto's text form, as TensorFlow's DebugString prints it.
std::string reader_state_debug_string(const ReaderBaseState& state);
/// absl::CEscape: C escapes for quotes, backslash, \n \r \t and octal for other
/// non-printable bytes.
std::string c_escape(std::string_view bytes);

}  // namespace af::detail
