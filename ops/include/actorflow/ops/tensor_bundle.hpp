#pragma once

// TensorFlow's V2 checkpoint format ("tensor bundle", tensorflow/core/util/tensor_bundle):
// a prefix P names `P.index` (a LevelDB-format table from tensor name to BundleEntryProto,
// plus the BundleHeaderProto under the empty key) and the data files
// `P.data-SSSSS-of-NNNNN` holding the raw tensor bytes. Files written here are
// byte-identical to TensorFlow's, and TensorFlow's files read back here.
//
// Example:
//
//   af::BundleWriter writer("/ckpt/model.ckpt-100");
//   writer.add("dense/kernel", kernel);
//   writer.add("global_step", af::Tensor(std::int64_t{100}));
//   af::throw_if_error(writer.finish());
//
//   af::BundleReader reader("/ckpt/model.ckpt-100");
//   af::Tensor kernel = reader.lookup("dense/kernel").value();

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/dtype.hpp"
#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/status_or.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/ops/tensor_slice.hpp"

namespace af {

// -- format helpers -----------------------------------------------------------------------

/// Returns TensorFlow's `DataType` number of `t` (`float32` -> 1 `DT_FLOAT`, `int64` -> 9
/// `DT_INT64`, `bfloat16` -> 14, ...); 0 (`DT_INVALID`) for `resource` and `invalid`, which
/// no checkpoint holds.
int tf_data_type(DType t) noexcept;

/// Returns the DType of TensorFlow's `DataType` number `tf_type`, or `DType::invalid` for
/// the numbers actorflow has no dtype for (int16, complex64, half, ...).
DType dtype_from_tf_data_type(int tf_type) noexcept;

/// Returns TensorFlow's `DataTypeString` of any `DataType` number (`"float"`, `"int16"`,
/// `"complex64"`); `"unknown type N"` for numbers outside the enum.
std::string tf_data_type_string(int tf_type);

/// Extends the crc32c (Castagnoli) `crc` of some bytes by `size` more bytes at `data`, as
/// TensorFlow's `crc32c::Extend`. Uses SSE4.2 where the CPU has it. Thread-safe.
std::uint32_t crc32c_extend(std::uint32_t crc, const void* data, std::size_t size) noexcept;
/// The piece size `crc32c_extend` works in (a multiple of it keeps its blocks whole; a reader
/// checksumming as it reads uses pieces of this size, each still in the cache).
std::size_t crc32c_block_size() noexcept;

/// The crc32c of `size` bytes at `data` (`crc32c_extend(0, ...)`); crc32c("123456789") is
/// 0xE3069283.
inline std::uint32_t crc32c_value(const void* data, std::size_t size) noexcept {
  return crc32c_extend(0, data, size);
}

/// Masks a crc32c for storage (rotate right 15, add 0xa282ead8), as TensorFlow's
/// `crc32c::Mask`: checkpoints and table blocks store masked crcs.
inline std::uint32_t crc32c_mask(std::uint32_t crc) noexcept {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

/// Inverts `crc32c_mask`.
inline std::uint32_t crc32c_unmask(std::uint32_t masked) noexcept {
  const std::uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

/// `P.data-SSSSS-of-NNNNN`: the data file `shard_id` of a bundle with `num_shards` data
/// files (TensorFlow's `DataFilename`; `%s.data-%05d-of-%05d`).
std::string bundle_data_filename(std::string_view prefix, int shard_id, int num_shards);

/// `P.index`: the index file of a bundle (TensorFlow's `MetaFilename`).
std::string bundle_index_filename(std::string_view prefix);

/// The index key of the slice `slice` of the tensor `name` (TensorFlow's
/// `checkpoint::EncodeTensorNameSlice`): OrderedCode's `NumIncreasing(0)`, `String(name)`,
/// `NumIncreasing(rank)`, then per dimension `SignedNumIncreasing` of the start and the
/// length (0 and -1 for a whole dimension). Such keys start with a 0 byte, so they sort
/// after the header and before every plain name.
std::string bundle_slice_key(std::string_view name, const TensorSlice& slice);

/// What the index says of one tensor, without reading its data (`tf.train.list_variables`).
struct BundleEntryInfo {
  std::string name;  ///< the tensor's key in the bundle
  /// The dtype; `DType::invalid` when TensorFlow's `tf_dtype` has no actorflow dtype.
  DType dtype = DType::invalid;
  /// TensorFlow's `DataType` number as stored.
  int tf_dtype = 0;
  Shape shape;  ///< the full tensor's shape
  /// True for the entry of a partitioned tensor (saved in slices, listed in `slices`).
  bool partitioned = false;
  /// The slices a partitioned tensor was saved in, in the index's order.
  std::vector<TensorSlice> slices;

  /// Field-wise equality.
  friend bool operator==(const BundleEntryInfo&, const BundleEntryInfo&) = default;
};

// -- writer ---------------------------------------------------------------------------------

/// Writes one tensor bundle (a V2 checkpoint with one data file), as TensorFlow's
/// `BundleWriter`.
///
/// Tensors are appended to the data file as they are added (in any order: the index sorts
/// the names bytewise, as TensorFlow's writer does); `finish` writes the index. Both files
/// are written under temporary names `<file>.tempstate<random>` in the target directory,
/// flushed to disk, and renamed into place by `finish`, data file first and index last, so
/// a crash before `finish` returns leaves any previous checkpoint under the same prefix
/// readable (only the few microseconds between the two renames are exposed). Temporary
/// files of an abandoned writer are removed by its destructor.
///
/// Not thread-safe: one thread adds and finishes. All methods return the first error
/// again once one occurred.
class BundleWriter {
 public:
  /// Starts a bundle at `prefix`, creating the prefix's directory when missing. Errors
  /// (the directory or the temporary file cannot be created) are kept in `status()`.
  explicit BundleWriter(std::string prefix);

  /// Removes the temporary files unless `finish` succeeded.
  ~BundleWriter();

  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  /// The first error so far, OK while all went well.
  const Status& status() const noexcept { return status_; }

  /// Appends `value` under `name`.
  ///
  /// Supports every numeric dtype, bool, bfloat16 and string tensors of any shape (empty
  /// and scalar included), in host memory. Errors: InvalidArgument "Adding duplicate key:
  /// NAME" for a name added before, InvalidArgument for the empty name (the header's key),
  /// an uninitialized, resource or device tensor; Internal after `finish`; the I/O error
  /// when the data file cannot be written.
  Status add(std::string_view name, const Tensor& value);

  /// Appends `value` as the slice `slice` of the tensor `name` of shape `full_shape`, as
  /// TensorFlow's `BundleWriter::AddSlice`: the data go under `bundle_slice_key(name,
  /// slice)` and the entry of `name` holds the dtype, the full shape and the list of slices
  /// (no data). A slice covering the whole tensor is added as `add(name, value)`.
  ///
  /// Errors (InvalidArgument): the slice does not fit `full_shape` or `value`'s shape is
  /// not the slice's; a dtype other than earlier slices'; "Adding duplicate key: NAME" when
  /// `name` was added whole; "Adding duplicate slice S of NAME" for a slice added before;
  /// and those of `add`.
  Status add_slice(std::string_view name, const Shape& full_shape, const TensorSlice& slice,
                   const Tensor& value);

  /// Writes the index and moves both files to their final names
  /// (`P.data-00000-of-00001`, `P.index`). Returns the first error of the whole write; on
  /// error the temporary files are removed and no file under the final names is touched
  /// (unless the error struck between the two renames). Calling it again returns Internal
  /// "BundleWriter is closed".
  Status finish();

  /// The prefix given at construction.
  const std::string& prefix() const noexcept { return prefix_; }

 private:
  // A tensor saved in slices: its entry, written by `finish`.
  struct SlicedEntry {
    DType dtype = DType::invalid;
    Shape shape;
    std::vector<TensorSlice> slices;
  };
  void discard_temporaries() noexcept;
  void add_sliced_entries();

  std::string prefix_;
  std::string data_path_;                       // temporary data file
  std::string index_path_;                      // temporary index file
  std::FILE* data_ = nullptr;                   // open while adding
  std::uint64_t size_ = 0;                      // bytes in the data file
  std::map<std::string, std::string> entries_;  // name -> serialized BundleEntryProto
  std::map<std::string, SlicedEntry> sliced_;   // tensors saved in slices
  bool finished_ = false;
  Status status_;
};

// -- reader ---------------------------------------------------------------------------------

/// Reads a tensor bundle written by TensorFlow or `BundleWriter` (TensorFlow's
/// `BundleReader`), any number of data files.
///
/// The constructor reads the whole index, verifying every block's crc; `lookup` reads a
/// tensor's bytes from its data file and verifies their crc and size. Lookups may run
/// concurrently from several threads.
class BundleReader {
 public:
  /// Opens the bundle at `prefix`. Errors are kept in `status()`: NotFound "P.index; No
  /// such file or directory" when the index is missing; DataLoss naming the index file for
  /// a file that is not a table (bad magic number, too short), a block crc mismatch or an
  /// unparseable header or entry; Unimplemented for a big-endian bundle; InvalidArgument
  /// for a format version this reader does not support (TensorFlow's texts).
  explicit BundleReader(std::string prefix);
  /// Closes the files.
  ~BundleReader();

  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  /// OK when the index was read; otherwise every other method returns this error (or
  /// nothing).
  const Status& status() const noexcept { return status_; }

  /// The prefix given at construction.
  const std::string& prefix() const noexcept { return prefix_; }

  /// The number of data files (the header's num_shards).
  int num_shards() const noexcept { return num_shards_; }

  /// True when the bundle holds a tensor named `name`.
  bool contains(std::string_view name) const;

  /// Dtype and shape of `name` without reading its data; NotFound "Key NAME not found in
  /// checkpoint" when absent.
  StatusOr<BundleEntryInfo> lookup_dtype_and_shape(std::string_view name) const;

  /// Reads the tensor named `name`.
  ///
  /// Errors: NotFound "Key NAME not found in checkpoint"; DataLoss naming the tensor and
  /// its data file when the bytes' crc does not match the index, the stored size does not
  /// fit the dtype and shape, or the data file is shorter than the index says; NotFound
  /// for a missing data file; Unimplemented for dtypes actorflow lacks (the quantized
  /// ones). A tensor saved in slices is assembled from them (`lookup_slice` of the whole).
  StatusOr<Tensor> lookup(std::string_view name) const;

  /// Reads the slice `slice` of the tensor `name`, whether it was saved whole or in slices
  /// of any partitioning (TensorFlow's `LookupSlice`): each stored slice that overlaps it
  /// is read and its overlap copied, so a variable saved in 4 parts restores into 2 or 8.
  ///
  /// Errors: NotFound "Key NAME not found in checkpoint"; InvalidArgument "Does not have
  /// sufficient slices for partitioned tensor NAME to restore in slice_spec: S" when the
  /// stored slices do not cover it (or it does not fit the tensor); InvalidArgument
  /// "Overlapping slices: ..." for an index whose slices overlap; and those of `lookup`.
  StatusOr<Tensor> lookup_slice(std::string_view name, const TensorSlice& slice) const;

  /// Every tensor of the bundle in name order (the header and the keys of slices excluded:
  /// a partitioned tensor is listed once, whole), as `tf.train.list_variables` lists them.
  std::vector<BundleEntryInfo> entries() const;

 private:
  struct Entry;
  const Entry* find(std::string_view name) const;
  StatusOr<Tensor> read_value(const std::string& key, const Entry& e) const;
  StatusOr<Tensor> read_slices(const std::string& key, const Entry& e,
                               const TensorSlice& slice) const;
  Status open_data_file(int shard_id, int* fd) const;

  std::string prefix_;
  Status status_;
  int num_shards_ = 0;
  std::map<std::string, std::shared_ptr<const Entry>, std::less<>> entries_;
  mutable std::mutex data_mu_;
  mutable std::map<int, int> data_fds_;  // shard id -> open file descriptor
};

// -- merging --------------------------------------------------------------------------------

/// Merges the bundles at `prefixes` (each written by its own `BundleWriter`, typically one
/// per device under `<P>_temp/part-0000k-of-0000N`) into one bundle at `output_prefix`, as
/// TensorFlow's `MergeBundles` and the MergeV2Checkpoints kernel.
///
/// Each data file is renamed to `output_prefix.data-0000k-of-0000N` (k numbered in the
/// order the merge first meets the file), one index is written with num_shards the sum of
/// the inputs' and each entry's shard id rewritten, and the inputs' index files are
/// deleted. With `delete_old_dirs`, the (then empty) directory of every input prefix other
/// than the output's directory is removed; directories that still hold other files stay.
///
/// Errors: those of reading an input index (see `BundleReader`); InvalidArgument
/// "Duplicate tensor keyed by NAME encountered, when merging prefix: P" when two inputs
/// hold the same tensor, and for inputs of different endianness or format version; the
/// I/O error of a rename. Blocks on file I/O.
Status merge_bundles(const std::vector<std::string>& prefixes, const std::string& output_prefix,
                     bool delete_old_dirs);

}  // namespace af
