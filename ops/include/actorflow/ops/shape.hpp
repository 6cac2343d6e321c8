#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af {

/// The dims of a Shape: a vector of int64 that keeps up to `kInline` dims in place (no
/// allocation for the shapes tensors almost always have, as TensorFlow's TensorShape keeps
/// its dims inline). Converts to `std::vector<std::int64_t>` where one is needed.
class DimVector {
 public:
  /// Dims kept without a heap allocation.
  static constexpr std::size_t kInline = 6;
  /// Container typedefs, as std::vector's.
  using value_type = std::int64_t;
  using size_type = std::size_t;
  using iterator = std::int64_t*;
  using const_iterator = const std::int64_t*;

  /// No dims (a scalar's).
  DimVector() = default;
  /// A copy of `dims`.
  DimVector(std::initializer_list<std::int64_t> dims) { assign(dims.begin(), dims.end()); }
  /// A copy of `dims`.
  explicit DimVector(const std::vector<std::int64_t>& dims) {
    assign(dims.data(), dims.data() + dims.size());
  }
  /// A copy of `[first, last)`.
  DimVector(const std::int64_t* first, const std::int64_t* last) { assign(first, last); }
  /// Copyable and movable (a moved-from DimVector is empty).
  DimVector(const DimVector& o) { assign(o.begin(), o.end()); }
  DimVector(DimVector&& o) noexcept { take(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  /// Frees the heap block, if any.
  ~DimVector() { release(); }

  /// The number of dims.
  std::size_t size() const noexcept { return size_; }
  /// True when there are no dims.
  bool empty() const noexcept { return size_ == 0; }
  /// The dims, contiguous; invalidated by growth.
  std::int64_t* data() noexcept { return heap_ ? heap_ : inline_; }
  const std::int64_t* data() const noexcept { return heap_ ? heap_ : inline_; }
  /// Iterators over the dims.
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size_; }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size_; }
  /// Dim `i`, unchecked.
  std::int64_t& operator[](std::size_t i) noexcept { return data()[i]; }
  std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  /// Dim `i`; throws std::out_of_range for a bad index.
  std::int64_t at(std::size_t i) const;
  /// The first dim (not empty).
  std::int64_t front() const noexcept { return data()[0]; }
  /// The last dim (not empty).
  std::int64_t back() const noexcept { return data()[size_ - 1]; }
  /// Appends a dim.
  void push_back(std::int64_t d) {
    reserve(size_ + 1);
    data()[size_++] = d;
  }
  /// Removes the first dim (Tensor::slice).
  void erase_front() noexcept {
    if (size_ == 0) return;
    for (std::size_t i = 1; i < size_; ++i) data()[i - 1] = data()[i];
    --size_;
  }
  /// Makes room for `n` dims.
  void reserve(std::size_t n);
  /// A std::vector copy.
  operator std::vector<std::int64_t>() const {
    return {begin(), end()};
  }  // NOLINT: like the vector it was

  /// Element-wise equality.
  friend bool operator==(const DimVector& a, const DimVector& b) noexcept {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  /// Element-wise equality with a vector.
  friend bool operator==(const DimVector& a, const std::vector<std::int64_t>& b) noexcept {
    if (a.size_ != b.size()) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  void assign(const std::int64_t* first, const std::int64_t* last) {
    const auto n = static_cast<std::size_t>(last - first);
    if (n > capacity()) {
      release();
      heap_ = new std::int64_t[n];
      heap_capacity_ = n;
    }
    for (std::size_t i = 0; i < n; ++i) data()[i] = first[i];
    size_ = n;
  }
  std::size_t capacity() const noexcept { return heap_ ? heap_capacity_ : kInline; }
  void release() noexcept {
    delete[] heap_;
    heap_ = nullptr;
    heap_capacity_ = 0;
    size_ = 0;
  }
  void take(DimVector& o) noexcept {
    size_ = o.size_;
    if (o.heap_) {
      heap_ = o.heap_;
      heap_capacity_ = o.heap_capacity_;
      o.heap_ = nullptr;
      o.heap_capacity_ = 0;
    } else {
      for (std::size_t i = 0; i < size_; ++i) inline_[i] = o.inline_[i];
    }
    o.size_ = 0;
  }

  std::size_t size_ = 0;
  std::int64_t inline_[kInline] = {};
  std::int64_t* heap_ = nullptr;
  std::size_t heap_capacity_ = 0;
};

/// A fully defined tensor shape (TensorFlow's `TensorShape`): a list of non-negative dims.
class Shape {
 public:
  /// A scalar's shape (rank 0).
  Shape() = default;
  /// The shape with `dims` (not checked for negatives here; Tensor rejects them).
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}
  /// As above from a vector.
  explicit Shape(const std::vector<std::int64_t>& dims) : dims_(dims) {}
  /// As above from a DimVector.
  explicit Shape(DimVector dims) : dims_(std::move(dims)) {}

  /// The number of dims.
  int rank() const noexcept { return static_cast<int>(dims_.size()); }
  /// Dim `i`; throws std::out_of_range for a bad index.
  std::int64_t dim(int i) const { return dims_.at(static_cast<std::size_t>(i)); }
  /// The dims.
  const DimVector& dims() const noexcept { return dims_; }
  /// The dims, for editing in place.
  DimVector& mutable_dims() noexcept { return dims_; }
  /// The product of the dims (1 for a scalar).
  std::int64_t num_elements() const noexcept;
  /// True for rank 0.
  bool is_scalar() const noexcept { return dims_.empty(); }

  /// Renders as TensorFlow's `TensorShape::DebugString`: `[2,3]`, `[]`.
  std::string to_string() const;

  /// Equal dims.
  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  DimVector dims_;
};

/// Prints `s.to_string()`.
std::ostream& operator<<(std::ostream& os, const Shape& s);

/// A possibly partially known shape (TensorFlow's `PartialTensorShape` / `TensorShape` in
/// Python): unknown rank, or a list of dims where -1 means unknown.
class PartialShape {
 public:
  /// An unknown rank.
  PartialShape() = default;
  /// Known rank; -1 marks an unknown dimension. `{}` is a scalar.
  PartialShape(std::initializer_list<std::int64_t> dims) : dims_(std::vector<std::int64_t>(dims)) {}
  /// As above from a vector.
  explicit PartialShape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {}
  /// A fully defined shape.
  PartialShape(const Shape& s)
      : dims_(std::vector<std::int64_t>(s.dims())) {}  // NOLINT: implicit like TensorShape

  /// An unknown rank.
  static PartialShape unknown() { return {}; }
  /// A known rank with every dim unknown.
  static PartialShape unknown_of_rank(int rank) {
    return PartialShape(std::vector<std::int64_t>(static_cast<std::size_t>(rank), -1));
  }

  /// False for an unknown rank.
  bool rank_known() const noexcept { return dims_.has_value(); }
  /// Returns the rank, or -1 when unknown.
  int rank() const noexcept { return dims_ ? static_cast<int>(dims_->size()) : -1; }
  /// Dim `i` (-1 when unknown). The rank must be known; std::out_of_range for a bad index.
  std::int64_t dim(int i) const { return dims_->at(static_cast<std::size_t>(i)); }
  /// The dims (-1 when unknown). The rank must be known.
  const std::vector<std::int64_t>& dims() const { return *dims_; }
  /// True when the rank and every dim are known.
  bool fully_defined() const noexcept;
  /// Returns the shape when fully defined, else nullopt.
  std::optional<Shape> to_shape() const;
  /// Number of elements when fully defined, else -1.
  std::int64_t num_elements() const noexcept;

  /// True when `s` could have this partial shape.
  bool is_compatible_with(const PartialShape& s) const noexcept;
  /// Merges two compatible shapes (unknowns take the other's value); InvalidArgument if not.
  Status merge_with(const PartialShape& other, PartialShape* out) const;

  /// Renders as Python's TensorShape: `(2, ?)`, `<unknown>`, `()`.
  std::string to_string() const;

  /// Same rank knowledge and dims (unknowns compare equal to unknowns).
  friend bool operator==(const PartialShape&, const PartialShape&) = default;

 private:
  std::optional<std::vector<std::int64_t>> dims_;
};

/// Prints `s.to_string()`.
std::ostream& operator<<(std::ostream& os, const PartialShape& s);

/// Computes the NumPy broadcast of two shapes; InvalidArgument when incompatible.
Status broadcast_shapes(const PartialShape& a, const PartialShape& b, PartialShape* out);

}  // namespace af
