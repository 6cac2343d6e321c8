#include "actorflow/ops/shape.hpp"

#include <algorithm>
#include <stdexcept>

namespace af {

std::int64_t DimVector::at(std::size_t i) const {
  if (i >= size_)
    throw std::out_of_range("DimVector::at: dim " + std::to_string(i) + " of " +
                            std::to_string(size_));
  return data()[i];
}

void DimVector::reserve(std::size_t n) {
  if (n <= capacity()) return;
  const std::size_t grown = std::max(n, 2 * capacity());
  auto* bigger = new std::int64_t[grown];
  for (std::size_t i = 0; i < size_; ++i) bigger[i] = data()[i];
  delete[] heap_;
  heap_ = bigger;
  heap_capacity_ = grown;
}

std::int64_t Shape::num_elements() const noexcept {
  std::int64_t n = 1;
  for (auto d : dims_) n *= d;
  return n;
}

std::string Shape::to_string() const {
  std::string out = "[";
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(dims_[i]);
  }
  return out + "]";
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.to_string(); }

bool PartialShape::fully_defined() const noexcept {
  return dims_ && std::all_of(dims_->begin(), dims_->end(), [](auto d) { return d >= 0; });
}

std::optional<Shape> PartialShape::to_shape() const {
  if (!fully_defined()) return std::nullopt;
  return Shape{*dims_};
}

std::int64_t PartialShape::num_elements() const noexcept {
  if (!fully_defined()) return -1;
  std::int64_t n = 1;
  for (auto d : *dims_) n *= d;
  return n;
}

bool PartialShape::is_compatible_with(const PartialShape& s) const noexcept {
  if (!rank_known() || !s.rank_known()) return true;
  if (rank() != s.rank()) return false;
  for (int i = 0; i < rank(); ++i) {
    auto a = dim(i), b = s.dim(i);
    if (a >= 0 && b >= 0 && a != b) return false;
  }
  return true;
}

Status PartialShape::merge_with(const PartialShape& other, PartialShape* out) const {
  if (!rank_known()) {
    *out = other;
    return {};
  }
  if (!other.rank_known()) {
    *out = *this;
    return {};
  }
  if (!is_compatible_with(other))
    return invalid_argument("Shapes " + to_string() + " and " + other.to_string() +
                            " are not compatible");
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank()));
  for (int i = 0; i < rank(); ++i)
    dims[static_cast<std::size_t>(i)] = std::max(dim(i), other.dim(i));
  *out = PartialShape{std::move(dims)};
  return {};
}

std::string PartialShape::to_string() const {
  if (!dims_) return "<unknown>";
  std::string out = "(";
  for (std::size_t i = 0; i < dims_->size(); ++i) {
    if (i) out += ", ";
    out += (*dims_)[i] < 0 ? std::string("?") : std::to_string((*dims_)[i]);
  }
  if (dims_->size() == 1) out += ",";
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const PartialShape& s) { return os << s.to_string(); }

Status broadcast_shapes(const PartialShape& a, const PartialShape& b, PartialShape* out) {
  if (!a.rank_known() || !b.rank_known()) {
    *out = PartialShape::unknown();
    return {};
  }
  int rank = std::max(a.rank(), b.rank());
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    std::int64_t da = ia >= 0 ? a.dim(ia) : 1;
    std::int64_t db = ib >= 0 ? b.dim(ib) : 1;
    std::int64_t d;
    if (da == 1)
      d = db;
    else if (db == 1)
      d = da;
    else if (da < 0 || db < 0)
      d = da < 0 ? db : da;  // unknown vs known (not 1): assume known
    else if (da == db)
      d = da;
    else
      return invalid_argument("Incompatible shapes: " + a.to_string() + " vs. " + b.to_string());
    dims[static_cast<std::size_t>(i)] = d;
  }
  *out = PartialShape{std::move(dims)};
  return {};
}

}  // namespace af
