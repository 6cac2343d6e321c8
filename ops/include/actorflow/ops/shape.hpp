#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "actorflow/ops/status.hpp"

namespace af {

/// A fully defined tensor shape (TensorFlow's `TensorShape`): a list of non-negative dims.
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const noexcept { return static_cast<int>(dims_.size()); }
  std::int64_t dim(int i) const { return dims_.at(static_cast<std::size_t>(i)); }
  const std::vector<std::int64_t>& dims() const noexcept { return dims_; }
  std::vector<std::int64_t>& mutable_dims() noexcept { return dims_; }
  std::int64_t num_elements() const noexcept;
  bool is_scalar() const noexcept { return dims_.empty(); }

  /// Renders as TensorFlow's `TensorShape::DebugString`: `[2,3]`, `[]`.
  std::string to_string() const;

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<std::int64_t> dims_;
};

std::ostream& operator<<(std::ostream& os, const Shape& s);

/// A possibly partially known shape (TensorFlow's `PartialTensorShape` / `TensorShape` in
/// Python): unknown rank, or a list of dims where -1 means unknown.
class PartialShape {
 public:
  /// An unknown rank.
  PartialShape() = default;
  /// Known rank; -1 marks an unknown dimension. `{}` is a scalar.
  PartialShape(std::initializer_list<std::int64_t> dims) : dims_(std::vector<std::int64_t>(dims)) {}
  explicit PartialShape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {}
  PartialShape(const Shape& s) : dims_(s.dims()) {}  // NOLINT: implicit like TensorShape

  static PartialShape unknown() { return {}; }
  static PartialShape unknown_of_rank(int rank) {
    return PartialShape(std::vector<std::int64_t>(static_cast<std::size_t>(rank), -1));
  }

  bool rank_known() const noexcept { return dims_.has_value(); }
  /// Returns the rank, or -1 when unknown.
  int rank() const noexcept { return dims_ ? static_cast<int>(dims_->size()) : -1; }
  std::int64_t dim(int i) const { return dims_->at(static_cast<std::size_t>(i)); }
  const std::vector<std::int64_t>& dims() const { return *dims_; }
  bool fully_defined() const noexcept;
  /// Returns the shape when fully defined.
  std::optional<Shape> to_shape() const;
  /// Number of elements when fully defined, else -1.
  std::int64_t num_elements() const noexcept;

  /// True when `s` could have this partial shape.
  bool is_compatible_with(const PartialShape& s) const noexcept;
  /// Merges two compatible shapes (unknowns take the other's value); InvalidArgument if not.
  Status merge_with(const PartialShape& other, PartialShape* out) const;

  /// Renders as Python's TensorShape: `(2, ?)`, `<unknown>`, `()`.
  std::string to_string() const;

  friend bool operator==(const PartialShape&, const PartialShape&) = default;

 private:
  std::optional<std::vector<std::int64_t>> dims_;
};

std::ostream& operator<<(std::ostream& os, const PartialShape& s);

/// Computes the NumPy broadcast of two shapes; InvalidArgument when incompatible.
Status broadcast_shapes(const PartialShape& a, const PartialShape& b, PartialShape* out);

}  // namespace af
