// The V2 checkpoint format's shared pieces (tensor_bundle_format.hpp).
#include "tensor_bundle_format.hpp"

#include <fcntl.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

namespace af::bundle_format {

// -- varints and protobuf wire format -------------------------------------------------------

void put_varint64(std::string* out, std::uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void put_fixed32(std::string* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t get_fixed32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;  // little-endian host (static_assert above)
}

// Reads a varint from [*p, end); false when it runs past `end` or over 10 bytes.
bool get_varint64(const char** p, const char* end, std::uint64_t* v) {
  std::uint64_t result = 0;
  for (int shift = 0; shift <= 63 && *p < end; shift += 7) {
    const auto byte = static_cast<std::uint8_t>(**p);
    ++*p;
    result |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

std::string encode_header(std::int32_t num_shards, int endianness,
                          const tensorflow::VersionDef& version) {
  HeaderProto h;
  h.set_num_shards(num_shards);
  h.set_endianness(static_cast<HeaderProto::Endianness>(endianness));
  *h.mutable_version() = version;
  return h.SerializeAsString();
}

tensorflow::VersionDef make_version(std::int32_t producer, std::int32_t min_consumer) {
  tensorflow::VersionDef v;
  v.set_producer(producer);
  v.set_min_consumer(min_consumer);
  return v;
}

bool decode_header(std::string_view data, HeaderProto* h) {
  return h->ParseFromArray(data.data(), static_cast<int>(data.size()));
}

std::string encode_entry(const EntryProto& e) { return e.SerializeAsString(); }

bool decode_entry(std::string_view data, EntryProto* e) {
  return e->ParseFromArray(data.data(), static_cast<int>(data.size()));
}

void encode_shape(const Shape& shape, tensorflow::TensorShapeProto* out) {
  out->Clear();
  for (std::int64_t d : shape.dims()) out->add_dim()->set_size(d);
}

// Decodes a shape; false unless it is a valid, fully defined TensorShape.
bool decode_shape(const tensorflow::TensorShapeProto& proto, Shape* shape) {
  if (proto.unknown_rank()) return false;
  // TensorShape::IsValid: non-negative dims, at most 254 of them, no overflowing product.
  if (proto.dim_size() > 254) return false;
  std::vector<std::int64_t> dims;
  std::int64_t elements = 1;
  for (const auto& dim : proto.dim()) {
    const std::int64_t d = dim.size();
    if (d < 0) return false;
    if (d > 0 && elements > std::numeric_limits<std::int64_t>::max() / d) return false;
    elements *= d;
    dims.push_back(d);
  }
  *shape = Shape(dims);
  return true;
}

std::string shape_debug_string(const tensorflow::TensorShapeProto& proto) {
  return proto.ShortDebugString();
}

// -- files ------------------------------------------------------------------------------------

std::string dirname_of(const std::string& prefix) {
  return std::filesystem::path(prefix).parent_path().string();
}

// TensorFlow's POSIX error text: "<file>; No such file or directory".
Status io_error(const std::string& context, int err) {
  std::string message = context + "; " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return not_found(std::move(message));
    case EACCES:
    case EPERM:
    case EROFS:
      return {Code::permission_denied, std::move(message)};
    case EEXIST:
      return already_exists(std::move(message));
    case ENOSPC:
    case EDQUOT:
      return resource_exhausted(std::move(message));
    default:
      return unknown(std::move(message));
  }
}

std::string temporary_name(const std::string& path) {
  static std::mutex mu;
  static std::mt19937_64 engine{std::random_device{}()};
  std::uint64_t r;
  {
    std::lock_guard<std::mutex> guard(mu);
    r = engine();
  }
  return path + ".tempstate" + std::to_string(r);
}

Status rename_file(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) return io_error(from, errno);
  return {};
}

// Makes renames into `dir` durable (best effort: a failure only weakens crash safety).
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

void drop_cached_pages(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

Status create_parent_directory(const std::string& prefix) {
  const std::string dir = dirname_of(prefix);
  if (dir.empty()) return {};
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec && !std::filesystem::is_directory(dir)) return io_error(dir, ec.value());
  return {};
}

Status from_leveldb(const leveldb::Status& s, const std::string& filename) {
  if (s.ok()) return {};
  std::string message = s.ToString();
  for (std::string_view p : {"Corruption: ", "IO error: ", "NotFound: ", "Invalid argument: "}) {
    if (message.rfind(p, 0) == 0) {
      message.erase(0, p.size());
      break;
    }
  }
  if (s.IsCorruption()) return data_loss(message + " (in " + filename + ")");
  if (s.IsNotFound()) return not_found(message);
  return unknown(message + " (in " + filename + ")");
}

// TensorFlow's CorruptFileError.
Status corrupt_file_error(const std::string& filename, const std::string& detail) {
  return data_loss("Unable to read file (" + filename +
                   "). Perhaps the file is corrupt or was produced by a newer version of "
                   "TensorFlow with format changes (" +
                   detail + ")");
}

// Writes a table of `header` under "" and `entries` (in key order) to `path`.
Status write_index(const std::string& path, const std::string& header,
                   const std::map<std::string, std::string>& entries) {
  leveldb::WritableFile* raw = nullptr;
  leveldb::Status s = leveldb::Env::Default()->NewWritableFile(path, &raw);
  if (!s.ok()) return from_leveldb(s, path);
  std::unique_ptr<leveldb::WritableFile> file(raw);
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  options.block_size = kIndexBlockSize;
  options.block_restart_interval = kIndexBlockRestartInterval;
  options.filter_policy = nullptr;
  {
    leveldb::TableBuilder builder(options, file.get());
    builder.Add(leveldb::Slice(""), leveldb::Slice(header));
    for (const auto& [key, value] : entries)
      builder.Add(leveldb::Slice(key), leveldb::Slice(value));
    s = builder.Finish();
  }
  if (s.ok()) s = file->Sync();
  leveldb::Status closed = file->Close();
  if (s.ok()) s = closed;
  return from_leveldb(s, path);
}

// Reads every entry of the index table at `filename`, verifying block crcs: the header
// first (key ""), then the tensors in key order.
Status read_index(const std::string& filename, HeaderProto* header,
                  std::vector<std::pair<std::string, std::string>>* entries) {
  leveldb::Env* env = leveldb::Env::Default();
  struct stat st;
  if (::stat(filename.c_str(), &st) != 0) return io_error(filename, errno);
  const auto file_size = static_cast<std::uint64_t>(st.st_size);
  // LevelDB's own check, made before it tries to map an empty file.
  if (file_size < 48) return data_loss("file is too short to be an sstable (in " + filename + ")");
  leveldb::RandomAccessFile* raw_file = nullptr;
  leveldb::Status s = env->NewRandomAccessFile(filename, &raw_file);
  if (!s.ok()) return from_leveldb(s, filename);
  std::unique_ptr<leveldb::RandomAccessFile> file(raw_file);
  leveldb::Options options;
  options.paranoid_checks = true;  // verify the index block's crc too
  leveldb::Table* raw_table = nullptr;
  s = leveldb::Table::Open(options, file.get(), file_size, &raw_table);
  if (!s.ok()) return from_leveldb(s, filename);
  std::unique_ptr<leveldb::Table> table(raw_table);
  leveldb::ReadOptions read_options;
  read_options.verify_checksums = true;
  read_options.fill_cache = false;
  std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
  it->SeekToFirst();
  if (!it->Valid()) {
    if (!it->status().ok()) return from_leveldb(it->status(), filename);
    return corrupt_file_error(filename, "failed to seek to header entry");
  }
  if (!it->key().empty() ||
      !decode_header(std::string_view(it->value().data(), it->value().size()), header))
    return corrupt_file_error(filename, "unable to parse header");
  for (it->Next(); it->Valid(); it->Next())
    entries->emplace_back(it->key().ToString(), it->value().ToString());
  if (!it->status().ok()) return from_leveldb(it->status(), filename);
  return {};
}

// TensorFlow's CheckVersions for the bundle header.
Status check_versions(const HeaderProto& header) { return check_versions(header.version()); }

Status check_versions(const tensorflow::VersionDef& h) {
  if (h.producer() < kTensorBundleMinProducer)
    return invalid_argument("Checkpoint producer version " + std::to_string(h.producer()) +
                            " below min producer " + std::to_string(kTensorBundleMinProducer) +
                            " supported by TensorFlow.  Please regenerate your checkpoint.");
  if (h.min_consumer() > kTensorBundleVersion)
    return invalid_argument("Checkpoint min consumer version " + std::to_string(h.min_consumer()) +
                            " above current version " + std::to_string(kTensorBundleVersion) +
                            " for TensorFlow.  Please upgrade TensorFlow.");
  if (std::find(h.bad_consumers().begin(), h.bad_consumers().end(), kTensorBundleVersion) !=
      h.bad_consumers().end())
    return invalid_argument("Checkpoint disallows consumer version " +
                            std::to_string(kTensorBundleVersion) +
                            ".  Please upgrade TensorFlow: this version is likely buggy.");
  return {};
}

std::string printf_08u(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08u", v);
  return buf;
}

// Reads exactly `size` bytes at `offset`; sets *got to what was read before EOF.
Status pread_fully(int fd, void* out, std::size_t size, std::uint64_t offset, std::size_t* got,
                   const std::string& filename) {
  auto* dst = static_cast<char*>(out);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, dst + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error(filename, errno);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  *got = done;
  return {};
}

}  // namespace af::bundle_format
