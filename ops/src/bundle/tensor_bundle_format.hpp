// The V2 checkpoint format's pieces that BundleWriter, BundleReader and merge_bundles share
// (tensor_bundle.cpp): the index's two protobufs (generated code), TensorShapeProto, and the
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
#include "actorflow/ops/tensor_bundle.hpp"
#include "actorflow/ops/tensor_slice.hpp"
#include "actorflow/tf/tensor_bundle.pb.h"

namespace leveldb {
class Status;
}  // namespace leveldb

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

/// The index's header and entries: the generated code of formats/proto's
/// tensor_bundle.proto (TensorFlow's messages and field numbers), so an index's bytes are
/// what TensorFlow's own protobuf code writes.
using HeaderProto = tensorflow::BundleHeaderProto;
using EntryProto = tensorflow::BundleEntryProto;

/// The serialized BundleHeaderProto of a bundle with `num_shards` shards and `version`.
std::string encode_header(std::int32_t num_shards, int endianness,
                          const tensorflow::VersionDef& version);
/// VersionDef{producer, min_consumer}.
tensorflow::VersionDef make_version(std::int32_t producer, std::int32_t min_consumer);
/// False when `data` is not a BundleHeaderProto.
bool decode_header(std::string_view data, HeaderProto* h);

/// The serialized BundleEntryProto (fields in TensorFlow's order, unknown fields kept).
std::string encode_entry(const EntryProto& e);
/// False when `data` is not a BundleEntryProto.
bool decode_entry(std::string_view data, EntryProto* e);
/// The TensorSliceProto of `slice` (a whole dimension an empty extent, a start of 0
/// omitted), and back (an extent without a length is a whole dimension).
void encode_slice(const TensorSlice& slice, tensorflow::TensorSliceProto* out);
TensorSlice from_proto(const tensorflow::TensorSliceProto& proto);
/// The TensorShapeProto of `shape`, and back (false when invalid or of an unknown rank).
void encode_shape(const Shape& shape, tensorflow::TensorShapeProto* out);
bool decode_shape(const tensorflow::TensorShapeProto& proto, Shape* shape);
/// A TensorShapeProto as TensorFlow's errors print it ("dim { size: -1 }").
std::string shape_debug_string(const tensorflow::TensorShapeProto& proto);

// -- files ------------------------------------------------------------------------------------

std::string dirname_of(const std::string& prefix);
/// An I/O error naming `context`, from errno `err` (NotFound for ENOENT).
Status io_error(const std::string& context, int err);
/// A unique temporary name beside `path` (written, then renamed into place).
std::string temporary_name(const std::string& path);
Status rename_file(const std::string& from, const std::string& to);
void sync_directory(const std::string& dir);
/// Drops the cached pages of `path` if it exists (best effort; the file itself is kept).
/// Called on a file about to be replaced by a rename: the pages it frees take the new file's
/// writes. On a VM, page-cache writes into memory the guest has not touched lately run at a
/// quarter of the speed of writes into pages just freed (AMD EPYC VM: 256 MiB in 0.35-0.6 s
/// against 0.11-0.13 s), so a save over an existing checkpoint wrote at a third of the speed
/// of `open(O_TRUNC)` + write, which frees the old pages first.
void drop_cached_pages(const std::string& path);
Status create_parent_directory(const std::string& prefix);
/// DataLoss naming `filename` and what is wrong with it.
Status corrupt_file_error(const std::string& filename, const std::string& detail);
/// Writes the index table: `header` under the empty key, then `entries` in key order.
Status write_index(const std::string& path, const std::string& header,
                   const std::map<std::string, std::string>& entries);
/// Reads an index table's header and entries.
Status read_index(const std::string& filename, HeaderProto* header,
                  std::vector<std::pair<std::string, std::string>>* entries);
/// InvalidArgument when the bundle's versions exclude this reader (TensorFlow's
/// CheckVersions texts).
Status check_versions(const HeaderProto& h);
/// The same for the VersionDef of a V1 checkpoint file (the same version numbers).
Status check_versions(const tensorflow::VersionDef& version);
/// A LevelDB status as a Status: Corruption is DataLoss naming `filename`, NotFound NotFound.
Status from_leveldb(const leveldb::Status& s, const std::string& filename);
/// `v` as printf's "%08u".
std::string printf_08u(std::uint32_t v);
/// Reads `size` bytes at `offset` (retrying short reads); `got` is what was read.
Status pread_fully(int fd, void* out, std::size_t size, std::uint64_t offset, std::size_t* got,
                   const std::string& filename);

}  // namespace af::bundle_format

namespace af {

// One index entry as the reader keeps it.
struct BundleReader::Entry {
  bundle_format::EntryProto proto;
  Shape shape;
};

}  // namespace af
