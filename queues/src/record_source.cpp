// TextLine, FixedLengthRecord, TFRecord and WholeFile sources (TensorFlow's
// text_line_reader_op.cc, fixed_length_record_reader_op.cc, tf_record_reader_op.cc,
// whole_file_read_ops.cc).
#include "record_source.hpp"

#include <cstring>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "record_io.hpp"

namespace af::detail {

namespace {

constexpr std::size_t kBufferSize = 256 << 10;
/// Bytes after the buffer's data that `take_lines` may load (and ignore).
constexpr std::size_t kBufferPadding = 64;

/// Opens `filename`, inflating it when `encoding` is "ZLIB" or "GZIP"; `*zlib` (when given)
/// is then the inflating stream inside `*out`, else null.
Status open_stream(const std::string& filename, const std::string& encoding,
                   std::unique_ptr<io::InputStream>* out, io::ZlibInputStream** zlib = nullptr) {
  io::Compression compression = io::Compression::none;
  ACTORFLOW_RETURN_IF_ERROR(io::parse_compression(encoding, &compression));
  std::unique_ptr<io::FileInputStream> file;
  ACTORFLOW_RETURN_IF_ERROR(io::FileInputStream::open(filename, &file));
  if (zlib != nullptr) *zlib = nullptr;
  if (compression == io::Compression::none) {
    *out = std::move(file);
  } else {
    auto inflating = std::make_unique<io::ZlibInputStream>(std::move(file), compression, filename);
    if (zlib != nullptr) *zlib = inflating.get();
    *out = std::move(inflating);
  }
  return {};
}

/// A buffered stream with line and exact-size reads.
class BufferedInput {
 public:
  void reset(std::unique_ptr<io::InputStream> stream) {
    stream_ = std::move(stream);
    buffer_.resize(kBufferSize + kBufferPadding);
    begin_ = end_ = 0;
    eof_ = false;
  }
  void close() { stream_.reset(); }

  /// Reads a line without its "\n" (and a "\r" before it). `*got` is false at end of file.
  Status read_line(std::string* line, bool* got) {
    line->clear();
    *got = false;
    for (;;) {
      if (begin_ == end_) {
        ACTORFLOW_RETURN_IF_ERROR(fill());
        if (begin_ == end_) {
          if (*got && !line->empty() && line->back() == '\r') line->pop_back();
          return {};  // end of file: a last line without "\n" was returned with *got
        }
      }
      const char* start = buffer_.data() + begin_;
      const void* nl = std::memchr(start, '\n', end_ - begin_);
      *got = true;
      if (nl) {
        std::size_t n = static_cast<const char*>(nl) - start;
        line->append(start, n);
        begin_ += n + 1;
        if (!line->empty() && line->back() == '\r') line->pop_back();
        return {};
      }
      line->append(start, end_ - begin_);
      begin_ = end_;
    }
  }

  /// As read_line, but the line is a view into the buffer (or into `carry` when it spans
  /// a refill), valid until the next read.
  Status read_line_view(std::string_view* line, bool* got) {
    *got = false;
    if (begin_ != end_) {
      const char* start = buffer_.data() + begin_;
      if (const void* nl = std::memchr(start, '\n', end_ - begin_)) {
        std::size_t n = static_cast<const char*>(nl) - start;
        begin_ += n + 1;
        if (n > 0 && start[n - 1] == '\r') --n;
        *line = std::string_view(start, n);
        *got = true;
        return {};
      }
    }
    ACTORFLOW_RETURN_IF_ERROR(read_line(&carry_, got));
    *line = carry_;
    return {};
  }

  /// Takes up to `max` lines that end in the buffer (as `read_line_view`, without refilling
  /// it: the views stay valid until the next read), and returns their count. Newlines are
  /// found 16 bytes at a time, a bit each, rather than by a memchr call per line.
  std::int64_t take_lines(std::string_view* out, std::int64_t max) {
    std::int64_t n = 0;
    const char* const base = buffer_.data();
    const char* const stop = base + end_;
    const char* line = base + begin_;
    auto take = [&](const char* nl) {
      std::size_t length = static_cast<std::size_t>(nl - line);
      if (length > 0 && nl[-1] == '\r') --length;
      out[n++] = std::string_view(line, length);
      line = nl + 1;
    };
#if defined(__SSE2__)
    const __m128i newline = _mm_set1_epi8('\n');
    for (const char* block = line; n < max && block < stop; block += 16) {
      // Loads may pass `stop` by up to 15 bytes: the padding; their bits are masked off.
      auto mask = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block)), newline)));
      if (const auto valid = static_cast<std::size_t>(stop - block); valid < 16)
        mask &= (1u << valid) - 1;
      for (; mask != 0 && n < max; mask &= mask - 1) take(block + __builtin_ctz(mask));
    }
#else
    while (n < max && line != stop) {
      const void* nl = std::memchr(line, '\n', static_cast<std::size_t>(stop - line));
      if (nl == nullptr) break;
      take(static_cast<const char*>(nl));
    }
#endif
    begin_ = static_cast<std::size_t>(line - base);
    return n;
  }

  /// Reads up to `n` bytes (fewer only at end of file).
  Status read_bytes(std::size_t n, std::string* out) {
    out->clear();
    while (out->size() < n) {
      if (begin_ == end_) {
        ACTORFLOW_RETURN_IF_ERROR(fill());
        if (begin_ == end_) return {};
      }
      std::size_t take = std::min(n - out->size(), end_ - begin_);
      out->append(buffer_.data() + begin_, take);
      begin_ += take;
    }
    return {};
  }

 private:
  Status fill() {
    begin_ = end_ = 0;
    if (eof_ || !stream_) return {};
    std::size_t got = 0;
    ACTORFLOW_RETURN_IF_ERROR(stream_->read(buffer_.data(), kBufferSize, &got));
    if (got == 0) eof_ = true;
    end_ = got;
    return {};
  }

  std::unique_ptr<io::InputStream> stream_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::string carry_;  ///< read_line_view's line when it spans a refill
};

class TextLineSource final : public RecordSource {
 public:
  explicit TextLineSource(TextLineOptions o) : options_(o) {}
  Status open(const std::string& filename) override {
    std::unique_ptr<io::InputStream> stream;
    ACTORFLOW_RETURN_IF_ERROR(open_stream(filename, options_.encoding, &stream));
    input_.reset(std::move(stream));
    filename_ = filename;
    line_number_ = 0;
    std::string skipped;
    for (std::int64_t i = 0; i < options_.skip_header_lines; ++i) {
      bool got = false;
      ACTORFLOW_RETURN_IF_ERROR(input_.read_line(&skipped, &got));
      if (!got) break;
      ++line_number_;
    }
    return {};
  }
  Status read(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    bool got = false;
    ACTORFLOW_RETURN_IF_ERROR(input_.read_line(value, &got));
    if (!got) {
      *at_end = true;
      return {};
    }
    ++line_number_;
    key->assign(filename_).append(":").append(std::to_string(line_number_));
    *produced = true;
    return {};
  }
  Status read_view(std::string_view* value, bool* produced, bool* at_end) override {
    bool got = false;
    ACTORFLOW_RETURN_IF_ERROR(input_.read_line_view(value, &got));
    if (!got) {
      *at_end = true;
      return {};
    }
    ++line_number_;
    *produced = true;
    return {};
  }
  Status read_views(std::int64_t max, std::string_view* views, std::int64_t* count,
                    bool* at_end) override {
    *count = max > 0 ? input_.take_lines(views, max) : 0;
    if (*count > 0) {
      line_number_ += *count;
      return {};
    }
    // No whole line left in the buffer: one line across the refill (or the end).
    bool produced = false;
    if (max > 0) ACTORFLOW_RETURN_IF_ERROR(read_view(views, &produced, at_end));
    *count = produced ? 1 : 0;
    return {};
  }
  std::string last_key() const override { return filename_ + ":" + std::to_string(line_number_); }
  std::string key_back(std::int64_t back) const override {
    return filename_ + ":" + std::to_string(line_number_ - back);
  }
  void close() override { input_.close(); }

 private:
  TextLineOptions options_;
  BufferedInput input_;
  std::string filename_;
  std::int64_t line_number_ = 0;
};

// TensorFlow 1.x's FixedLengthRecordReader (fixed_length_record_reader_op.cc): after the
// header, each read fills a look-ahead of record_bytes + footer_bytes; when the file ends
// before it is full (ReadNBytes' OutOfRange) the reader is at its end, so a trailing partial
// record is dropped silently, as in TensorFlow. Errors of the stream itself (DataLoss from
// inflate) fail the read. Unlike TensorFlow, whose ZlibInputStream takes a compressed
// stream cut short for a clean end of file, a ZLIB / GZIP stream that ends before its end
// marker is DataLoss here: a short epoch must not pass unnoticed.
class FixedLengthSource final : public RecordSource {
 public:
  explicit FixedLengthSource(FixedLengthOptions o) : options_(std::move(o)) {}
  Status open(const std::string& filename) override {
    std::unique_ptr<io::InputStream> stream;
    ACTORFLOW_RETURN_IF_ERROR(open_stream(filename, options_.encoding, &stream, &zlib_));
    input_.reset(std::move(stream));
    filename_ = filename;
    record_number_ = 0;
    offset_ = 0;
    // The footer is only known at the end: keep a look-ahead of footer_bytes.
    std::string header;
    ACTORFLOW_RETURN_IF_ERROR(read_bytes(static_cast<std::size_t>(options_.header_bytes), &header));
    // TensorFlow skips the header with SkipNBytes, which is OutOfRange when the file ends
    // first: the read fails and the file is not started.
    if (header.size() < static_cast<std::size_t>(options_.header_bytes)) {
      ACTORFLOW_RETURN_IF_ERROR(check_stream_end());  // a compressed stream cut short: DataLoss
      return out_of_range("reached end of file: " + filename + " has " +
                          std::to_string(header.size()) + " bytes, fewer than its header_bytes " +
                          std::to_string(options_.header_bytes));
    }
    window_.clear();
    return {};
  }
  Status read(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    const auto record = static_cast<std::size_t>(options_.record_bytes);
    const auto hop = options_.hop_bytes > 0 ? static_cast<std::size_t>(options_.hop_bytes) : record;
    const auto footer = static_cast<std::size_t>(options_.footer_bytes);
    // window_ holds the bytes from the current record's start; need record + footer bytes
    // available to know the record is not part of the footer.
    std::string more;
    if (window_.size() < record + footer) {
      ACTORFLOW_RETURN_IF_ERROR(read_bytes(record + footer - window_.size(), &more));
      window_ += more;
    }
    if (window_.size() < record + footer) {
      ACTORFLOW_RETURN_IF_ERROR(check_stream_end());
      *at_end = true;
      return {};
    }
    value->assign(window_, 0, record);
    key->assign(filename_).append(":").append(std::to_string(record_number_++));
    if (hop <= window_.size()) {
      window_.erase(0, hop);
    } else {
      // A hop beyond the bytes held skips the rest of the gap in the file.
      std::string gap;
      ACTORFLOW_RETURN_IF_ERROR(read_bytes(hop - window_.size(), &gap));
      window_.clear();
    }
    *produced = true;
    return {};
  }
  void close() override {
    input_.close();
    zlib_ = nullptr;
  }

 private:
  // input_.read_bytes, counting the (uncompressed) offset and naming it in stream errors.
  Status read_bytes(std::size_t n, std::string* out) {
    Status s = input_.read_bytes(n, out);
    if (!s.ok())
      return Status(s.code(), s.message() + " (" + position(offset_ + out->size()) + ")");
    offset_ += out->size();
    return {};
  }

  // DataLoss when the inflated stream ended before its end marker.
  Status check_stream_end() const {
    if (zlib_ == nullptr || zlib_->finished()) return {};
    return data_loss(filename_ + ": " + options_.encoding + " stream cut short before its end (" +
                     position(offset_) + ")");
  }

  // Where the reader stands, for messages.
  std::string position(std::uint64_t offset) const {
    std::string out = "record " + std::to_string(record_number_) + " of " + filename_ +
                      ", uncompressed offset " + std::to_string(offset);
    if (zlib_ != nullptr)
      out += ", compressed offset " + std::to_string(zlib_->compressed_offset());
    return out;
  }

  FixedLengthOptions options_;
  BufferedInput input_;
  io::ZlibInputStream* zlib_ = nullptr;  ///< the inflating stream inside input_, if any
  std::string filename_;
  std::string window_;
  std::int64_t record_number_ = 0;
  std::uint64_t offset_ = 0;  ///< uncompressed bytes read from the file so far
};

class TFRecordSource final : public RecordSource {
 public:
  explicit TFRecordSource(std::string compression) : compression_(std::move(compression)) {}
  Status open(const std::string& filename) override {
    filename_ = filename;
    return io::RecordReader::open(filename, compression_, &reader_);
  }
  Status read(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    const auto offset = reader_->offset();
    Status s = reader_->read(value);
    if (s.code() == Code::out_of_range) {
      *at_end = true;
      return {};
    }
    ACTORFLOW_RETURN_IF_ERROR(s);
    key->assign(filename_).append(":").append(std::to_string(offset));
    *produced = true;
    return {};
  }
  void close() override { reader_.reset(); }

 private:
  std::string compression_;
  std::string filename_;
  std::unique_ptr<io::RecordReader> reader_;
};

class WholeFileSource final : public RecordSource {
 public:
  Status open(const std::string& filename) override {
    filename_ = filename;
    std::unique_ptr<io::InputStream> stream;
    ACTORFLOW_RETURN_IF_ERROR(open_stream(filename, "", &stream));
    input_.reset(std::move(stream));
    done_ = false;
    return {};
  }
  // The whole file is the record, and its work unit ends with it (whole_file_read_ops.cc
  // sets *at_end with *produced).
  Status read(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    if (done_) {
      *at_end = true;
      return {};
    }
    value->clear();
    std::string chunk;
    do {
      ACTORFLOW_RETURN_IF_ERROR(input_.read_bytes(kBufferSize, &chunk));
      value->append(chunk);
    } while (chunk.size() == kBufferSize);
    *key = filename_;
    *produced = true;
    *at_end = true;
    done_ = true;
    return {};
  }
  void close() override { input_.close(); }
  // Its state is ReaderBase's alone, as TensorFlow's WholeFileReader stores it.
  bool supports_serialize() const override { return true; }

 private:
  std::string filename_;
  BufferedInput input_;
  bool done_ = false;
};

}  // namespace

std::unique_ptr<RecordSource> make_text_line_source(TextLineOptions o) {
  return std::make_unique<TextLineSource>(o);
}
std::unique_ptr<RecordSource> make_fixed_length_source(FixedLengthOptions o) {
  return std::make_unique<FixedLengthSource>(std::move(o));
}
std::unique_ptr<RecordSource> make_tf_record_source(std::string compression_type) {
  return std::make_unique<TFRecordSource>(std::move(compression_type));
}
std::unique_ptr<RecordSource> make_whole_file_source() {
  return std::make_unique<WholeFileSource>();
}

namespace {

/// IdentityReader's ReadLocked: the work unit is the record, produced and ended at once.
class IdentitySource final : public RecordSource {
 public:
  Status open(const std::string& work) override {
    work_ = work;
    return {};
  }
  Status read(std::string* key, std::string* value, bool* produced, bool* at_end) override {
    *key = work_;
    *value = work_;
    *produced = true;
    *at_end = true;
    return {};
  }
  void close() override {}
  bool supports_serialize() const override { return true; }

 private:
  std::string work_;
};

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

bool get_varint(std::string_view& in, std::uint64_t* v) {
  std::uint64_t result = 0;
  for (int shift = 0; shift < 70 && !in.empty(); shift += 7) {
    const auto byte = static_cast<std::uint8_t>(in.front());
    in.remove_prefix(1);
    if (shift == 63 && byte > 1) return false;  // more than 64 bits
    result |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

}  // namespace

std::unique_ptr<RecordSource> make_identity_source() { return std::make_unique<IdentitySource>(); }

std::string serialize_reader_state(const ReaderBaseState& s) {
  // proto3: fields in number order, zero values and empty bytes left out.
  std::string out;
  auto int_field = [&](int number, std::int64_t v) {
    if (v == 0) return;
    put_varint(out, static_cast<std::uint64_t>(number) << 3);
    put_varint(out, static_cast<std::uint64_t>(v));
  };
  int_field(1, s.work_started);
  int_field(2, s.work_finished);
  int_field(3, s.num_records_produced);
  if (!s.current_work.empty()) {
    put_varint(out, (4u << 3) | 2u);
    put_varint(out, s.current_work.size());
    out += s.current_work;
  }
  return out;
}

bool parse_reader_state(std::string_view in, ReaderBaseState* state) {
  ReaderBaseState s;
  while (!in.empty()) {
    std::uint64_t tag = 0;
    if (!get_varint(in, &tag)) return false;
    const std::uint64_t number = tag >> 3;
    const unsigned wire = static_cast<unsigned>(tag & 7);
    if (number == 0 || number > 0x1fffffff) return false;
    switch (wire) {
      case 0: {
        std::uint64_t v = 0;
        if (!get_varint(in, &v)) return false;
        if (number == 1)
          s.work_started = static_cast<std::int64_t>(v);
        else if (number == 2)
          s.work_finished = static_cast<std::int64_t>(v);
        else if (number == 3)
          s.num_records_produced = static_cast<std::int64_t>(v);
        break;  // other numbers: unknown fields, skipped as protobuf does
      }
      case 1:
        if (in.size() < 8) return false;
        in.remove_prefix(8);
        break;
      case 2: {
        std::uint64_t len = 0;
        if (!get_varint(in, &len) || len > in.size()) return false;
        if (number == 4) s.current_work.assign(in.substr(0, static_cast<std::size_t>(len)));
        in.remove_prefix(static_cast<std::size_t>(len));
        break;
      }
      case 5:
        if (in.size() < 4) return false;
        in.remove_prefix(4);
        break;
      default:
        return false;  // groups and undefined wire types
    }
  }
  *state = std::move(s);
  return true;
}

std::string c_escape(std::string_view bytes) {
  std::string out;
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          const char oct[] = {'\\', static_cast<char>('0' + (c >> 6)),
                              static_cast<char>('0' + ((c >> 3) & 7)),
                              static_cast<char>('0' + (c & 7))};
          out.append(oct, 4);
        } else {
          out.push_back(ch);
        }
    }
  }
  return out;
}

std::string reader_state_debug_string(const ReaderBaseState& s) {
  std::string out;
  if (s.work_started) out += "work_started: " + std::to_string(s.work_started) + "\n";
  if (s.work_finished) out += "work_finished: " + std::to_string(s.work_finished) + "\n";
  if (s.num_records_produced)
    out += "num_records_produced: " + std::to_string(s.num_records_produced) + "\n";
  if (!s.current_work.empty()) out += "current_work: \"" + c_escape(s.current_work) + "\"\n";
  return out;
}

}  // namespace af::detail
