// TensorFlow's V2 checkpoint format: BundleWriter, BundleReader and merge_bundles. The index
// is a LevelDB-format table (written and read with Debian's libleveldb, which TensorFlow's
// table code copies); its two small protobufs are encoded by hand (tensor_bundle_format.cpp).
// The byte layout is in docs/training-notes.md section 6.
#include "actorflow/ops/tensor_bundle.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <set>
#include <unordered_map>
#include <utility>

#include "actorflow/ops/detail/tf_datatype.hpp"
#include "large_buffers.hpp"
#include "tensor_bundle_format.hpp"

namespace af {

static_assert(std::endian::native == std::endian::little,
              "the tensor bundle code writes host bytes as little-endian data");

using namespace bundle_format;  // the format's pieces (tensor_bundle_format.hpp)

// -- format helpers -----------------------------------------------------------------------------

int tf_data_type(DType t) noexcept {
  // The bundle holds numeric and string tensors, not handles or variants.
  return t == DType::resource || t == DType::variant ? 0 : detail::tf_enum(t);
}

DType dtype_from_tf_data_type(int tf_type) noexcept {
  const DType t = detail::dtype_of_tf_enum(tf_type);
  return t == DType::resource || t == DType::variant ? DType::invalid : t;
}

std::string tf_data_type_string(int tf_type) {
  static const char* const kNames[] = {
      "invalid",   "float",  "double",     "int32", "uint8",    "int16",   "int8",     "string",
      "complex64", "int64",  "bool",       "qint8", "quint8",   "qint32",  "bfloat16", "qint16",
      "quint16",   "uint16", "complex128", "half",  "resource", "variant", "uint32",   "uint64"};
  if (tf_type >= 0 && tf_type < static_cast<int>(std::size(kNames))) return kNames[tf_type];
  if (tf_type > 100 && tf_type - 100 < static_cast<int>(std::size(kNames)))
    return std::string(kNames[tf_type - 100]) + "_ref";
  return "unknown type " + std::to_string(tf_type);
}

std::string bundle_data_filename(std::string_view prefix, int shard_id, int num_shards) {
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", shard_id, num_shards);
  return std::string(prefix) + suffix;
}

std::string bundle_index_filename(std::string_view prefix) {
  return std::string(prefix) + ".index";
}

// -- BundleWriter -------------------------------------------------------------------------------

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  data_path_ = temporary_name(bundle_data_filename(prefix_, 0, 1));
  index_path_ = temporary_name(bundle_index_filename(prefix_));
  status_ = create_parent_directory(prefix_);
  if (!status_.ok()) return;
  // Saving over an existing checkpoint: its data file's cached pages go first, for ours.
  drop_cached_pages(bundle_data_filename(prefix_, 0, 1));
  data_ = std::fopen(data_path_.c_str(), "wb");
  if (!data_) {
    status_ = io_error(data_path_, errno);
    return;
  }
  std::setvbuf(data_, nullptr, _IOFBF, 1 << 20);
}

BundleWriter::~BundleWriter() {
  if (!finished_) discard_temporaries();
}

void BundleWriter::discard_temporaries() noexcept {
  if (data_) {
    std::fclose(data_);
    data_ = nullptr;
  }
  std::error_code ignored;
  std::filesystem::remove(data_path_, ignored);
  std::filesystem::remove(index_path_, ignored);
}

Status BundleWriter::add(std::string_view name, const Tensor& value) {
  if (!status_.ok()) return status_;
  if (finished_) return internal("BundleWriter is closed");
  if (name.empty())
    return invalid_argument("The empty name is the key of the bundle header; tensors need a name");
  const DType dtype = value.dtype();
  if (tf_data_type(dtype) == 0)
    return invalid_argument("Cannot save tensor " + std::string(name) + " of dtype " +
                            std::string(dtype_name(dtype)) + " in a checkpoint");
  if (value.on_device())
    return invalid_argument("Cannot save tensor " + std::string(name) +
                            ": its elements are in device memory");
  const std::string key(name);
  if (entries_.count(key) || sliced_.count(key)) {
    status_ = invalid_argument("Adding duplicate key: " + key);
    return status_;
  }

  EntryProto entry;
  entry.set_dtype(static_cast<tensorflow::DataType>(tf_data_type(dtype)));
  encode_shape(value.shape(), entry.mutable_shape());
  entry.set_offset(static_cast<std::int64_t>(size_));

  std::uint32_t crc = 0;
  std::uint64_t written = 0;
  auto append = [&](const void* bytes, std::size_t n) {
    if (n == 0) return true;
    if (std::fwrite(bytes, 1, n, data_) != n) return false;
    written += n;
    return true;
  };
  bool ok = true;
  if (dtype == DType::string) {
    // [varint64 len]... [fixed32 masked crc of the lengths] [bytes]...; the crc covers the
    // lengths as uint32 (uint64 when larger), the 4 checksum bytes, then the bytes.
    const std::string* strings = value.data<std::string>();
    const auto n = static_cast<std::size_t>(value.num_elements());
    std::string lengths;
    lengths.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t len = strings[i].size();
      put_varint64(&lengths, len);
      if (len <= std::numeric_limits<std::uint32_t>::max()) {
        const auto len32 = static_cast<std::uint32_t>(len);
        crc = crc32c_extend(crc, &len32, sizeof len32);
      } else {
        crc = crc32c_extend(crc, &len, sizeof len);
      }
    }
    std::string checksum;
    put_fixed32(&checksum, crc32c_mask(crc));
    crc = crc32c_extend(crc, checksum.data(), checksum.size());
    ok = append(lengths.data(), lengths.size()) && append(checksum.data(), checksum.size());
    for (std::size_t i = 0; ok && i < n; ++i) {
      crc = crc32c_extend(crc, strings[i].data(), strings[i].size());
      ok = append(strings[i].data(), strings[i].size());
    }
  } else {
    const std::size_t n = value.total_bytes();
    crc = crc32c_value(value.raw_data(), n);
    ok = append(value.raw_data(), n);
  }
  if (!ok) {
    status_ = io_error(data_path_, errno);
    return status_;
  }
  entry.set_size(static_cast<std::int64_t>(written));
  entry.set_crc32c(crc32c_mask(crc));
  size_ += written;
  entries_.emplace(key, encode_entry(entry));
  return {};
}

Status BundleWriter::finish() {
  if (finished_) return internal("BundleWriter is closed");
  if (!status_.ok()) {
    discard_temporaries();
    finished_ = true;
    return status_;
  }
  // The data file, flushed to disk.
  if (std::fflush(data_) != 0 || ::fsync(::fileno(data_)) != 0)
    status_ = io_error(data_path_, errno);
  if (std::fclose(data_) != 0 && status_.ok()) status_ = io_error(data_path_, errno);
  data_ = nullptr;
  // The index.
  if (status_.ok()) add_sliced_entries();
  if (status_.ok()) {
    const std::string header =
        encode_header(1, /*endianness=*/0, make_version(kTensorBundleVersion, 0));
    status_ = write_index(index_path_, header, entries_);
  }
  // Into place: data first, the index (which makes the checkpoint visible) last.
  if (status_.ok()) status_ = rename_file(data_path_, bundle_data_filename(prefix_, 0, 1));
  if (status_.ok()) status_ = rename_file(index_path_, bundle_index_filename(prefix_));
  if (!status_.ok()) {
    discard_temporaries();
    finished_ = true;
    return status_;
  }
  sync_directory(dirname_of(prefix_));
  finished_ = true;
  return {};
}

// -- BundleReader -------------------------------------------------------------------------------

BundleReader::BundleReader(std::string prefix) : prefix_(std::move(prefix)) {
  const std::string filename = bundle_index_filename(prefix_);
  HeaderProto header;
  std::vector<std::pair<std::string, std::string>> raw;
  status_ = read_index(filename, &header, &raw);
  if (!status_.ok()) return;
  num_shards_ = header.num_shards();
  if (header.endianness() != 0) {
    status_ = unimplemented("TensorBundle at " + prefix_ +
                            " is big-endian; only little-endian checkpoints are supported");
    return;
  }
  status_ = check_versions(header);
  if (!status_.ok()) return;
  for (auto& [key, value] : raw) {
    auto entry = std::make_shared<Entry>();
    if (!decode_entry(value, &entry->proto)) {
      status_ = data_loss("Entry for key " + key + " not parseable. (in " + filename + ")");
      return;
    }
    if (!decode_shape(entry->proto.shape(), &entry->shape)) {
      status_ = data_loss("Invalid tensor shape: " + key + " " +
                          shape_debug_string(entry->proto.shape()) + " (in " + filename + ")");
      return;
    }
    entries_.emplace(std::move(key), std::move(entry));
  }
}

BundleReader::~BundleReader() {
  for (auto& [shard, fd] : data_fds_) ::close(fd);
}

const BundleReader::Entry* BundleReader::find(std::string_view name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : it->second.get();
}

bool BundleReader::contains(std::string_view name) const {
  return status_.ok() && find(name) != nullptr;
}

StatusOr<BundleEntryInfo> BundleReader::lookup_dtype_and_shape(std::string_view name) const {
  if (!status_.ok()) return status_;
  const Entry* e = find(name);
  if (!e) return not_found("Key " + std::string(name) + " not found in checkpoint");
  BundleEntryInfo info{std::string(name),          dtype_from_tf_data_type(e->proto.dtype()),
                       e->proto.dtype(),           e->shape,
                       e->proto.slices_size() > 0, {}};
  for (const auto& s : e->proto.slices()) info.slices.push_back(from_proto(s));
  return info;
}

std::vector<BundleEntryInfo> BundleReader::entries() const {
  std::vector<BundleEntryInfo> out;
  if (!status_.ok()) return out;
  // TensorFlow's CheckpointReader lists neither the keys its slices' data are stored under.
  std::set<std::string> slice_keys;
  for (const auto& [name, e] : entries_)
    for (const auto& s : e->proto.slices())
      slice_keys.insert(bundle_slice_key(name, from_proto(s)));
  out.reserve(entries_.size());
  for (const auto& [name, e] : entries_) {
    if (slice_keys.count(name)) continue;
    BundleEntryInfo info{name,
                         dtype_from_tf_data_type(e->proto.dtype()),
                         e->proto.dtype(),
                         e->shape,
                         e->proto.slices_size() > 0,
                         {}};
    for (const auto& s : e->proto.slices()) info.slices.push_back(from_proto(s));
    out.push_back(std::move(info));
  }
  return out;
}

Status BundleReader::open_data_file(int shard_id, int* fd) const {
  std::lock_guard<std::mutex> guard(data_mu_);
  auto it = data_fds_.find(shard_id);
  if (it != data_fds_.end()) {
    *fd = it->second;
    return {};
  }
  const std::string filename = bundle_data_filename(prefix_, shard_id, num_shards_);
  const int opened = ::open(filename.c_str(), O_RDONLY | O_CLOEXEC);
  if (opened < 0) return io_error(filename, errno);
  data_fds_.emplace(shard_id, opened);
  *fd = opened;
  return {};
}

StatusOr<Tensor> BundleReader::lookup(std::string_view name) const {
  if (!status_.ok()) return status_;
  const Entry* e = find(name);
  if (!e) return not_found("Key " + std::string(name) + " not found in checkpoint");
  const std::string key(name);
  if (e->proto.slices_size() > 0) return read_slices(key, *e, TensorSlice(e->shape.rank()));
  return read_value(key, *e);
}

StatusOr<Tensor> BundleReader::read_value(const std::string& key, const Entry& entry) const {
  const Entry* e = &entry;
  const EntryProto& p = e->proto;
  const DType dtype = dtype_from_tf_data_type(p.dtype());
  if (dtype == DType::invalid)
    return unimplemented("Restoring data type " + tf_data_type_string(p.dtype()) +
                         " not yet supported (tensor " + key + ")");
  if (p.shard_id() < 0 || p.shard_id() >= std::max(num_shards_, 1) || p.offset() < 0 ||
      p.size() < 0)
    return data_loss("Invalid shard, offset or size in bundle entry: key " + key + "; shard " +
                     std::to_string(p.shard_id()) + " of " + std::to_string(num_shards_) +
                     ", offset " + std::to_string(p.offset()) + ", size " +
                     std::to_string(p.size()) + " (in " + bundle_index_filename(prefix_) + ")");
  const std::string filename = bundle_data_filename(prefix_, p.shard_id(), num_shards_);

  // Numeric tensors are read straight into a buffer of their own (no zero fill first; large
  // ones on huge pages where the kernel allows), then wrapped.
  Tensor t;
  std::shared_ptr<void> buffer;
  const auto num_elements = static_cast<std::uint64_t>(e->shape.num_elements());
  const auto size = static_cast<std::uint64_t>(p.size());
  if (dtype == DType::string) {
    t = Tensor(dtype, e->shape);
  } else {
    const std::uint64_t expected = num_elements * dtype_size(dtype);
    if (size != expected)
      return data_loss("Invalid size in bundle entry: key " + key + "; stored size " +
                       std::to_string(size) + "; expected size " + std::to_string(expected));
    if (size >= detail::kLargeBufferBytes) {
      buffer = detail::allocate_large(size, /*zero=*/false);
    } else {
      void* raw = std::aligned_alloc(64, (std::max<std::size_t>(size, 1) + 63) / 64 * 64);
      if (raw != nullptr) buffer.reset(raw, [](void* q) { std::free(q); });
    }
    if (buffer == nullptr)
      return resource_exhausted("Out of memory reading tensor " + key + " (" +
                                std::to_string(size) + " bytes) from " + filename);
  }
  if (dtype == DType::string && size < num_elements)
    return data_loss("Invalid size in bundle entry: key " + key + "; stored size " +
                     std::to_string(size) + "; expected size is at least " +
                     std::to_string(num_elements));

  int fd = -1;
  ACTORFLOW_RETURN_IF_ERROR(open_data_file(p.shard_id(), &fd));
  auto truncated = [&]() {
    struct stat st;
    const long long file_size = ::fstat(fd, &st) == 0 ? static_cast<long long>(st.st_size) : -1;
    // TensorFlow's RandomAccessFile::Read past the end: OutOfRange "Read less bytes than
    // requested"; the file, the tensor and the bytes added.
    return out_of_range("Read less bytes than requested: data file " + filename + ", tensor " +
                        key + " needs bytes [" + std::to_string(p.offset()) + ", " +
                        std::to_string(p.offset() + p.size()) + ") but the file has " +
                        std::to_string(file_size) + " bytes");
  };
  std::uint32_t actual = 0;
  std::size_t got = 0;
  if (dtype != DType::string) {
    // Read and checksum piece by piece, each piece while it is still in the cache: one pass
    // over memory instead of two (a 32 MiB tensor's second pass came from DRAM).
    auto* dst = static_cast<char*>(buffer.get());
    const std::size_t piece = crc32c_block_size();
    for (std::uint64_t done = 0; done < size;) {
      const std::size_t want =
          static_cast<std::size_t>(std::min<std::uint64_t>(piece, size - done));
      std::size_t n = 0;
      ACTORFLOW_RETURN_IF_ERROR(pread_fully(
          fd, dst + done, want, static_cast<std::uint64_t>(p.offset()) + done, &n, filename));
      if (n != want) return truncated();
      actual = crc32c_extend(actual, dst + done, want);
      done += want;
    }
    t = Tensor::from_buffer(dtype, e->shape, buffer, /*on_device=*/false);
  } else if (size > 0) {
    std::string bytes(size, '\0');
    ACTORFLOW_RETURN_IF_ERROR(pread_fully(fd, bytes.data(), size,
                                          static_cast<std::uint64_t>(p.offset()), &got, filename));
    if (got != size) return truncated();
    const char* cur = bytes.data();
    const char* end = bytes.data() + bytes.size();
    std::vector<std::uint64_t> lengths(num_elements);
    for (auto& len : lengths) {
      if (!get_varint64(&cur, end, &len))
        return data_loss("String lengths longer than expected offset " +
                         std::to_string(p.offset() + p.size()) + " (tensor " + key + " in " +
                         filename + ")");
      if (len <= std::numeric_limits<std::uint32_t>::max()) {
        const auto len32 = static_cast<std::uint32_t>(len);
        actual = crc32c_extend(actual, &len32, sizeof len32);
      } else {
        actual = crc32c_extend(actual, &len, sizeof len);
      }
    }
    if (end - cur < 4)
      return data_loss("String lengths longer than expected offset " +
                       std::to_string(p.offset() + p.size()) + " (tensor " + key + " in " +
                       filename + ")");
    const std::uint32_t length_checksum = get_fixed32(cur);
    if (crc32c_unmask(length_checksum) != actual)
      return data_loss("The length checksum does not match: expected " +
                       printf_08u(crc32c_unmask(length_checksum)) + " but actual is " +
                       printf_08u(actual) + " (tensor " + key + " in " + filename + ")");
    actual = crc32c_extend(actual, cur, 4);
    cur += 4;
    std::string* strings = t.data<std::string>();
    for (std::uint64_t i = 0; i < num_elements; ++i) {
      if (lengths[i] > static_cast<std::uint64_t>(end - cur))
        return data_loss("String data longer than the entry's size " + std::to_string(p.size()) +
                         " (tensor " + key + " in " + filename + ")");
      strings[i].assign(cur, static_cast<std::size_t>(lengths[i]));
      actual = crc32c_extend(actual, cur, static_cast<std::size_t>(lengths[i]));
      cur += lengths[i];
    }
  }
  if (crc32c_unmask(p.crc32c()) != actual)
    return data_loss("TensorBundle at " + prefix_ + " shard " + std::to_string(p.shard_id()) +
                     " (" + std::to_string(p.size()) + " bytes): Checksum does not match: stored " +
                     printf_08u(crc32c_unmask(p.crc32c())) +
                     " vs. calculated on the restored bytes " + std::to_string(actual) +
                     " (tensor " + key + " in " + filename + ")");
  return t;
}

// -- merge_bundles ------------------------------------------------------------------------------

Status merge_bundles(const std::vector<std::string>& prefixes, const std::string& output_prefix,
                     bool delete_old_dirs) {
  ACTORFLOW_RETURN_IF_ERROR(create_parent_directory(output_prefix));
  std::int32_t num_shards = 0;
  bool seen_first = false;
  int endianness = 0;
  tensorflow::VersionDef version;
  std::map<std::string, EntryProto> merged;
  // Data file -> shard id in the merged bundle, numbered in the order first met.
  std::vector<std::string> data_files;
  std::unordered_map<std::string, std::int32_t> shard_ids;

  for (const std::string& prefix : prefixes) {
    const std::string filename = bundle_index_filename(prefix);
    HeaderProto header;
    std::vector<std::pair<std::string, std::string>> raw;
    ACTORFLOW_RETURN_IF_ERROR(read_index(filename, &header, &raw));
    num_shards += header.num_shards();
    if (!seen_first) {
      seen_first = true;
      endianness = header.endianness();
      version = header.version();
    } else {
      if (endianness != header.endianness())
        return invalid_argument("Merging bundles with conflicting endianness; inputs corrupted?");
      if (version.SerializeAsString() != header.version().SerializeAsString())
        return invalid_argument("Merging bundles with different format versions: merged " +
                                version.ShortDebugString() + " vs. curr " +
                                header.version().ShortDebugString());
    }
    for (auto& [key, value] : raw) {
      auto existing = merged.find(key);
      if (existing != merged.end() && existing->second.slices_size() == 0)
        return invalid_argument("Duplicate tensor keyed by " + key +
                                " encountered, when merging prefix: " + prefix);
      EntryProto entry;
      if (!decode_entry(value, &entry))
        return data_loss("Entry for key " + key + " not parseable. (in " + filename + ")");
      if (existing != merged.end()) {
        if (entry.slices_size() == 0)
          return internal("Duplicate tensor keyed by " + key +
                          "; attempting to merge in a non-slice bundle entry");
        for (auto& s : *entry.mutable_slices()) *existing->second.add_slices() = std::move(s);
        continue;
      }
      const std::string data_file =
          bundle_data_filename(prefix, entry.shard_id(), header.num_shards());
      auto [it, inserted] =
          shard_ids.emplace(data_file, static_cast<std::int32_t>(shard_ids.size()));
      if (inserted) data_files.push_back(data_file);
      entry.set_shard_id(it->second);
      merged.emplace(key, std::move(entry));
    }
  }

  // The data files under the merged prefix.
  const auto merged_files = static_cast<int>(data_files.size());
  for (const std::string& file : data_files)
    ACTORFLOW_RETURN_IF_ERROR(
        rename_file(file, bundle_data_filename(output_prefix, shard_ids[file], merged_files)));

  // The merged index, through a temporary file like BundleWriter's.
  std::map<std::string, std::string> entries;
  for (const auto& [key, entry] : merged) entries.emplace(key, encode_entry(entry));
  const std::string index = bundle_index_filename(output_prefix);
  const std::string temporary = temporary_name(index);
  Status s = write_index(temporary, encode_header(num_shards, endianness, version), entries);
  if (s.ok()) s = rename_file(temporary, index);
  if (!s.ok()) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return s;
  }
  sync_directory(dirname_of(output_prefix));

  // Cleanup, best effort: the inputs' index files, then their (now empty) directories.
  std::error_code ignored;
  for (const std::string& prefix : prefixes)
    if (prefix != output_prefix) std::filesystem::remove(bundle_index_filename(prefix), ignored);
  if (delete_old_dirs) {
    const std::string merged_dir = dirname_of(output_prefix);
    for (const std::string& prefix : prefixes) {
      const std::string dir = dirname_of(prefix);
      if (dir == merged_dir || dir.empty()) continue;
      std::filesystem::remove(dir, ignored);  // only when empty, as TensorFlow's DeleteDir
    }
  }
  return {};
}

}  // namespace af
