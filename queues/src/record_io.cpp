#include "record_io.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <limits>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#include "actorflow/ops/detail/errno_status.hpp"

namespace af::io {

// -- crc32c -----------------------------------------------------------------------

namespace {

// Castagnoli polynomial, bit-reversed.
constexpr std::uint32_t crc32c_polynomial = 0x82f63b78u;

// Slicing-by-8 tables: tables[0] is the classic byte-at-a-time table, tables[k][b] is the CRC
// of byte b followed by k zero bytes.
using Crc32cTables = std::array<std::array<std::uint32_t, 256>, 8>;

constexpr Crc32cTables make_crc32c_tables() {
  Crc32cTables tables{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? crc32c_polynomial : 0u);
    tables[0][b] = crc;
  }
  for (std::size_t k = 1; k < 8; ++k) {
    for (std::size_t b = 0; b < 256; ++b) {
      const std::uint32_t prev = tables[k - 1][b];
      tables[k][b] = (prev >> 8) ^ tables[0][prev & 0xffu];
    }
  }
  return tables;
}

constexpr Crc32cTables crc32c_tables = make_crc32c_tables();

// Little-endian loads assembled from bytes, so the table code is endian-independent; compilers
// turn them into single loads on little-endian targets.
inline std::uint32_t load_le32(const unsigned char* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

inline std::uint64_t load_le64(const unsigned char* p) {
  return std::uint64_t{load_le32(p)} | (std::uint64_t{load_le32(p + 4)} << 32);
}

inline void store_le32(char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}

inline void store_le64(char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xffu);
}

std::uint32_t crc32c_extend_tables(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  const auto& t = crc32c_tables;
  crc = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    const std::uint32_t lo = load_le32(p) ^ crc;
    const std::uint32_t hi = load_le32(p + 4);
    crc = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^ t[4][lo >> 24] ^
          t[3][hi & 0xffu] ^ t[2][(hi >> 8) & 0xffu] ^ t[1][(hi >> 16) & 0xffu] ^ t[0][hi >> 24];
  }
  for (; n > 0; ++p, --n) crc = t[0][(crc ^ *p) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

using Crc32cExtendFn = std::uint32_t (*)(std::uint32_t, const unsigned char*, std::size_t);

#if defined(__x86_64__)
// Debian builds for baseline x86-64, so the SSE4.2 path is compiled for that target alone and
// chosen at run time.
__attribute__((target("sse4.2"))) std::uint32_t crc32c_extend_sse42(std::uint32_t crc,
                                                                    const unsigned char* p,
                                                                    std::size_t n) {
  std::uint64_t crc64 = ~crc;
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    crc64 = _mm_crc32_u64(crc64, word);
  }
  auto crc32 = static_cast<std::uint32_t>(crc64);
  for (; n > 0; ++p, --n) crc32 = _mm_crc32_u8(crc32, *p);
  return ~crc32;
}
#endif

Crc32cExtendFn select_crc32c_extend() {
#if defined(__x86_64__) && defined(__SSE4_2__)
  return crc32c_extend_sse42;
#elif defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2") ? crc32c_extend_sse42 : crc32c_extend_tables;
#else
  return crc32c_extend_tables;
#endif
}

}  // namespace

std::uint32_t crc32c_extend_portable(std::uint32_t crc, const void* data, std::size_t n) {
  return crc32c_extend_tables(crc, static_cast<const unsigned char*>(data), n);
}

std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t n) {
  static const Crc32cExtendFn extend = select_crc32c_extend();
  return extend(crc, static_cast<const unsigned char*>(data), n);
}

// -- helpers -------------------------------------------------------------------------

Status parse_compression(std::string_view name, Compression* out) {
  if (name.empty()) {
    *out = Compression::none;
  } else if (name == "ZLIB") {
    *out = Compression::zlib;
  } else if (name == "GZIP") {
    *out = Compression::gzip;
  } else {
    return invalid_argument("Not a valid compression_type: \"" + std::string(name) + "\"");
  }
  return ok_status();
}

Status io_error(std::string_view context, int error) {
  return detail::errno_status(context, error);
}

// -- input streams ------------------------------------------------------------------

Status FileInputStream::open(const std::string& path, std::unique_ptr<FileInputStream>* out) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return io_error(path, errno);
  out->reset(new FileInputStream(path, fd));
  return ok_status();
}

FileInputStream::~FileInputStream() { ::close(fd_); }

Status FileInputStream::read(char* buffer, std::size_t n, std::size_t* got) {
  *got = 0;
  // read(2) transfers at most about 2 GiB at once on Linux anyway.
  n = std::min<std::size_t>(n, std::size_t{1} << 30);
  for (;;) {
    const ssize_t r = ::read(fd_, buffer, n);
    if (r >= 0) {
      *got = static_cast<std::size_t>(r);
      return ok_status();
    }
    if (errno != EINTR) return io_error(path_, errno);
  }
}

Status MemoryInputStream::read(char* buffer, std::size_t n, std::size_t* got) {
  *got = std::min(n, data_.size());
  if (*got > 0) std::memcpy(buffer, data_.data(), *got);
  data_.remove_prefix(*got);
  return ok_status();
}

struct ZlibInputStream::State {
  z_stream stream{};
};

ZlibInputStream::ZlibInputStream(std::unique_ptr<InputStream> source, Compression compression,
                                 std::string name, std::size_t input_buffer_size)
    : source_(std::move(source)),
      name_(std::move(name)),
      input_(new char[input_buffer_size]),
      input_capacity_(std::min<std::size_t>(input_buffer_size, UINT_MAX)),
      state_(std::make_unique<State>()) {
  const int window_bits = compression == Compression::gzip ? MAX_WBITS + 16 : MAX_WBITS;
  const int rc = inflateInit2(&state_->stream, window_bits);
  if (rc != Z_OK) {
    failure_ = internal(name_ + ": inflateInit2() failed with error " + std::to_string(rc));
    state_.reset();
  }
}

ZlibInputStream::~ZlibInputStream() {
  if (state_) inflateEnd(&state_->stream);
}

std::uint64_t ZlibInputStream::compressed_offset() const noexcept {
  return state_ ? static_cast<std::uint64_t>(state_->stream.total_in) : 0;
}

Status ZlibInputStream::read(char* buffer, std::size_t n, std::size_t* got) {
  *got = 0;
  if (!failure_.ok()) return failure_;
  if (finished_ || n == 0) return ok_status();
  z_stream& z = state_->stream;
  const auto wanted = static_cast<uInt>(std::min<std::size_t>(n, UINT_MAX));
  z.next_out = reinterpret_cast<Bytef*>(buffer);
  z.avail_out = wanted;
  while (z.avail_out == wanted) {
    if (z.avail_in == 0) {
      std::size_t fetched = 0;
      Status s = source_->read(input_.get(), input_capacity_, &fetched);
      if (!s.ok()) {
        failure_ = std::move(s);
        return failure_;
      }
      // End of the compressed input for now; a stream cut short ends here too.
      if (fetched == 0) break;
      z.next_in = reinterpret_cast<Bytef*>(input_.get());
      z.avail_in = static_cast<uInt>(fetched);
    }
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      finished_ = true;
      break;
    }
    // Z_BUF_ERROR with input left would mean no progress at all; zlib rules it out, but a
    // loop that cannot end is worse than an error.
    if (rc == Z_OK || (rc == Z_BUF_ERROR && z.avail_in == 0)) continue;
    std::string message = name_ + ": inflate() failed with error " + std::to_string(rc);
    if (z.msg != nullptr) {
      message += ": ";
      message += z.msg;
    }
    failure_ = data_loss(std::move(message));
    return failure_;
  }
  *got = wanted - z.avail_out;
  return ok_status();
}

// -- RecordReader ---------------------------------------------------------------------

Status RecordReader::open(const std::string& path, const std::string& compression_type,
                          std::unique_ptr<RecordReader>* out) {
  Compression compression;
  ACTORFLOW_RETURN_IF_ERROR(parse_compression(compression_type, &compression));
  std::unique_ptr<FileInputStream> file;
  ACTORFLOW_RETURN_IF_ERROR(FileInputStream::open(path, &file));
  *out = std::make_unique<RecordReader>(std::move(file), compression, path);
  return ok_status();
}

RecordReader::RecordReader(std::unique_ptr<InputStream> source, Compression compression,
                           std::string name, std::size_t buffer_size)
    : name_(std::move(name)),
      buffer_(new char[std::max(buffer_size, record_header_size)]),
      capacity_(std::max(buffer_size, record_header_size)) {
  if (compression == Compression::none) {
    source_ = std::move(source);
  } else {
    source_ = std::make_unique<ZlibInputStream>(std::move(source), compression, name_, capacity_);
  }
}

RecordReader::~RecordReader() = default;

Status RecordReader::fill(std::size_t n) {
  if (end_ - begin_ >= n) return ok_status();
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  while (end_ < n) {
    std::size_t got = 0;
    ACTORFLOW_RETURN_IF_ERROR(source_->read(buffer_.get() + end_, capacity_ - end_, &got));
    if (got == 0) break;
    end_ += got;
  }
  return ok_status();
}

Status RecordReader::read_n(std::size_t n, std::string* out) {
  out->clear();
  out->reserve(std::min(n, capacity_));
  while (out->size() < n) {
    const std::size_t remaining = n - out->size();
    if (begin_ == end_) {
      begin_ = end_ = 0;
      if (remaining >= capacity_) {
        // Large records bypass the buffer. The string grows only as data arrives, so a
        // corrupted length cannot make us allocate more than the stream holds.
        const std::size_t old_size = out->size();
        const std::size_t chunk = std::min(remaining, 4 * capacity_);
        out->resize(old_size + chunk);
        std::size_t got = 0;
        Status s = source_->read(out->data() + old_size, chunk, &got);
        out->resize(old_size + got);
        ACTORFLOW_RETURN_IF_ERROR(s);
        if (got == 0) break;
        continue;
      }
      std::size_t got = 0;
      ACTORFLOW_RETURN_IF_ERROR(source_->read(buffer_.get(), capacity_, &got));
      if (got == 0) break;
      end_ = got;
    }
    const std::size_t take = std::min(remaining, end_ - begin_);
    out->append(buffer_.get() + begin_, take);
    begin_ += take;
  }
  return ok_status();
}

Status RecordReader::data_loss(std::string_view what, std::uint64_t at) const {
  std::string message = name_ + ": " + std::string(what) + " at " + std::to_string(at);
  // TFRecord files carry no magic number; TensorFlow hints at that for failures at offset 0.
  if (at == 0 && what == "corrupted record") message += " (Is this even a TFRecord file?)";
  return af::data_loss(std::move(message));
}

Status RecordReader::read(std::string* record) {
  if (!failure_.ok()) return failure_;
  Status s = fill(record_header_size);
  if (!s.ok()) {
    failure_ = std::move(s);
    return failure_;
  }
  // As TensorFlow: data that ends before a whole header is a clean end of the file. The
  // partial header stays buffered for a later call.
  if (end_ - begin_ < record_header_size) {
    return out_of_range(name_ + ": end of file at " + std::to_string(offset_));
  }
  const auto* header = reinterpret_cast<const unsigned char*>(buffer_.get() + begin_);
  const std::uint64_t length = load_le64(header);
  if (unmask_crc(load_le32(header + sizeof(std::uint64_t))) !=
      crc32c(header, sizeof(std::uint64_t))) {
    failure_ = data_loss("corrupted record", offset_);
    return failure_;
  }
  begin_ += record_header_size;

  if (length >= std::numeric_limits<std::size_t>::max() - record_footer_size) {
    failure_ = data_loss("record size too large", offset_);
    return failure_;
  }
  const auto n = static_cast<std::size_t>(length);
  s = read_n(n + record_footer_size, record);
  if (!s.ok()) {
    failure_ = std::move(s);
    return failure_;
  }
  if (record->size() != n + record_footer_size) {
    failure_ = data_loss("truncated record", offset_);
    return failure_;
  }
  const auto* footer = reinterpret_cast<const unsigned char*>(record->data() + n);
  if (unmask_crc(load_le32(footer)) != crc32c(record->data(), n)) {
    failure_ = data_loss("corrupted record", offset_ + record_header_size);
    return failure_;
  }
  record->resize(n);
  offset_ += record_header_size + n + record_footer_size;
  return ok_status();
}

// -- RecordWriter ---------------------------------------------------------------------

namespace {

Status write_file(std::FILE* file, const std::string& path, std::string_view bytes) {
  if (bytes.empty()) return ok_status();
  if (std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) {
    return io_error(path, errno);
  }
  return ok_status();
}

}  // namespace

// tsl::io::ZlibOutputBuffer with TensorFlow's default ZlibCompressionOptions (level
// Z_DEFAULT_COMPRESSION, memLevel 9, Z_NO_FLUSH while appending, 256 KiB buffers), so that for
// the same records and flushes the compressed bytes are TensorFlow's.
struct RecordWriter::Deflater {
  static constexpr std::size_t buffer_size = 256 << 10;

  z_stream stream{};
  std::unique_ptr<Bytef[]> input{new Bytef[buffer_size]};
  std::unique_ptr<Bytef[]> output{new Bytef[buffer_size]};
  bool initialized = false;

  Deflater() = default;
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  ~Deflater() {
    if (initialized) deflateEnd(&stream);
  }

  Status init(int window_bits) {
    const int rc = deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits,
                                /*memLevel=*/9, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK) return internal("deflateInit2() failed with error " + std::to_string(rc));
    initialized = true;
    stream.next_in = input.get();
    stream.avail_in = 0;
    stream.next_out = output.get();
    stream.avail_out = buffer_size;
    return ok_status();
  }

  std::size_t available_input_space() const { return buffer_size - stream.avail_in; }

  void add_to_input_buffer(std::string_view data) {
    const auto read_bytes = static_cast<std::size_t>(stream.next_in - input.get());
    const std::size_t free_tail = buffer_size - (read_bytes + stream.avail_in);
    if (data.size() > free_tail) {
      std::memmove(input.get(), stream.next_in, stream.avail_in);
      stream.next_in = input.get();
    }
    std::memcpy(stream.next_in + stream.avail_in, data.data(), data.size());
    stream.avail_in += static_cast<uInt>(data.size());
  }

  Status flush_output(std::FILE* file, const std::string& path) {
    const std::size_t pending = buffer_size - stream.avail_out;
    if (pending == 0) return ok_status();
    ACTORFLOW_RETURN_IF_ERROR(
        write_file(file, path, {reinterpret_cast<const char*>(output.get()), pending}));
    stream.next_out = output.get();
    stream.avail_out = buffer_size;
    return ok_status();
  }

  Status deflate_once(int flush) {
    const int rc = ::deflate(&stream, flush);
    if (rc == Z_OK || rc == Z_BUF_ERROR || (rc == Z_STREAM_END && flush == Z_FINISH)) {
      return ok_status();
    }
    std::string message = "deflate() failed with error " + std::to_string(rc);
    if (stream.msg != nullptr) {
      message += ": ";
      message += stream.msg;
    }
    return af::data_loss(std::move(message));
  }

  // Deflates all pending input (next_in/avail_in), writing full output buffers to the file.
  Status deflate_all(int flush, std::FILE* file, const std::string& path) {
    do {
      if (stream.avail_out == 0) ACTORFLOW_RETURN_IF_ERROR(flush_output(file, path));
      ACTORFLOW_RETURN_IF_ERROR(deflate_once(flush));
    } while (stream.avail_out == 0);
    stream.next_in = input.get();
    return ok_status();
  }

  Status append(std::string_view data, std::FILE* file, const std::string& path) {
    if (data.size() <= available_input_space()) {
      add_to_input_buffer(data);
      return ok_status();
    }
    ACTORFLOW_RETURN_IF_ERROR(deflate_all(Z_NO_FLUSH, file, path));
    if (data.size() <= available_input_space()) {
      add_to_input_buffer(data);
      return ok_status();
    }
    // Too large for the input buffer: deflated in place, in pieces zlib's 32-bit counters
    // can hold.
    while (!data.empty()) {
      const std::size_t piece = std::min<std::size_t>(data.size(), std::size_t{1} << 30);
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
      stream.avail_in = static_cast<uInt>(piece);
      ACTORFLOW_RETURN_IF_ERROR(deflate_all(Z_NO_FLUSH, file, path));
      data.remove_prefix(piece);
    }
    return ok_status();
  }
};

Status RecordWriter::open(const std::string& path, const std::string& compression_type,
                          std::unique_ptr<RecordWriter>* out) {
  Compression compression;
  ACTORFLOW_RETURN_IF_ERROR(parse_compression(compression_type, &compression));
  std::unique_ptr<Deflater> deflater;
  if (compression != Compression::none) {
    deflater = std::make_unique<Deflater>();
    const int window_bits = compression == Compression::gzip ? MAX_WBITS + 16 : MAX_WBITS;
    Status s = deflater->init(window_bits);
    if (!s.ok()) return s.with_context(" (" + path + ")");
  }
  // TensorFlow's PosixWritableFile opens with fopen(path, "w") too ("e": close on exec).
  std::FILE* file = std::fopen(path.c_str(), "we");
  if (file == nullptr) return io_error(path, errno);
  out->reset(new RecordWriter(path, file, std::move(deflater)));
  return ok_status();
}

RecordWriter::RecordWriter(std::string path, std::FILE* file, std::unique_ptr<Deflater> deflater)
    : path_(std::move(path)), file_(file), deflater_(std::move(deflater)) {}

RecordWriter::~RecordWriter() { (void)close(); }

Status RecordWriter::append(std::string_view bytes) {
  if (deflater_) return deflater_->append(bytes, file_, path_);
  return write_file(file_, path_, bytes);
}

Status RecordWriter::write(std::string_view record) {
  if (file_ == nullptr) return failed_precondition("Writer is closed.");
  char header[record_header_size];
  char footer[record_footer_size];
  store_le64(header, record.size());
  store_le32(header + sizeof(std::uint64_t), mask_crc(crc32c(header, sizeof(std::uint64_t))));
  store_le32(footer, mask_crc(crc32c(record.data(), record.size())));
  ACTORFLOW_RETURN_IF_ERROR(append({header, sizeof(header)}));
  ACTORFLOW_RETURN_IF_ERROR(append(record));
  return append({footer, sizeof(footer)});
}

Status RecordWriter::flush() {
  if (file_ == nullptr) return failed_precondition("Writer is closed.");
  if (deflater_) {
    ACTORFLOW_RETURN_IF_ERROR(deflater_->deflate_all(Z_PARTIAL_FLUSH, file_, path_));
    ACTORFLOW_RETURN_IF_ERROR(deflater_->flush_output(file_, path_));
  }
  if (std::fflush(file_) != 0) return io_error(path_, errno);
  return ok_status();
}

Status RecordWriter::close() {
  if (file_ == nullptr) return ok_status();
  Status result;
  if (deflater_) {
    result = deflater_->deflate_all(Z_FINISH, file_, path_);
    if (result.ok()) result = deflater_->flush_output(file_, path_);
    deflater_.reset();
  }
  // The file is closed even when finishing the stream failed, so the writer never leaks it.
  if (std::fclose(file_) != 0 && result.ok()) result = io_error(path_, errno);
  file_ = nullptr;
  return result;
}

}  // namespace af::io
