#pragma once

// Slices of tensors as checkpoints name them (TensorFlow's TensorSlice,
// core/framework/tensor_slice.h, and the "shape and slice" specs of
// core/util/saved_tensor_slice_util.h): a partitioned variable's part is saved as the slice
// of its full variable, e.g. part 1 of a [10,4] table cut in 3 as "10 4 4,3:0,4".
//
// Example:
//
//   auto parsed = af::parse_shape_and_slice("10 4 4,3:0,4").value();
//   // parsed.full_shape == {10, 4}, parsed.slice_shape == {3, 4}
//   af::TensorSlice rows = af::TensorSlice::parse("2,5:-").value();
//   af::TensorSlice both;
//   rows.intersect(parsed.slice, &both);  // "4,3:0,4"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "actorflow/ops/shape.hpp"
#include "actorflow/ops/status.hpp"
#include "actorflow/ops/status_or.hpp"

namespace af {

class Tensor;

/// A box in a tensor: per dimension a start and a length, or the whole dimension.
class TensorSlice {
 public:
  /// The length that stands for a whole dimension (TensorFlow's `kFullExtent`).
  static constexpr std::int64_t kFullExtent = -1;

  /// The slice of a scalar (rank 0).
  TensorSlice() = default;
  /// The whole of a tensor of rank `rank`.
  explicit TensorSlice(int rank);
  /// The slice with these starts and lengths (`kFullExtent` for a whole dimension; its start
  /// is then 0). Not checked: `parse` checks text.
  TensorSlice(std::vector<std::int64_t> starts, std::vector<std::int64_t> lengths);

  /// Parses TensorFlow's slice text: per dimension `start,length` or `-` (whole), joined by
  /// ':'; "" is rank 0. Errors (InvalidArgument, TensorFlow's texts): "Expected a pair of
  /// numbers or '-' but got 'x': string = S", "Expected non-negative start and positive
  /// length but got start = -1, length = 2: string = S".
  static StatusOr<TensorSlice> parse(std::string_view text);

  /// The number of dimensions.
  int rank() const noexcept { return static_cast<int>(starts_.size()); }
  /// Dimension `d`'s start (0 for a whole dimension).
  std::int64_t start(int d) const { return starts_.at(static_cast<std::size_t>(d)); }
  /// Dimension `d`'s length, `kFullExtent` for a whole dimension.
  std::int64_t length(int d) const { return lengths_.at(static_cast<std::size_t>(d)); }
  /// True when dimension `d` is whole.
  bool is_full_at(int d) const { return length(d) == kFullExtent; }
  /// True when every dimension is whole.
  bool is_full() const noexcept;

  /// The slice's shape in a tensor of shape `full` (TensorFlow's `SliceTensorShape`). Errors
  /// (Internal, TensorFlow's texts): "Mismatching ranks: shape = [10,4], slice = 0,4" and
  /// "Extent in dimension 0 out of bounds: shape = [10,4], slice = 8,4:-".
  StatusOr<Shape> slice_shape(const Shape& full) const;

  /// True when the two slices overlap; then `*result` (when not null) is the overlap. Slices
  /// of different ranks never overlap.
  bool intersect(const TensorSlice& other, TensorSlice* result) const;

  /// TensorFlow's `DebugString`: "4,3:-".
  std::string to_string() const;

  /// Equal starts and lengths.
  friend bool operator==(const TensorSlice&, const TensorSlice&) = default;

 private:
  std::vector<std::int64_t> starts_;
  std::vector<std::int64_t> lengths_;
};

/// A parsed "shape and slice" spec.
struct ShapeAndSlice {
  Shape full_shape;   ///< the full tensor's shape
  TensorSlice slice;  ///< the slice of it
  Shape slice_shape;  ///< the slice's own shape
};

/// Parses a "shape and slice" spec (TensorFlow's `ParseShapeAndSlice`): the full shape's dims
/// separated by spaces, a space, then the slice (`"10 4 4,3:0,4"`). Errors (InvalidArgument
/// unless said): "Need least two elements in shape_and_slice specification: S", "Non
/// numerical dimension in shape_and_slice: S", the slice's parse errors, and Internal when
/// the slice does not fit the shape.
StatusOr<ShapeAndSlice> parse_shape_and_slice(std::string_view spec);

/// Copies the elements that `src` and `dst` share, where `src` holds the slice `src_slice`
/// and `dst` the slice `dst_slice` of one tensor of shape `full_shape` (TensorFlow's
/// `CopyDataFromTensorSliceToTensorSlice`); elements of `dst` outside `src_slice` are left
/// as they are. Returns false, copying nothing, when the slices do not overlap. Both
/// tensors have the same dtype and their slices' shapes (not checked).
bool copy_slice_data(const Shape& full_shape, const TensorSlice& src_slice, const Tensor& src,
                     const TensorSlice& dst_slice, Tensor& dst);

/// Where a variable sits in the full variable it is a part of (TensorFlow's
/// `Variable.SaveSliceInfo`, `SaveSliceInfoDef`): a Saver saves the part as that slice of
/// `full_name`.
struct SaveSliceInfo {
  std::string full_name;                 ///< the full variable's name ("emb")
  std::vector<std::int64_t> full_shape;  ///< the full variable's shape
  std::vector<std::int64_t> var_offset;  ///< the part's offset in each dimension
  std::vector<std::int64_t> var_shape;   ///< the part's shape
  /// The checkpoint slice spec: the full dims, a space, then "offset,length" per dimension
  /// joined by ':' (`"10 4 0,4:0,4"`).
  std::string spec() const;
  /// Field-wise equality.
  friend bool operator==(const SaveSliceInfo&, const SaveSliceInfo&) = default;
};

}  // namespace af
