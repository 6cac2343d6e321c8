// The V2 checkpoint format's pieces that BundleWriter, BundleReader and merge_bundles share
// (tensor_bundle.cpp): the index's two protobufs encoded by hand, TensorShapeProto, and the
// file helpers (atomic renames, the LevelDB index table, positioned reads). The byte layout
// is in docs/training-notes.md section 6.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"

namespace af::bundle_format {

// The format version this code writes and reads (kTensorBundleVersion and friends).
constexpr int kTensorBundleVersion = 1;
constexpr int kTensorBundleMinProducer = 0;
// TensorFlow's table options for the index: no compression, 256 KiB blocks.
constexpr std::size_t kIndexBlockSize = 262144;
constexpr int kIndexBlockRestartInterval = 16;

// -- varints and protobuf wire format -------------------------------------------------------

void put_varint64(std::string* out, std::uint64_t v);
void put_fixed32(std::string* out, std::uint32_t v);
std::uint32_t get_fixed32(const char* p);
/// Reads a varint at *p (advancing it); false when it runs past `end` or is too long.
bool get_varint64(const char** p, const char* end, std::uint64_t* v);

/// BundleHeaderProto, with its VersionDef.
struct HeaderProto {
  std::int32_t num_shards = 0;
  int endianness = 0;  // LITTLE = 0, BIG = 1
  bool has_version = false;
  std::string version;  // serialized VersionDef
  // VersionDef{producer = 1, min_consumer = 2, bad_consumers = 3}
  std::int32_t producer = 0;
  std::int32_t min_consumer = 0;
  std::vector<std::int32_t> bad_consumers;
};

/// The serialized BundleHeaderProto and VersionDef.
std::string encode_header(std::int32_t num_shards, int endianness, std::string_view version);
std::string encode_version(std::int32_t producer, std::int32_t min_consumer);
/// False when `data` is not a BundleHeaderProto.
bool decode_header(std::string_view data, HeaderProto* h);

/// BundleEntryProto.
struct EntryProto {
  int dtype = 0;
  std::string shape;  // serialized TensorShapeProto
  std::int32_t shard_id = 0;
  std::int64_t offset = 0;
  std::int64_t size = 0;
  std::uint32_t crc32c = 0;         // masked
  std::vector<std::string> slices;  // serialized TensorSliceProto each
  std::string unknown_fields;
};

/// The serialized BundleEntryProto (fields in TensorFlow's order, unknown fields kept).
std::string encode_entry(const EntryProto& e);
/// False when `data` is not a BundleEntryProto.
bool decode_entry(std::string_view data, EntryProto* e);
/// TensorShapeProto of `shape`, and back (false when malformed or of an unknown rank).
std::string encode_shape(const Shape& shape);
bool decode_shape(std::string_view data, Shape* shape);
/// A TensorShapeProto for messages.
std::string shape_debug_string(std::string_view data);

// -- files ------------------------------------------------------------------------------------

std::string dirname_of(const std::string& prefix);
/// An I/O error naming `context`, from errno `err` (NotFound for ENOENT).
Status io_error(const std::string& context, int err);
/// A unique temporary name beside `path` (written, then renamed into place).
std::string temporary_name(const std::string& path);
Status rename_file(const std::string& from, const std::string& to);
void sync_directory(const std::string& dir);
Status create_parent_directory(const std::string& prefix);
/// DataLoss naming `filename` and what is wrong with it.
Status corrupt_file_error(const std::string& filename, const std::string& detail);
/// Writes the index table: `header` under the empty key, then `entries` in key order.
Status write_index(const std::string& path, const std::string& header,
                   const std::map<std::string, std::string>& entries);
/// Reads an index table's header and entries.
Status read_index(const std::string& filename, HeaderProto* header,
                  std::vector<std::pair<std::string, std::string>>* entries);
/// FailedPrecondition when the bundle's versions exclude this reader.
Status check_versions(const HeaderProto& h);
/// `v` as printf's "%08u".
std::string printf_08u(std::uint32_t v);
/// Reads `size` bytes at `offset` (retrying short reads); `got` is what was read.
Status pread_fully(int fd, void* out, std::size_t size, std::uint64_t offset, std::size_t* got,
                   const std::string& filename);

}  // namespace af::bundle_format
