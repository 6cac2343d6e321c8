#pragma once

// TensorFlow's V1 checkpoint format ("tensor slice" files, tensorflow/core/util's
// TensorSliceWriter and TensorSliceReader): what the Save and SaveSlices ops write, what
// `tf.compat.v1.train.Saver(write_version=SaverDef.V1)` saves, and what Restore,
// RestoreSlice and RestoreV2 read when a prefix has no V2 `.index` file.
//
// A V1 checkpoint is one file, or one file per shard (`P-00000-of-00002`, read together
// through the pattern `P-?????-of-00002`). Each file is a LevelDB-format table: the empty key
// holds a SavedTensorSlices whose `meta` lists every tensor (name, shape, dtype) and the
// slices of it the file holds; each other key (`bundle_slice_key(name, slice)`) holds one
// slice's values in the TensorProto's typed field for its dtype (`float_val`, `int_val`,
// ...). Files written here are byte-identical to TensorFlow's, and TensorFlow's files read
// back here.
//
// Example:
//
//   af::TensorSliceWriter writer("/ckpt/model.ckpt");
//   af::throw_if_error(writer.add("w", w.shape(), af::TensorSlice(w.rank()), w));
//   af::throw_if_error(writer.finish());
//
//   af::TensorSliceReader reader("/ckpt/model.ckpt");
//   af::Tensor w = reader.lookup("w").value();

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/status_or.hpp"
#include "actorflow/ops/tensor.hpp"
#include "actorflow/ops/tensor_bundle.hpp"
#include "actorflow/ops/tensor_slice.hpp"

namespace af {

/// Writes one V1 checkpoint file, as TensorFlow's `TensorSliceWriter` with its table builder.
///
/// Slices are kept in memory as they are added; `finish` writes the table to
/// `<filename>.tempstate<random>` and renames it into place, so a crash leaves any previous
/// file under the name whole. The file's directory must exist (TensorFlow's V1 writer does
/// not make it). Not thread-safe.
class TensorSliceWriter {
 public:
  /// Starts a file at `filename`; nothing is written before `finish`.
  explicit TensorSliceWriter(std::string filename);

  TensorSliceWriter(const TensorSliceWriter&) = delete;
  TensorSliceWriter& operator=(const TensorSliceWriter&) = delete;

  /// Adds `value` as the slice `slice` of the tensor `name` of shape `full_shape` (a whole
  /// tensor: `TensorSlice(rank)` and its own shape). Adding a name again adds another slice of
  /// it; a second slice that overlaps the first is written, and reading the file then fails,
  /// as with TensorFlow.
  ///
  /// Saves every dtype TensorFlow's V1 format stores: the float, integer (up to 16 bits, int32,
  /// int64), bool, string, float16 and complex dtypes. Errors: InvalidArgument "Tensor slice
  /// serialization not implemented for dtype 22" for uint32 (23 for uint64); Unimplemented
  /// "Saving data type bfloat16 not yet supported" (and resource, variant); Internal
  /// "Incompatible tensor shape and slice: shape = [4,2], slice = 0,2", "Mismatching shapes:
  /// existing tensor = [4,2], trying to add name N, shape = [4,3]" and "Mismatching types:
  /// ..." (TensorFlow's texts); the slice's own error when it does not fit `full_shape`;
  /// InvalidArgument when `value` is not the slice's shape and dtype, or "Tensor slice is too
  /// large to serialize (conservative estimate: N bytes)" past 2 GiB.
  Status add(std::string_view name, const Shape& full_shape, const TensorSlice& slice,
             const Tensor& value);

  /// Writes the file: the table of contents under the empty key, then the slices in key
  /// order. Errors: the I/O error naming the file (NotFound when its directory is missing);
  /// Internal when called twice.
  Status finish();

 private:
  struct Meta;
  std::string filename_;
  std::shared_ptr<Meta> meta_;               // the table of contents, in order of adding
  std::map<std::string, std::string> data_;  // slice key -> serialized SavedTensorSlices
  bool finished_ = false;
};

/// Reads a V1 checkpoint: every file matching `file_pattern` (a file name, or a glob such as
/// `model.ckpt-?????-of-00002`), as TensorFlow's `TensorSliceReader`.
///
/// The constructor opens each file and reads its table of contents; lookups read the
/// slices' records as needed, verifying each block's crc. A tensor may be split in slices
/// across files. Lookups may run concurrently from several threads.
class TensorSliceReader {
 public:
  /// Opens the files. Errors are kept in `status()`: NotFound "Unsuccessful
  /// TensorSliceReader constructor: Failed to find any matching files for P"; DataLoss
  /// "Unable to open table file F: DATA_LOSS: not an sstable (bad magic number): perhaps your
  /// file is in a different file format and you need to use a different restore operator?";
  /// Internal "Failed to find the saved tensor slices at the beginning of the checkpoint
  /// file: F"; InvalidArgument for a format version this reader does not support; Internal
  /// "Incompatible tensor shapes detected for tensor N: existing = [2], new = [3]" (or
  /// types) and "Overlapping slices: existing slice = 0,2:-, new slice = 1,2:-" when the
  /// files disagree (TensorFlow's texts).
  explicit TensorSliceReader(std::string file_pattern);
  /// Closes the files.
  ~TensorSliceReader();

  TensorSliceReader(const TensorSliceReader&) = delete;
  TensorSliceReader& operator=(const TensorSliceReader&) = delete;

  /// OK when every file's table of contents was read; otherwise the other methods return
  /// this error (or nothing).
  const Status& status() const noexcept { return status_; }

  /// The pattern given at construction.
  const std::string& file_pattern() const noexcept { return pattern_; }

  /// The files that matched it, in the order they were found.
  std::vector<std::string> files() const;

  /// True when a file holds a slice of the tensor `name`.
  bool contains(std::string_view name) const;

  /// Dtype, shape and stored slices of `name` without reading its data; NotFound "Tensor
  /// name \"N\" not found in checkpoint files P" when absent.
  StatusOr<BundleEntryInfo> lookup_dtype_and_shape(std::string_view name) const;

  /// Reads the whole tensor `name` (`lookup_slice` of all of it).
  StatusOr<Tensor> lookup(std::string_view name) const;

  /// Reads the slice `slice` of the tensor `name`, copied from every stored slice that
  /// overlaps it (TensorFlow's `CopySliceData`).
  ///
  /// Errors: NotFound as `lookup_dtype_and_shape`; the slice's error when it does not fit the
  /// tensor; InvalidArgument "Error copying slice data: ..." (TensorFlow's text, then why:
  /// the stored slices do not cover it, a record is missing, unparseable or of the wrong
  /// size) naming the tensor and file; Unimplemented "Restoring data type bfloat16 not yet
  /// supported" for dtypes the format does not store; DataLoss for a block whose crc does
  /// not match.
  StatusOr<Tensor> lookup_slice(std::string_view name, const TensorSlice& slice) const;

  /// Every tensor in name order, listed once however many slices and files hold it (what
  /// `tf.train.list_variables` lists).
  std::vector<BundleEntryInfo> entries() const;

 private:
  struct File;
  struct Stored;
  const Stored* find(std::string_view name) const;

  std::string pattern_;
  Status status_;
  std::vector<std::unique_ptr<File>> files_;
  std::map<std::string, std::shared_ptr<Stored>, std::less<>> tensors_;
};

/// True when `file_pattern` names a V1 checkpoint: some file matches it and the prefix has no
/// V2 `.index` file (TensorFlow's `checkpoint_exists` for V1 paths).
bool is_v1_checkpoint(const std::string& file_pattern);

}  // namespace af
